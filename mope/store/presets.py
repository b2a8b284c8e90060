"""Training presets: the paper's protocol, a CPU-sized version of it, and a smoke test.

A :class:`TrainConfig` holds the model shape (the fields of :class:`~mope.model.config.GPTConfig` that
every variant shares, ``SHAPE_FIELDS``, with GPTConfig's own defaults) and the training protocol. The learning-rate schedule is one function of the
preset, the same shape for all three: linear warm-up ``lr * s / warmup`` for ``s < warmup``, then
a cosine from ``lr`` down to exactly 0 at the last step ``steps - 1``.

``paper``
    The released training protocol (the book's page "The released code", :ref:`released-training`):
    L6 H8 d256 T256, batch 64, 5,001 iterations (step 0
    at lr 0), warm-up 300, AdamW 3e-4 (0.9, 0.95) eps 1e-8, decay 0.1, clip 1.0, dropout 0.1,
    evaluation every 500 steps on 50 batches per split. On CUDA bf16 autocast by default;
    ``autocast="fp16"`` (with a gradient scaler) is what the author ran on a T4. On CPU cores it runs in float32
    with the same configuration, so under the same preset. What a run costs on each is measured, never typed here:
    the stored runs' wall times (the book's page "How to run it", :ref:`how-long`), the stored CPU rehearsal's
    seconds a step (``results/rehearsals/``) and each run in progress's record (``results/in_progress/``). The
    causal gates train on a CPU compiled (``--compile``: faster in an interleaved benchmark, its compiling paid again
    at each restart), one at a time on both threads.

``cpu``
    The paper's architecture at a size two CPU cores train in about a quarter of an hour per model,
    one torch thread per run and two runs side by side: L4 H4 d128 (head size 32, as in the paper),
    context T=64 (most of every window lies beyond MoPE's envelope, +-12.5 tokens at sigma = 4.5),
    batch 32, dropout 0.1, 3,001 iterations (6.1M tokens, six epochs) with a 100-step warm-up then
    cosine to 0 at peak learning rate 2e-3; evaluation every 250 steps on 16 batches per split.
    Chosen by the stored sweep ``CPU_SWEEP`` (BASE-DOT, seed 0, every candidate 3,001 steps of 2,048
    tokens; stored in ``results/sweeps/``, its losses shown on the book's page "The training budget"):
    the preset was fixed at step ``SWEEP_DECIDED_AT`` while the candidates ran side by side, T64 at 2e-3 meeting
    the target (BASE-DOT <= 1.80) with room. Like all of the book's evidence (``EVIDENCE_PRESETS``), the sweep's
    runs count only when trained from committed code: the three T128 runs stored are reruns, equal bit for bit to
    their first runs, which the T64 run's result written into the tree had marked as made from a changed tree.

``cpu-short``
    The first CPU protocol, kept to show how the verdicts depend on the training budget (its runs
    were stored under the name ``cpu`` before the rename; see ``FORMER_NAMES``): L4 H4 d128 T128,
    batch 32, 501 iterations (2M tokens) at lr 1e-3 with a 30-step warm-up. Its models stop near the
    bigram plateau (the book's page "The training budget" gives BASE-DOT's loss there): it measures how fast a
    model starts to learn, not where it ends.

``cpu-long``
    The ``cpu`` preset at four times its context, T=256, with a quarter of its batch, 8: the same 2,048
    tokens a step, the same steps, schedule and evaluations. Beside ``cpu`` it measures how the gaps
    between encodings move with the context at a fixed token budget, the trend §7 predicts ("The
    theoretical advantage of MoPE would be expected to dominate at longer context lengths").

``cpu-long-4x``
    ``cpu-long`` at four times the tokens: the same model (L4 H4 d128, T=256), learning rate, warm-up,
    schedule, steps and evaluations, with the paper's kind of batch, 32 sequences a step (8,192 tokens
    instead of 2,048): 3,001 steps are 24.6M tokens, about 24 passes over the 1,003,854 training characters,
    between ``cpu-long``'s 6.1M (6 passes) and the paper's 82M (5,001 x 64 x 256, 82 passes). When the preset
    was made, the paper's headline (EGA-MORLET improves on BASE-DOT) pointed its way in the one ``paper`` seed then
    stored and the other way on ``cpu-long``, and that seed's curve had EGA-MORLET behind BASE-DOT early and ahead
    later: this preset asks whether the ``cpu-long`` verdict is one on an early stage of training.
    Its rules (the claims across the two budgets, ``BUDGET_PAIRS``) were committed before its first run.

``cpu-bpe``
    The ``cpu`` model and protocol on subword tokens: the byte-pair vocabulary ``bpe-1024``
    (:data:`TOKENIZERS`, learned from the training split by :mod:`mope.train.subword`), the same shape,
    batch, learning rate, warm-up and decay, a window of 64 tokens (about 150 characters). The paper's
    open question (§7) is whether MoPE's σ reaches beyond the character-to-word scale when a token is
    longer than a character. The step budget, 1,201 iterations with an evaluation every 100, is set by
    the passes over the training split, since a model that sees its data more often than ``cpu``'s
    does risks being judged past the point where its validation loss turns up: the training split is
    392,635 tokens (2.56 characters a token), so a pass is 192 steps of 32 x 64 = 2,048 tokens, and
    1,201 steps make 6.3 passes, about the 6.1 that ``cpu``'s 3,001 steps make over the 1,003,854
    characters, at whose end the stored ``cpu`` runs' validation loss is level (their last evaluations
    differ by the noise of 16 random batches), not rising; 3,001 steps would have been 15.7 passes
    (``tests/test_subword.py`` checks this arithmetic). Every run's history (an evaluation every 100
    steps) shows whether its validation loss turned up. A step costs about what a ``cpu`` step does
    (its tied embedding table holds 131k weights, 123k more than the characters', and the softmax is 1,024-way): 0.9 times as long in two
    60-step rehearsals of PE-MORLET on one thread, one after the other on the same busy machine.

``smoke``
    L2 H2 d32 T32, batch 8, 41 iterations at lr 1e-2: the whole six-model suite runs end to end in
    seconds (loss ~3.2 from 4.2). Its numbers mean nothing; it exercises the code path of the others.
"""
from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass

from mope.model.config import SHAPE_FIELDS, GPTConfig
from mope.errors import ConfigError

AUTOCAST_DTYPES = ("bf16", "fp16")


#: What a verdict needs from TinyShakespeare's validation split (the last 111,540 characters,
#: :func:`mope.train.data.split_text`), counted once here so that the evidence reads stored runs only,
#: never the data set: its characters and its words (whitespace-separated runs). tests/test_subword.py
#: counts them again from the data.
VALIDATION_CHARACTERS = 111_540
VALIDATION_WORDS = 20_153
#: The training split's characters (the first 1,003,854): what a pass over the data is, in tokens of a
#: character-level preset.
TRAINING_CHARACTERS = 1_003_854


@dataclass(frozen=True)
class TokenizerSpec:
    """A byte-pair vocabulary learned from the training split (:mod:`mope.train.subword` builds it and
    stores it at ``mope/train/vocabularies/{name}.json``): its size, the sha256 of its file, and the tokens
    the validation split encodes to (counted when the vocabulary is made; tests/test_subword.py counts
    them again from the vocabulary and the data). None of it is hashed into a run's configuration but the
    size, through the model's shape."""

    name: str
    vocab_size: int
    sha256: str
    validation_tokens: int

    def characters_per_token(self) -> float:
        """The mean characters a token of the validation split covers: its characters over its tokens."""
        return VALIDATION_CHARACTERS / self.validation_tokens


#: The subword vocabularies a preset may train on. 1,024 entries (the 65 characters and 959 merges):
#: enough to make the frequent words and word pieces single tokens (2.33 characters a token on the
#: validation split), few enough that the median entry occurs 161 times in the 392,635 training tokens
#: and the tied embedding table (131k weights at d = 128) stays a small part of the `cpu` model
#: (tests/test_subword.py checks these numbers).
TOKENIZERS: dict[str, TokenizerSpec] = {
    "bpe-1024": TokenizerSpec("bpe-1024", 1024, "7d16637c3db63a96be6f1f27f2ed446284b063aef3bd152ef048b2a6610fccd6",
                              validation_tokens=47_775),
}


def characters_per_word() -> float:
    """The mean characters a word (a whitespace-separated run, with its space) covers on the validation split."""
    return VALIDATION_CHARACTERS / VALIDATION_WORDS


# Fields left out of the hash, so that a run may be resumed with another: where it can stop (the checkpoint
# interval, never its numbers) and how fast it goes (compiling, whose dropout draws other random numbers: the same
# run in distribution, not bit for bit, as a run resumed on another machine is).
RUNTIME_FIELDS = ("compile", "checkpoint_interval")
MIN_STEPS = 3  # a shortened run's smallest length (TrainConfig.shortened)
# A run is filed under results/{name}/ and checkpoints/{name}/: one path component, no surprises.
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


@dataclass(frozen=True)
class TrainConfig:
    name: str
    # the model shape every variant shares (config.SHAPE_FIELDS), defaults read from GPTConfig; the
    # field names are part of every stored configuration and its hash
    n_layer: int = GPTConfig.n_layer
    n_head: int = GPTConfig.n_head
    n_embd: int = GPTConfig.n_embd
    block_size: int = GPTConfig.block_size
    dropout: float = GPTConfig.dropout
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
    # the tokens: None = characters (GPTConfig's vocabulary of 65); else a key of TOKENIZERS and the sha256
    # of its file, which sets the vocabulary size and, being hashed, ties every run to the file it read
    tokenizer: str | None = None
    tokenizer_sha256: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not NAME_PATTERN.fullmatch(self.name):
            raise ConfigError(f"configuration name {self.name!r} must be 1-64 letters, digits, '.', '_' or '-' "
                              "(it names the results and checkpoint folders)")
        if self.autocast not in AUTOCAST_DTYPES:
            raise ConfigError(f"unknown autocast dtype {self.autocast!r}; valid choices: {', '.join(AUTOCAST_DTYPES)}")
        if not 0 <= self.warmup < self.steps - 1:
            raise ConfigError(f"warmup={self.warmup} must lie in [0, steps - 1) with steps={self.steps}")
        for field in ("steps", "batch_size", "eval_interval", "eval_batches", "checkpoint_interval"):
            if getattr(self, field) < 1:
                raise ConfigError(f"{field} must be a positive integer, got {getattr(self, field)}")
        if self.tokenizer is not None and self.tokenizer not in TOKENIZERS:
            raise ConfigError(f"unknown tokenizer {self.tokenizer!r}; valid choices: {', '.join(TOKENIZERS)} "
                              "(or None for characters)")
        if (self.tokenizer is None) != (self.tokenizer_sha256 is None):
            raise ConfigError("a tokenizer needs the sha256 of its file (tokenizer_sha256), and only a tokenizer has one")
        self.shape()  # validates the model fields

    def shape(self) -> GPTConfig:
        """The model shape; a variant adds its positional and gating fields on top. The vocabulary is
        GPTConfig's (characters) unless the configuration names a tokenizer."""
        vocabulary = {} if self.tokenizer is None else {"vocab_size": TOKENIZERS[self.tokenizer].vocab_size}
        return GPTConfig(**{field: getattr(self, field) for field in SHAPE_FIELDS}, **vocabulary)

    def characters_per_token(self) -> float:
        """The mean characters a token of the validation split covers (1 on characters), from the
        tokenizer's stored count: no data set needed."""
        return 1.0 if self.tokenizer is None else TOKENIZERS[self.tokenizer].characters_per_token()

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
        """The same protocol cut to ``steps`` iterations (rehearsals, timing), warm-up and evaluation scaled.

        It is filed under its own name, ``{name}-steps{steps}``, so that it never reads, overwrites or
        deletes the full run's checkpoints and results.
        """
        if steps < MIN_STEPS:
            raise ConfigError(f"a shortened run needs at least {MIN_STEPS} steps, got {steps}")
        return self.replace(name=f"{self.name}-steps{steps}", steps=steps, warmup=min(self.warmup, steps // 10),
                            eval_interval=min(self.eval_interval, steps - 1))

    def hashed_fields(self) -> dict:
        """The fields that determine a run's numbers: what the configuration hash covers
        (:func:`mope.store.results.config_hash`), all but ``RUNTIME_FIELDS``.

        An optional field left at None is omitted, so that adding one keeps earlier hashes valid.
        """
        return {k: v for k, v in self.to_dict().items() if k not in RUNTIME_FIELDS and v is not None}


PRESETS: dict[str, TrainConfig] = {
    "paper": TrainConfig(name="paper"),
    "cpu": TrainConfig(
        name="cpu", n_layer=4, n_head=4, n_embd=128, block_size=64, dropout=0.1,
        lr=2e-3, steps=3001, warmup=100, batch_size=32, eval_interval=250, eval_batches=16, checkpoint_interval=100,
    ),
    "cpu-short": TrainConfig(
        name="cpu-short", n_layer=4, n_head=4, n_embd=128, block_size=128, dropout=0.1,
        lr=1e-3, steps=501, warmup=30, batch_size=32, eval_interval=100, eval_batches=16, checkpoint_interval=50,
    ),
    "cpu-long": TrainConfig(
        name="cpu-long", n_layer=4, n_head=4, n_embd=128, block_size=256, dropout=0.1,
        lr=2e-3, steps=3001, warmup=100, batch_size=8, eval_interval=250, eval_batches=16, checkpoint_interval=100,
    ),
    "cpu-long-4x": TrainConfig(
        name="cpu-long-4x", n_layer=4, n_head=4, n_embd=128, block_size=256, dropout=0.1,
        lr=2e-3, steps=3001, warmup=100, batch_size=32, eval_interval=250, eval_batches=16, checkpoint_interval=50,
    ),
    "cpu-bpe": TrainConfig(
        name="cpu-bpe", n_layer=4, n_head=4, n_embd=128, block_size=64, dropout=0.1,
        lr=2e-3, steps=1201, warmup=100, batch_size=32, eval_interval=100, eval_batches=16, checkpoint_interval=100,
        tokenizer="bpe-1024", tokenizer_sha256=TOKENIZERS["bpe-1024"].sha256,
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
SWEEP_DECIDED_AT = 1500  # the step of the sweep at which `cpu` was fixed (the page "The training budget" shows it)


def sweep_choice() -> TrainConfig:
    """The candidate of ``CPU_SWEEP`` that became the ``cpu`` preset (equal to it but for the name and
    how often a checkpoint is written, which do not change the numbers)."""
    cpu = PRESETS["cpu"]
    (chosen,) = [c for c in CPU_SWEEP if c.replace(name=cpu.name, checkpoint_interval=cpu.checkpoint_interval) == cpu]
    return chosen


# The presets whose runs are the book's evidence. Their runs count only when made from committed code
# (`mope.store.results` treats a run recording ``git_dirty`` as stale, and `train` refuses to start one from
# a working tree with uncommitted changes). Smoke runs, rehearsals (``{preset}-stepsN``) and custom
# configurations are a user's own and count either way.
EVIDENCE_PRESETS: frozenset[str] = frozenset({"cpu", "cpu-short", "cpu-long", "cpu-long-4x", "cpu-bpe", "paper", *(c.name for c in CPU_SWEEP)})

#: The preset that is the same protocol at a longer context, for the claims on how gaps move with the
#: context (``mope.evidence.claims``): (shorter, longer).
CONTEXT_PAIRS: dict[str, str] = {"cpu": "cpu-long"}

#: The preset that is the same model and context trained on more tokens, for the claims on how gaps move
#: with the token budget (``mope.evidence.claims``): (fewer tokens, more tokens).
BUDGET_PAIRS: dict[str, str] = {"cpu-long": "cpu-long-4x"}

#: The preset that is the same protocol on subword tokens, for the claims on what the tokens change
#: (``mope.evidence.open_questions``): (characters, subword tokens).
TOKENIZATION_PAIRS: dict[str, str] = {"cpu": "cpu-bpe"}

#: The presets that judge the paper's claims, closest to the paper's protocol first: its own, then the CPU
#: model at the paper's context and a quarter of the paper's tokens, at the paper's context, at a quarter of it, at a sixth of the training budget, and last, furthest from the
#: paper's character-level data, the quarter-context model on subword tokens (a scale of the token).
STANDING_PRESETS: tuple[str, ...] = ("paper", "cpu-long-4x", "cpu-long", "cpu", "cpu-short", "cpu-bpe")


# Presets renamed after runs were stored: their earlier runs carry the earlier name in their files and
# hashes, with the same configuration otherwise, and count as runs of the preset.
FORMER_NAMES: dict[str, tuple[str, ...]] = {"cpu-short": ("cpu",)}


def with_autocast(preset: TrainConfig, dtype: str | None) -> TrainConfig:
    """The preset under another CUDA autocast dtype, filed under its own name ``{name}-{dtype}``."""
    if dtype is None or dtype == preset.autocast:
        return preset
    return preset.replace(name=f"{preset.name}-{dtype}", autocast=dtype)


def command_line_preset(cfg: TrainConfig) -> TrainConfig | None:
    """The registered preset from which ``train --preset NAME [--autocast X]`` rebuilds ``cfg`` (its runtime fields,
    ``--compile`` and ``--checkpoint-interval``, aside), or None."""
    runtime = {field: getattr(cfg, field) for field in RUNTIME_FIELDS}  # flags of the command line, not presets
    for registered in PRESETS.values():
        if with_autocast(registered, cfg.autocast).replace(**runtime) == cfg:
            return registered
    return None


def check_own_name(cfg: TrainConfig) -> None:
    """Refuse a configuration that borrows a registered preset's name but differs from that preset.

    Its runs would be filed among the preset's, where they would replace or be mistaken for real
    results. Give it a name of its own (``cfg.replace(name=...)``; ``shortened`` does this itself).
    """
    registered = PRESETS.get(cfg.name)
    if registered is not None and registered.hashed_fields() != cfg.hashed_fields():
        changed = sorted(k for k, v in cfg.hashed_fields().items() if registered.hashed_fields().get(k) != v)
        raise ConfigError(f"this configuration differs from preset {cfg.name!r} in {', '.join(changed)} but "
                          f"carries its name; give it its own name, e.g. cfg.replace(name='{cfg.name}-custom')")


def get_preset(name: str) -> TrainConfig:
    try:
        return PRESETS[name]
    except KeyError:
        raise ConfigError(f"unknown preset {name!r}; valid presets: {', '.join(PRESETS)}") from None
