"""Character-level TinyShakespeare, located, verified and batched.

The file, vocabulary and split are those of the author's released code (the book's page "The released
code", :ref:`released-data`); the batches are not (see below).

Where the text comes from, first match wins:

1. an explicit path (the file itself, or a directory holding ``tinyshakespeare/input.txt`` or
   ``input.txt``);
2. the directory in ``$MOPE_DATA_DIR`` (same two layouts);
3. the user cache, ``~/.cache/mope/tinyshakespeare/input.txt`` (``$XDG_CACHE_HOME`` is honoured);
4. a download of char-rnn's copy into that cache.

Every copy is checked against the sha256 of the 1,115,394-character original.

Batches are functions of ``(seed, step, split)`` alone, never of a model or of how many processes
share the work: every variant trained with one seed sees the same training batches and is evaluated
on the same validation batches, and a run split over ``W`` ranks sees the same global batch as a
single process.
"""
from __future__ import annotations

import functools
import hashlib
import os
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import torch

from mope.errors import UserError

URL = "https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt"
SHA256 = "86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed"
NUM_CHARS = 1_115_394
TRAIN_FRACTION = 0.9  # contiguous split: train = first 1,003,854 chars, val = last 111,540
SPLITS = ("train", "val")
ENV_DATA_DIR = "MOPE_DATA_DIR"
LAYOUTS = (Path("tinyshakespeare") / "input.txt", Path("input.txt"))


class DataError(UserError, RuntimeError):
    """The dataset cannot be found, fetched, or is not the expected file."""


def cache_path() -> Path:
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "mope" / "tinyshakespeare" / "input.txt"


def _in_directory(directory: Path) -> Path | None:
    return next((directory / layout for layout in LAYOUTS if (directory / layout).is_file()), None)


def download(url: str, destination: Path) -> None:
    """Fetch ``url`` into ``destination`` atomically (a partial download never takes its place)."""
    with urllib.request.urlopen(url, timeout=60) as response:
        payload = response.read()
    digest = hashlib.sha256(payload).hexdigest()
    if digest != SHA256:
        raise DataError(f"download from {url} has sha256 {digest}, expected {SHA256}")
    _write_atomically(destination, payload)


def _write_atomically(destination: Path, payload: bytes) -> None:
    """Write the file beside its place, then rename it there; readable like any other file (0644 under
    the usual umask, not ``mkstemp``'s 0600)."""
    from mope.store.files import atomic_write

    atomic_write(destination, lambda file: file.write(payload))


def source(path: str | os.PathLike | None = None) -> str:
    """Where :func:`locate` takes the text from, in words, without reading or fetching anything."""
    if path is not None:
        return str(Path(path).resolve())
    if os.environ.get(ENV_DATA_DIR):
        return f"${ENV_DATA_DIR}={Path(os.environ[ENV_DATA_DIR]).resolve()}"
    if cache_path().is_file():
        return str(cache_path())
    return f"{cache_path()} (downloaded there first from {URL})"


def locate(path: str | os.PathLike | None = None) -> Path:
    """The TinyShakespeare file to read, downloading it into the cache if nothing else is found."""
    where = f"{cache_path()} (or a directory named by ${ENV_DATA_DIR}, holding tinyshakespeare/input.txt)"
    if path is not None:
        path = Path(path)
        found = path if path.is_file() else _in_directory(path) if path.is_dir() else None
        if found is None:
            raise DataError(f"no TinyShakespeare at {path}: expected the file input.txt or a directory "
                            f"holding {' or '.join(map(str, LAYOUTS))}")
        return found
    if os.environ.get(ENV_DATA_DIR):
        directory = Path(os.environ[ENV_DATA_DIR])
        found = _in_directory(directory)
        if found is None:
            raise DataError(f"${ENV_DATA_DIR}={directory} holds neither {' nor '.join(map(str, LAYOUTS))}; "
                            f"put TinyShakespeare's input.txt there or unset ${ENV_DATA_DIR}")
        return found
    if cache_path().is_file():
        return cache_path()
    try:
        download(URL, cache_path())
    except (OSError, DataError) as error:
        raise DataError(f"TinyShakespeare not found and the download from {URL} failed ({error}); "
                        f"put char-rnn's input.txt at {where}") from None
    return cache_path()


def read_verified(path: Path) -> str:
    try:
        payload = path.read_bytes()
    except OSError as error:
        raise DataError(f"cannot read TinyShakespeare at {path} ({error.strerror or error}); "
                        f"check its permissions, or point ${ENV_DATA_DIR} at a readable copy") from None
    digest = hashlib.sha256(payload).hexdigest()
    if digest != SHA256:
        raise DataError(
            f"{path} is not TinyShakespeare: sha256 {digest}, expected {SHA256} "
            f"({NUM_CHARS:,} characters); replace it with char-rnn's input.txt from {URL}, "
            f"at {cache_path()} or in ${ENV_DATA_DIR}/tinyshakespeare/"
        )
    return payload.decode("utf-8")


def derived_seed(*key) -> int:
    """A stable 63-bit seed from ``key`` (Python's ``hash`` is salted per process)."""
    digest = hashlib.sha256(repr(key).encode()).digest()
    return int.from_bytes(digest[:8], "little") & (2**63 - 1)


def _generator(*key) -> torch.Generator:
    return torch.Generator().manual_seed(derived_seed(*key))


@dataclass(frozen=True)
class SplitIds:
    """The token ids of the two splits and the one sampler every data set serves: batches and evaluation
    batches as functions of ``(seed, step, split)``, and windows covering a whole split.
    :class:`CharDataset` (characters) and :class:`mope.train.subword.SubwordDataset` (byte-pair tokens)
    are this with their own vocabulary."""

    train: torch.Tensor  # int64 token ids
    val: torch.Tensor

    def split(self, name: str) -> torch.Tensor:
        if name not in SPLITS:
            raise ValueError(f"unknown split {name!r}; valid splits: {', '.join(SPLITS)}")
        return getattr(self, name)

    def _rows(self, split: str, generator: torch.Generator, batch_size: int, context: int,
              rank: int, world_size: int) -> tuple[torch.Tensor, torch.Tensor]:
        if batch_size % world_size:
            raise ValueError(f"batch size {batch_size} cannot be split evenly over {world_size} ranks; "
                             f"choose a multiple of {world_size}")
        if not 0 <= rank < world_size:
            raise ValueError(f"rank {rank} outside 0..{world_size - 1}")
        data = self.split(split)
        offsets = torch.randint(len(data) - context, (batch_size,), generator=generator)
        share = batch_size // world_size
        mine = offsets[rank * share:(rank + 1) * share]
        x = torch.stack([data[i:i + context] for i in mine.tolist()])
        y = torch.stack([data[i + 1:i + 1 + context] for i in mine.tolist()])
        return x, y

    def batch(self, split: str, step: int, seed: int, batch_size: int, context: int,
              rank: int = 0, world_size: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
        """Training batch of ``step``: this rank's rows of the global batch drawn from (seed, step, split)."""
        generator = _generator("batch", seed, step, split)
        return self._rows(split, generator, batch_size, context, rank, world_size)

    def eval_batch(self, split: str, eval_round: int, index: int, seed: int, batch_size: int,
                   context: int, rank: int = 0, world_size: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
        """The ``index``-th evaluation batch of evaluation round ``eval_round``, the same for every model."""
        generator = _generator("eval", seed, eval_round, index, split)
        return self._rows(split, generator, batch_size, context, rank, world_size)

    def full_split_windows(self, split: str, context: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """Non-overlapping windows covering the whole split: every character but the first is a target once.

        Returns ``[(x, y)]`` with x, y of shape (n, context), then, when the split does not divide
        evenly, the remainder as one shorter (1, r) window.
        """
        data = self.split(split)
        targets = len(data) - 1
        full = targets // context
        windows = [(data[:full * context].view(full, context), data[1:full * context + 1].view(full, context))]
        if targets % context:
            start = full * context
            windows.append((data[start:-1].unsqueeze(0), data[start + 1:].unsqueeze(0)))
        return windows


@dataclass(frozen=True)
class CharDataset(SplitIds):
    vocab: str = ""  # the sorted characters of the text; a character's id is its index here

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def encode(self, text: str) -> torch.Tensor:
        index = {c: i for i, c in enumerate(self.vocab)}
        return torch.tensor([index[c] for c in text], dtype=torch.long)

    def decode(self, ids) -> str:
        return "".join(self.vocab[int(i)] for i in ids)


def split_text(text: str) -> tuple[str, str]:
    """The contiguous 90/10 split of the text, at character ``int(TRAIN_FRACTION * len(text))``: (train, val)."""
    cut = int(TRAIN_FRACTION * len(text))
    return text[:cut], text[cut:]


@functools.lru_cache(maxsize=4)
def _load(path: Path) -> CharDataset:
    text = read_verified(path)
    vocab = "".join(sorted(set(text)))
    index = {c: i for i, c in enumerate(vocab)}
    train, val = (torch.tensor([index[c] for c in part], dtype=torch.long) for part in split_text(text))
    return CharDataset(vocab=vocab, train=train, val=val)


def load_dataset(path: str | os.PathLike | None = None) -> CharDataset:
    """TinyShakespeare, verified, encoded and split 90/10 (see the module docstring for the lookup)."""
    return _load(locate(path).resolve())
