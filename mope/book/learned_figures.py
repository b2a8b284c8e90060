"""The figures of what MoPE learns (chapters 5 and 7), drawn from the learned pairs of stored runs: the (σ, ω)
plane, the boundary ωσ = 5, σ in characters at each tokenization, the learned centres and the pairs without the
bound, each beside what weight decay alone would leave. How a figure looks is :mod:`mope.book.figure_style`'s.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from mope.book import palette
from mope.book.figure_style import (COLUMN_WIDTH, PRESET_SHADES, book_style, colour, empty_panel,
                                    gridded_with_legend, legend_below, panels, plain_log_ticks)
from mope.evidence import learned_parameters
from mope.model.positional.morlet import ADMISSIBILITY_BOUND


def plot_uncertainty_plane(runs: list[dict], variant: str, reference: Mapping[str, np.ndarray]):
    """Top: every learned pair of every seed in the (σ, ω) plane, with ωσ = 5, the initial and the
    decay-only pairs. Below: σ_i against the pair index, learned (each seed), initial and decay-only."""
    with book_style():
        fig, (plane, sigma_axis) = panels(2)
        found = learned_parameters.morlet_runs(runs, variant)
        if not found:
            empty_panel(plane, variant)
            empty_panel(sigma_axis, variant)
            return fig
        first = next(iter(found.values()))
        pairs = np.arange(len(first["sigma"]))
        grid = np.linspace(min(min(a["sigma"].min() for a in found.values()), reference["sigma"].min()) * 0.9,
                           first["sigma_init"].max() * 1.05, 200)
        plane.plot(grid, ADMISSIBILITY_BOUND / grid, "k-", lw=1, label="ωσ = 5")
        plane.plot(first["sigma_init"], first["omega_init"], "--", color=palette.NEUTRAL, label="initial")
        plane.plot(reference["sigma"], reference["omega"], ":", color="k", lw=2, label="decay alone")
        sigma_axis.plot(pairs, first["sigma_init"], "--", color=palette.NEUTRAL)
        sigma_axis.plot(pairs, reference["sigma"], ":", color="k", lw=2)
        for k, (seed, arrays) in enumerate(sorted(found.items())):
            label = "learned (each seed)" if k == 0 else None
            plane.scatter(arrays["sigma"], arrays["omega"], s=8, color=colour(variant), alpha=0.6, label=label)
            sigma_axis.plot(pairs, arrays["sigma"], color=colour(variant), lw=1, alpha=0.7)
        plane.set(xlabel="σ (tokens)", ylabel="ω (rad/token)", title=f"{variant}: the (σ, ω) plane")
        sigma_axis.set(xlabel="pair index $i$", ylabel=r"$\sigma_i$ (tokens)",
                       title=r"$\sigma_i$: learned, initial, decay alone")
        for ax in (plane, sigma_axis):
            ax.grid(alpha=0.3)
        legend_below(fig, [plane])
    return fig


BOUNDARY_MARKERS = ("o", "s", "D", "^")


def plot_boundary(runs: list[dict], variants: Sequence[str], free_reference: tuple[str, float] | None = None):
    """Top: every learned pair on log–log axes against ω = 5/σ. Below: ωσ against the pair index, a model's
    median over seeds as a line and its range over seeds as a band (every seed's line drawn over the others
    cluttered the panel). Stacked, each panel the column's width. ``free_reference`` (variant, level): the ωσ
    weight decay alone leaves a variant without the bound at, drawn dashed in both panels."""
    import matplotlib.pyplot as plt

    with book_style():
        fig, (loglog, product_axis) = plt.subplots(2, 1, figsize=(COLUMN_WIDTH, 5.3), constrained_layout=True,
                                                   height_ratios=(1.3, 1))
        sigmas = []
        # hollow markers of a shape per variant, of decreasing size, the first variant drawn last (on top):
        # pairs of several variants at the same place stay visible as nested rings
        for index, name in reversed(list(enumerate(variants))):
            found = learned_parameters.morlet_runs(runs, name)
            marker, size = BOUNDARY_MARKERS[index % len(BOUNDARY_MARKERS)], 14 + 10 * (len(variants) - 1 - index)
            for k, arrays in enumerate(found.values()):
                label = f"{name} (n={len(found)})" if k == 0 else None
                loglog.scatter(arrays["sigma"], arrays["omega"], s=size, marker=marker, facecolors="none",
                               edgecolors=colour(name), linewidths=0.8, alpha=0.8, label=label,
                               zorder=3 + len(variants) - index)
                sigmas.append(arrays["sigma"])
            if found:
                products = np.array([arrays["omega"] * arrays["sigma"] for arrays in found.values()])
                pairs = np.arange(products.shape[1])
                product_axis.fill_between(pairs, products.min(axis=0), products.max(axis=0), color=colour(name),
                                          alpha=0.2, lw=0)
                product_axis.plot(pairs, np.median(products, axis=0), lw=1.2, color=colour(name))
        if not sigmas:
            empty_panel(loglog, "these MoPE variants")
            empty_panel(product_axis, "these MoPE variants")
            return fig
        grid = np.geomspace(min(s.min() for s in sigmas) / 1.3, max(s.max() for s in sigmas) * 1.3, 100)
        loglog.plot(grid, ADMISSIBILITY_BOUND / grid, "k-", lw=1, label="ω = 5/σ")
        product_axis.axhline(ADMISSIBILITY_BOUND, color="k", lw=1)
        if free_reference is not None:
            name, level = free_reference
            loglog.plot(grid, level / grid, "--", color=colour(name), lw=1.2,
                        label=f"{name}, decay alone: ωσ = {level:.2f}")
            product_axis.axhline(level, color=colour(name), ls="--", lw=1.2)
        loglog.set(xscale="log", yscale="log", xlabel="σ (tokens)", ylabel="ω (rad/token)")
        loglog.set_title("learned pairs (every seed)", loc="left")
        plain_log_ticks(loglog)
        product_axis.set(xlabel="pair index $i$", ylabel=r"$\omega_i\sigma_i$")
        product_axis.set_title("ωσ per pair: median and range over seeds", loc="left")
        for ax in (loglog, product_axis):
            ax.grid(alpha=0.3, which="both")
        legend_below(fig, [loglog])
    return fig


def plot_sigma_in_characters(tokenizations: Mapping[str, tuple[list[dict], float, np.ndarray]], variant: str,
                             word: float, beyond: float):
    """σ_i of ``variant`` in characters against the pair index, at each tokenization: ``tokenizations``
    {label: (its runs, characters a token, its decay-only σ in tokens)}, every seed a solid line and the
    decay-only σ a dotted one, in one shade of grey per tokenization (they are presets, not models);
    dashed: one word (``word`` characters) and the claim's threshold (``beyond`` characters). A
    tokenization without runs keeps its decay-only line and says so in the legend."""
    import matplotlib.pyplot as plt

    with book_style():
        fig, (ax,) = panels(1, height=2.7)
        if len(tokenizations) > len(PRESET_SHADES):
            raise ValueError(f"{len(tokenizations)} tokenizations; a figure tells at most {len(PRESET_SHADES)} apart")
        shades = PRESET_SHADES[::2] if len(tokenizations) <= 2 else PRESET_SHADES  # two: the farthest apart
        for shade, (label, (runs, per_token, reference)) in zip(shades, tokenizations.items()):
            found = learned_parameters.morlet_runs(runs, variant)
            for k, arrays in enumerate(found.values()):
                ax.plot(arrays["sigma"] * per_token, color=shade, lw=1, alpha=0.8,
                        label=f"{label}: learned (n={len(found)})" if k == 0 else None)
            ax.plot(np.asarray(reference) * per_token, ":", color=shade, lw=2,
                    label=f"{label}: decay alone" + ("" if found else " (no run yet)"))
        for level, text in ((word, "one word"), (beyond, "two words: the claim's threshold")):
            ax.axhline(level, color=palette.NEUTRAL, ls="--", lw=1)
            ax.annotate(f"{text} ({level:.1f})", (1.0, level), xycoords=("axes fraction", "data"), xytext=(-3, 3),
                        textcoords="offset points", ha="right", color="#444444")
        ax.set_yscale("log")
        ax.set(xlabel="pair index $i$", ylabel=r"$\sigma_i$ (characters)", title=f"{variant}: σ in characters")
        low, high = ax.get_ylim()
        ax.set_ylim(low, max(high, beyond * 1.5))  # room above the threshold for its label
        plain_log_ticks(ax, (1, 1.5, 2, 3, 5, 7, 10, 15, 20, 30, 50), axes="y")
        ax.grid(alpha=0.3, which="both")
        legend_below(fig, [ax])
    plt.close(fig)
    return fig


def plot_centres(runs: list[dict], variant: str = "PE-MORLET-CENTRED", threshold: float = 1.0):
    """Top: each pair's learned centre b₀ (tokens) against its index, every seed; 0 is the origin, where
    the published encoding and weight decay alone keep it. Below: b₀ in units of its pair's σ, with the
    claim's ``threshold``."""
    import matplotlib.pyplot as plt

    from mope.evidence.open_questions import centre_runs

    with book_style():
        fig, (centre_axis, ratio_axis) = panels(2, height=2.3)
        found = centre_runs(runs, variant)
        if not found:
            empty_panel(centre_axis, variant)
            empty_panel(ratio_axis, variant)
            plt.close(fig)
            return fig
        for k, arrays in enumerate(found.values()):
            label = f"{variant} (n={len(found)})" if k == 0 else None
            centre_axis.plot(arrays["centre"], "o", markersize=3, color=colour(variant), alpha=0.7, label=label)
            ratio_axis.plot(arrays["centre"] / arrays["sigma"], "o", markersize=3, color=colour(variant), alpha=0.7)
        centre_axis.axhline(0, color="k", lw=1, label="origin: b₀ = 0 (decay alone)")
        ratio_axis.axhline(0, color="k", lw=1)
        ratio_axis.axhline(threshold, color="k", ls="--", lw=1, label=f"the claim's threshold: b₀ = {threshold:g}σ")
        centre_axis.set(xlabel="pair index $i$", ylabel="$b_{0,i}$ (tokens)", title="learned centres")
        ratio_axis.set(xlabel="pair index $i$", ylabel=r"$b_{0,i}/\sigma_i$", title="centres in units of σ")
        gridded_with_legend(fig, [centre_axis, ratio_axis])
    plt.close(fig)
    return fig


def plot_without_bound(runs: list[dict], free: str, bounded: str, decay_level: float):
    """Top: ωσ of every pair of ``free`` (no bound) against its index, every seed, with the bound 5 and the
    level ``decay_level`` weight decay alone leaves it at. Below: σ_i of ``free`` and of ``bounded``, every
    seed: what removing the bound does to each pair's width."""
    import matplotlib.pyplot as plt

    with book_style():
        fig, (product_axis, sigma_axis) = panels(2, height=2.3)
        found = learned_parameters.morlet_runs(runs, free)
        if not found:
            empty_panel(product_axis, free)
            empty_panel(sigma_axis, free)
            plt.close(fig)
            return fig
        for name in (bounded, free):
            seeds = learned_parameters.morlet_runs(runs, name)
            for k, arrays in enumerate(seeds.values()):
                sigma_axis.plot(arrays["sigma"], color=colour(name), lw=1, alpha=0.8,
                                label=f"{name} (n={len(seeds)})" if k == 0 else None)
                if name == free:
                    product_axis.plot(arrays["omega"] * arrays["sigma"], color=colour(name), lw=1, alpha=0.8)
        product_axis.axhline(ADMISSIBILITY_BOUND, color="k", lw=1, label="the bound ωσ = 5")
        product_axis.axhline(decay_level, color="k", ls=":", lw=2, label=f"{free}, decay alone: {decay_level:.2f}")
        product_axis.set(xlabel="pair index $i$", ylabel=r"$\omega_i\sigma_i$", title=f"{free}: ωσ per pair")
        sigma_axis.set(xlabel="pair index $i$", ylabel=r"$\sigma_i$ (tokens)", title="σ with and without the bound")
        gridded_with_legend(fig, [product_axis, sigma_axis])
    plt.close(fig)
    return fig
