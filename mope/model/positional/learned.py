r"""Learned absolute positions (BASE-DOT, EGA-1, PE-ROPE).

$$\mathrm{PE}(b) = P_{b,:},\qquad P \in \mathbb{R}^{T\times d}\ \text{learned}$$

A table of ``block_size`` rows: the model cannot be run on a longer context.
"""
from __future__ import annotations

import torch
from torch import nn


class LearnedPositions(nn.Module):
    def __init__(self, block_size: int, n_embd: int):
        super().__init__()
        self.table = nn.Embedding(block_size, n_embd)

    @property
    def max_context(self) -> int:
        return self.table.num_embeddings

    def forward(self, length: int) -> torch.Tensor:
        if length > self.max_context:
            raise ValueError(
                f"context of {length} tokens is longer than the learned position table "
                f"({self.max_context} rows); use at most {self.max_context} tokens or a scheme "
                "without a table (sincos, morlet, none, rope-only, alibi)"
            )
        return self.table.weight[:length]
