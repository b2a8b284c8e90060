r"""The GPT of the paper (§6.1; as released, see the book page "The released code"), pre-LayerNorm, weights tied.

$$x_0 = \mathrm{Dropout}(E[\text{idx}] + \mathrm{PE}),\\
x \leftarrow x + \mathrm{Dropout}(W_o\,\mathrm{Attn}(\mathrm{LN}_1 x)),\\
x \leftarrow x + \mathrm{Dropout}(W_2\,\mathrm{GELU}(W_1\,\mathrm{LN}_2 x))$$

logits $= \mathrm{LN}_f(x)\,E^\top$. Which PE is added at the input, and which hooks attention
gets (rotary, ALiBi, energy gate), is read from :class:`~mope.model.config.GPTConfig`.
"""
from __future__ import annotations

import warnings

import torch
import torch.nn.functional as F
from torch import nn

from mope.model import flex
from mope.model.attention import CausalSelfAttention
from mope.model.config import ABSOLUTE_SCHEMES, ATTENTION_SCHEMES, GPTConfig
from mope.model.energy_gate import CausalEnergyGate, FutureLeakWarning, FutureReadingEnergyGate
from mope.model.positional import (
    ALiBi,
    LearnedPositions,
    MorletPositions,
    MorletRotary,
    RelativeMorletRotary,
    Rotary,
    SinusoidalPositions,
)
from mope.model.positional.fixed_buffers import FixedBuffers
from mope.model.positional.sincos import EMBEDDING_MATCHED_AMPLITUDE


def absolute_positions(config: GPTConfig) -> nn.Module | None:
    if config.absolute == "learned":
        return LearnedPositions(config.block_size, config.n_embd)
    if config.absolute == "sincos":
        return SinusoidalPositions(config.n_embd)
    if config.absolute == "sincos_scaled":
        return SinusoidalPositions(config.n_embd, EMBEDDING_MATCHED_AMPLITUDE)
    if config.absolute == "morlet":
        return MorletPositions(config.n_embd, config.admissibility, config.morlet_centre, config.decay_positional)
    return None


def attention_positions(config: GPTConfig) -> nn.Module | None:
    hooks = {
        "rope": lambda: Rotary(config.head_size, seq_dim=2),  # q, k are (batch, heads, time, head_size) here
        "morlet_rope": lambda: MorletRotary(config.head_size, seq_dim=2),
        "morlet_rope_relative": lambda: RelativeMorletRotary(config.head_size, seq_dim=2),
        "alibi": lambda: ALiBi(config.n_head),
    }
    return hooks[config.attention_positions]() if config.attention_positions in hooks else None


#: The gate class of each configured gate (``GPTConfig.gate``); whether it reads the future is the class's ``causal``.
GATE_CLASSES = {"ega": FutureReadingEnergyGate, "ega_causal": CausalEnergyGate}


def energy_gate(config: GPTConfig) -> nn.Module | None:
    gate = GATE_CLASSES.get(config.gate)
    if gate is None:
        return None
    # the published gate built knowingly, without its warning: EGA-1 and EGA-MORLET reproduce the paper
    # (tests/test_causality.py marks them)
    return gate(config.n_embd, config.n_head) if gate.causal else gate(config.n_embd, config.n_head, warn=False)


class MLP(nn.Module):
    def __init__(self, config: GPTConfig):
        super().__init__()
        self.up = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.down = nn.Linear(4 * config.n_embd, config.n_embd)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.down(F.gelu(self.up(x))))


class Block(nn.Module):
    def __init__(self, config: GPTConfig):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd)
        self.attn = CausalSelfAttention(config, attention_positions(config), energy_gate(config))
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.mlp = MLP(config)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


def _fixed_tables_follow_the_weights(model: "GPT", incompatible_keys) -> None:
    """Load-state-dict post hook of :class:`GPT` (a function, so that the model pickles): the fixed tables of its
    positions (:class:`~mope.model.positional.fixed_buffers.FixedBuffers`, outside the state dict) lie where its weights lie.
    After ``load_state_dict(..., assign=True)`` of a meta-device build the weights are the state dict's, on its device,
    and the tables, computed on the default device, are computed again there."""
    device = model.tok_emb.weight.device
    for module in model.modules():
        if isinstance(module, FixedBuffers) and any(getattr(module, name).device != device
                                                    for name in module.fixed_buffers()):
            module.place_fixed_buffers(device)


def leak_message(name: str, causal_name: str) -> str:
    """What building a future-reading model says: what leaks, what to build instead, how to say it is meant."""
    return (f"{name} standardises its energy gate over the whole window, so each position reads the tokens after it "
            f"(the next-token target among them) and its teacher-forced loss contains the leak; build {causal_name} "
            "for a language model, or pass knowingly_non_causal=True to reproduce the paper")


class GPT(nn.Module):
    """The paper's GPT, with the positions and gate its :class:`~mope.model.config.GPTConfig` names.

    :param config: the shape and the schemes.
    :param knowingly_non_causal: a configuration whose gate reads the future (``gate="ega"``, the published EGA-1)
        warns (:class:`~mope.model.energy_gate.FutureLeakWarning`) unless this is True: the caller reproduces the
        paper knowingly. Not part of the configuration (nor of its hash): it changes no number.
    """

    def __init__(self, config: GPTConfig, knowingly_non_causal: bool = False):
        super().__init__()
        self.config = config
        self.tok_emb = nn.Embedding(config.vocab_size, config.n_embd)
        self.pos = absolute_positions(config)
        self.drop = nn.Dropout(config.dropout)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layer))
        self.ln_f = nn.LayerNorm(config.n_embd)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.lm_head.weight = self.tok_emb.weight  # tied
        self.apply(self._init_weights)
        self.register_load_state_dict_post_hook(_fixed_tables_follow_the_weights)
        if not self.causal and not knowingly_non_causal:
            warnings.warn(leak_message(f"GPTConfig(gate={config.gate!r})", "a GPTConfig with gate='ega_causal'"),
                          FutureLeakWarning, stacklevel=2)

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        # as released: every Linear and Embedding weight ~ N(0, 0.02), biases 0; gates and MoPE keep theirs
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    @property
    def max_context(self) -> int | None:
        """Longest context the model accepts: the learned table's length, or None (unbounded)."""
        return getattr(self.pos, "max_context", None)

    @property
    def causal(self) -> bool:
        """False when an output can see later tokens (EGA with window statistics)."""
        return all(b.attn.gate is None or b.attn.gate.causal for b in self.blocks)

    def use_flex_attention(self, mode: str | None = "compiled") -> "GPT":
        """Gated attention through ``flex_attention`` with the gate's score modifier, without the (B, H, T, T) bias
        (:mod:`mope.model.flex`): ``"compiled"`` (the fused kernel), ``"eager"`` (torch's reference of it) or None
        (the dense path, the default). Used where torch computes it (a GPU; a CPU without gradients; no dropout), the
        dense path elsewhere; a runtime choice, outside the configuration and its hash. Returns the model."""
        mode = flex.check_mode(mode)
        for block in self.blocks:
            block.attn.flex = mode
        return self

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None):
        length = idx.size(1)
        if self.max_context is not None and length > self.max_context:
            raise ValueError(
                f"context of {length} tokens is longer than the learned position table ({self.max_context} rows): "
                f"use at most block_size={self.max_context} tokens or a scheme without a table (absolute: "
                f"{', '.join(s for s in ABSOLUTE_SCHEMES if s != 'learned')}; attention_positions: "
                f"{', '.join(s for s in ATTENTION_SCHEMES if s != 'none')})"
            )
        x = self.tok_emb(idx)
        if self.pos is not None:
            x = x + self.pos(length).to(x.dtype)
        x = self.drop(x)
        for block in self.blocks:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.flatten(0, 1).float(), targets.flatten())
        return logits, loss

    def optimizer_groups(self, weight_decay: float) -> list[dict]:
        """AdamW groups: decay on every parameter (as released) except those a module exempts."""
        exempt = {id(p) for m in self.modules() if hasattr(m, "no_decay_parameters") for p in m.no_decay_parameters()}
        params = list(self.parameters())
        groups = [{"params": [p for p in params if id(p) not in exempt], "weight_decay": weight_decay}]
        if exempt:
            groups.append({"params": [p for p in params if id(p) in exempt], "weight_decay": 0.0})
        return groups
