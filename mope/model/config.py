"""The model configuration: one frozen dataclass that names every architectural choice.

A variant of the paper (see :mod:`mope.model.variants`) is nothing but a :class:`GPTConfig`; every
choice is validated here so that a bad combination fails before any tensor is allocated. The names
each scheme may take are registered here once (``ABSOLUTE_SCHEMES``, ``ATTENTION_SCHEMES``, ``GATES``,
``ADMISSIBILITY_MODES``); validation, error messages and labels read them. This module imports no torch.
"""
from __future__ import annotations

import dataclasses
import numbers
import operator
from dataclasses import dataclass

from mope.errors import ConfigError

ABSOLUTE_SCHEMES = ("learned", "sincos", "sincos_scaled", "morlet", "none")
ATTENTION_SCHEMES = ("none", "rope", "morlet_rope", "morlet_rope_relative", "alibi")
GATES = ("none", "ega", "ega_causal")


def _choose(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ConfigError(f"unknown {name} {value!r}; valid choices: {', '.join(choices)}")


@dataclass(frozen=True)
class AdmissibilityMode:
    """One way MoPE's forward treats the bound ωσ ≥ 5 (Appendix A.3; see
    :func:`mope.model.positional.morlet.project_admissible`)."""

    name: str
    label: str  # what a widget, table or legend shows
    projects: bool  # the forward replaces omega by 5/sigma where omega*sigma < 5


#: The admissibility modes, in one place: :class:`GPTConfig` validates against it, the projection reads
#: it, and its error messages and labels come from it. Modes with the same ``projects`` draw the same
#: forward values (they differ in the gradient only): see :func:`forward_modes`.
ADMISSIBILITY_MODES: dict[str, AdmissibilityMode] = {mode.name: mode for mode in (
    # inside autograd, as released: log ω gets no loss gradient where the bound acts
    AdmissibilityMode("published", "ωσ ≥ 5 projected (published)", True),
    # the backward pass sees no projection, log ω keeps its gradient (Appendix A.3's wording)
    AdmissibilityMode("straight_through", "ωσ ≥ 5 projected, straight-through gradient", True),
    # no bound, no projection
    AdmissibilityMode("none", "bound off (FREE)", False),
)}


def forward_modes() -> tuple[str, ...]:
    """One admissibility mode per distinct forward (what a plot of the encoding can tell apart): the
    first of the modes that project, and the first of those that do not: ("published", "none")."""
    firsts: dict[bool, str] = {}
    for mode in ADMISSIBILITY_MODES.values():
        firsts.setdefault(mode.projects, mode.name)
    return tuple(firsts.values())


def check_admissibility(mode: str) -> AdmissibilityMode:
    """The registered mode of that name; a :class:`~mope.errors.ConfigError` naming the valid ones otherwise."""
    _choose("admissibility mode", mode, tuple(ADMISSIBILITY_MODES))
    return ADMISSIBILITY_MODES[mode]


# The model shape: the fields of GPTConfig that every variant of one preset shares
# (:class:`mope.store.presets.TrainConfig` carries them, with GPTConfig's defaults).
SHAPE_FIELDS = ("n_layer", "n_head", "n_embd", "block_size", "dropout")


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
        check_admissibility(self.admissibility)
        for field in ("vocab_size", "block_size", "n_layer", "n_head", "n_embd"):
            value = getattr(self, field)
            if isinstance(value, bool) or not hasattr(type(value), "__index__") or value < 1:
                raise ConfigError(f"{field} must be a positive integer, got {value!r}")
            object.__setattr__(self, field, operator.index(value))  # a NumPy integer stored as the int it is
        if isinstance(self.dropout, bool) or not isinstance(self.dropout, numbers.Real) or not 0.0 <= self.dropout < 1.0:
            raise ConfigError(f"dropout must be a number in [0, 1), got {self.dropout!r}")
        for field in ("morlet_centre", "decay_positional"):
            if not isinstance(getattr(self, field), bool):
                raise ConfigError(f"{field} must be True or False, got {getattr(self, field)!r}")
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
        """This configuration with ``changes``; a field it does not have is named, with the fields it has."""
        fields = [field.name for field in dataclasses.fields(self)]
        unknown = sorted(set(changes) - set(fields))
        if unknown:
            raise ConfigError(f"GPTConfig has no field {', '.join(map(repr, unknown))}; its fields: {', '.join(fields)}")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)
