r"""Rotary position embedding (Su et al., 2021), Eq. 4 and §5.2 of the paper.

Channels $(2j, 2j+1)$ of every query and key are one complex number, rotated by the angle
$\theta_j b$ at position $b$:

$$f_\mathrm{RoPE}(q, b)_j = q_{2j}\,e^{i\theta_j b},\\ \theta_j = 10000^{-2j/d_k}$$

so that $\mathrm{Re}[f(q,i)\,\overline{f(k,j)}]$ depends on $i - j$ only (relative position).

Positions start at an offset $t_0$ (decoding with a key-value cache): the $T_q$ queries sit at
$t_0 \ldots t_0+T_q-1$ and the $T_k$ keys end where the queries end, at $t_0+T_q-T_k \ldots t_0+T_q-1$, so
one rule serves both habits of a cache (rotate only the new keys, $T_k = T_q$; or pass every key,
$T_k = t_0 + T_q$). The default $t_0 = T_k - T_q$ makes the keys start at 0: for $T_q = T_k$ it is 0, the
positions of the full forward.
"""
from __future__ import annotations

import torch

from mope.model.arguments import check_count
from mope.model.positional.fixed_buffers import FixedBuffers


def rope_frequencies(head_size: int, base: float = 10000.0) -> torch.Tensor:
    r"""$\theta_j = \mathrm{base}^{-2j/d_k}$ for $j = 0..d_k/2-1$."""
    if head_size % 2:
        raise ValueError(f"rotary embeddings rotate channel pairs: head size must be even, got {head_size}")
    return base ** (-torch.arange(0, head_size, 2, dtype=torch.float64) / head_size)


def query_and_key_positions(owner: str, query_length: int, key_length: int, offset: int | None,
                            device: torch.device | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Float32 positions (Tq,) of the queries and (Tk,) of the keys: queries from ``offset`` (default Tk - Tq), the
    keys ending where the queries end; an error names ``owner``, the module called."""
    if offset is None:
        offset = key_length - query_length
    first_key = offset + query_length - key_length
    if offset < 0 or first_key < 0:
        raise ValueError(f"{owner}: {query_length} queries at offset {offset} against {key_length} keys put a key "
                         "before position 0: the keys end where the queries end (pass every key, or only the new ones)")
    queries = torch.arange(offset, offset + query_length, device=device, dtype=torch.float32)
    keys = queries if key_length == query_length else torch.arange(
        first_key, first_key + key_length, device=device, dtype=torch.float32)
    return queries, keys


def rotate_pairs(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate interleaved pairs of the last dimension of ``x`` (..., T, hs) by angles given as cos/sin (T, hs/2)."""
    pairs = x.unflatten(-1, (-1, 2))
    real, imag = pairs[..., 0], pairs[..., 1]
    rotated = torch.stack((real * cos - imag * sin, real * sin + imag * cos), dim=-1)
    return rotated.flatten(-2)


class Rotary(FixedBuffers):
    r"""Rotary positions (RoPE, Eq. 4): rotate channel pair $(2j, 2j+1)$ of every query and key at position $b$ by
    $\theta_j b$, $\theta_j = \mathrm{base}^{-2j/d_k}$, so that their dot product depends on $i - j$ only. No
    parameters; θ is a buffer outside the state dict, rebuilt by :meth:`reset_parameters` and after
    ``load_state_dict`` (a module built on the meta device, then ``to_empty``, then loaded, computes as the
    original), and kept float32 by a cast of the module.

    :param head_size: the channels of one head, d_k (even).
    :param seq_dim: the dimension of q and k that is time: 2 for (batch, heads, time, head_size), 1 for (batch, time,
        heads, head_size). Needed for 4-D tensors, whose shape cannot tell the two layouts apart (rotating by the head
        index would pass silently); 2-D and 3-D tensors have time second to last.
    :param base: the base of the frequencies, 10,000 as Su et al. and the paper.

    Shapes: ``rotate(q, k, offset=None)``: q (…, Tq, …, head_size) and k (…, Tk, …, head_size), time at ``seq_dim``,
    in and out, the queries at positions offset … offset+Tq−1 and the keys ending where they end (the default offset,
    Tk − Tq, puts the first key at 0: with a key-value cache pass every key, or only the new keys and ``offset``).

    Example::

        import torch
        from mope import Rotary
        rope = Rotary(head_size=16, seq_dim=2)
        q, k = torch.randn(2, 4, 10, 16), torch.randn(2, 4, 10, 16)   # (batch, heads, time, head_size)
        q, k = rope.rotate(q, k)                                         # same shapes; then attend as usual
    """

    def __init__(self, head_size: int, seq_dim: int | None = None, base: float = 10000.0):
        super().__init__()
        owner = type(self).__name__
        self.head_size = check_count(owner, "head_size", head_size)
        if head_size % 2:
            raise ValueError(f"{owner}: rotary embeddings rotate channel pairs, head_size must be even, got {head_size}")
        if seq_dim is not None and (isinstance(seq_dim, bool) or not isinstance(seq_dim, int)):
            raise TypeError(f"{owner}: seq_dim must be an int (the dimension of q and k that is time) or None, "
                            f"got {seq_dim!r}")
        if isinstance(base, bool) or not isinstance(base, (int, float)) or not base > 1:
            raise ValueError(f"{owner}: base must be a number > 1, got {base!r}")
        self.seq_dim, self.base = seq_dim, float(base)
        self.register_fixed_buffers()

    def fixed_buffers(self) -> dict[str, torch.Tensor]:
        """θ_j = base^(−2j/d_k), float32."""
        return {"theta": rope_frequencies(self.head_size, self.base).float()}

    def angles(self, positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """cos and sin of θ_j b for float32 positions b (n,): (n, head_size/2) each."""
        phase = positions[:, None] * self.theta[None, :]
        return torch.cos(phase), torch.sin(phase)

    def time_dimension(self, q: torch.Tensor, k: torch.Tensor, seq_dim: int | None = None) -> int:
        """The dimension of q and k that is time (``seq_dim``, else the module's), checked against their shapes."""
        owner = type(self).__name__
        for name, value in (("q", q), ("k", k)):
            if not isinstance(value, torch.Tensor) or value.dim() < 2 or value.size(-1) != self.head_size:
                shape = tuple(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__
                raise ValueError(f"{owner}: {name} must be (..., time, ..., head_size={self.head_size}), got {shape}")
        if q.dim() != k.dim():
            raise ValueError(f"{owner}: q and k must have one layout, got shapes {tuple(q.shape)} and {tuple(k.shape)}")
        seq_dim = self.seq_dim if seq_dim is None else seq_dim
        if seq_dim is None:
            if q.dim() == 4:
                raise ValueError(f"{owner}: a 4-D q of shape {tuple(q.shape)} may be (batch, heads, time, head_size) "
                                 "or (batch, time, heads, head_size); say which: seq_dim=2 or seq_dim=1 (to the "
                                 "constructor or to the call)")
            seq_dim = -2
        if not -q.dim() <= seq_dim < q.dim() or seq_dim % q.dim() == q.dim() - 1:
            raise ValueError(f"{owner}: seq_dim={seq_dim} is not a time dimension of q of shape {tuple(q.shape)} "
                             "(the last one is head_size)")
        return seq_dim % q.dim()

    def rotate(self, q: torch.Tensor, k: torch.Tensor, offset: int | None = None,
               seq_dim: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """q at positions offset … offset+Tq−1 and k ending at the same position, each rotated by the angles of its
        positions (default offset Tk − Tq); time at ``seq_dim`` (default: the module's)."""
        q, k, time = self.time_second_to_last(q, k, offset, seq_dim)
        q, k = self.rotate_sequences(q, k, offset)
        return q.movedim(-2, time), k.movedim(-2, time)

    def time_second_to_last(self, q: torch.Tensor, k: torch.Tensor, offset: int | None,
                            seq_dim: int | None) -> tuple[torch.Tensor, torch.Tensor, int]:
        """q and k with their time (``seq_dim``, else the module's) moved second to last, and where it was; the
        shapes and ``offset`` checked."""
        if offset is not None:
            check_count(type(self).__name__, "offset", offset, minimum=0)
        time = self.time_dimension(q, k, seq_dim)
        return q.movedim(time, -2), k.movedim(time, -2), time

    def rotate_sequences(self, q: torch.Tensor, k: torch.Tensor, offset: int | None) -> tuple[torch.Tensor, torch.Tensor]:
        """:meth:`rotate` of q and k whose time is their second-to-last dimension."""
        query_positions, key_positions = query_and_key_positions(type(self).__name__, q.size(-2), k.size(-2), offset,
                                                                 self.theta.device)
        return self.rotate_at(q, k, query_positions, key_positions)

    def rotate_at(self, q: torch.Tensor, k: torch.Tensor, query_positions: torch.Tensor,
                  key_positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """q and k, time second to last, rotated by the angles of their float32 positions (the one hook a variant
        overrides; ``key_positions`` is ``query_positions`` where they coincide)."""
        cos, sin = self.angles(query_positions)
        q = rotate_pairs(q, cos.to(q.dtype), sin.to(q.dtype))
        if key_positions is not query_positions:
            cos, sin = self.angles(key_positions)
        return q, rotate_pairs(k, cos.to(k.dtype), sin.to(k.dtype))

    def forward(self, q: torch.Tensor, k: torch.Tensor, offset: int | None = None,
                seq_dim: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """``module(q, k, offset)`` is :meth:`rotate`: q and k rotated by the angles of their positions."""
        return self.rotate(q, k, offset, seq_dim)
