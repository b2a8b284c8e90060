"""The checks of what the drop-in modules are given: counts (widths, heads, lengths, offsets) and input tensors.

A module a researcher lifts into a model of their own is called with torch's tensors and Python's numbers, where a
wrong shape would otherwise pass silently (a 4-D tensor broadcast to 5-D) or fail in torch's words (a broadcast
error naming no module). Each check raises one line that names the module, what it got and what it expects:
``TypeError`` for a value of the wrong kind (a float length, a tensor where a length belongs), ``ValueError`` for a
value out of range or a tensor of the wrong shape. A length may be a ``torch.SymInt`` (``torch.export`` with a
dynamic time dimension, ``torch.compile``).
"""
from __future__ import annotations

import math
import numbers
import operator

import torch


def _shape(value) -> str:
    return str(tuple(value.shape)) if isinstance(value, torch.Tensor) else repr(value)


def check_count(owner: str, name: str, value, minimum: int = 1) -> int:
    """``value`` if it is an integer (an int, a NumPy integer, a traced ``torch.SymInt``) of at least ``minimum``; else one line naming
    ``owner`` (the module, e.g. "CausalEnergyGate"), the argument and what was given."""
    integral = isinstance(value, torch.SymInt) or (hasattr(type(value), "__index__")
                                                   and not isinstance(value, (bool, torch.Tensor)))
    if not integral:
        kind = f"a tensor of shape {_shape(value)}" if isinstance(value, torch.Tensor) else f"{type(value).__name__} {value!r}"
        hint = " (the length of a sequence is x.size(1))" if isinstance(value, torch.Tensor) else ""
        raise TypeError(f"{owner}: {name} must be an int >= {minimum}, got {kind}{hint}")
    if not isinstance(value, torch.SymInt):
        value = operator.index(value)  # a NumPy integer, say
    if value < minimum:
        raise ValueError(f"{owner}: {name} must be an int >= {minimum}, got {value}")
    return value


def check_amplitude(owner: str, value) -> float:
    """``value`` as a float if it is a finite real number (a Python or NumPy number, not a bool or a tensor); else one
    line naming ``owner`` and what was given."""
    if isinstance(value, (bool, torch.Tensor)) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise TypeError(f"{owner}: amplitude must be a finite number (1.0 as published), got {type(value).__name__} "
                        f"{value!r}")
    return float(value)


def check_positions(owner: str, length, offset) -> None:
    """A number of positions (>= 0) starting at ``offset`` (>= 0), as the positions modules' ``forward`` takes."""
    check_count(owner, "length", length, minimum=0)
    check_count(owner, "offset", offset, minimum=0)


def check_tensor(owner: str, name: str, value, layout: str, width: int | None = None) -> None:
    """``value`` must be a tensor of ``len(layout)`` dimensions, named by ``layout`` (e.g. ("batch", "time",
    "n_embd")), whose last dimension is ``width`` when given."""
    layout_text = "(" + ", ".join(layout) + ")"
    expected = layout_text if width is None else layout_text.replace(layout[-1], f"{layout[-1]}={width}")
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{owner}: {name} must be a tensor {expected}, got {type(value).__name__}")
    if value.dim() != len(layout) or (width is not None and value.size(-1) != width):
        raise ValueError(f"{owner}: {name} must be {expected}, got shape {_shape(value)}")
