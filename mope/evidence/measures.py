"""What each claim measures: its statistic seed by seed, from the stored runs, and what a control of ours
says beside it (the caveat).

A :data:`Measure` takes a preset's runs and its configuration and gives an
:class:`~mope.evidence.estimates.Estimate` and a caveat (or None); a claim across contexts or token budgets
takes the runs of the two presets instead. The catalogue of claims (:mod:`mope.evidence.claims`) names one
measure per claim; the rules that judge them are :mod:`mope.evidence.verdicts`'.
"""
from __future__ import annotations

import statistics
from collections.abc import Callable

import numpy as np

from mope.evidence import learned_parameters
from mope.evidence.estimates import (SHARE_RESOLUTION, Estimate, UnpairedDifference, common_seeds, context_values,
                                     final_values, improvement, paired, per_seed)
from mope.evidence.verdicts import p_value
from mope.store.presets import TrainConfig

Measure = Callable[[list[dict], TrainConfig], tuple[Estimate, "str | None"]]


def _signed(value: float) -> str:
    return f"{value:+.3f}"


def advantage(better: str, worse: str, key: str = "val_loss", caveat: Callable | None = None) -> Measure:
    """L(worse) − L(better), seed by seed; ``caveat(runs, cfg)`` adds what a control says."""
    return lambda runs, cfg: (paired(runs, worse, better, key), caveat(runs, cfg) if caveat else None)


def causal_share(runs: list[dict], gate: str, causal: str, base: str = "BASE-DOT") -> Estimate:
    """Seed by seed: the whole-validation gain of the gate retrained causally over ``base``, as a share
    of the published gate's mean gain over the same seeds (1: all of it survives; 0: none), so that the
    mean share is the quotient of the two mean gains a page shows beside it. No share without a gain: with
    a published mean gain of 0 or less there is none (the claim is then moot, :func:`~mope.evidence.verdicts.verdict_moot`)."""
    published, retrained = common_gains(runs, gate, causal, base)
    if not published:
        return Estimate({}, resolution=SHARE_RESOLUTION)
    scale = float(np.mean(list(published.values())))
    if scale <= 0:
        return Estimate({}, resolution=SHARE_RESOLUTION)
    return Estimate({s: r / scale for s, r in retrained.items()}, resolution=SHARE_RESOLUTION)


def common_gains(runs: list[dict], gate: str, causal: str, base: str = "BASE-DOT") -> tuple[dict, dict]:
    """The whole-validation gains over ``base`` of ``gate`` and of ``causal``, {seed: gain} each, on the
    seeds where both were run."""
    published = improvement(runs, gate, base, "val_loss_full").values
    retrained = improvement(runs, causal, base, "val_loss_full").values
    seeds = common_seeds(published, retrained)
    return {s: published[s] for s in seeds}, {s: retrained[s] for s in seeds}


def published_gate_gain(runs: list[dict]) -> Estimate:
    """EGA-1's whole-validation gain over BASE-DOT, seed by seed, on the seeds where the causal gate ran:
    what the causal gate's share is a share of (no causal run, no share to be moot)."""
    gain = improvement(runs, "EGA-1", key="val_loss_full")
    causal = {run["seed"] for run in runs if run["variant"] == "EGA-1-CAUSAL"}
    return Estimate({seed: value for seed, value in gain.values.items() if seed in causal}, resolution=gain.resolution)


#: How a caveat opens when the gain it qualifies needs a gate that reads future tokens (:func:`noncausal_caveat`).
FUTURE_READING = "its gate reads future tokens"


def reads_future(caveat: str | None) -> bool:
    """Whether ``caveat`` (a record's) says that the gain it qualifies needs a gate that reads future tokens."""
    return (caveat or "").startswith(FUTURE_READING)


def noncausal_caveat(causal: str) -> Callable:
    """The caveat of a gain that needs a gate reading future tokens: what the same model with a causal
    gate, retrained, gains over BASE-DOT (whole validation split)."""
    def caveat(runs, cfg):
        retrained = improvement(runs, causal, "BASE-DOT", "val_loss_full")
        if not retrained.n:
            return f"{FUTURE_READING}; {causal} not run"
        return (f"{FUTURE_READING}: with a causal gate ({causal}) the gain is "
                f"{_signed(retrained.mean)} (whole validation)")
    return caveat


def sincos_scale_caveat(runs, cfg):
    rescaling = paired(runs, "PE-SINCOS", "PE-SINCOS-SCALED")
    locality = paired(runs, "PE-SINCOS-SCALED", "PE-MORLET")
    if not rescaling.n:
        return None
    return (f"sin/cos scaled to the token embeddings alone gains {_signed(rescaling.mean)}"
            + (f" and then beats MoPE by {-locality.mean:.3f}" if locality.n and locality.mean < 0 else ""))


def interaction_excess(runs: list[dict], key: str = "val_loss") -> Estimate:
    """Δ(EGA-MORLET) − Δ(EGA-1) − Δ(PE-MORLET), seed by seed (Table 4's "excess")."""
    values = [final_values(runs, v, key) for v in ("BASE-DOT", "EGA-1", "PE-MORLET", "EGA-MORLET")]
    return per_seed(lambda base, gate, pe, both: gate + pe - base - both, *values)


def causal_gate_share(runs, cfg):
    published, retrained = common_gains(runs, "EGA-1", "EGA-1-CAUSAL")
    caveat = (f"whole-validation gain on the {len(published)} seed{'s' if len(published) > 1 else ''} of both: published "
              f"gate {_signed(np.mean(list(published.values())))}, causal gate {_signed(np.mean(list(retrained.values())))}"
              if published else None)
    return causal_share(runs, "EGA-1", "EGA-1-CAUSAL"), caveat


def pushed_without_decay(runs, cfg):
    found = learned_parameters.morlet_runs(runs, "PE-MORLET-NODECAY")
    reference = learned_parameters.decay_only_reference("PE-MORLET-NODECAY", cfg)
    pushed = Estimate({s: learned_parameters.below_decay_only(a, reference) for s, a in found.items()},
                      resolution=SHARE_RESOLUTION)
    with_decay = learned_parameters.decay_only_reference("PE-MORLET", cfg)["stored_product"]
    return pushed, (f"with weight decay on, decay alone takes every pair's stored ωσ to "
                    f"{np.median(with_decay):.2f}, below the bound, with no data")


def below_bound_without_projection(runs, cfg):
    found = learned_parameters.morlet_runs(runs, "PE-MORLET-FREE")
    reference = learned_parameters.decay_only_reference("PE-MORLET-FREE", cfg)
    shift = Estimate({s: float(np.median(learned_parameters.stored_product(a) - reference["stored_product"]))
                      for s, a in found.items()})
    if not found:
        return shift, None
    median = np.median(np.concatenate([learned_parameters.stored_product(a) for a in found.values()]))
    return shift, f"median ωσ {median:.2f}; decay alone {np.median(reference['stored_product']):.2f}"


def data_share_of_sigma(runs: list[dict], variant: str, cfg: TrainConfig) -> Estimate:
    """Seed by seed, the median over pairs of how much of σ's way from its initial value (in log) the
    data account for: the distance of log σ from log σ(decay alone) over its distance from log σ(initial),
    σ as the forward uses it."""
    found = learned_parameters.morlet_runs(runs, variant)
    reference = learned_parameters.decay_only_reference(variant, cfg)
    start = learned_parameters.initial_effective(variant, cfg)["sigma"]

    def share(arrays):
        travelled = np.abs(np.log(arrays["sigma"] / start))
        by_data = np.abs(np.log(arrays["sigma"] / reference["sigma"]))
        moved = travelled > 1e-9
        return float(np.median(by_data[moved] / travelled[moved])) if moved.any() else 0.0

    return Estimate({s: share(a) for s, a in found.items()}, resolution=SHARE_RESOLUTION)


def sigma_set_by_data(runs, cfg):
    found = learned_parameters.morlet_runs(runs, "EGA-MORLET")
    estimate = data_share_of_sigma(runs, "EGA-MORLET", cfg)
    if not found:
        return estimate, None
    reference = learned_parameters.decay_only_reference("EGA-MORLET", cfg)
    sigma = np.concatenate([a["sigma"] for a in found.values()])
    return estimate, (f"learned σ in [{sigma.min():.2f}, {sigma.max():.2f}]; decay alone, with no data, "
                      f"[{reference['sigma'].min():.2f}, {reference['sigma'].max():.2f}]")


def extrapolation(runs, cfg):
    growth = per_seed(lambda long, short: long - short, context_values(runs, "PE-MORLET", "4x"),
                      context_values(runs, "PE-MORLET", "1x"))
    nope = per_seed(lambda long, short: long - short, context_values(runs, "NOPE", "4x"),
                    context_values(runs, "NOPE", "1x"))
    return growth, (f"NOPE, with no position at all, rises {_signed(nope.mean)}" if nope.n else None)


def budget_gap_change(worse: str, better: str, grows: bool) -> Callable:
    """Unpaired across the two budgets (their seeds share no batches): [L(worse) − L(better)] on the whole
    validation split with more tokens minus with fewer (``grows``), or with fewer minus with more; Welch."""
    def measure(fewer, more):
        at_fewer, at_more = (paired(runs, worse, better, "val_loss_full").values for runs in (fewer, more))
        first, second = (at_more, at_fewer) if grows else (at_fewer, at_more)
        caveat = (f"{worse} − {better}: {_signed(statistics.fmean(at_fewer.values()))} with fewer tokens (n = "
                  f"{len(at_fewer)}), {_signed(statistics.fmean(at_more.values()))} with more (n = {len(at_more)})"
                  if at_fewer and at_more else None)
        return UnpairedDifference(first, other=second), caveat
    return measure


def with_more_tokens(measure: Measure) -> Callable:
    """A measure of one preset, read on the budget twin with more tokens."""
    return lambda fewer, more: measure(more, None)


def gap_change(worse: str, better: str) -> Measure:
    """Seed by seed, L(worse) − L(better) at the longer context minus at the shorter: positive = the gap
    in ``better``'s favour grows with the context. The pairing by seed is the test fixed before the runs; the
    caveat gives beside it the unpaired (Welch) difference over every seed of each context, and its p-value."""
    def on_common_seeds(short, long, first, second) -> tuple[Estimate, Estimate]:
        at_short, at_long = paired(short, first, second).values, paired(long, first, second).values
        seeds = common_seeds(at_short, at_long)
        return Estimate({s: at_short[s] for s in seeds}), Estimate({s: at_long[s] for s in seeds})

    def measure(short, long):
        at_short, at_long = on_common_seeds(short, long, worse, better)
        nope_short, nope_long = on_common_seeds(short, long, "NOPE", "BASE-DOT")
        caveat = (f"{worse} − {better}: {_signed(at_short.mean)} at the shorter context, {_signed(at_long.mean)} at "
                  f"the longer (n = {at_short.n} seed{'s' if at_short.n > 1 else ''} trained at both)" if at_short.n else None)
        unpaired = UnpairedDifference(paired(long, worse, better).values, other=paired(short, worse, better).values)
        if caveat and unpaired.n > 1:
            caveat += (f"; unpaired over every seed (Welch, n = {len(unpaired.values)}+{len(unpaired.other)}): "
                       f"{_signed(unpaired.mean)}, p = {p_value(unpaired, 0.0):.2g} (the paired test is the one fixed "
                       f"before the runs)")
        if caveat and nope_short.n:
            caveat += (f"; no positions at all (NOPE − BASE-DOT): {_signed(nope_short.mean)}, "
                       f"{_signed(nope_long.mean)}")
        return per_seed(lambda b, a: b - a, at_long.values, at_short.values), caveat
    return measure
