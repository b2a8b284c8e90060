"""The results store: one JSON file per (preset, variant, seed), with its configuration and provenance.

``results/{preset}/{variant}/seed{S}.json`` under ``$MOPE_RESULTS_DIR``, else under ``results/`` of the
source checkout the package runs from (a clone, or an editable install of one), else, for a package
installed into site-packages, under ``results/`` of the current directory (:func:`default_home`). A run is filed under the name of its configuration: a registered preset's
(:mod:`mope.store.presets`) or a custom one's own (a shortened run is ``{preset}-steps{N}``).

Every reader (``table``, ``suite``, ``claims``, the book) goes through :func:`scan`, which validates
each file against the schema and against its path, and sorts it into one of three piles:

* **current**: valid, and its configuration hash is the one the code computes today;
* **stale**: valid, but made with another configuration (or before a change of the code that moves
  its numbers, see ``NUMERIC_REVISIONS``), or, for the book's evidence (``EVIDENCE_PRESETS``), from a
  working tree with uncommitted changes (``provenance.git_dirty``: no commit holds the code that made
  it): never shown, retrained by ``suite``;
* **invalid**: damaged (unreadable, not JSON, not valid against ``RESULT_SCHEMA``, whatever the
  exception: "damaged: <reason>") or filed under another variant, seed or preset: named with its
  reason, never shown, set aside and retrained by ``suite`` and ``train``.

Only files named ``seed<N>.json`` count; anything else in the folders (a backup, a set-aside file) is
ignored. What a reader leaves out is named by :func:`skipped` / :func:`report_skipped` (one line per
file), or ``scan(...).notices()``; ``Scan.skipped_records()`` gives it as JSON-ready records.

Schema 1, declared in full (types and finite ranges) as the JSON Schema ``RESULT_SCHEMA``; the keys::

    schema, variant, preset, seed, config {model, train}, config_hash,
    provenance {git_commit, git_dirty, torch, python, device, started, finished, wall_time_s,
                tokens_per_s, world_size, throughput, cpu_capability and threads (optional, newer runs)},
    num_parameters, history [{step, lr, train_loss, val_loss}], train_curve [[step, loss]],
    final {val_loss, train_loss, val_loss_full, val_loss_full_by_context {1x, 2x, 4x},
           extrapolation_note, val_loss_full_causal_stats},
    learned {morlet {omega, sigma, omega_raw, sigma_raw, centre}, ega {alpha, tau}, morlet_rope_sigma}

Beyond what a JSON Schema can say, each learned array has the length the run's own configuration
fixes (:func:`learned_lengths`), so that no reader meets arrays that do not fit the model; every stored
string is one line of printable text and the two time stamps are ISO 8601 with an offset
(:func:`page_field_problem`); and a run whose hash is current must store the configuration that hash
says (:func:`stored_configuration_problem`: a known admissibility mode, the tokenizer and vocabulary size
it was trained with), else it is invalid. So a page reads only fields of the type and range it needs. A reader
opens only regular files (a symbolic link or a FIFO is "damaged: not a regular file (...)"), none
larger than ``MAX_RESULT_BYTES``.
"""
from __future__ import annotations

import errno
import fcntl
import glob
import hashlib
import json
import math
import os
import re
import stat
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

try:  # the declared schema is checked by jsonschema; a machine without it (a bare GPU image) uses
    import jsonschema  # _SubsetValidator below, which reads the same schema
except ImportError:  # pragma: no cover (tested by forcing the fallback)
    jsonschema = None

import mope
from mope.model.config import GPTConfig
from mope.errors import UserError
from mope.store.presets import EVIDENCE_PRESETS, FORMER_NAMES, PRESETS, TrainConfig
from mope.model.variants import VARIANTS, variant_config

SCHEMA = 1
ENV_RESULTS_DIR = "MOPE_RESULTS_DIR"
REPO_ROOT = Path(mope.__file__).resolve().parents[1]  # the source checkout, if the package runs from one
RESULT_FILE = re.compile(r"seed(0|[1-9][0-9]*)\.json")
SET_ASIDE_SUFFIX = ".set-aside-"  # seed0.json.set-aside-20261130T101500Z: kept, never read again
TEMPORARY_SUFFIX = ".tmp"  # seed0.json.k3j2x_.tmp: being written (atomic_write)
# The largest results file a reader opens: a stored run is 15-60 KB (a paper-scale one, 5,001 steps, under
# 100 KB); anything far beyond is not a run, and reading it whole would take seconds and gigabytes.
MAX_RESULT_BYTES = 4 * 2**20

# Changes of the code that move a model's numbers without changing its configuration. Each one enters
# the hash of the models it touches, so their earlier runs turn stale instead of being reused.
NUMERIC_REVISIONS: tuple[tuple[str, object], ...] = (
    ("MoPE's initial log omega, log sigma computed in float32 as released",
     lambda model: model.absolute == "morlet"),
    ("EGA's renormalisation floor max(sum_k A_ik g_k, 1e-8) in every mode, as released",
     lambda model: model.gate == "ega"),
)


def in_source_checkout(root: Path = REPO_ROOT) -> bool:
    """Whether the package runs from a source checkout (its ``pyproject.toml`` beside ``mope/``), not
    from an installed copy in site-packages."""
    return (root / "pyproject.toml").is_file() and (root / "mope" / "__init__.py").is_file()


def default_home() -> Path:
    """The folder that holds ``results/`` and ``checkpoints/`` by default: the source checkout the
    package runs from, else (an installed package, whose folder is site-packages) the current directory."""
    return REPO_ROOT if in_source_checkout() else Path.cwd()


def results_root(root: str | os.PathLike | None = None) -> Path:
    """``root`` if given, else ``$MOPE_RESULTS_DIR``, else ``results/`` of :func:`default_home`."""
    if root is not None:
        return Path(root)
    return Path(os.environ.get(ENV_RESULTS_DIR) or default_home() / "results")


def sweep_root(root: str | os.PathLike | None = None) -> Path:
    """Where the stored sweep behind the ``cpu`` preset lives (``CPU_SWEEP``): a store of its own, one
    folder per candidate, so that its runs never mix with a preset's."""
    return results_root(root) / "sweeps"


def preset_name(preset: str | TrainConfig) -> str:
    """The name a run is filed under: a registered preset's, or a custom configuration's own."""
    return preset if isinstance(preset, str) else preset.name


def result_path(preset: str | TrainConfig, variant: str, seed: int, root=None) -> Path:
    return results_root(root) / preset_name(preset) / variant / f"seed{seed}.json"


def config_hash(model_cfg: GPTConfig, train_cfg: TrainConfig) -> str:
    """The configuration hash a run is stored with: the first 16 hex digits of the SHA-256 of the JSON
    (keys sorted) of ``{"model": every GPTConfig field, "train": TrainConfig.hashed_fields(), "revisions":
    the numbers (from 1) of the NUMERIC_REVISIONS that apply}``, "revisions" left out when none does."""
    hashed = {"model": model_cfg.to_dict(), "train": train_cfg.hashed_fields()}
    revisions = [i + 1 for i, (_, applies) in enumerate(NUMERIC_REVISIONS) if applies(model_cfg)]
    if revisions:  # absent for untouched models, so that their earlier hashes stay valid
        hashed["revisions"] = revisions
    return hashlib.sha256(json.dumps(hashed, sort_keys=True).encode()).hexdigest()[:16]


def expected_hashes(preset: str | TrainConfig, variant: str) -> set[str]:
    """The hashes a current run of ``variant`` may carry: today's configuration under the preset's
    name, and under each earlier name of the preset (``FORMER_NAMES``)."""
    cfg = PRESETS[preset] if isinstance(preset, str) else preset
    model = variant_config(variant, cfg.shape())
    names = (cfg.name, *FORMER_NAMES.get(cfg.name, ()))
    return {config_hash(model, cfg.replace(name=name)) for name in names}


def expected_hash(preset: str | TrainConfig, variant: str) -> str:
    cfg = PRESETS[preset] if isinstance(preset, str) else preset
    return config_hash(variant_config(variant, cfg.shape()), cfg)


def check_writable(directory: Path) -> None:
    """Fail now, naming the folder, if results or checkpoints could not be written there later."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        handle, probe = tempfile.mkstemp(dir=directory, prefix=".write-probe-")
        os.close(handle)
        os.unlink(probe)
    except OSError as error:
        raise UserError(f"cannot write to {directory} ({error.strerror or error}); choose a writable folder "
                        f"(--results-dir / ${ENV_RESULTS_DIR}, or $MOPE_CHECKPOINT_DIR for checkpoints)") from None


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: Path, write) -> None:
    """Write ``path`` through ``write(binary_file)`` into a temporary file beside it, then rename it into
    place: a reader sees the old file or the new one, never half of one.

    The file gets the permissions of any other output (0666 less the umask, usually 0644), not
    ``mkstemp``'s 0600. The temporary file is locked while it is written, so that
    :func:`remove_stale_temporaries` can tell one left by a killed writer from one being written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=TEMPORARY_SUFFIX)
    try:
        with os.fdopen(handle, "wb") as file:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX)
            write(file)
            file.flush()
            os.fchmod(file.fileno(), 0o666 & ~_umask())
            os.replace(temporary, path)  # still locked: a cleaner never takes a file being renamed
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def remove_stale_temporaries(path: Path) -> list[Path]:
    """Delete the temporary files of :func:`atomic_write` for ``path`` that no live writer holds (left
    by a writer killed with SIGKILL mid-write); return them. A file another process is writing right
    now is locked and kept."""
    removed = []
    for candidate in sorted(path.parent.glob(glob.escape(path.name) + ".*" + TEMPORARY_SUFFIX)):
        try:
            if not is_regular_file(candidate):
                continue  # a FIFO would block the open for good; a link or folder is not ours
            with open(candidate, "rb", opener=_no_follow) as file:
                fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)  # held by a live writer: BlockingIOError
                candidate.unlink()
            removed.append(candidate)
        except OSError:
            continue
    return removed


def is_regular_file(path: Path) -> bool:
    """Whether ``path`` itself (a symbolic link not followed) is a regular file: the only kind the store
    opens. A FIFO would block its reader for good, a link may point anywhere, a folder cannot be read."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _no_follow(path, flags: int) -> int:
    """``open``'s opener for files of the store: never through a symbolic link, never blocking on a FIFO."""
    return os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK)


def shown(text) -> str:
    """``text`` (a path, a folder's name, a stored string) safe to print on one line: control characters
    (a newline in a folder's name could forge a line of its own) written as escapes."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in str(text))


def write_result(result: dict, root=None) -> Path:
    """Store ``result`` atomically: readers never see a half-written file. A result that does not
    validate (``RESULT_SCHEMA``: a NaN loss, a missing field) is refused, never stored; a write that
    fails (a full disk) is one message naming the file and the remedy."""
    text = json.dumps(result, indent=1) + "\n"
    problem = schema_problem(json.loads(text))  # what a reader will see, tuples turned into lists
    if problem is not None:
        raise UserError(f"the result of {result.get('variant')} seed {result.get('seed')} is not valid ({problem}); "
                        "nothing was stored (the run's last checkpoint is kept)")
    path = result_path(result["preset"], result["variant"], result["seed"], root)
    try:
        atomic_write(path, lambda file: file.write(text.encode()))
    except OSError as error:
        full = error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
        raise UserError(
            f"cannot write result {shown(path)} ({one_line(error)}); "
            + ("the disk is full: free space there" if full else "make that folder writable")
            + f" (or point --results-dir / ${ENV_RESULTS_DIR} at another folder) and run the same command again: "
            "the run's last checkpoint is kept, so it only evaluates and stores the result") from error
    return path


def set_aside(path: Path) -> Path:
    """Move a stale or damaged file out of the way (never delete it); return where it went."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    target = path.with_name(path.name + SET_ASIDE_SUFFIX + stamp)
    os.replace(path, target)
    return target


# --- validation -------------------------------------------------------------------------------

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
        "provenance": {"type": "object", "properties": {
            "git_commit": _TEXT, "git_dirty": {"type": "boolean"}, "torch": _TEXT, "python": _TEXT,
            "device": _TEXT, "started": _TEXT, "finished": _TEXT,
            "cpu_capability": {"anyOf": [{"type": "string", "pattern": "^[A-Za-z0-9_]{1,32}$"}, {"type": "null"}]},
            "threads": {"type": "integer", "minimum": 1, "maximum": 4096},
            "wall_time_s": {"type": "number", "minimum": 0}, "tokens_per_s": {"type": "number", "minimum": 0},
            "world_size": _POSITIVE,
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
        return None if found is None else _shorten(f"{found[0] or 'the file'}: {found[1]}")

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


def _shorten(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


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
    return _shorten(f"{where}: {message}")


def schema_problem(data, use_jsonschema: bool = True) -> str | None:
    """Why ``data`` is not a valid schema-1 result (``RESULT_SCHEMA``, then :func:`learned_shape_problem`),
    or None. Checked by jsonschema, or, where it is not installed (or ``use_jsonschema`` is False), by
    ``_SubsetValidator``."""
    if isinstance(data, dict) and data.get("schema") != SCHEMA:
        return _shorten(f"schema {data.get('schema')!r}, expected {SCHEMA}")
    if jsonschema is None or not use_jsonschema:
        problem = _SUBSET.problem(data)
    else:
        error = jsonschema.exceptions.best_match(_VALIDATOR.iter_errors(data))
        problem = None if error is None else _describe(error)
    if problem is None:
        problem = learned_shape_problem(data)
    return problem if problem is not None else page_field_problem(data)


def page_field_problem(data: dict) -> str | None:
    """Why a schema-valid result holds a field that a page cannot take as it is, or None: every stored
    string is one line of printable text (a carriage return in a device's name split a row of the runs
    CSV), and ``provenance.started``/``finished`` are ISO 8601 time stamps with an offset, the finish
    not before the start (the pages subtract them)."""
    problem = _text_problem(data, "")
    if problem is not None:
        return problem
    provenance = data["provenance"]
    stamps = {}
    for key in ("started", "finished"):
        if provenance.get(key) is None:
            continue
        stamp = provenance[key]
        try:
            stamps[key] = datetime.fromisoformat(stamp)
        except ValueError:
            return _shorten(f"provenance.{key}: {stamp!r} is not an ISO 8601 time stamp (e.g. 2026-11-30T06:00:00+00:00)")
        if stamps[key].utcoffset() is None:
            return _shorten(f"provenance.{key}: {stamp!r} has no offset from UTC (e.g. +00:00)")
    if len(stamps) == 2 and stamps["finished"] < stamps["started"]:
        return f"provenance.finished {provenance['finished']!r} lies before provenance.started {provenance['started']!r}"
    return None


def _text_problem(value, where: str) -> str | None:
    """The first string in ``value`` (keys included) that is not one line of printable text, named by its place."""
    if isinstance(value, str):
        bad = next((ch for ch in value if not ch.isprintable()), None)
        if bad is None:
            return None
        return _shorten(f"{where or 'the file'}: \"{shown(value)[:40]}\" holds the control character {shown(bad)}; "
                        "a stored string is one line of printable text")
    if isinstance(value, dict):
        for key, item in value.items():
            problem = _text_problem(key, f"{where} (a key)") or _text_problem(item, f"{where}.{key}" if where else key)
            if problem is not None:
                return problem
    elif isinstance(value, list):
        for index, item in enumerate(value):
            problem = _text_problem(item, f"{where}[{index}]")
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


def one_line(error: BaseException) -> str:
    """An exception as one short line, whatever it is (some carry no message at all)."""
    text = " ".join(str(error).split())
    return _shorten(f"{type(error).__name__}: {text}" if text else type(error).__name__, 120)


#: What :func:`schema_problem` found in each file's text, by its SHA-256 (and the validator used): a book
#: build or a test reads the same files many times, and validating them is most of the reading. The text
#: decides the answer, so a changed file is validated afresh.
_VALIDATED: dict[tuple[bytes, bool], str | None] = {}


def read_result(path: Path) -> tuple[dict | None, str | None]:
    """(data, None) for a readable file that validates against ``RESULT_SCHEMA``, else (None, "damaged: why").

    Any failure to read, parse or validate, whatever the exception (a deeply nested file raises
    RecursionError, a 5,000-digit number ValueError), is a reason, never a crash. Only a regular file
    is opened (a symbolic link is not followed, a FIFO never opened: it would block the reader for
    good), and none larger than ``MAX_RESULT_BYTES``.
    """
    try:
        text = read_regular_file(path, MAX_RESULT_BYTES, "any run").decode("utf-8")
    except IrregularFile as error:
        return None, f"damaged: {error}"
    except (OSError, UnicodeDecodeError) as error:
        return None, f"damaged: unreadable ({one_line(error)})"
    except Exception as error:  # noqa: BLE001 (whatever it is, the file is named, not the reader crashed)
        return None, f"damaged: unreadable ({one_line(error)})"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return None, f"damaged: not valid JSON ({_shorten(str(error), 120)})"
    except Exception as error:  # noqa: BLE001 (RecursionError, ValueError for huge integers, MemoryError)
        return None, f"damaged: not valid JSON ({one_line(error)})"
    key = (hashlib.sha256(text.encode("utf-8")).digest(), jsonschema is None)
    if key not in _VALIDATED:
        try:
            _VALIDATED[key] = schema_problem(data)
        except Exception as error:  # noqa: BLE001
            _VALIDATED[key] = f"cannot be validated ({one_line(error)})"
    problem = _VALIDATED[key]
    if problem is not None:
        return None, f"damaged: {problem}"
    return data, None


class IrregularFile(OSError):
    """A file the store does not open: not a regular file, or larger than a file of its kind can be."""


def read_regular_file(path: Path, max_bytes: int, what: str) -> bytes:
    """The bytes of ``path``, opened as every file of the store is (results, and the vocabularies runs
    are trained on): only a regular file, a symbolic link not followed and a FIFO never waited on,
    and none larger than ``max_bytes`` (``what``: the largest file of its kind, for the message).
    :class:`IrregularFile` says what it is instead; any other OSError is the system's."""
    kind = _file_kind(os.lstat(path).st_mode)
    if kind is not None:
        raise IrregularFile(f"not a regular file ({kind})")
    with open(path, "rb", opener=_no_follow) as file:
        opened = os.fstat(file.fileno())
        if not stat.S_ISREG(opened.st_mode):  # replaced since the lstat above
            raise IrregularFile(f"not a regular file ({_file_kind(opened.st_mode)})")
        if opened.st_size > max_bytes:
            raise IrregularFile(f"{opened.st_size:,} bytes, larger than {what} "
                                f"(a reader opens at most {max_bytes // 2**20} MiB)")
        return file.read(max_bytes + 1)


def _file_kind(mode: int) -> str | None:
    """None for a regular file, else what it is instead."""
    if stat.S_ISREG(mode):
        return None
    for test, kind in ((stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device")):
        if test(mode):
            return kind
    return "not a file"


@dataclass(frozen=True)
class Rejected:
    """A stored file that no reader shows: ``kind`` "stale" or "invalid", and why."""

    path: Path
    reason: str
    kind: str = "invalid"

    def line(self, root: Path) -> str:
        try:
            where = self.path.relative_to(root)
        except ValueError:
            where = self.path
        return f"{shown(where)}: {shown(self.reason)}"


@dataclass
class Scan:
    """The files of one preset sorted into current, stale and invalid runs."""

    root: Path
    current: list[dict] = field(default_factory=list)
    stale: list[Rejected] = field(default_factory=list)
    invalid: list[Rejected] = field(default_factory=list)

    @property
    def skipped(self) -> list[Rejected]:
        """Every file not shown, stale ones first."""
        return [*self.stale, *self.invalid]

    def notices(self) -> list[str]:
        """One line per file not shown: "stale (not shown): cpu/EGA-1/seed1.json: <reason>"."""
        return [f"{r.kind} (not shown): {r.line(self.root)}" for r in self.skipped]

    def skipped_records(self) -> list[dict]:
        """The files not shown as JSON-ready records: path (relative to the store), kind, reason."""
        return [{"path": r.line(self.root).removesuffix(f": {shown(r.reason)}"), "kind": r.kind, "reason": r.reason}
                for r in self.skipped]


def check_file(path: Path, cfg: TrainConfig | None) -> tuple[dict | None, str | None, bool]:
    """(result, reason, stale): a valid current result, or why not (``stale`` for a valid but outdated one).

    ``cfg`` is the registered preset the folder belongs to, or None for a custom configuration's
    folder, whose runs are checked against the configuration they store. Never raises for what the
    file holds: a file that cannot be read or validated is "damaged: <reason>".
    """
    match = RESULT_FILE.fullmatch(path.name)
    if match is None:
        return None, "not a seed<N>.json file", False
    data, reason = read_result(path)
    if data is None:
        return None, reason, False
    try:
        return _check_filing(path, data, int(match.group(1)), cfg)
    except Exception as error:  # noqa: BLE001 (a reader is never crashed by what a file holds)
        return None, f"damaged: cannot be checked ({one_line(error)})", False


def _check_filing(path: Path, data: dict, seed: int, cfg: TrainConfig | None) -> tuple[dict | None, str | None, bool]:
    variant, folder_preset = path.parent.name, path.parent.parent.name
    if data["variant"] != variant:
        return None, f"holds a run of {data['variant']}, filed under {variant}", False
    if data["seed"] != seed:
        return None, f"holds seed {data['seed']}, filed as seed {seed}", False
    names = (folder_preset, *FORMER_NAMES.get(folder_preset, ()))
    if data["preset"] not in names:
        return None, f"holds a run of preset {data['preset']!r}, filed under {folder_preset!r}", False
    if variant not in VARIANTS:
        return None, f"unknown variant {variant!r}", False
    if cfg is None:
        try:
            cfg = TrainConfig(**{k: tuple(v) if isinstance(v, list) else v
                                 for k, v in data["config"]["train"].items()})
        except (TypeError, ValueError) as error:
            return None, f"its stored training configuration is not valid ({error})", False
    wanted = expected_hashes(cfg, variant)
    if data["config_hash"] not in wanted:
        return None, f"configuration {data['config_hash']}, current is {sorted(wanted)[0]}", True
    problem = stored_configuration_problem(data)
    if problem is not None:
        return None, f"damaged: {problem}", False
    if folder_preset in EVIDENCE_PRESETS and data["provenance"].get("git_dirty"):
        return None, "made from uncommitted code (git_dirty); rerun it from a clean checkout", True
    return data, None, False


def stored_configuration_problem(data: dict) -> str | None:
    """Why the configuration a result stores is not the one its ``config_hash`` says, or None: it must be
    one the model and the protocol accept (a known admissibility mode, gate, tokenizer ...), and hash
    (:func:`config_hash`) to the stored hash. A current hash then vouches for every stored field, the
    tokenizer's and the vocabulary size included: an edited field is caught, not read by a page."""
    stored = data["config"]
    try:
        model = GPTConfig(**stored["model"])
    except (TypeError, ValueError) as error:  # ConfigError is a ValueError; TypeError: a field the model lacks
        return _shorten(f"config.model is not a configuration the model accepts ({error})")
    try:
        train = TrainConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in stored["train"].items()})
    except (TypeError, ValueError) as error:
        return _shorten(f"config.train is not a configuration the protocol accepts ({error})")
    recomputed = config_hash(model, train)
    if recomputed == data["config_hash"]:
        return None
    variant_model = variant_config(data["variant"], train.shape()).to_dict()
    edited = [f"config.model.{key} is {value!r}, {data['variant']}'s is {variant_model[key]!r}"
              for key, value in model.to_dict().items() if variant_model[key] != value]
    return _shorten(f"its stored configuration hashes to {recomputed}, not to its config_hash {data['config_hash']} "
                    f"({'; '.join(edited) if edited else 'edited after the run was stored?'})", 240)


def set_aside_if_unusable(path: Path, cfg: TrainConfig | None, doing: str) -> bool:
    """If ``path`` exists but holds no current run (stale, misfiled, damaged, even a folder), move it
    aside with a one-line notice on stderr (never delete it) and return True; False when nothing was
    there or it holds a current run. ``doing`` ends the notice ("training again")."""
    if not os.path.lexists(path):
        return False
    data, reason, stale = check_file(path, cfg)
    if data is not None:
        return False
    moved = set_aside(path)
    kind = "stale" if stale else "invalid"
    print(f"notice: {kind} {shown(path)} ({shown(reason)}): moved to {shown(moved.name)}, {doing}", file=sys.stderr)
    return True


def folder_config(preset: str | TrainConfig) -> TrainConfig | None:
    """The configuration a folder's runs are checked against: a registered preset's, or the given one
    (None for an unregistered name: each run is then checked against the configuration it stores)."""
    return preset if isinstance(preset, TrainConfig) else PRESETS.get(preset)


def scan(preset: str | TrainConfig, root=None, variants=None) -> Scan:
    """Every ``seed<N>.json`` of a preset, validated (see the module docstring)."""
    name, cfg = preset_name(preset), folder_config(preset)
    found = Scan(results_root(root))
    order = {v: i for i, v in enumerate(VARIANTS)}
    linked: set[Path] = set()
    for path in sorted((results_root(root) / name).glob("*/seed*.json")):
        if variants is not None and path.parent.name not in variants:
            continue
        if not RESULT_FILE.fullmatch(path.name):
            continue  # backups, set-aside and temporary files do not count
        if path.parent.is_symlink():  # a linked folder: its runs may belong anywhere; named, never followed
            if path.parent not in linked:
                linked.add(path.parent)
                found.invalid.append(Rejected(path.parent, "a linked folder (a symbolic link): not followed; copy "
                                                           "its runs into the store instead", "invalid"))
            continue
        data, reason, stale = check_file(path, cfg)
        if data is not None:
            found.current.append(data)
        else:
            (found.stale if stale else found.invalid).append(Rejected(path, reason, "stale" if stale else "invalid"))
    found.current.sort(key=lambda r: (order.get(r["variant"], len(order)), r["variant"], r["seed"]))
    return found


def load_results(preset: str | TrainConfig, root=None) -> list[dict]:
    """The current, valid runs of a preset, in variant-registry order then by seed (what it leaves out:
    :func:`skipped`)."""
    return scan(preset, root).current


def skipped(preset: str | TrainConfig, root=None, variants=None) -> list[Rejected]:
    """The files of a preset that :func:`load_results` leaves out (stale, misfiled or damaged), each
    with its ``kind`` and ``reason``; ``Rejected.line(results_root(root))`` is the one line to show."""
    return scan(preset, root, variants).skipped


def report_skipped(preset: str | TrainConfig, root=None, variants=None, file=None) -> list[Rejected]:
    """Name on stderr (or ``file``), one line per file, what :func:`load_results` leaves out; return them."""
    found = scan(preset, root, variants)
    for notice in found.notices():
        print(f"notice: {notice}", file=file if file is not None else sys.stderr)
    return found.skipped


def load_result(preset: str | TrainConfig, variant: str, seed: int, root=None) -> dict | None:
    """The run of (variant, seed) if it is stored, valid and current; else None."""
    path = result_path(preset, variant, seed, root)
    return check_file(path, folder_config(preset))[0] if os.path.lexists(path) else None
