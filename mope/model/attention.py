r"""Causal self-attention, one class for every variant (Vaswani et al., 2017; paper §2).

$$y = \mathrm{softmax}\!\Big(\frac{q k^\top}{\sqrt{d_k}} + B + M_\text{causal}\Big)\,v$$

Variants plug in through two hooks and change nothing else:

* ``positions`` (rotary schemes, ALiBi): ``rotate(q, k)`` turns queries and keys (RoPE, Morlet-RoPE),
  ``logit_bias(T)`` adds a bias $B$ (ALiBi), ``scores(q, k)`` replaces $qk^\top/\sqrt{d_k}$
  (relative Morlet-RoPE). A hook defines only what it needs.
* ``gate`` (EGA-1): the published gate $g_j$ (a function of the key) multiplies the attention weights
  after dropout and the rows are renormalised with the released floor (see ``key_gated``); the
  causal gate $g_{ij}$ enters as $\log g$ added to $B$ (see ``fused``).

The fast path is ``F.scaled_dot_product_attention``. A bias that depends on the key only,
$B_{ij} = \beta_j$ (ALiBi, published EGA), rides along as one extra channel,
$[q, 1]\cdot[k, \beta\sqrt{d_k}]/\sqrt{d_k} = qk^\top/\sqrt{d_k} + \beta_j$,
so the kernel keeps its built-in causal mask and no $T\times T$ bias is ever built. Only the causal
gate (a bias of query and key) and the relative Morlet-RoPE scores build $T\times T$ tensors per head
on this path. The gates can do without: with :meth:`mope.model.gpt.GPT.use_flex_attention` their
$\log g$ enters ``flex_attention``'s kernel as a score modifier where torch computes it
(:mod:`mope.model.flex`).
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from mope.model import flex
from mope.model.config import GPTConfig
from mope.model.energy_gate import RENORMALISE_FLOOR


def causal_mask(length: int, device: torch.device) -> torch.Tensor:
    """(T, T) additive mask: 0 on and below the diagonal, -inf above."""
    return torch.full((length, length), float("-inf"), device=device).triu(1)


def attend_with_key_bias(q, k, v, key_bias, dropout_p: float) -> torch.Tensor:
    """SDPA with a (B|1, H, 1, T) key bias folded into one extra q/k channel (float32 only).

    The values are zero-padded to the width of the widened q/k (and the padding dropped again): the
    CPU's fused kernel needs equal widths and otherwise falls back to the math path, which made an
    inference forward of EGA-1 1.5x slower than BASE-DOT. Against the full (B|1, H, T, T) additive
    mask (torch 2.13 CPU, 1 thread, SDPA forward + backward, median of 15 interleaved pairs) the mask
    takes 1.05-1.12x as long; in a whole EGA-1 training step the difference is within the noise.
    """
    scale = q.size(-1) ** -0.5
    ones = torch.ones(q.shape[:-1] + (1,), dtype=q.dtype, device=q.device)
    extra = (key_bias.transpose(-1, -2) / scale).expand(k.shape[:-1] + (1,)).to(k.dtype)
    width = v.size(-1)
    padded = F.pad(v, (0, q.size(-1) + 1 - width)) if width <= q.size(-1) else v
    y = F.scaled_dot_product_attention(
        torch.cat((q, ones), -1), torch.cat((k, extra), -1), padded,
        dropout_p=dropout_p, is_causal=True, scale=scale,
    )
    return y[..., :width]


def add_biases(*biases):
    present = [b for b in biases if b is not None]
    if not present:
        return None
    total = present[0]
    for b in present[1:]:
        total = total + b
    return total


class CausalSelfAttention(nn.Module):
    #: None (the dense path) or a mode of :mod:`mope.model.flex` for a gated attention without T x T bias, where
    #: torch computes it (:meth:`mope.model.gpt.GPT.use_flex_attention` sets it; not part of the configuration)
    flex: str | None = None

    def __init__(self, config: GPTConfig, positions: nn.Module | None = None, gate: nn.Module | None = None):
        super().__init__()
        self.n_head = config.n_head
        self.dropout = config.dropout
        # q, k, v in one Linear(d, 3d): rows [0, d) are W_q, [d, 2d) W_k, [2d, 3d) W_v. Same parameter
        # count as three Linear(d, d), and the same initial values (one N(0, 0.02) draw of 3d x d
        # equals three draws of d x d in a row); one GEMM instead of three.
        self.qkv_proj = nn.Linear(config.n_embd, 3 * config.n_embd, bias=False)
        self.out = nn.Linear(config.n_embd, config.n_embd)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.positions = positions
        self.gate = gate

    def qkv(self, normed: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Queries, keys and values, (B, H, T, hs) each, before any position hook. ``normed`` is the
        block's input after its first LayerNorm, (B, T, d)."""
        q, k, v = self.qkv_proj(normed).unflatten(-1, (3, self.n_head, -1)).permute(2, 0, 3, 1, 4)
        return q, k, v

    def forward(self, normed: torch.Tensor) -> torch.Tensor:
        """Attention of ``normed`` (the block's input after LN_1, (B, T, d)), before the residual sum."""
        length = normed.size(1)
        q, k, v = self.qkv(normed)
        hook = self.positions
        if hook is not None and hasattr(hook, "rotate"):
            q, k = hook.rotate(q, k)
        position_bias = hook.logit_bias(length) if hook is not None and hasattr(hook, "logit_bias") else None
        dropout_p = self.dropout if self.training else 0.0
        if (self.flex is not None and self.gate is not None and position_bias is None and dropout_p == 0
                and not hasattr(hook, "scores") and flex.runs_here(q)):
            y = flex.attend(q, k, v, self.gate.score_modifier(normed), self.flex)
            return self.resid_dropout(self.out(y.transpose(1, 2).flatten(2)))
        log_gate = self.gate.log_gate(normed) if self.gate is not None else None
        gate_after_dropout = log_gate is not None and dropout_p > 0
        if hook is not None and hasattr(hook, "scores"):
            y = self.explicit(q, k, v, position_bias, log_gate, gate_after_dropout)
        elif log_gate is not None and not self.gate.causal:
            y = self.key_gated(q, k, v, position_bias, log_gate.exp(), dropout_p)
        else:
            y = self.fused(q, k, v, add_biases(position_bias, log_gate), dropout_p, gate_after_dropout)
        return self.resid_dropout(self.out(y.transpose(1, 2).flatten(2)))

    def key_gated(self, q, k, v, position_bias, gate, dropout_p: float) -> torch.Tensor:
        r"""The published EGA-1 exactly as released, in one SDPA call:

        $$y_i = \frac{\sum_j A_{ij} g_j v_j}{\max(\sum_j A_{ij} g_j,\ 10^{-8})},\\
        A = \mathrm{Dropout}(\mathrm{softmax}(S)).$$

        The gate depends on the key only, so numerator and denominator are the attention of the values
        $[g_j v_j,\ g_j]$: one extra value channel gives the gated mass of each row, and the floor
        applies to it as released (a row whose mass is below 1e-8 is damped towards 0, not rescaled
        to sum to one). q and k get a zero channel so all three have the width the fused CPU kernel
        wants. ``gate`` is (B, H, 1, T).
        """
        width = v.size(-1)
        gate_column = gate.transpose(-1, -2).to(v.dtype)  # (B, H, T, 1): g_j beside key j
        values = torch.cat((v * gate_column, gate_column), -1)
        zero = torch.zeros(q.shape[:-1] + (1,), dtype=q.dtype, device=q.device)
        q, k = torch.cat((q, zero), -1), torch.cat((k, zero), -1)
        if position_bias is None:
            y = F.scaled_dot_product_attention(q, k, values, dropout_p=dropout_p, is_causal=True, scale=width ** -0.5)
        else:
            mask = (position_bias + causal_mask(q.size(-2), q.device)).to(q.dtype)
            y = F.scaled_dot_product_attention(q, k, values, attn_mask=mask, dropout_p=dropout_p, scale=width ** -0.5)
        return y[..., :width] / y[..., width:].clamp_min(RENORMALISE_FLOOR)

    def fused(self, q, k, v, bias, dropout_p: float, renormalise: bool = False) -> torch.Tensor:
        r"""SDPA; with ``renormalise`` the dropped-out weights are renormalised to sum to one per row.

        EGA's gate after dropout as released, $\hat A_{ij} = A_{ij} g_j / \sum_k A_{ik} g_k$ with
        $A = \mathrm{Dropout}(\mathrm{softmax}(S))$, equals the dropped-out $\mathrm{softmax}(S + \log g)$
        renormalised: softmax(S)_ij g_j is softmax(S + log g)_ij times a constant of row i, and both the
        constant and dropout's 1/(1-p) cancel in the ratio. The row sums come out of the same kernel
        call as one extra value channel of ones. Used for the causal gate $g_{ij}$, a control of ours
        with no released counterpart: its rows are always renormalised to one (the 1e-8 floor applies
        to the kept share of the gated softmax), where the released formula would damp a row whose
        gated mass $\sum_j \mathrm{softmax}(S)_{ij} g_{ij}$ falls below 1e-8.
        """
        if renormalise:
            v = torch.cat((v, torch.ones(v.shape[:-1] + (1,), dtype=v.dtype, device=v.device)), -1)
        if bias is None:
            y = F.scaled_dot_product_attention(q, k, v, dropout_p=dropout_p, is_causal=True)
        elif bias.size(-2) == 1 and q.dtype == torch.float32:
            y = attend_with_key_bias(q, k, v, bias, dropout_p)
        else:
            # a bias that depends on the query too (causal EGA), or reduced precision, where the
            # extra channel would round large biases: the kernel takes the full additive mask
            mask = (bias + causal_mask(q.size(-2), q.device)).to(q.dtype)
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout_p)
        if renormalise:
            y = y[..., :-1] / y[..., -1:].clamp_min(RENORMALISE_FLOOR)
        return y

    def explicit(self, q, k, v, position_bias, log_gate, gate_after_dropout: bool) -> torch.Tensor:
        """The attention written out: custom scores, and EGA's gate applied as released (the published
        gate always after softmax and dropout, with the floor; the causal gate as in ``fused``)."""
        hook = self.positions
        if hook is not None and hasattr(hook, "scores"):
            scores = hook.scores(q, k)
        else:
            scores = (q @ k.transpose(-1, -2)) * q.size(-1) ** -0.5
        scores = scores + causal_mask(q.size(-2), q.device)
        gate_after_softmax = log_gate is not None and (gate_after_dropout or not self.gate.causal)
        scores = add_biases(scores, position_bias, None if gate_after_softmax else log_gate)
        weights = self.attn_dropout(torch.softmax(scores.float(), dim=-1))
        if gate_after_softmax:
            weights = weights * log_gate.exp()
            weights = weights / weights.sum(-1, keepdim=True).clamp_min(RENORMALISE_FLOOR)
        return weights.to(v.dtype) @ v
