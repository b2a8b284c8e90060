r"""Gated attention without the $T\times T$ bias: torch's ``flex_attention`` with each gate's score modifier.

The dense path adds the gate's $\log g$ to the attention logits as a (B, H, T, T) tensor (the causal gate's
$g_{ij}$ depends on query and key). ``flex_attention`` instead calls a *score modifier*
``score_mod(score, b, h, q_idx, kv_idx)`` on each logit inside its kernel, with a block mask that skips the blocks
above the diagonal, and never builds the tensor. Each gate offers its modifier (``score_modifier(normed)``): the
causal gate's is $s + \log\sigma(c_i + a_i (e_j - e_0))$ from its (B, H, T) prefix statistics (the same $a_i$, $c_i$
as :meth:`~mope.model.energy_gate.CausalEnergyGate.rows`), the published gate's $s + \log g_j$.

Where it runs: torch 2.13 computes no flex backward on a CPU, so there the model takes it for inference only (no
gradient asked) and the dense path otherwise; on a GPU for both. Dropout is the dense path's (flex has none), so a
model in training mode with dropout keeps the dense path too. The published gate through flex is
$\mathrm{softmax}(S + \log g)$, the released $A g / \max(\sum A g, 10^{-8})$ without its floor: equal wherever a row's
gated mass is above $10^{-8}$ (the dense path keeps the floor).

A runtime choice, :meth:`mope.model.gpt.GPT.use_flex_attention`, outside the configuration and its hash (as
``--compile`` is): it changes the kernel, not the model. ``"compiled"`` runs ``torch.compile(flex_attention)``, the
fused kernel (the first call of each shape compiles, seconds to a minute); ``"eager"`` torch's unfused reference of
the same maths, to check it.
"""
from __future__ import annotations

import warnings

import torch

MODES = ("compiled", "eager")
_BLOCK_MASKS: dict = {}
_COMPILED: list = []


def check_mode(mode: str | None) -> str | None:
    """``mode`` if it is one of :data:`MODES` or None; a one-line error naming them otherwise, or where this torch has
    no ``flex_attention`` (torch >= 2.5)."""
    if mode is not None and mode not in MODES:
        raise ValueError(f"unknown flex attention mode {mode!r}; valid modes: {', '.join(MODES)}, or None (dense)")
    if mode is not None:
        try:
            import torch.nn.attention.flex_attention  # noqa: F401
        except ImportError:
            raise ValueError(f"torch {torch.__version__} has no flex_attention (torch >= 2.5 has): use None, the dense "
                             "path") from None
    return mode


def runs_here(q: torch.Tensor) -> bool:
    """Whether flex attention can compute this call: on a GPU always, elsewhere when no gradient is asked."""
    return q.device.type == "cuda" or not (torch.is_grad_enabled() and q.requires_grad)


def _causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def causal_block_mask(length: int, device: torch.device):
    """The causal block mask of ``length`` queries and keys on ``device`` (made once per length and device)."""
    from torch.nn.attention.flex_attention import create_block_mask

    key = (length, str(device))
    if key not in _BLOCK_MASKS:
        _BLOCK_MASKS[key] = create_block_mask(_causal, None, None, length, length, device=device)
    return _BLOCK_MASKS[key]


def attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, score_mod, mode: str) -> torch.Tensor:
    """Causal attention of q, k, v (B, H, T, hs) with ``score_mod`` added to each logit, scaled by 1/√hs as SDPA."""
    from torch.nn.attention.flex_attention import flex_attention

    mask = causal_block_mask(q.size(-2), q.device)
    if mode == "compiled":
        if not _COMPILED:
            _COMPILED.append(torch.compile(flex_attention, dynamic=False))
        return _COMPILED[0](q, k, v, score_mod=score_mod, block_mask=mask)
    with warnings.catch_warnings():  # the unfused reference is asked for: torch's advice to compile is not news
        warnings.filterwarnings("ignore", message=".*flex_attention called without torch.compile")
        return flex_attention(q, k, v, score_mod=score_mod, block_mask=mask)
