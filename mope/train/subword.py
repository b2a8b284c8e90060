"""Subword tokens: a byte-pair vocabulary learned from TinyShakespeare's training split, and the data
set of its token ids.

**The vocabulary** (:func:`train_tokenizer`, the Hugging Face ``tokenizers`` library): GPT-2's byte-level
pre-tokenisation (a word with its leading space, a run of punctuation, a newline: each a unit that no
merge crosses), then byte-pair merges learned from the training split alone, the first 1,003,854
characters, until the vocabulary holds ``vocab_size`` entries (the text's 65 characters among them, no
special tokens). Training is deterministic: the same text and size give the same file, byte for byte
(``tests/test_subword.py`` rebuilds it). The file of each registered vocabulary is committed at
``mope/train/vocabularies/{name}.json``, and its sha256 is part of the preset that uses it
(:data:`mope.store.presets.TOKENIZERS`, ``TrainConfig.tokenizer_sha256``), so that it is in every run's
configuration hash and stored configuration; :func:`load_tokenizer` refuses a file with another hash.
``python scripts/build_tokenizer.py`` writes the file anew and prints its hash and the tokens the
validation split encodes to (:func:`validation_tokens`), which the registry records too, so that a
verdict can put tokens into characters without the data.

**The split** is the character split mapped to tokens: the text is cut at character 1,003,854
(:func:`mope.train.data.split_text`, as for characters), and each side is encoded on its own, so the
training tokens are exactly the encoding of the training characters, the validation tokens that of the
last 111,540, and no token spans the cut. Decoding either gives its characters back exactly.

**Batches**: :class:`SubwordDataset` is :class:`mope.train.data.SplitIds` over these ids, so batches,
evaluation batches and whole-split windows are drawn by the very code and random streams of the
character data (functions of seed, step and split), in tokens instead of characters.
"""
from __future__ import annotations

import functools
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import torch

from mope.errors import optional_import, shown
from mope.store.presets import TokenizerSpec, TrainConfig
from mope.store.files import read_regular_file
from mope.train.data import SplitIds, DataError, locate, read_verified, split_text

VOCABULARY_DIR = Path(__file__).resolve().parent / "vocabularies"
# The largest vocabulary file a reader opens: bpe-1024's is 62 KB; one of 100,000 entries would be a few MB.
MAX_VOCABULARY_BYTES = 16 * 2**20


def tokenizer_path(name: str) -> Path:
    return VOCABULARY_DIR / f"{name}.json"


def hugging_face_tokenizers():
    """The ``tokenizers`` library, which every byte-pair vocabulary needs (mope's extra "bpe")."""
    return optional_import("tokenizers", "the byte-pair vocabulary of a subword preset")


def train_tokenizer(training_text: str, vocab_size: int):
    """A byte-pair tokenizer (``tokenizers.Tokenizer``) learned from ``training_text``: byte-level
    pre-tokenisation without a prefix space, merges until ``vocab_size`` entries, no special tokens."""
    library = hugging_face_tokenizers()
    tokenizer = library.Tokenizer(library.models.BPE())
    tokenizer.pre_tokenizer = library.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tokenizer.decoder = library.decoders.ByteLevel()
    trainer = library.trainers.BpeTrainer(vocab_size=vocab_size, show_progress=False, special_tokens=[])
    tokenizer.train_from_iterator([training_text], trainer=trainer)
    if tokenizer.get_vocab_size() != vocab_size:
        raise DataError(f"the training text yields {tokenizer.get_vocab_size()} byte-pair tokens, not {vocab_size}")
    return tokenizer


def serialise(tokenizer) -> bytes:
    """The file a tokenizer is stored as (its JSON, indented, with a final newline)."""
    return (tokenizer.to_str(pretty=True) + "\n").encode()


def build(spec: TokenizerSpec, path: str | os.PathLike | None = None) -> bytes:
    """The file of ``spec`` as :func:`train_tokenizer` makes it from the training split of the data at
    ``path`` (located as :func:`mope.train.data.locate` does)."""
    training_text, _ = split_text(read_verified(locate(path).resolve()))
    return serialise(train_tokenizer(training_text, spec.vocab_size))


def validation_tokens(payload: bytes, path: str | os.PathLike | None = None) -> int:
    """The tokens the validation split of the data at ``path`` encodes to under the vocabulary file
    ``payload``: what ``TokenizerSpec.validation_tokens`` (:mod:`mope.store.presets`) records."""
    _, validation_text = split_text(read_verified(locate(path).resolve()))
    return len(hugging_face_tokenizers().Tokenizer.from_str(payload.decode()).encode(validation_text).ids)


def sha256(payload: bytes) -> str:
    return hashlib.sha256(payload).hexdigest()


@functools.lru_cache(maxsize=4)
def load_tokenizer(name: str, expected_sha256: str):
    """The committed tokenizer ``name``, after checking its file against ``expected_sha256``."""
    path = tokenizer_path(name)
    try:  # opened as any file of the store: a FIFO there would block the reader for good
        payload = read_regular_file(path, MAX_VOCABULARY_BYTES, "any vocabulary")
    except OSError as error:
        raise DataError(f"cannot read the tokenizer file {shown(path)} ({error.strerror or error}); "
                        "rebuild it with `python scripts/build_tokenizer.py`") from None
    if sha256(payload) != expected_sha256:
        raise DataError(f"{path} has sha256 {sha256(payload)}, the configuration expects {expected_sha256}; "
                        "rebuild it with `python scripts/build_tokenizer.py` or train under the matching preset")
    return hugging_face_tokenizers().Tokenizer.from_str(payload.decode())


@dataclass(frozen=True)
class SubwordDataset(SplitIds):
    """TinyShakespeare in byte-pair tokens, split as the characters are (module docstring)."""

    tokenizer: object = None  # tokenizers.Tokenizer
    characters: tuple[int, int] = (0, 0)  # characters of the (train, val) text

    @property
    def vocab_size(self) -> int:
        return self.tokenizer.get_vocab_size()

    def encode(self, text: str) -> torch.Tensor:
        return torch.tensor(self.tokenizer.encode(text).ids, dtype=torch.long)

    def decode(self, ids) -> str:
        return self.tokenizer.decode([int(i) for i in ids])

    def characters_per_token(self, split: str = "val") -> float:
        """The mean number of characters a token of ``split`` covers: its characters over its tokens."""
        return self.characters[0 if split == "train" else 1] / len(self.split(split))


@functools.lru_cache(maxsize=4)
def _load(path: Path, name: str, expected_sha256: str) -> SubwordDataset:
    tokenizer = load_tokenizer(name, expected_sha256)
    train, val = split_text(read_verified(path))
    ids = [torch.tensor(tokenizer.encode(part).ids, dtype=torch.long) for part in (train, val)]
    return SubwordDataset(train=ids[0], val=ids[1], tokenizer=tokenizer, characters=(len(train), len(val)))


def load_subword_dataset(cfg: TrainConfig, path: str | os.PathLike | None = None) -> SubwordDataset:
    """TinyShakespeare in the tokens of ``cfg``'s tokenizer (its file checked against the hash ``cfg`` records)."""
    if cfg.tokenizer is None:
        raise ValueError(f"preset {cfg.name!r} trains on characters; it has no tokenizer")
    return _load(locate(path).resolve(), cfg.tokenizer, cfg.tokenizer_sha256)

