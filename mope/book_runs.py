"""The runs a chapter shows: its main preset first, beside it every other preset of the book that has
runs, and one line per preset naming what is missing.

The book's presets are ``cpu`` (the trained protocol, the main numbers), ``cpu-short`` (the first,
shorter protocol, shown for how the verdicts depend on the training budget) and ``paper`` (the
published protocol, once its GPU runs are stored). Only the current runs of :mod:`mope.results` are
read; nothing is trained here except in the ``smoke`` preset, whose toy runs the tests make on the spot.
"""
from __future__ import annotations

from collections.abc import Sequence

from mope import results
from mope.presets import CPU_SWEEP, TrainConfig, get_preset

BOOK_PRESETS = ("cpu", "cpu-short", "paper")
TRAINED_ON_THE_SPOT = "smoke"


def describe(preset: str) -> str:
    """"L4 H4 d128 T64, batch 32, 3,001 steps at lr 0.002": a preset's shape and protocol in one line."""
    cfg = get_preset(preset)
    return (f"L{cfg.n_layer} H{cfg.n_head} d{cfg.n_embd} T{cfg.block_size}, batch {cfg.batch_size}, "
            f"{cfg.steps:,} steps at lr {cfg.lr:g}")


def presets_shown(main: str) -> list[str]:
    """``main``, then the other presets of the book that hold current runs (none beside ``smoke``)."""
    if main not in BOOK_PRESETS:
        return [main]
    return [main, *(p for p in BOOK_PRESETS if p != main and results.load_results(p))]


def load_runs(main: str, variants: Sequence[str], seeds: Sequence[int]) -> dict[str, list[dict]]:
    """{preset: its current runs of ``variants`` and ``seeds``} for :func:`presets_shown` (``smoke``:
    the missing runs are trained first)."""
    if main == TRAINED_ON_THE_SPOT:
        from mope.suite import ensure_results

        ensure_results(main, list(variants), list(seeds), progress=False)
    return {preset: [r for r in results.load_results(preset) if r["variant"] in variants and r["seed"] in seeds]
            for preset in presets_shown(main)}


def step_shape(cfg: TrainConfig) -> str:
    """"T64 × B32": how the tokens of one training step are cut (context × sequences)."""
    return f"T{cfg.block_size} × B{cfg.batch_size}"


def load_sweep(root=None) -> dict[TrainConfig, dict | None]:
    """{candidate of ``CPU_SWEEP``: its current BASE-DOT seed-0 run, or None when none is stored}."""
    return {candidate: results.load_result(candidate, "BASE-DOT", 0, results.sweep_root(root))
            for candidate in CPU_SWEEP}


def seed_list(seeds: Sequence[int]) -> str:
    """"0–2" for consecutive seeds, "0, 2" otherwise."""
    seeds = sorted(seeds)
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}–{seeds[-1]}"
    return ", ".join(map(str, seeds))


def missing_line(preset: str, runs: Sequence[dict], variants: Sequence[str], seeds: Sequence[int]) -> str:
    """One sentence: how many of the (variant, seed) runs ``preset`` holds, which are missing (models
    grouped by the seeds they lack), and how many stored files are stale (made before a change of the
    code, or from uncommitted code) or invalid, and so not shown."""
    have = {(r["variant"], r["seed"]) for r in runs}
    lacking: dict[tuple[int, ...], list[str]] = {}
    for variant in variants:
        absent = tuple(seed for seed in seeds if (variant, seed) not in have)
        if absent:
            lacking.setdefault(absent, []).append(variant)
    total = len(variants) * len(seeds)
    stored = total - sum(len(absent) * len(names) for absent, names in lacking.items())
    line = f"`{preset}`: {stored} of {total} runs stored"
    if lacking:
        line += "; missing " + "; ".join(
            f"seed{'s' if len(absent) > 1 else ''} {seed_list(absent)} of {', '.join(names)}"
            for absent, names in lacking.items())
    found = results.scan(preset, variants=variants)
    for count, kind in ((len(found.stale), "stale (older or uncommitted code)"), (len(found.invalid), "invalid")):
        if count:
            line += f"; {count} {kind} file{'s' if count > 1 else ''} not shown"
    return line + "."
