"""Schema 1 of a stored run, declared in full (types and finite ranges) as the JSON Schema ``RESULT_SCHEMA``,
and what a valid file must hold beyond it. The keys::

    schema, variant, preset, seed, config {model, train}, config_hash,
    provenance {git_commit, git_dirty, torch, device, started, wall_time_s (these required), python, finished,
                tokens_per_s, world_size, throughput, cpu_capability and threads (newer runs),
                segments (the stretches of steps of a run resumed on another machine or commit)},
    num_parameters, history [{step, lr, train_loss, val_loss}], train_curve [[step, loss]],
    final {val_loss, train_loss, val_loss_full, val_loss_full_by_context {1x, 2x, 4x},
           extrapolation_note, val_loss_full_causal_stats},
    learned {morlet {omega, sigma, omega_raw, sigma_raw, centre}, ega {alpha, tau}, morlet_rope_sigma}

Beyond what a JSON Schema can say, each learned array has the length the run's own configuration
fixes (:func:`learned_lengths`), so that no reader meets arrays that do not fit the model; and every stored
string is one line of printable text, the two time stamps are ISO 8601 with an offset and a resumed run's
stretches cover its steps (:func:`page_field_problem`). :func:`schema_problem` says why a file is not valid, checked by jsonschema or,
on a machine without it, by ``_SubsetValidator``, which reads the same declaration. (That a current hash
vouches for the configuration a run stores is :func:`mope.store.results.stored_configuration_problem`.)
"""
from __future__ import annotations

import hashlib
import math
import re
from datetime import datetime

try:  # the declared schema is checked by jsonschema; a machine without it (a bare GPU image) uses
    import jsonschema  # _SubsetValidator below, which reads the same schema
except ImportError:  # pragma: no cover (tested by forcing the fallback)
    jsonschema = None

from mope.errors import one_line, shorten, shown

SCHEMA = 1

_MAX_FLOAT = 1.7976931348623157e308


def _finite_number(checker, instance) -> bool:
    """JSON Schema's "number", narrowed to what every reader can turn into a finite float: not a bool,
    not NaN or an infinity (Python's json reads ``NaN``, ``Infinity`` and ``1e400``), not an integer too
    large for a float (``10**400``)."""
    if isinstance(instance, bool) or not isinstance(instance, (int, float)):
        return False
    return math.isfinite(instance) if isinstance(instance, float) else -_MAX_FLOAT <= instance <= _MAX_FLOAT


def _strict_integer(checker, instance) -> bool:
    """JSON Schema's "integer", without bools and without integral floats (``1.0``)."""
    return isinstance(instance, int) and not isinstance(instance, bool)


_NUMBER = {"type": "number"}  # finite, see _finite_number
_LOSS = {"type": "number", "exclusiveMinimum": 0, "maximum": 1e4}  # a cross-entropy of 0 is no model's
_NUMBERS = {"type": "array", "items": _NUMBER}
# MoPE's and Morlet-RoPE's ω (radians a position) and σ (positions): exp of a float32 parameter, so > 0.
# Trained runs hold 0.8-4.1 and 0.9-2.4e4 (Morlet-RoPE's σ starts at 5/θ); beyond 1e7 the envelope
# e^(-b²/2σ²) equals 1 in float32 at every position of any context we train, so no gradient could
# have taken σ there: such a value is not a trained one.
_SCALE = {"type": "number", "exclusiveMinimum": 0, "maximum": 1e7}
_SCALES = {"type": "array", "items": _SCALE}
_MATRIX = {"type": "array", "items": _NUMBERS}
MAX_COUNT = 10**9  # the largest step, step count or size a stored run may carry
_STEP = {"type": "integer", "minimum": 0, "maximum": MAX_COUNT}
_POSITIVE = {"type": "integer", "minimum": 1, "maximum": MAX_COUNT}
_TEXT = {"type": "string", "maxLength": 1000}
_NAME = {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"}
_CAPABILITY = {"anyOf": [{"type": "string", "pattern": "^[A-Za-z0-9_]{1,32}$"}, {"type": "null"}]}

#: The provenance every stored run holds and the book reads as it is (the commit and whether its tree was dirty, torch,
#: the device, the start and the wall time); every other provenance field is optional, and every reader takes it so
#: (a dash or "not recorded": tests/test_optional_provenance.py).
REQUIRED_PROVENANCE = ("git_commit", "git_dirty", "torch", "device", "started", "wall_time_s")

# Schema 1, declared: every field that a reader of the store uses (the CLI, claims, tables, figures,
# the explorer, the reproducibility page), with its type and a finite range. Fields a writer may add
# later are allowed (``additionalProperties`` is left open) but never required, so that an older file
# stays valid; ``provenance.throughput`` is such an addition (throughput and MFU, optional).
RESULT_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "a stored MoPE run (schema 1): results/{preset}/{variant}/seed{S}.json",
    "type": "object",
    "required": ["schema", "variant", "preset", "seed", "config_hash", "config", "provenance", "history", "final"],
    "properties": {
        "schema": {"const": SCHEMA},
        "variant": {"type": "string", "minLength": 1, "maxLength": 64},
        "preset": _NAME,
        "seed": {"type": "integer", "minimum": 0, "maximum": 2**32 - 1},
        "config_hash": {"type": "string", "pattern": "^[0-9a-f]{16}$"},
        "config": {
            "type": "object",
            "required": ["model", "train"],
            "properties": {
                "model": {"type": "object", "properties": {
                    "vocab_size": _POSITIVE, "block_size": _POSITIVE, "n_layer": _POSITIVE, "n_head": _POSITIVE,
                    "n_embd": _POSITIVE, "dropout": {"type": "number", "minimum": 0, "exclusiveMaximum": 1},
                    "absolute": _TEXT, "attention_positions": _TEXT, "gate": _TEXT, "admissibility": _TEXT,
                    "morlet_centre": {"type": "boolean"}, "decay_positional": {"type": "boolean"},
                }},
                "train": {"type": "object", "properties": {
                    "name": _NAME, "n_layer": _POSITIVE, "n_head": _POSITIVE, "n_embd": _POSITIVE,
                    "block_size": _POSITIVE, "dropout": {"type": "number", "minimum": 0, "exclusiveMaximum": 1},
                    "steps": _POSITIVE, "lr": {"type": "number", "minimum": 0, "maximum": 10},
                    "betas": {"type": "array", "items": _NUMBER, "minItems": 2, "maxItems": 2},
                    "eps": _NUMBER, "weight_decay": _NUMBER, "warmup": _STEP, "clip": _NUMBER,
                    "batch_size": _POSITIVE, "eval_interval": _POSITIVE, "eval_batches": _POSITIVE,
                    "checkpoint_interval": _POSITIVE, "extrapolation": {"type": "array", "items": _POSITIVE},
                    "full_eval_tokens": {"anyOf": [_POSITIVE, {"type": "null"}]},
                    "autocast": _TEXT, "compile": {"type": "boolean"},
                    "tokenizer": {"anyOf": [_TEXT, {"type": "null"}]},
                    "tokenizer_sha256": {"anyOf": [{"type": "string", "pattern": "^[0-9a-f]{64}$"}, {"type": "null"}]},
                }},
            },
        },
        "provenance": {"type": "object", "required": list(REQUIRED_PROVENANCE), "properties": {
            "git_commit": _TEXT, "git_dirty": {"type": "boolean"}, "torch": _TEXT, "python": _TEXT,
            "device": _TEXT, "started": _TEXT, "finished": _TEXT,
            "cpu_capability": _CAPABILITY,
            "threads": {"type": "integer", "minimum": 1, "maximum": 4096},
            "wall_time_s": {"type": "number", "minimum": 0}, "tokens_per_s": {"type": "number", "minimum": 0},
            "world_size": _POSITIVE,
            "segments": {"type": "array", "minItems": 2, "items": {
                "type": "object", "required": ["from_step", "to_step"],
                "properties": {"from_step": _STEP, "to_step": _STEP, "git_commit": _TEXT, "git_dirty": {"type": "boolean"},
                               "device": _TEXT, "cpu_capability": _CAPABILITY,
                               "threads": {"type": "integer", "minimum": 1, "maximum": 4096}, "torch": _TEXT},
            }},
            "throughput": {"type": "object", "properties": {
                "tokens_per_s": {"anyOf": [{"type": "number", "minimum": 0}, {"type": "null"}]},
                "first_step_s": {"anyOf": [{"type": "number", "minimum": 0}, {"type": "null"}]},
                "steps_timed": {"type": "integer", "minimum": 0},
                "flops_per_token": {"type": "number", "minimum": 0},
                "peak_flops_per_s": {"anyOf": [{"type": "number", "exclusiveMinimum": 0}, {"type": "null"}]},
                "peak_source": {"anyOf": [_TEXT, {"type": "null"}]},
                "mfu": {"anyOf": [{"type": "number", "minimum": 0}, {"type": "null"}]},
                "compiled": {"type": "boolean"}, "fused_adamw": {"type": "boolean"},
            }},
        }},
        "num_parameters": {"type": "integer", "minimum": 0, "maximum": 10**13},
        "history": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["step", "val_loss"],
            "properties": {"step": _STEP, "lr": {"type": "number", "minimum": 0, "maximum": 10},
                           "train_loss": _LOSS, "val_loss": _LOSS},
        }},
        "train_curve": {"type": "array", "items": {
            "type": "array", "prefixItems": [_STEP, _LOSS], "minItems": 2, "maxItems": 2}},
        "final": {
            "type": "object",
            "required": ["val_loss", "val_loss_full"],
            # open to a field a later writer adds, named as a field is: each key becomes a column of the runs CSV
            "propertyNames": {"pattern": "^[A-Za-z][A-Za-z0-9_]{0,63}$"},
            "properties": {
                "val_loss": _LOSS, "train_loss": _LOSS, "val_loss_full": _LOSS,
                "val_loss_full_by_context": {"anyOf": [{"type": "null"}, {
                    "type": "object",
                    "propertyNames": {"pattern": "^[1-9][0-9]{0,3}x$"},
                    "additionalProperties": {"anyOf": [_LOSS, {"type": "null"}]},
                }]},
                "extrapolation_note": {"anyOf": [_TEXT, {"type": "null"}]},
                "val_loss_full_causal_stats": {"anyOf": [_LOSS, {"type": "null"}]},
            },
        },
        "learned": {"type": "object", "properties": {
            "morlet": {"anyOf": [{"type": "null"}, {
                "type": "object", "required": ["omega", "sigma", "omega_raw", "sigma_raw"],
                "properties": {"omega": _SCALES, "sigma": _SCALES, "omega_raw": _SCALES, "sigma_raw": _SCALES,
                               "centre": {"anyOf": [_NUMBERS, {"type": "null"}]}},
            }]},
            "ega": {"anyOf": [{"type": "null"}, {
                "type": "object", "required": ["alpha", "tau"],
                "properties": {"alpha": _MATRIX, "tau": _MATRIX},
            }]},
            "morlet_rope_sigma": {"type": "array", "items": _SCALES},
        }},
    },
}

class _SubsetValidator:
    """The part of JSON Schema that ``RESULT_SCHEMA`` uses, read from the same declaration: the validator
    of a machine without ``jsonschema`` (the GPU image holds torch, numpy and tqdm only). It answers as
    jsonschema does for every file (tested on the stored results and on damaged ones); a keyword it does
    not know fails at import, so the two cannot drift apart silently."""

    KEYWORDS = frozenset({"$schema", "title", "type", "const", "required", "properties", "additionalProperties",
                          "propertyNames", "items", "prefixItems", "minItems", "maxItems", "minimum", "maximum",
                          "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "pattern", "anyOf"})
    TYPES = {"number": lambda v: _finite_number(None, v), "integer": lambda v: _strict_integer(None, v),
             "string": lambda v: isinstance(v, str), "boolean": lambda v: isinstance(v, bool),
             "null": lambda v: v is None, "object": lambda v: isinstance(v, dict), "array": lambda v: isinstance(v, list)}

    def __init__(self, schema: dict) -> None:
        self._check_keywords(schema)
        self.schema = schema

    def _check_keywords(self, schema) -> None:
        unknown = set(schema) - self.KEYWORDS
        if unknown:
            raise ValueError(f"RESULT_SCHEMA uses {sorted(unknown)}, which _SubsetValidator does not know")
        for key in ("properties",):
            for sub in schema.get(key, {}).values():
                self._check_keywords(sub)
        for key in ("additionalProperties", "propertyNames", "items"):
            if isinstance(schema.get(key), dict):
                self._check_keywords(schema[key])
        for key in ("prefixItems", "anyOf"):
            for sub in schema.get(key, []):
                self._check_keywords(sub)

    def problem(self, instance) -> str | None:
        found = self._first(self.schema, instance, "")
        return None if found is None else shorten(f"{found[0] or 'the file'}: {found[1]}")

    def _first(self, schema: dict, value, where: str) -> tuple[str, str] | None:
        shown = repr(value) if not isinstance(value, (dict, list)) or len(value) < 20 else f"{type(value).__name__} of {len(value)}"
        if len(shown) > 40:
            shown = shown[:37] + "..."
        if "anyOf" in schema:
            found = [self._first(sub, value, where) for sub in schema["anyOf"]]
            if all(found):
                typed = [f for sub, f in zip(schema["anyOf"], found) if self._is_type(sub, value)]
                if typed:
                    return typed[0]
                kinds = " or ".join(repr(sub.get("type")) for sub in schema["anyOf"])
                return where, f"{shown} is not of type {kinds}"
        if "type" in schema and not self._is_type(schema, value):
            return where, f"{shown} is not of type {schema['type']!r}"
        if "const" in schema and (value != schema["const"] or isinstance(value, bool)):
            return where, f"{schema['const']!r} was expected"
        if isinstance(value, dict):
            for key in schema.get("required", []):
                if key not in value:
                    return where, f"{key!r} is a required property"
            for key, item in value.items():
                inner = f"{where}.{key}" if where else key
                if "propertyNames" in schema and not re.search(schema["propertyNames"]["pattern"], key):
                    return where, f"{key!r} does not match {schema['propertyNames']['pattern']!r}"
                sub = schema.get("properties", {}).get(key, schema.get("additionalProperties"))
                if sub is not None:
                    found = self._first(sub, item, inner if "properties" in schema else f"{where}[{key!r}]")
                    if found:
                        return found
        if isinstance(value, list):
            if len(value) < schema.get("minItems", 0):
                return where, f"{shown} should be non-empty" if schema["minItems"] == 1 else f"{shown} is too short"
            if len(value) > schema.get("maxItems", len(value)):
                return where, f"{shown} is too long"
            prefix = schema.get("prefixItems", [])
            for index, item in enumerate(value):
                sub = prefix[index] if index < len(prefix) else schema.get("items")
                found = self._first(sub, item, f"{where}[{index}]") if sub is not None else None
                if found:
                    return found
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            for key, fails, words in (("minimum", lambda v, m: v < m, "less than the minimum of"),
                                      ("maximum", lambda v, m: v > m, "greater than the maximum of"),
                                      ("exclusiveMinimum", lambda v, m: v <= m, "less than or equal to the minimum of"),
                                      ("exclusiveMaximum", lambda v, m: v >= m, "greater than or equal to the maximum of")):
                if key in schema and fails(value, schema[key]):
                    return where, f"{shown} is {words} {schema[key]!r}"
        if isinstance(value, str):
            if len(value) > schema.get("maxLength", len(value)):
                return where, f"{shown} is too long"
            if len(value) < schema.get("minLength", 0):
                return where, f"{shown} is too short"
            if "pattern" in schema and not re.search(schema["pattern"], value):
                return where, f"{shown} does not match {schema['pattern']!r}"
        return None

    def _is_type(self, schema: dict, value) -> bool:
        kinds = schema.get("type")
        if kinds is None:
            return True
        return any(self.TYPES[kind](value) for kind in ([kinds] if isinstance(kinds, str) else kinds))


_SUBSET = _SubsetValidator(RESULT_SCHEMA)
if jsonschema is not None:
    _Validator = jsonschema.validators.extend(
        jsonschema.Draft202012Validator,
        type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine_many(
            {"number": _finite_number, "integer": _strict_integer}),
    )
    jsonschema.Draft202012Validator.check_schema(RESULT_SCHEMA)
    _VALIDATOR = _Validator(RESULT_SCHEMA)


def _describe(error) -> str:
    """A jsonschema validation error in one line: where, and what is wrong (for "null or a number", the
    problem of the branch that had the right type, else the types that would do)."""
    message, shown = error.message, repr(error.instance)
    if error.validator == "anyOf" and error.context:
        deeper = [e for e in error.context if e.relative_path]  # the right type, wrong inside
        ranged = [e for e in error.context if e.validator != "type"]  # the right type, out of range
        if deeper or ranged:
            return _describe(jsonschema.exceptions.best_match(deeper or ranged))
        message = f"{shown} is not of type {' or '.join(repr(e.validator_value) for e in error.context)}"
    if len(shown) > 40 and message.startswith(shown):  # a long value would hide what is wrong with it
        message = shown[:37] + "..." + message[len(shown):]
    where = error.json_path.removeprefix("$").removeprefix(".") or "the file"
    return shorten(f"{where}: {message}")


def declared_checker(schema: dict):
    """``problem(data, use_jsonschema=True) -> str | None`` for another schema the store declares (the records
    of the runs in progress, :mod:`mope.store.in_progress`), checked exactly as ``RESULT_SCHEMA`` is: by
    jsonschema with finite numbers and strict integers, or, without it, by ``_SubsetValidator``."""
    subset = _SubsetValidator(schema)
    validator = None
    if jsonschema is not None:
        jsonschema.Draft202012Validator.check_schema(schema)
        validator = _Validator(schema)

    def problem(data, use_jsonschema: bool = True) -> str | None:
        if validator is None or not use_jsonschema:
            return subset.problem(data)
        error = jsonschema.exceptions.best_match(validator.iter_errors(data))
        return None if error is None else _describe(error)
    return problem


def schema_problem(data, use_jsonschema: bool = True) -> str | None:
    """Why ``data`` is not a valid schema-1 result (``RESULT_SCHEMA``, then :func:`learned_shape_problem`),
    or None. Checked by jsonschema, or, where it is not installed (or ``use_jsonschema`` is False), by
    ``_SubsetValidator``."""
    if isinstance(data, dict) and data.get("schema") != SCHEMA:
        return shorten(f"schema {data.get('schema')!r}, expected {SCHEMA}")
    if jsonschema is None or not use_jsonschema:
        problem = _SUBSET.problem(data)
    else:
        error = jsonschema.exceptions.best_match(_VALIDATOR.iter_errors(data))
        problem = None if error is None else _describe(error)
    if problem is None:
        problem = learned_shape_problem(data)
    return problem if problem is not None else page_field_problem(data)


def fragment_problem(schema: dict, value) -> str | None:
    """Why ``value`` does not fit ``schema``, a part of ``RESULT_SCHEMA`` (or an object of such parts), or None:
    the same rules and the same validator as a whole file (what a checkpoint holds toward a result is checked by
    them before the run resumes: :mod:`mope.train.checkpoints`)."""
    if jsonschema is None:
        return _SubsetValidator(schema).problem(value)
    error = jsonschema.exceptions.best_match(_Validator(schema).iter_errors(value))
    return None if error is None else _describe(error)


def stamp_problem(where: str, stamp) -> str | None:
    """Why ``stamp`` is not an ISO 8601 time stamp with an offset from UTC (as ``provenance.started`` must be), or None."""
    try:
        parsed = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return shorten(f"{where}: {stamp!r} is not an ISO 8601 time stamp (e.g. 2026-11-30T06:00:00+00:00)")
    if parsed.utcoffset() is None:
        return shorten(f"{where}: {stamp!r} has no offset from UTC (e.g. +00:00)")
    return None


def page_field_problem(data: dict) -> str | None:
    """Why a schema-valid result holds a field that a page cannot take as it is, or None: every stored
    string is one line of printable text (a carriage return in a device's name split a row of the runs
    CSV), and ``provenance.started``/``finished`` are ISO 8601 time stamps with an offset, the finish
    not before the start (the pages subtract them)."""
    problem = text_problem(data, "")
    if problem is not None:
        return problem
    provenance = data["provenance"]
    stamps = {}
    for key in ("started", "finished"):
        if provenance.get(key) is None:
            continue
        problem = stamp_problem(f"provenance.{key}", provenance[key])
        if problem is not None:
            return problem
        stamps[key] = datetime.fromisoformat(provenance[key])
    if len(stamps) == 2 and stamps["finished"] < stamps["started"]:
        return f"provenance.finished {provenance['finished']!r} lies before provenance.started {provenance['started']!r}"
    return segments_problem(provenance.get("segments"), data["config"]["train"].get("steps"))


def segments_problem(segments: list[dict] | None, steps: int | None) -> str | None:
    """Why ``provenance.segments`` (the stretches of a run resumed elsewhere) do not cover the run's steps from 0
    to its last, one after another, or None (None too where a run has none)."""
    if not segments:
        return None
    ends = [(segment["from_step"], segment["to_step"]) for segment in segments]
    joined = all(a[1] == b[0] for a, b in zip(ends, ends[1:])) and all(start < end for start, end in ends)
    if ends[0][0] != 0 or not joined or (steps is not None and ends[-1][1] != steps):
        return shorten(f"provenance.segments: the stretches {ends} do not cover steps 0 to {steps} one after another")
    return None


def text_problem(value, where: str) -> str | None:
    """The first string in ``value`` (keys included) that is not one line of printable text, named by its place."""
    if isinstance(value, str):
        bad = next((ch for ch in value if not ch.isprintable()), None)
        if bad is None:
            return None
        return shorten(f"{where or 'the file'}: \"{shown(value)[:40]}\" holds the control character {shown(bad)}; "
                        "a stored string is one line of printable text")
    if isinstance(value, dict):
        for key, item in value.items():
            problem = text_problem(key, f"{where} (a key)") or text_problem(item, f"{where}.{key}" if where else key)
            if problem is not None:
                return problem
    elif isinstance(value, list):
        for index, item in enumerate(value):
            problem = text_problem(item, f"{where}[{index}]")
            if problem is not None:
                return problem
    return None


def learned_lengths(model: dict) -> dict[str, tuple[str, int]]:
    """The length each learned array must have, fixed by the run's own model configuration: MoPE's ω, σ
    (and centres) one per channel pair, n_embd/2; EGA's α, τ and Morlet-RoPE's σ one row per layer, of
    n_head entries and of one per rotary pair of a head, n_embd/n_head/2. {key: (what, length)}."""
    n_embd, n_layer, n_head = (model.get(key) for key in ("n_embd", "n_layer", "n_head"))
    lengths = {}
    if n_embd is not None:
        lengths["pairs"] = ("n_embd/2", n_embd // 2)
    if n_layer is not None:
        lengths["layers"] = ("n_layer", n_layer)
    if n_head is not None:
        lengths["heads"] = ("n_head", n_head)
        if n_embd is not None:
            lengths["rotary"] = ("n_embd/n_head/2", n_embd // n_head // 2)
    return lengths


def learned_shape_problem(data: dict) -> str | None:
    """Why a schema-valid result's learned arrays do not have the lengths its configuration fixes
    (:func:`learned_lengths`), or None; a learned block whose length the configuration cannot fix (no
    n_embd, n_layer or n_head stored) is refused too."""
    lengths = learned_lengths(data["config"]["model"])
    learned = data.get("learned") or {}
    wanted: list[tuple[str, object, str, str | None]] = []  # (where, value, length key, rows' length key)
    morlet = learned.get("morlet")
    if morlet:
        wanted += [(f"learned.morlet.{key}", morlet[key], "pairs", None)
                   for key in ("omega", "sigma", "omega_raw", "sigma_raw")]
        if morlet.get("centre") is not None:
            wanted.append(("learned.morlet.centre", morlet["centre"], "pairs", None))
    ega = learned.get("ega")
    if ega:
        wanted += [(f"learned.ega.{key}", ega[key], "layers", "heads") for key in ("alpha", "tau")]
    if "morlet_rope_sigma" in learned:
        wanted.append(("learned.morlet_rope_sigma", learned["morlet_rope_sigma"], "layers", "rotary"))
    for where, value, outer, inner in wanted:
        for key in (outer, inner):
            if key is not None and key not in lengths:
                return f"{where}: config.model does not fix its length (no n_embd, n_layer or n_head)"
        what, length = lengths[outer]
        if len(value) != length:
            return f"{where}: {len(value)} values, but its configuration fixes {length} ({what})"
        if inner is not None:
            what, length = lengths[inner]
            for index, row in enumerate(value):
                if len(row) != length:
                    return f"{where}[{index}]: {len(row)} values, but its configuration fixes {length} ({what})"
    return None


#: What :func:`schema_problem` found in each file's text, by its SHA-256 (and the validator used): a book
#: build or a test reads the same files many times, and validating them is most of the reading. The text
#: decides the answer, so a changed file is validated afresh.
_VALIDATED: dict[tuple[bytes, bool], str | None] = {}


def cached_schema_problem(text: str, data) -> str | None:
    """:func:`schema_problem` of ``data``, read from the file's ``text``, remembered by the text's SHA-256 (and
    the validator used); whatever the exception, a file that cannot be validated says so, never crashes."""
    key = (hashlib.sha256(text.encode("utf-8")).digest(), jsonschema is None)
    if key not in _VALIDATED:
        try:
            _VALIDATED[key] = schema_problem(data)
        except Exception as error:  # noqa: BLE001
            _VALIDATED[key] = f"cannot be validated ({one_line(error)})"
    return _VALIDATED[key]
