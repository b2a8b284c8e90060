"""TinyShakespeare: where it is found, that a wrong copy is refused, the split, and the batch samplers."""
import hashlib
import os

import pytest
import torch

import mope.train.data as data_module
from mope.train.data import SHA256, DataError, load_dataset, locate


@pytest.fixture(scope="module")
def data():
    return load_dataset()


def test_vocabulary_and_split(data):
    assert data.vocab_size == 65 and data.vocab == "".join(sorted(data.vocab))
    assert (len(data.train), len(data.val)) == (1_003_854, 111_540)
    assert data.train.dtype == data.val.dtype == torch.int64
    assert data.decode(data.encode("First Citizen:")) == "First Citizen:"


def test_batch_is_a_function_of_seed_step_and_split(data):
    x, y = data.batch("train", step=7, seed=0, batch_size=8, context=16)
    again, _ = data.batch("train", step=7, seed=0, batch_size=8, context=16)
    assert torch.equal(x, again) and x.shape == (8, 16)
    assert torch.equal(x[:, 1:], y[:, :-1])  # y is x shifted by one character
    assert not torch.equal(x, data.batch("train", step=7, seed=1, batch_size=8, context=16)[0])
    assert not torch.equal(x, data.batch("train", step=8, seed=0, batch_size=8, context=16)[0])
    evaluation = data.eval_batch("val", 2, 3, seed=0, batch_size=8, context=16)[0]
    assert torch.equal(evaluation, data.eval_batch("val", 2, 3, seed=0, batch_size=8, context=16)[0])
    assert not torch.equal(evaluation, data.eval_batch("val", 2, 4, seed=0, batch_size=8, context=16)[0])


def test_rank_slices_concatenate_to_the_global_batch(data):
    whole_x, whole_y = data.batch("train", step=3, seed=5, batch_size=12, context=10)
    for world_size in (2, 3, 4):
        parts = [data.batch("train", 3, 5, 12, 10, rank=r, world_size=world_size) for r in range(world_size)]
        assert torch.equal(torch.cat([p[0] for p in parts]), whole_x)
        assert torch.equal(torch.cat([p[1] for p in parts]), whole_y)
    with pytest.raises(ValueError, match="multiple of 5"):
        data.batch("train", 3, 5, 12, 10, rank=0, world_size=5)


@pytest.mark.parametrize("context", [32, 100, 111_539])
def test_full_split_windows_predict_every_target_once(data, context):
    windows = data.full_split_windows("val", context)
    assert all(x.shape == y.shape for x, y in windows)
    assert torch.equal(torch.cat([x.flatten() for x, _ in windows]), data.val[:-1])
    assert torch.equal(torch.cat([y.flatten() for _, y in windows]), data.val[1:])


def test_unknown_split_is_named(data):
    with pytest.raises(ValueError, match="valid splits: train, val"):
        data.batch("test", 0, 0, 2, 4)


def test_explicit_path_and_both_directory_layouts(tmp_path, monkeypatch):
    real = locate()
    (tmp_path / "flat").mkdir()
    (tmp_path / "flat" / "input.txt").symlink_to(real)
    assert locate(tmp_path / "flat") == tmp_path / "flat" / "input.txt"
    assert locate(real) == real
    monkeypatch.setenv("MOPE_DATA_DIR", str(tmp_path / "flat"))
    assert locate() == tmp_path / "flat" / "input.txt"
    monkeypatch.setenv("MOPE_DATA_DIR", str(tmp_path))
    with pytest.raises(DataError, match="MOPE_DATA_DIR"):
        locate()


def test_corrupt_copy_is_refused_with_both_hashes(tmp_path):
    text = locate().read_text()
    bad = tmp_path / "input.txt"
    bad.write_text(text.replace("Citizen", "Citoyen", 1))
    wrong = hashlib.sha256(bad.read_bytes()).hexdigest()
    with pytest.raises(DataError) as error:
        load_dataset(bad)
    message = str(error.value)
    assert str(bad) in message and SHA256 in message and wrong in message and "MOPE_DATA_DIR" in message


def test_missing_file_without_network_says_where_to_put_it(tmp_path, monkeypatch):
    monkeypatch.delenv("MOPE_DATA_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))

    def offline(url, destination):
        raise OSError("network is unreachable")

    monkeypatch.setattr(data_module, "download", offline)
    with pytest.raises(DataError) as error:
        locate()
    message = str(error.value)
    assert str(tmp_path / "mope" / "tinyshakespeare" / "input.txt") in message
    assert "MOPE_DATA_DIR" in message and "network is unreachable" in message


def test_download_is_verified_and_cached(tmp_path, monkeypatch):
    genuine = locate().read_bytes()
    monkeypatch.delenv("MOPE_DATA_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    served = [b"not shakespeare"]

    class Response:
        def __init__(self, url, timeout):
            assert url == data_module.URL

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def read(self):
            return served[0]

    monkeypatch.setattr(data_module.urllib.request, "urlopen", Response)
    with pytest.raises(DataError, match="sha256"):
        locate()
    cache = tmp_path / "mope" / "tinyshakespeare"
    assert not cache.exists() or not any(cache.iterdir())  # nothing half-written is left behind
    served[0] = genuine
    mask = os.umask(0o022)
    try:
        assert locate() == cache / "input.txt" and (cache / "input.txt").read_bytes() == genuine
    finally:
        os.umask(mask)
    assert (cache / "input.txt").stat().st_mode & 0o777 == 0o644  # readable like any other file, not 0600
