"""The figures of reproducing Table 2 (chapter 4 and the training budget's page), drawn from stored runs: each
model's gap to the learned table over training, the distance to the paper's Table 2, the
sweep behind the ``cpu`` preset, the spread of the seeds and the gap against the tokens seen. Axis ranges are
chosen so that the differences the chapter discusses are visible (a model far off the others is named at the
edge of the panel instead of setting the scale); how a figure looks is :mod:`mope.book.figure_style`'s.
"""
from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

import numpy as np

from mope.book.chapter_runs import step_shape
from mope.book.figure_style import (BOOK_STYLE, COLUMN_WIDTH, PRESET_SHADES, book_style, colour, empty_panel,
                                    legend_below, panels, plain_log_ticks)
from mope.evidence.estimates import distance_to_paper, gap_by_tokens, gap_curve
from mope.evidence.paper import RUN_TO_RUN
from mope.model.variants import TABLE_2

FAR_OFF = 2.0  # a curve that would stretch the others' axis more than this many times is named, not drawn
TITLE_CHARACTERS = 32  # a panel's title at 9 pt, wrapped to the width of a panel beside the models' names


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
                empty_panel(ax, f"preset {preset!r}")
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
        # one label for the stacked panels: repeated on each, it was taller than its panel and ran into the next's
        fig.supylabel(f"L({baseline}) − L(model), nats", fontsize=BOOK_STYLE["axes.labelsize"])
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
            empty_panel(axes[0], "any preset")
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
            empty_panel(ax, "the sweep")
            return fig
        ax.axvline(decided_at, color="0.5", ls=":", lw=1)
        ax.annotate("preset fixed", (decided_at, 1), xycoords=("data", "axes fraction"), xytext=(3, -3),
                    textcoords="offset points", va="top", color="0.4")
        ax.set(xlabel="step", ylabel="validation loss (nats/char)", ylim=(None, 2.6))
        ax.grid(alpha=0.3)
        legend_below(fig, [ax])
    return fig



def plot_seed_spread(runs: list[dict], variants: Sequence[str] = TABLE_2):
    """Every seed of every model as a point, the mean as a bar: whether one seed drives a model's mean. The
    seed furthest from its model's mean is named beside it ("s3"); the others are not (eight seed numbers at
    7 pt a model overlapped). One panel; models along x in ``variants`` order; the loss is Table 2's (Val)."""
    import matplotlib.pyplot as plt

    with book_style():
        fig, (ax,) = panels(1, height=3.2)
        drawn = False
        for x, name in enumerate(variants):
            values = {r["seed"]: r["final"].get("val_loss") for r in runs if r["variant"] == name}
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
            empty_panel(ax, "no stored runs")
        ax.set_xticks(range(len(variants)), variants, rotation=40, ha="right", rotation_mode="anchor")
        ax.set_ylabel("validation loss, Val (nats)")
        ax.grid(axis="y", alpha=0.3)
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
    from matplotlib.ticker import NullLocator

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
            empty_panel(ax, f"{variant} and {baseline}")
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
            passes.xaxis.set_minor_locator(NullLocator())  # a short range's minor labels (2×10⁻², 3×10⁻² ...) collided
        legend_below(fig, axes)
    plt.close(fig)
    return fig
