"""The model configuration: one frozen dataclass that names every architectural choice.

A variant of the paper (see :mod:`mope.variants`) is nothing but a :class:`GPTConfig`; every
choice is validated here so that a bad combination fails before any tensor is allocated.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass

from mope.errors import ConfigError

ABSOLUTE_SCHEMES = ("learned", "sincos", "sincos_scaled", "morlet", "none")
ATTENTION_SCHEMES = ("none", "rope", "morlet_rope", "morlet_rope_relative", "alibi")
GATES = ("none", "ega", "ega_causal")
ADMISSIBILITY_MODES = ("published", "straight_through", "none")


def _choose(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ConfigError(f"unknown {name} {value!r}; valid choices: {', '.join(choices)}")


@dataclass(frozen=True)
class GPTConfig:
    """Shape and positional/gating scheme of the GPT of the paper (Section 6.1).

    Defaults are the paper's shape: L=6, H=8, d=256, T=256, character vocabulary of 65.
    """

    vocab_size: int = 65
    block_size: int = 256  # training context T; only the learned table is bound to it
    n_layer: int = 6
    n_head: int = 8
    n_embd: int = 256
    dropout: float = 0.1
    absolute: str = "learned"  # position vector added at the input
    attention_positions: str = "none"  # how positions act inside attention
    gate: str = "none"  # energy gate on the keys (EGA-1)
    admissibility: str = "published"  # MoPE's omega*sigma >= 5 bound (Appendix A.3)
    morlet_centre: bool = False  # learned Gaussian centre b0 per pair (Section 7, G_i(b; b0))
    decay_positional: bool = True  # weight decay on MoPE's log-parameters, as published

    def __post_init__(self) -> None:
        _choose("absolute position scheme", self.absolute, ABSOLUTE_SCHEMES)
        _choose("attention position scheme", self.attention_positions, ATTENTION_SCHEMES)
        _choose("gate", self.gate, GATES)
        _choose("admissibility mode", self.admissibility, ADMISSIBILITY_MODES)
        for field in ("vocab_size", "block_size", "n_layer", "n_head", "n_embd"):
            if getattr(self, field) < 1:
                raise ConfigError(f"{field} must be a positive integer, got {getattr(self, field)}")
        if not 0.0 <= self.dropout < 1.0:
            raise ConfigError(f"dropout must lie in [0, 1), got {self.dropout}")
        if self.n_embd % self.n_head:
            raise ConfigError(
                f"n_head={self.n_head} does not divide n_embd={self.n_embd}; "
                f"choose a head count among the divisors of {self.n_embd}"
            )
        if self.absolute in ("sincos", "sincos_scaled", "morlet") and self.n_embd % 2:
            raise ConfigError(
                f"the {self.absolute} encoding pairs channels (2i, 2i+1): n_embd must be even, got {self.n_embd}"
            )
        if self.attention_positions in ("rope", "morlet_rope", "morlet_rope_relative") and self.head_size % 2:
            raise ConfigError(
                f"rotary schemes rotate channel pairs: the head size must be even, got {self.head_size}"
            )
        if self.morlet_centre and self.absolute != "morlet":
            raise ConfigError("morlet_centre=True needs absolute='morlet'")

    @property
    def head_size(self) -> int:
        return self.n_embd // self.n_head

    def replace(self, **changes) -> "GPTConfig":
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def digest(self) -> str:
        """A short stable hash of every field, used to tell stored results apart."""
        text = json.dumps(self.to_dict(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]
