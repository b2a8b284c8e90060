"""Subword tokens: the committed byte-pair vocabulary is what the code learns from the training split, the
token data are the character split mapped to tokens and are served like the characters, and the preset
that uses them ties every run to the vocabulary's file."""
import collections
import json
import statistics

import pytest
import torch

from mope.errors import ConfigError
from mope.store import presets, results
from mope.store.presets import (TOKENIZERS, TRAINING_CHARACTERS, VALIDATION_CHARACTERS, VALIDATION_WORDS, TrainConfig,
                                 characters_per_word, get_preset)
from mope.train import subword
from mope.train.data import DataError, load_dataset, locate, read_verified, split_text
from mope.model.variants import variant_config

SPEC = TOKENIZERS["bpe-1024"]
BPE = get_preset("cpu-bpe")


@pytest.fixture(scope="module")
def tokens():
    return subword.load_subword_dataset(get_preset("cpu-bpe"))


def test_the_committed_vocabulary_is_learned_from_the_training_split_byte_for_byte():
    committed = subword.tokenizer_path(SPEC.name).read_bytes()
    assert subword.sha256(committed) == SPEC.sha256 == get_preset("cpu-bpe").tokenizer_sha256
    assert subword.build(SPEC) == committed
    # the rule matters: the whole text (validation included) would give another vocabulary
    whole = read_verified(locate())
    assert subword.serialise(subword.train_tokenizer(whole, SPEC.vocab_size)) != committed


def test_tokens_are_the_character_split_encoded_side_by_side(tokens):
    train_text, val_text = split_text(read_verified(locate()))
    characters = load_dataset()
    assert (len(train_text), len(val_text)) == (len(characters.train), len(characters.val)) == (1_003_854, 111_540)
    assert tokens.decode(tokens.train) == train_text and tokens.decode(tokens.val) == val_text
    assert (len(tokens.train), len(tokens.val)) == (392_635, 47_775)
    assert tokens.vocab_size == 1024 and tokens.train.dtype == tokens.val.dtype == torch.int64
    assert round(tokens.characters_per_token("val"), 2) == 2.33 and round(tokens.characters_per_token("train"), 2) == 2.56
    assert get_preset("cpu").characters_per_token() == 1.0


def test_what_a_verdict_needs_from_the_data_is_stored_as_the_data_and_the_vocabulary_give_it():
    """The counts the evidence reads instead of the data set (mope.store.presets): the validation split's
    characters and words, and the tokens each registered vocabulary encodes it to, counted again here;
    the ratios a verdict uses are then the very numbers the data give."""
    try:
        train_text, val_text = split_text(read_verified(locate()))
    except DataError as error:
        pytest.skip(f"TinyShakespeare is not here to count again ({error})")
    assert (VALIDATION_CHARACTERS, VALIDATION_WORDS) == (len(val_text), len(val_text.split()))
    assert TRAINING_CHARACTERS == len(train_text)
    assert characters_per_word() == len(val_text) / len(val_text.split())
    for spec in TOKENIZERS.values():
        assert spec.validation_tokens == subword.validation_tokens(subword.tokenizer_path(spec.name).read_bytes())
    assert BPE.characters_per_token() == subword.load_subword_dataset(BPE).characters_per_token("val")


def test_the_vocabulary_size_is_what_the_registry_says_of_it(tokens):
    """The numbers the comment on TOKENIZERS gives for choosing 1,024 entries."""
    counts = collections.Counter(tokens.train.tolist())
    assert statistics.median(counts.values()) == 161
    shape = get_preset("cpu-bpe").shape()
    assert (shape.vocab_size, shape.vocab_size * shape.n_embd) == (1024, 131_072)
    characters = get_preset("cpu").shape()
    extra = round((shape.vocab_size - characters.vocab_size) * shape.n_embd, -3) // 1000
    assert f"holds {shape.vocab_size * shape.n_embd // 1000}k weights, {extra}k more than the characters'" in \
        " ".join(presets.__doc__.split())
    assert len(json.loads(subword.tokenizer_path(SPEC.name).read_text())["model"]["merges"]) == 1024 - 65


def test_the_step_budget_makes_as_many_passes_over_the_tokens_as_cpu_over_the_characters(tokens):
    """The arithmetic of the cpu-bpe preset's docstring."""
    bpe, cpu = get_preset("cpu-bpe"), get_preset("cpu")
    passes = lambda cfg, ids: cfg.steps * cfg.batch_size * cfg.block_size / len(ids)
    assert round(len(tokens.train) / (bpe.batch_size * bpe.block_size)) == 192
    assert (round(passes(bpe, tokens.train), 1), round(passes(cpu, load_dataset().train), 1)) == (6.3, 6.1)
    assert round(passes(cpu, tokens.train), 1) == 15.7
    assert (bpe.steps, bpe.eval_interval) == (1201, 100)


def test_token_batches_are_served_as_the_characters_are(tokens):
    x, y = tokens.batch("train", step=7, seed=0, batch_size=8, context=16)
    assert x.shape == (8, 16) and torch.equal(x[:, 1:], y[:, :-1]) and int(x.max()) < 1024
    assert torch.equal(x, tokens.batch("train", step=7, seed=0, batch_size=8, context=16)[0])
    assert not torch.equal(x, tokens.batch("train", step=7, seed=1, batch_size=8, context=16)[0])
    evaluation = tokens.eval_batch("val", 2, 3, seed=0, batch_size=8, context=16)[0]
    assert torch.equal(evaluation, tokens.eval_batch("val", 2, 3, seed=0, batch_size=8, context=16)[0])
    windows = tokens.full_split_windows("val", 64)
    assert torch.equal(torch.cat([y.flatten() for _, y in windows]), tokens.val[1:])


def test_a_vocabulary_file_with_another_hash_is_refused(tmp_path, monkeypatch):
    altered = subword.tokenizer_path(SPEC.name).read_bytes().replace(b'"vocab"', b'"vocab" ', 1)
    (tmp_path / f"{SPEC.name}.json").write_bytes(altered)
    monkeypatch.setattr(subword, "VOCABULARY_DIR", tmp_path)
    subword.load_tokenizer.cache_clear()
    try:
        with pytest.raises(DataError, match=f"has sha256 {subword.sha256(altered)}, the configuration expects {SPEC.sha256}"):
            subword.load_tokenizer(SPEC.name, SPEC.sha256)
    finally:
        subword.load_tokenizer.cache_clear()


def test_the_tokenizer_is_part_of_the_configuration_and_its_hash():
    cpu, bpe = get_preset("cpu"), get_preset("cpu-bpe")
    assert (bpe.n_layer, bpe.n_head, bpe.n_embd, bpe.block_size, bpe.batch_size) == (4, 4, 128, 64, 32)
    model = variant_config("PE-MORLET", bpe.shape())
    other_file = bpe.replace(tokenizer_sha256="0" * 64)
    assert results.config_hash(model, bpe) != results.config_hash(model, other_file)
    assert results.expected_hash(bpe, "PE-MORLET") != results.expected_hash(cpu.replace(name="cpu-bpe"), "PE-MORLET")
    assert "tokenizer" not in cpu.hashed_fields()  # character presets keep the hashes of their stored runs
    with pytest.raises(ConfigError, match="unknown tokenizer 'bpe-7'; valid choices: bpe-1024"):
        TrainConfig("x", tokenizer="bpe-7", tokenizer_sha256=SPEC.sha256)
    with pytest.raises(ConfigError, match="needs the sha256 of its file"):
        TrainConfig("x", tokenizer="bpe-1024")


def test_a_subword_run_stores_the_tokenizer_it_read(store):
    from mope.train.loop import train

    tiny = get_preset("smoke").replace(name="tiny-bpe", steps=4, warmup=1, eval_interval=3, eval_batches=1,
                                       checkpoint_interval=4, extrapolation=(), tokenizer="bpe-1024",
                                       tokenizer_sha256=SPEC.sha256)
    result = train("BASE-DOT", tiny, seed=0, progress=False)
    assert result["config"]["train"]["tokenizer_sha256"] == SPEC.sha256
    assert result["config"]["model"]["vocab_size"] == 1024
    assert results.load_results(tiny) == [json.loads(results.result_path(tiny, "BASE-DOT", 0).read_text())]


def test_subword_runs_are_evidence_and_count_only_from_committed_code(store):
    from synthetic_runs import run

    clean, dirty = run("PE-MORLET", 0, 3.6, preset=BPE), run("PE-MORLET", 1, 3.6, preset=BPE, dirty=True)
    for result in (clean, dirty):
        results.write_result(result)
    assert [r["seed"] for r in results.load_results("cpu-bpe")] == [0]
    assert [s.reason for s in results.skipped("cpu-bpe")] == [
        "made from uncommitted code (git_dirty); rerun it from a clean checkout"]
