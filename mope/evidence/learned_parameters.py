r"""MoPE's learned parameters as the runs stored them, and what they are judged against.

This module owns the reading of ``learned["morlet"]`` from stored runs (:func:`morlet_arrays`,
:func:`pooled_morlet`) and the **decay-only reference** of a MoPE variant under a preset
(:func:`decay_only_reference`): where AdamW's decoupled weight decay alone, with no loss gradient,
takes the initial pairs over that preset's own schedule (learning rate, steps, warm-up, decay), then
through the variant's own forward (clamps, and the $\omega\sigma \ge 5$ bound unless it is removed).
A variant that exempts $\log\omega$, $\log\sigma$ from decay keeps its initial pairs. A pair is on the
boundary when $|\omega\sigma - 5|$ is within the package's one tolerance (:func:`on_boundary`).

The arithmetic of the decay is :mod:`mope.evidence.weight_decay`; the verdicts built on these numbers are
:mod:`mope.evidence.claims`, the tables :mod:`mope.book.tables`, the figures :mod:`mope.book.learned_figures`.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from mope.evidence import weight_decay
from mope.evidence.estimates import by_variant
from mope.model.positional.morlet import ADMISSIBILITY_BOUND, BOUNDARY_TOL, initial_morlet_parameters
from mope.store.presets import TrainConfig, get_preset
from mope.model.variants import variant_config

MORLET_VARIANTS = ("PE-MORLET", "EGA-MORLET", "PE-MORLET-NODECAY", "PE-MORLET-FREE")


def morlet_arrays(run: dict) -> dict[str, np.ndarray] | None:
    """Learned (omega, sigma) as the forward used them, the stored exp(log) values, and the initial ones."""
    learned = (run.get("learned") or {}).get("morlet")
    if not learned:
        return None
    omega = np.asarray(learned["omega"], dtype=float)
    omega0, sigma0 = (t.double().numpy() for t in initial_morlet_parameters(len(omega)))
    return {
        "omega": omega, "sigma": np.asarray(learned["sigma"], dtype=float),
        "omega_raw": np.asarray(learned["omega_raw"], dtype=float),
        "sigma_raw": np.asarray(learned["sigma_raw"], dtype=float),
        "omega_init": omega0, "sigma_init": sigma0,
    }


def morlet_runs(runs: Iterable[dict], variant: str) -> dict[int, dict[str, np.ndarray]]:
    """{seed: :func:`morlet_arrays`} of the runs of ``variant`` that stored MoPE parameters."""
    found = {r["seed"]: morlet_arrays(r) for r in by_variant(runs).get(variant, [])}
    return {seed: arrays for seed, arrays in found.items() if arrays is not None}


def on_boundary(omega, sigma, tol: float = BOUNDARY_TOL) -> np.ndarray:
    r"""True where $|\omega\sigma - 5| \le$ ``tol`` (default: the package's one tolerance,
    ``mope.model.positional.morlet.BOUNDARY_TOL``, $10^{-3}$)."""
    product = np.asarray(omega, dtype=float) * np.asarray(sigma, dtype=float)
    return np.abs(product - ADMISSIBILITY_BOUND) <= tol


def pooled_morlet(runs: Iterable[dict], variant: str) -> dict[str, np.ndarray] | None:
    """Each pair's learned omega, sigma averaged over seeds (pairs align: one initialisation), with sd."""
    arrays = list(morlet_runs(runs, variant).values())
    if not arrays:
        return None
    pooled = {}
    for key in ("omega", "sigma"):
        stack = np.array([a[key] for a in arrays])
        pooled[key] = stack.mean(axis=0)
        pooled[f"{key}_sd"] = stack.std(axis=0, ddof=1) if len(arrays) > 1 else None
    pooled.update(omega_init=arrays[0]["omega_init"], sigma_init=arrays[0]["sigma_init"], seeds=len(arrays))
    return pooled


def decay_only_reference(variant: str, preset: str | TrainConfig) -> dict[str, np.ndarray | float]:
    """Every pair of ``variant`` after weight decay alone over ``preset``'s schedule.

    The model's own settings decide what decay touches (``decay_positional``) and which bound the
    forward applies (``admissibility``). Returns the effective ``omega``, ``sigma`` (after the forward's
    clamps and bound), the stored product exp(log ω)·exp(log σ) before them (``stored_product``),
    and the decay ``factor`` f: decay alone takes the stored product from 5 to 5^f.
    """
    cfg = get_preset(preset) if isinstance(preset, str) else preset
    model = variant_config(variant, cfg.shape())
    omega0, sigma0 = (t.double().numpy() for t in initial_morlet_parameters(model.n_embd // 2))
    factor = weight_decay.decay_factor(cfg) if model.decay_positional else 1.0
    omega, sigma = weight_decay.decay_only_prediction(omega0, sigma0, cfg, model.admissibility, factor=factor)
    return {"omega": omega, "sigma": sigma, "stored_product": np.exp(factor * np.log(omega0 * sigma0)),
            "factor": factor}


def initial_effective(variant: str, preset: str | TrainConfig) -> dict[str, np.ndarray]:
    """The initial pairs of ``variant`` as its forward uses them at step 0 (after its clamps and bound)."""
    cfg = get_preset(preset) if isinstance(preset, str) else preset
    model = variant_config(variant, cfg.shape())
    omega0, sigma0 = (t.double().numpy() for t in initial_morlet_parameters(model.n_embd // 2))
    omega, sigma = weight_decay.decay_only_prediction(omega0, sigma0, cfg, model.admissibility, factor=1.0)
    return {"omega": omega, "sigma": sigma}


def stored_product(arrays: dict[str, np.ndarray]) -> np.ndarray:
    """exp(log ω)·exp(log σ) as stored, before the forward's clamps and bound."""
    return arrays["omega_raw"] * arrays["sigma_raw"]


def below_decay_only(arrays: dict[str, np.ndarray], reference: dict, tol: float = BOUNDARY_TOL) -> float:
    """Share of pairs whose stored ωσ lies below the decay-only one by more than ``tol``: pairs
    the data pushed further down than weight decay alone would have."""
    return float(np.mean(stored_product(arrays) < reference["stored_product"] - tol))


def decay_only_sigma(variant: str = "EGA-MORLET", preset: str | TrainConfig = "paper") -> tuple[float, float]:
    """The range of ``variant``'s σ after weight decay alone, with no data, over ``preset``'s schedule (at the
    paper's protocol, the range to set beside Table 3's learned σ)."""
    sigma = decay_only_reference(variant, preset)["sigma"]
    return float(sigma.min()), float(sigma.max())
