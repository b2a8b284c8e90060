"""A fused attention path for both gates (issue 74): each gate offers its log g as ``flex_attention``'s score
modifier, and a model told to use it (a runtime choice outside its configuration) computes what its dense path computes,
within float32 rounding, without the (B, H, T, T) bias; where torch computes no flex backward (a CPU with gradients
asked) or dropout acts, the model keeps the dense path.

torch's unfused reference of flex attention (``"eager"``) is what runs here: the compiled kernel computes the same
maths and takes seconds to a minute to compile each shape (``benchmarks/flex_attention.py`` compares and times it)."""
from __future__ import annotations

from pathlib import Path

import pytest
import torch

import mope
from loading import load
from mope.model import flex

SHAPE = mope.GPTConfig(block_size=32, n_layer=2, n_head=2, n_embd=16, dropout=0.1)
GATED = ["EGA-1", "EGA-MORLET", "EGA-1-CAUSAL", "EGA-MORLET-CAUSAL"]


def gated_model(name: str) -> mope.GPT:
    model = mope.build_model(name, SHAPE, seed=0, knowingly_non_causal=True).eval()
    with torch.no_grad():
        for block in model.blocks:
            block.attn.gate.energy.weight.normal_(0, 1.0)  # a gate far from uniform
            block.attn.gate.tau.fill_(0.3)
    return model


@pytest.mark.parametrize("name", GATED)
def test_the_flex_path_computes_the_dense_paths_logits_without_the_bias_tensor(name, monkeypatch):
    model = gated_model(name)
    idx = torch.randint(65, (3, 32), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        dense = model(idx)[0]
        calls = []
        original = flex.attend
        monkeypatch.setattr(flex, "attend", lambda *args: calls.append(args[-1]) or original(*args))
        log_gates = []
        for block in model.blocks:
            monkeypatch.setattr(block.attn.gate, "log_gate", lambda normed, gate=block.attn.gate:
                                log_gates.append(1) or type(gate).log_gate(gate, normed))
        fused = model.use_flex_attention("eager")(idx)[0]
    assert calls == ["eager", "eager"]  # every layer through flex
    assert len(log_gates) == (0 if "CAUSAL" in name else 2)  # the causal gate's T x T log g never built
    assert torch.allclose(fused, dense, atol=1e-5), (fused - dense).abs().max()


def test_where_torch_has_no_flex_backward_or_dropout_acts_the_model_keeps_the_dense_path(monkeypatch):
    model = gated_model("EGA-MORLET-CAUSAL").use_flex_attention("eager")
    monkeypatch.setattr(flex, "attend", lambda *args: pytest.fail("flex attention was used"))
    idx = torch.randint(65, (2, 32))
    _, loss = model(idx, targets=idx)  # a CPU, gradients asked
    loss.backward()
    with torch.no_grad():
        model.train()(idx)  # dropout
    assert all(torch.isfinite(p.grad).all() for p in model.parameters())


def test_the_choice_is_outside_the_configuration_and_names_its_modes():
    model = mope.build_model("EGA-1-CAUSAL", SHAPE, seed=0)
    config = model.config
    assert model.use_flex_attention("compiled") is model and model.config == config
    assert all(block.attn.flex == "compiled" for block in model.blocks)
    assert all(block.attn.flex is None for block in model.use_flex_attention(None).blocks)
    with pytest.raises(ValueError, match="unknown flex attention mode 'fast'; valid modes: compiled, eager, or None"):
        model.use_flex_attention("fast")


def test_the_benchmark_times_both_paths_and_prints_their_difference(capsys):
    """The script runs (a tiny shape, torch's reference of flex, one round); its seconds are printed, never asserted."""
    module = load("flex_benchmark", Path("benchmarks/flex_attention.py"))
    threads = torch.get_num_threads()
    try:
        results = module.main(["--variants", "EGA-1-CAUSAL", "EGA-1", "--batch", "2", "--context", "16", "--layers", "1",
                               "--width", "16", "--heads", "2", "--rounds", "1", "--mode", "eager"])
    finally:
        torch.set_num_threads(threads)
    assert set(results) == {"EGA-1-CAUSAL", "EGA-1"}
    assert all(row["max_difference"] < 1e-5 and row["ratio"] > 0 for row in results.values())
    assert "flex speed-up" in capsys.readouterr().out


@pytest.mark.parametrize("build", [lambda: mope.CausalEnergyGate(16, 2),
                                   lambda: mope.FutureReadingEnergyGate(16, 2, warn=False)], ids=["causal", "published"])
def test_a_gates_score_modifier_in_ones_own_flex_call_is_its_log_gate_added_to_the_logits(build):
    """What the own-model page tells a researcher: flex_attention(q, k, v, score_mod=gate.score_modifier(normed),
    block_mask=<causal>) is SDPA with log_gate(normed) and the causal mask added."""
    torch.manual_seed(0)
    gate = build()
    with torch.no_grad():
        gate.energy.weight.normal_(0, 1.0)
    normed, q, k, v = torch.randn(2, 24, 16), torch.randn(2, 2, 24, 8), torch.randn(2, 2, 24, 8), torch.randn(2, 2, 24, 8)
    with torch.no_grad():
        fused = flex.attend(q, k, v, gate.score_modifier(normed), "eager")
        mask = torch.full((24, 24), float("-inf")).triu(1) + gate.log_gate(normed)
        dense = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert torch.allclose(fused, dense, atol=1e-5)
