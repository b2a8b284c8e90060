"""One colour per model, read from what the figures actually draw: the matplotlib figures of the chapters
(mope.book.reproduction_figures, learned_figures, stress_figures, plots) and the Bokeh figures of the explorer (mope.book.explorer)."""
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
from bokeh.models import GlyphRenderer  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

from mope.evidence import learned_parameters  # noqa: E402
from mope.book import explorer, learned_figures, plots, reproduction_figures
from mope.model.variants import VARIANTS  # noqa: E402
from synthetic_runs import decayed_morlet, run  # noqa: E402


def history(final):
    return [{"step": 0, "lr": 0.0, "train_loss": 4.2, "val_loss": 4.2},
            {"step": 10, "lr": 0.0, "train_loss": final, "val_loss": final}]


RUNS = [run(name, seed, 1.5 + 0.01 * i, history=history(1.5 + 0.01 * i),
            learned=decayed_morlet(64, 0.95, "none" if name == "PE-MORLET-FREE" else "published")
            if name in learned_parameters.MORLET_VARIANTS else None)
        for i, name in enumerate(VARIANTS) for seed in (0, 1)]


def matplotlib_colours(fig) -> dict[str, set[str]]:
    """{legend label: the hex colours of the lines and markers drawn under that label}."""
    drawn = defaultdict(set)
    for ax in fig.axes:
        for line in ax.get_lines():
            if not line.get_label().startswith("_"):
                drawn[line.get_label()].add(to_hex(line.get_color()))
        for collection in ax.collections:
            label = collection.get_label()
            if not label.startswith("_") and len(collection.get_facecolor()):
                drawn[label].add(to_hex(collection.get_facecolor()[0], keep_alpha=False))
    return drawn


def seed_spread_colours(fig) -> dict[str, set[str]]:
    """{model: the hex colours of its seeds' points} in the seed-spread figure, whose points carry no legend
    label: a model is the tick label under its points."""
    from matplotlib.collections import PathCollection

    (ax,) = fig.axes
    names = [tick.get_text() for tick in ax.get_xticklabels()]
    drawn = defaultdict(set)
    for collection in ax.collections:
        if isinstance(collection, PathCollection):
            x = round(float(collection.get_offsets()[:, 0].mean()))
            drawn[names[x]] |= {to_hex(colour, keep_alpha=False) for colour in collection.get_facecolor()}
    return drawn


def model_of(label: str) -> str | None:
    """The model a legend label names ("PE-MORLET (n=2)" → PE-MORLET), or None."""
    head = label.split(" (")[0].split(",")[0]
    return head if head in VARIANTS else None


def bokeh_colours(layout, column="colour") -> dict[str, set[str]]:
    """{model: the colours a Bokeh glyph draws it in}, read from the data column its glyph colours by.
    The loss curves' glyphs draw sources that their JavaScript fills in the browser from the source
    named "runs", colour column included: that column is read for them."""
    drawn = defaultdict(set)
    sources = []
    for renderer in layout.select({"type": GlyphRenderer}):
        glyph = renderer.glyph
        fields = [getattr(glyph, prop, None) for prop in ("line_color", "fill_color")]
        if any(f == column or getattr(f, "field", None) == column or (isinstance(f, dict) and f.get("field") == column)
               for f in fields):
            sources.append(renderer.data_source.data)
    runs = layout.select_one({"name": "runs"})
    if runs is not None:
        assert all(not data.get(column) for data in sources), "the loss curves are drawn in the browser"
        sources.append(runs.data)
    for data in sources:
        names = data.get("variant") or data.get("label") or []
        for name, colour in zip(names, data.get(column) or []):
            model = name if name in VARIANTS else next((v for v in VARIANTS if f" {v} seed" in name), None)
            if model:
                drawn[model].add(colour.lower())
    return drawn


def test_every_model_is_drawn_in_one_colour_everywhere_and_no_two_share_one():
    drawn = defaultdict(set)
    names = list(VARIANTS)
    spread = seed_spread_colours(reproduction_figures.plot_seed_spread(RUNS, names))
    assert set(spread) == set(VARIANTS)  # every model's seeds, BASE-DOT's too, which the gap figure measures from
    for model, colours in spread.items():
        drawn[model] |= colours
    for fig in (reproduction_figures.plot_gap_to_baseline({"cpu": RUNS}, names[1:]),
                learned_figures.plot_boundary(RUNS, learned_parameters.MORLET_VARIANTS),
                learned_figures.plot_uncertainty_plane(RUNS, "EGA-MORLET",
                                               learned_parameters.decay_only_reference("EGA-MORLET", "cpu"))):
        for label, colours in matplotlib_colours(fig).items():
            if model_of(label):
                drawn[model_of(label)] |= colours
        matplotlib.pyplot.close(fig)
    # the explorer: the loss curves and the learned pairs of the (sigma, omega) plane
    stored = {"cpu": RUNS}
    in_explorer = {}
    for layout in (explorer.loss_curves(stored, "cpu"), explorer.explorer(explorer.all_points(stored))):
        in_explorer[layout.name] = bokeh_colours(layout)
        for model, colours in in_explorer[layout.name].items():
            drawn[model] |= colours
    assert set(in_explorer["loss_curves"]) == set(VARIANTS)
    assert set(in_explorer["explorer"]) == set(learned_parameters.MORLET_VARIANTS)  # the learned pairs of the plane
    assert set(drawn) == set(VARIANTS), set(VARIANTS) - set(drawn)
    several = {model: colours for model, colours in drawn.items() if len(colours) > 1}
    assert not several, f"models drawn in more than one colour: {several}"
    colours = [next(iter(c)) for c in drawn.values()]
    assert len(set(colours)) == len(colours), "two models share a colour"


def test_the_encodings_figures_draw_mope_and_rope_in_their_models_colours():
    lines = matplotlib_colours(reproduction_figures.plot_gap_to_baseline({"cpu": RUNS}, ["PE-MORLET", "PE-ROPE"]))
    spirals = matplotlib_colours(plots.plot_spirals([("pair 0", 1.0, 5.0)]))
    kernels = matplotlib_colours(plots.plot_cross_correlation([("pair 0", 1.0, 5.0)], length=64))
    assert lines["PE-MORLET"] and lines["PE-ROPE"]  # each label drawn (a missing one reads as no colour)
    assert spirals["MoPE"] == lines["PE-MORLET"]
    assert kernels[r"RoPE $\cos\omega\tau$"] == lines["PE-ROPE"]
    assert kernels[r"$\cos\omega\tau\, e^{-\tau^2/4\sigma^2}$ (paper)"] == lines["PE-MORLET"]


@pytest.mark.parametrize("omega", [1.0, 3.346])
def test_figure_2_draws_its_oscillations_at_integer_lags_only(omega):
    fig = plots.plot_cross_correlation([("pair", omega, 1.49)], max_lag=10)
    assert fig.axes[0].get_lines()
    for line in fig.axes[0].get_lines():
        assert all(float(x).is_integer() for x in line.get_xdata()), line.get_label()


def relative_luminance(colour: str) -> float:
    """WCAG 2.1's relative luminance of a hex colour."""
    channels = [int(colour.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(first: str, second: str) -> float:
    """WCAG 2.1's contrast ratio of two colours, from 1 to 21."""
    lighter, darker = sorted((relative_luminance(first), relative_luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def test_the_wcag_contrast_is_computed_as_the_standard_gives_it():
    assert contrast("#000000", "#ffffff") == pytest.approx(21)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)  # the usual least grey for text
    assert contrast("#E69F00", "#ffffff") == pytest.approx(2.25, abs=0.01)  # Okabe–Ito's orange: too light


def test_every_verdict_colour_of_the_claims_figure_stands_out_from_its_backgrounds():
    """Issue 55: "undecided" (#E69F00, 2.25:1) and "not judged" (#56B4E9, 2.31:1) were below 3:1 on white."""
    from mope.book import claims_figure, palette

    drawn = {style.colour for style in claims_figure.VERDICT_STYLES.values()} | {claims_figure.UNKNOWN_STYLE.colour}
    assert drawn == set(palette.VERDICT_COLOURS.values()) | {palette.UNKNOWN_VERDICT}
    for colour in drawn:
        for background in (palette.WHITE, palette.BAND_SHADE):
            assert contrast(colour, background) >= palette.MIN_CONTRAST, (colour, background)
    assert len(set(palette.VERDICT_COLOURS.values())) == len(palette.VERDICT_COLOURS)
