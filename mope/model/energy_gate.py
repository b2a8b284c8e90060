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

**Decoding** with the causal gate needs no $T\times T$ tensor: row $i$ of $\log g$ is a function of the keys'
energies $e_{j\le i}$ and two running sums, $\sum_j (e_j - e_0)$ and $\sum_j (e_j - e_0)^2$.
:meth:`CausalEnergyGate.step` keeps them in a :class:`GateCache` (one per layer) and returns the new query's row
in $O(T)$ work per token, where :meth:`~CausalEnergyGate.log_gate` of the whole window takes $O(T^2)$.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from mope.model.arguments import check_count, check_tensor

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
        owner = type(self).__name__
        self.n_embd, self.n_head = check_count(owner, "n_embd", n_embd), check_count(owner, "n_head", n_head)
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
        check_tensor(type(self).__name__, "normed", normed, ("batch", "time", "n_embd"), self.n_embd)
        e = self.energy(normed).transpose(1, 2)
        return e.to(torch.promote_types(e.dtype, torch.float32))

    def standardised(self, normed: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def log_gate(self, normed: torch.Tensor) -> torch.Tensor:
        """log g = log σ(α (z − τ)), broadcastable to the (B, H, T, T) attention logits: computed in float32 at
        least, returned in ``normed``'s dtype (a model cast to bfloat16 gets a bfloat16 bias)."""
        z = self.standardised(normed)
        return F.logsigmoid(self.alpha[:, None, None] * (z - self.tau[:, None, None])).to(normed.dtype)

    def forward(self, normed: torch.Tensor) -> torch.Tensor:
        """``module(normed)`` is :meth:`log_gate`: log g, to add to the attention logits before the causal mask."""
        return self.log_gate(normed)

    def score_modifier(self, normed: torch.Tensor):
        """log g as ``flex_attention``'s ``score_mod(score, b, h, q_idx, kv_idx)`` (:mod:`mope.model.flex`): the
        logit plus log g of that query and key, from (B, H, T) tensors, with no (B, H, T, T) one."""
        raise NotImplementedError


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

    def score_modifier(self, normed: torch.Tensor):
        """score + log g_j of key j (B, H, T): softmax(S + log g), the released ratio without its 1e-8 floor."""
        key_bias = self.log_gate(normed)[:, :, 0]

        def modify(score, b, h, q_idx, kv_idx):
            return score + key_bias[b, h, kv_idx]

        return modify


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
    the attention logits of query i and key j (entries j > i are masked by the causal mask). Decoding,
    ``step(normed, cache=None)``, normed (batch, n, n_embd) of n new tokens → (batch, n_head, n, t + n) rows of
    log g against the t cached keys and the new ones, and the :class:`GateCache` with them: O(T) work per token,
    no T × T tensor.

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

    def row_coefficients(self, mean: torch.Tensor, std: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(a_i, c_i), (B, H, n) each, of the query rows whose prefix statistics are ``mean``, ``std``: alpha (z_ij -
        tau) = a_i (e_j - e_0) + c_i, a_i = alpha / s_i, c_i = -alpha ((mu_i - e_0) / s_i + tau)."""
        slope = self.alpha[:, None] / std
        return slope, -(slope * mean + (self.alpha * self.tau)[:, None])

    def rows(self, keys: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
        """log g_ij of the query rows whose prefix statistics are ``mean``, ``std`` (B, H, n) against the centred
        energies ``keys`` (B, H, T) of the keys: (B, H, n, T), in one pass, alpha (z_ij - tau) = a_i (e_j - e_0) + c_i
        with a_i = alpha / s_i and c_i = -alpha ((mu_i - e_0) / s_i + tau) (the same numbers as
        ``logsigmoid(alpha * (standardised - tau))`` up to rounding, with one temporary of the output's size instead
        of four)."""
        slope, offset = self.row_coefficients(mean, std)
        return F.logsigmoid(torch.addcmul(offset[..., :, None], slope[..., :, None], keys[..., None, :]))

    def log_gate(self, normed: torch.Tensor) -> torch.Tensor:
        """log g_ij, (B, H, T, T), of the whole window in one T x T pass (:meth:`rows`); computed in float32 at
        least, returned in ``normed``'s dtype."""
        centred, mean, std = self.prefix_statistics(normed)
        return self.rows(centred, mean, std).to(normed.dtype)

    def score_modifier(self, normed: torch.Tensor):
        """score + log sigma(c_i + a_i (e_j - e_0)), the row of :meth:`rows` at query i and key j from (B, H, T)
        tensors: no T x T one."""
        centred, mean, std = self.prefix_statistics(normed)
        slope, offset = self.row_coefficients(mean, std)

        def modify(score, b, h, q_idx, kv_idx):
            return score + F.logsigmoid(offset[b, h, q_idx] + slope[b, h, q_idx] * centred[b, h, kv_idx])

        return modify

    def step(self, normed: torch.Tensor, cache: GateCache | None = None) -> tuple[torch.Tensor, GateCache]:
        """Decoding: the rows of log g of ``n`` new tokens, ``normed`` (batch, n, n_embd) (their LN_1 input, as
        :meth:`log_gate` takes), against every key so far, (batch, n_head, n, t + n) for a cache of t keys, and the
        cache with the new keys. One new token costs O(t): its energy, two running sums and one row; no T x T
        tensor. ``step(normed)`` of a whole window (no cache) is :meth:`log_gate`; token by token, each row equals
        the last row of ``log_gate`` of the window so far within float32 rounding.

        Add the rows to the new queries' attention logits over the cached keys (for n > 1, with the causal mask of
        the new tokens, as :meth:`log_gate`'s); keep one cache per layer."""
        e = self.energies(normed)
        if cache is None:
            empty = e[..., :0]
            zero = e[..., :1] * 0.0
            cache = GateCache(empty, e[..., :1], zero, zero)
        elif cache.keys.shape[:2] != e.shape[:2]:
            raise ValueError(f"{type(self).__name__}.step: the cache holds (batch, n_head) = "
                             f"{tuple(cache.keys.shape[:2])}, the new tokens give {tuple(e.shape[:2])}")
        centred = e - cache.origin
        total = cache.total + centred.cumsum(-1)
        total_square = cache.total_square + centred.square().cumsum(-1)
        count = torch.arange(cache.length + 1, cache.length + e.size(-1) + 1, device=e.device, dtype=e.dtype)
        mean = total / count
        variance = (total_square / count - mean.square()).clamp_min(0.0)
        keys = torch.cat((cache.keys, centred), -1)
        updated = GateCache(keys, cache.origin, total[..., -1:], total_square[..., -1:])
        return self.rows(keys, mean, torch.sqrt(variance + PREFIX_VARIANCE_EPS)).to(normed.dtype), updated


@dataclass(frozen=True)
class GateCache:
    """What :meth:`CausalEnergyGate.step` keeps of the keys seen so far, in one layer: O(T) numbers per head."""

    keys: torch.Tensor  # (B, H, t): the keys' energies less the first key's, e_j - e_0
    origin: torch.Tensor  # (B, H, 1): e_0
    total: torch.Tensor  # (B, H, 1): the running sum of e_j - e_0
    total_square: torch.Tensor  # (B, H, 1): the running sum of (e_j - e_0)^2

    @property
    def length(self) -> int:
        """The keys seen so far."""
        return self.keys.size(-1)


def __getattr__(name: str):
    """``EnergyGate``, the published gate's name before 0.2.0: deprecated (it did not say that the gate reads the
    future), it is :class:`FutureReadingEnergyGate` and warns so."""
    if name == "EnergyGate":
        warnings.warn("mope.model.energy_gate.EnergyGate is deprecated since mope 0.2.0: it is FutureReadingEnergyGate "
                      "(the published gate, which reads the tokens after each position); use CausalEnergyGate in a "
                      "language model", DeprecationWarning, stacklevel=2)
        return FutureReadingEnergyGate
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
