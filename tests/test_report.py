"""mope.report: the statistics and verdicts behind chapters 3-5, on synthetic result records."""
import math

import numpy as np
import pytest

pd = pytest.importorskip("pandas")

from mope import report  # noqa: E402
from mope.positional.morlet import initial_morlet_parameters  # noqa: E402


def record(variant, seed, val, full=None, by_context=None, causal=None, learned=None):
    return {
        "schema": 1, "variant": variant, "preset": "smoke", "seed": seed, "config_hash": "x",
        "provenance": {"git_commit": "0123456789abcdef", "git_dirty": False, "device": "cpu: test",
                       "wall_time_s": 10.0, "tokens_per_s": 1.0, "torch": "t", "python": "p",
                       "started": "s", "finished": "f", "world_size": 1},
        "num_parameters": 1, "history": [{"step": 0, "lr": 0.0, "train_loss": 4.0, "val_loss": 4.0},
                                         {"step": 10, "lr": 0.0, "train_loss": val, "val_loss": val}],
        "train_curve": [[0, 4.0], [10, val]],
        "final": {"val_loss": val, "train_loss": val, "val_loss_full": full if full is not None else val,
                  "val_loss_full_by_context": by_context, "extrapolation_note": None,
                  "val_loss_full_causal_stats": causal},
        "learned": learned or {},
    }


def test_estimate_mean_sd_and_noise_fallback():
    one = report.estimate([1.0])
    assert one.n == 1 and math.isnan(one.sd) and one.noise == report.PAPER_NOISE
    two = report.estimate({0: 1.0, 1: 3.0})
    assert two.mean == 2.0 and two.sd == pytest.approx(math.sqrt(2))
    assert report.estimate({0: 1.0, 1: 1.0}).noise == report.RESOLUTION  # never below the resolution
    assert report.Estimate().format() == report.NOT_RUN


def test_paired_difference_uses_common_seeds_only():
    records = [record("A", 0, 2.0), record("A", 1, 2.1), record("B", 0, 1.5), record("B", 2, 9.0)]
    delta = report.paired(records, "A", "B")
    assert delta.values == {0: pytest.approx(0.5)}


@pytest.mark.parametrize("values, expected", [
    ({0: 0.10, 1: 0.11, 2: 0.09}, 1),     # large and consistent
    ({0: -0.10, 1: -0.11, 2: -0.09}, -1),
    ({0: 0.10, 1: -0.10, 2: 0.02}, 0),    # within noise
])
def test_significance(values, expected):
    assert report.significance(report.estimate(values)) == expected
    assert report.significance(report.Estimate()) is None


def test_claim_verdict_words():
    assert report.claim_verdict(report.estimate([0.1, 0.11, 0.12])) == "supported"
    assert report.claim_verdict(report.estimate([-0.1, -0.11, -0.12])) == "contradicted"
    assert report.claim_verdict(report.estimate([0.1, -0.1])).startswith("not supported")


def test_interaction_excess_is_the_2x2_contrast():
    vals = {"BASE-DOT": 1.50, "EGA-1": 1.40, "PE-MORLET": 1.55, "EGA-MORLET": 1.38}
    records = [record(v, s, x + 0.001 * s) for v, x in vals.items() for s in (0, 1)]
    est = report.interaction_estimates(records)
    expected = vals["EGA-1"] + vals["PE-MORLET"] - vals["BASE-DOT"] - vals["EGA-MORLET"]
    assert est["excess"].mean == pytest.approx(expected)
    assert est["sum"].mean == pytest.approx(est["gate"].mean + est["pe"].mean)
    frame = report.table4_frame(records)
    assert list(frame.index) == [row[0] for row in report.PAPER_TABLE_4]


def test_table2_frame_marks_missing_variants():
    records = [record("BASE-DOT", 0, 1.5), record("BASE-DOT", 1, 1.52),
               record("PE-MORLET", 0, 1.6), record("PE-MORLET", 1, 1.61)]
    frame = report.table2_frame(records)
    assert frame.loc["PE-SINCOS", "ours val"] == report.NOT_RUN
    assert frame.loc["PE-MORLET", "ours Δ"].startswith("-0.0950")
    assert frame.loc["PE-ROPE", "paper Δ"] == pytest.approx(0.011)
    assert "0123456" in frame.loc["BASE-DOT", "provenance"]


def morlet_learned(omega, sigma):
    return {"morlet": {"omega": list(omega), "sigma": list(sigma), "omega_raw": list(omega),
                       "sigma_raw": list(sigma), "centre": None}}


def test_boundary_fraction_and_quartiles():
    omega0, sigma0 = (t.numpy() for t in initial_morlet_parameters(16))
    sigma = sigma0 * 0.95
    omega = 5.0 / sigma
    omega[:4] *= 1.1  # four pairs off the boundary
    records = [record("PE-MORLET", 0, 1.5, learned=morlet_learned(omega, sigma))]
    frame = report.boundary_frame(records, ["PE-MORLET", "PE-MORLET-FREE"])
    assert frame.loc["PE-MORLET", "on boundary (mean)"] == "75.0%"
    assert frame.loc["PE-MORLET-FREE", "on boundary (mean)"] == report.NOT_RUN
    quartiles = report.quartile_frame(omega, sigma)
    assert list(quartiles.index) == ["0–3", "4–7", "8–11", "12–15"]


def test_extrapolation_frame_learned_table_is_na():
    ctx = {"1x": 1.5, "2x": 1.6, "4x": 1.7}
    records = [record("BASE-DOT", 0, 1.5, by_context={"1x": 1.5, "2x": None, "4x": None}),
               record("PE-SINCOS", 0, 1.5, by_context=ctx), record("PE-SINCOS", 1, 1.5, by_context=ctx)]
    frame = report.extrapolation_frame(records, ["BASE-DOT", "PE-SINCOS", "NOPE"])
    assert frame.loc["BASE-DOT", "4x"] == "n/a"
    assert frame.loc["PE-SINCOS", "verdict"].startswith("degrades")
    assert frame.loc["NOPE", "1x"] == report.NOT_RUN


def test_paper_claims_survive_an_empty_store():
    rows = report.paper_claims([], "smoke")
    assert len(rows) >= 10
    assert all(r["verdict"] == report.NOT_RUN for r in rows)


def test_future_token_sensitivity_separates_published_and_causal_gate():
    from mope.config import GPTConfig

    shape = GPTConfig(n_layer=1, n_head=2, n_embd=16, block_size=16, dropout=0.0)
    published = report.future_token_sensitivity("EGA-1", shape, position=5, offset=5, trials=2)
    causal = report.future_token_sensitivity("EGA-1-CAUSAL", shape, position=5, offset=5, trials=2)
    assert published[1:10].max() > 0
    assert np.all(causal[:10] == 0)
