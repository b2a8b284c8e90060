"""The runs in progress, shown and kept (issue 71): ``python -m mope progress`` writes, from each checkpoint of an
unfinished run, a small record under ``results/in_progress/`` that no verdict reads (its step of the total, its
evaluations, its seconds a step, its stretches), names and skips a damaged checkpoint, and removes the record once
the run is stored. The checkpoint is a real one: the smoke preset trained 20 of its 41 steps, then stopped."""
from __future__ import annotations

import copy
import json
import shutil

import pytest
import torch

from interruptions import Interrupted, stop_at
from mope import cli
from mope.errors import UserError
from mope.store import in_progress, results
from mope.store.presets import PRESETS, get_preset
from mope.train import progress
from mope.train.loop import CURVE_EVERY, train

SMOKE = get_preset("smoke")
STOPPED_AT = 2 * SMOKE.checkpoint_interval  # the last checkpoint before the stop


@pytest.fixture(scope="module")
def stopped_run(tmp_path_factory):
    """A checkpoint of EGA-1 seed 0 of the smoke preset stopped after step 24 (its checkpoint: step 20), made once."""
    folder = tmp_path_factory.mktemp("stopped")
    with pytest.raises(Interrupted):
        train("EGA-1", SMOKE, 0, results_root=folder / "results", checkpoint_dir=folder / "checkpoints",
              progress=False, on_step=stop_at(STOPPED_AT + 4))
    (path,) = (folder / "checkpoints").rglob("*.pt")
    return path


@pytest.fixture
def checkpoints(tmp_path, stopped_run):
    """A folder of checkpoints holding a copy of the stopped run's, as training lays it out."""
    root = tmp_path / "checkpoints"
    target = root / stopped_run.relative_to(stopped_run.parents[2])
    target.parent.mkdir(parents=True)
    shutil.copy(stopped_run, target)
    return root


def checkpoint_of(root):
    (path,) = root.rglob("*.pt")
    return path, torch.load(path, weights_only=True)


def test_the_record_says_where_the_run_stands_as_its_checkpoint_holds_it(tmp_path, checkpoints):
    path, checkpoint = checkpoint_of(checkpoints)
    done = progress.record_progress(["smoke"], checkpoints, tmp_path / "results")
    (written, record), = done.written
    assert written == tmp_path / "results" / "in_progress" / "smoke" / "EGA-1" / "seed0.json"
    assert json.loads(written.read_text()) == record
    assert (record["preset"], record["variant"], record["seed"]) == ("smoke", "EGA-1", 0)
    assert record["config_hash"] == results.expected_hash(SMOKE, "EGA-1") == checkpoint["config_hash"]
    assert (record["step"], record["steps"]) == (STOPPED_AT, SMOKE.steps)
    assert [e["step"] for e in record["evaluations"]] == [h["step"] for h in checkpoint["history"]] == [0]
    assert record["evaluations"][0]["val_loss"] == checkpoint["history"][0]["val_loss"]
    assert record["train_curve"] == [[s, checkpoint["losses"][s]] for s in range(0, STOPPED_AT, CURVE_EVERY)]
    assert record["timing"]["seconds_per_step"] == pytest.approx(checkpoint["train_time"] / STOPPED_AT)
    assert record["timing"]["wall_time_s"] == checkpoint["wall_time"]
    assert f"over its {STOPPED_AT} steps, in 1 stretch" in record["timing"]["measured_over"]
    assert record["segments"] == checkpoint["segments"] and record["started"] == checkpoint["started"]
    assert in_progress.record_problem(record) is None and in_progress.record_problem(record, use_jsonschema=False) is None
    assert done.lines(tmp_path / "results") == [
        f"wrote in_progress/smoke/EGA-1/seed0.json: step {STOPPED_AT} of {SMOKE.steps}, 1 evaluation, "
        f"{record['timing']['seconds_per_step']:.2f} s a step"]
    assert path.read_bytes() == checkpoint_of(checkpoints)[0].read_bytes()  # only read


def test_the_command_writes_the_records_of_the_checkpoints_it_finds(tmp_path, checkpoints, capsys):
    cli.main(["progress", "--preset", "smoke", "--checkpoint-dir", str(checkpoints), "--results-dir", str(tmp_path)])
    assert capsys.readouterr().out.startswith(f"wrote in_progress/smoke/EGA-1/seed0.json: step {STOPPED_AT} of 41")
    assert in_progress.scan_in_progress("smoke", tmp_path).records[0]["step"] == STOPPED_AT
    cli.main(["progress", "--preset", "smoke", "--checkpoint-dir", str(tmp_path / "none"), "--results-dir", str(tmp_path)])
    assert capsys.readouterr().out.startswith("no run in progress: no checkpoint of an evidence preset under")


def test_no_verdict_reads_a_record(tmp_path, checkpoints):
    """Records live under ``in_progress/<preset>/``, a folder that is no preset's, one level deeper than a preset's
    runs: a reader of a preset's runs that looked further than its own folder (a recursive glob) would take even a
    valid stored run placed there as one, or name it as a bad file; none does."""
    (written, _), = progress.record_progress(["smoke"], checkpoints, tmp_path).written
    assert written.relative_to(tmp_path).parts[:2] == ("in_progress", "smoke") and "in_progress" not in PRESETS
    stored = results.result_path("paper", "BASE-DOT", 0)
    assert results.read_result(stored)[0] is not None  # a valid run, as the readers would take it in its folder
    (tmp_path / "in_progress" / "paper" / "BASE-DOT").mkdir(parents=True)
    shutil.copy(stored, tmp_path / "in_progress" / "paper" / "BASE-DOT" / "seed0.json")
    assert written.is_file() and in_progress.scan_in_progress("smoke", tmp_path).records  # the record is there
    for preset in ("smoke", "paper", "in_progress"):
        found = results.scan(preset, tmp_path)
        assert found.current == found.invalid == found.stale == [], preset


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty", "another configuration", "non-finite",
                                    "a folder", "no losses"])
def test_a_damaged_checkpoint_is_named_and_skipped(tmp_path, checkpoints, capsys, damage):
    path, checkpoint = checkpoint_of(checkpoints)
    if damage == "garbage":
        path.write_bytes(b"not a checkpoint \x00\xff")
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[:5000])
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "a folder":
        path.unlink()
        path.mkdir()
    else:
        changed = copy.deepcopy(checkpoint)
        if damage == "another configuration":
            changed["config_hash"] = "0" * 16
        elif damage == "non-finite":
            next(iter(changed["model"].values())).fill_(float("nan"))
        else:
            changed["losses"] = changed["losses"][:3]
        torch.save(changed, path)
    cli.main(["progress", "--preset", "smoke", "--checkpoint-dir", str(checkpoints), "--results-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert out.startswith(f"skipped checkpoint {path}: ") and "\n" not in out.strip() and "Traceback" not in out
    reason = out.strip().split(": ", 1)[1]
    assert reason.startswith({  # each damage found by the check meant for it, not by a later step's failure
        "garbage": "damaged: unreadable (", "truncated": "damaged: unreadable (", "empty": "damaged: unreadable (",
        "a folder": "damaged: unreadable (IrregularFile: not a regular file",  # the store's own check, named
        "another configuration": f"another run's: configuration {'0' * 16}, expected {checkpoint['config_hash']}",
        "non-finite": "damaged: non-finite weights in ", "no losses": f"damaged: 3 losses for {STOPPED_AT} steps",
    }[damage]), reason
    assert not (tmp_path / "in_progress" / "smoke").exists()


def test_a_name_in_the_checkpoint_folder_is_shown_escaped(tmp_path, checkpoints, capsys):
    path, _ = checkpoint_of(checkpoints)
    odd = path.parents[1] / "EGA\n1"
    path.parent.rename(odd)
    cli.main(["progress", "--preset", "smoke", "--checkpoint-dir", str(checkpoints), "--results-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "EGA\\n1" in out and "unknown variant" in out


def test_a_record_that_reaches_further_than_its_checkpoint_is_kept(tmp_path, checkpoints):
    """A run started over after its checkpoint was lost: the evaluations its record reached outlive it."""
    done = progress.record_progress(["smoke"], checkpoints, tmp_path)
    (path, record), = done.written
    further = {**record, "step": STOPPED_AT + 10, "segments": [{**record["segments"][0], "to_step": STOPPED_AT + 10}]}
    in_progress.write_record(further, tmp_path)
    again = progress.record_progress(["smoke"], checkpoints, tmp_path)
    assert again.written == [] and again.kept == [(path, f"it reaches step {STOPPED_AT + 10}, the checkpoint only {STOPPED_AT}")]
    assert in_progress.read_record(path)[0]["step"] == STOPPED_AT + 10


def test_once_the_run_is_stored_its_record_is_ignored_then_removed(tmp_path, checkpoints):
    results_dir = tmp_path / "results"
    progress.record_progress(["smoke"], checkpoints, results_dir)
    assert [r["step"] for r in in_progress.scan_in_progress("smoke", results_dir).records] == [STOPPED_AT]
    train("EGA-1", SMOKE, 0, results_root=results_dir, checkpoint_dir=checkpoints, progress=False)  # resumes, stores
    record = in_progress.record_path("smoke", "EGA-1", 0, results_dir)
    found = in_progress.scan_in_progress("smoke", results_dir)
    assert found.records == [] and found.skipped == [(record, "its run is stored and current")]
    done = progress.record_progress(["smoke"], checkpoints, results_dir)
    assert done.removed == [record] and not record.exists() and done.written == []
    assert done.lines(results_dir) == ["removed in_progress/smoke/EGA-1/seed0.json: its run is stored and current"]


def test_a_record_of_another_configuration_is_ignored(tmp_path, checkpoints):
    (path, record), = progress.record_progress(["smoke"], checkpoints, tmp_path).written
    in_progress.write_record({**record, "config_hash": "0" * 16}, tmp_path)
    assert in_progress.scan_in_progress("smoke", tmp_path).skipped == [(path, f"configuration {'0' * 16}, not today's")]


@pytest.fixture
def record(tmp_path, checkpoints):
    return progress.record_progress(["smoke"], checkpoints, tmp_path).written[0][1]


@pytest.mark.parametrize("change, problem", [
    (lambda r: r.pop("evaluations"), "'evaluations' is a required property"),
    (lambda r: r["evaluations"][0].update(val_loss=-1.0), "evaluations[0].val_loss"),
    (lambda r: r["evaluations"][0].update(val_loss=float("nan")), "evaluations[0].val_loss"),
    (lambda r: r.update(seed=True), "seed"),
    (lambda r: r.update(kind="result"), "expected 1 of kind 'in_progress'"),
    (lambda r: r.update(step=r["steps"]), "a finished run is stored, not in progress"),
    (lambda r: r["evaluations"].append({"step": r["step"] + 1, "train_loss": 1.0, "val_loss": 1.0}),
     "evaluations: its steps are not increasing"),
    (lambda r: r["train_curve"].reverse(), "train_curve: its steps are not increasing"),
    (lambda r: r["segments"][0].update(to_step=3), "segments: the stretches"),
    (lambda r: r["segments"][0].update(device="cpu\nforged line"), "holds the control character"),
    (lambda r: r.update(written="2026-12-06T05:00:00"), "written: '2026-12-06T05:00:00' has no offset"),
    (lambda r: r["timing"].update(seconds_per_step="fast"), "timing.seconds_per_step"),
])
@pytest.mark.parametrize("use_jsonschema", [True, False])
def test_the_schema_refuses_a_record_that_cannot_be_shown(record, change, problem, use_jsonschema, tmp_path):
    changed = copy.deepcopy(record)
    change(changed)
    found = in_progress.record_problem(changed, use_jsonschema=use_jsonschema)
    assert found is not None and problem in found
    with pytest.raises(UserError, match="nothing was written"):
        in_progress.write_record(changed, tmp_path / "elsewhere")
    assert not (tmp_path / "elsewhere").exists()
