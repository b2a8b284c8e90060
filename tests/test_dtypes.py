"""Dtypes that follow the model (issue 74): a model cast with ``.to(torch.bfloat16)`` or ``.half()`` that adds MoPE or
sin/cos positions to its embeddings, as the documentation shows, computes in the dtype it was cast to (the table used
to stay float32 and promote the residual stream, and the next LayerNorm failed with torch's words); the fixed tables
(rotary frequencies, ALiBi's slopes) stay float32, so that a cast does not round the angles."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import mope
from mope.model.positional.sincos import EMBEDDING_MATCHED_AMPLITUDE
from test_gate_decoding import page_namespace

D = 32
POSITIONS = {"MoPE": lambda: mope.MorletPositions(D), "sin/cos": lambda: mope.SinusoidalPositions(D),
             "sin/cos scaled": lambda: mope.SinusoidalPositions(D, EMBEDDING_MATCHED_AMPLITUDE),
             "learned": lambda: mope.LearnedPositions(16, D)}


@pytest.mark.parametrize("gated", [False, True], ids=["plain", "causal gate"])
@pytest.mark.parametrize("name", POSITIONS)
def test_the_pages_decoder_trains_a_step_after_a_cast_to_bfloat16(name, gated):
    torch.manual_seed(0)
    model = page_namespace()["Decoder"](POSITIONS[name](), vocab=65, d=D, heads=2, layers=2, gated=gated)
    model = model.to(torch.bfloat16)
    optimiser = torch.optim.AdamW(model.parameters(), lr=1e-2)
    before = [p.detach().clone() for p in model.parameters()]
    idx = torch.randint(65, (4, 16))
    logits = model(idx)
    assert logits.dtype == torch.bfloat16
    loss = F.cross_entropy(logits.flatten(0, 1).float(), idx.flatten())
    loss.backward()
    optimiser.step()
    assert torch.isfinite(loss) and all(torch.isfinite(p).all() for p in model.parameters())
    assert sum(not torch.equal(a, b) for a, b in zip(before, model.parameters())) >= len(before) - 2


@pytest.mark.parametrize("name", POSITIONS)
def test_a_half_precision_decoder_runs_its_forward(name):
    torch.manual_seed(0)
    model = page_namespace()["Decoder"](POSITIONS[name](), vocab=65, d=D, heads=2, layers=1, gated=True).half()
    assert model(torch.randint(65, (2, 8))).dtype == torch.float16


@pytest.mark.parametrize("variant", ["PE-MORLET", "PE-SINCOS", "PE-ROPE", "ALIBI", "MORLET-ROPE", "EGA-MORLET-CAUSAL"])
def test_the_books_gpt_trains_a_step_after_a_cast_to_bfloat16(variant):
    model = mope.build_model(variant, mope.GPTConfig(n_layer=1, n_head=2, n_embd=16, block_size=8), seed=0)
    model = model.to(torch.bfloat16)
    idx = torch.randint(65, (2, 8))
    logits, loss = model(idx, targets=idx)
    loss.backward()
    assert logits.dtype == torch.bfloat16 and torch.isfinite(loss)


def test_a_cast_keeps_the_fixed_tables_in_float32_and_sets_the_output_dtype():
    rope, alibi, sincos = mope.Rotary(16, seq_dim=-2), mope.ALiBi(4), mope.SinusoidalPositions(D)
    exact = rope.theta.clone()
    for module in (rope, alibi, sincos):
        module.to(torch.bfloat16)
    assert rope.theta.dtype == torch.float32 and torch.equal(rope.theta, exact)
    assert alibi.slopes.dtype == torch.float32 and alibi.logit_bias(5).dtype == torch.bfloat16
    assert sincos(3).dtype == torch.bfloat16 and sincos.double()(3).dtype == torch.float64
    q = torch.randn(1, 1, 1001, 16)
    rotated, _ = rope.rotate(q.to(torch.bfloat16), q.to(torch.bfloat16))
    reference, _ = mope.Rotary(16, seq_dim=-2).rotate(q, q)
    assert (rotated[..., -1, :].float() - reference[..., -1, :]).abs().max() < 0.05  # bf16's rounding, not the angle's
    assert mope.MorletPositions(D).to(torch.bfloat16)(4).dtype == torch.bfloat16
    assert mope.CausalEnergyGate(D, 2).to(torch.bfloat16).log_gate(torch.randn(1, 4, D, dtype=torch.bfloat16)).dtype \
        == torch.bfloat16
