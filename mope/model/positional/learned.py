r"""Learned absolute positions (BASE-DOT, EGA-1, PE-ROPE).

$$\mathrm{PE}(b) = P_{b,:},\qquad P \in \mathbb{R}^{T\times d}\ \text{learned}$$

A table of ``block_size`` rows: the model cannot be run on a longer context.
"""
from __future__ import annotations

import torch
from torch import nn

from mope.model.arguments import check_count, check_positions


class LearnedPositions(nn.Module):
    r"""A learned table of positions (the GPT-2 and nanoGPT default, the paper's BASE-DOT): row $b$ added to the
    token embedding at position $b$, $P \in \mathbb{R}^{T\times d}$ (initialised N(0, 1) by ``nn.Embedding``; the
    project's GPT re-initialises it N(0, 0.02) as nanoGPT does).

    :param block_size: the rows, the longest context the model can read.
    :param n_embd: the model width d.

    Shapes: ``forward(length, offset=0)`` → (length, n_embd), rows offset … offset+length−1 ≤ block_size − 1.

    Example::

        import torch
        from mope import LearnedPositions
        pos = LearnedPositions(block_size=256, n_embd=64)
        tokens = torch.randn(2, 10, 64)
        x = tokens + pos(tokens.size(1))          # (2, 10, 64)
    """

    def __init__(self, block_size: int, n_embd: int):
        super().__init__()
        check_count("LearnedPositions", "block_size", block_size)
        check_count("LearnedPositions", "n_embd", n_embd)
        self.table = nn.Embedding(block_size, n_embd)

    @property
    def max_context(self) -> int:
        return self.table.num_embeddings

    def reset_parameters(self) -> None:
        """A fresh N(0, 1) table (``nn.Embedding``'s): the step after ``to_empty`` of a meta-device build."""
        self.table.reset_parameters()

    def forward(self, length: int, offset: int = 0) -> torch.Tensor:
        """Rows offset … offset+length−1 of the table (a query after a key-value cache of ``offset`` tokens),
        (length, n_embd)."""
        check_positions("LearnedPositions", length, offset)
        if offset + length > self.max_context:
            raise ValueError(
                f"LearnedPositions: a context of {offset + length} tokens is longer than the learned position table "
                f"({self.max_context} rows); use at most {self.max_context} tokens, or positions without a table "
                "(MorletPositions, SinusoidalPositions, Rotary, MorletRotary, ALiBi)"
            )
        return self.table.weight[offset:offset + length]
