r"""The EGA-1 energy gate (Zeris 2026a), as the released code runs it, and a causal version.

Each head $h$ scores every key position $j$ from $x_n = \mathrm{LN}_1(x)$, the tensor that feeds
q, k and v (the argument ``normed`` of every method), standardises the scores, and gates the
attention weights:

$$e_j = w_h^\top x_{n,j} + b_h,\qquad z_j = \frac{e_j-\mu}{\max(s, 10^{-8})},\qquad
g_j = \mathrm{sigmoid}\big(\alpha_h (z_j-\tau_h)\big),$$

$$\hat A_{ij} = \frac{A_{ij}\,g_j}{\max(\sum_k A_{ik} g_k,\ 10^{-8})},\qquad A = \mathrm{Dropout}(\mathrm{softmax}(S)).$$

Without dropout, $\hat A = \mathrm{softmax}(S + \log g)$: a content-dependent additive key bias.
$\alpha_h$ starts at 2, $\tau_h$ at 0: 259 parameters per head at $d = 256$.

**Published** ($\mu$, $s$ = mean and population std over all $T$ positions of the window): the output
at position $i$ depends on tokens after $i$, the next-token target among them. The model is not
causal and its teacher-forced loss contains the leak.

**Causal** ($\mu_i$, $s_i$ over the prefix $j \le i$ of each query row $i$): $z_{ij}$ and the gate
become $T\times T$ per head. $s_i = \sqrt{\mathrm{var}_i + \varepsilon}$: the prefix variance
$E[e^2]-\mu^2$ can round to zero or below, where $\sqrt{\max(\cdot,0)}$ has an infinite derivative.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

STD_FLOOR = 1e-8  # as released
PREFIX_VARIANCE_EPS = 1e-6  # causal gate: s_i = sqrt(var_i + eps)
RENORMALISE_FLOOR = 1e-8


class EnergyGate(nn.Module):
    """EGA-1 as published: window statistics (not causal)."""

    causal = False

    def __init__(self, n_embd: int, n_head: int):
        super().__init__()
        self.energy = nn.Linear(n_embd, n_head)  # one Linear(d -> 1) per head, stacked
        self.alpha = nn.Parameter(torch.full((n_head,), 2.0))
        self.tau = nn.Parameter(torch.zeros(n_head))

    def energies(self, normed: torch.Tensor) -> torch.Tensor:
        """(B, H, T) energy scores e_j of every head."""
        return self.energy(normed).transpose(1, 2).float()

    def standardised(self, normed: torch.Tensor) -> torch.Tensor:
        """z_j over the whole window: (B, H, 1, T)."""
        e = self.energies(normed)
        mean = e.mean(dim=-1, keepdim=True)
        std = e.std(dim=-1, correction=0, keepdim=True).clamp_min(STD_FLOOR)
        return ((e - mean) / std).unsqueeze(2)

    def log_gate(self, normed: torch.Tensor) -> torch.Tensor:
        """log g, broadcastable to the (B, H, T, T) logits."""
        z = self.standardised(normed)
        return F.logsigmoid(self.alpha[:, None, None] * (z - self.tau[:, None, None]))


class CausalEnergyGate(EnergyGate):
    """EGA-1 with the statistics of each query row taken over its prefix j <= i."""

    causal = True

    def prefix_statistics(self, normed: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(e_j - e_0, mu_i - e_0, s_i), (B, H, T) each: shifted energies and the prefix statistics."""
        e = self.energies(normed)
        centred = e - e[..., :1]  # a causal shift that keeps the running sums small
        count = torch.arange(1, e.size(-1) + 1, device=e.device, dtype=e.dtype)
        mean = centred.cumsum(-1) / count
        variance = (centred.square().cumsum(-1) / count - mean.square()).clamp_min(0.0)
        return centred, mean, torch.sqrt(variance + PREFIX_VARIANCE_EPS)

    def standardised(self, normed: torch.Tensor) -> torch.Tensor:
        """z_ij = (e_j - mu_i) / s_i: (B, H, T, T); entries j > i are masked later by attention."""
        centred, mean, std = self.prefix_statistics(normed)
        return (centred[..., None, :] - mean[..., :, None]) / std[..., :, None]

    def log_gate(self, normed: torch.Tensor) -> torch.Tensor:
        """log g_ij, (B, H, T, T), in one T x T pass: alpha (z_ij - tau) = a_i (e_j - e_0) + c_i with
        a_i = alpha / s_i and c_i = -alpha ((mu_i - e_0) / s_i + tau) (the same numbers as
        ``logsigmoid(alpha * (standardised - tau))`` up to rounding, with one T x T temporary instead of four)."""
        centred, mean, std = self.prefix_statistics(normed)
        slope = self.alpha[:, None] / std
        offset = -(slope * mean + (self.alpha * self.tau)[:, None])
        return F.logsigmoid(torch.addcmul(offset[..., :, None], slope[..., :, None], centred[..., None, :]))
