"""mope.book.reproduction_figures, learned_figures and stress_figures, drawn as mope.book.figure_style says: results figures that fit the text column, are paired by seed, and survive missing runs."""
import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402

from mope.evidence import learned_parameters, paper  # noqa: E402
from mope.book import figure_png, figure_style, learned_figures, reproduction_figures, stress_figures  # noqa: E402
from mope.model.variants import TABLE_2, VARIANTS  # noqa: E402
from mope.evidence.estimates import gap_curve  # noqa: E402
from synthetic_runs import decayed_morlet, run  # noqa: E402


def history(values):
    return [{"step": 10 * i, "lr": 0.0, "train_loss": v, "val_loss": v} for i, v in enumerate(values)]


def test_gap_curve_is_paired_by_seed_and_step():
    runs = [run("BASE-DOT", 0, 2.0, history=history([4.0, 2.5, 2.0])),
            run("BASE-DOT", 1, 2.0, history=history([4.0, 2.6, 2.1])),
            run("EGA-1", 0, 1.9, history=history([4.0, 2.4, 1.9])),
            run("EGA-1", 2, 1.0, history=history([1.0, 1.0, 1.0]))]  # seed 2 has no baseline
    gaps = gap_curve(runs, "EGA-1")
    assert gaps == {0: [0.0], 10: [pytest.approx(0.1)], 20: [pytest.approx(0.1)]}


def test_a_curve_far_off_the_others_is_named_not_scaled_to():
    assert reproduction_figures.far_off({"PE-SINCOS": -0.79, "PE-ROPE": 0.36, "NOPE": -0.02}) == {"PE-SINCOS"}
    assert reproduction_figures.far_off({"PE-SINCOS": -0.33, "PE-ROPE": 0.05, "EGA-1": 0.12, "PE-MORLET": -0.13}) == set()
    assert reproduction_figures.far_off({"PE-SINCOS": -0.05, "PE-ROPE": 0.04}) == set()
    assert reproduction_figures.far_off({"A": 0.05, "B": 0.001}) == set()  # both within a few hundredths of 0


SAVED_MARGIN = 0.1  # inches the notebook's inline backend adds around a figure's tight box (savefig.pad_inches)


def shown_fonts(fig, column_px=figure_style.PHONE_COLUMN_PX) -> dict[str, float]:
    """{text: its size in CSS points on a screen whose column is ``column_px`` wide}: the figure saved as a
    notebook saves it (its tight box, with a margin) at its dpi, a CSS inch being 96 px, shrunk to the column
    when wider, never enlarged."""
    canvas = FigureCanvasAgg(fig)  # a figure its function closed has lost its own
    canvas.draw()
    box = fig.get_tightbbox(canvas.get_renderer())
    width_px = (box.width + 2 * SAVED_MARGIN) * fig.dpi
    scale = min(1.0, column_px / width_px)
    return {text.get_text(): text.get_fontsize() * fig.dpi / 96 * scale
            for text in fig.findobj(matplotlib.text.Text) if text.get_text() and text.get_visible()}


def check_legible_on_a_phone(fig):
    """Every text of ``fig`` at least 9 pt as a 400 px phone shows it (and so on a wide screen)."""
    small = {text: round(size, 2) for text, size in shown_fonts(fig).items() if size < figure_style.SMALLEST_FONT_PT}
    assert not small, small


def check_laid_out(fig):
    """No text of ``fig`` overlaps another or is cut off, as the book saves it (issue 73: chapter 4's stacked
    panels each repeated a y label taller than the panel, into the next one's)."""
    assert figure_png.layout_problems(*figure_png.drawn_texts(fig)) == []


def check_fits_the_column(fig):
    """One column of panels, legible on a phone, no text colliding or cut off."""
    columns = {round(ax.get_position().x0, 2) for ax in fig.axes}
    assert len(columns) == 1, columns
    check_legible_on_a_phone(fig)
    check_laid_out(fig)


@pytest.mark.parametrize("presets", [1, 2, 3])
def test_gap_figure_fits_the_column_for_any_number_of_presets(presets):
    runs = {f"p{i}": [run("BASE-DOT", 0, 2.0, history=history([4.0, 2.0])),
                      run("PE-ROPE", 0, 1.9, history=history([4.0, 1.9]))] for i in range(presets)}
    check_fits_the_column(reproduction_figures.plot_gap_to_baseline(runs, ["PE-ROPE"], paper_delta={"PE-ROPE": 0.011}))


def test_the_gap_figures_stacked_panels_share_one_y_label_that_runs_into_nothing():
    """Issue 73: Fig. 4.3 repeated "L(BASE-DOT) − L(model), nats" on each of its three panels, each label taller
    than its panel (shortened by the legend of five models below), and each ran into the next one's."""
    def preset(gap):
        return [run("BASE-DOT", 0, 2.0, history=history([4.0, 2.1, 2.0]))] + [
            run(v, 0, 2.0 - gap * k / 4, history=history([4.0, 2.1 - gap * k / 5, 2.0 - gap * k / 4]))
            for k, v in enumerate(TABLE_2[1:])]

    fig = reproduction_figures.plot_gap_to_baseline({"cpu": preset(-0.5), "cpu-long": preset(0.45),
                                                     "paper": preset(-0.25)}, TABLE_2[1:], paper_delta={"PE-ROPE": 0.011})
    check_fits_the_column(fig)
    labels = [t for t in fig.findobj(matplotlib.text.Text) if t.get_visible() and "nats" in t.get_text()]
    assert [t.get_text() for t in labels] == ["L(BASE-DOT) − L(model), nats"]


def test_crowded_log_ticks_give_way_to_round_ones():
    """Issue 73: Fig. 5.3's ω axis (0.15 to 9 over 1.8 inches) labelled 3, 4, 5 and 7 with 4 and 5 touching."""
    import matplotlib.pyplot as plt

    with figure_style.book_style():
        fig, ax = plt.subplots(figsize=(figure_style.COLUMN_WIDTH, 2.2), constrained_layout=True)
        ax.set_yscale("log")
        ax.set_ylim(0.15, 9)
        figure_style.plain_log_ticks(ax, axes="y")
    ticks = [t for t in ax.get_yticks()]
    assert 1 in ticks and 5 in ticks and 4 not in ticks
    check_laid_out(fig)
    plt.close(fig)


def test_figures_say_when_nothing_is_stored():
    fig = reproduction_figures.plot_gap_to_baseline({"cpu": []}, ["PE-ROPE"])
    assert any("no runs stored for preset 'cpu'" in t.get_text() for t in fig.findobj(matplotlib.text.Text))
    check_fits_the_column(reproduction_figures.plot_gap_to_baseline({"cpu": [], "cpu-short": []}, ["PE-ROPE"]))
    check_fits_the_column(reproduction_figures.plot_seed_spread([]))
    reference = learned_parameters.decay_only_reference("EGA-MORLET", "cpu")
    check_fits_the_column(learned_figures.plot_uncertainty_plane([], "EGA-MORLET", reference))
    check_fits_the_column(learned_figures.plot_boundary([], learned_parameters.MORLET_VARIANTS))


def test_boundary_figure_draws_the_decay_only_level_of_the_unbounded_variant():
    runs = [run("PE-MORLET-FREE", s, 1.5, learned=decayed_morlet(64, 0.95, "none")) for s in (0, 1)]
    fig = learned_figures.plot_boundary(runs, learned_parameters.MORLET_VARIANTS, free_reference=("PE-MORLET-FREE", 4.805))
    check_fits_the_column(fig)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "PE-MORLET-FREE, decay alone: ωσ = 4.80" in labels and "PE-MORLET-FREE (n=2)" in labels


def test_sweep_figure_draws_the_stored_candidates_and_marks_the_decision():
    from mope.store.presets import CPU_SWEEP, SWEEP_DECIDED_AT, sweep_choice

    chosen = sweep_choice()
    history = [{"step": s, "val_loss": 4.2 - s / 1000} for s in (0, 1500, 3000)]
    sweep = {c: run("BASE-DOT", 0, 1.2, history=history) if c in (chosen, CPU_SWEEP[0]) else None for c in CPU_SWEEP}
    fig = reproduction_figures.plot_sweep(sweep, chosen, SWEEP_DECIDED_AT)
    check_fits_the_column(fig)
    (ax,) = fig.axes
    lines = [line for line in ax.get_lines() if line.get_label().startswith("T")]
    assert [line.get_label() for line in lines] == ["T128 × B16, lr 0.001", "T64 × B32, lr 0.002 (cpu)"]
    assert list(lines[1].get_xdata()) == [1500, 3000]  # step 0 (the untrained model) is left out
    assert lines[1].get_linewidth() > lines[0].get_linewidth()
    assert any(list(line.get_xdata()) == [SWEEP_DECIDED_AT] * 2 for line in ax.get_lines())
    empty = reproduction_figures.plot_sweep({c: None for c in CPU_SWEEP}, chosen, SWEEP_DECIDED_AT)
    assert "no runs stored for the sweep" in empty.axes[0].texts[0].get_text()


def test_plot_distance_to_table_2_draws_each_preset_and_the_noise_band():
    """Issue 46: linear axes (a symmetric-log axis distorted the sizes), the published protocol in a panel of
    its own on the scale of its noise, drawn in black, the smaller presets below on theirs."""
    runs = {"cpu": [run(v, s, paper.TABLE_2_VAL[v] + 0.2 + 0.01 * s) for v in TABLE_2 for s in range(3)],
            "paper": [run(v, 0, paper.TABLE_2_VAL[v] + 0.005, preset="paper") for v in TABLE_2],
            "cpu-short": []}
    fig = reproduction_figures.plot_distance_to_table_2(runs)
    published, smaller = fig.axes
    for ax in (published, smaller):
        assert [t.get_text() for t in ax.get_yticklabels()] == list(TABLE_2)
        assert ax.get_xscale() == "linear"
    assert published.get_title(loc="left").startswith("paper: ") and smaller.get_title(loc="left").startswith("cpu: ")
    (paper_points,) = [line for line in published.get_lines() if line.get_marker() == "o"]
    assert paper_points.get_color() == "#000000" and paper_points.get_markersize() > 5
    assert list(paper_points.get_xdata()) == pytest.approx([0.005] * len(TABLE_2))
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    noise = reproduction_figures.plot_distance_to_table_2.__defaults__[-2]
    assert legend == [f"± {noise:g} nats (the paper's rerun noise)", "paper (n = 1)", "cpu (n = 3)"]
    lo, hi = published.get_xlim()
    assert -0.03 < lo < -noise and noise < hi < 0.03  # the paper's panel on the scale of its noise
    lo, hi = smaller.get_xlim()
    assert lo < 0 and hi > 0.22  # cpu's furthest mean with its spread on its axis


def test_context_figure_joins_each_seed_across_contexts_and_marks_the_papers_gap():
    short = [run("BASE-DOT", s, 1.66) for s in range(3)] + [run("PE-MORLET", s, 1.80) for s in range(3)]
    long = [run("BASE-DOT", s, 1.55, preset="cpu-long") for s in range(2)] + \
           [run("PE-MORLET", s, 1.58 + 0.01 * s, preset="cpu-long") for s in range(2)]
    fig = stress_figures.plot_context_gaps(short, long, (64, 256), published={("PE-MORLET", "BASE-DOT"): 0.0318})
    check_fits_the_column(fig)
    to_table, to_sincos = fig.axes
    seeds = [line for line in to_table.get_lines() if line.get_marker() == "o"]
    assert [list(line.get_xdata()) for line in seeds] == [[64, 256], [64, 256], [64]]  # seed 2 has no long run
    assert [line.get_ydata()[-1] for line in seeds[:2]] == [pytest.approx(0.03), pytest.approx(0.04)]
    assert {line.get_color() for line in seeds} == {figure_style.colour("PE-MORLET")}  # NOPE: not stored, not drawn
    (cross,) = [line for line in to_table.get_lines() if line.get_marker() == "x"]
    assert list(cross.get_xdata()) == [256] and list(cross.get_ydata()) == [0.0318]
    assert "PE-SINCOS − PE-MORLET" in " ".join(text.get_text() for text in to_sincos.texts)  # nothing stored


def legend_labels(fig):
    return [t.get_text() for legend in fig.legends for t in legend.get_texts()]


def test_sigma_figure_puts_each_tokenizations_sigma_in_characters_and_names_one_without_runs():
    learned = decayed_morlet(64, 0.95)
    runs = [run("PE-MORLET", s, 1.5, learned=learned) for s in (0, 1)]
    reference = np.full(64, 2.0)
    fig = learned_figures.plot_sigma_in_characters({"cpu (characters)": (runs, 1.0, reference),
                                            "cpu-bpe (subword)": (runs, 2.5, reference),
                                            "none (subword)": ([], 2.0, reference)}, "PE-MORLET", 5.5, 11.0)
    check_fits_the_column(fig)
    sigma = np.asarray(learned["morlet"]["sigma"])
    curves = [line.get_ydata() for line in fig.axes[0].get_lines() if len(line.get_ydata()) == 64]
    assert any(np.allclose(curve, sigma) for curve in curves) and any(np.allclose(curve, 2.5 * sigma) for curve in curves)
    assert any(np.allclose(curve, 2.5 * reference) for curve in curves)  # the decay-only σ in characters too
    labels = legend_labels(fig)
    assert "cpu-bpe (subword): learned (n=2)" in labels and "none (subword): decay alone (no run yet)" in labels
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "one word (5.5)" in texts and "two words: the claim's threshold (11.0)" in texts
    alone = learned_figures.plot_sigma_in_characters({"smoke (characters)": (runs, 1.0, reference)}, "PE-MORLET", 5.5, 11.0)
    assert "smoke (characters): learned (n=2)" in legend_labels(alone)  # a preset without a subword twin


def centred(centres, sigma=2.0):
    learned = decayed_morlet(len(centres), 0.95)
    learned["morlet"].update(centre=list(centres), sigma=[sigma] * len(centres))
    return learned


def test_centre_figure_draws_each_seeds_centres_and_their_ratio_to_sigma_against_the_threshold():
    runs = [run("PE-MORLET-CENTRED", s, 1.5, learned=centred([1.0 + s, -1.0])) for s in (0, 1)]
    fig = learned_figures.plot_centres(runs + [run("PE-MORLET", 0, 1.5, learned=decayed_morlet(2, 0.95))], threshold=1.0)
    check_fits_the_column(fig)
    left, right = fig.axes[:2]
    points = [tuple(line.get_ydata()) for line in right.get_lines() if line.get_marker() == "o"]
    assert sorted(points) == [(0.5, -0.5), (1.0, -0.5)]  # b₀/σ of seed 0 and seed 1, nothing of PE-MORLET
    assert "PE-MORLET-CENTRED (n=2)" in legend_labels(fig) and "the claim's threshold: b₀ = 1σ" in legend_labels(fig)
    empty = learned_figures.plot_centres([run("PE-MORLET", 0, 1.5, learned=decayed_morlet(2, 0.95))])
    assert any("no runs stored for PE-MORLET-CENTRED" in t.get_text() for t in empty.findobj(matplotlib.text.Text))


def test_figure_without_the_bound_draws_the_products_the_bound_and_decay_alone():
    free = decayed_morlet(64, 0.7, "none")
    runs = [run("PE-MORLET-FREE", 0, 1.5, learned=free), run("PE-MORLET", 0, 1.5, learned=decayed_morlet(64, 0.95))]
    fig = learned_figures.plot_without_bound(runs, "PE-MORLET-FREE", "PE-MORLET", 3.29)
    check_fits_the_column(fig)
    product = np.asarray(free["morlet"]["omega"]) * np.asarray(free["morlet"]["sigma"])
    assert any(np.allclose(line.get_ydata(), product) for line in fig.axes[0].get_lines() if len(line.get_ydata()) == 64)
    labels = legend_labels(fig)
    assert {"the bound ωσ = 5", "PE-MORLET-FREE, decay alone: 3.29", "PE-MORLET (n=1)", "PE-MORLET-FREE (n=1)"} <= set(labels)
    empty = learned_figures.plot_without_bound(runs[1:], "PE-MORLET-FREE", "PE-MORLET", 3.29)
    assert any("no runs stored for PE-MORLET-FREE" in t.get_text() for t in empty.findobj(matplotlib.text.Text))


def test_token_budget_figure_puts_every_seeds_gap_at_the_tokens_it_had_seen():
    def budget_run(variant, seed, losses, batch, preset):
        return run(variant, seed, losses[-1], history=history(losses), preset=preset,
                   changes={"config": {"model": {}, "train": {"batch_size": batch, "block_size": 256}}})
    fewer = [budget_run("BASE-DOT", s, [4.0, 2.0, 1.9], 8, "cpu-long") for s in (0, 1)] + \
            [budget_run("EGA-MORLET", s, [4.0, 2.1, 2.0 + 0.01 * s], 8, "cpu-long") for s in (0, 1)]
    paper_seed = [budget_run("BASE-DOT", 0, [4.0, 1.6, 1.5], 64, "paper"),
                  budget_run("EGA-MORLET", 0, [4.0, 1.7, 1.4], 64, "paper")]
    fig = reproduction_figures.plot_gap_against_tokens({"paper": paper_seed, "cpu-long-4x": [], "cpu-long": fewer},
                                          paper_delta=0.119, training_tokens=1_003_854)
    check_fits_the_column(fig)
    lines = {line.get_label(): line for line in fig.axes[0].get_lines()}
    mean = lines["cpu-long (2 seeds, 0.0M tokens)"]
    assert list(mean.get_xdata()) == pytest.approx([10 * 8 * 256 / 1e6, 20 * 8 * 256 / 1e6])  # step 0 left out
    assert list(mean.get_ydata()) == pytest.approx([-0.1, -0.105])  # the mean of the seeds' gaps
    one = lines["paper (1 seed, 0.3M tokens)"]  # one seed: its own line, no thin copies
    assert list(one.get_ydata()) == pytest.approx([-0.1, 0.1])
    thin = [list(line.get_ydata()) for line in fig.axes[0].get_lines() if line.get_linewidth() < 0.8]  # 0.8: the zero line
    assert thin == [pytest.approx([-0.1, -0.1]), pytest.approx([-0.1, -0.11])]  # a line a seed of cpu-long
    star = lines["the paper's Δ (+0.119)"]
    assert list(star.get_xdata()) == pytest.approx([20 * 64 * 256 / 1e6]) and list(star.get_ydata()) == [0.119]
    assert not any("cpu-long-4x" in label for label in lines)  # no runs: not drawn
    empty = reproduction_figures.plot_gap_against_tokens({"cpu-long-4x": []})
    assert "no runs stored" in empty.axes[0].texts[0].get_text()


def test_boundary_figure_stacks_its_panels_and_draws_a_band_per_model_not_a_line_per_seed():
    """Issue 46: Fig. 5.3 had every seed's ωσ line of every model side by side with the scatter, at half the
    column each (352 px on a phone): the panels are stacked, the products a median and a band per model."""
    runs = [run("PE-MORLET-FREE", s, 1.5, learned=decayed_morlet(64, 0.95 - 0.01 * s, "none")) for s in range(3)]
    fig = learned_figures.plot_boundary(runs, learned_parameters.MORLET_VARIANTS)
    top, below = fig.axes
    assert top.get_position().y0 > below.get_position().y1  # one above the other
    assert top.get_position().width == pytest.approx(below.get_position().width, rel=0.05)
    medians = [line for line in below.get_lines() if len(line.get_xdata()) > 2]
    assert len(medians) == 1 and len(below.collections) == 1  # one model: one median, one band
    products = np.array([np.multiply(r["learned"]["morlet"]["omega"], r["learned"]["morlet"]["sigma"]) for r in runs])
    assert products.shape == (3, 64) and (products < 5.0).all()  # as stored: decayed, no bound
    assert medians[0].get_ydata() == pytest.approx(np.median(products, axis=0))


def test_seed_spread_names_only_the_seed_furthest_from_its_models_mean():
    """Issue 46: Fig. 4.1 wrote every seed's number at 7 pt beside its point, and the numbers overlapped."""
    runs = [run(v, s, 1.6 + 0.01 * s**2 + (0.3 if (v, s) == ("EGA-1", 2) else 0), full=1.6) for v in TABLE_2
            for s in range(5)]  # Val, as Table 2 (issue 72: one number per quantity)
    fig = reproduction_figures.plot_seed_spread(runs)
    check_fits_the_column(fig)
    names = sorted(t.get_text() for t in fig.axes[0].texts)
    assert names == sorted(["s4"] * (len(TABLE_2) - 1) + ["s2"])  # one name a model
    (named,) = [t for t in fig.axes[0].texts if t.get_text() == "s2"]
    assert named.xy[1] == pytest.approx(1.6 + 0.04 + 0.3)


def test_the_smallest_text_rule_holds_on_a_phone_and_fails_for_a_figure_as_wide_as_the_books_were():
    """Issue 53: every figure the chapters draw reads at 9 pt in the 353 px column of a 400 px screen; a figure
    6.5 inches wide (the book's width before) shows its 9 pt text at about 5 pt there."""
    import matplotlib.pyplot as plt

    from test_palette import RUNS

    reference = learned_parameters.decay_only_reference("EGA-MORLET", "cpu")
    for fig in (reproduction_figures.plot_gap_to_baseline({"cpu": RUNS, "paper": RUNS}, list(TABLE_2)[1:],
                                                          paper_delta={"PE-ROPE": 0.011}),
                reproduction_figures.plot_seed_spread(RUNS),
                learned_figures.plot_uncertainty_plane(RUNS, "EGA-MORLET", reference),
                stress_figures.plot_future_token_effect({"EGA-1": np.linspace(0, 1, 64), "EGA-1-CAUSAL": np.zeros(64)}, 40),
                reproduction_figures.plot_distance_to_table_2({"paper": RUNS, "cpu": RUNS})):
        check_fits_the_column(fig)
        plt.close(fig)
    with figure_style.book_style():
        wide, ax = plt.subplots(figsize=(6.5, 2.0), constrained_layout=True)
        ax.set_xlabel("9 pt")
    assert shown_fonts(wide)["9 pt"] == pytest.approx(9 * 100 / 96 * figure_style.PHONE_COLUMN_PX / 670, abs=0.1)  # 6.5 + 0.2 in
    with pytest.raises(AssertionError):
        check_legible_on_a_phone(wide)
    plt.close(wide)
