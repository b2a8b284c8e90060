r"""Morlet Positional Encoding (MoPE), §3.1 of the paper, as the released code runs it.

Each of the $d/2$ channel pairs is a Gaussian-windowed complex oscillator read at position $b$:

$$\mathrm{MoPE}(b,2i)=\cos(\omega_i b)\,G_i(b),\\ \mathrm{MoPE}(b,2i+1)=\sin(\omega_i b)\,G_i(b),
\\ G_i(b)=e^{-(b-b_{0,i})^2/(2\sigma_i^2+10^{-8})}$$

with $b_{0,i}=0$ as published (the learned centre $b_{0,i}$ is the paper's Section 7 remedy for the
origin prior). Cosine on the even channels (sin/cos PE puts the sine there).

Parameters are stored as $\log\omega_i$, $\log\sigma_i$ (256 numbers at $d=256$, not the 512 of §7).
Initialisation: $\omega_i$ geometric from 1 to $0.99\pi$, $\sigma_i = 5/\omega_i$ (every pair on
$\omega\sigma=5$). Each forward (Appendix A.3, as released):

$$\omega \leftarrow \min(e^{\log\omega}, 0.95\pi),\\ \sigma \leftarrow \max(e^{\log\sigma}, 10^{-3}),
\\ \omega \leftarrow \begin{cases} 5/\sigma & \omega\sigma < 5 \\ \omega & \text{else}\end{cases}$$

The last projection is the admissibility bound $\omega\sigma\ge5$. The released code applies it inside
autograd (``published``): while it is active $\log\omega$ gets no loss gradient and $\log\sigma$ gets it
through $5/\sigma$. Appendix A.3 describes a projection "not during gradient computation", which is
``straight_through``; ``none`` drops the bound (the paper's open question of relaxing it). The modes
are registered once, in :data:`mope.model.config.ADMISSIBILITY_MODES`.

A pair is *on the boundary* when $|\omega\sigma - 5| \le$ ``BOUNDARY_TOL``: every reader of the
learned pairs (:func:`mope.evidence.learned_parameters.on_boundary`, the chapters, the tables and
verdicts) uses that one tolerance. The projection puts a pair on the bound to float32 rounding (~1e-6),
far inside it.
"""
from __future__ import annotations

import contextlib
import math

import torch
from torch import nn

from mope.model.arguments import check_amplitude, check_count, check_positions
from mope.model.config import check_admissibility

ADMISSIBILITY_BOUND = 5.0  # omega * sigma >= 5 (Appendix A.2-A.3)
BOUNDARY_TOL = 1e-3  # a pair is "on the boundary" when |omega * sigma - 5| <= this
OMEGA_MAX = 0.95 * math.pi  # upper clamp on omega, below Nyquist
SIGMA_MIN = 1e-3
ENVELOPE_EPS = 1e-8  # added to 2 sigma^2, as released


def initial_morlet_parameters(n_pairs: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The released initialisation, in float32 and in the released order of operations: ω =
    exp(linspace(log 1, log 0.99π)) geometric in [1, 0.99π], σ = 5/ω.

    Float32 matters: the last bit of ωσ decides which pairs start just below the bound
    ωσ = 5, where the published projection leaves log ω without a gradient.
    """
    omega = torch.exp(torch.linspace(math.log(1.0), math.log(0.99 * math.pi), n_pairs, dtype=torch.float32))
    return omega, ADMISSIBILITY_BOUND / omega


def project_admissible(omega: torch.Tensor, sigma: torch.Tensor, mode: str) -> torch.Tensor:
    """Return ω after the bound ωσ ≥ 5, in the given autograd mode
    (one of :data:`~mope.model.config.ADMISSIBILITY_MODES`)."""
    if not check_admissibility(mode).projects:
        return omega
    projected = torch.where(omega * sigma < ADMISSIBILITY_BOUND, ADMISSIBILITY_BOUND / sigma, omega)
    if mode == "straight_through":
        return omega + (projected - omega).detach()
    return projected


def effective_parameters(log_omega: torch.Tensor, log_sigma: torch.Tensor,
                         admissibility: str) -> tuple[torch.Tensor, torch.Tensor]:
    """(omega, sigma) the forward uses for raw log-parameters: the clamps, then the admissibility bound."""
    dtype = torch.promote_types(log_omega.dtype, torch.float32)  # float32 at least; float64 stays float64
    omega = log_omega.to(dtype).exp().clamp(max=OMEGA_MAX)
    sigma = log_sigma.to(dtype).exp().clamp(min=SIGMA_MIN)
    return project_admissible(omega, sigma, admissibility), sigma


class MorletPositions(nn.Module):
    r"""Morlet positional encoding (MoPE, Eq. 6–7 of the paper): a learned Gaussian-windowed oscillator per channel
    pair, added to the token embeddings, $\mathrm{MoPE}(b, 2i) = \cos(\omega_i b)\,G_i(b)$,
    $\mathrm{MoPE}(b, 2i+1) = \sin(\omega_i b)\,G_i(b)$, $G_i(b) = e^{-b^2/(2\sigma_i^2)}$, each forward under
    the clamps and the bound $\omega_i\sigma_i \ge 5$ of Appendix A.3 (module docstring).

    :param n_embd: the model width d (even): d/2 pairs (ω_i, σ_i), stored as their logarithms.
    :param admissibility: "published" (the bound inside autograd, as released), "straight_through" (Appendix A.3's
        words) or "none" (no bound).
    :param learned_centre: learn each pair's centre b_0 (the paper's §7 remedy); off as published.
    :param amplitude: A, the encoding times A: 1 as published. Pass ``EMBEDDING_MATCHED_AMPLITUDE`` (0.02·√2, from
        :mod:`mope.model.positional.sincos`) to give each channel at b = 0 the RMS of token embeddings drawn
        N(0, 0.02²).
    :param weight_decay: whether AdamW decays log ω, log σ (and b_0): True as published, where the released code
        decays every parameter. The flag acts only through :meth:`no_decay_parameters`, which the optimiser must ask
        (the project's GPT does, ``GPT.optimizer_groups``); an optimiser built from ``model.parameters()`` decays them
        whatever the flag, and nanoGPT's grouping by dimension (decay for tensors of 2 dimensions or more) never
        decays these 1-D parameters, which differs from the paper's runs whatever the flag. Put
        ``no_decay_parameters()`` in a group with ``weight_decay=0`` and the rest in the decayed group.

    Reach at initialisation: every pair starts with σ_i = 5/ω_i, between 1.6 and 5, so each envelope is at most
    $e^{-b^2/50}$. At d = 128 the encoding's norm $(\sum_i G_i(b)^2)^{1/2}$ is 8.0 at b = 0, 0.34 at b = 10, 5.0e-04 at
    b = 20 and 3.4e-35 at b = 63, below a thousandth of its norm at b = 0 from b = 17 on: it tells positions apart
    near the start of the sequence only, until training widens σ_i (or ``learned_centre`` moves the windows). At b = 0
    its norm is √(d/2), 35 times that of a token embedding drawn N(0, 0.02²) (0.02·√d), as the published sin/cos
    (:class:`~mope.model.positional.sincos.SinusoidalPositions`) has at every position: ``amplitude`` scales it.

    Shapes: ``forward(length, offset=0)`` → (length, n_embd) at positions offset … offset+length−1 (a query after a
    key-value cache of ``offset`` tokens), the same for every sequence of the batch (broadcast it).

    Example::

        import torch
        from mope import MorletPositions
        pos = MorletPositions(n_embd=64)
        tokens = torch.randn(2, 10, 64)          # (batch, time, width): token embeddings
        x = tokens + pos(tokens.size(1))          # (2, 10, 64)
    """

    max_context = None  # defined at every position

    def __init__(self, n_embd: int, admissibility: str = "published", learned_centre: bool = False,
                 weight_decay: bool = True, amplitude: float = 1.0):
        super().__init__()
        check_count("MorletPositions", "n_embd", n_embd)
        if n_embd % 2:
            raise ValueError(f"MorletPositions: MoPE pairs channels (2i, 2i+1), n_embd must be even, got {n_embd}")
        check_admissibility(admissibility)
        omega, sigma = initial_morlet_parameters(n_embd // 2)
        self.admissibility = admissibility
        self.log_omega = nn.Parameter(torch.log(omega))
        self.log_sigma = nn.Parameter(torch.log(sigma))
        self.centre = nn.Parameter(torch.zeros(n_embd // 2)) if learned_centre else None
        self.weight_decay = weight_decay
        self.amplitude = check_amplitude("MorletPositions", amplitude)

    def reset_parameters(self) -> None:
        """The released initialisation again, in place: the step after ``to_empty`` of a meta-device build."""
        omega, sigma = initial_morlet_parameters(self.log_omega.numel())
        with torch.no_grad():
            self.log_omega.copy_(torch.log(omega))
            self.log_sigma.copy_(torch.log(sigma))
            if self.centre is not None:
                self.centre.zero_()

    def no_decay_parameters(self) -> list[nn.Parameter]:
        """Parameters kept out of AdamW's weight decay (none, as published)."""
        if self.weight_decay:
            return []
        return [p for p in (self.log_omega, self.log_sigma, self.centre) if p is not None]

    def effective(self) -> tuple[torch.Tensor, torch.Tensor]:
        """(omega, sigma) as the forward uses them, after clamps and the admissibility projection."""
        return effective_parameters(self.log_omega, self.log_sigma, self.admissibility)

    def forward(self, length: int, offset: int = 0) -> torch.Tensor:
        """The encoding of positions offset … offset+length−1: (length, n_embd), computed in float32 whatever the
        autocast (float64 for a module made float64, e.g. by ``.double()``) and returned in the dtype of the
        module's parameters (``model.to(torch.bfloat16)`` adds a bfloat16 table to bfloat16 embeddings)."""
        check_positions("MorletPositions", length, offset)
        device_type = self.log_omega.device.type
        autocast_off = torch.autocast(device_type=device_type, enabled=False) if torch.amp.is_autocast_available(
            device_type) else contextlib.nullcontext()  # the meta device has no autocast
        with autocast_off:
            omega, sigma = self.effective()
            b = torch.arange(offset, offset + length, device=omega.device, dtype=omega.dtype)[:, None]
            distance = b - self.centre.to(omega.dtype) if self.centre is not None else b
            envelope = torch.exp(-distance.square() / (2 * sigma.square() + ENVELOPE_EPS))
            phase = omega * b
            table = torch.stack((torch.cos(phase) * envelope, torch.sin(phase) * envelope), dim=-1).flatten(1)
            return (table if self.amplitude == 1.0 else self.amplitude * table).to(self.log_omega.dtype)
