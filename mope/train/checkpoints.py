"""A run's checkpoint: where it lies (``checkpoints/{name}/{variant}/seed{S}-{hash}.pt`` under
:func:`checkpoint_root`), how it is written (atomically, rank 0 only: :func:`save_checkpoint`), what it holds (the
weights, the optimiser and scaler, the losses and history, every rank's RNG state: :func:`rng_states`, the run it
belongs to, the stretches of its steps and where each computed: :func:`run_segments`), and how a run resumes from one
(:func:`load_checkpoint`, :func:`resume`). A checkpoint that cannot
resume the run (unreadable, another run's, of unknown seed, non-finite weights, a field its run's result would hold
that breaks the result's schema: :data:`CHECKPOINT_FIELDS`) is set aside with one notice, never deleted, and the run
starts over; one whose only fault is its record of where its steps computed resumes, with those steps not recorded."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import torch
import torch.distributed as dist

from mope.errors import UserError, one_line, shown
from mope.model.gpt import GPT
from mope.store.files import atomic_write, is_regular_file, set_aside
from mope.store.result_schema import RESULT_SCHEMA, fragment_problem, segments_problem, stamp_problem, text_problem
from mope.store.results import default_home
from mope.train.data import derived_seed
from mope.train.devices import DataParallelRank

ENV_CHECKPOINT_DIR = "MOPE_CHECKPOINT_DIR"
#: The provenance fields that say where and from which code a stretch of a run's steps computed.
SEGMENT_FIELDS = ("git_commit", "git_dirty", "device", "cpu_capability", "threads", "torch")


_RESULT = RESULT_SCHEMA["properties"]
_PROVENANCE = _RESULT["provenance"]["properties"]
#: What a checkpoint carries into its run's result, declared by the parts of the result's schema it becomes (a
#: loss of ``train_curve``, ``history``, ``provenance.wall_time_s`` and ``started``), and what resuming reads
#: besides (the optimiser's, the scaler's and the RNG's states): checked before the run resumes, so that no
#: checkpoint trains a run whose result the store then refuses, or crashes it.
CHECKPOINT_FIELDS = {
    "type": "object",
    "required": ["losses", "history", "train_time", "wall_time", "started", "optimizer", "scaler", "rng"],
    "properties": {
        "losses": {"type": "array", "items": _RESULT["train_curve"]["items"]["prefixItems"][1]},
        "history": _RESULT["history"],
        "train_time": _PROVENANCE["wall_time_s"], "wall_time": _PROVENANCE["wall_time_s"],
        "started": _PROVENANCE["started"],
        "optimizer": {"type": "object", "required": ["state", "param_groups"]}, "scaler": {"type": "object"},
        "rng": {"type": "object", "required": ["ranks"], "properties": {"ranks": {"type": "array", "minItems": 1}}},
    },
}
#: The stretches of a checkpoint's steps, one or more, as ``provenance.segments`` holds them.
CHECKPOINT_SEGMENTS = {"type": "array", "minItems": 1, "items": _PROVENANCE["segments"]["items"]}


def checkpoint_root(checkpoint_dir=None) -> Path:
    """``checkpoint_dir`` if given, else ``$MOPE_CHECKPOINT_DIR``, else ``checkpoints/`` of
    :func:`mope.store.results.default_home` (the source checkout, or the current directory)."""
    if checkpoint_dir is not None:
        return Path(checkpoint_dir)
    return Path(os.environ.get(ENV_CHECKPOINT_DIR) or default_home() / "checkpoints")


def rng_states(device: torch.device, parallel: DataParallelRank) -> dict:
    """Every rank's torch RNG states (dropout), gathered so that each rank resumes its own."""
    mine = {"cpu": torch.get_rng_state(), "cuda": torch.cuda.get_rng_state(device) if device.type == "cuda" else None}
    if parallel.world_size == 1:
        return {"ranks": [mine]}
    gathered = [None] * parallel.world_size
    dist.all_gather_object(gathered, mine)
    return {"ranks": gathered}


class CheckpointWriteError(UserError):
    """A checkpoint could not be written (a full disk, a folder removed): the run stops with one line."""


def save_checkpoint(path: Path, payload: dict) -> None:
    """Write the checkpoint atomically (:func:`mope.store.files.atomic_write`). A failed write (a full disk
    makes ``torch.save`` raise RuntimeError "unexpected pos ...", not OSError) is one message."""
    try:
        atomic_write(path, lambda file: torch.save(payload, file))
    except (OSError, RuntimeError) as error:
        raise CheckpointWriteError(
            f"cannot write checkpoint {shown(path)} ({one_line(error)}); is the disk full? Free space there (or point "
            f"${ENV_CHECKPOINT_DIR} at a folder with room) and run the same command again: it resumes from "
            "the last checkpoint that was written") from error


def checkpoint_problem(checkpoint, owner: dict, steps: int) -> tuple[str, str] | None:
    """(kind, why) when ``checkpoint`` cannot resume the run ``owner`` of ``steps`` steps, else None.
    ``kind`` is "damaged", "another run's" or "of unknown seed".

    A checkpoint written before checkpoints recorded their run (no ``"run"``) cannot say which seed made
    it (a copy of seed 1's under seed 0's name resumed silently): it is never resumed."""
    if not isinstance(checkpoint, dict) or "model" not in checkpoint or "step" not in checkpoint:
        return "damaged", "not a training checkpoint"
    if checkpoint.get("config_hash") != owner["config_hash"]:
        return "another run's", f"configuration {checkpoint.get('config_hash')}, expected {owner['config_hash']}"
    recorded = checkpoint.get("run")
    if recorded is None:
        return "of unknown seed", "written before checkpoints recorded their run, so its seed cannot be checked"
    if not isinstance(recorded, dict):
        return "damaged", "its record of the run is not a mapping"
    differ = [f"{key} {recorded.get(key)!r}, this run's is {value!r}"
              for key, value in owner.items() if recorded.get(key) != value]
    if differ:
        return "another run's", "; ".join(differ)
    step, losses = checkpoint["step"], checkpoint.get("losses")
    if isinstance(step, bool) or not isinstance(step, int) or not 1 <= step <= steps:
        return "damaged", f"step {step!r} outside 1..{steps}"
    if not isinstance(losses, list) or len(losses) != step:
        return "damaged", f"{len(losses) if isinstance(losses, list) else 'no'} losses for {step} steps"
    if not isinstance(checkpoint["model"], dict):
        return "damaged", "its weights are not a state dict"
    bad = [name for name, tensor in checkpoint["model"].items()
           if not isinstance(tensor, torch.Tensor) or tensor.is_floating_point() and not torch.isfinite(tensor).all()]
    if bad:
        return "damaged", f"non-finite weights in {', '.join(bad[:3])}{' ...' if len(bad) > 3 else ''}"
    problem = fields_problem(checkpoint)
    return None if problem is None else ("damaged", problem)


def fields_problem(checkpoint: dict) -> str | None:
    """Why the fields of ``checkpoint`` that resuming reads and its run's result will hold (``CHECKPOINT_FIELDS``)
    break the rules of the result's schema, or None: a loss not finite and positive, a history not a list of
    evaluations before the checkpoint's step, a time not a finite number, ``started`` not one line of ISO 8601 with an
    offset, the optimiser's state not finite. Its stretches are checked apart (:func:`segments_field_problem`)."""
    fields = {key: checkpoint[key] for key in CHECKPOINT_FIELDS["properties"] if key in checkpoint}
    problem = (fragment_problem(CHECKPOINT_FIELDS, fields) or text_problem(fields["started"], "started")
               or stamp_problem("started", fields["started"]))
    if problem is not None:
        return problem
    late = [entry["step"] for entry in fields["history"] if entry["step"] >= checkpoint["step"]]
    if late:
        return f"history: an evaluation at step {late[0]}, not before the checkpoint's step {checkpoint['step']}"
    state = checkpoint["optimizer"]["state"]
    values = [value for moment in state.values() for value in moment.values()] if isinstance(state, dict) and all(
        isinstance(moment, dict) for moment in state.values()) else [None]
    if any(not isinstance(value, torch.Tensor) or value.is_floating_point() and not torch.isfinite(value).all()
           for value in values):
        return "the optimiser's state is not finite tensors"
    return None


def segments_field_problem(checkpoint: dict) -> str | None:
    """Why the stretches a checkpoint records (``segments``) are not one or more stretches as ``provenance.segments``
    holds them, covering its steps from 0 one after another, or None (None too for a checkpoint that records none)."""
    if "segments" not in checkpoint:
        return None
    segments = checkpoint["segments"]
    problem = fragment_problem(CHECKPOINT_SEGMENTS, segments) or text_problem(segments, "segments")
    return problem or segments_problem(segments, checkpoint["step"])


def set_checkpoint_aside(path: Path, kind: str, problem: str, parallel: DataParallelRank) -> None:
    if parallel.world_size > 1:
        dist.barrier()  # every rank has read it before rank 0 moves it
    if parallel.main:
        moved = set_aside(path)
        print(f"notice: checkpoint {shown(path)} is {kind} ({problem}); kept as {shown(moved.name)}, "
              f"starting this run from step 0", file=sys.stderr)


def load_checkpoint(path: Path, owner: dict, steps: int, parallel: DataParallelRank) -> dict | None:
    """The checkpoint to resume from, or None. One that cannot resume this run (unreadable or empty,
    another run's, non-finite weights) is set aside with one notice, and the run starts over. Only a
    regular file is read (:func:`mope.train.loop.train` has set anything else aside before step 0)."""
    if not is_regular_file(path):
        return None
    try:
        checkpoint = torch.load(path, map_location="cpu", weights_only=True)
        problem = checkpoint_problem(checkpoint, owner, steps)
    except Exception as error:  # noqa: BLE001 (torch raises many kinds for a truncated, empty or foreign file)
        checkpoint, problem = None, ("damaged", f"unreadable ({one_line(error)})")
    if problem is None:
        stretches = segments_field_problem(checkpoint)
        if stretches is not None:  # only where its steps computed: resumed, those steps not recorded
            checkpoint.pop("segments")
            if parallel.main:
                print(f"notice: checkpoint {shown(path)} records where its steps computed in a form that cannot be "
                      f"stored ({stretches}); resuming it at step {checkpoint['step']}, with the machine and code of "
                      "those steps not recorded", file=sys.stderr)
        return checkpoint
    set_checkpoint_aside(path, *problem, parallel)
    return None


def _restore_rng(checkpoint: dict, seed: int, step: int, device: torch.device, parallel: DataParallelRank) -> None:
    ranks = checkpoint["rng"]["ranks"]
    if len(ranks) != parallel.world_size:  # resumed on another number of ranks: fresh, but reproducible, dropout
        torch.manual_seed(derived_seed("dropout", seed, parallel.rank, step))
        return
    torch.set_rng_state(ranks[parallel.rank]["cpu"])
    if device.type == "cuda" and ranks[parallel.rank]["cuda"] is not None:
        torch.cuda.set_rng_state(ranks[parallel.rank]["cuda"], device)


def resume(checkpoint: dict, raw: GPT, optimizer, scaler, seed: int, device: torch.device, parallel: DataParallelRank) -> tuple:
    """Load ``checkpoint`` into the model, optimizer, scaler and RNG; return (step, losses, history,
    train_time, wall_time, started). Raises, having changed nothing, if any part does not fit."""
    initial = {name: tensor.clone() for name, tensor in raw.state_dict().items()}
    rng = torch.get_rng_state(), torch.cuda.get_rng_state(device) if device.type == "cuda" else None
    try:
        raw.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        scaler.load_state_dict(checkpoint["scaler"])
        state = (checkpoint["step"], list(checkpoint["losses"]), list(checkpoint["history"]),
                 float(checkpoint["train_time"]), float(checkpoint["wall_time"]), str(checkpoint["started"]))
        _restore_rng(checkpoint, seed, state[0], device, parallel)
        return state
    except Exception:
        raw.load_state_dict(initial)
        torch.set_rng_state(rng[0])
        if rng[1] is not None:
            torch.cuda.set_rng_state(rng[1], device)
        raise


def run_segments(checkpoint: dict | None, start: int, here: dict) -> list[dict]:
    """The stretches of a run's steps, ``{"from_step", "to_step", *SEGMENT_FIELDS}``, the one that starts at step
    ``start`` on the machine and code ``here`` last (its ``to_step`` is moved on as the run goes). A run resumed
    where and from the code it stopped at continues its last stretch; resumed elsewhere (another CPU model, thread
    count or commit, or a GPU) it starts a new one. The steps of a checkpoint written before checkpoints kept
    their stretches are one stretch whose machine and code were not recorded."""
    earlier = [dict(segment) for segment in (checkpoint or {}).get("segments") or ()]
    if not earlier and start:
        earlier = [{"from_step": 0, "to_step": start}]
    if earlier and all(earlier[-1].get(field) == here[field] for field in SEGMENT_FIELDS):
        return earlier
    return earlier + [{"from_step": start, "to_step": start, **{field: here[field] for field in SEGMENT_FIELDS}}]
