"""The introduction's figure of Table 2 on every scale (mope.book.gaps_figure): each mean, interval and paper's Δ
it draws is read back from the matplotlib artists and compared with the estimates and the paper's numbers; a
preset on subword tokens is left out, a model not run on a preset says so, and it reads at 9 pt on a phone."""
import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from mope.book import gaps_figure  # noqa: E402
from mope.evidence import estimates, paper  # noqa: E402
from mope.model.variants import TABLE_2  # noqa: E402
from synthetic_runs import run  # noqa: E402
from test_figures import check_fits_the_column  # noqa: E402

STORED = {
    "paper": [run(model, 0, 1.50 - 0.01 * i) for i, model in enumerate(TABLE_2)],
    "cpu": [run(model, seed, 1.60 - 0.02 * i + 0.003 * seed * (-1) ** i) for i, model in enumerate(TABLE_2)
            for seed in range(4)],
    "cpu-long-4x": [run(model, seed, 1.4 + 0.01 * seed + 0.02 * i) for i, model in enumerate(("BASE-DOT", "EGA-MORLET"))
                    for seed in range(3)],
    "cpu-bpe": [run(model, seed, 3.0 + 0.1 * seed) for model in ("BASE-DOT", "PE-MORLET") for seed in range(2)],
}


@pytest.fixture(scope="module")
def drawn():
    gaps = gaps_figure.table_2_gaps(STORED)
    presets = gaps_figure.character_presets(STORED)
    fig = gaps_figure.plot_table_2_gaps(gaps, presets)
    yield gaps, presets, fig, {ax.get_label(): ax for ax in fig.axes}
    matplotlib.pyplot.close(fig)


def gid(ax, name):
    return [line for line in ax.get_lines() if line.get_gid() == name]


def test_the_gaps_are_the_estimates_and_the_papers_delta_on_every_character_preset(drawn):
    gaps, presets, fig, panels = drawn
    assert presets == ["paper", "cpu-long-4x", "cpu"]  # the standing presets' order; cpu-bpe measures nats a token
    assert list(gaps) == list(TABLE_2[1:]) == list(panels)
    for model in TABLE_2[1:]:
        ax = panels[model]
        expected = {preset: estimates.improvement(STORED[preset], model) for preset in presets}
        expected = {preset: estimate for preset, estimate in expected.items() if estimate.n}
        assert set(gaps[model]) == set(expected)
        means = {presets[int(line.get_ydata()[0])]: line.get_xdata()[0] for line in gid(ax, "estimate")}
        assert means == pytest.approx({preset: estimate.mean for preset, estimate in expected.items()})
        intervals = {presets[int(line.get_ydata()[0])]: tuple(line.get_xdata()) for line in gid(ax, "interval")}
        assert intervals == {preset: estimate.interval for preset, estimate in expected.items() if estimate.n > 1}
        assert [line.get_xdata()[0] for line in gid(ax, "paper")] == [paper.TABLE_2_DELTA[model]]
        low, high = ax.get_xlim()
        assert all(low <= x <= high for line in gid(ax, "estimate") + gid(ax, "interval") + gid(ax, "paper")
                   for x in line.get_xdata())


def test_a_model_without_runs_on_a_preset_says_so_and_one_seed_is_a_hollow_point(drawn):
    gaps, presets, fig, panels = drawn
    assert [text.get_text() for text in panels["PE-ROPE"].texts].count("not run") == 1  # on cpu-long-4x
    assert "not run" not in [text.get_text() for text in panels["EGA-MORLET"].texts]
    one_seed = [line for line in gid(panels["EGA-MORLET"], "estimate") if line.get_ydata()[0] == 0]
    assert matplotlib.colors.to_hex(one_seed[0].get_markerfacecolor()) == "#ffffff"


def test_the_figure_reads_on_a_phone(drawn):
    check_fits_the_column(drawn[2])


def test_the_stored_runs_give_a_row_to_every_preset_that_holds_table_2s_models():
    from mope.store import results
    from mope.store.presets import STANDING_PRESETS

    stored = {preset: results.load_results(preset) for preset in STANDING_PRESETS}
    gaps = gaps_figure.table_2_gaps(stored)
    shown = {preset for found in gaps.values() for preset in found}
    holding = {preset for preset in gaps_figure.character_presets(stored) if {"BASE-DOT", "EGA-MORLET"}
               <= {r["variant"] for r in stored[preset]}}
    assert shown == holding and "paper" in shown


def test_without_stored_runs_the_figure_says_so():
    """A fresh checkout (the Colab notebook in the smoke preset) has no runs: the figure says so, it does not fail."""
    fig = gaps_figure.plot_table_2_gaps(gaps_figure.table_2_gaps({}), gaps_figure.character_presets({}))
    assert [text.get_text() for text in fig.texts] == ["no runs of Table 2's models are stored"]
    check_fits_the_column(fig)
