"""Causality is sacred: changing a future token never changes an earlier output.

Every registry variant is checked. The published EGA variants are *knowingly non-causal*
(their gate standardises over the whole window): for them the test proves the leak exists.
"""
import pytest
import torch

from mope import VARIANTS, GPTConfig, build_model

SHAPE = GPTConfig(block_size=32, n_layer=2, n_head=2, n_embd=16, dropout=0.0)
LENGTH, CUT = 32, 15  # positions 0..CUT must not see tokens CUT+1..


def outputs_before_and_after_perturbing_the_future(name: str, seed: int):
    model = build_model(name, SHAPE, seed=seed, knowingly_non_causal=True).eval()
    g = torch.Generator().manual_seed(seed)
    idx = torch.randint(0, 65, (2, LENGTH), generator=g)
    perturbed = idx.clone()
    perturbed[:, CUT + 1:] = (idx[:, CUT + 1:] + torch.randint(1, 65, (2, LENGTH - CUT - 1), generator=g)) % 65
    with torch.no_grad():
        return model(idx)[0][:, : CUT + 1], model(perturbed)[0][:, : CUT + 1]


CAUSAL = [name for name, v in VARIANTS.items() if v.causal]
KNOWINGLY_NON_CAUSAL = [name for name, v in VARIANTS.items() if not v.causal]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", CAUSAL)
def test_future_tokens_never_change_earlier_outputs(name, seed):
    before, after = outputs_before_and_after_perturbing_the_future(name, seed)
    assert torch.allclose(before, after, atol=1e-6, rtol=0), (before - after).abs().max()


@pytest.mark.parametrize("name", KNOWINGLY_NON_CAUSAL)
def test_published_energy_gate_leaks_the_future(name):
    before, after = outputs_before_and_after_perturbing_the_future(name, seed=0)
    assert (before - after).abs().max() > 1e-4


def test_the_non_causal_list_is_exactly_the_published_ega_models():
    assert sorted(KNOWINGLY_NON_CAUSAL) == ["EGA-1", "EGA-MORLET"]
