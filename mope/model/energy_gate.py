r"""The EGA-1 energy gate (Zeris 2026a), as the released code runs it, and a causal version.

Each head $h$ scores every key position $j$ from $x_n = \mathrm{LN}_1(x)$, the tensor that feeds
q, k and v (the argument ``normed`` of every method), standardises the scores, and gates the
attention weights:

$$e_j = w_h^\top x_{n,j} + b_h,\\ z_j = \frac{e_j-\mu}{\max(s, 10^{-8})},\\
g_j = \mathrm{sigmoid}\big(\alpha_h (z_j-\tau_h)\big),$$

$$\hat A_{ij} = \frac{A_{ij}\,g_j}{\max(\sum_k A_{ik} g_k,\ 10^{-8})},\\ A = \mathrm{Dropout}(\mathrm{softmax}(S)).$$

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

import warnings

import torch
import torch.nn.functional as F
from torch import nn

STD_FLOOR = 1e-8  # as released
PREFIX_VARIANCE_EPS = 1e-6  # causal gate: s_i = sqrt(var_i + eps)
RENORMALISE_FLOOR = 1e-8


class FutureLeakWarning(UserWarning):
    """A module was built whose output at a position depends on tokens after it: not for a language model."""


class EnergyScores(nn.Module):
    """What both gates share: the per-head energy scores $e_j = w_h^\top x_{n,j} + b_h$ and the gate's α, τ
    (259 parameters per head at d = 256). A gate overrides :meth:`standardised` (and may fuse :meth:`log_gate`)."""

    causal: bool

    def __init__(self, n_embd: int, n_head: int):
        super().__init__()
        self.energy = nn.Linear(n_embd, n_head)  # one Linear(d -> 1) per head, stacked
        self.alpha = nn.Parameter(torch.full((n_head,), 2.0))
        self.tau = nn.Parameter(torch.zeros(n_head))

    def reset_parameters(self) -> None:
        """α = 2, τ = 0 and a fresh energy projection (``nn.Linear``'s): the step after ``to_empty`` of a
        meta-device build."""
        self.energy.reset_parameters()
        with torch.no_grad():
            self.alpha.fill_(2.0)
            self.tau.zero_()

    def energies(self, normed: torch.Tensor) -> torch.Tensor:
        """(B, H, T) energy scores e_j of every head, in float32 at least (float64 stays float64)."""
        e = self.energy(normed).transpose(1, 2)
        return e.to(torch.promote_types(e.dtype, torch.float32))

    def standardised(self, normed: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def log_gate(self, normed: torch.Tensor) -> torch.Tensor:
        """log g = log σ(α (z − τ)), broadcastable to the (B, H, T, T) attention logits."""
        z = self.standardised(normed)
        return F.logsigmoid(self.alpha[:, None, None] * (z - self.tau[:, None, None]))

    def forward(self, normed: torch.Tensor) -> torch.Tensor:
        """``module(normed)`` is :meth:`log_gate`: log g, to add to the attention logits before the causal mask."""
        return self.log_gate(normed)


class FutureReadingEnergyGate(EnergyScores):
    r"""EGA-1 as published (Zeris 2026a; the paper's EGA-1 and EGA-MORLET): the gate standardises each key's energy
    over the **whole window**, $z_j = (e_j - \mu)/\max(s, 10^{-8})$, so the output at position $i$ depends on the
    tokens after $i$, the next-token target among them: its teacher-forced loss contains the leak. Building it
    warns (:class:`FutureLeakWarning`); use :class:`CausalEnergyGate` in a language model.

    :param n_embd: the model width d.
    :param n_head: the heads (one gate each).
    :param warn: False only where the caller knowingly reproduces the published, non-causal model.

    Weight decay: the released code decays every parameter, α and τ included; nanoGPT's grouping by dimension
    leaves these 1-D parameters (and the energy bias) undecayed, which differs from the paper's runs.

    Shapes: ``log_gate(normed)``, normed (batch, time, n_embd) the input of q, k, v (after the block's first
    LayerNorm) → (batch, n_head, 1, time): log g_j, added to the attention logits of every query row (with the
    causal mask), or multiplied into the weights after dropout and the rows renormalised, as released.

    Example::

        import torch
        from mope import FutureReadingEnergyGate
        gate = FutureReadingEnergyGate(n_embd=64, n_head=4)     # warns: it reads future tokens
        normed = torch.randn(2, 10, 64)
        bias = gate.log_gate(normed)                           # (2, 4, 1, 10)
    """

    causal = False

    def __init__(self, n_embd: int, n_head: int, warn: bool = True):
        super().__init__(n_embd, n_head)
        if warn:
            warnings.warn("FutureReadingEnergyGate standardises over the whole window, so each position reads the "
                          "tokens after it (the next-token target among them); use CausalEnergyGate in a language "
                          "model", FutureLeakWarning, stacklevel=2)

    def standardised(self, normed: torch.Tensor) -> torch.Tensor:
        """z_j over the whole window: (B, H, 1, T)."""
        e = self.energies(normed)
        mean = e.mean(dim=-1, keepdim=True)
        std = e.std(dim=-1, correction=0, keepdim=True).clamp_min(STD_FLOOR)
        return ((e - mean) / std).unsqueeze(2)


class CausalEnergyGate(EnergyScores):
    r"""The energy gate with the statistics of each query row taken over its prefix $j \le i$ (a control of this
    book; no released counterpart): $z_{ij} = (e_j - \mu_i)/s_i$, $s_i = \sqrt{\mathrm{var}_i + 10^{-6}}$,
    $g_{ij} = \sigma(\alpha_h(z_{ij} - \tau_h))$. Changing a later token never changes an earlier output. The
    gate to use in a language model.

    :param n_embd: the model width d.
    :param n_head: the heads (one gate each).

    Weight decay: the released code decays every parameter, α and τ included; nanoGPT's grouping by dimension
    leaves these 1-D parameters (and the energy bias) undecayed, which differs from the paper's runs.

    Shapes: ``log_gate(normed)``, normed (batch, time, n_embd) → (batch, n_head, time, time): log g_ij, added to
    the attention logits of query i and key j (entries j > i are masked by the causal mask).

    Example::

        import torch
        from mope import CausalEnergyGate
        gate = CausalEnergyGate(n_embd=64, n_head=4)
        normed = torch.randn(2, 10, 64)                        # the input of q, k, v after LayerNorm
        bias = gate.log_gate(normed)                           # (2, 4, 10, 10): add to the logits, then mask
    """

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
