r"""The figures of the reproduction chapters, drawn from stored runs (the figures that need no run are
:mod:`mope.book.plots`).

This module owns how a results figure looks in the book: drawn for the text column of a phone, panels
stacked, :data:`COLUMN_WIDTH` inches wide at 100 dpi, so that text set at 9 pt is shown at no less than
:data:`SMALLEST_FONT_PT` on a 1280 px screen (at its natural size) and on a 400 px one (shrunk to the
:data:`PHONE_COLUMN_PX` column); axis ranges chosen so that the differences the chapter discusses are visible (a model far off
the others is named at the edge of the panel instead of setting the scale). It draws only what the
runs stored; a preset without runs gets a panel that says so.
"""
from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from contextlib import contextmanager

import numpy as np

from mope.evidence import learned_parameters
from mope.book import palette
from mope.book.chapter_runs import step_shape
from mope.evidence.paper import RUN_TO_RUN
from mope.evidence.estimates import distance_to_paper, gap_by_tokens, gap_curve, history
from mope.model.positional.morlet import ADMISSIBILITY_BOUND
from mope.model.variants import TABLE_2

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
FAR_OFF = 2.0  # a curve that would stretch the others' axis more than this many times is named, not drawn


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
TITLE_CHARACTERS = 32  # a panel's title at 9 pt, wrapped to the width of a panel beside the models' names
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


def _empty(ax, what: str) -> None:
    ax.text(0.5, 0.5, f"no runs stored for {what}", ha="center", va="center", transform=ax.transAxes)
    ax.tick_params(left=False, bottom=False, labelleft=False, labelbottom=False)  # shared axes keep theirs
    ax.set_ylabel("")


def label_y(axes, label: str) -> None:
    """``label`` on the first panel of each row (the others share or repeat its axis)."""
    for ax in axes:
        if ax.get_subplotspec().is_first_col():
            ax.set_ylabel(label)


# --- reproducing Table 2 ------------------------------------------------------------------------------

def far_off(finals: Mapping[str, float], ratio: float = FAR_OFF) -> set[str]:
    """The curve furthest from 0 at the end, if drawing it to scale would stretch the axis the others
    (and 0) need, at least 0.05 nats, more than ``ratio`` times: it would flatten their differences."""
    if len(finals) < 2:
        return set()
    furthest = max(finals, key=lambda v: abs(finals[v]))
    others = [0.0, *(value for name, value in finals.items() if name != furthest)]
    span = max(others) - min(others)
    stretched = max(*others, finals[furthest]) - min(*others, finals[furthest])
    return {furthest} if stretched > ratio * max(span, 0.05) else set()


def plot_gap_to_baseline(runs: Mapping[str, list[dict]], variants: Sequence[str], baseline: str = "BASE-DOT",
                         paper_delta: Mapping[str, float] | None = None):
    """Each model's Δ = L(baseline) − L(model) at every evaluation of the last three quarters of training,
    where the gaps the chapter reads settle (mean over seeds, band ± 1 sd), one panel per preset; the
    paper's final Δ as a mark at the right edge. The vertical axis holds every curve drawn (the early
    transients are left out, not cut off at the axis), and a curve far off the others is named in the
    title instead (:func:`far_off`)."""
    with book_style():
        fig, axes = panels(len(runs))
        for ax, (preset, preset_runs) in zip(axes, runs.items()):
            curves = {v: gap_curve(preset_runs, v, baseline) for v in variants}
            curves = {v: c for v, c in curves.items() if c}
            if not curves:
                _empty(ax, f"preset {preset!r}")
                continue
            finals = {v: float(np.mean(c[max(c)])) for v, c in curves.items()}
            hidden = far_off(finals)
            last = max(max(c) for c in curves.values())
            seeds = sorted({len(c[max(c)]) for c in curves.values()})
            shown = [0.0]  # the values the axis is fitted to: the last three quarters of training
            for name, curve in curves.items():
                if name in hidden:
                    continue
                steps = np.array([s for s in sorted(curve) if s >= last / 4])
                mean = np.array([np.mean(curve[s]) for s in steps])
                sd = np.array([np.std(curve[s], ddof=1) if len(curve[s]) > 1 else 0.0 for s in steps])
                ax.plot(steps, mean, marker="o", ms=3, color=colour(name), label=name)
                ax.fill_between(steps, mean - sd, mean + sd, color=colour(name), alpha=0.2, lw=0)
                shown += [*(mean - sd), *(mean + sd)]
                if paper_delta and name in paper_delta:
                    ax.plot([last * 1.04], [paper_delta[name]], marker="<", color=colour(name), ms=6, clip_on=False,
                            ls="none")
                    shown.append(paper_delta[name])
            if paper_delta:
                ax.plot([], [], marker="<", color="0.3", ls="none", label="paper's Δ (at 5,000 steps)")
            margin = 0.08 * (max(shown) - min(shown)) or 0.01
            ax.set_ylim(min(shown) - margin, max(shown) + margin)
            ax.axhline(0, color="k", lw=0.8)
            n = f"{seeds[0]}" if len(seeds) == 1 else f"{seeds[0]}–{seeds[-1]}"
            title = f"preset {preset!r} (n = {n} seed{'s' if seeds[-1] > 1 else ''})"
            if hidden:
                title += "\noff scale: " + ", ".join(f"{v} ({finals[v]:+.2f} at the end)" for v in hidden)
            ax.set(title=title, xlabel="step", xlim=(last / 4 - last * 0.03, last * 1.08))
            ax.grid(alpha=0.3)
        label_y(axes, f"L({baseline}) − L(model), nats")
        legend_below(fig, axes)
    return fig


def plot_validation_curves(runs: Mapping[str, list[dict]], variants: Sequence[str]):
    """Random-batch validation loss at every evaluation, mean over seeds with the min–max band, per preset."""
    with book_style():
        fig, axes = panels(len(runs))
        for ax, (preset, preset_runs) in zip(axes, runs.items()):
            drawn = False
            for name in variants:
                seeds = history(preset_runs, name)
                if not seeds:
                    continue
                steps = sorted(set.intersection(*(set(h) for h in seeds.values())))
                values = np.array([[h[s] for s in steps] for h in seeds.values()])
                ax.plot(steps, values.mean(axis=0), color=colour(name), label=name)
                ax.fill_between(steps, values.min(axis=0), values.max(axis=0), color=colour(name), alpha=0.2, lw=0)
                drawn = True
            if not drawn:
                _empty(ax, f"preset {preset!r}")
                continue
            ax.set(title=f"preset {preset!r}", xlabel="step")
            ax.grid(alpha=0.3)
        label_y(axes, "validation loss (nats/char)")
        legend_below(fig, axes)
    return fig


def plot_distance_to_table_2(runs: Mapping[str, list[dict]], variants: Sequence[str] = TABLE_2,
                             noise: float = RUN_TO_RUN, published: str = "paper"):
    """Our loss minus the paper's Table 2 "Val", per model (rows; bars ± 1 sd over seeds), on linear axes: the
    ``published`` protocol in a panel of its own on the scale of the paper's run-to-run ``noise`` (shaded),
    drawn in black, the key series; the smaller presets below it, on the scale of their own distances (markers
    a preset). Stacked, each panel the column's width."""
    measured = {preset: distance_to_paper(preset_runs, variants) for preset, preset_runs in runs.items()}
    measured = {preset: distances for preset, distances in measured.items() if distances}
    groups = [group for group in ([p for p in measured if p == published], [p for p in measured if p != published])
              if group]
    with book_style():
        height = 0.24 * len(variants) + 0.75
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(max(len(groups), 1), 1, figsize=(COLUMN_WIDTH, height * max(len(groups), 1) + 0.45),
                                 squeeze=False, constrained_layout=True)
        axes = list(axes.flat)
        if not groups:
            _empty(axes[0], "any preset")
            return fig
        markers = "osD^v"
        for ax, group in zip(axes, groups):
            ax.axvspan(-noise, noise, color="0.88", lw=0, label=f"± {noise:g} nats (the paper's rerun noise)")
            ax.axvline(0, color="k", lw=0.8)
            drawn = [-2 * noise, 2 * noise]
            for index, preset in enumerate(group):
                distances = measured[preset]
                key = preset == published
                offset = 0.0 if len(group) == 1 else 0.22 * (index - (len(group) - 1) / 2)
                rows = [variants.index(name) for name in distances]
                x = [distance.mean for distance in distances.values()]
                err = [distance.sd or 0.0 for distance in distances.values()]
                n = sorted({distance.n for distance in distances.values()})
                seeds = f"n = {n[0]}" if len(n) == 1 else f"n = {n[0]}–{n[-1]}"
                shade = "#000000" if key else PRESET_SHADES[1:][index % (len(PRESET_SHADES) - 1)]
                ax.errorbar(x, [row + offset for row in rows], xerr=err, ls="none", marker=markers[index % 5],
                            ms=7 if key else 5, capsize=2, color=shade, zorder=4 if key else 3,
                            label=f"{preset} ({seeds})")
                drawn += [*(a - e for a, e in zip(x, err)), *(a + e for a, e in zip(x, err))]
            span = max(drawn) - min(drawn)
            ax.set_xlim(min(drawn) - 0.08 * span, max(drawn) + 0.08 * span)
            ax.set_yticks(range(len(variants)), labels=list(variants))
            ax.set_ylim(len(variants) - 0.5, -0.5)
            names = ", ".join(group)
            ax.set_title(textwrap.fill(f"{names}: the paper's own protocol" if group == [published] else
                                       f"{names}: smaller models, fewer tokens (expected above the paper)",
                                       TITLE_CHARACTERS), loc="left")
            ax.grid(alpha=0.3, axis="x")
        axes[-1].set_xlabel("our loss − the paper's Val (nats/char)")
        legend_below(fig, axes)
    return fig


def plot_sweep(sweep: Mapping, chosen, decided_at: int):
    """The stored sweep behind the ``cpu`` preset: each candidate's random-batch validation loss over
    training, the chosen one drawn heavier, the step at which the choice was made marked."""
    from matplotlib import colormaps

    with book_style():
        fig, (ax,) = panels(1, height=3.2)
        drawn = False
        shades = colormaps["viridis"](np.linspace(0.0, 0.85, max(len(sweep), 1)))
        for shade, (candidate, run) in zip(shades, sweep.items()):
            if run is None:
                continue
            steps, losses = zip(*sorted((h["step"], h["val_loss"]) for h in run["history"] if h["step"] > 0))
            label = f"{step_shape(candidate)}, lr {candidate.lr:g}"
            ax.plot(steps, losses, lw=2.4 if candidate == chosen else 1.2, marker="o", ms=3, color=shade,
                    label=label + (" (cpu)" if candidate == chosen else ""))
            drawn = True
        if not drawn:
            _empty(ax, "the sweep")
            return fig
        ax.axvline(decided_at, color="0.5", ls=":", lw=1)
        ax.annotate("preset fixed", (decided_at, 1), xycoords=("data", "axes fraction"), xytext=(3, -3),
                    textcoords="offset points", va="top", color="0.4")
        ax.set(xlabel="step", ylabel="validation loss (nats/char)", ylim=(None, 2.6))
        ax.grid(alpha=0.3)
        legend_below(fig, [ax])
    return fig


# --- what MoPE learns ---------------------------------------------------------------------------------

def plot_uncertainty_plane(runs: list[dict], variant: str, reference: Mapping[str, np.ndarray]):
    """Top: every learned pair of every seed in the (σ, ω) plane, with ωσ = 5, the initial and the
    decay-only pairs. Below: σ_i against the pair index, learned (each seed), initial and decay-only."""
    with book_style():
        fig, (plane, sigma_axis) = panels(2)
        found = learned_parameters.morlet_runs(runs, variant)
        if not found:
            _empty(plane, variant)
            _empty(sigma_axis, variant)
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
            _empty(loglog, "these MoPE variants")
            _empty(product_axis, "these MoPE variants")
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


# --- stress tests -------------------------------------------------------------------------------------

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


def plot_seed_spread(runs: list[dict], variants: Sequence[str] = TABLE_2, key: str = "val_loss_full",
                     label: str = "whole-validation loss (nats)"):
    """Every seed of every model as a point, the mean as a bar: whether one seed drives a model's mean. The
    seed furthest from its model's mean is named beside it ("s3"); the others are not (eight seed numbers at
    7 pt a model overlapped). One panel; models along x in ``variants`` order."""
    import matplotlib.pyplot as plt

    with book_style():
        fig, (ax,) = panels(1, height=3.2)
        drawn = False
        for x, name in enumerate(variants):
            values = {r["seed"]: r["final"].get(key) for r in runs if r["variant"] == name}
            values = {seed: v for seed, v in sorted(values.items()) if v is not None}
            if not values:
                continue
            drawn = True
            spread = np.linspace(-0.18, 0.18, len(values)) if len(values) > 1 else np.zeros(1)
            ax.scatter(x + spread, list(values.values()), s=18, color=colour(name), zorder=3)
            mean = float(np.mean(list(values.values())))
            if len(values) > 1:
                furthest = max(values, key=lambda seed: abs(values[seed] - mean))
                dx = spread[list(values).index(furthest)]
                ax.annotate(f"s{furthest}", (x + dx, values[furthest]), xytext=(5, 0), textcoords="offset points",
                            va="center", color="#333333")
            ax.hlines(mean, x - 0.3, x + 0.3, color=colour(name), linewidth=1.5)
        if not drawn:
            _empty(ax, "no stored runs")
        ax.set_xticks(range(len(variants)), variants, rotation=40, ha="right", rotation_mode="anchor")
        ax.set_ylabel(label)
        ax.grid(axis="y", alpha=0.3)
    plt.close(fig)
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
                _empty(ax, " and ".join(f"{first} − {second}" for first, second in pairs))
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


def plot_gap_against_tokens(by_preset: Mapping[str, list[dict]], variant: str = "EGA-MORLET",
                            baseline: str = "BASE-DOT", paper_delta: float | None = None,
                            training_tokens: int | None = None):
    """L(``baseline``) − L(``variant``) at every stored evaluation of every seed (random-batch validation),
    against the tokens seen so far (step × batch × context, from each run's stored configuration, on a log
    axis), one colour a preset: a thin line a seed, a thick line the mean over the seeds at each evaluation
    (a preset with one seed: that seed, thick). ``paper_delta``: the paper's Δ after its training, a star at
    its last evaluation's token count; ``training_tokens``: the training split's size, for a second axis in
    passes over the data."""
    import matplotlib.pyplot as plt

    with book_style():
        fig, axes = panels(1, height=3.2)
        ax = axes[0]
        drawn = []
        for index, (preset, runs) in enumerate(by_preset.items()):
            colour_of = PRESET_SHADES[index % len(PRESET_SHADES)]
            by_seed = {seed: gap_by_tokens([r for r in runs if r["seed"] == seed], variant, baseline)
                       for seed in sorted({r["seed"] for r in runs})}
            seeds = [seed for seed, gaps in by_seed.items() if gaps]
            if not seeds:
                continue
            per_step: dict[int, list[float]] = {}
            for seed in seeds:
                xs = sorted(by_seed[seed])
                for x in xs:
                    per_step.setdefault(x, []).extend(by_seed[seed][x])
                if len(seeds) > 1:
                    ax.plot([x / 1e6 for x in xs], [by_seed[seed][x][0] for x in xs], color=colour_of, lw=0.7, alpha=0.45)
            xs = sorted(per_step)
            label = f"{preset} ({len(seeds)} seed{'s' if len(seeds) > 1 else ''}, {xs[-1] / 1e6:.1f}M tokens)"
            ax.plot([x / 1e6 for x in xs], [np.mean(per_step[x]) for x in xs], color=colour_of, lw=2.2,
                    marker="o", ms=3, label=label)
            drawn.append(xs[-1])
        if not drawn:
            _empty(ax, f"{variant} and {baseline}")
            plt.close(fig)
            return fig
        if paper_delta is not None:
            ax.plot([max(drawn) / 1e6], [paper_delta], marker="*", ms=9, color=colour(variant), ls="none",
                    label=f"the paper's Δ ({paper_delta:+.3f})", zorder=5)
        ax.axhline(0, color="k", lw=0.8)
        ax.set_xscale("log")
        plain_log_ticks(ax, candidates=(0.5, 1, 2, 5, 10, 20, 50, 100), axes="x")
        ax.set(xlabel="tokens seen (millions, log scale)", ylabel=f"L({baseline}) − L({variant}), nats")
        ax.text(0.01, 0.97, f"above 0: {variant} better", transform=ax.transAxes, va="top")
        ax.grid(alpha=0.3)
        if training_tokens:
            passes = ax.secondary_xaxis("top", functions=(lambda m: m * 1e6 / training_tokens,
                                                         lambda p: p * training_tokens / 1e6))
            passes.set_xlabel("passes over the training split")
            passes.set_xticks([1, 2, 5, 10, 20, 50, 100], ["1", "2", "5", "10", "20", "50", "100"])
        legend_below(fig, axes)
    plt.close(fig)
    return fig


# --- the paper's open questions -----------------------------------------------------------------------

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
            _empty(centre_axis, variant)
            _empty(ratio_axis, variant)
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
            _empty(product_axis, free)
            _empty(sigma_axis, free)
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
