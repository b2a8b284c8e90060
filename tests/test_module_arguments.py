"""Shapes checked by name (issue 74): every drop-in module checks its input's rank and width and its length and
count arguments, and a mistake is one line that names the module, what it got and what it expects (never a shape
that passes silently, nor torch's words without the module's name)."""
from __future__ import annotations

import pytest
import torch

import mope


def one_line(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


def test_rotary_refuses_a_4d_tensor_whose_layout_it_was_not_told():
    """(batch, time, heads, head_size) and (batch, heads, time, head_size) have the same rank: the layout is said."""
    q = torch.randn(2, 10, 4, 16)  # (batch, time, heads, head_size)
    with pytest.raises(ValueError) as error:
        mope.Rotary(16).rotate(q, q)
    assert one_line(error).startswith("Rotary: a 4-D q of shape (2, 10, 4, 16) may be (batch, heads, time, head_size)")
    assert "seq_dim=2 or seq_dim=1" in str(error.value)
    with pytest.raises(ValueError, match="MorletRotary: a 4-D q"):
        mope.MorletRotary(16).rotate(q, q)


@pytest.mark.parametrize("build", [mope.Rotary, mope.MorletRotary], ids=["Rotary", "MorletRotary"])
def test_rotary_rotates_time_where_seq_dim_says_in_either_layout(build):
    torch.manual_seed(0)
    q, k = torch.randn(2, 4, 10, 16), torch.randn(2, 4, 10, 16)  # (batch, heads, time, head_size)
    heads_first = build(16, seq_dim=2).rotate(q, k)
    time_first = build(16, seq_dim=1).rotate(q.transpose(1, 2), k.transpose(1, 2))
    for a, b in zip(heads_first, time_first):
        assert torch.allclose(a, b.transpose(1, 2), atol=1e-6)
    per_call = build(16).rotate(q.transpose(1, 2), k.transpose(1, 2), seq_dim=1)
    assert all(torch.equal(a, b) for a, b in zip(per_call, time_first))
    flat = build(16).rotate(q[0, 0], k[0, 0])  # (time, head_size): unambiguous
    assert torch.allclose(flat[0], heads_first[0][0, 0], atol=1e-6)


def test_rotary_takes_its_base():
    assert torch.allclose(mope.Rotary(8, base=500.0).theta, 500.0 ** (-torch.arange(0, 8, 2) / 8))
    assert torch.equal(mope.Rotary(8).theta, mope.Rotary(8, base=10000).theta)
    for base in (1.0, -3.0, "10000"):
        with pytest.raises(ValueError, match="Rotary: base must be a number > 1"):
            mope.Rotary(8, base=base)


@pytest.mark.parametrize("call, expected", [
    (lambda: mope.Rotary(16, seq_dim=2).rotate(torch.randn(2, 4, 10, 8), torch.randn(2, 4, 10, 8)),
     r"Rotary: q must be \(\.\.\., time, \.\.\., head_size=16\), got \(2, 4, 10, 8\)"),
    (lambda: mope.Rotary(16, seq_dim=3).rotate(torch.randn(2, 4, 10, 16), torch.randn(2, 4, 10, 16)),
     "Rotary: seq_dim=3 is not a time dimension"),
    (lambda: mope.Rotary(16, seq_dim=2).rotate(torch.randn(2, 4, 10, 16), torch.randn(4, 10, 16)),
     "Rotary: q and k must have one layout"),
    (lambda: mope.Rotary(15), "Rotary: rotary embeddings rotate channel pairs, head_size must be even, got 15"),
    (lambda: mope.CausalEnergyGate(64, 0), "CausalEnergyGate: n_head must be an int >= 1, got 0"),
    (lambda: mope.FutureReadingEnergyGate(64, 2.0, warn=False), "FutureReadingEnergyGate: n_head must be an int >= 1, "
                                                                 "got float 2.0"),
    (lambda: mope.CausalEnergyGate(64, 4).log_gate(torch.randn(2, 3, 10, 64)),
     r"CausalEnergyGate: normed must be \(batch, time, n_embd=64\), got shape \(2, 3, 10, 64\)"),
    (lambda: mope.CausalEnergyGate(64, 4).step(torch.randn(2, 10, 32)),
     r"CausalEnergyGate: normed must be \(batch, time, n_embd=64\), got shape \(2, 10, 32\)"),
    (lambda: mope.FutureReadingEnergyGate(64, 4, warn=False).log_gate(torch.randn(10, 64)),
     r"FutureReadingEnergyGate: normed must be \(batch, time, n_embd=64\), got shape \(10, 64\)"),
    (lambda: mope.MorletPositions(64)(torch.zeros(2, 10, dtype=torch.long)),
     r"MorletPositions: length must be an int >= 0, got a tensor of shape \(2, 10\) \(the length of a sequence is "
     r"x.size\(1\)\)"),
    (lambda: mope.MorletPositions(64)(10.0), "MorletPositions: length must be an int >= 0, got float 10.0"),
    (lambda: mope.MorletPositions(64)(10, -1), "MorletPositions: offset must be an int >= 0, got -1"),
    (lambda: mope.MorletPositions(63), "MorletPositions: MoPE pairs channels"),
    (lambda: mope.SinusoidalPositions(64)(True), "SinusoidalPositions: length must be an int >= 0, got bool True"),
    (lambda: mope.SinusoidalPositions(64)(4, -2), "SinusoidalPositions: offset must be an int >= 0, got -2"),
    (lambda: mope.LearnedPositions(16, 64)(4.5), "LearnedPositions: length must be an int >= 0, got float 4.5"),
    (lambda: mope.LearnedPositions(0, 64), "LearnedPositions: block_size must be an int >= 1, got 0"),
    (lambda: mope.ALiBi(0), "ALiBi: n_head must be an int >= 1, got 0"),
    (lambda: mope.SinusoidalPositions(64, amplitude="x"),
     r"SinusoidalPositions: amplitude must be a finite number \(1.0 as published\), got str 'x'"),
    (lambda: mope.MorletPositions(64, amplitude=float("nan")), "MorletPositions: amplitude must be a finite number"),
    (lambda: mope.ALiBi(4).logit_bias(-1), "ALiBi: length must be an int >= 0, got -1"),
])
def test_a_mistake_is_one_line_naming_the_module_what_it_got_and_what_it_expects(call, expected):
    with pytest.raises((TypeError, ValueError), match=expected) as error:
        call()
    one_line(error)


def test_the_learned_tables_error_names_the_drop_in_classes_and_the_gpts_the_configurations_schemes():
    with pytest.raises(ValueError) as error:
        mope.LearnedPositions(8, 16)(6, 4)
    assert one_line(error) == ("LearnedPositions: a context of 10 tokens is longer than the learned position table "
                               "(8 rows); use at most 8 tokens, or positions without a table (MorletPositions, "
                               "SinusoidalPositions, Rotary, MorletRotary, ALiBi)")
    assert "GPTConfig" not in str(error.value) and "sincos" not in str(error.value)
    model = mope.build_model("BASE-DOT", mope.GPTConfig(block_size=8, n_layer=1, n_head=2, n_embd=16))
    with pytest.raises(ValueError, match=r"use at most block_size=8 tokens or a scheme without a table \(absolute: "):
        model(torch.zeros(1, 10, dtype=torch.long))
    with pytest.raises(ValueError) as error:
        model(torch.zeros(1, 10, dtype=torch.long))
    assert str(error.value).endswith("(absolute: sincos, sincos_scaled, morlet, none; attention_positions: rope, "
                                     "morlet_rope, morlet_rope_relative, alibi)")  # every scheme without a table
