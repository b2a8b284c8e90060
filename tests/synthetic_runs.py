"""Result dictionaries made up for the tests of the book's modules (claims, tables, figures, provenance).

They carry the schema-1 keys the book reads; the numbers are whatever a test needs.
"""
from __future__ import annotations

import numpy as np

from mope import analysis
from mope.positional.morlet import initial_morlet_parameters


def run(variant, seed, val, full=None, by_context=None, causal_stats=None, learned=None, history=None,
        dirty=False, preset="cpu"):
    return {
        "schema": 1, "variant": variant, "preset": preset, "seed": seed, "config_hash": "0123456789abcdef",
        "config": {"model": {}, "train": {}},
        "provenance": {"git_commit": "0123456789abcdef", "git_dirty": dirty, "device": "cpu: test, 1 thread",
                       "wall_time_s": 600.0, "tokens_per_s": 1.0, "torch": "t", "python": "p",
                       "started": "2026-11-30T06:00:00+00:00", "finished": "2026-11-30T06:10:00+00:00",
                       "world_size": 1},
        "num_parameters": 1,
        "history": history or [{"step": 0, "lr": 0.0, "train_loss": 4.2, "val_loss": 4.2},
                               {"step": 10, "lr": 0.0, "train_loss": val, "val_loss": val}],
        "train_curve": [[0, 4.2], [10, val]],
        "final": {"val_loss": val, "train_loss": val, "val_loss_full": val if full is None else full,
                  "val_loss_full_by_context": by_context, "extrapolation_note": None,
                  "val_loss_full_causal_stats": causal_stats},
        "learned": learned or {},
    }


def morlet(omega_raw, sigma_raw, admissibility="published"):
    """``learned`` of a MoPE model whose stored exp(log) parameters are ``omega_raw``, ``sigma_raw``."""
    omega, sigma = analysis.effective_parameters(np.log(omega_raw), np.log(sigma_raw), admissibility)
    return {"morlet": {"omega": list(omega), "sigma": list(sigma), "omega_raw": list(omega_raw),
                       "sigma_raw": list(sigma_raw), "centre": None}}


def decayed_morlet(n_pairs, factor, admissibility="published"):
    """MoPE parameters after multiplying the initial log-parameters by ``factor`` (what decay alone does)."""
    omega0, sigma0 = (t.double().numpy() for t in initial_morlet_parameters(n_pairs))
    return morlet(omega0 ** factor, sigma0 ** factor, admissibility)
