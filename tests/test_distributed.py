"""Data parallel: two gloo ranks on one global batch give the loss curve of a single process.

Dropout is set to 0 here: each rank draws its own dropout masks, which cannot match the masks of a
single process that sees all rows, so only the dropout-free run can agree to float tolerance.
"""
import json
import os
import socket

import pytest
import torch
import torch.multiprocessing as mp

from mope.store.results import result_path
from mope.train.loop import train


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _rank(rank, world_size, port, preset, results, checkpoints):
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(world_size),
                      MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.set_num_threads(1)
    train("EGA-1", preset, 0, results_root=results, checkpoint_dir=checkpoints, device="cpu", progress=False)


def test_two_ranks_equal_one_process(tiny, tmp_path):
    preset = tiny.replace(dropout=0.0, steps=9, warmup=2, eval_interval=4, checkpoint_interval=4, eval_batches=3)
    single = train("EGA-1", preset, 0, results_root=tmp_path / "single", checkpoint_dir=tmp_path / "c1",
                   device="cpu", progress=False)
    mp.spawn(_rank, args=(2, _free_port(), preset, tmp_path / "ddp", tmp_path / "c2"), nprocs=2, join=True)
    ddp = json.loads(result_path(preset, "EGA-1", 0, tmp_path / "ddp").read_text())
    assert ddp["provenance"]["world_size"] == 2
    assert [s for s, _ in ddp["train_curve"]] == [s for s, _ in single["train_curve"]]
    assert [v for _, v in ddp["train_curve"]] == pytest.approx([v for _, v in single["train_curve"]], rel=1e-5)
    assert len(ddp["history"]) == len(single["history"]) > 1
    for ours, theirs in zip(ddp["history"], single["history"]):
        assert ours == pytest.approx(theirs, rel=1e-5)
    for key in ("val_loss", "train_loss", "val_loss_full", "val_loss_full_causal_stats"):
        assert ddp["final"][key] == pytest.approx(single["final"][key], rel=1e-5), key
    assert not any((tmp_path / "c2").rglob("*.pt"))
