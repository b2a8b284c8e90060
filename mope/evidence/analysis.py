r"""Numerical companions to the mathematics chapter: MoPE's correlation kernel and its averages.

MoPE pair $i$ read as one complex number is $z(b) = e^{i\omega b}\,e^{-b^2/2\sigma^2}$ (§3.2). Its
cross-correlation between positions $b$ and $b+\tau$ (Appendix A.1) is

$$C(b,\tau) = \mathrm{Re}\big[\overline{z(b)}\,z(b+\tau)\big]
= \cos(\omega\tau)\,e^{-\tau^2/4\sigma^2}\,e^{-(b+\tau/2)^2/\sigma^2},$$

which depends on $b$ as well as on $\tau$. The paper's envelope $e^{-\tau^2/4\sigma^2}$ appears only
after averaging over $b$, and which envelope appears depends on the average taken:

* over all of $\mathbb{R}$ (Lebesgue measure): $\sqrt{\pi}\,\sigma\,e^{-\tau^2/4\sigma^2}\cos\omega\tau$
  (:func:`line_kernel`);
* over $b \ge 0$ (a sequence starts at 0): $\tfrac{\sqrt\pi}{2}\sigma\,\mathrm{erfc}(\tau/2\sigma)\,
  e^{-\tau^2/4\sigma^2}\cos\omega\tau$ (:func:`half_line_kernel`);
* over the integer positions $b = 0..T-1-|\tau|$ a model actually sees: :func:`averaged_kernel`.

The weight-decay arithmetic of the released training (AdamW's decay on every parameter) is
:func:`decay_factor`, :func:`decay_only_prediction` and, with torch's own AdamW, :func:`decay_only_adamw`.
:func:`future_token_sensitivity` probes whether a model's outputs depend on later tokens.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch

from mope.model.positional import morlet
from mope.model.positional.morlet import ADMISSIBILITY_BOUND, BOUNDARY_TOL, MorletPositions


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


# --- weight decay on MoPE's log-parameters, as released --------------------------------------------

def _schedule(preset):
    from mope.store.presets import get_preset  # the training schedule, one definition for the whole package

    return get_preset(preset) if isinstance(preset, str) else preset


def decay_factor(preset="paper") -> float:
    r"""$\prod_s (1 - \mathrm{lr}_s\,\lambda)$: what AdamW's decoupled decay alone does to a raw parameter
    over the schedule of ``preset`` (every step $s = 0..\text{steps}-1$, step 0 at lr 0)."""
    cfg = _schedule(preset)
    log_factor = sum(math.log1p(-cfg.lr_at(s) * cfg.weight_decay) for s in range(cfg.steps))
    return math.exp(log_factor)


def effective_parameters(log_omega, log_sigma, admissibility: str = "published") -> tuple[np.ndarray, np.ndarray]:
    """(omega, sigma) the MoPE forward would use for raw log-parameters: the clamps, then the projection."""
    omega, sigma = morlet.effective_parameters(torch.as_tensor(np.asarray(log_omega, dtype=float)),
                                               torch.as_tensor(np.asarray(log_sigma, dtype=float)), admissibility)
    return omega.double().numpy(), sigma.double().numpy()


def decay_only_prediction(omega0, sigma0, preset="paper", admissibility: str = "published",
                          factor: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    r"""Where weight decay alone (zero loss gradient) takes MoPE pairs that start at ``(omega0, sigma0)``.

    Decay acts on the stored $\log\omega$, $\log\sigma$: $\log\sigma_\text{final} = f\cdot\log\sigma_0$ with
    $f$ = :func:`decay_factor` of ``preset`` (or ``factor``, e.g. 1 for parameters exempt from decay); the
    forward then clamps and, unless ``admissibility="none"``, projects ($\omega \leftarrow 5/\sigma$ when
    $\omega\sigma < 5$). Returns the effective (omega, sigma).
    """
    f = decay_factor(preset) if factor is None else factor
    return effective_parameters(f * np.log(np.asarray(omega0, dtype=float)),
                                f * np.log(np.asarray(sigma0, dtype=float)), admissibility)


def decay_only_adamw(n_embd: int = 256, preset="paper") -> tuple[np.ndarray, np.ndarray]:
    """The same prediction, run by ``torch.optim.AdamW`` on a real :class:`MorletPositions` whose
    gradients are kept at zero for the whole schedule of ``preset``. Returns the effective (omega, sigma)."""
    cfg = _schedule(preset)
    module = MorletPositions(n_embd)
    params = list(module.parameters())
    optimizer = torch.optim.AdamW(params, lr=cfg.lr, betas=cfg.betas, eps=cfg.eps, weight_decay=cfg.weight_decay)
    for p in params:
        p.grad = torch.zeros_like(p)
    for step in range(cfg.steps):
        for group in optimizer.param_groups:
            group["lr"] = cfg.lr_at(step)
        optimizer.step()
    with torch.no_grad():
        omega, sigma = module.effective()
    return omega.double().numpy(), sigma.double().numpy()


def on_boundary(omega: Sequence[float], sigma: Sequence[float], tol: float = BOUNDARY_TOL) -> np.ndarray:
    r"""True where $|\omega\sigma - 5| \le$ ``tol`` (default: the package's one tolerance,
    ``mope.model.positional.morlet.BOUNDARY_TOL``)."""
    product = np.asarray(omega, dtype=float) * np.asarray(sigma, dtype=float)
    return np.abs(product - ADMISSIBILITY_BOUND) <= tol


def ngram_baselines(data) -> dict[str, float]:
    """Validation cross-entropy (nats/char) of count-based unigram and bigram models fit on the train split.

    These are the plateaus a small character model passes through: a model whose loss sits at the
    unigram level has learned only character frequencies, one at the bigram level only the previous
    character. Add-one smoothing keeps unseen pairs finite.
    """
    vocab = data.vocab_size
    train, val = data.train, data.val
    unigram = torch.bincount(train, minlength=vocab).double() + 1
    unigram_nll = -(unigram / unigram.sum()).log()[val].mean().item()
    pairs = torch.bincount(train[:-1] * vocab + train[1:], minlength=vocab * vocab).double().view(vocab, vocab) + 1
    bigram = pairs / pairs.sum(dim=1, keepdim=True)
    bigram_nll = -bigram.log()[val[:-1], val[1:]].mean().item()
    return {"unigram": unigram_nll, "bigram": bigram_nll}


def input_scale(model) -> dict[str, float]:
    """RMS per channel of the token embedding and of the position vector at the input (positions 0..T-1)."""
    with torch.no_grad():
        token = model.tok_emb.weight.pow(2).mean().sqrt().item()
        position = 0.0
        if model.pos is not None:
            position = model.pos(model.config.block_size).pow(2).mean().sqrt().item()
    return {"token": token, "position": position}


def future_token_sensitivity(variant: str, shape, position: int, offset: int = 5, seed: int = 0,
                             length: int | None = None, trials: int = 4) -> np.ndarray:
    """The largest absolute change of the logits (over the vocabulary and ``trials`` random sequences)
    at every position when the token at ``position + offset`` is replaced, in a freshly initialised
    ``variant``. A causal model gives exactly 0 before ``position + offset``."""
    from mope.model.variants import build_model

    model = build_model(variant, shape, seed=seed).eval()
    length = length or shape.block_size
    generator = torch.Generator().manual_seed(seed)
    worst = np.zeros(length)
    with torch.no_grad():
        for _ in range(trials):
            idx = torch.randint(shape.vocab_size, (1, length), generator=generator)
            changed = idx.clone()
            changed[0, position + offset] = (idx[0, position + offset] + 1 + torch.randint(
                shape.vocab_size - 1, (1,), generator=generator)) % shape.vocab_size
            before, _ = model(idx)
            after, _ = model(changed)
            worst = np.maximum(worst, (before - after).abs().amax(-1)[0].double().numpy())
    return worst
