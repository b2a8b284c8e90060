"""Specification: the registry builds every variant; the paper's parameter counts hold."""
import pytest
import torch

from mope import TABLE_2, VARIANTS, GPTConfig, build_model, get_variant

TINY = GPTConfig(block_size=16, n_layer=2, n_head=2, n_embd=16, dropout=0.0)


def test_table_2_holds_the_six_models_of_the_paper():
    assert TABLE_2 == ["BASE-DOT", "PE-SINCOS", "PE-ROPE", "PE-MORLET", "EGA-1", "EGA-MORLET"]


@pytest.mark.parametrize(
    "name, count",
    [("BASE-DOT", 4_816_640), ("PE-MORLET", 4_751_360), ("EGA-MORLET", 4_763_792),
     ("EGA-1", 4_816_640 + 259 * 8 * 6), ("PE-ROPE", 4_816_640)],
)
def test_parameter_counts_at_the_paper_shape(name, count):
    assert build_model(name, knowingly_non_causal=True).num_parameters() == count


def test_energy_gate_adds_259_parameters_per_head():
    gate = build_model("EGA-1", knowingly_non_causal=True).blocks[0].attn.gate
    assert sum(p.numel() for p in gate.parameters()) == 259 * 8


def test_morlet_has_256_parameters_not_512():
    model = build_model("PE-MORLET", knowingly_non_causal=True)
    assert sum(p.numel() for p in model.pos.parameters()) == 256


@pytest.mark.parametrize("name", list(VARIANTS))
@pytest.mark.parametrize("shape", [None, TINY], ids=["paper", "tiny"])
def test_every_variant_builds_and_trains_one_step(name, shape):
    model = build_model(name, shape, seed=0, knowingly_non_causal=True)
    length = 8
    idx = torch.randint(0, model.config.vocab_size, (2, length))
    logits, loss = model(idx, idx)
    assert logits.shape == (2, length, model.config.vocab_size)
    loss.backward()
    assert torch.isfinite(loss)
    grads = [p.grad for p in model.parameters() if p.requires_grad]
    assert all(g is not None and torch.isfinite(g).all() for g in grads)


def test_unknown_variant_names_the_valid_ones():
    with pytest.raises(ValueError, match="unknown variant 'PE-WAVELET'.*BASE-DOT.*EGA-MORLET"):
        get_variant("PE-WAVELET")


def test_published_ega_variants_are_marked_non_causal():
    marked = {name for name, v in VARIANTS.items() if not v.causal}
    assert marked == {"EGA-1", "EGA-MORLET"}
    assert not build_model("EGA-1", TINY, knowingly_non_causal=True).causal
    assert build_model("EGA-1-CAUSAL", TINY, knowingly_non_causal=True).causal


def test_same_seed_same_initial_weights():
    a, b = build_model("PE-MORLET", TINY, seed=3, knowingly_non_causal=True), build_model("PE-MORLET", TINY, seed=3, knowingly_non_causal=True)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))


def test_published_weight_decay_reaches_every_parameter_and_nodecay_exempts_morlet():
    published = build_model("PE-MORLET", TINY, knowingly_non_causal=True)
    (group,) = published.optimizer_groups(0.1)
    assert len(group["params"]) == len(list(published.parameters()))
    nodecay = build_model("PE-MORLET-NODECAY", TINY, knowingly_non_causal=True)
    decayed, exempt = nodecay.optimizer_groups(0.1)
    assert exempt["weight_decay"] == 0.0
    assert {id(p) for p in exempt["params"]} == {id(nodecay.pos.log_omega), id(nodecay.pos.log_sigma)}
