r"""MoPE's correlation kernel and its averages: the mathematics chapter's numerical companions.

MoPE pair $i$ read as one complex number is $z(b) = e^{i\omega b}\,e^{-b^2/2\sigma^2}$ (§3.2). Its
cross-correlation between positions $b$ and $b+\tau$ (Appendix A.1) is

$$C(b,\tau) = \mathrm{Re}\big[\overline{z(b)}\,z(b+\tau)\big]
\\ = \cos(\omega\tau)\,e^{-\tau^2/4\sigma^2}\,e^{-(b+\tau/2)^2/\sigma^2},$$

which depends on $b$ as well as on $\tau$. The paper's envelope $e^{-\tau^2/4\sigma^2}$ appears only
after averaging over $b$, and which envelope appears depends on the average taken:

* over all of $\mathbb{R}$ (Lebesgue measure): $\sqrt{\pi}\,\sigma\,e^{-\tau^2/4\sigma^2}\cos\omega\tau$
  (:func:`line_kernel`);
* over $b \ge 0$ (a sequence starts at 0): $\tfrac{\sqrt\pi}{2}\sigma\,\mathrm{erfc}(\tau/2\sigma)\,
  e^{-\tau^2/4\sigma^2}\cos\omega\tau$ (:func:`half_line_kernel`);
* over the integer positions $b = 0..T-1-|\tau|$ a model actually sees: :func:`averaged_kernel`.

At integer positions $z(b)$ cannot tell $\omega$ from $2\pi - \omega$ except by the sign of its sine
channel: :func:`alias_frequency` folds $\omega$ about the Nyquist frequency $\pi$.
"""
from __future__ import annotations

import math

import numpy as np


_erfc = np.vectorize(math.erfc, otypes=[float])


def complex_positions(omega: float, sigma: float, positions) -> np.ndarray:
    r"""$z(b) = e^{i\omega b - b^2/2\sigma^2}$ in float64 (no clamp, no projection)."""
    b = np.asarray(positions, dtype=float)
    return np.exp(1j * omega * b - b**2 / (2.0 * sigma**2))


def morlet_kernel(b, tau, omega: float, sigma: float) -> np.ndarray:
    r"""$C(b,\tau) = \cos(\omega\tau)\,e^{-(2b^2+2b\tau+\tau^2)/2\sigma^2}$ (Appendix A.1)."""
    b, tau = np.asarray(b, dtype=float), np.asarray(tau, dtype=float)
    return np.cos(omega * tau) * np.exp(-(2 * b**2 + 2 * b * tau + tau**2) / (2.0 * sigma**2))


def averaged_kernel(omega: float, sigma: float, taus, length: int, reduce: str = "mean") -> np.ndarray:
    r"""$C(b,\tau)$ averaged (or summed) over the integer positions of one window, computed from $z(b)$.

    For each lag $\tau$ the pairs $(b, b+\tau)$ with both ends in $\{0,\dots,T-1\}$ are used.
    """
    if reduce not in ("mean", "sum"):
        raise ValueError(f"reduce must be 'mean' or 'sum', got {reduce!r}")
    z = complex_positions(omega, sigma, np.arange(length))
    out = []
    for tau in np.asarray(taus, dtype=int):
        lag = abs(int(tau))
        if lag >= length:
            out.append(0.0)
            continue
        first, second = (z[: length - lag], z[lag:]) if tau >= 0 else (z[lag:], z[: length - lag])
        values = np.real(np.conj(first) * second)
        out.append(values.mean() if reduce == "mean" else values.sum())
    return np.array(out)


def line_kernel(omega: float, sigma: float, tau) -> np.ndarray:
    r"""$\int_{\mathbb R} C(b,\tau)\,db = \sqrt\pi\,\sigma\,e^{-\tau^2/4\sigma^2}\cos\omega\tau$."""
    tau = np.asarray(tau, dtype=float)
    return math.sqrt(math.pi) * sigma * np.exp(-tau**2 / (4 * sigma**2)) * np.cos(omega * tau)


def half_line_kernel(omega: float, sigma: float, tau) -> np.ndarray:
    r"""$\int_0^\infty C(b,\tau)\,db = \tfrac{\sqrt\pi}{2}\sigma\,\mathrm{erfc}(\tfrac{\tau}{2\sigma})\,e^{-\tau^2/4\sigma^2}\cos\omega\tau$."""
    tau = np.asarray(tau, dtype=float)
    return 0.5 * _erfc(tau / (2 * sigma)) * line_kernel(omega, sigma, tau)


def alias_frequency(omega) -> np.ndarray:
    r"""The frequency in $[0,\pi]$ whose encoding at integer positions equals that of $\omega$
    up to the sign of the sine channel: $\omega$ folded about the Nyquist frequency $\pi$."""
    folded = np.mod(np.asarray(omega, dtype=float), 2 * math.pi)
    return np.where(folded > math.pi, 2 * math.pi - folded, folded)
