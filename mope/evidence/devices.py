"""The paper's protocol on two devices: most of its runs trained in bf16 on a GPU, some in float32 on CPU cores.

Before the CPU seeds were trained, BASE-DOT seed 0 was trained again on the CPU to step 1,000 (a rehearsal, not a
result: it is kept under ``results/rehearsals/``, beside no preset), so that the two devices' evaluations of the same
seed, the same batches and the same schedule can be compared at steps 500 and 1,000 against how much two seeds
differ there. The CPU timing of the protocol (seconds a step, two runs side by side) is stored with it.

Seed 0 of Table 2's six was also trained a second time on an H200 (by mistake: a GPU window whose store did not
hold the runs it should have skipped), with the later code and its fused AdamW, which seeds 1-2 of `paper` used.
Those six runs are kept under ``results/rehearsals/`` too (:data:`GPU_AGAIN`): the same seed, batches and schedule
on the same kind of GPU, they show how far a GPU run of this protocol lands from itself.
"""
from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from mope.store.results import results_root

#: The rehearsal's record, under the results root.
REHEARSAL = Path("rehearsals") / "paper-BASE-DOT-seed0-cpu.json"
COMPARED_STEPS = (500, 1000)
#: Seed 0 of `paper` trained again on an H200 (commit 3833ac6, fused AdamW): a file a model, ``<VARIANT>.json``.
GPU_AGAIN = Path("rehearsals") / "paper-seed0-h200-again"


def load_rehearsal(root=None) -> dict | None:
    """The stored CPU rehearsal of `paper` BASE-DOT seed 0, or None where none is stored (or it cannot be read)."""
    path = results_root(root) / REHEARSAL
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def load_gpu_again(root=None) -> list[dict]:
    """The runs of :data:`GPU_AGAIN` (a file that cannot be read is named on stderr and skipped)."""
    runs = []
    for path in sorted((results_root(root) / GPU_AGAIN).glob("*.json")):
        try:
            runs.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError) as error:
            print(f"mope: skipped {path}: {error}", file=sys.stderr)
    return runs


def rerun_differences(again: Iterable[Mapping], stored: Iterable[Mapping]) -> list[tuple[str, float, float, float]]:
    """(variant, the stored run's final random-batch val loss, the second run's, second − stored) for each run
    of ``again`` whose variant, seed and configuration a stored run shares."""
    by_key = {(r["variant"], r["seed"], r["config_hash"]): r for r in stored}
    rows = []
    for run in again:
        first = by_key.get((run["variant"], run["seed"], run["config_hash"]))
        if first is not None:
            a, b = first["final"]["val_loss"], run["final"]["val_loss"]
            rows.append((run["variant"], a, b, b - a))
    return rows


def precision(run: Mapping) -> str:
    """"bf16 on cuda: NVIDIA H200" or "float32 on cpu: …": how a run computed, from its provenance."""
    device = run["provenance"]["device"]
    autocast = run.get("config", {}).get("train", {}).get("autocast")
    return f"{autocast if device.startswith('cuda') and autocast else 'float32'} on {device}"


def seed_devices(runs: Iterable[Mapping]) -> str:
    """"seed 0: bf16 on cuda: NVIDIA H200; seeds 1, 2: float32 on cpu: …": each seed of a preset's runs by how it
    computed (a seed whose runs differ is listed under each)."""
    by_device: dict[str, set[int]] = {}
    for run in runs:
        by_device.setdefault(precision(run), set()).add(run["seed"])
    parts = []
    for device, seeds in sorted(by_device.items(), key=lambda item: min(item[1])):
        ordered = sorted(seeds)
        parts.append(f"seed{'s' if len(ordered) > 1 else ''} {', '.join(map(str, ordered))}: {device}")
    return "; ".join(parts)


def evaluation_at(history: Sequence[Mapping], step: int) -> float | None:
    """The random-batch validation loss a history records at ``step``, or None."""
    return next((entry["val_loss"] for entry in history if entry["step"] == step), None)


def device_comparison(rehearsal: Mapping, stored: Mapping, steps: Sequence[int] = COMPARED_STEPS) -> list[tuple]:
    """(step, the CPU rehearsal's val loss, the stored GPU run's, CPU − GPU) at each of ``steps`` both evaluated."""
    rows = []
    for step in steps:
        cpu, gpu = evaluation_at(rehearsal["history"], step), evaluation_at(stored["history"], step)
        if cpu is not None and gpu is not None:
            rows.append((step, cpu, gpu, cpu - gpu))
    return rows


def seed_spread(runs: Iterable[Mapping], variant: str, step: int) -> tuple[float, int] | None:
    """(the sd over seeds of ``variant``'s val loss at ``step``, the seeds) among ``runs``; None under two seeds."""
    values = [evaluation_at(run["history"], step) for run in runs if run["variant"] == variant]
    values = [value for value in values if value is not None]
    return (statistics.stdev(values), len(values)) if len(values) > 1 else None


def arithmetic(run: Mapping) -> str:
    """"bf16 on cuda" or "float32 on cpu": the number format and the kind of device a run computed with, the
    device's model left out."""
    return precision(run).split(":")[0]


def against(runs: Iterable[Mapping], variant: str, other: str) -> str:
    """"EGA-MORLET-CAUSAL trained in float32 on cpu, BASE-DOT in bf16 on cuda": how ``variant``'s runs computed and
    how ``other``'s did (each :func:`arithmetic`), where the two differ, so that a difference between them is read
    with the devices' arithmetic in it; "" where they computed alike or either has no run."""
    runs = list(runs)
    mine, theirs = ({arithmetic(run) for run in runs if run["variant"] == name} for name in (variant, other))
    if not mine or not theirs or mine == theirs:
        return ""
    return f"{variant} trained in {' and '.join(sorted(mine))}, {other} in {' and '.join(sorted(theirs))}"


def mixed_devices_note(runs: Iterable[Mapping], variants: Sequence[str]) -> str:
    """"" where the runs of ``variants`` all computed one way (:func:`arithmetic`); otherwise a sentence that names
    which model's seeds computed how, since a difference between two of them carries the devices' difference too."""
    seeds: dict[str, dict[str, set[int]]] = {}
    for run in runs:
        if run["variant"] in variants:
            seeds.setdefault(arithmetic(run), {}).setdefault(run["variant"], set()).add(run["seed"])
    if len(seeds) < 2:
        return ""
    ways = []
    for way, by_variant in sorted(seeds.items()):
        models = [f"{name} (seed{'s' if len(found) > 1 else ''} {', '.join(map(str, sorted(found)))})"
                  for name, found in sorted(by_variant.items(), key=lambda item: variants.index(item[0]))]
        listed = ", ".join(models[:-1]) + " and " + models[-1] if len(models) > 1 else models[0]
        ways.append(f"{listed} in {way}")
    kinds = "two kinds" if len(ways) == 2 else f"{len(ways)} kinds"
    return (f"These runs computed on {kinds} of device ({'; '.join(ways)}): a "
            "difference between them carries the devices' arithmetic as well ({ref}`how large <repro-devices>`).")
