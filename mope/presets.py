"""Training presets: the paper's protocol, a CPU-sized version of it, and a smoke test.

A :class:`TrainConfig` holds the model shape (the fields of :class:`~mope.config.GPTConfig` that
every variant shares) and the training protocol. The learning-rate schedule is one function of the
preset, the same shape for all three: linear warm-up ``lr * s / warmup`` for ``s < warmup``, then
a cosine from ``lr`` down to exactly 0 at the last step ``steps - 1``.

``paper``
    IMPLEMENTATION.md "Training protocol": L6 H8 d256 T256, batch 64, 5,001 iterations (step 0
    at lr 0), warm-up 300, AdamW 3e-4 (0.9, 0.95) eps 1e-8, decay 0.1, clip 1.0, dropout 0.1,
    evaluation every 500 steps on 50 batches per split. On CUDA bf16 autocast by default;
    ``autocast="fp16"`` (with a gradient scaler) is what the author ran on a T4.

``cpu``
    The paper's architecture at a size two shared CPU cores can train, one torch thread per run and
    two runs side by side: L4 H4 d128 (head size 32, as in the paper), context T=128, batch 32,
    dropout 0.1; 501 iterations (step 0 at lr 0) with a 6% warm-up (30 steps, the paper's
    300/5000) then cosine to 0; evaluation every 100 steps on 16 batches per split. T=128 keeps
    most of every window beyond MoPE's ~15-token envelope, where PE-MORLET is claimed to act like
    NoPE. The peak learning rate is 1e-3 rather than 3e-4, the usual rate at this size for a short
    budget: 500 steps (2M tokens, two epochs) at the paper's rate would leave the models far from
    converged (a judgement, not a measured comparison). Decay then shrinks MoPE's raw parameters
    by ~2.5% over training (the paper's run: ~7%).
    Measured (2-core AMD EPYC, one thread, CPU time per step, batch 32 x 128): BASE-DOT 0.39 s,
    PE-SINCOS 0.39, PE-ROPE/PE-MORLET/EGA-1/EGA-MORLET 0.43, EGA-1-CAUSAL and EGA-MORLET-CAUSAL
    0.48 (the slowest of Table 2 and its causal controls), MORLET-ROPE-REL 0.85 (an outlier).
    So a model takes 3.5-4.5 minutes with its evaluations (MORLET-ROPE-REL ~7.5) when the two
    cores are not shared with other work; the wall time grows in proportion when they are.

``smoke``
    L2 H2 d32 T32, batch 8, 41 iterations at lr 1e-2: the whole six-model suite runs end to end in
    seconds (loss ~3.2 from 4.2). Its numbers mean nothing; it exercises the code path of the others.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from mope.config import GPTConfig

AUTOCAST_DTYPES = ("bf16", "fp16")
# Fields that change how fast a run goes or where it can stop, never its numbers: left out of the hash.
RUNTIME_FIELDS = ("compile", "checkpoint_interval")


@dataclass(frozen=True)
class TrainConfig:
    name: str
    # model shape shared by every variant
    n_layer: int = 6
    n_head: int = 8
    n_embd: int = 256
    block_size: int = 256
    dropout: float = 0.1
    # protocol
    steps: int = 5001  # iterations, step 0 included (it runs at lr 0)
    lr: float = 3e-4
    betas: tuple[float, float] = (0.9, 0.95)
    eps: float = 1e-8
    weight_decay: float = 0.1
    warmup: int = 300
    clip: float = 1.0
    batch_size: int = 64  # global batch, split evenly over data-parallel ranks
    eval_interval: int = 500
    eval_batches: int = 50
    checkpoint_interval: int = 250
    extrapolation: tuple[int, ...] = (2, 4)  # whole-validation loss at these multiples of the context
    full_eval_tokens: int | None = None  # cap on the "whole" validation pass (smoke only); None = every token
    autocast: str = "bf16"  # CUDA only; CPU runs in float32
    compile: bool = False

    def __post_init__(self) -> None:
        if self.autocast not in AUTOCAST_DTYPES:
            raise ValueError(f"unknown autocast dtype {self.autocast!r}; valid choices: {', '.join(AUTOCAST_DTYPES)}")
        if not 0 <= self.warmup < self.steps - 1:
            raise ValueError(f"warmup={self.warmup} must lie in [0, steps - 1) with steps={self.steps}")
        for field in ("steps", "batch_size", "eval_interval", "eval_batches", "checkpoint_interval"):
            if getattr(self, field) < 1:
                raise ValueError(f"{field} must be a positive integer, got {getattr(self, field)}")
        self.shape()  # validates the model fields

    def shape(self) -> GPTConfig:
        """The model shape; a variant adds its positional and gating fields on top."""
        return GPTConfig(n_layer=self.n_layer, n_head=self.n_head, n_embd=self.n_embd,
                         block_size=self.block_size, dropout=self.dropout)

    def lr_at(self, step: int) -> float:
        """Linear warm-up from 0, then cosine to exactly 0 at the last step."""
        if step < self.warmup:
            return self.lr * step / self.warmup
        progress = (step - self.warmup) / (self.steps - 1 - self.warmup)
        return self.lr * 0.5 * (1.0 + math.cos(math.pi * min(progress, 1.0)))

    def is_eval_step(self, step: int) -> bool:
        return step % self.eval_interval == 0 or step == self.steps - 1

    def replace(self, **changes) -> "TrainConfig":
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def shortened(self, steps: int) -> "TrainConfig":
        """The same protocol cut to ``steps`` iterations (rehearsals, timing), warm-up and evaluation scaled."""
        if steps < 3:
            raise ValueError(f"a shortened run needs at least 3 steps, got {steps}")
        return self.replace(steps=steps, warmup=min(self.warmup, steps // 10),
                            eval_interval=min(self.eval_interval, steps - 1))

    def identity(self) -> dict:
        """The fields that determine a run's numbers (what the configuration hash covers).

        An optional field left at None is omitted, so that adding one keeps earlier hashes valid.
        """
        return {k: v for k, v in self.to_dict().items() if k not in RUNTIME_FIELDS and v is not None}


PRESETS: dict[str, TrainConfig] = {
    "paper": TrainConfig(name="paper"),
    "cpu": TrainConfig(
        name="cpu", n_layer=4, n_head=4, n_embd=128, block_size=128, dropout=0.1,
        lr=1e-3, steps=501, warmup=30, batch_size=32, eval_interval=100, eval_batches=16, checkpoint_interval=50,
    ),
    "smoke": TrainConfig(
        name="smoke", n_layer=2, n_head=2, n_embd=32, block_size=32, dropout=0.1,
        steps=41, warmup=4, lr=1e-2, batch_size=8, eval_interval=20, eval_batches=2, checkpoint_interval=10,
        full_eval_tokens=4096,
    ),
}


# The stored sweep that chose the `cpu` preset: BASE-DOT, seed 0, each candidate a full run of
# ~3,000 steps on one thread (results/sweeps/{name}/BASE-DOT/seed0.json, `scripts/sweep_cpu_preset.py`).
# Shape and dropout are the paper's family at the CPU size; the candidates differ in the learning rate
# and in how the tokens of a step are cut (T=128 x B=16 or T=64 x B=32, the same 2,048 tokens).
_SWEEP_BASE = TrainConfig(
    name="sweep", n_layer=4, n_head=4, n_embd=128, block_size=128, dropout=0.1,
    steps=3001, warmup=100, lr=1e-3, batch_size=16, eval_interval=250, eval_batches=16, checkpoint_interval=250,
)
CPU_SWEEP: tuple[TrainConfig, ...] = (
    _SWEEP_BASE.replace(name="sweep-cpu-T128-B16-lr1e-3"),
    _SWEEP_BASE.replace(name="sweep-cpu-T128-B16-lr2e-3", lr=2e-3),
    _SWEEP_BASE.replace(name="sweep-cpu-T128-B16-lr3e-3", lr=3e-3),
    _SWEEP_BASE.replace(name="sweep-cpu-T64-B32-lr2e-3", lr=2e-3, block_size=64, batch_size=32),
)


def get_preset(name: str) -> TrainConfig:
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown preset {name!r}; valid presets: {', '.join(PRESETS)}") from None
