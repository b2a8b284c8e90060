r"""Morlet-RoPE, the paper's proposed extension (§7, $f_\text{M-RoPE}$), and a relative variant.

**Absolute** (as the paper writes it): RoPE's rotation with a learned Gaussian amplitude per frequency,
applied to queries and keys alike,

$$f_\text{M-RoPE}(q,b)_j = q_{2j}\,e^{i\theta_j b}\,e^{-b^2/2\sigma_j^2}.$$

The score of pair $j$ between query $i$ and key $k$ then carries $e^{-(i^2+k^2)/2\sigma_j^2}$: the same
origin prior as MoPE (late positions lose the frequencies with small $\sigma_j$).

**Relative** (ours): the Gaussian acts on the offset $\tau = i-k$, with the $e^{-\tau^2/4\sigma_j^2}$
envelope that the paper's averaged kernel (Figure 2) assigns to MoPE,

$$S_{ik} = \frac{1}{\sqrt{d_k}}\sum_j \mathrm{Re}\big[f_\text{RoPE}(q_i,i)_j
\\ \cdot\,\overline{f_\text{RoPE}(k_k,k)_j}\big]\,e^{-(i-k)^2/4\sigma_j^2},$$

which has no origin: shifting both positions leaves every score unchanged. Each frequency has its
own envelope, so the $T\times T$ score is built pair by pair (the maths needs it).

Both start on the admissibility boundary $\theta_j\sigma_j = 5$ and learn $\log\sigma_j$ per layer. Positions
start at an offset, as RoPE's (:mod:`mope.model.positional.rope`): decoding with a key-value cache
gives the scores of the full forward.
"""
from __future__ import annotations

import torch
from torch import nn

from mope.model.positional.morlet import ADMISSIBILITY_BOUND
from mope.model.positional.rope import Rotary, query_and_key_positions


def initial_log_sigma(theta: torch.Tensor) -> torch.Tensor:
    """log σ_j with σ_j = 5/θ_j: every pair on the admissibility boundary."""
    return (ADMISSIBILITY_BOUND / theta).log()


class MorletRotary(Rotary):
    r"""Morlet-RoPE (the paper's §7 proposal, as this book reads it): RoPE's rotation of pair $j$ by $\theta_j b$,
    times a learned Gaussian amplitude $e^{-b^2/2\sigma_j^2}$ on q and k at position $b$; σ_j starts at
    $5/\theta_j$ (every pair on ωσ = 5, as MoPE starts).

    :param head_size: the channels of one head, d_k (even): d_k/2 learned σ_j, shared by the heads.
    :param seq_dim: the dimension of q and k that is time, as :class:`Rotary`'s (needed for 4-D tensors).
    :param base: the base of the frequencies θ_j, as :class:`Rotary`'s.

    Shapes: ``rotate(q, k, offset=None)``: q (…, Tq, …, head_size) and k (…, Tk, …, head_size), time at ``seq_dim``,
    in and out, at the positions :class:`Rotary` gives them (with a key-value cache: pass every key, or only the new
    ones and ``offset``).

    Example::

        import torch
        from mope import MorletRotary
        hook = MorletRotary(head_size=16, seq_dim=2)
        q, k = hook.rotate(torch.randn(2, 4, 10, 16), torch.randn(2, 4, 10, 16))   # same shapes
    """

    def __init__(self, head_size: int, seq_dim: int | None = None, base: float = 10000.0):
        super().__init__(head_size, seq_dim, base)
        self.log_sigma = nn.Parameter(initial_log_sigma(self.theta))

    def reset_parameters(self) -> None:
        """θ and the initial σ_j again: the step after ``to_empty`` of a meta-device build."""
        self.reset_buffers()
        with torch.no_grad():
            self.log_sigma.copy_(initial_log_sigma(self.theta))

    def envelope(self, positions: torch.Tensor) -> torch.Tensor:
        r"""$e^{-b^2/2\sigma_j^2}$ at float32 positions b (n,), repeated over each pair's two channels: (n, head_size)."""
        envelope = torch.exp(-positions[:, None].square() / (2 * self.log_sigma.exp().square()))
        return envelope.repeat_interleave(2, dim=-1)

    def rotate_at(self, q: torch.Tensor, k: torch.Tensor, query_positions: torch.Tensor,
                  key_positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """RoPE's rotation (:meth:`Rotary.rotate_at`), then each query and key times the envelope at its position."""
        q, k = super().rotate_at(q, k, query_positions, key_positions)
        query_envelope = self.envelope(query_positions)
        key_envelope = query_envelope if key_positions is query_positions else self.envelope(key_positions)
        return q * query_envelope.to(q.dtype), k * key_envelope.to(k.dtype)


class RelativeMorletRotary(Rotary):
    r"""Relative Morlet-RoPE (ours, not the paper's): RoPE's rotation, then each pair's score damped by a learned
    Gaussian of the offset, $e^{-(i-k)^2/4\sigma_j^2}$, so that shifting every position leaves the scores as they
    were; σ_j starts at $5/\theta_j$ (every pair on ωσ = 5). An attention hook: it gives the scores themselves, pair
    by pair, where :class:`MorletRotary` gives rotated q and k for any attention.

    :param head_size: the channels of one head, d_k (even): d_k/2 learned σ_j, shared by the heads.
    :param seq_dim: the dimension of q and k that is time, as :class:`Rotary`'s (needed for 4-D tensors).
    :param base: the base of the frequencies θ_j, as :class:`Rotary`'s.

    Shapes: ``rotate(q, k, offset=None)`` as :class:`Rotary`'s; ``scores(q, k, offset=None)`` of rotated q
    (…, Tq, …, head_size) and k (…, Tk, …, head_size), time at ``seq_dim``: the scaled logits (…, Tq, Tk), q's other
    dimensions (batch, heads) first, before the causal mask.

    Example::

        import torch
        from mope.model.positional import RelativeMorletRotary
        hook = RelativeMorletRotary(head_size=16, seq_dim=2)
        q, k = hook.rotate(torch.randn(2, 4, 10, 16), torch.randn(2, 4, 10, 16))
        logits = hook.scores(q, k)                     # (2, 4, 10, 10); add the causal mask, then softmax
    """

    def __init__(self, head_size: int, seq_dim: int | None = None, base: float = 10000.0):
        super().__init__(head_size, seq_dim, base)
        self.log_sigma = nn.Parameter(initial_log_sigma(self.theta))

    reset_parameters = MorletRotary.reset_parameters

    def offset_envelopes(self, length: int, offset: int | None = None, key_length: int | None = None) -> torch.Tensor:
        r"""(pairs, Tq, Tk) envelopes $e^{-(i-k)^2/4\sigma_j^2}$ of ``length`` queries from ``offset`` against
        ``key_length`` keys (default: as many as the queries, at the same positions)."""
        queries, keys = query_and_key_positions(type(self).__name__, length,
                                                length if key_length is None else key_length, offset, self.theta.device)
        offset_sq = (queries[:, None] - keys[None, :]).square()
        return torch.exp(-offset_sq[None] / (4 * self.log_sigma.exp().square()[:, None, None]))

    def scores(self, q: torch.Tensor, k: torch.Tensor, offset: int | None = None,
               seq_dim: int | None = None) -> torch.Tensor:
        """Scaled logits (…, Tq, Tk) before the causal mask, of q and k already rotated (positions as :meth:`rotate`),
        time at ``seq_dim`` (default: the module's)."""
        q, k, _ = self.time_second_to_last(q, k, offset, seq_dim)
        envelopes = self.offset_envelopes(q.size(-2), offset, k.size(-2)).to(q.dtype)
        q_pairs, k_pairs = q.unflatten(-1, (-1, 2)), k.unflatten(-1, (-1, 2))
        total = torch.zeros(q.shape[:-1] + (k.size(-2),), device=q.device, dtype=q.dtype)
        for j in range(q_pairs.size(-2)):
            total = total + (q_pairs[..., j, :] @ k_pairs[..., j, :].transpose(-1, -2)) * envelopes[j]
        return total * q.size(-1) ** -0.5
