"""Positional schemes: vectors added at the input, and rules that act inside attention."""
from mope.positional.alibi import ALiBi, alibi_slopes
from mope.positional.learned import LearnedPositions
from mope.positional.morlet import MorletPositions
from mope.positional.morlet_rope import MorletRotary, RelativeMorletRotary
from mope.positional.rope import Rotary, rope_frequencies
from mope.positional.sincos import SinusoidalPositions

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
