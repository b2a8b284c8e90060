"""One colour per model, the same in every figure of the book and in the explorer.

Every figure that draws a model (:mod:`mope.book.figures`, :mod:`mope.book.plots`, the chapters' own figures and
the Bokeh figures of :mod:`mope.book.explorer`) takes its colour from :func:`colour`. The colours are hex
strings, which matplotlib and Bokeh read alike; ``tests/test_palette.py`` reads the colours the
figures actually draw and checks that each model keeps one colour everywhere and no two models share
one.

Things that are not models use colours outside the palette: :data:`NEUTRAL` for references (the unit
circle of the $\\sigma\\to\\infty$ limit, a bound, a decay-only curve), :data:`CHANNELS` for the two channels
of one MoPE pair.
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


def colour(model: str) -> str:
    """The colour of ``model`` (a variant's name, or an encoding's name of :data:`ENCODINGS`)."""
    return MODEL_COLOURS.get(ENCODINGS.get(model, model), UNKNOWN)
