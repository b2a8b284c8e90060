r"""Estimates over seeds: the numbers every table, figure and verdict of the reproduction chapters
is built from.

This module owns three things and nothing else:

* **reading runs**: result dictionaries of :mod:`mope.store.results` grouped by variant, and a variant's
  final numbers seed by seed (:func:`by_variant`, :func:`final_values`, :func:`context_values`), and
  every variant's final losses at once (:func:`summary`, what ``python -m mope table`` prints);
* **pairing by seed**: a difference between two models is taken seed by seed, because every model
  of seed $s$ saw the same training and evaluation batches (:func:`paired`, :func:`per_seed`, and
  over the evaluations of training, :func:`gap_curve`);
* **the estimate** of such a per-seed quantity: mean, sample sd, n, and the 95% confidence interval
  of the mean, $\bar x \pm t_{0.975,\,n-1}\,s/\sqrt n$ (:class:`Estimate`), and the seeds an
  undecided effect would need, in all, for 80% power (:func:`seeds_needed`, computed exactly by
  :func:`decision_power`, with the range :func:`seeds_range` over the sds its seeds leave plausible). With one seed there is no spread and no interval;
  with none, no mean.

scipy (Student's t) is imported only where an interval or a seed count is computed, so that the
summary of a store also works on a machine without it (the bare GPU image, an install without the extra
"evidence"); an interval asked for there is a :class:`~mope.errors.MissingExtraError` naming that extra.

Verdicts are :mod:`mope.evidence.claims`; formatting for the book is :mod:`mope.book.tables`.
"""
from __future__ import annotations

import functools
import math
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from mope.errors import optional_import
from mope.evidence import paper
from mope.model.variants import TABLE_2

RESOLUTION = 1e-3  # nats: numbers are shown to this precision, and no spread is taken below it
SHARE_RESOLUTION = 0.01  # the same for a share or a ratio (of a gain, of the pairs, in σ): a hundredth
DASH = "—"

LEVEL = 0.95  # the confidence level of every interval the book shows


def scipy_stats():
    """``scipy.stats``, which the intervals, tests and seed counts need (mope's extra "evidence")."""
    return optional_import("scipy.stats", "the evidence (its intervals, tests and seed counts)")


def t_quantile(degrees_of_freedom: float, level: float = LEVEL) -> float:
    """The two-sided ``level`` quantile of Student's t (scipy.stats) for ``degrees_of_freedom`` >= 1 (Welch's
    are not whole numbers)."""
    if degrees_of_freedom < 1:
        raise ValueError(f"a t interval needs at least 1 degree of freedom, got {degrees_of_freedom}")
    stats = scipy_stats()

    return float(stats.t.ppf(0.5 + level / 2, degrees_of_freedom))


# --- reading runs -----------------------------------------------------------------------------------

def by_variant(runs: Iterable[dict]) -> dict[str, list[dict]]:
    """{variant: its runs, sorted by seed}."""
    grouped: dict[str, list[dict]] = {}
    for run in runs:
        grouped.setdefault(run["variant"], []).append(run)
    return {variant: sorted(group, key=lambda r: r["seed"]) for variant, group in grouped.items()}


def final_values(runs: Iterable[dict], variant: str, key: str = "val_loss") -> dict[int, float]:
    """{seed: final[key]} of one variant; a missing or null entry is left out."""
    values = {}
    for run in runs:
        if run["variant"] == variant and run["final"].get(key) is not None:
            values[run["seed"]] = float(run["final"][key])
    return values


def context_values(runs: Iterable[dict], variant: str, context: str) -> dict[int, float]:
    """{seed: whole-validation loss at ``context`` ("1x", "2x", "4x") times the training context}."""
    values = {}
    for run in runs:
        by_context = run["final"].get("val_loss_full_by_context") or {}
        if run["variant"] == variant and by_context.get(context) is not None:
            values[run["seed"]] = float(by_context[context])
    return values


def history(runs: Iterable[dict], variant: str) -> dict[int, dict[int, float]]:
    """{seed: {step: random-batch validation loss}} from the stored evaluation histories."""
    return {r["seed"]: {h["step"]: h["val_loss"] for h in r["history"] if h.get("val_loss") is not None}
            for r in by_variant(runs).get(variant, [])}


def gap_curve(runs: Iterable[dict], variant: str, baseline: str = "BASE-DOT") -> dict[int, list[float]]:
    """{step: per-seed L(baseline) − L(variant)} at every evaluation both runs of a seed made."""
    runs = list(runs)
    base, other = history(runs, baseline), history(runs, variant)
    gaps: dict[int, list[float]] = {}
    for seed in sorted(set(base) & set(other)):
        for step in sorted(set(base[seed]) & set(other[seed])):
            gaps.setdefault(step, []).append(base[seed][step] - other[seed][step])
    return gaps


def tokens_per_step(run: dict) -> int:
    """The tokens one optimizer step of ``run`` reads: its stored batch size times its context."""
    train = run["config"]["train"]
    return int(train["batch_size"]) * int(train["block_size"])


def gap_by_tokens(runs: Iterable[dict], variant: str, baseline: str = "BASE-DOT") -> dict[int, list[float]]:
    """:func:`gap_curve` keyed by the tokens seen (step × batch × context, from the stored configurations),
    without step 0; every run of ``runs`` must read the same tokens a step."""
    runs = list(runs)
    sizes = {tokens_per_step(r) for r in runs if r["variant"] in (variant, baseline)}
    if len(sizes) > 1:
        raise ValueError(f"the runs read different tokens a step ({sorted(sizes)}): pass one preset's runs")
    return {step * size: gaps for size in sizes for step, gaps in gap_curve(runs, variant, baseline).items() if step}


# --- the estimate -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Estimate:
    """A per-seed quantity ``values`` {seed: x} summarised over seeds.

    ``resolution`` is the smallest spread taken seriously (two seeds can agree to the fifth decimal by
    chance): the interval uses ``max(sd, resolution)``.
    """

    values: Mapping[int, float] = field(default_factory=dict)
    resolution: float = RESOLUTION

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float | None:
        return statistics.fmean(self.values.values()) if self.values else None

    @property
    def sd(self) -> float | None:
        """Sample standard deviation over seeds (None below two seeds)."""
        return statistics.stdev(self.values.values()) if self.n > 1 else None

    @property
    def spread(self) -> float | None:
        """The sd the intervals use: the sample sd, but at least ``resolution`` (None below two seeds)."""
        return None if self.n < 2 else max(self.sd, self.resolution)

    @property
    def interval(self) -> tuple[float, float] | None:
        """95% confidence interval of the mean over seeds (None below two seeds)."""
        return self.interval_at(LEVEL)

    @property
    def standard_error(self) -> float | None:
        """The standard error of the mean, spread / √n (None below two seeds)."""
        return None if self.n < 2 else self.spread / math.sqrt(self.n)

    @property
    def degrees_of_freedom(self) -> float:
        return self.n - 1

    def interval_at(self, level: float) -> tuple[float, float] | None:
        """Two-sided ``level`` confidence interval of the mean (t with :attr:`degrees_of_freedom`)."""
        if self.n < 2:
            return None
        half = t_quantile(self.degrees_of_freedom, level) * self.standard_error
        return self.mean - half, self.mean + half

    def format(self, decimals: int = 3, signed: bool = False) -> str:
        """"+0.016 ± 0.006 (n=3)", "+0.016 (n=1)", or a dash when there is nothing; the ± is the sd the
        interval uses (:attr:`spread`: never below the resolution)."""
        if not self.n:
            return DASH
        sign = "+" if signed else ""
        spread = f" ± {self.spread:.{decimals}f}" if self.n > 1 else ""
        return f"{self.mean:{sign}.{decimals}f}{spread} (n={self.n})"


@dataclass(frozen=True)
class UnpairedDifference(Estimate):
    r"""mean(``values``) − mean(``other``) of two independent groups of seeds (runs of two presets, whose
    seeds share nothing), with Welch's interval: standard error $\sqrt{s_1^2/n_1 + s_2^2/n_2}$ (each sd at
    least ``resolution``), degrees of freedom by Welch–Satterthwaite. :attr:`n` is the smaller group, and
    :attr:`spread` the sd of a difference of two seeds, $\sqrt{n}$ times the standard error, so that
    :func:`seeds_needed` counts the seeds each group would need."""

    other: Mapping[int, float] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return min(len(self.values), len(self.other))

    @property
    def mean(self) -> float | None:
        return statistics.fmean(self.values.values()) - statistics.fmean(self.other.values()) if self.n else None

    @property
    def sd(self) -> float | None:
        return None if self.n < 2 else self.standard_error * math.sqrt(self.n)

    def _group_variances(self) -> tuple[float, float]:
        return tuple(max(statistics.stdev(group.values()), self.resolution) ** 2 / len(group)
                     for group in (self.values, self.other))

    @property
    def spread(self) -> float | None:
        return self.sd

    @property
    def standard_error(self) -> float | None:
        return None if self.n < 2 else math.sqrt(sum(self._group_variances()))

    @property
    def degrees_of_freedom(self) -> float:
        first, second = self._group_variances()
        return (first + second) ** 2 / (first ** 2 / (len(self.values) - 1) + second ** 2 / (len(self.other) - 1))

    def format(self, decimals: int = 3, signed: bool = False) -> str:
        """"+0.016 ± 0.006 (n=5+3)": the ± is :attr:`spread`, n the seeds of each group."""
        if not self.n:
            return DASH
        spread = f" ± {self.spread:.{decimals}f}" if self.n > 1 else ""
        return f"{self.mean:{'+' if signed else ''}.{decimals}f}{spread} (n={len(self.values)}+{len(self.other)})"


def fieller_interval(numerator: Mapping[int, float], denominator: Mapping[int, float],
                     level: float = LEVEL) -> tuple[float, float] | None:
    r"""Fieller's ``level`` interval for the ratio of the means of two paired samples, {seed: value} each (a share
    of a gain, seed by seed): every $R$ with $(\bar x - R\bar y)^2 \le t^2\,\mathrm{Var}(\bar x - R\bar y)$. Unlike
    an interval of $x_s/\bar y$, it counts the uncertainty of the denominator. None where the seeds do not bound
    the ratio (the denominator's own interval reaches 0) or fewer than two are shared."""
    import numpy as np

    seeds = common_seeds(numerator, denominator)
    if len(seeds) < 2:
        return None
    x, y = (np.array([values[s] for s in seeds]) for values in (numerator, denominator))
    n, t = len(seeds), t_quantile(len(seeds) - 1, level)
    covariance = np.cov(x, y, ddof=1) / n
    a = y.mean() ** 2 - t ** 2 * covariance[1, 1]
    b = x.mean() * y.mean() - t ** 2 * covariance[0, 1]
    c = x.mean() ** 2 - t ** 2 * covariance[0, 0]
    discriminant = b * b - a * c
    if a <= 0 or discriminant < 0:
        return None
    root = math.sqrt(discriminant)
    return (b - root) / a, (b + root) / a


POWER = 0.80  # the power at which seeds_needed decides a claim
MOST_SEEDS = 50  # seeds_needed looks no further
SD_RANGE = 0.80  # the confidence of the range of plausible sds that seeds_range spans


@functools.lru_cache(maxsize=None)
def _sd_ratios(df: int, bins: int):
    r"""$\sqrt{\chi^2_{df}/df}$ at ``bins`` equally likely quantiles (read-only): the sample sd over the true
    one, which :func:`decision_power` averages over (the same for every claim with ``df``)."""
    import numpy as np
    stats = scipy_stats()

    ratios = np.sqrt(stats.chi2.ppf((np.arange(bins) + 0.5) / bins, df) / df)
    ratios.setflags(write=False)
    return ratios


def decision_power(n: int, sd: float, mean: float, low: float = 0.0, high: float = math.inf,
                   level: float = LEVEL, bins: int = 4000) -> float:
    r"""The probability that the two-sided ``level`` interval of the mean of ``n`` seeds lies inside
    (``low``, ``high``) when the seeds are normal with mean ``mean`` and sd ``sd``: the decision a verdict
    makes. ``high`` = ∞: an effect above ``low`` (one one-sided test); both finite: inside a band (two
    one-sided tests, the 90% interval for tests at 5% each).

    Exact up to quadrature: given the sample sd $s$, the interval $\bar x \pm t\,s/\sqrt n$ lies inside when
    $\bar x \in (\text{low} + t s/\sqrt n,\ \text{high} - t s/\sqrt n)$, a normal probability; averaged
    over $s = \text{sd}\sqrt{\chi^2_{n-1}/(n-1)}$ at ``bins`` equally likely quantiles."""
    import numpy as np
    stats = scipy_stats()

    df = n - 1
    t = t_quantile(df, level)
    s = sd * _sd_ratios(df, bins)
    half, error = t * s / math.sqrt(n), sd / math.sqrt(n)
    inside_high = stats.norm.cdf((high - half - mean) / error) if math.isfinite(high) else 1.0
    inside_low = stats.norm.cdf((low + half - mean) / error) if math.isfinite(low) else 0.0
    return float(np.mean(np.clip(inside_high - inside_low, 0.0, None)))


@functools.lru_cache(maxsize=4096)  # a pure function of numbers; a page judges the same runs several times
def seeds_needed(spread: float, mean: float, low: float = 0.0, high: float = math.inf, level: float = LEVEL,
                 power: float = POWER) -> int | None:
    """The fewest seeds **in all** (not more seeds) for which an effect of true mean ``mean`` and sd ``spread``
    over seeds is decided, with probability ``power``, by its two-sided ``level`` interval lying inside
    (``low``, ``high``) (:func:`decision_power`): above a boundary (``high`` = ∞), below one (``low`` = −∞),
    or inside a band (two one-sided tests: ``level`` 0.90, both edges). None beyond :data:`MOST_SEEDS`, or
    when ``mean`` is not inside (``low``, ``high``) (no number of seeds decides it that way)."""
    if not low < mean < high:
        return None
    return next((n for n in range(2, MOST_SEEDS + 1)
                 if decision_power(n, spread, mean, low, high, level) >= power), None)


def plausible_sds(spread: float, n: int, resolution: float = RESOLUTION,
                  confidence: float = SD_RANGE) -> tuple[float, float]:
    r"""The range of sds that ``spread``, measured on ``n`` seeds, leaves plausible: its two-sided
    ``confidence`` interval, $s\sqrt{(n-1)/\chi^2_{(1\pm c)/2,\,n-1}}$ (normal seeds), the lower end at
    least ``resolution``."""
    stats = scipy_stats()

    df = n - 1
    upper_q, lower_q = stats.chi2.ppf([(1 + confidence) / 2, (1 - confidence) / 2], df)
    return max(spread * math.sqrt(df / upper_q), resolution), spread * math.sqrt(df / lower_q)


def seeds_range(spread: float, n: int, mean: float, low: float = 0.0, high: float = math.inf,
                level: float = LEVEL, resolution: float = RESOLUTION) -> tuple[int | None, int | None]:
    """:func:`seeds_needed` at the two ends of :func:`plausible_sds`: the seeds in all that would decide
    the effect if its sd were as small, or as large, as ``n`` seeds leave plausible (None: more than
    :data:`MOST_SEEDS`)."""
    small, large = plausible_sds(spread, n, resolution)
    return (seeds_needed(small, mean, low, high, level), seeds_needed(large, mean, low, high, level))


def common_seeds(*value_maps: Mapping[int, float]) -> list[int]:
    """The seeds every one of ``value_maps`` ({seed: x}) has, in order."""
    return sorted(set.intersection(*(set(m) for m in value_maps))) if value_maps else []


def per_seed(function: Callable[..., float], *value_maps: Mapping[int, float],
             resolution: float = RESOLUTION) -> Estimate:
    """``function(a[s], b[s], ...)`` for every seed ``s`` that every map has."""
    seeds = common_seeds(*value_maps)
    return Estimate({s: float(function(*(m[s] for m in value_maps))) for s in seeds}, resolution)


def estimate(values: Mapping[int, float] | Iterable[float], resolution: float = RESOLUTION) -> Estimate:
    """An :class:`Estimate` of {seed: x} (or of a plain list, numbered from 0)."""
    if not isinstance(values, Mapping):
        values = dict(enumerate(values))
    return Estimate({int(k): float(v) for k, v in values.items()}, resolution)


def loss(runs: Iterable[dict], variant: str, key: str = "val_loss") -> Estimate:
    return Estimate(final_values(runs, variant, key))


def summary(runs: Iterable[dict], keys: Sequence[str] = ("val_loss", "val_loss_full")) -> dict[str, dict[str, Estimate]]:
    """{variant: {key: :func:`loss` of ``final[key]`` over its seeds}} for every variant with runs, in
    the order of their first run."""
    grouped = by_variant(runs)
    return {variant: {key: loss(group, variant, key) for key in keys} for variant, group in grouped.items()}


def distance_to_paper(runs: Iterable[dict], variants: Iterable[str] = TABLE_2) -> dict[str, Estimate]:
    """{variant: our loss − the paper's Table 2 "Val", seed by seed} for those of ``variants`` with runs."""
    runs = list(runs)
    distances = {name: Estimate({seed: value - paper.TABLE_2_VAL[name]
                                 for seed, value in final_values(runs, name).items()}) for name in variants}
    return {name: distance for name, distance in distances.items() if distance.n}


def paired(runs: Iterable[dict], first: str, second: str, key: str = "val_loss") -> Estimate:
    """L(first) − L(second) seed by seed, over the seeds both have: positive = ``second`` is better."""
    runs = list(runs)
    return per_seed(lambda a, b: a - b, final_values(runs, first, key), final_values(runs, second, key))


def improvement(runs: Iterable[dict], variant: str, baseline: str = "BASE-DOT", key: str = "val_loss") -> Estimate:
    """The paper's Δ, seed by seed: L(baseline) − L(variant) (positive = better than the baseline)."""
    return paired(runs, baseline, variant, key)
