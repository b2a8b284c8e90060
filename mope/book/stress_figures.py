"""The figures of the stress tests (chapter 6): what changing one token does to the logits at every position,
and the gaps between models at two context lengths, every seed. How a figure looks is
:mod:`mope.book.figure_style`'s.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from mope.book.figure_style import book_style, colour, empty_panel, label_y, legend_below, panels


def plot_future_token_effect(effects: Mapping[str, np.ndarray], changed_at: int, floor: float = 1e-12):
    """Largest change of the logits at every position when the token at ``changed_at`` is replaced."""
    with book_style():
        fig, (ax,) = panels(1, height=2.8)
        for name, effect in effects.items():
            ax.semilogy(np.arange(len(effect)), np.maximum(effect, floor), marker=".", color=colour(name), label=name)
        ax.axvline(changed_at, color="grey", lw=0.8)
        ax.annotate(f"token changed at {changed_at}", (changed_at, floor * 1e3), xytext=(4, 0),
                    textcoords="offset points")
        ax.set(xlabel="position i", ylabel=f"largest |Δ logit| ({floor:g} = none)")
        ax.grid(alpha=0.3)
        legend_below(fig, [ax])
    return fig


def plot_context_gaps(short: list[dict], long: list[dict], contexts: tuple[int, int],
                      panels_of: Sequence[Sequence[tuple[str, str]]] = (
                          (("PE-MORLET", "BASE-DOT"), ("NOPE", "BASE-DOT")), (("PE-SINCOS", "PE-MORLET"),)),
                      published: Mapping[tuple[str, str], float] | None = None):
    """L(first) − L(second) at two context lengths, one panel per group of pairs (``panels_of``), every
    seed a point joined by a line across contexts (seed s of one preset to seed s of the other), in the
    colour of ``first``; ``published``: the paper's single-seed gap at T=256, drawn as a cross."""
    import matplotlib.pyplot as plt

    from mope.evidence.estimates import paired

    ticks = sorted({*contexts, *([256] if published else [])})
    with book_style():
        fig, axes = panels(len(panels_of), height=2.3)
        for ax, pairs in zip(axes, panels_of):
            drawn = False
            for first, second in pairs:
                at_short, at_long = paired(short, first, second), paired(long, first, second)
                for index, seed in enumerate(sorted(set(at_short.values) | set(at_long.values))):
                    xs = [c for c, values in zip(contexts, (at_short.values, at_long.values)) if seed in values]
                    ys = [values[seed] for values in (at_short.values, at_long.values) if seed in values]
                    label = f"L({first}) − L({second})" if index == 0 and len(pairs) > 1 else None
                    ax.plot(xs, ys, "o-", color=colour(first), alpha=0.7, markersize=4, label=label)
                    drawn = True
                if published and (first, second) in published:
                    ax.plot([256], [published[(first, second)]], "x", color="#000000", markersize=8,
                            label="paper (T=256, one seed)")
            if not drawn:
                empty_panel(ax, " and ".join(f"{first} − {second}" for first, second in pairs))
                continue
            ax.axhline(0, color="#888888", linewidth=0.8)
            ax.set_xscale("log", base=2)
            ax.set_xticks(ticks, [str(c) for c in ticks])
            ax.set_title(f"L({pairs[0][0]}) − L({pairs[0][1]})" if len(pairs) == 1 else f"gaps to {pairs[0][1]}")
            ax.set_xlabel("context T (tokens)")
        label_y(axes, "gap (nats)")
        legend_below(fig, axes)
    plt.close(fig)
    return fig
