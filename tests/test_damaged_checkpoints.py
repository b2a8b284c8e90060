"""A damaged checkpoint never breaks a run nor loses it (issue 75): whatever field of it is damaged, the run ends
in one notice and a stored result. A field its result would hold that breaks the result's schema sets the checkpoint
aside and the run trains from step 0; a damaged record of where its steps computed is dropped, the run resumes, and
those steps read as not recorded. A result refused at the end leaves no checkpoint that would be refused again."""
from __future__ import annotations

import copy
import math

import pytest
import torch

from mope.store.presets import get_preset
from mope.store.results import InvalidResult, load_result
from mope.train import loop
from mope.train.loop import train

#: The smoke model, four steps, a checkpoint after the second; no longer contexts, a short whole-split pass.
PROBE = get_preset("smoke").replace(name="probe", steps=4, warmup=1, eval_interval=2, checkpoint_interval=2,
                                    extrapolation=(), full_eval_tokens=256)
RESUMED_AT = 2


class Stop(Exception):
    pass


def stop_after_first_checkpoint(step):
    if step + 1 == RESUMED_AT:
        raise Stop


@pytest.fixture(scope="module")
def saved_checkpoint(tmp_path_factory) -> dict:
    """The checkpoint of seed 0 of NOPE under ``PROBE`` after step 2, as torch loads it."""
    folder = tmp_path_factory.mktemp("probe")
    with pytest.raises(Stop):
        train("NOPE", PROBE, 0, results_root=folder / "results", checkpoint_dir=folder / "checkpoints",
              on_step=stop_after_first_checkpoint, progress=False)
    (path,) = (folder / "checkpoints").rglob("*.pt")
    return torch.load(path, weights_only=True)


def with_first_history(field, value):
    def damage(checkpoint):
        checkpoint["history"][0][field] = value
    return damage


def setting(key, value):
    def damage(checkpoint):
        checkpoint[key] = value
    return damage


def first_segment(field, value):
    def damage(checkpoint):
        checkpoint["segments"][0][field] = value
    return damage


def nan_moment(checkpoint):
    moment = next(iter(checkpoint["optimizer"]["state"].values()))
    moment["exp_avg"].view(-1)[0] = float("nan")


def nan_loss(checkpoint):
    checkpoint["losses"][0] = math.nan


#: Damage that the run's result would hold: the checkpoint is set aside, the run trains from step 0.
SET_ASIDE = {
    "started not a time stamp": setting("started", "garbage"),
    "started without an offset": setting("started", "2026-01-01T00:00:00"),
    "started a number": setting("started", 5),
    "started of two lines": setting("started", "2026-01-01T00:00:00+00:00\r"),
    "started missing": lambda checkpoint: checkpoint.pop("started"),
    "a loss NaN": nan_loss,
    "a loss negative": lambda checkpoint: checkpoint["losses"].__setitem__(1, -1.0),
    "history a string": setting("history", "ab"),
    "history empty": setting("history", []),
    "an evaluation without its loss": lambda checkpoint: checkpoint["history"][0].pop("val_loss"),
    "an evaluation's loss infinite": with_first_history("val_loss", math.inf),
    "an evaluation after the checkpoint's step": with_first_history("step", RESUMED_AT),
    "train_time a string": setting("train_time", "1.5"),
    "wall_time infinite": setting("wall_time", math.inf),
    "wall_time negative": setting("wall_time", -1.0),
    "the optimiser's moments NaN": nan_moment,
    "the RNG states missing": setting("rng", {"ranks": []}),
    "the scaler's state not a mapping": setting("scaler", None),
}
#: Damage to the record of where its steps computed only: dropped, the run resumes, those steps not recorded.
DROPPED = {
    "segments a string": setting("segments", "abc"),
    "segments empty": setting("segments", []),
    "a stretch without to_step": lambda checkpoint: checkpoint["segments"][0].pop("to_step"),
    "a stretch of -1 threads": first_segment("threads", -1),
    "a stretch not from step 0": first_segment("from_step", 1),
    "a stretch's device of two lines": first_segment("device", "cpu\rx"),
}


def resumed(saved_checkpoint, tmp_path, capsys, damage) -> tuple[list[int], dict, str, list]:
    """Seed 0 of NOPE run over a copy of the saved checkpoint damaged by ``damage``: the steps it took, its stored
    result, what it said on stderr, and the files it set aside."""
    checkpoints = tmp_path / "checkpoints"
    path = loop.checkpoint_path(PROBE, "NOPE", 0, checkpoints)
    path.parent.mkdir(parents=True)
    checkpoint = copy.deepcopy(saved_checkpoint)
    damage(checkpoint)
    torch.save(checkpoint, path)
    capsys.readouterr()
    steps = []
    train("NOPE", PROBE, 0, results_root=tmp_path / "results", checkpoint_dir=checkpoints, on_step=steps.append,
          progress=False)
    return steps, load_result(PROBE, "NOPE", 0, tmp_path / "results"), capsys.readouterr().err, \
        list(path.parent.glob(path.name + ".set-aside-*"))


@pytest.mark.parametrize("damage", list(SET_ASIDE))
def test_a_checkpoint_field_that_breaks_the_results_schema_sets_it_aside_and_the_run_starts_over(
        saved_checkpoint, tmp_path, capsys, damage):
    steps, stored, notice, aside = resumed(saved_checkpoint, tmp_path, capsys, SET_ASIDE[damage])
    assert len(notice.splitlines()) == 1 and notice.startswith("notice: checkpoint ") and "is damaged" in notice
    assert "starting this run from step 0" in notice and len(aside) == 1
    assert steps[0] == 0 and stored is not None and "segments" not in stored["provenance"]


@pytest.mark.parametrize("damage", list(DROPPED))
def test_a_damaged_record_of_where_its_steps_computed_is_dropped_and_the_run_resumes(
        saved_checkpoint, tmp_path, capsys, damage):
    steps, stored, notice, aside = resumed(saved_checkpoint, tmp_path, capsys, DROPPED[damage])
    assert len(notice.splitlines()) == 1 and "records where its steps computed" in notice
    assert f"resuming it at step {RESUMED_AT}" in notice and not aside
    assert steps[0] == RESUMED_AT and stored is not None
    first, last = stored["provenance"]["segments"]
    assert first == {"from_step": 0, "to_step": RESUMED_AT}  # not recorded
    assert last["from_step"] == RESUMED_AT and last["to_step"] == PROBE.steps and last["device"]


def test_an_undamaged_checkpoint_resumes_without_a_word(saved_checkpoint, tmp_path, capsys):
    steps, stored, notice, aside = resumed(saved_checkpoint, tmp_path, capsys, lambda checkpoint: None)
    assert notice == "" and not aside and steps[0] == RESUMED_AT and "segments" not in stored["provenance"]


def test_a_result_refused_at_the_end_leaves_no_checkpoint_to_be_refused_again(
        saved_checkpoint, tmp_path, capsys, monkeypatch):
    final_losses = loop.final_losses

    def not_finite(*args):
        by_context, note, causal = final_losses(*args)
        return {**by_context, "1x": math.nan}, note, causal

    monkeypatch.setattr(loop, "final_losses", not_finite)
    with pytest.raises(InvalidResult, match="is not valid .*nothing was stored; its last checkpoint is set aside as "
                                            r".*\.set-aside-.*, so the same command trains the run from step 0"):
        resumed(saved_checkpoint, tmp_path, capsys, lambda checkpoint: None)
    path = loop.checkpoint_path(PROBE, "NOPE", 0, tmp_path / "checkpoints")
    assert not path.exists() and len(list(path.parent.glob(path.name + ".set-aside-*"))) == 1
    monkeypatch.setattr(loop, "final_losses", final_losses)
    steps = []
    capsys.readouterr()
    train("NOPE", PROBE, 0, results_root=tmp_path / "results", checkpoint_dir=tmp_path / "checkpoints",
          on_step=steps.append, progress=False)
    assert steps[0] == 0 and capsys.readouterr().err == "" and load_result(PROBE, "NOPE", 0, tmp_path / "results")
