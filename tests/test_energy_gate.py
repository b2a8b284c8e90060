"""Specification of the EGA-1 gate (as released: book page "The released code", section on the gate) and its causal version."""
import pytest
import torch

from mope import GPTConfig, build_model

SHAPE = GPTConfig(block_size=24, n_layer=1, n_head=2, n_embd=16, dropout=0.0)


def first_attention(name: str, dropout: float = 0.0, seed: int = 0):
    model = build_model(name, SHAPE.replace(dropout=dropout), seed=seed, knowingly_non_causal=True)
    return model.blocks[0].attn


def normalised_input(length: int = 24, seed: int = 1):
    return torch.nn.functional.layer_norm(torch.randn(3, length, 16, generator=torch.Generator().manual_seed(seed)), (16,))


@pytest.mark.parametrize("name", ["EGA-1", "EGA-1-CAUSAL"])
def test_gated_rows_sum_to_one_even_after_dropout(name):
    attn = first_attention(name, dropout=0.3).train()
    normed = normalised_input()
    q, k, _ = attn.qkv(normed)
    ones = torch.ones_like(q)
    torch.manual_seed(0)
    y = attn.explicit(q, k, ones, None, attn.gate.log_gate(normed), gate_after_dropout=True)
    rows = y[..., 0]
    # a row whose every kept weight was dropped sums to 0; all others renormalise to exactly 1
    assert torch.all(((rows - 1).abs() < 1e-5) | (rows == 0))
    assert (rows != 0).float().mean() > 0.9


@pytest.mark.parametrize("gated, plain", [("EGA-1", "BASE-DOT"), ("EGA-1-CAUSAL", "BASE-DOT"),
                                          ("EGA-MORLET", "PE-MORLET")])
def test_zero_energy_projection_reduces_to_plain_attention(gated, plain):
    gated_model, plain_model = build_model(gated, SHAPE, seed=0, knowingly_non_causal=True), build_model(plain, SHAPE, seed=0, knowingly_non_causal=True)
    for block in gated_model.blocks:
        torch.nn.init.zeros_(block.attn.gate.energy.weight)
        torch.nn.init.zeros_(block.attn.gate.energy.bias)
    missing, unexpected = plain_model.load_state_dict(gated_model.state_dict(), strict=False)
    assert not missing and all(".gate." in key for key in unexpected)
    idx = torch.randint(0, 65, (2, 24))
    assert torch.allclose(gated_model(idx)[0], plain_model(idx)[0], atol=1e-5)


@pytest.mark.parametrize("name", ["EGA-1", "EGA-1-CAUSAL"])
def test_without_dropout_the_gate_is_an_additive_log_bias(name):
    """A g / sum(A g) == softmax(S + log g) (eval mode), computed here from scratch."""
    attn = first_attention(name, dropout=0.1).eval()
    with torch.no_grad():
        attn.gate.energy.weight.normal_(0, 1.0)  # a gate far from uniform
        attn.gate.alpha.fill_(3.0)
    normed = normalised_input()
    q, k, v = attn.qkv(normed)
    length = normed.size(1)
    mask = torch.full((length, length), float("-inf")).triu(1)
    weights = torch.softmax(q @ k.transpose(-1, -2) / q.size(-1) ** 0.5 + mask, dim=-1)
    gate = attn.gate.log_gate(normed).exp()
    gated = weights * gate / (weights * gate).sum(-1, keepdim=True)
    expected = attn.out((gated @ v).transpose(1, 2).flatten(2))
    assert torch.allclose(attn(normed), expected, atol=1e-5)


def test_published_gate_uses_population_std_over_the_whole_window():
    attn = first_attention("EGA-1")
    normed = normalised_input()
    e = attn.gate.energy(normed).transpose(1, 2)
    z = (e - e.mean(-1, keepdim=True)) / e.std(-1, correction=0, keepdim=True)
    assert torch.allclose(attn.gate.standardised(normed)[:, :, 0], z, atol=1e-5)


def test_causal_gate_uses_prefix_statistics_of_each_query_row():
    attn = first_attention("EGA-1-CAUSAL")
    normed = normalised_input()
    e = attn.gate.energy(normed).transpose(1, 2)
    z = attn.gate.standardised(normed)
    row = 9
    prefix = e[..., : row + 1]
    expected = (prefix - prefix.mean(-1, keepdim=True)) / prefix.std(-1, correction=0, keepdim=True)
    assert torch.allclose(z[..., row, : row + 1], expected, atol=1e-3)
    assert torch.all(z[..., 0, 0] == 0)  # one key: z = 0 by definition


def test_causal_gate_gradients_stay_finite_when_prefix_variance_vanishes():
    """Identical tokens make every prefix variance exactly 0, where sqrt(max(var, 0)) has an infinite slope."""
    model = build_model("EGA-1-CAUSAL", SHAPE, seed=0, knowingly_non_causal=True)
    idx = torch.full((2, 24), 7)
    _, loss = model(idx, idx)
    loss.backward()
    assert all(torch.isfinite(p.grad).all() for p in model.parameters())


def released_ega_attention(q, k, v, gate):
    """The released EGA head (gpt_phase4_memfix.py), dropout off: A g / max(sum A g, 1e-8)."""
    length = q.size(-2)
    scores = (q @ k.transpose(-1, -2) / q.size(-1) ** 0.5).masked_fill(
        torch.ones(length, length).tril() == 0, float("-inf"))
    att = torch.softmax(scores, dim=-1) * gate
    return (att / att.sum(-1, keepdim=True).clamp(min=1e-8)) @ v


def test_published_gate_keeps_the_released_floor_when_a_row_has_almost_no_gated_mass():
    """Row 0 attends to key 0 only; a gate of ~1e-12 there leaves a gated mass below 1e-8, and the
    released formula then damps the row (A g / 1e-8 sums to ~1e-4) instead of renormalising it to one."""
    attn = first_attention("EGA-1").eval()
    normed = normalised_input()
    q, k, v = attn.qkv(normed)
    gate = torch.full((3, 2, 1, 24), 0.5)
    gate[..., 0] = 1e-12
    ours = attn.key_gated(q, k, v, None, gate, dropout_p=0.0)
    expected = released_ega_attention(q, k, v, gate)
    assert torch.allclose(ours, expected, atol=1e-6, rtol=1e-5)
    assert torch.allclose(ours[..., 0, :], 1e-4 * v[..., 0, :], rtol=1e-4)  # damped, as released
    assert ours[..., 1:, :].abs().max() > 1e-2  # later rows see ungated-enough keys


def test_published_gate_path_equals_the_released_head_on_a_trained_looking_gate():
    attn = first_attention("EGA-1").eval()
    with torch.no_grad():
        attn.gate.energy.weight.normal_(0, 1.0)
        attn.gate.alpha.fill_(12.0)  # steep: many gates far below 1e-8
    normed = normalised_input()
    q, k, v = attn.qkv(normed)
    gate = attn.gate.log_gate(normed).exp()
    assert (gate < 1e-8).any()
    expected = attn.out(released_ega_attention(q, k, v, gate).transpose(1, 2).flatten(2))
    assert torch.allclose(attn(normed), expected, atol=1e-6)
