r"""Fixed sinusoidal positions of Vaswani et al. (2017), Eq. 2–3 of the paper.

$$\mathrm{PE}(b,2i)=\sin(\omega_i b),\\ \mathrm{PE}(b,2i+1)=\cos(\omega_i b),\\
\omega_i = 10000^{-2i/d}$$

Sine on the even channels (MoPE puts the cosine there).

As released, the table enters at unit amplitude (each channel's root mean square over positions is
$1/\sqrt2 \approx 0.71$) next to token embeddings drawn from $N(0, 0.02^2)$: the positions start ~35×
larger than the tokens. ``amplitude`` scales the table; the PE-SINCOS-SCALED control uses
``EMBEDDING_MATCHED_AMPLITUDE``, which gives each channel the token embeddings' initial RMS, 0.02.
"""
from __future__ import annotations

import math

import torch

from mope.model.arguments import check_amplitude, check_count, check_positions
from mope.model.positional.fixed_buffers import FixedBuffers

EMBEDDING_MATCHED_AMPLITUDE = 0.02 * math.sqrt(2.0)  # channel RMS 0.02, the N(0, 0.02) embedding init


def sincos_frequencies(n_embd: int, base: float = 10000.0) -> torch.Tensor:
    """$\\omega_i = \\mathrm{base}^{-2i/d}$ for $i = 0..d/2-1$."""
    return base ** (-torch.arange(0, n_embd, 2, dtype=torch.float64) / n_embd)


class SinusoidalPositions(FixedBuffers):
    r"""Fixed sin/cos positions (Vaswani et al., 2017; the paper's PE-SINCOS): $\mathrm{PE}(b, 2i) = A\sin(\omega_i b)$,
    $\mathrm{PE}(b, 2i+1) = A\cos(\omega_i b)$, $\omega_i = 10000^{-2i/d}$. No parameters.

    :param n_embd: the model width d (even).
    :param amplitude: A. The published 1 gives the positions an RMS of 1/√2, about 35 times the RMS (0.02) of token
        embeddings initialised N(0, 0.02). The PE-SINCOS-SCALED control uses ``EMBEDDING_MATCHED_AMPLITUDE`` =
        0.02·√2, the embeddings' RMS; chapter 4 sets the two against MoPE (the claim "…because of Gaussian locality,
        not the scale of sin/cos"), and the page "MoPE and EGA in your own model" trains both in a small model of
        its own. Pass it unless you reproduce the paper.

    The frequencies are a buffer outside the state dict, rebuilt by :meth:`reset_parameters` and after
    ``load_state_dict`` (a meta-device build, ``to_empty``, then loaded, computes as the original).

    Shapes: ``forward(length, offset=0)`` → (length, n_embd), positions offset … offset+length−1.

    Example::

        import torch
        from mope import SinusoidalPositions
        from mope.model.positional.sincos import EMBEDDING_MATCHED_AMPLITUDE
        pos = SinusoidalPositions(n_embd=64, amplitude=EMBEDDING_MATCHED_AMPLITUDE)
        x = torch.randn(2, 10, 64) + pos(10)      # (2, 10, 64)
    """

    max_context = None  # defined at every position

    def __init__(self, n_embd: int, amplitude: float = 1.0):
        super().__init__()
        check_count("SinusoidalPositions", "n_embd", n_embd)
        self.amplitude = check_amplitude("SinusoidalPositions", amplitude)
        if n_embd % 2:
            raise ValueError(f"SinusoidalPositions: sin/cos positions pair channels (2i, 2i+1), n_embd must be even, "
                             f"got {n_embd}")
        self.n_embd = n_embd
        self.register_fixed_buffers()

    def fixed_buffers(self) -> dict[str, torch.Tensor]:
        """The pairs' frequencies ω_i, float32."""
        return {"omega": sincos_frequencies(self.n_embd).float()}

    def forward(self, length: int, offset: int = 0) -> torch.Tensor:
        """The encoding of positions offset … offset+length−1 (a query after a key-value cache of ``offset``
        tokens): (length, n_embd), computed in float32 and returned in :attr:`output_dtype` (float32, or the dtype
        the module was cast to: ``model.to(torch.bfloat16)`` adds a bfloat16 table to bfloat16 embeddings)."""
        check_positions("SinusoidalPositions", length, offset)
        b = torch.arange(offset, offset + length, device=self.omega.device, dtype=torch.float32)
        phase = b[:, None] * self.omega[None, :]
        table = torch.stack((torch.sin(phase), torch.cos(phase)), dim=-1).flatten(1)
        return (table if self.amplitude == 1.0 else self.amplitude * table).to(self.output_dtype)
