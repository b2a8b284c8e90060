r"""The book's interactive figures (chapter 6): the MoPE explorer and the loss curves of the stored runs.

This module owns the two Bokeh documents of the explorer chapter and the arithmetic of what they add
to the page. The JavaScript that redraws them in the reader's browser is ``explorer.js`` beside it
(package data, read into ``JS``); every value it uses comes through its callbacks' ``args``. It
changes no number: what the figures draw is either computed in the browser by the formulas below, which mirror
:class:`mope.model.positional.morlet.MorletPositions` (``tests/test_explorer.py`` and
``scripts/check_explorer.py`` check them against it), or read from the results store.

**Explorer.** Sliders set one pair's raw parameters $\tilde\omega = e^{\log\omega}$,
$\tilde\sigma = e^{\log\sigma}$ (log scale), the learned centre $b_0$ (Section 7; 0 as published) and
a position $b$. The browser then runs the forward of ``MorletPositions`` for that pair, in float32
like torch (``Math.fround`` after every operation):

$$\omega \leftarrow \min(\tilde\omega, 0.95\pi),\quad \sigma \leftarrow \max(\tilde\sigma, 10^{-3}),
\\ \omega \leftarrow 5/\sigma \text{ if } \omega\sigma < 5\\ \text{(published; not with the bound off)},$$

$$G(b) = e^{-(b-b_0)^2/(2\sigma^2+10^{-8})},\\ \text{channel } 2i = \cos(\omega b)\,G(b),
\\ \text{channel } 2i+1 = \sin(\omega b)\,G(b),\\ b = 0..T-1,$$

and draws four linked views, each as wide as the book's column (side by side on a wide screen, stacked on a
phone): the two channels over $b$ (with where $G$ falls below $10^{-3}$), the spiral $z(b)$ of the paper's
Figure 1, the kernel of its Figure 2 at the chosen $b$,
$C(b,\tau) = \mathrm{pair}(b)\cdot\mathrm{pair}(b+\tau) = G(b)G(b+\tau)\cos\omega\tau$ for
$0 \le b+\tau < T$, next to RoPE's $\cos\omega\tau$ and the envelope $e^{-\tau^2/4\sigma^2}$ that averaging over $b$
gives (:mod:`mope.evidence.kernels`), and the $(\sigma, \omega)$ plane with the
admissible region $\omega\sigma \ge 5$, the slider's raw point (green inside the region, red
outside) and the point the forward uses. Points to jump to: the released initialisation
(:func:`~mope.model.positional.morlet.initial_morlet_parameters` at the paper's 128 pairs), the pairs the
paper reports (:data:`mope.evidence.paper.REPORTED_PAIRS`) and every pair learned by every stored
MoPE run (:func:`mope.store.results.load_results` of each preset in ``mope.store.presets.PRESETS``).

**Loss curves.** The training loss (``train_curve``, at points a log axis can tell apart) and validation
loss (``history``) of any subset of the stored runs of one preset, against the step on a log axis (step 0,
before any update, is left off it), with the values under the mouse.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from bokeh.document import Document
from bokeh.embed import components
from bokeh.events import DocumentReady
from bokeh.layouts import column, row
from bokeh.models import (BoxAnnotation, CheckboxGroup, ColumnDataSource, CustomJS, CustomJSTickFormatter, DataRange1d,
                          Div, FixedTicker, HoverTool, LayoutDOM, RadioButtonGroup, Range1d, Select, Slider, Span,
                          TapTool)
from bokeh.plotting import figure

from mope.book import palette
from mope.book.explorer_js import FIT_JS, LOG_TICK_JS, LOSS_JS, MENU_JS, REDRAW_JS, SLIDERS_JS, TAP_JS
from mope.evidence.paper import REPORTED_PAIRS
from mope.model.config import check_admissibility, forward_modes
from mope.model.positional.morlet import ADMISSIBILITY_BOUND, ENVELOPE_EPS, OMEGA_MAX, SIGMA_MIN, initial_morlet_parameters
from mope.store.presets import PRESETS, get_preset
from mope.store.results import load_results
from mope.model.variants import VARIANTS

CONTEXT = PRESETS["paper"].block_size  # positions b = 0..T-1 of the paper's window
PAPER_PAIRS = PRESETS["paper"].n_embd // 2  # the initial points are those of the paper's 128 pairs
MENU_PAIRS = (0, 64, 127)  # the pairs of the paper's Figure 1, offered in the jump menu
ADMISSIBILITY_MODES = forward_modes()  # the radio buttons: one per forward ("straight_through" draws as "published")
# Slider spans (raw values, log scale), fixed by what the model draws differently, never by the points
# offered (a stored value far out would stretch the sliders for every reader); a point beyond a span is
# drawn in the (sigma, omega) plane where it lies and sets its slider to the span's end. Over T = 256
# positions a pair with omega < 1e-3 turns by less than 0.26 rad and one with sigma > 1e4 keeps
# G(b) > 0.9997: the spans' ends already draw what the smaller omega and larger sigma of the paper's
# stated dyadic initialisation (omega down to 1.07e-4, sigma up to 46,720; Section 6.3) would. Above:
# pi, the clamp 0.95 pi (every larger omega draws as the clamp does), and 4. Below sigma = 0.5 the
# envelope has fallen to e^-2 one position from its centre.
OMEGA_SPAN = (1e-3, 4.0)
SIGMA_SPAN = (0.5, 1e4)
CENTRE_SPAN = (-(CONTEXT - 1.0), CONTEXT - 1.0)  # b0 anywhere from a window's length before it to its last position
LOG_STEP = 0.001  # slider resolution in log10 units: 0.23% of the value
KEY_STEPS = {"omega": 0.02, "sigma": 0.02, "position": 1, "centre": 1}  # an arrow key's step: 4.7% on the log sliders
LOG_UNITS = {"omega": "rad/token", "sigma": "tokens"}  # how a screen reader hears a log slider's raw value
DEAD_ENVELOPE = 1e-3  # "the envelope has died": G(b) below this
LAG_VIEW = 40  # the kernel's initial lag window, +-tokens (pan and zoom reach +-(T-1))
RAW_COLOURS = {"inside": "#1e7b1e", "outside": "#d62728"}  # white text on either: contrast at least 4.5:1
# Every panel as wide as the book's column (690 px at 1280 px, 368 px on a 400 px phone): two panels side by side
# where both get PANEL_MIN, stacked on a phone (issue 73: a fixed 640 px layout was cut at the right).
STRETCH = "stretch_width"
PANEL_MIN = 300
#: A row of panels that wraps onto the next line where two do not fit side by side.
WRAP_ROW = ":host { flex-wrap: wrap; }"
#: The frame width (px) below which a plot's legend above it goes one item a line (its one row of items is about as
#: wide: 380 px the channels', 430 px the kernel's) and the height (px) the plot then grows by to keep its frame.
LEGEND_ROW = {"channels": 400, "kernel": 450}
LEGEND_LINES = 40


@dataclass(frozen=True)
class ParameterPoint:
    """A raw (omega, sigma) of one pair to jump to, with the centre and bound its model used."""

    group: str
    label: str
    omega: float  # raw exp(log omega), before the clamp and the projection
    sigma: float  # raw exp(log sigma)
    centre: float = 0.0
    admissibility: str = "published"
    in_menu: bool = False
    colour: str = "#7f7f7f"  # in the (sigma, omega) plane: grey initial, black reported, learned by model


def initial_points(n_pairs: int = PAPER_PAIRS) -> list[ParameterPoint]:
    """Every pair of the released initialisation at ``n_pairs`` pairs (pairs 0, 64, 127 in the menu)."""
    omega, sigma = (t.tolist() for t in initial_morlet_parameters(n_pairs))
    group = f"initial ({n_pairs} pairs, released code)"
    return [ParameterPoint(group, f"initial pair {i}", omega[i], sigma[i], in_menu=i in MENU_PAIRS)
            for i in range(n_pairs)]


def paper_points() -> list[ParameterPoint]:
    """The learned (omega, sigma) the paper reports for three pairs of EGA-MORLET."""
    return [ParameterPoint("paper (Section 6.3, EGA-MORLET)", f"paper pair {i}", omega, sigma, in_menu=True,
                           colour="#000000")
            for i, (omega, sigma) in REPORTED_PAIRS.items()]


def learned_points(result: dict) -> list[ParameterPoint]:
    """Every pair a stored MoPE run learned (none for other models); its first, middle and last pair in the menu."""
    learned = (result.get("learned") or {}).get("morlet")
    if not learned:
        return []
    omega, sigma = learned["omega_raw"], learned["sigma_raw"]
    centre = learned.get("centre") or [0.0] * len(omega)
    admissibility = drawn_mode(result["config"]["model"].get("admissibility", "published"))
    group = f"{result['preset']} {result['variant']} seed {result['seed']}"
    menu = {0, len(omega) // 2, len(omega) - 1}
    colour = variant_colour(result["variant"])
    return [ParameterPoint(group, f"{group}, pair {i}", omega[i], sigma[i], centre[i], admissibility, i in menu, colour)
            for i in range(len(omega))]


def drawn_mode(admissibility: str) -> str:
    """The radio button (of ``ADMISSIBILITY_MODES``) that draws the forward of a registered admissibility
    mode: the one that projects as it does (a :class:`~mope.errors.ConfigError` for an unknown mode)."""
    projects = check_admissibility(admissibility).projects
    return next(mode for mode in ADMISSIBILITY_MODES if check_admissibility(mode).projects == projects)


def stored_runs(presets: Iterable[str] = PRESETS) -> dict[str, list[dict]]:
    """The current stored runs of each preset that has any (:func:`mope.store.results.load_results`)."""
    found = {name: load_results(name) for name in presets}
    return {name: runs for name, runs in found.items() if runs}


def all_points(runs: Mapping[str, Sequence[dict]]) -> list[ParameterPoint]:
    """The initial pairs, the paper's pairs, then every pair learned by every stored run."""
    learned = [point for results in runs.values() for result in results for point in learned_points(result)]
    return initial_points() + paper_points() + learned


def log10_span(span: tuple[float, float]) -> tuple[float, float]:
    """A log10 slider span: ``span`` rounded out to 0.1 decade."""
    return math.floor(math.log10(span[0]) * 10) / 10, math.ceil(math.log10(span[1]) * 10) / 10


def within(value: float, span: tuple[float, float]) -> float:
    """``value`` moved into ``span`` (a slider's start and end)."""
    return min(max(value, span[0]), span[1])


# --- the explorer's JavaScript: explorer.js's sections (mope.book.explorer_js) ------------------------

def js_constants() -> dict[str, float]:
    """The numbers the explorer's JavaScript reads from ``constants``: MorletPositions' clamps, bound and
    epsilon, the context length T and where the envelope counts as dead."""
    return {"bound": ADMISSIBILITY_BOUND, "omega_max": OMEGA_MAX, "sigma_min": SIGMA_MIN,
            "envelope_eps": ENVELOPE_EPS, "context": CONTEXT, "dead_envelope": DEAD_ENVELOPE}


def _log_slider(name: str, title: str, span: tuple[float, float], value: float) -> Slider:
    return Slider(name=name, title=title, start=span[0], end=span[1], value=within(math.log10(value), span), step=LOG_STEP,
                  format=CustomJSTickFormatter(code=LOG_TICK_JS), sizing_mode=STRETCH)


def _in_own_document(layout: LayoutDOM, *on_ready: CustomJS) -> LayoutDOM:
    """Put ``layout`` in a document of its own that runs ``on_ready`` once BokehJS has drawn it."""
    document = Document()
    document.add_root(layout)
    document.js_on_event(DocumentReady, *on_ready)
    return layout


def explorer(points: Sequence[ParameterPoint], start: int = 0) -> LayoutDOM:
    """The explorer, starting at ``points[start]``; every point is in the (σ, ω) plane, menu points in the menu."""
    first = points[start]
    omega_span, sigma_span = log10_span(OMEGA_SPAN), log10_span(SIGMA_SPAN)
    centres = [p.centre for p in points]
    omega_slider = _log_slider("omega", "ω̃: raw frequency (rad/token), log scale", omega_span, first.omega)
    sigma_slider = _log_slider("sigma", "σ̃: raw width (tokens), log scale", sigma_span, first.sigma)
    position = Slider(name="position", title="position b (kernel, markers)", start=0, end=CONTEXT - 1, value=0,
                      step=1, sizing_mode=STRETCH)
    centre = Slider(name="centre", title="centre b₀ (Section 7; 0 as published)", start=CENTRE_SPAN[0],
                    end=CENTRE_SPAN[1], value=within(first.centre, CENTRE_SPAN), step=0.1, sizing_mode=STRETCH)
    admissibility = RadioButtonGroup(name="admissibility", labels=[check_admissibility(mode).label for mode in ADMISSIBILITY_MODES],
                                     active=ADMISSIBILITY_MODES.index(first.admissibility), sizing_mode=STRETCH)
    menu_options: dict[str, list[tuple[str, str]]] = {}
    for index, point in enumerate(points):
        if point.in_menu:
            menu_options.setdefault(point.group, []).append((str(index), point.label))
    menu = Select(name="jump", title="jump to", options=menu_options, value=str(start), sizing_mode=STRETCH)
    bound = Div(name="bound", width=130, styles={"color": "white", "padding": "4px 8px", "border-radius": "4px",
                                                 "font-size": "13px", "text-align": "center"})
    status = Div(name="status", sizing_mode=STRETCH, min_width=200, styles={"font-size": "12px", "text-align": "left"})

    empty = {"b": [], "cos": [], "sin": []}
    pair_source = ColumnDataSource(dict(empty, envelope=[], minus_envelope=[]), name="pair")
    marker_source = ColumnDataSource(dict(empty), name="marker")
    kernel_source = ColumnDataSource({"tau": [], "correlation": []}, name="kernel")
    rope_source = ColumnDataSource({"tau": [], "rope": [], "envelope": [], "minus_envelope": []}, name="rope")
    state_source = ColumnDataSource({k: [] for k in ("omega_raw", "sigma_raw", "omega", "sigma", "colour")},
                                    name="state")
    # The numbers travel as float32 arrays, as torch holds them (a learned pair's raw values exactly; the forward
    # rounds to float32 anyway): base64 of 4 bytes a number, not ~19 characters of JSON text; the bound as its
    # index in ADMISSIBILITY_MODES (the radio buttons' order), not its name.
    points_source = ColumnDataSource({
        "omega": np.array([p.omega for p in points], dtype=np.float32),
        "sigma": np.array([p.sigma for p in points], dtype=np.float32),
        "centre": np.array(centres, dtype=np.float32),
        "admissibility": np.array([ADMISSIBILITY_MODES.index(p.admissibility) for p in points], dtype=np.int8),
        "label": [p.label for p in points], "colour": [p.colour for p in points],
    }, name="points")

    channels_plot = figure(sizing_mode=STRETCH, height=250, title="channel pair over positions b = 0…T−1",
                           x_axis_label="position b", y_axis_label="encoding value", y_range=(-1.05, 1.05),
                           x_range=(0, CONTEXT - 1), tools="xpan,xwheel_zoom,reset")
    dead_left = BoxAnnotation(name="dead_left", left=0, right=0, fill_color="grey", fill_alpha=0.12)
    dead_right = BoxAnnotation(name="dead_right", left=CONTEXT - 1, fill_color="grey", fill_alpha=0.12)
    channels_plot.add_layout(dead_left)
    channels_plot.add_layout(dead_right)
    channels_plot.line("b", "envelope", source=pair_source, color="grey", line_dash="dashed", legend_label="±G(b)")
    channels_plot.line("b", "minus_envelope", source=pair_source, color="grey", line_dash="dashed")
    cos_colour, sin_colour = palette.CHANNELS
    channels_plot.line("b", "cos", source=pair_source, color=cos_colour, line_width=1.5,
                       legend_label="cos(ωb)·G(b): channel 2i")
    channels_plot.line("b", "sin", source=pair_source, color=sin_colour, line_width=1.5, line_dash="dashed",
                       legend_label="sin(ωb)·G(b): channel 2i+1")
    channels_plot.scatter("b", "cos", source=marker_source, size=8, color=cos_colour)
    channels_plot.scatter("b", "sin", source=marker_source, size=8, color=sin_colour)

    spiral = figure(sizing_mode=STRETCH, min_width=PANEL_MIN, height=320, title="spiral z(b) (Figure 1)",
                    x_range=(-1.1, 1.1), y_range=(-1.1, 1.1),
                    x_axis_label="channel 2i (cos)", y_axis_label="channel 2i+1 (sin)", tools="pan,wheel_zoom,reset",
                    match_aspect=True)
    turn = np.linspace(0, 2 * np.pi, 361)
    spiral.line(np.cos(turn), np.sin(turn), color=palette.NEUTRAL, line_dash="dashed",
                legend_label="σ = ∞ (RoPE, sin/cos)")
    spiral.line("cos", "sin", source=pair_source, color=palette.colour("MoPE"), legend_label="MoPE")
    spiral.scatter("cos", "sin", source=pair_source, size=3, color=palette.colour("MoPE"))
    spiral.scatter("cos", "sin", source=marker_source, size=10, fill_color=None, line_color="black", line_width=2)

    plane = figure(sizing_mode=STRETCH, min_width=PANEL_MIN, height=320, title="(σ, ω) plane: admissible ωσ ≥ 5 shaded",
                   x_axis_type="log", y_axis_type="log", x_axis_label="σ (tokens)", y_axis_label="ω (rad/token)",
                   x_range=DataRange1d(range_padding=0.2), y_range=DataRange1d(range_padding=0.2),
                   tools="pan,wheel_zoom,reset,tap")
    grid = np.logspace(*sigma_span, 400)
    plane.varea(grid, np.clip(ADMISSIBILITY_BOUND / grid, 10 ** omega_span[0], 10 ** omega_span[1]),
                10 ** omega_span[1], fill_color="#2ca02c", fill_alpha=0.12)
    plane.line(grid, ADMISSIBILITY_BOUND / grid, color="#2ca02c")
    plane.add_layout(Span(location=OMEGA_MAX, dimension="width", line_dash="dashed", line_color="grey"))
    plane.add_layout(Span(location=math.pi, dimension="width", line_dash="dotted", line_color="black"))
    dots = plane.scatter("sigma", "omega", source=points_source, size=5, color="colour", alpha=0.7)
    plane.segment("sigma_raw", "omega_raw", "sigma", "omega", source=state_source, color="black")
    drawn = plane.scatter("sigma", "omega", source=state_source, size=9, color="black")
    raw = plane.scatter("sigma_raw", "omega_raw", source=state_source, size=13, fill_color=None, line_color="colour",
                        line_width=3)
    plane.add_tools(HoverTool(renderers=[dots], tooltips=[("pair", "@label"), ("ω̃", "@omega{0.0000}"),
                                                          ("σ̃", "@sigma{0.000}")]))
    plane.select_one(TapTool).renderers = [dots]
    for axis_range in (plane.x_range, plane.y_range):  # the view follows the points and the slider state
        axis_range.renderers = [dots, raw, drawn]

    kernel = figure(sizing_mode=STRETCH, height=250, title="kernel at position b (Figure 2)", x_axis_label="lag τ (tokens)",
                    y_axis_label="correlation", x_range=(-LAG_VIEW, LAG_VIEW), y_range=(-1.05, 1.05),
                    tools="xpan,xwheel_zoom,reset")
    kernel.varea("tau", "minus_envelope", "envelope", source=rope_source, fill_color=palette.NEUTRAL, fill_alpha=0.15,
                 legend_label="±e^(−τ²/4σ²): averaged over b")
    kernel.line("tau", "rope", source=rope_source, color=palette.colour("RoPE"), line_dash="dashed",
                legend_label="RoPE cos ωτ")
    kernel.line("tau", "correlation", source=kernel_source, color=palette.colour("MoPE"), line_width=1.5,
                legend_label="C(b, τ) = pair(b)·pair(b+τ)")
    kernel.scatter("tau", "correlation", source=kernel_source, size=3, color=palette.colour("MoPE"))
    for plot in (channels_plot, spiral, kernel):
        plot.legend.label_text_font_size = "11px"
        plot.legend.background_fill_alpha = 0.7
    for plot in (channels_plot, kernel):
        plot.legend.orientation = "horizontal"
        plot.add_layout(plot.legend[0], "above")
    spiral.legend.location = "bottom_left"

    modes = list(ADMISSIBILITY_MODES)
    redraw = CustomJS(args=dict(
        constants=js_constants(), omega_slider=omega_slider, sigma_slider=sigma_slider, position=position, centre=centre,
        admissibility=admissibility, modes=modes, pair_source=pair_source, marker_source=marker_source,
        kernel_source=kernel_source, rope_source=rope_source, state_source=state_source, bound=bound, status=status,
        dead_left=dead_left, dead_right=dead_right, colours=RAW_COLOURS), code=REDRAW_JS)
    for slider in (omega_slider, sigma_slider, position, centre):
        slider.js_on_change("value", redraw)
    admissibility.js_on_change("active", redraw)
    jump_args = dict(points=points_source, omega_slider=omega_slider, sigma_slider=sigma_slider, centre=centre,
                     admissibility=admissibility)
    menu.js_on_change("value", CustomJS(args=dict(jump_args, menu=menu), code=MENU_JS))
    points_source.selected.js_on_change("indices", CustomJS(args=jump_args, code=TAP_JS))

    tips = Div(name="tips", text=things_to_try(), sizing_mode=STRETCH, min_width=PANEL_MIN,
               styles={"font-size": "13px", "line-height": "1.35", "padding-left": "6px", "text-align": "left",
                       "border-left": "3px solid #cccccc"})
    controls = column(omega_slider, sigma_slider, position, centre, menu, admissibility, sizing_mode=STRETCH,
                      min_width=PANEL_MIN)
    layout = column(
        wrapping_row(controls, tips), wrapping_row(bound, status), channels_plot, wrapping_row(spiral, plane), kernel,
        sizing_mode=STRETCH, name="explorer")
    sliders = CustomJS(args=dict(sliders=[omega_slider, sigma_slider, position, centre], steps=KEY_STEPS,
                                 units=LOG_UNITS), code=SLIDERS_JS)
    fit = fit_plots([(channels_plot, LEGEND_ROW["channels"], None, LEGEND_LINES),
                     (kernel, LEGEND_ROW["kernel"], None, LEGEND_LINES)])
    return _in_own_document(layout, redraw, sliders, fit)


def wrapping_row(*children: LayoutDOM) -> LayoutDOM:
    """Panels side by side as wide as the column, the next one on a line of its own where they do not fit."""
    return row(*children, sizing_mode=STRETCH, stylesheets=[WRAP_ROW])


def fit_plots(plots: Sequence[tuple]) -> CustomJS:
    """The callback fitting each plot to its column's width (``explorer.js``'s section ``fit``), called whenever a
    plot's frame changes width; ``plots``: (plot, the frame width below which it is narrow, its title then or None,
    the px it grows by then). Returned to be run once the document is drawn, too."""
    fit = CustomJS(args=dict(plots=[p for p, *_ in plots],
                             legends=[p.legend[0] if p.legend else None for p, *_ in plots],
                             widths=[w for _, w, _, _ in plots], titles=[p.title.text for p, *_ in plots],
                             narrow_titles=[t for _, _, t, _ in plots], heights=[p.height for p, *_ in plots],
                             extras=[e for *_, e in plots]), code=FIT_JS)
    for plot, *_ in plots:
        plot.js_on_change("inner_width", fit)
    return fit


def things_to_try() -> str:
    """What to try with the sliders (HTML for the box beside them), its numbers computed from the package:
    the released initialisation, the pairs the paper reports, the clamp and the bound."""
    omega0, sigma0 = (float(t[0]) for t in initial_morlet_parameters(PAPER_PAIRS))
    dies = sigma0 * math.sqrt(-2 * math.log(DEAD_ENVELOPE))
    omega127, sigma127 = REPORTED_PAIRS[127]
    alias = 2 * math.pi - omega127
    return (
        "<b>Things to try</b><ul style='padding-left: 1.1em; margin: 0.3em 0'>"
        f"<li><b>Initial pair 0</b> (ω = {omega0:g}, σ = {sigma0:g}): the envelope dies {dies:.0f} tokens in; past "
        "that the pair carries no position. Drag σ̃ into the thousands: the spiral opens into RoPE's circle.</li>"
        "<li><b>Move b</b>: the kernel C(b, τ) is largest at τ = −b (position 0) and shrinks as G(b); the paper's "
        "e^(−τ²/4σ²) is what averaging over b gives, not what one position sees.</li>"
        f"<li><b>Paper pair 127</b> (ω = {omega127}, σ = {sigma127}): ω̃ lies above the clamp 0.95π, the projection "
        f"lifts ω back to 5/σ, above π: at integer b the pair equals the one at {alias:.3f} run backwards.</li>"
        "<li><b>Drag σ̃ below 5/ω̃</b>: as published the model uses the black dot on the bound, not the red "
        "ring; with the bound off (PE-MORLET-FREE) the two coincide.</li></ul>")


def variant_colour(variant: str) -> str:
    """One colour per model, the same as in every figure of the book (:func:`mope.book.palette.colour`)."""
    return palette.colour(variant)


# --- loss curves ----------------------------------------------------------------------------------

# The training curve's points kept on the log step axis: one at least this many decades after the last kept
# (0.02 decade is under 4 px of the plot's 640, over its 3.5 decades), the last always. A 3,001-step run
# records a point every 10 steps, 270 of its 300 from step 10 in the last decade, where neighbours lie 0.3
# to 3 px apart; 71 are kept, so that the page's interactive figures stay within their budget as the store
# grows (208 runs with 0.01 decade, 112 points each, would take them past it).
CURVE_SPACING_DECADES = 0.02


def log_spaced(points: Sequence[tuple[int, float]], spacing: float = CURVE_SPACING_DECADES) -> list[tuple[int, float]]:
    """The points of a curve over steps ≥ 1 that a log step axis can tell apart: the first, each next one
    at least ``spacing`` decades after the last kept, and the last."""
    kept: list[tuple[int, float]] = []
    for step, loss in points:
        if not kept or math.log10(step) - math.log10(kept[-1][0]) >= spacing:
            kept.append((step, loss))
    if points and kept[-1] != points[-1]:
        kept.append(points[-1])
    return kept


def loss_rows(runs: Mapping[str, Sequence[dict]]) -> dict[str, list]:
    """One row per stored run: its training curve from step 1 on, log-spaced (:func:`log_spaced`), and every
    validation loss from step 1 on (for a log axis)."""
    rows: dict[str, list] = {k: [] for k in ("preset", "variant", "seed", "colour", "train_step", "train_loss",
                                             "val_step", "val_loss")}
    for preset, results in runs.items():
        for result in results:
            train = log_spaced([(step, loss) for step, loss in result.get("train_curve", []) if step >= 1])
            val = [(h["step"], h["val_loss"]) for h in result["history"] if h["step"] >= 1]
            rows["preset"].append(preset)
            rows["variant"].append(result["variant"])
            rows["seed"].append(result["seed"])
            rows["colour"].append(variant_colour(result["variant"]))
            rows["train_step"].append(np.array([s for s, _ in train], dtype=np.int32))
            rows["train_loss"].append(np.array([v for _, v in train], dtype=np.float32))
            rows["val_step"].append(np.array([s for s, _ in val], dtype=np.int32))
            rows["val_loss"].append(np.array([v for _, v in val], dtype=np.float32))
    return rows


def loss_unit(runs: Mapping[str, Sequence[dict]]) -> str:
    """The loss's unit, said in the plot's title: nats per character, and per token for the presets of ``runs``
    on subword tokens (the axis says only "loss (nats)", which fits beside the plot's height, :data:`LOSS_AXIS`)."""
    subword = [preset for preset in runs if get_preset(preset).tokenizer]
    return "nats per character" + (f" (per token on {', '.join(subword)})" if subword else "")


LOSS_AXIS = "loss (nats)"
#: The frame width (px) below which the loss plot's title (about 560 px at its longest) takes two lines, each
#: TITLE_LINE px more.
LOSS_TITLE_ROW = 600
TITLE_LINE = 18


DEFAULT_COMPARISON = ("BASE-DOT", "PE-MORLET")
WRAP = ".bk-input-group { flex-wrap: wrap; }"  # the models' boxes run on over several lines
LOG_TICKS = [m * 10**e for e in range(6) for m in (1, 2, 5)]  # labelled steps 1, 2, 5, 10, ... 500,000


def loss_curves(runs: Mapping[str, Sequence[dict]], preset: str) -> LayoutDOM:
    """Loss against step (log axis) for a chosen preset, models, seeds and curves; ``preset`` is shown first."""
    if not runs:
        return Div(name="loss_curves", sizing_mode=STRETCH, text=(
            "<i>No stored run of any preset yet: train some with <code>python -m mope suite --preset cpu</code>, "
            "then rebuild the book.</i>"))
    names = list(runs)
    first = preset if preset in runs else names[0]
    present = {r["variant"] for results in runs.values() for r in results}
    variant_names = [v for v in VARIANTS if v in present] + sorted(present - set(VARIANTS))
    seed_values = sorted({r["seed"] for results in runs.values() for r in results})
    in_first = {r["variant"] for r in runs[first]}
    shown = [v for v in DEFAULT_COMPARISON if v in in_first] or [v for v in variant_names if v in in_first][:2]

    preset_menu = Select(name="loss_preset", title="preset", options=names, value=first, width=200)
    curves = CheckboxGroup(name="curves", labels=["training loss", "validation loss"], active=[0, 1], inline=True,
                           sizing_mode=STRETCH, stylesheets=[WRAP])
    variants = CheckboxGroup(name="variants", labels=variant_names, inline=True, sizing_mode=STRETCH, stylesheets=[WRAP],
                             active=[variant_names.index(v) for v in shown])
    seeds = CheckboxGroup(name="seeds", labels=[f"seed {s}" for s in seed_values], inline=True, sizing_mode=STRETCH,
                          stylesheets=[WRAP],
                          active=list(range(len(seed_values))))
    runs_source = ColumnDataSource(loss_rows(runs), name="runs")
    train_shown = ColumnDataSource({"xs": [], "ys": [], "variant": [], "seed": [], "colour": []}, name="train_shown")
    val_shown = ColumnDataSource({"step": [], "loss": [], "variant": [], "seed": [], "colour": []}, name="val_shown")

    plot = figure(sizing_mode=STRETCH, height=380, x_axis_type="log", x_axis_label="step (log scale)",
                  x_range=Range1d(1, 10, name="loss_steps"), y_range=Range1d(0, 1, name="loss_values"),
                  y_axis_label=LOSS_AXIS, tools="pan,wheel_zoom,box_zoom,reset",
                  title=f"training loss (lines) and validation loss (dots), {loss_unit(runs)}")
    lines = plot.multi_line("xs", "ys", source=train_shown, color="colour", line_width=1.5, legend_field="variant")
    dots = plot.scatter("step", "loss", source=val_shown, color="colour", size=7, line_color="black")
    plot.add_tools(HoverTool(renderers=[lines], line_policy="nearest", tooltips=[
        ("model", "@variant"), ("seed", "@seed"), ("step", "$data_x{0}"), ("training loss", "$data_y{0.0000}")]))
    plot.add_tools(HoverTool(renderers=[dots], tooltips=[
        ("model", "@variant"), ("seed", "@seed"), ("step", "@step"), ("validation loss", "@loss{0.0000}")]))
    plot.xaxis.ticker = FixedTicker(ticks=LOG_TICKS)
    plot.legend.label_text_font_size = "11px"
    plot.legend.location = "top_right"
    plot.legend.background_fill_alpha = 0.7

    update = CustomJS(args=dict(preset=preset_menu, variants=variants, seeds=seeds, curves=curves,
                                variant_names=variant_names, seed_values=seed_values, runs=runs_source,
                                train_shown=train_shown, val_shown=val_shown, x_range=plot.x_range,
                                y_range=plot.y_range), code=LOSS_JS)
    preset_menu.js_on_change("value", update)
    for group in (variants, seeds, curves):
        group.js_on_change("active", update)
    layout = column(wrapping_row(preset_menu, curves), variants, seeds, plot, sizing_mode=STRETCH, name="loss_curves")
    title = plot.title.text.split(", ", 1)
    fit = fit_plots([(plot, LOSS_TITLE_ROW, ",\n".join(title), TITLE_LINE * (len(title) - 1))])
    return _in_own_document(layout, update, fit)
