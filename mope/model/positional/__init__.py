"""Positional schemes: vectors added at the input, and rules that act inside attention."""
from mope.model.positional.alibi import ALiBi, alibi_slopes
from mope.model.positional.learned import LearnedPositions
from mope.model.positional.morlet import MorletPositions
from mope.model.positional.morlet_rope import MorletRotary, RelativeMorletRotary
from mope.model.positional.rope import Rotary, rope_frequencies
from mope.model.positional.sincos import SinusoidalPositions

__all__ = [
    "ALiBi",
    "alibi_slopes",
    "LearnedPositions",
    "MorletPositions",
    "MorletRotary",
    "RelativeMorletRotary",
    "Rotary",
    "rope_frequencies",
    "SinusoidalPositions",
]
