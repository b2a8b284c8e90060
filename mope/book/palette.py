"""One colour per model, the same in every figure of the book and in the explorer.

Every figure that draws a model (:mod:`mope.book.reproduction_figures`, :mod:`mope.book.learned_figures`,
:mod:`mope.book.stress_figures`, :mod:`mope.book.plots`, the chapters' own figures and the Bokeh figures of
:mod:`mope.book.explorer`) takes its colour from :func:`colour`. The colours are hex strings, which matplotlib and Bokeh read alike; ``tests/test_palette.py`` reads the colours the
figures actually draw and checks that each model keeps one colour everywhere and no two models share
one.

Things that are not models use colours outside the palette: :data:`NEUTRAL` for references (the unit
circle of the $\\sigma\\to\\infty$ limit, a bound, a decay-only curve), :data:`CHANNELS` for the two channels
of one MoPE pair.

The verdicts of the claims have colours of their own (:data:`VERDICT_COLOURS`, drawn by
:mod:`mope.book.claims_figure`): each stands out from the figure's white and from its light grey bands by at
least :data:`MIN_CONTRAST` (WCAG 2's contrast for graphics), which ``tests/test_palette.py`` computes.
"""
from __future__ import annotations

#: One colour per model of the registry (``mope.model.variants.VARIANTS``), as hex strings.
MODEL_COLOURS: dict[str, str] = {
    # the six models of Table 2
    "BASE-DOT": "#333333",
    "PE-SINCOS": "#ff7f0e",
    "PE-ROPE": "#2ca02c",
    "PE-MORLET": "#d62728",
    "EGA-1": "#1f77b4",
    "EGA-MORLET": "#9467bd",
    # the controls and the paper's proposals
    "NOPE": "#7f7f7f",
    "PE-SINCOS-SCALED": "#8c564b",
    "ROPE-ONLY": "#bcbd22",
    "ALIBI": "#17becf",
    "EGA-1-CAUSAL": "#e377c2",
    "EGA-MORLET-CAUSAL": "#4b0082",
    "PE-MORLET-NODECAY": "#b8860b",
    "PE-MORLET-FREE": "#008080",
    "PE-MORLET-CENTRED": "#fa8072",
    "MORLET-ROPE": "#006400",
    "MORLET-ROPE-REL": "#32cd32",
}

#: The colour of a model the registry does not know (a test's fixture).
UNKNOWN = "#000000"
#: References that are no model: the unit circle of σ = ∞, a bound, a decay-only curve.
NEUTRAL = "#555555"
#: Channel 2i (cos, drawn solid) and 2i+1 (sin, dashed) of one MoPE pair in the explorer.
CHANNELS = ("#1a1a1a", "#8c8c8c")

#: What the encodings chapter draws, by the model whose encoding or gate it is.
ENCODINGS = {"learned table": "BASE-DOT", "sin/cos": "PE-SINCOS", "RoPE": "PE-ROPE", "MoPE": "PE-MORLET",
             "ALiBi": "ALIBI", "Morlet-RoPE": "MORLET-ROPE", "EGA-1 gate": "EGA-1",
             "causal EGA-1 gate": "EGA-1-CAUSAL"}


#: WCAG 2.1's least contrast ratio for the parts of a graphic a reader needs (success criterion 1.4.11).
MIN_CONTRAST = 3.0
#: The backgrounds a verdict is drawn on: the page's white and the light grey of every other claim's band.
WHITE, BAND_SHADE = "#ffffff", "#f0f0f0"
#: One colour per verdict (an ``outcome`` of :mod:`mope.evidence.verdicts`): the hues of the Okabe–Ito set,
#: which readers with a colour-vision deficiency tell apart, darkened where needed to reach
#: :data:`MIN_CONTRAST` on :data:`BAND_SHADE` (Okabe–Ito's orange #E69F00 and sky blue #56B4E9 reach 2.25 and
#: 2.31 on white); the figure tells them apart by shape and fill as well.
VERDICT_COLOURS: dict[str, str] = {
    "confirmed": "#0072B2",  # blue
    "refuted": "#D55E00",  # vermilion
    "undecided": "#A87400",  # orange, darkened
    "indicative": "#000000",
    "moot": "#B35C9A",  # reddish purple, darkened
    "not_judged": "#00879A",  # sky blue, darkened to a teal: a darker sky blue is hard to tell from confirmed's blue
}
#: A verdict word no colour is given to (one added since): a grey that keeps the contrast.
UNKNOWN_VERDICT = "#767676"


def colour(model: str) -> str:
    """The colour of ``model`` (a variant's name, or an encoding's name of :data:`ENCODINGS`)."""
    return MODEL_COLOURS.get(ENCODINGS.get(model, model), UNKNOWN)
