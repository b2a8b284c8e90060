"""The stored sweep behind the `cpu` preset: BASE-DOT, seed 0, under each candidate of ``CPU_SWEEP``.

    python scripts/sweep_cpu_preset.py [--jobs 4]

Each candidate runs in its own process with one torch thread and is stored (with its provenance) as
``results/sweeps/{candidate}/BASE-DOT/seed0.json``; a stored candidate is skipped. Run it from a
committed, clean tree so that the stored runs record ``git_dirty: false``.
"""
from __future__ import annotations

import argparse
import multiprocessing

import torch

from mope.store.presets import CPU_SWEEP
from mope.store.results import sweep_root
from mope.train.suite import set_aside_unless_current
from mope.train.loop import train

SWEEP_ROOT = sweep_root()


def run(index: int) -> str:
    torch.set_num_threads(1)
    candidate = CPU_SWEEP[index]
    result = train("BASE-DOT", candidate, 0, results_root=SWEEP_ROOT, progress=False)
    return f"{candidate.name}: whole val {result['final']['val_loss_full']:.4f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=len(CPU_SWEEP))
    args = parser.parse_args()
    todo = [i for i, c in enumerate(CPU_SWEEP) if set_aside_unless_current(c, "BASE-DOT", 0, SWEEP_ROOT)]
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        for line in pool.imap_unordered(run, todo):
            print(line, flush=True)


if __name__ == "__main__":
    main()
