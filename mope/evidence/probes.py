"""Probes of a model: how large its inputs are, and whether a later token moves an earlier output.

:func:`input_scale` gives the RMS per channel of the token embedding and of the position vector at the
input; :func:`future_token_sensitivity` the largest change of a freshly built model's logits at each
position when one later token is replaced: exactly 0 before that token in a causal model, not in the
published energy-gated attention (its gate standardises over the whole window).
"""
from __future__ import annotations

import numpy as np
import torch


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

    model = build_model(variant, shape, seed=seed, knowingly_non_causal=True).eval()  # the probe measures the leak
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
