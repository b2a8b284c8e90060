"""The named models: the six of Table 2 exactly as published, and the controls this book adds.

Each variant is a set of :class:`~mope.model.config.GPTConfig` fields on top of a shape; ``build_model``
turns a name and a shape into a model.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import torch

from mope.model.config import GPTConfig
from mope.errors import ConfigError
from mope.model.energy_gate import FutureLeakWarning
from mope.model.gpt import GATE_CLASSES, GPT, leak_message


@dataclass(frozen=True)
class Variant:
    name: str
    description: str
    settings: dict = field(default_factory=dict)
    in_table_2: bool = False

    @property
    def causal(self) -> bool:
        """False for a variant whose gate reads the future (the published EGA); the gate's class says which."""
        gate = GATE_CLASSES.get(self.settings.get("gate"))
        return gate is None or gate.causal


_VARIANTS = [
    # --- Table 2, as published (the released code at 3425b81) ---
    Variant("BASE-DOT", "learned position table, dot-product attention",
            {"absolute": "learned"}, in_table_2=True),
    Variant("PE-SINCOS", "fixed sin/cos positions (even = sin)",
            {"absolute": "sincos"}, in_table_2=True),
    Variant("PE-ROPE", "RoPE on q, k, plus the learned table (as released)",
            {"absolute": "learned", "attention_positions": "rope"}, in_table_2=True),
    Variant("PE-MORLET", "MoPE at the input (published admissibility projection)",
            {"absolute": "morlet"}, in_table_2=True),
    Variant("EGA-1", "learned table + EGA-1 gate (window statistics: not causal)",
            {"absolute": "learned", "gate": "ega"}, in_table_2=True),
    Variant("EGA-MORLET", "MoPE + EGA-1 gate (window statistics: not causal)",
            {"absolute": "morlet", "gate": "ega"}, in_table_2=True),
    # --- controls ---
    Variant("NOPE", "no positional encoding at all", {"absolute": "none"}),
    Variant("PE-SINCOS-SCALED", "sin/cos scaled to the token embeddings' initial RMS (0.02), not 35× above it",
            {"absolute": "sincos_scaled"}),
    Variant("ROPE-ONLY", "RoPE without the learned table", {"absolute": "none", "attention_positions": "rope"}),
    Variant("ALIBI", "ALiBi slopes, no position vector", {"absolute": "none", "attention_positions": "alibi"}),
    Variant("EGA-1-CAUSAL", "EGA-1 with prefix statistics (causal)", {"absolute": "learned", "gate": "ega_causal"}),
    Variant("EGA-MORLET-CAUSAL", "MoPE + causal EGA-1", {"absolute": "morlet", "gate": "ega_causal"}),
    Variant("PE-MORLET-NODECAY", "MoPE with log ω, log σ exempt from weight decay",
            {"absolute": "morlet", "decay_positional": False}),
    Variant("PE-MORLET-FREE", "MoPE without the bound ωσ ≥ 5",
            {"absolute": "morlet", "admissibility": "none"}),
    Variant("PE-MORLET-CENTRED", "MoPE with a learned Gaussian centre b0 per pair (Section 7)",
            {"absolute": "morlet", "morlet_centre": True}),
    Variant("MORLET-ROPE", "RoPE with a learned Gaussian amplitude per frequency (paper's f_M-RoPE)",
            {"absolute": "none", "attention_positions": "morlet_rope"}),
    Variant("MORLET-ROPE-REL", "RoPE with a learned Gaussian on the offset |i-j| per frequency",
            {"absolute": "none", "attention_positions": "morlet_rope_relative"}),
]

VARIANTS: dict[str, Variant] = {v.name: v for v in _VARIANTS}
TABLE_2 = [v.name for v in _VARIANTS if v.in_table_2]


def get_variant(name: str) -> Variant:
    try:
        return VARIANTS[name]
    except KeyError:
        raise ConfigError(f"unknown variant {name!r}; valid variants: {', '.join(VARIANTS)}") from None


def variant_config(name: str, shape: GPTConfig | None = None, **overrides) -> GPTConfig:
    """The configuration of a named variant on a given shape (default: the paper's)."""
    base = shape if shape is not None else GPTConfig()
    return base.replace(**{**get_variant(name).settings, **overrides})


def build_model(name: str, shape: GPTConfig | None = None, seed: int | None = None,
                knowingly_non_causal: bool = False, **overrides) -> GPT:
    """Build a named variant; ``seed`` fixes its initial weights. A variant that reads the future (EGA-1, EGA-MORLET:
    the published gate) warns (:class:`~mope.model.energy_gate.FutureLeakWarning`) unless ``knowingly_non_causal``
    says the caller reproduces the paper knowingly (the flag is outside the configuration and its hash)."""
    config = variant_config(name, shape, **overrides)
    if seed is not None:
        torch.manual_seed(seed)
    model = GPT(config, knowingly_non_causal=True)
    if not model.causal and not knowingly_non_causal:
        causal = next((v.name for v in _VARIANTS if v.settings == {**get_variant(name).settings, "gate": "ega_causal"}),
                      "a variant with gate='ega_causal'")
        warnings.warn(leak_message(name, causal), FutureLeakWarning, stacklevel=2)
    return model
