r"""How a figure of the book looks: drawn for the text column of a phone, panels stacked, :data:`COLUMN_WIDTH`
inches wide and laid out at :data:`DPI` CSS pixels an inch, so that text set at 9 pt is shown at no less than
:data:`SMALLEST_FONT_PT` on a 1280 px screen (at its size on the page) and on a 400 px one (shrunk to the
:data:`PHONE_COLUMN_PX` column); saved at :data:`PIXEL_DENSITY` image pixels a CSS pixel (:mod:`mope.book.figure_png`),
so that a phone's screen, 2 to 3 device pixels a CSS pixel, shows it sharp; one colour a model
(:mod:`mope.book.palette`), greys for presets, one legend below the panels, and a panel that says so where no run is
stored.

The figures drawn from stored runs use it: reproducing Table 2 (:mod:`mope.book.reproduction_figures`), what
MoPE learns (:mod:`mope.book.learned_figures`), the stress tests (:mod:`mope.book.stress_figures`), the
introduction's (:mod:`mope.book.gaps_figure`, :mod:`mope.book.claims_figure`); the chapters that draw their own
figures take :data:`BOOK_STYLE` and :data:`COLUMN_WIDTH`.
"""
from __future__ import annotations

from contextlib import contextmanager

from mope.book import palette

#: The book's smallest text, in CSS points as a reader's screen shows it, on a 1280 px screen and a 400 px one.
SMALLEST_FONT_PT = 9
#: The text column of a 400 px screen, in CSS px, as the browser check measures it: 400 px less the scroll bar
#: (15) and the article's padding (2 × 16); a wider figure is shrunk to it, its text with it.
PHONE_COLUMN_PX = 353
#: CSS pixels an inch of every figure of the book as its page shows it; a CSS inch is 96 px
DPI = 100
#: Image pixels a CSS pixel: a figure is saved at DPI × PIXEL_DENSITY (200 dpi) and shown at DPI, its <img> as
#: wide as half its pixels (mope.book.figure_png), so that it stays sharp on a screen of 2 device pixels a CSS pixel.
PIXEL_DENSITY = 2
#: Inches: a figure this wide, saved with the 0.1 inch margin the notebook adds on each side (3.65 inches, shown
#: 365 CSS px wide, 730 pixels), is shown on a phone at 353/365 of its size, its 9 pt at 9 × 100/96 × 353/365 ≈ 9.07
#: CSS pt; on a wide screen it is shown whole, in the 660 px column.
COLUMN_WIDTH = 3.45
BOOK_STYLE = {"font.size": 9, "axes.titlesize": 9, "axes.labelsize": 9, "xtick.labelsize": 9,
              "ytick.labelsize": 9, "legend.fontsize": 9, "figure.dpi": DPI, "savefig.dpi": DPI}
# Presets and sweep candidates are not models: shades of grey and a sequential map, never a model's colour.
PRESET_SHADES = ("#000000", "#6a6a6a", "#a0a0a0")


@contextmanager
def book_style():
    import matplotlib.pyplot as plt

    with plt.rc_context(BOOK_STYLE):
        yield


def panels(count: int, height: float = 2.2):
    """``count`` panels stacked, each the column's width and ``height`` inches tall: one figure."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(count, 1, figsize=(COLUMN_WIDTH, height * count), squeeze=False,
                             constrained_layout=True)
    return fig, list(axes.flat)


def colour(variant: str) -> str:
    """One colour per variant across every figure of the book and the explorer (:mod:`mope.book.palette`)."""
    return palette.colour(variant)


LEGEND_MARKER_SCALE = 2.5  # scatter dots are small in the panel; in the legend they must be seen
LEGEND_PAIR_CHARACTERS = 21  # labels this long or shorter fit two to a row of the column at 9 pt


def legend_below(fig, axes) -> None:
    """One legend for ``axes``, below the figure (never over data), each label once, markers enlarged."""
    handles, labels = {}, []
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label not in handles:
                handles[label] = handle
                labels.append(label)
    if labels:
        columns = 2 if max(map(len, labels)) <= LEGEND_PAIR_CHARACTERS else 1
        fig.legend([handles[label] for label in labels], labels, loc="outside lower center",
                   ncol=min(len(labels), columns), frameon=False, markerscale=LEGEND_MARKER_SCALE)


def gridded_with_legend(fig, axes) -> None:
    """A light grid on each of ``axes`` and their one legend below the figure (:func:`legend_below`)."""
    for ax in axes:
        ax.grid(alpha=0.3)
    legend_below(fig, axes)


#: Room a tick label needs from its neighbour, in lines of its text: across (y) one line and a little; along (x)
#: half of each label's width (about 0.6 of its size a character) and half a line between them.
TICK_ROOM_LINES = 1.3


def _tick_rank(tick: float) -> int:
    """Which log tick gives way in a crowd: 1, 10 ... first, then 2 and 5, then 3, then the rest."""
    import math

    mantissa = round(tick / 10 ** math.floor(math.log10(tick)), 6)
    return {1: 0, 2: 1, 5: 1, 3: 2}.get(mantissa, 3)


def plain_log_ticks(ax, candidates=(0.2, 0.3, 0.5, 1, 1.5, 2, 3, 4, 5, 7, 10, 20, 50), axes: str = "xy") -> None:
    """Label log axes (``axes``: "x", "y" or both) with plain numbers that fall inside them (a range under
    one decade has no 10^k tick), none so close to another on the axis, as the figure is laid out, that their
    labels would touch (:data:`TICK_ROOM_LINES`): in a crowd 1, 10 ... are kept first, then 2 and 5, then 3."""
    import math

    from matplotlib.font_manager import FontProperties
    from matplotlib.ticker import NullFormatter, NullLocator

    fig = ax.figure
    fig.draw_without_rendering()  # the axes' size once the figure is laid out
    width, height = fig.get_size_inches()
    box = ax.get_position()
    chosen = {"x": (ax.xaxis, ax.get_xlim(), box.width * width), "y": (ax.yaxis, ax.get_ylim(), box.height * height)}
    for name in axes:
        axis, limits, length = chosen[name]
        size = FontProperties(size=axis.get_ticklabels()[0].get_fontsize() if axis.get_ticklabels()
                              else BOOK_STYLE[f"{name}tick.labelsize"]).get_size_in_points() / 72
        span = math.log(limits[1] / limits[0])

        def at(tick):
            return math.log(tick / limits[0]) / span * length

        def room(first, second):
            if name == "y":
                return TICK_ROOM_LINES * size
            return (len(f"{first:g}") + len(f"{second:g}")) / 2 * 0.6 * size + size / 2

        ticks = []
        for tick in sorted((t for t in candidates if limits[0] <= t <= limits[1]), key=_tick_rank):
            if all(abs(at(tick) - at(other)) >= room(tick, other) for other in ticks):
                ticks.append(tick)
        ticks.sort()
        axis.set_ticks(ticks, labels=[f"{t:g}" for t in ticks])
        axis.set_minor_locator(NullLocator())
        axis.set_minor_formatter(NullFormatter())


def empty_panel(ax, what: str) -> None:
    """``ax`` says that no run is stored for ``what``, its ticks and label left out."""
    ax.text(0.5, 0.5, f"no runs stored for {what}", ha="center", va="center", transform=ax.transAxes)
    ax.tick_params(left=False, bottom=False, labelleft=False, labelbottom=False)  # shared axes keep theirs
    ax.set_ylabel("")


def label_y(axes, label: str) -> None:
    """``label`` on the first panel of each row (the others share or repeat its axis)."""
    for ax in axes:
        if ax.get_subplotspec().is_first_col():
            ax.set_ylabel(label)
