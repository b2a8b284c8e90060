"""mope.evidence.estimates: per-seed quantities, paired by seed, summarised as mean, sd, n and a 95% interval."""
import math
import statistics

import numpy as np
import pytest

from mope.evidence.estimates import (DASH, Estimate, decision_power, distance_to_paper, estimate, improvement, paired,
                                     per_seed, plausible_sds, seeds_needed, seeds_range,
                                     summary, t_quantile)
from synthetic_runs import run


def test_mean_sd_and_interval_over_seeds():
    three = estimate({0: 0.10, 1: 0.12, 2: 0.14})
    assert three.n == 3 and three.mean == pytest.approx(0.12) and three.sd == pytest.approx(0.02)
    half = 4.3027 * 0.02 / math.sqrt(3)
    assert three.interval == pytest.approx((0.12 - half, 0.12 + half), abs=1e-5)
    ninety = 2.9200 * 0.02 / math.sqrt(3)
    assert three.interval_at(0.90) == pytest.approx((0.12 - ninety, 0.12 + ninety), abs=1e-5)


def test_one_seed_has_a_mean_but_no_spread_or_interval_and_none_has_nothing():
    one = estimate([0.3])
    assert one.mean == 0.3 and one.sd is None and one.interval is None
    assert Estimate().mean is None and Estimate().format() == DASH


def test_the_spread_is_never_taken_below_the_resolution():
    same = estimate({0: 0.5, 1: 0.5})
    assert same.sd == 0 and same.interval == pytest.approx((0.5 - 12.706 * 1e-3 / math.sqrt(2),
                                                            0.5 + 12.706 * 1e-3 / math.sqrt(2)), abs=1e-6)


def test_t_quantiles_are_students_for_every_degree_of_freedom():
    assert t_quantile(1) == pytest.approx(12.706, abs=1e-3) and t_quantile(2) == pytest.approx(4.303, abs=1e-3)
    assert t_quantile(40) == pytest.approx(2.021, abs=1e-3)  # not the normal 1.96 past 30 degrees of freedom
    assert t_quantile(4, level=0.90) == pytest.approx(2.132, abs=1e-3)
    with pytest.raises(ValueError):
        t_quantile(0)


def test_seeds_needed_grows_with_the_spread_and_shrinks_with_the_distance():
    assert seeds_needed(0.01, 0.10) <= 3
    assert seeds_needed(0.05, 0.106) < seeds_needed(0.05, 0.05) < seeds_needed(0.10, 0.05)
    assert seeds_needed(0.5, 0.01) is None and seeds_needed(0.1, 0.0) is None
    assert seeds_needed(0.02, 0.03, low=-0.02, high=0.02, level=0.90) is None  # outside the band: never inside


def simulated_power(n, sd, mean, low, high, level, draws=20_000):
    """How often the ``level`` interval of n normal seeds lies inside (low, high): fixed RNG, 20,000 draws."""
    rng = np.random.default_rng(20260601)
    seeds = rng.normal(mean, sd, size=(draws, n))
    centre, half = seeds.mean(axis=1), t_quantile(n - 1, level) * seeds.std(axis=1, ddof=1) / math.sqrt(n)
    return float(np.mean((centre - half > low) & (centre + half < high)))


@pytest.mark.parametrize("sd, mean, low, high, level, expected", [
    (0.02, 0.005, -0.02, 0.02, 0.90, 13),  # a near-equality (two one-sided tests at 5%: the 90% interval in ±0.02)
    (0.018, 0.032, 0.0, math.inf, 0.95, 5),  # an ordering: the 95% interval above 0
    (0.027, 0.026, 0.0, math.inf, 0.95, None),  # computed below
])
def test_seeds_needed_reaches_80_percent_power_in_simulation_and_one_seed_fewer_does_not(sd, mean, low, high, level,
                                                                                           expected):
    n = seeds_needed(sd, mean, low, high, level)
    if expected is not None:
        assert n == expected
    assert simulated_power(n, sd, mean, low, high, level) >= 0.80 - 0.01  # 20,000 draws: ±0.006 (2 se)
    assert simulated_power(n - 1, sd, mean, low, high, level) < 0.80 - 0.01
    assert decision_power(n, sd, mean, low, high, level) == pytest.approx(
        simulated_power(n, sd, mean, low, high, level), abs=0.01)


def test_the_seeds_needed_range_spans_the_sds_three_seeds_leave_plausible():
    small, large = plausible_sds(0.018, 3)  # the 80% interval of the sd from 2 degrees of freedom
    assert small == pytest.approx(0.018 * math.sqrt(2 / 4.605), rel=1e-3)
    assert large == pytest.approx(0.018 * math.sqrt(2 / 0.2107), rel=1e-3)
    assert seeds_range(0.018, 3, 0.032) == (seeds_needed(small, 0.032), seeds_needed(large, 0.032))
    low, high = seeds_range(0.018, 3, 0.032)
    assert low < seeds_needed(0.018, 0.032) < high  # "5 seeds" rests on an sd from 3 seeds: 4 to 24
    assert (low, high) == (4, 26)  # exact power (the audit's normal approximation gave 4 to 24)
    assert plausible_sds(0.0001, 3)[0] == 1e-3  # never below the resolution


def test_format_shows_sign_spread_and_n():
    assert estimate({0: 0.016, 1: 0.010, 2: 0.022}).format(signed=True) == "+0.016 ± 0.006 (n=3)"
    assert estimate([-0.1]).format(signed=True) == "-0.100 (n=1)"


def test_differences_are_paired_on_the_seeds_both_models_have():
    runs = [run("A", 0, 2.0), run("A", 1, 2.1), run("B", 0, 1.5), run("B", 2, 9.0)]
    assert paired(runs, "A", "B").values == {0: pytest.approx(0.5)}
    assert improvement(runs, "B", baseline="A").values == {0: pytest.approx(0.5)}
    assert per_seed(lambda a, b, c: a + b + c, {0: 1, 1: 2}, {0: 1}, {0: 1, 2: 5}).values == {0: 3.0}


def test_distance_to_paper_is_taken_seed_by_seed_for_the_variants_with_runs():
    runs = [run("BASE-DOT", 0, 1.4742 + 0.010), run("BASE-DOT", 1, 1.4742 + 0.020), run("EGA-1", 0, 1.3821 - 0.005)]
    distances = distance_to_paper(runs)
    assert set(distances) == {"BASE-DOT", "EGA-1"}  # the other four have no runs
    assert distances["BASE-DOT"].values == pytest.approx({0: 0.010, 1: 0.020})
    assert distances["EGA-1"].mean == pytest.approx(-0.005) and distances["EGA-1"].n == 1
    assert distance_to_paper(runs, ["PE-ROPE"]) == {}


def test_summary_gives_each_variants_final_losses_over_its_seeds_in_the_order_of_the_runs():
    runs = ([run("EGA-1", s, v, full=v + 0.01) for s, v in enumerate([1.0, 2.0, 3.0])]
            + [run("NOPE", 0, 4.0), run("BASE-DOT", 5, 2.5, full=None)])
    found = summary(runs)
    assert list(found) == ["EGA-1", "NOPE", "BASE-DOT"]
    ega = found["EGA-1"]
    assert (ega["val_loss"].n, ega["val_loss"].mean, ega["val_loss"].sd) == (3, 2.0, 1.0)
    assert ega["val_loss_full"].mean == pytest.approx(2.01) and ega["val_loss_full"].format(decimals=4) == "2.0100 ± 1.0000 (n=3)"
    assert (found["NOPE"]["val_loss"].mean, found["NOPE"]["val_loss"].sd) == (4.0, None)
    assert dict(found["BASE-DOT"]["val_loss"].values) == {5: 2.5}


def test_fiellers_interval_of_a_share_reduces_to_the_numerators_with_a_known_denominator_and_widens_with_its_noise():
    """Issue 54: MoPE's causal-gate share (126%, 99-154%) treated its denominator, a measured gain, as known; Fieller's
    interval counts both (90-191% on cpu-long)."""
    from mope.evidence.estimates import fieller_interval, t_quantile

    x = {0: 0.05, 1: 0.07, 2: 0.06, 3: 0.08}
    known = {seed: 0.05 for seed in x}
    mean, sd = statistics.fmean(x.values()), statistics.stdev(x.values())
    half = t_quantile(3) * sd / 2
    assert fieller_interval(x, known) == pytest.approx(((mean - half) / 0.05, (mean + half) / 0.05))
    noisy = {0: 0.05, 1: 0.04, 2: 0.06, 3: 0.05}  # the same mean, measured with noise
    low, high = fieller_interval(x, noisy)
    assert low < (mean - half) / 0.05 and high > (mean + half) / 0.05 and low < mean / 0.05 < high
    assert fieller_interval(x, {0: 0.05, 1: -0.05, 2: 0.04, 3: -0.04}) is None  # a gain that may be 0: no bound
