"""The runs in progress: a small record of each unfinished run of an evidence preset, kept beside the store and
read by no verdict.

A run of the paper's protocol takes about ten hours on two CPU cores; it lives on its checkpoint across many
sessions, and a lost machine has taken its checkpoints twice. Its record keeps what it has reached, so that the
book can show how far it has come and its evaluations outlive a lost checkpoint:
``results/in_progress/{preset}/{variant}/seed{S}.json`` (:func:`record_path`), written from the run's checkpoint by
``python -m mope progress`` (:mod:`mope.train.progress`). The keys (``RECORD_SCHEMA``, validated as a stored run is,
:func:`record_problem`)::

    schema, kind ("in_progress"), preset, variant, seed, config_hash, step (reached), steps (in all),
    evaluations [{step, train_loss, val_loss}] (the random-batch evaluations reached),
    train_curve [[step, loss]] (every 10th step's training loss, as a stored run keeps it),
    timing {seconds_per_step, train_time_s, wall_time_s, measured_over},
    started (the run's first step), segments [{from_step, to_step, ...}] (its stretches, as its checkpoint records
    them), checkpoint_saved (the checkpoint's time), written (the record's)

The folder ``in_progress`` is no preset's, so :func:`mope.store.results.scan` and every verdict never read it. A
record is ignored once its run is stored and current (:func:`scan_in_progress` leaves it out, and the command
removes it, :func:`remove_superseded`), and so is one of another configuration than today's.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from mope.errors import UserError, one_line, shorten, shown
from mope.model.variants import VARIANTS
from mope.store.files import IrregularFile, atomic_write, read_regular_file
from mope.store.presets import EVIDENCE_PRESETS, PRESETS
from mope.store.result_schema import MAX_COUNT, declared_checker, stamp_problem, text_problem
from mope.store.results import RESULT_FILE, expected_hashes, load_result, results_root

FOLDER = "in_progress"
SCHEMA = 1
KIND = "in_progress"
MAX_RECORD_BYTES = 2**20  # a record of 5,001 steps is about 20 KB

#: The presets whose runs in progress are recorded by default: the registered evidence presets (a sweep's
#: candidates are stored apart, :func:`mope.store.results.sweep_root`).
RECORDED = tuple(sorted(name for name in EVIDENCE_PRESETS if name in PRESETS))

_LOSS = {"type": "number", "exclusiveMinimum": 0, "maximum": 1e4}
_STEP = {"type": "integer", "minimum": 0, "maximum": MAX_COUNT}
_SECONDS = {"type": "number", "minimum": 0, "maximum": 1e9}
_STAMP = {"type": "string", "maxLength": 40}
_NAME = {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"}
RECORD_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "a run in progress (schema 1): results/in_progress/{preset}/{variant}/seed{S}.json",
    "type": "object",
    "required": ["schema", "kind", "preset", "variant", "seed", "config_hash", "step", "steps", "evaluations",
                 "train_curve", "timing", "started", "segments", "checkpoint_saved", "written"],
    "properties": {
        "schema": {"const": SCHEMA},
        "kind": {"const": KIND},
        "preset": _NAME,
        "variant": _NAME,
        "seed": {"type": "integer", "minimum": 0, "maximum": 2**32 - 1},
        "config_hash": {"type": "string", "pattern": "^[0-9a-f]{16}$"},
        "step": {"type": "integer", "minimum": 1, "maximum": MAX_COUNT},
        "steps": {"type": "integer", "minimum": 1, "maximum": MAX_COUNT},
        "evaluations": {"type": "array", "maxItems": 10**4, "items": {
            "type": "object", "required": ["step", "train_loss", "val_loss"],
            "properties": {"step": _STEP, "train_loss": _LOSS, "val_loss": _LOSS}}},
        "train_curve": {"type": "array", "maxItems": 10**5, "items": {
            "type": "array", "prefixItems": [_STEP, _LOSS], "minItems": 2, "maxItems": 2}},
        "timing": {"type": "object",
                   "required": ["seconds_per_step", "train_time_s", "wall_time_s", "measured_over"],
                   "properties": {"seconds_per_step": _SECONDS, "train_time_s": _SECONDS, "wall_time_s": _SECONDS,
                                  "measured_over": {"type": "string", "maxLength": 400}}},
        "started": _STAMP,
        "segments": {"type": "array", "minItems": 1, "maxItems": 1000, "items": {
            "type": "object", "required": ["from_step", "to_step"],
            "properties": {"from_step": _STEP, "to_step": _STEP,
                           "git_commit": {"type": ["string", "null"], "maxLength": 64},
                           "git_dirty": {"type": ["boolean", "null"]},
                           "device": {"type": "string", "maxLength": 200},
                           "cpu_capability": {"type": ["string", "null"], "maxLength": 32},
                           "threads": {"type": "integer", "minimum": 1, "maximum": 10**6},
                           "torch": {"type": "string", "maxLength": 64}}}},
        "checkpoint_saved": _STAMP,
        "written": _STAMP,
    },
}
_SCHEMA_PROBLEM = declared_checker(RECORD_SCHEMA)


def record_path(preset: str, variant: str, seed: int, root=None) -> Path:
    """``results/in_progress/{preset}/{variant}/seed{S}.json`` under the results root (``root``, else the default)."""
    return results_root(root) / FOLDER / preset / variant / f"seed{seed}.json"


def record_problem(data, use_jsonschema: bool = True) -> str | None:
    """Why ``data`` is not a valid record of a run in progress, or None: ``RECORD_SCHEMA``, then what a schema cannot
    say: one printable line a string, time stamps with an offset, the step reached within the run, evaluations and
    the curve in order up to it, the stretches covering its steps one after another."""
    if isinstance(data, dict) and (data.get("schema"), data.get("kind")) != (SCHEMA, KIND):
        return shorten(f"schema {data.get('schema')!r} of kind {data.get('kind')!r}, expected {SCHEMA} of kind {KIND!r}")
    problem = _SCHEMA_PROBLEM(data, use_jsonschema) or text_problem(data, "")
    if problem is not None:
        return problem
    problem = next(filter(None, (stamp_problem(key, data[key]) for key in ("started", "checkpoint_saved", "written"))),
                   None)
    if problem is not None:
        return problem
    step = data["step"]
    if step >= data["steps"]:
        return f"step {step} is not short of the run's {data['steps']} steps: a finished run is stored, not in progress"
    for key, steps in (("evaluations", [e["step"] for e in data["evaluations"]]),
                       ("train_curve", [point[0] for point in data["train_curve"]])):
        if any(b <= a for a, b in zip(steps, steps[1:])) or any(s > step for s in steps):
            return f"{key}: its steps are not increasing up to the step reached, {step}"
    ends = [(s["from_step"], s["to_step"]) for s in data["segments"]]
    if ends[0][0] != 0 or ends[-1][1] != step or any(a[1] != b[0] for a, b in zip(ends, ends[1:])) \
            or any(start > end for start, end in ends):
        return shorten(f"segments: the stretches {ends} do not cover steps 0 to {step} one after another")
    return None


def write_record(record: dict, root=None) -> Path:
    """Store ``record`` atomically where :func:`record_path` says; one that is not valid is refused, never stored."""
    text = json.dumps(record, indent=1) + "\n"
    problem = record_problem(json.loads(text))
    if problem is not None:
        raise UserError(f"the record of {shown(record.get('variant'))} seed {shown(record.get('seed'))} in progress is "
                        f"not valid ({shown(problem)}); nothing was written")
    path = record_path(record["preset"], record["variant"], record["seed"], root)
    try:
        atomic_write(path, lambda file: file.write(text.encode()))
    except OSError as error:
        raise UserError(f"cannot write {shown(path)} ({one_line(error)}); make that folder writable, or give "
                        "another with --results-dir") from error
    return path


def read_record(path: Path) -> tuple[dict | None, str | None]:
    """(record, None) for a valid record filed where it belongs, else (None, "damaged: why"); never raises for
    what the file holds."""
    try:
        data = json.loads(read_regular_file(path, MAX_RECORD_BYTES, "a record of a run in progress").decode("utf-8"))
    except IrregularFile as error:
        return None, f"damaged: {error}"
    except Exception as error:  # noqa: BLE001 (unreadable, not UTF-8, not JSON, nested too deep)
        return None, f"damaged: unreadable ({one_line(error)})"
    try:
        problem = record_problem(data)
    except Exception as error:  # noqa: BLE001
        problem = f"cannot be validated ({one_line(error)})"
    if problem is not None:
        return None, f"damaged: {problem}"
    filed = (path.parent.parent.name, path.parent.name, path.name)
    if filed != (data["preset"], data["variant"], f"seed{data['seed']}.json"):
        return None, f"holds {data['variant']} seed {data['seed']} of {data['preset']!r}, filed elsewhere"
    return data, None


@dataclass
class InProgress:
    """The records of one preset: ``records`` to show (valid, of today's configuration, not yet stored), and
    ``skipped``, (path, why) for every other."""

    records: list[dict] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)


def _record_files(preset: str, root=None) -> list[Path]:
    return sorted(path for path in (results_root(root) / FOLDER / preset).glob("*/seed*.json")
                  if RESULT_FILE.fullmatch(path.name))


def superseded(record: dict, root=None) -> bool:
    """Whether the run of ``record`` is stored, valid and current: the record has nothing left to say."""
    return load_result(record["preset"], record["variant"], record["seed"], root) is not None


def scan_in_progress(preset: str, root=None) -> InProgress:
    """The records of ``preset``'s runs in progress (:class:`InProgress`), in the variant registry's order, then by
    seed. Left out, each with its reason: a damaged or misfiled one, one of another configuration than today's,
    and one whose run is stored and current."""
    found = InProgress()
    order = {variant: index for index, variant in enumerate(VARIANTS)}
    for path in _record_files(preset, root):
        record, reason = read_record(path)
        if record is not None and record["variant"] not in VARIANTS:
            record, reason = None, f"unknown variant {record['variant']!r}"
        if record is not None and record["config_hash"] not in expected_hashes(preset, record["variant"]):
            record, reason = None, f"configuration {record['config_hash']}, not today's"
        if record is not None and superseded(record, root):
            record, reason = None, "its run is stored and current"
        if record is None:
            found.skipped.append((path, reason))
        else:
            found.records.append(record)
    found.records.sort(key=lambda r: (order[r["variant"]], r["seed"]))
    return found


def remove_superseded(presets=RECORDED, root=None) -> list[Path]:
    """Remove every record of ``presets`` whose run is stored and current; the paths removed."""
    removed = []
    for preset in sorted(presets):
        for path in _record_files(preset, root):
            record, _ = read_record(path)
            if record is not None and superseded(record, root):
                os.unlink(path)
                removed.append(path)
    return removed


def shown_name(path: Path, root=None) -> str:
    """``path`` relative to the results root where it lies below it, printable on one line."""
    try:
        return shown(path.relative_to(results_root(root)))
    except ValueError:
        return shown(path)

