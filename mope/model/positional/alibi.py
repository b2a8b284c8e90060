r"""ALiBi (Press et al., 2022), §2.1 of the paper: a linear penalty on the attention logits,

$$S_{ij} \leftarrow S_{ij} - m_h\,(i-j),\qquad j \le i,$$

with head slopes $m_h = 2^{-8h/n}$, $h=1..n$, for $n$ a power of two. For other head counts
Press et al. take the $2^{\lfloor\log_2 n\rfloor}$ slopes and fill up with every other slope of
the next power of two. Since $-m_h i$ is the same for every key of row $i$ and softmax ignores a
constant per row, the penalty equals the key bias $+m_h j$: no $T\times T$ matrix is needed, and a query
after a key-value cache (any row) takes the same bias over its keys $0 \ldots T_k-1$.
"""
from __future__ import annotations

import math

import torch

from mope.model.arguments import check_count
from mope.model.positional.fixed_buffers import FixedBuffers


def alibi_slopes(n_head: int) -> torch.Tensor:
    def powers_of_two(n: int) -> list[float]:
        return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]

    if n_head < 1:
        raise ValueError(f"n_head must be positive, got {n_head}")
    closest = 2 ** int(math.floor(math.log2(n_head)))
    slopes = powers_of_two(closest)
    if closest < n_head:
        slopes += powers_of_two(2 * closest)[0::2][: n_head - closest]
    return torch.tensor(slopes)


class ALiBi(FixedBuffers):
    r"""ALiBi (Press et al., 2022): the attention logit of query i and key j gets $-m_h (i - j)$, a linear penalty
    on the distance with a fixed slope $m_h$ per head; added as the key bias $m_h j$, which the softmax of each row
    makes equivalent. No parameters.

    :param n_head: the number of heads (the slopes are the geometric sequence of the paper, for any count).

    Shapes: ``logit_bias(length)`` → (1, n_head, 1, length), added to (batch, n_head, Tq, length) logits of
    ``length`` keys at positions 0 … length−1 and any Tq queries (with a key-value cache too: Tq = 1).

    The slopes are a buffer outside the state dict, rebuilt by :meth:`reset_parameters` and after
    ``load_state_dict`` (a meta-device build, ``to_empty``, then loaded, computes as the original).

    Example::

        import torch
        from mope import ALiBi
        alibi = ALiBi(n_head=4)
        logits = torch.randn(2, 4, 10, 10)        # (batch, heads, query, key) before the causal mask
        logits = logits + alibi.logit_bias(10)    # same shape
    """

    def __init__(self, n_head: int):
        super().__init__()
        self.n_head = check_count("ALiBi", "n_head", n_head)
        self.register_fixed_buffers()

    def fixed_buffers(self) -> dict[str, torch.Tensor]:
        """The heads' slopes m_h."""
        return {"slopes": alibi_slopes(self.n_head)}

    def logit_bias(self, length: int) -> torch.Tensor:
        """(1, H, 1, length) bias $m_h j$ of keys j = 0 … length−1, added to every query row; in
        :attr:`output_dtype` (float32, or the dtype the module was cast to)."""
        check_count("ALiBi", "length", length, minimum=0)
        j = torch.arange(length, device=self.slopes.device, dtype=torch.float32)
        return (self.slopes[:, None] * j[None, :])[None, :, None, :].to(self.output_dtype)

    def forward(self, length: int) -> torch.Tensor:
        """``module(length)`` is :meth:`logit_bias`: the (1, H, 1, length) key bias."""
        return self.logit_bias(length)
