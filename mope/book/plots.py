r"""Plotting helpers shared by the chapters (matplotlib only; nothing here changes a number).

* :func:`plot_spirals` — the paper's Figure 1: MoPE pair $i$ as the trajectory $z_i(b)$ in the
  complex plane next to the unit circle of RoPE / sin-cos.
* :func:`plot_cross_correlation` — the paper's Figure 2: $\cos\omega\tau$, the envelope
  $e^{-\tau^2/4\sigma^2}$ and their product at the integer lags a model has, plus (optionally) the
  kernel actually averaged over the positions of a window (:func:`mope.evidence.kernels.averaged_kernel`).
* :func:`heatmap` — an encoding matrix (positions x channels).

Each function takes ``pairs``: a sequence of ``(label, omega, sigma)``. MoPE is drawn in the colour
of PE-MORLET and RoPE in that of PE-ROPE (:mod:`mope.book.palette`); the $\sigma=\infty$ circle, which is no
model, in :data:`mope.book.palette.NEUTRAL`.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mope.book import palette
from mope.evidence.kernels import averaged_kernel, complex_positions

Pair = tuple[str, float, float]


def _axes(n: int, axes=None, size: tuple[float, float] = (4.2, 4.0)):
    import matplotlib.pyplot as plt

    if axes is not None:
        return axes[0].figure, list(axes)
    fig, ax = plt.subplots(1, n, figsize=(size[0] * n, size[1]), squeeze=False, constrained_layout=True)
    return fig, list(ax[0])


#: Where a position's label may go, in points from its dot, nearest first: above right, above, below
#: right, below, above left, below left.
LABEL_OFFSETS = ((4, 4), (-12, 7), (4, -12), (-12, -15), (-26, 4), (-26, -12))
#: A label's box grown by these factors (width, height) must not meet another's: no two labels touch,
#: whatever the figure's final layout moves.
MARGIN = (1.5, 1.6)


def _label_positions(ax, z, positions) -> None:
    """Label the dots of ``positions`` "b=…", each at the offset of :data:`LABEL_OFFSETS` that keeps it
    inside the figure and clear of the labels placed before it (the first such; else the one that
    overlaps them least): consecutive positions can lie close together."""
    from matplotlib.transforms import Bbox

    ax.figure.draw_without_rendering()  # lay the figure out first: where a label lands depends on it
    renderer = ax.figure.canvas.get_renderer()
    frame = ax.figure.bbox
    placed = []

    def cost(box):
        """(outside the figure, area shared with the labels placed), for a label's box with its margin."""
        text = box.expanded(1 / MARGIN[0], 1 / MARGIN[1])
        inside = frame.x0 <= text.x0 and text.x1 <= frame.x1 and frame.y0 <= text.y0 and text.y1 <= frame.y1
        shared = (Bbox.intersection(box, other) for other in placed)
        return (not inside, sum(both.width * both.height for both in shared if both is not None))

    for b in positions:
        best = None
        for offset in LABEL_OFFSETS:
            label = ax.annotate(f"b={b}", (z.real[b], z.imag[b]), textcoords="offset points", xytext=offset)
            label.set_in_layout(False)  # placing a label must not move the panels (and the labels placed)
            box = label.get_window_extent(renderer).expanded(*MARGIN)
            label.remove()
            if best is None or cost(box) < best[0]:
                best = (cost(box), offset, box)
            if best[0] == (False, 0.0):
                break
        label = ax.annotate(f"b={b}", (z.real[b], z.imag[b]), textcoords="offset points", xytext=best[1])
        label.set_in_layout(False)
        placed.append(best[2])


def plot_spirals(pairs: Sequence[Pair], length: int = 257, axes=None, title: str | None = None):
    r"""Figure 1: $z(b)$ for the positions $b = 0, 1, \dots$ up to ``length`` − 1 (solid spiral, dots at integer b) and the unit circle."""
    fig, axes = _axes(len(pairs), axes)
    circle = np.exp(1j * np.linspace(0, 2 * np.pi, 400))
    for ax, (label, omega, sigma) in zip(axes, pairs):
        z = complex_positions(omega, sigma, np.arange(length))
        ax.plot(circle.real, circle.imag, "--", color=palette.NEUTRAL, lw=1.2, label=r"$\sigma=\infty$ (RoPE, sin/cos)")
        ax.plot(z.real, z.imag, "-", color=palette.colour("MoPE"), lw=1.2, label="MoPE")
        visible = np.abs(z) > 1e-3
        ax.scatter(z.real[visible], z.imag[visible], s=10, color=palette.colour("MoPE"), zorder=3)
        ax.set_aspect("equal")
        ax.set_xlim(-1.15, 1.15)
        ax.set_ylim(-1.15, 1.15)
        ax.axhline(0, color="0.8", lw=0.6)
        ax.axvline(0, color="0.8", lw=0.6)
        ax.set_xlabel(r"Re $z(b)$ = channel $2i$ (cos)")
        ax.set_ylabel(r"Im $z(b)$ = channel $2i+1$ (sin)")
        n_visible = int(visible.sum())
        ax.set_title(f"{label}\n$\\omega$={omega:.3f}, $\\sigma$={sigma:.2f} ({n_visible} positions with |z|>0.001)")
    axes[0].legend(loc="lower left")
    if title:
        fig.suptitle(title)
    for ax, (_, omega, sigma) in zip(axes, pairs):  # once the panels are laid out: labels must not collide
        _label_positions(ax, complex_positions(omega, sigma, np.arange(2)), (0, 1))  # where it starts, which way it turns
    return fig


def plot_cross_correlation(pairs: Sequence[Pair], max_lag: int = 20, length: int | None = None, axes=None,
                           title: str | None = None):
    r"""Figure 2: RoPE's $\cos\omega\tau$, the envelope $e^{-\tau^2/4\sigma^2}$ and their product.

    Lags are integers (a model has no position between two tokens), so the two oscillating curves are
    drawn at the integer lags $|\tau| \le$ ``max_lag`` only, as dots joined by thin lines; a smooth curve
    would draw, for $\omega > \pi$, an oscillation faster than any that integer lags can show (it
    aliases to $2\pi - \omega$). The envelope, which does not oscillate, is shaded. With ``length``,
    also the MoPE kernel averaged over the integer positions $b = 0..T-1-|\tau|$ of a window of that
    length, scaled to 1 at $\tau = 0$ (black rings): what a model sees.
    """
    fig, axes = _axes(len(pairs), axes, size=(4.6, 3.4))
    tau_fine = np.linspace(-max_lag, max_lag, 801)
    lags = np.arange(-max_lag, max_lag + 1)
    for ax, (label, omega, sigma) in zip(axes, pairs):
        envelope = np.exp(-tau_fine**2 / (4 * sigma**2))
        ax.fill_between(tau_fine, -envelope, envelope, color=palette.NEUTRAL, alpha=0.15, lw=0,
                        label=r"envelope $\pm e^{-\tau^2/4\sigma^2}$")
        ax.plot(lags, np.cos(omega * lags), "o--", color=palette.colour("RoPE"), lw=0.6, ms=2.5,
                label=r"RoPE $\cos\omega\tau$")
        ax.plot(lags, np.exp(-lags**2 / (4 * sigma**2)) * np.cos(omega * lags), "o-", color=palette.colour("MoPE"),
                lw=0.9, ms=3, label=r"$\cos\omega\tau\, e^{-\tau^2/4\sigma^2}$ (paper)")
        if length is not None:
            kernel = averaged_kernel(omega, sigma, lags, length)
            ax.plot(lags, kernel / kernel[max_lag], "o", mfc="none", mec="k", ms=5, mew=0.9,
                    label=f"mean over b of C(b,τ), T={length} (scaled)")
        ax.set_xlabel(r"lag $\tau$ (tokens)")
        ax.set_ylabel("correlation")
        ax.set_ylim(-1.1, 1.1)
        ax.set_title(f"{label}: $\\omega$={omega:.3f}, $\\sigma$={sigma:.2f}")
    axes[0].legend(loc="lower left")
    if title:
        fig.suptitle(title)
    return fig


def heatmap(matrix, ax=None, title: str = "", xlabel: str = "channel", ylabel: str = "position b",
            cmap: str = "RdBu_r", symmetric: bool = True, colorbar: bool = True):
    """An encoding (rows: positions, columns: channels) as an image, zero in the middle of the colour map."""
    import matplotlib.pyplot as plt

    matrix = np.asarray(matrix, dtype=float)
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 4), constrained_layout=True)
    limit = np.abs(matrix).max() if symmetric else None
    image = ax.imshow(matrix, aspect="auto", interpolation="nearest", cmap=cmap,
                      vmin=-limit if symmetric else None, vmax=limit)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if colorbar:
        ax.figure.colorbar(image, ax=ax, shrink=0.85)
    return ax
