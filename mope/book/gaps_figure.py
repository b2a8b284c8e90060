"""The introduction's answer as a picture: each model of Table 2 against the learned table, on every scale.

:func:`table_2_gaps` reads, from the stored runs of each preset trained on characters (the paper's Δ is in
nats a character; a preset on subword tokens measures nats a token), each model's Δ = L(BASE-DOT) − L(model)
seed by seed (:func:`mope.evidence.estimates.improvement`, the random-batch validation loss the paper's
Table 2 reports), with its 95% interval over seeds, and the paper's own Δ
(:data:`mope.evidence.paper.TABLE_2_DELTA`). :func:`plot_table_2_gaps` draws them: a panel per model, stacked
(each the column's width, so that it reads on a phone), a row per preset, the paper's own protocol first;
our mean a dot (hollow: one seed, no interval), its interval a bar, the paper's Δ a black line, 0 a dotted
one. Each panel has its own scale: the models' gaps differ by ten times. Nothing here computes a number
that the estimates do not.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from mope.book.figure_style import COLUMN_WIDTH, book_style
from mope.book.palette import NEUTRAL
from mope.evidence import estimates, paper
from mope.model.variants import TABLE_2
from mope.store.presets import STANDING_PRESETS, get_preset

BASELINE = TABLE_2[0]  # BASE-DOT: the learned table every Δ of Table 2 is taken against
ROW = 0.155  # inches a preset's row
PANEL_EXTRA = 0.56  # inches a panel beyond its rows: its title and its ticks
HEADER = 0.85  # inches above the panels: what the horizontal axis says, the legend
LEFT, RIGHT = 0.37, 0.95  # the panels' edges, in the figure's width: the presets' names on the left


def signed(value: float) -> str:
    """"+0.119", "−0.032": a Δ with its sign, a true minus."""
    return f"{value:+.3f}".replace("-", "−")


class Gap(NamedTuple):
    """One model on one preset: our Δ over the seeds paired with BASE-DOT, and the paper's Δ."""

    estimate: estimates.Estimate
    paper: float


def character_presets(stored: Mapping[str, Sequence[dict]]) -> list[str]:
    """The presets of ``stored`` ({preset: its runs}) with runs, trained on characters, in the order of
    :data:`mope.store.presets.STANDING_PRESETS` (the paper's protocol first)."""
    return [preset for preset in STANDING_PRESETS if stored.get(preset) and get_preset(preset).tokenizer is None]


def table_2_gaps(stored: Mapping[str, Sequence[dict]]) -> dict[str, dict[str, Gap]]:
    """{model of Table 2 but BASE-DOT: {preset: its :class:`Gap`}} for every preset of
    :func:`character_presets` where the model has a seed paired with BASE-DOT, in their order."""
    presets = character_presets(stored)
    gaps = {}
    for model in TABLE_2[1:]:
        found = {preset: estimates.improvement(stored[preset], model, BASELINE) for preset in presets}
        gaps[model] = {preset: Gap(estimate, paper.TABLE_2_DELTA[model]) for preset, estimate in found.items()
                       if estimate.n}
    return gaps


def _limits(gaps: Mapping[str, Gap]) -> tuple[float, float]:
    """A panel's horizontal range: 0, the paper's Δ, every mean and interval, with a margin."""
    values = [0.0, *(gap.paper for gap in gaps.values())]
    for gap in gaps.values():
        values += [gap.estimate.mean, *(gap.estimate.interval or ())]
    low, high = min(values), max(values)
    margin = 0.08 * (high - low) or 0.01
    return low - margin, high + margin


def plot_table_2_gaps(gaps: Mapping[str, Mapping[str, Gap]], presets: Sequence[str]):
    """The panels of :func:`table_2_gaps`' ``gaps``, a row for each of ``presets`` in every panel (a preset
    without the model's runs: its row says "not run"). In each panel (an axes labelled with the model's name)
    the mean is the line with gid "estimate", the interval the line with gid "interval", the paper's Δ the
    line with gid "paper". No preset: a figure that says no run is stored."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    if not presets:  # nothing stored yet (a fresh checkout, the smoke preset): a figure that says so
        with book_style():
            fig = plt.figure(figsize=(COLUMN_WIDTH, 0.6))
            fig.add_subplot().set_axis_off()  # IPython draws no figure without an axes
            fig.text(0.5, 0.5, "no runs of Table 2's models are stored", ha="center", va="center")
        return fig
    panel = ROW * len(presets) + PANEL_EXTRA
    height = HEADER + panel * len(gaps)
    with book_style():
        fig = plt.figure(figsize=(COLUMN_WIDTH, height))
        grid = fig.add_gridspec(len(gaps), 1, left=LEFT, right=RIGHT, top=1 - (HEADER + 0.25) / height,
                                bottom=0.35 / height, hspace=(PANEL_EXTRA - 0.05) / (ROW * len(presets)))
        for index, (model, found) in enumerate(gaps.items()):
            ax = fig.add_subplot(grid[index, 0], label=model)
            ax.set_ylim(len(presets) - 0.5, -0.5)
            ax.set_yticks(range(len(presets)), labels=[
                f"{preset} (n={found[preset].estimate.n})" if preset in found else preset for preset in presets])
            ax.tick_params(axis="y", length=0)
            ax.axvline(0, color=NEUTRAL, lw=0.9, ls=":")
            ax.axvline(paper.TABLE_2_DELTA[model], color="#000000", lw=1.4, gid="paper")
            for row, preset in enumerate(presets):
                if preset not in found:
                    ax.text(0.5, row, "not run", transform=ax.get_yaxis_transform(), ha="center", va="center",
                            color="#555555", bbox={"fc": "white", "ec": "none", "pad": 0.5})
                    continue
                estimate = found[preset].estimate
                if estimate.interval is not None:
                    ax.plot(estimate.interval, (row, row), color="#000000", lw=1.8, solid_capstyle="butt",
                            gid="interval")
                ax.plot([estimate.mean], [row], ls="none", marker="o", ms=5.5, mew=1.3, color="#000000",
                        mfc="#000000" if estimate.n > 1 else "white", gid="estimate", zorder=3)
            ax.set_xlim(*_limits(found) if found else (-0.1, 0.1))
            ax.text(-LEFT / (RIGHT - LEFT), 1.06, model, transform=ax.transAxes, ha="left",
                    va="bottom", fontweight="bold")
            ax.text(1, 1.06, f"the paper's Δ: {signed(paper.TABLE_2_DELTA[model])}", transform=ax.transAxes, ha="right",
                    va="bottom")
            ax.grid(alpha=0.3, axis="x")
        fig.text(0.02, 1 - 0.06 / height, "Δ = L(BASE-DOT) − L(model), nats a character;\n"
                 "right of 0: a loss below the learned table's", ha="left", va="top")
        handles = [Line2D([], [], marker="o", color="#000000", ms=5.5, label="ours, 95% interval"),
                   Line2D([], [], marker="o", mfc="white", color="#000000", ls="none", ms=5.5, label="ours, one seed"),
                   Line2D([], [], color="#000000", lw=1.4, label="the paper's Δ"),
                   Line2D([], [], color=NEUTRAL, lw=0.9, ls=":", label="0: no gap")]
        fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.0, 1 - 0.4 / height), ncol=2, frameon=False,
                   handlelength=1.6, columnspacing=1.0, borderaxespad=0.2)
    return fig
