"""Causality is sacred: changing a future token never changes an earlier output.

Every registry variant is checked, as it predicts (evaluation, no dropout) and as it trains (dropout on, the
attention's other paths: the gate after dropout, its rows renormalised), where a leak would be in the training loss
itself. The published EGA variants are *knowingly non-causal* (their gate standardises over the whole window): for
them the test proves the leak exists.
"""
from dataclasses import replace

import pytest
import torch

from mope import VARIANTS, GPTConfig, build_model

SHAPE = GPTConfig(block_size=32, n_layer=2, n_head=2, n_embd=16, dropout=0.0)
LENGTH, CUT = 32, 15  # positions 0..CUT must not see tokens CUT+1..
TRAINING_DROPOUT = 0.2


def outputs_before_and_after_perturbing_the_future(name: str, seed: int, training: bool = False):
    """The outputs at positions 0..CUT for a batch and for the same batch with every later token changed; in
    training, with dropout, each pass draws the same dropout masks (the generator seeded alike before each)."""
    shape = replace(SHAPE, dropout=TRAINING_DROPOUT) if training else SHAPE
    model = build_model(name, shape, seed=seed, knowingly_non_causal=True).train(training)
    g = torch.Generator().manual_seed(seed)
    idx = torch.randint(0, 65, (2, LENGTH), generator=g)
    perturbed = idx.clone()
    perturbed[:, CUT + 1:] = (idx[:, CUT + 1:] + torch.randint(1, 65, (2, LENGTH - CUT - 1), generator=g)) % 65
    outputs = []
    with torch.no_grad():
        for batch in (idx, perturbed):
            torch.manual_seed(seed)
            outputs.append(model(batch)[0][:, : CUT + 1])
    return outputs


CAUSAL = [name for name, v in VARIANTS.items() if v.causal]
KNOWINGLY_NON_CAUSAL = [name for name, v in VARIANTS.items() if not v.causal]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", CAUSAL)
def test_future_tokens_never_change_earlier_outputs(name, seed):
    before, after = outputs_before_and_after_perturbing_the_future(name, seed)
    assert torch.allclose(before, after, atol=1e-6, rtol=0), (before - after).abs().max()


@pytest.mark.parametrize("name", CAUSAL)
def test_future_tokens_never_change_earlier_outputs_in_training_with_dropout(name):
    before, after = outputs_before_and_after_perturbing_the_future(name, seed=0, training=True)
    assert torch.allclose(before, after, atol=1e-6, rtol=0), (before - after).abs().max()


def test_the_training_check_draws_dropout_masks_that_change_the_outputs():
    """The check in training is not the evaluation's again: its dropout changes what a model outputs."""
    name = CAUSAL[0]
    trained, _ = outputs_before_and_after_perturbing_the_future(name, seed=0, training=True)
    evaluated, _ = outputs_before_and_after_perturbing_the_future(name, seed=0)
    assert (trained - evaluated).abs().max() > 1e-3


@pytest.mark.parametrize("training", [False, True], ids=["evaluation", "training"])
@pytest.mark.parametrize("name", KNOWINGLY_NON_CAUSAL)
def test_published_energy_gate_leaks_the_future(name, training):
    before, after = outputs_before_and_after_perturbing_the_future(name, seed=0, training=training)
    assert (before - after).abs().max() > 1e-4


def test_the_non_causal_list_is_exactly_the_published_ega_models():
    assert sorted(KNOWINGLY_NON_CAUSAL) == ["EGA-1", "EGA-MORLET"]


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_registry_says_of_each_variant_what_its_built_model_says(name):
    assert build_model(name, SHAPE, knowingly_non_causal=True).causal == VARIANTS[name].causal
