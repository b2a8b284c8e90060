r"""How a figure of the book looks: drawn for the text column of a phone, panels stacked, :data:`COLUMN_WIDTH`
inches wide at 100 dpi, so that text set at 9 pt is shown at no less than :data:`SMALLEST_FONT_PT` on a 1280 px
screen (at its natural size) and on a 400 px one (shrunk to the :data:`PHONE_COLUMN_PX` column); one colour a
model (:mod:`mope.book.palette`), greys for presets, one legend below the panels, and a panel that says so where
no run is stored.

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
DPI = 100  # pixels an inch of every figure of the book; a CSS inch is 96 px
#: Inches: a figure this wide, saved with the 0.1 inch margin the notebook adds on each side (3.65 inches, 365 px),
#: is shown on a phone at 353/365 of its size, its 9 pt at 9 × 100/96 × 353/365 ≈ 9.07 CSS pt; on a wide
#: screen it is shown whole, in the 660 px column.
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


def plain_log_ticks(ax, candidates=(0.2, 0.3, 0.5, 1, 1.5, 2, 3, 4, 5, 7, 10, 20, 50), axes: str = "xy") -> None:
    """Label log axes (``axes``: "x", "y" or both) with plain numbers that fall inside them (a range under
    one decade has no 10^k tick)."""
    from matplotlib.ticker import NullFormatter, NullLocator

    chosen = {"x": (ax.xaxis, ax.get_xlim()), "y": (ax.yaxis, ax.get_ylim())}
    for axis, limits in (chosen[name] for name in axes):
        ticks = [t for t in candidates if limits[0] <= t <= limits[1]]
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
