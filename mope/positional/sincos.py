r"""Fixed sinusoidal positions of Vaswani et al. (2017), Eq. 1–2 of the paper.

$$\mathrm{PE}(b,2i)=\sin(\omega_i b),\quad \mathrm{PE}(b,2i+1)=\cos(\omega_i b),\quad
\omega_i = 10000^{-2i/d}$$

Sine on the even channels (MoPE puts the cosine there).
"""
from __future__ import annotations

import torch
from torch import nn


def sincos_frequencies(n_embd: int, base: float = 10000.0) -> torch.Tensor:
    """$\\omega_i = \\mathrm{base}^{-2i/d}$ for $i = 0..d/2-1$."""
    return base ** (-torch.arange(0, n_embd, 2, dtype=torch.float64) / n_embd)


class SinusoidalPositions(nn.Module):
    max_context = None  # defined at every position

    def __init__(self, n_embd: int):
        super().__init__()
        if n_embd % 2:
            raise ValueError(f"sin/cos positions pair channels (2i, 2i+1): n_embd must be even, got {n_embd}")
        self.register_buffer("omega", sincos_frequencies(n_embd).float(), persistent=False)

    def forward(self, length: int) -> torch.Tensor:
        b = torch.arange(length, device=self.omega.device, dtype=torch.float32)
        phase = b[:, None] * self.omega[None, :]
        return torch.stack((torch.sin(phase), torch.cos(phase)), dim=-1).flatten(1)
