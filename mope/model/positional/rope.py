r"""Rotary position embedding (Su et al., 2021), Eq. 3 and §5.2 of the paper.

Channels $(2j, 2j+1)$ of every query and key are one complex number, rotated by the angle
$\theta_j b$ at position $b$:

$$f_\mathrm{RoPE}(q, b)_j = q_{2j}\,e^{i\theta_j b},\qquad \theta_j = 10000^{-2j/d_k}$$

so that $\mathrm{Re}[f(q,i)\,\overline{f(k,j)}]$ depends on $i - j$ only (relative position).
"""
from __future__ import annotations

import torch
from torch import nn


def rope_frequencies(head_size: int, base: float = 10000.0) -> torch.Tensor:
    r"""$\theta_j = \mathrm{base}^{-2j/d_k}$ for $j = 0..d_k/2-1$."""
    if head_size % 2:
        raise ValueError(f"rotary embeddings rotate channel pairs: head size must be even, got {head_size}")
    return base ** (-torch.arange(0, head_size, 2, dtype=torch.float64) / head_size)


def rotate_pairs(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate interleaved pairs of the last dimension of ``x`` (..., T, hs) by angles given as cos/sin (T, hs/2)."""
    pairs = x.unflatten(-1, (-1, 2))
    real, imag = pairs[..., 0], pairs[..., 1]
    rotated = torch.stack((real * cos - imag * sin, real * sin + imag * cos), dim=-1)
    return rotated.flatten(-2)


class Rotary(nn.Module):
    r"""Rotary positions (RoPE, Eq. 3): rotate channel pair $(2j, 2j+1)$ of every query and key at position $b$ by
    $\theta_j b$, $\theta_j = 10000^{-2j/d_k}$, so that their dot product depends on $i - j$ only. No parameters.

    :param head_size: the channels of one head, d_k (even).

    Shapes: ``rotate(q, k)`` takes and returns q, k of shape (batch, heads, time, head_size), rotated by their
    positions 0..time-1 (a query cached at a later offset is not supported: positions start at 0).

    Example::

        import torch
        from mope import Rotary
        rope = Rotary(head_size=16)
        q, k = torch.randn(2, 4, 10, 16), torch.randn(2, 4, 10, 16)   # (batch, heads, time, head_size)
        q, k = rope.rotate(q, k)                                         # same shapes; then attend as usual
    """

    def __init__(self, head_size: int):
        super().__init__()
        self.register_buffer("theta", rope_frequencies(head_size).float(), persistent=False)

    def angles(self, length: int) -> tuple[torch.Tensor, torch.Tensor]:
        b = torch.arange(length, device=self.theta.device, dtype=torch.float32)
        phase = b[:, None] * self.theta[None, :]
        return torch.cos(phase), torch.sin(phase)

    def rotate(self, q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """q and k, (batch, heads, time, head_size) each, rotated by the angles of positions 0..time-1."""
        cos, sin = self.angles(q.size(-2))
        cos, sin = cos.to(q.dtype), sin.to(q.dtype)
        return rotate_pairs(q, cos, sin), rotate_pairs(k, cos, sin)
