r"""AdamW's weight decay alone on MoPE's log-parameters, as the released training applies it.

The released training runs AdamW with decoupled decay $\lambda$ on every parameter, $\log\omega_i$ and
$\log\sigma_i$ included: at step $s$ the decay multiplies each raw parameter by $1-\mathrm{lr}_s\lambda$,
whatever the gradient does. With no loss gradient at all, over a schedule of learning rates $\mathrm{lr}_s$,

$$\log\omega \to f\log\omega_0,\qquad \log\sigma \to f\log\sigma_0,\\ f = \prod_s (1-\mathrm{lr}_s\lambda)$$

(:func:`decay_factor`), so the stored product $\omega\sigma$ falls from 5 to $5^f < 5$, and the forward's
clamps and projection ($\omega \leftarrow 5/\sigma$ when $\omega\sigma < 5$, Appendix A.3;
:func:`effective_parameters`) put every pair on the admissibility bound: the "universal boundary
saturation" of A.3's key observations (§6.3 says "boundary saturation"), without any data. :func:`decay_only_prediction` computes where decay alone takes
given pairs, and :func:`decay_only_adamw` checks it with ``torch.optim.AdamW`` on a real
:class:`~mope.model.positional.morlet.MorletPositions`. The decay-only reference of a variant under a
preset is :func:`mope.evidence.learned_parameters.decay_only_reference`.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from mope.model.positional import morlet
from mope.model.positional.morlet import MorletPositions


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
