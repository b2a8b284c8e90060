"""The one builder of made-up runs for the tests: result dictionaries with the schema-1 keys, whose
numbers are whatever a test needs.

``run(variant, seed, val, preset=...)``:

* ``preset`` a name (the book's modules: claims, tables, figures, provenance): the run carries a
  placeholder configuration and hash ``PLACEHOLDER_HASH``; written to a store, it is stale.
* ``preset`` a :class:`~mope.store.presets.TrainConfig` (the store's tests): the run carries that
  configuration and the hash the store expects of it, :func:`expected_config_hash`, computed here from
  the rule the store documents (``mope.store.results.config_hash``), never by the code under test; written to
  a store, it is current. ``tests/test_results.py`` checks the rule against stored runs.

Nothing here trains, and nothing here asks :mod:`mope.store.results` what a fixture should hold.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json

import numpy as np

from mope.evidence import weight_decay
from mope.model.positional.morlet import initial_morlet_parameters
from mope.store.presets import TrainConfig
from mope.model.variants import variant_config

PLACEHOLDER_HASH = "0123456789abcdef"
RUNTIME_FIELDS = ("compile", "checkpoint_interval")  # left out of the hash: they never move a number


def expected_config_hash(variant: str, preset: TrainConfig) -> str:
    """The first 16 hex digits of the SHA-256 of the JSON (keys sorted) of {"model": the variant's
    GPTConfig fields, "train": the preset's fields but the runtime ones and those left at None,
    "revisions": [1 for MoPE at the input, 2 for the published EGA gate], absent when empty}."""
    model = dataclasses.asdict(variant_config(variant, preset.shape()))
    train = {k: v for k, v in dataclasses.asdict(preset).items() if k not in RUNTIME_FIELDS and v is not None}
    hashed = {"model": model, "train": train}
    revisions = [number for number, applies in ((1, model["absolute"] == "morlet"), (2, model["gate"] == "ega"))
                 if applies]
    if revisions:
        hashed["revisions"] = revisions
    return hashlib.sha256(json.dumps(hashed, sort_keys=True).encode()).hexdigest()[:16]


def run(variant, seed, val, full=None, by_context=None, causal_stats=None, learned=None, history=None,
        dirty=False, preset: str | TrainConfig = "cpu", changes: dict | None = None) -> dict:
    """A run of ``variant`` and ``seed`` whose final random-batch validation loss is ``val`` (whole
    split: ``full``, default ``val``); ``changes`` replace top-level keys last (a misfiled or stale copy)."""
    if isinstance(preset, TrainConfig):
        name, config_hash = preset.name, expected_config_hash(variant, preset)
        config = {"model": dataclasses.asdict(variant_config(variant, preset.shape())), "train": dataclasses.asdict(preset)}
    else:
        name, config_hash, config = preset, PLACEHOLDER_HASH, {"model": {}, "train": {}}
    result = {
        "schema": 1, "variant": variant, "preset": name, "seed": seed, "config_hash": config_hash,
        "config": config,
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
    result.update(changes or {})
    return result


def morlet(omega_raw, sigma_raw, admissibility="published"):
    """``learned`` of a MoPE model whose stored exp(log) parameters are ``omega_raw``, ``sigma_raw``."""
    omega, sigma = weight_decay.effective_parameters(np.log(omega_raw), np.log(sigma_raw), admissibility)
    return {"morlet": {"omega": list(omega), "sigma": list(sigma), "omega_raw": list(omega_raw),
                       "sigma_raw": list(sigma_raw), "centre": None}}


def decayed_morlet(n_pairs, factor, admissibility="published"):
    """MoPE parameters after multiplying the initial log-parameters by ``factor`` (what decay alone does)."""
    omega0, sigma0 = (t.double().numpy() for t in initial_morlet_parameters(n_pairs))
    return morlet(omega0 ** factor, sigma0 ** factor, admissibility)
