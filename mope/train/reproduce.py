r"""Whether this machine reproduces a run stored from another: the reference run made again and set against it.

The reference (``tests/reference_smoke_losses.json``) is PE-MORLET in the ``smoke`` preset shortened to 60 steps,
seed 0, on one torch thread, with every step's loss kept, as one machine (its ``cpu`` and ``cpu_capability``)
made it. Made again here, step by step

$$d_s = \lvert\ell_s^{\text{here}} - \ell_s^{\text{reference}}\rvert,$$

the largest $d_s$ and the first step with $d_s > 0$ say how far this CPU's kernels take the same arithmetic from
the reference's (0 and none: bit for bit). The tests hold $\max_s d_s$ to a tolerance measured across machines;
the reproducibility page reports what the machine that built it measured::

    reference = load_reference()
    found = compare(remake(reference, scratch_folder), reference)
    found.largest, found.first_step  # (0.0, None): bit for bit; another CPU model differs by rounding
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import torch

from mope.store.presets import get_preset

REFERENCE = Path(__file__).resolve().parents[2] / "tests" / "reference_smoke_losses.json"
STEPS = 60  # the reference's shortened smoke preset
#: How far a fresh run's losses (every step's, and the final ones) may be from the stored reference, made on
#: an AMD EPYC with AVX-512 kernels. Not bit for bit: the same torch, thread count and instruction set do not
#: decide the bits, the kernels' blocking and dispatch differ between CPU models. Measured against
#: the reference (largest absolute difference over the 60 steps, torch 2.13.0+cpu): an AMD EPYC with AVX2 kernels,
#: 3.6e-4 on one thread and 4.6e-4 on two (both at step 54, the first difference at step 6 and 2);
#: an Intel Xeon (Sapphire Rapids) with AVX-512, 3.2333 against 3.2331 at step 56 (~2e-4). 2e-3 is
#: four times the largest: the spread grows with the steps and other CPU models may spread further.
ACROSS_MACHINES = 2e-3


def load_reference(path: Path = REFERENCE) -> dict:
    """The stored reference run: its every-step ``train_curve`` ([step, loss] pairs), final losses, and the
    machine that made it (``cpu``, ``cpu_capability``, ``torch``, ``threads``)."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def remake(reference: dict, scratch: Path) -> dict:
    """The reference's run made here, on the CPU with the reference's thread count and every step's loss kept, its
    files under ``scratch`` (the result and checkpoint of a run the store never shows); the torch threads, the loop's
    curve spacing and the random state are restored after it."""
    from mope.train import loop

    threads, every = torch.get_num_threads(), loop.CURVE_EVERY
    torch.set_num_threads(reference["threads"])
    loop.CURVE_EVERY = 1
    try:
        with torch.random.fork_rng(devices=[]):  # the caller's random state is left as it was
            return loop.train(reference["variant"], get_preset("smoke").shortened(STEPS), reference["seed"],
                              results_root=Path(scratch) / "results", checkpoint_dir=Path(scratch) / "checkpoints",
                              device="cpu", progress=False)  # the reference is a CPU run: on the CPU, GPU or none
    finally:
        loop.CURVE_EVERY = every
        torch.set_num_threads(threads)


@dataclass(frozen=True)
class Comparison:
    """How a run made here differs from the reference, step by step."""

    steps: int  # the steps compared
    largest: float  # the largest absolute difference of a step's loss
    first_step: int | None  # the first step whose loss differs; None: every step equal, bit for bit

    @property
    def bit_for_bit(self) -> bool:
        return self.first_step is None


def compare(result: dict, reference: dict) -> Comparison:
    """Step by step, ``result``'s training losses against ``reference``'s (the same steps, or a ValueError)."""
    ours, theirs = dict(map(tuple, result["train_curve"])), dict(map(tuple, reference["train_curve"]))
    if ours.keys() != theirs.keys():
        raise ValueError(f"the runs kept different steps: {len(ours)} here, {len(theirs)} in the reference")
    differences = {step: abs(ours[step] - theirs[step]) for step in sorted(ours)}
    first = next((step for step, gap in differences.items() if gap != 0), None)
    return Comparison(len(differences), max(differences.values()), first)
