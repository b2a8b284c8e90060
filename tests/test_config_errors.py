"""Specification: bad input fails early with a message that names the problem and the choices."""
import dataclasses

import pytest
import torch

from mope import GPTConfig, build_model
from mope.model.config import SHAPE_FIELDS
from mope.store.presets import PRESETS, TOKENIZERS, TrainConfig


def test_head_count_must_divide_width():
    with pytest.raises(ValueError, match="n_head=3 does not divide n_embd=256"):
        GPTConfig(n_head=3)


@pytest.mark.parametrize("name", ["PE-SINCOS", "PE-MORLET"])
def test_paired_encodings_need_an_even_width(name):
    with pytest.raises(ValueError, match="n_embd must be even"):
        build_model(name, GPTConfig(n_embd=15, n_head=5))


def test_rotary_needs_an_even_head_size():
    with pytest.raises(ValueError, match="head size must be even"):
        build_model("ROPE-ONLY", GPTConfig(n_embd=15, n_head=5))


def test_context_longer_than_the_learned_table_is_refused():
    model = build_model("BASE-DOT", GPTConfig(block_size=8, n_layer=1, n_head=2, n_embd=8))
    with pytest.raises(ValueError, match="16 tokens is longer than the learned position table \\(8 rows\\)"):
        model(torch.zeros(1, 16, dtype=torch.long))


@pytest.mark.parametrize("name", ["PE-SINCOS", "PE-MORLET", "NOPE", "ROPE-ONLY", "ALIBI", "MORLET-ROPE-REL"])
def test_schemes_without_a_table_run_past_the_training_context(name):
    model = build_model(name, GPTConfig(block_size=8, n_layer=1, n_head=2, n_embd=8))
    assert model.max_context is None
    logits, _ = model(torch.zeros(1, 32, dtype=torch.long))
    assert logits.shape[1] == 32


@pytest.mark.parametrize(
    "field, value, choices",
    [("absolute", "wavelet", "learned, sincos, sincos_scaled, morlet, none"),
     ("gate", "ega2", "none, ega, ega_causal"),
     ("admissibility", "soft", "published, straight_through, none"),
     ("attention_positions", "xpos", "none, rope, morlet_rope, morlet_rope_relative, alibi")],
)
def test_unknown_scheme_names_the_valid_choices(field, value, choices):
    with pytest.raises(ValueError, match=f"{value!r}; valid choices: {choices}"):
        GPTConfig(**{field: value})


def test_dropout_outside_unit_interval_is_refused():
    with pytest.raises(ValueError, match="dropout must be a number in"):
        GPTConfig(dropout=1.0)


@pytest.mark.parametrize("field, value, message", [
    ("n_head", 2.0, "n_head must be a positive integer, got 2.0"),
    ("vocab_size", "65", "vocab_size must be a positive integer, got '65'"),
    ("n_layer", True, "n_layer must be a positive integer, got True"),
    ("dropout", "0.1", r"dropout must be a number in \[0, 1\), got '0.1'"),
    ("morlet_centre", 1, "morlet_centre must be True or False, got 1"),
])
def test_a_field_of_the_wrong_kind_is_named_before_a_model_is_built(field, value, message):
    """A float head count built a model; a string vocabulary or dropout failed inside a comparison, naming no field."""
    with pytest.raises(ValueError, match=message):
        GPTConfig(**{field: value})


def test_a_numpy_integer_is_taken_as_the_int_it_is():
    import numpy as np

    config = GPTConfig(n_layer=np.int64(2))
    assert type(config.n_layer) is int and config == GPTConfig(n_layer=2)


def test_a_misspelt_override_names_the_fields_a_configuration_has():
    with pytest.raises(ValueError, match=r"GPTConfig has no field 'n_hed'; its fields: vocab_size, block_size, .*gate"):
        build_model("BASE-DOT", GPTConfig(n_layer=1, n_head=2, n_embd=8), n_hed=4)


def test_a_presets_shape_is_gptconfigs_own_fields_with_gptconfigs_defaults():
    """TrainConfig carries the shape (config.SHAPE_FIELDS) without a copy of GPTConfig's defaults; the
    vocabulary is GPTConfig's characters unless a tokenizer gives its own size."""
    assert TrainConfig("defaults").shape() == GPTConfig()
    for preset in PRESETS.values():
        shape = preset.shape()
        assert {f: getattr(shape, f) for f in SHAPE_FIELDS} == {f: getattr(preset, f) for f in SHAPE_FIELDS}
        vocabulary = {} if preset.tokenizer is None else {"vocab_size": TOKENIZERS[preset.tokenizer].vocab_size}
        assert shape == GPTConfig(**{f: getattr(preset, f) for f in SHAPE_FIELDS}, **vocabulary)
    train_fields = {f.name: f for f in dataclasses.fields(TrainConfig)}
    for field in dataclasses.fields(GPTConfig):
        if field.name in SHAPE_FIELDS:
            assert train_fields[field.name].type == field.type and train_fields[field.name].default == field.default
        else:
            assert field.name not in train_fields, f"TrainConfig copies GPTConfig.{field.name}"
