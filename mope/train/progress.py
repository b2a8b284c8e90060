"""The record of a run in progress, written from its checkpoint (``python -m mope progress``).

For every checkpoint of an evidence preset under the checkpoint folder (``checkpoints/{preset}/{variant}/
seed{S}-{hash}.pt``, :func:`mope.train.checkpoints.checkpoint_root`), :func:`record_progress` writes the small
record of :mod:`mope.store.in_progress`: the step reached of the run's total, its evaluations so far, its training
curve, its seconds a step and its stretches, as the checkpoint holds them. The checkpoint is only read, never
written, moved or locked: its bytes are read into memory once (a training run that replaces it meanwhile renames a
new file into place, so the bytes read are one whole checkpoint) and loaded from there, weights only.

A checkpoint that cannot say where its run stands (unreadable, not a training checkpoint, another
configuration's, non-finite weights, a record it would make that is not valid) is named with its reason and
skipped; one whose run is stored and current is skipped too, and the records of stored runs are removed. A record
that reaches further than the checkpoint (a run started over after its checkpoint was lost) is kept.
"""
from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import torch

from mope.errors import one_line, shown
from mope.model.variants import VARIANTS
from mope.store import in_progress
from mope.store.files import read_regular_file
from mope.store.presets import PRESETS, TrainConfig
from mope.store.results import expected_hash, load_result
from mope.train.checkpoints import checkpoint_problem, checkpoint_root
from mope.train.loop import CURVE_EVERY

CHECKPOINT_FILE = re.compile(r"seed(0|[1-9][0-9]*)-([0-9a-f]{16})\.pt")
MAX_CHECKPOINT_BYTES = 4 * 2**30  # a paper-scale checkpoint (weights and AdamW's moments) is about 60 MB


def measured_over(step: int, stretches: int) -> str:
    """What the record's seconds a step are measured over, in words."""
    return (f"the checkpoint's training time over its {step:,} steps, in {stretches} "
            f"stretch{'es' if stretches != 1 else ''}: each step's forward, backward and update (the first step of "
            "each stretch, with its warm-up or compilation, included); evaluations, checkpoint writes and start-up left out")


def progress_record(checkpoint: dict, cfg: TrainConfig, variant: str, seed: int, saved: datetime,
                    now: datetime | None = None) -> dict:
    """The record of the run in progress that ``checkpoint`` (loaded, checked) holds: ``variant`` seed ``seed`` of
    the preset ``cfg``, its checkpoint saved at ``saved``."""
    step = checkpoint["step"]
    losses = checkpoint["losses"]
    segments = [dict(segment) for segment in checkpoint.get("segments") or ()] or [{"from_step": 0, "to_step": step}]
    train_time = float(checkpoint["train_time"])
    return {
        "schema": in_progress.SCHEMA, "kind": in_progress.KIND, "preset": cfg.name, "variant": variant, "seed": seed,
        "config_hash": checkpoint["config_hash"], "step": step, "steps": cfg.steps,
        "evaluations": [{"step": e["step"], "train_loss": float(e["train_loss"]), "val_loss": float(e["val_loss"])}
                        for e in checkpoint["history"]],
        "train_curve": [[s, float(losses[s])] for s in range(0, step, CURVE_EVERY)],
        "timing": {"seconds_per_step": train_time / step, "train_time_s": train_time,
                   "wall_time_s": float(checkpoint["wall_time"]), "measured_over": measured_over(step, len(segments))},
        "started": str(checkpoint["started"]), "segments": segments,
        "checkpoint_saved": saved.astimezone(timezone.utc).isoformat(timespec="seconds"),
        "written": (now or datetime.now(timezone.utc)).isoformat(timespec="seconds"),
    }


@dataclass
class Progress:
    """What :func:`record_progress` did: the records ``written`` and ``removed``, the checkpoints ``skipped`` with
    their reason, the records ``kept`` (one reaching further than its checkpoint)."""

    written: list[tuple[Path, dict]] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    kept: list[tuple[Path, str]] = field(default_factory=list)

    def lines(self, results_dir=None) -> list[str]:
        """One line for each thing done or left, as the command prints it."""
        name = lambda path: in_progress.shown_name(path, results_dir)  # noqa: E731
        return ([f"wrote {name(path)}: step {r['step']:,} of {r['steps']:,}, {len(r['evaluations'])} evaluation"
                 f"{'s' if len(r['evaluations']) != 1 else ''}, {r['timing']['seconds_per_step']:.2f} s a step"
                 for path, r in self.written]
                + [f"removed {name(path)}: its run is stored and current" for path in self.removed]
                + [f"kept {name(path)}: {shown(why)}" for path, why in self.kept]
                + [f"skipped checkpoint {shown(path)}: {shown(why)}" for path, why in self.skipped])


def read_checkpoint(path: Path, cfg: TrainConfig, variant: str, seed: int) -> tuple[dict | None, str | None]:
    """(checkpoint, None) for one that says where the run ``variant`` seed ``seed`` of ``cfg`` stands, else (None,
    why). Read into memory, then loaded weights only; whatever it holds, never raises."""
    try:
        data = read_regular_file(path, MAX_CHECKPOINT_BYTES, "a checkpoint")
        checkpoint = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as error:  # noqa: BLE001 (torch raises many kinds for a truncated, empty or foreign file)
        return None, f"damaged: unreadable ({one_line(error)})"
    try:
        recorded = checkpoint.get("run") if isinstance(checkpoint, dict) else None
        owner = {"variant": variant, "config_hash": expected_hash(cfg, variant), "seed": seed,
                 "world_size": recorded.get("world_size") if isinstance(recorded, dict) else None}
        problem = checkpoint_problem(checkpoint, owner, cfg.steps)
    except Exception as error:  # noqa: BLE001
        problem = ("damaged", f"cannot be checked ({one_line(error)})")
    if problem is not None:
        return None, f"{problem[0]}: {problem[1]}"
    return checkpoint, None


def _one_checkpoint(path: Path, preset: str, variant: str, seed: int, results_dir, done: Progress) -> None:
    cfg = PRESETS[preset]
    if variant not in VARIANTS:
        done.skipped.append((path, f"unknown variant {variant!r}"))
        return
    if load_result(cfg, variant, seed, results_dir) is not None:
        done.skipped.append((path, "its run is stored and current"))
        return
    checkpoint, why = read_checkpoint(path, cfg, variant, seed)
    if checkpoint is None:
        done.skipped.append((path, why))
        return
    if checkpoint["step"] >= cfg.steps:
        done.skipped.append((path, "its run has taken all its steps; it is being evaluated and stored"))
        return
    try:
        saved = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
        record = progress_record(checkpoint, cfg, variant, seed, saved)
    except Exception as error:  # noqa: BLE001 (a field of another kind than training writes)
        done.skipped.append((path, f"damaged: cannot be read as a run in progress ({one_line(error)})"))
        return
    problem = in_progress.record_problem(record)
    if problem is not None:
        done.skipped.append((path, f"damaged: its record would not be valid ({problem})"))
        return
    target = in_progress.record_path(preset, variant, seed, results_dir)
    earlier, _ = in_progress.read_record(target) if target.exists() else (None, None)
    if earlier is not None and earlier["config_hash"] == record["config_hash"] and earlier["step"] > record["step"]:
        done.kept.append((target, f"it reaches step {earlier['step']:,}, the checkpoint only {record['step']:,}"))
        return
    done.written.append((in_progress.write_record(record, results_dir), record))


def record_progress(presets=None, checkpoint_dir=None, results_dir=None) -> Progress:
    """Write the record of every run in progress of ``presets`` (default: every evidence preset) from its checkpoint
    under ``checkpoint_dir`` (default: :func:`~mope.train.checkpoints.checkpoint_root`) into the store at
    ``results_dir``, and remove the records of runs stored since (:class:`Progress` says what was done)."""
    chosen = sorted(presets or in_progress.RECORDED)
    done = Progress(removed=in_progress.remove_superseded(chosen, results_dir))
    root = checkpoint_root(checkpoint_dir)
    for preset in chosen:
        for path in sorted((root / preset).glob("*/seed*.pt")):
            match = CHECKPOINT_FILE.fullmatch(path.name)
            if match is None:
                continue  # a set-aside or temporary file, or another's
            _one_checkpoint(path, preset, path.parent.name, int(match.group(1)), results_dir, done)
    return done
