"""Runs and results that survive mistakes: a rehearsal never touches real work, a damaged file is named
and handled, and every error a user can cause is one clear message."""
import csv
import io
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

import mope
import mope.store.files
import mope.train.loop
import mope.train.suite
from interruptions import Interrupted, stop_at
from mope.cli import main
from mope.errors import ConfigError, UserError
from mope.model.variants import VARIANTS
from mope.store import results as results_module
from mope.store.presets import get_preset
from mope.store.results import load_result, result_path, scan, write_result
from mope.train.suite import ensure_results
from mope.train.loop import checkpoint_path, train
from synthetic_runs import PLACEHOLDER_HASH, decayed_morlet, run


def mope_command(*args, env=None, timeout=300, **kwargs):
    return subprocess.run([sys.executable, "-m", "mope", *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, **kwargs)


# --- 1, 2, 7: rehearsals and custom configurations never touch a preset's work -----------------------

def test_rehearsal_after_an_interrupted_run_keeps_its_checkpoint_and_stored_result(store):
    smoke = get_preset("smoke")
    write_result(run("NOPE", 1, 3.25, preset=smoke))  # a finished run of the preset
    stored_before = result_path(smoke, "NOPE", 1).read_bytes()
    with pytest.raises(Interrupted):
        train("NOPE", smoke, 0, on_step=stop_at(25), progress=False)
    checkpoint = checkpoint_path(smoke, "NOPE", 0)
    saved = checkpoint.read_bytes()

    rehearsal = mope_command("train", "NOPE", "--preset", "smoke", "--steps", "5", "--seed", "0", "--no-progress")
    assert rehearsal.returncode == 0, rehearsal.stderr
    assert "filed as preset 'smoke-steps5'" in rehearsal.stdout
    rehearsal = mope_command("train", "NOPE", "--preset", "smoke", "--steps", "5", "--seed", "1", "--no-progress")
    assert rehearsal.returncode == 0, rehearsal.stderr
    assert checkpoint.read_bytes() == saved
    assert result_path(smoke, "NOPE", 1).read_bytes() == stored_before

    steps = []
    train("NOPE", smoke, 0, on_step=steps.append, progress=False)
    assert steps[0] == 20  # resumed from the checkpoint written after step 19


def test_a_configuration_that_borrows_a_preset_name_is_refused_before_step_0(store):
    steps = []
    with pytest.raises(ConfigError, match="differs from preset 'smoke' in steps"):
        train("NOPE", get_preset("smoke").replace(steps=30), 0, on_step=steps.append, progress=False)
    assert steps == []


def test_a_custom_configuration_is_stored_under_its_own_name(store):
    probe = get_preset("smoke").replace(name="probe", steps=4, warmup=1, eval_interval=3, extrapolation=())
    result = train("NOPE", probe, 0, progress=False)
    assert result_path("probe", "NOPE", 0).is_file() and load_result(probe, "NOPE", 0)["final"] == result["final"]
    assert [r["seed"] for r in scan("probe").current] == [0]  # checked against the configuration it stores


def test_a_bad_configuration_name_fails_at_once():
    with pytest.raises(ConfigError, match="names the results and checkpoint folders"):
        get_preset("smoke").replace(name="../elsewhere")


def test_table_after_a_rehearsal_shows_the_current_run_and_names_the_stale_one(store, capsys):
    smoke = get_preset("smoke")
    write_result(run("EGA-1", 0, 3.1832, preset=smoke))
    write_result(run("EGA-1", 1, 3.9015, preset=smoke, changes={"config_hash": PLACEHOLDER_HASH}))
    main(["table", "--preset", "smoke"])
    table = capsys.readouterr()
    row = next(line for line in table.out.splitlines() if line.startswith("EGA-1 "))
    assert "3.1832 (n=1)" in row and "3.9015" not in table.out
    assert "stale (not shown): smoke/EGA-1/seed1.json: configuration 0123456789abcdef" in table.err


# --- 3: damaged results files ----------------------------------------------------------------------

def final_loss_as(good: str, text: str) -> str:
    """The stored file ``good`` with its final ``val_loss`` (2.0) written as ``text``, which JSON cannot
    hold (NaN, a number beyond a float): only a file on disk can carry it."""
    head, final, tail = good.partition('"final": {')
    assert '"val_loss": 2.0,' in tail
    return head + final + tail.replace('"val_loss": 2.0,', f'"val_loss": {text},', 1)


def with_sigma(good: str, sigma: list[float]) -> str:
    """The stored file ``good`` (smoke: n_embd 32, 16 MoPE pairs) holding MoPE parameters whose σ is ``sigma``."""
    pairs = {"omega": [1.0] * len(sigma), "sigma": sigma, "omega_raw": [1.0] * len(sigma), "sigma_raw": sigma}
    return json.dumps({**json.loads(good), "learned": {"morlet": {**pairs, "centre": None}}})


DAMAGED = {
    "truncated": lambda good: good[: len(good) // 2],
    "not JSON": lambda good: "not json at all",
    "wrong schema": lambda good: json.dumps({**json.loads(good), "schema": 7}),
    "no final": lambda good: json.dumps({k: v for k, v in json.loads(good).items() if k != "final"}),
    "final without a number": lambda good: json.dumps({**json.loads(good), "final": {"val_loss": None}}),
    "a list": lambda good: "[1, 2]",
    # issue 23, case 3: files that crashed every reader, or passed a check of the top-level keys only
    "nested too deeply": lambda good: "[" * 100000 + "]" * 100000,  # RecursionError
    "a loss too large for a float": lambda good: final_loss_as(good, "1" + "0" * 400),
    "a 5000-digit loss": lambda good: final_loss_as(good, "7" * 5000),  # ValueError
    "a NaN loss": lambda good: final_loss_as(good, "NaN"),
    "contexts as a list of words": lambda good: json.dumps(
        {**json.loads(good), "final": {**json.loads(good)["final"], "val_loss_full_by_context": ["x"]}}),
    "learned as a list": lambda good: json.dumps({**json.loads(good), "learned": [1]}),
    "a history without numbers": lambda good: json.dumps({**json.loads(good), "history": [{"step": "0", "val_loss": "x"}]}),
    "not UTF-8": lambda good: good.encode("utf-16"),
    # issue 31: files the schema let through, then shown or crashing a reader
    "an empty history": lambda good: json.dumps({**json.loads(good), "history": []}),
    "a validation loss of 0": lambda good: final_loss_as(good, "0"),
    "a negative σ": lambda good: with_sigma(good, [-1.0] + [2.0] * 15),
    "a σ of 1e308": lambda good: with_sigma(good, [1e308] + [2.0] * 15),
    "a σ of 0": lambda good: with_sigma(good, [0.0] + [2.0] * 15),
    "three σ where the configuration fixes 16": lambda good: with_sigma(good, [2.0] * 3),
    "every learned array empty": lambda good: with_sigma(good, []),
    "EGA's α of one layer where there are two": lambda good: json.dumps(
        {**json.loads(good), "learned": {"ega": {"alpha": [[2.0, 2.0]], "tau": [[0.0, 0.0]]}}}),
}


@pytest.mark.parametrize("damage", DAMAGED)
def test_a_damaged_results_file_is_named_skipped_then_set_aside_and_retrained(store, damage, monkeypatch, capsys):
    smoke = get_preset("smoke")
    write_result(run("BASE-DOT", 0, 2.5, preset=smoke))
    path = write_result(run("EGA-1", 0, 2.0, preset=smoke))
    damaged = DAMAGED[damage](path.read_text())
    path.write_bytes(damaged if isinstance(damaged, bytes) else damaged.encode())

    found = scan("smoke")
    assert [r["variant"] for r in found.current] == ["BASE-DOT"]
    assert [r.path for r in found.invalid] == [path]
    assert all("Traceback" not in r.reason and "\n" not in r.reason and len(r.reason) < 300 for r in found.invalid)
    main(["table", "--preset", "smoke"])
    table = capsys.readouterr()
    assert "BASE-DOT" in table.out and "invalid (not shown): smoke/EGA-1/seed0.json: " in table.err
    main(["claims", "--preset", "smoke"])  # names it too, on stderr
    claims = capsys.readouterr()
    assert "(1 current runs)" in claims.out and "invalid (not shown): smoke/EGA-1/seed0.json: " in claims.err

    trained = []
    monkeypatch.setattr(mope.train.suite, "train", lambda variant, preset, seed, **kw: (
        trained.append((variant, seed)), write_result(run(variant, seed, 1.5, preset=preset), kw["results_root"])))
    ensure_results("smoke", ["BASE-DOT", "EGA-1"], [0], progress=False)
    assert trained == [("EGA-1", 0)]
    assert len(list(path.parent.glob("seed0.json.set-aside-*"))) == 1  # the damaged file is kept aside
    assert load_result(smoke, "EGA-1", 0)["final"]["val_loss"] == 1.5


@pytest.mark.parametrize("damage", DAMAGED)
def test_without_jsonschema_a_damaged_file_gets_the_same_reason(store, damage, monkeypatch):
    """The GPU image has no jsonschema: the store's own reading of the same schema must agree with it."""
    import mope.store.result_schema

    path = write_result(run("EGA-1", 0, 2.0, preset=get_preset("smoke")))
    damaged = DAMAGED[damage](path.read_text())
    path.write_bytes(damaged if isinstance(damaged, bytes) else damaged.encode())
    (expected,) = scan("smoke").invalid
    monkeypatch.setattr(mope.store.result_schema, "jsonschema", None)
    (found,) = scan("smoke").invalid
    assert found.reason.startswith("damaged: ") and expected.reason.startswith("damaged: ")
    if damage != "a history without numbers":  # two faults: each validator may name either first
        assert found.reason == expected.reason


def test_the_command_line_runs_on_the_bare_gpu_image_without_jsonschema_or_scipy(store):
    """The GPU image holds torch, numpy and tqdm only; gpu_suite.sh runs `suite` and `table` there."""
    smoke = get_preset("smoke")
    write_result(run("EGA-1", 0, 2.0, preset=smoke))
    write_result(run("EGA-1", 1, 2.2, preset=smoke))
    script = ("import runpy, sys\n"
              "sys.modules['jsonschema'] = sys.modules['scipy'] = None  # not installed\n"
              "sys.argv = ['mope', 'table', '--preset', 'smoke']\n"
              "runpy.run_module('mope', run_name='__main__', alter_sys=True)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("EGA-1 "))
    assert "2.1000 ± 0.1414 (n=2)" in row


@pytest.mark.parametrize("misfiled, reason", [
    (dict(variant="BASE-DOT"), "holds a run of BASE-DOT, filed under EGA-1"),
    (dict(seed=3), "holds seed 3, filed as seed 0"),
    (dict(preset="cpu"), "holds a run of preset 'cpu', filed under 'smoke'"),
])
def test_a_misfiled_result_is_invalid(store, misfiled, reason):
    smoke = get_preset("smoke")
    path = result_path(smoke, "EGA-1", 0)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(run("EGA-1", 0, 2.0, preset=smoke, changes=misfiled)))
    found = scan("smoke")
    assert found.current == [] and [r.reason for r in found.invalid] == [reason]


def test_only_seed_files_count(store):
    smoke = get_preset("smoke")
    path = write_result(run("EGA-1", 0, 2.0, preset=smoke))
    (path.parent / "seed0.orig.json").write_text(path.read_text())
    (path.parent / "seed01.json").write_text(path.read_text())
    assert [(r["variant"], r["seed"]) for r in scan("smoke").current] == [("EGA-1", 0)]


def test_former_name_of_a_renamed_preset_still_counts(store):
    short = get_preset("cpu-short")
    as_stored = run("NOPE", 0, 2.36, preset=short.replace(name="cpu"))  # stored before the rename
    path = result_path(short, "NOPE", 0)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(as_stored))
    assert [r["seed"] for r in scan("cpu-short").current] == [0]


# --- 4: damaged checkpoints ------------------------------------------------------------------------

def poison_weights(path):
    checkpoint = torch.load(path, weights_only=True)
    name = next(iter(checkpoint["model"]))
    checkpoint["model"][name][0] = float("nan")
    torch.save(checkpoint, path)


def reshape_weights(path):
    checkpoint = torch.load(path, weights_only=True)
    name = next(iter(checkpoint["model"]))
    checkpoint["model"][name] = torch.zeros(3, 3)
    torch.save(checkpoint, path)


@pytest.mark.parametrize("damage", ["garbage bytes", "non-finite weights", "empty file", "weights of another shape"])
def test_a_damaged_checkpoint_is_set_aside_once_and_the_run_starts_over(tiny, store, damage, capsys):
    """Issue 23, case 2: an empty checkpoint raised IndexError on every rerun and was never set aside."""
    reference = train("NOPE", tiny, 0, results_root=store[0] / "reference", progress=False)
    with pytest.raises(Interrupted):
        train("NOPE", tiny, 0, on_step=stop_at(7), progress=False)
    path = checkpoint_path(tiny, "NOPE", 0)
    if damage == "garbage bytes":
        path.write_bytes(b"\x00 this is not a checkpoint")
    elif damage == "empty file":
        path.write_bytes(b"")
    elif damage == "weights of another shape":
        reshape_weights(path)
    else:
        poison_weights(path)
    capsys.readouterr()
    steps = []
    result = train("NOPE", tiny, 0, on_step=steps.append, progress=False)
    notice = capsys.readouterr().err
    assert steps[0] == 0 and f"checkpoint {path} is damaged" in notice and "starting this run from step 0" in notice
    assert len(notice.strip().splitlines()) == 1
    assert len(list(path.parent.glob(path.name + ".set-aside-*"))) == 1
    assert load_result(tiny, "NOPE", 0) is not None
    assert result["final"] == reference["final"] and result["history"] == reference["history"]  # a clean restart


# --- issue 23, case 1: a checkpoint belongs to one run ----------------------------------------------

@pytest.mark.parametrize("other", ["seed", "world size"])
def test_a_checkpoint_of_another_run_is_set_aside_not_resumed(tiny, store, other, capsys):
    """Seed 1's checkpoint copied over seed 0's was resumed and its numbers stored as seed 0's."""
    reference = train("PE-MORLET", tiny, 0, results_root=store[0] / "reference", progress=False)
    path = checkpoint_path(tiny, "PE-MORLET", 0)
    if other == "seed":
        with pytest.raises(Interrupted):
            train("PE-MORLET", tiny, 1, on_step=stop_at(7), progress=False)
        shutil.copy(checkpoint_path(tiny, "PE-MORLET", 1), path)
        expected = "seed 1, this run's is 0"
    else:
        with pytest.raises(Interrupted):
            train("PE-MORLET", tiny, 0, on_step=stop_at(7), progress=False)
        checkpoint = torch.load(path, weights_only=True)
        checkpoint["run"]["world_size"] = 2  # written by two data-parallel ranks
        torch.save(checkpoint, path)
        expected = "world_size 2, this run's is 1"
    capsys.readouterr()
    steps = []
    result = train("PE-MORLET", tiny, 0, on_step=steps.append, progress=False)
    notice = capsys.readouterr().err
    assert steps[0] == 0 and f"checkpoint {path} is another run's ({expected})" in notice
    assert len(notice.strip().splitlines()) == 1 and "starting this run from step 0" in notice
    assert len(list(path.parent.glob(path.name + ".set-aside-*"))) == 1
    for key in ("history", "train_curve", "final", "learned"):
        assert result[key] == reference[key], key


def retrained_after_setting_aside(variant: str, cfg, path, capsys, reason: str) -> dict:
    """Seed 0 of ``variant`` trained again over the checkpoint at ``path``: it starts at step 0, after one
    notice that names the checkpoint and ``reason``, which it set aside once (never deleted)."""
    capsys.readouterr()
    steps = []
    result = train(variant, cfg, 0, on_step=steps.append, progress=False)
    notice = capsys.readouterr().err
    assert steps[0] == 0 and f"checkpoint {path} is {reason}" in notice
    assert len(notice.strip().splitlines()) == 1 and len(list(path.parent.glob(path.name + ".set-aside-*"))) == 1
    return result


def test_a_checkpoint_written_before_checkpoints_recorded_their_run_is_set_aside_not_resumed(tiny, store, capsys):
    """Issue 31: seed 1's checkpoint in the earlier format (no record of its run), copied to seed 0's
    name, was resumed silently (stored 3.3181 where seed 0 alone gives 3.1972): its seed cannot be checked."""
    reference = train("PE-MORLET", tiny, 0, results_root=store[0] / "reference", progress=False)
    with pytest.raises(Interrupted):
        train("PE-MORLET", tiny, 1, on_step=stop_at(7), progress=False)
    path = checkpoint_path(tiny, "PE-MORLET", 0)
    checkpoint = torch.load(checkpoint_path(tiny, "PE-MORLET", 1), weights_only=True)
    assert checkpoint.pop("run")["seed"] == 1
    torch.save(checkpoint, path)  # as the earlier code wrote it, under seed 0's name
    result = retrained_after_setting_aside("PE-MORLET", tiny, path, capsys,
                                           "of unknown seed (written before checkpoints recorded")
    for key in ("history", "train_curve", "final", "learned"):
        assert result[key] == reference[key], key


# --- 5: unwritable folders -------------------------------------------------------------------------

@pytest.mark.parametrize("where", ["results", "checkpoints"])
def test_an_unwritable_folder_fails_before_step_0(tiny, tmp_path, where):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")  # root may write anywhere, but not below a plain file
    folders = {"results_root": tmp_path / "results", "checkpoint_dir": tmp_path / "checkpoints",
               {"results": "results_root", "checkpoints": "checkpoint_dir"}[where]: blocked / "inside"}
    steps = []
    with pytest.raises(UserError, match=f"cannot write to {blocked / 'inside'}"):
        train("NOPE", tiny, 0, on_step=steps.append, progress=False, **folders)
    assert steps == []


# --- 6: every user error from the command line is one message ---------------------------------------

@pytest.mark.parametrize("args, env, message", [
    (["train", "NOPE", "--preset", "smoke"], {"MOPE_DATA_DIR": "/nonexistent/data"}, "MOPE_DATA_DIR=/nonexistent/data"),
    (["train", "NOPE", "--preset", "smoke", "--device", "cuda"], {}, "no CUDA device"),
    (["train", "NOPE", "--preset", "smoke", "--device", "cpux"], {}, "unknown device 'cpux'"),
    (["train", "NOPE", "--preset", "smoke", "--threads", "-2"], {}, "-2 is not a positive integer"),
    (["train", "NOPE", "--preset", "smoke", "--threads", "0"], {}, "0 is not a positive integer"),
    (["train", "NOPE", "--preset", "smoke", "--seed", str(2**64)], {}, "outside 0 <= seed < 2**32"),
    (["train", "NOPE", "--preset", "smoke", "--seed", "-1"], {}, "outside 0 <= seed < 2**32"),
    (["suite", "--preset", "smoke", "--seeds", "0", "0"], {}, "--seeds lists 0 more than once"),
    (["suite", "--preset", "smoke", "--variants", "NOPE", "NOPE"], {}, "--variants lists NOPE more than once"),
    (["table", "--preset", "smoke"], {}, "no current stored results for preset 'smoke'"),
    (["claims", "--preset", "smoke", "--confirmed", "ega-gain", "ega-gain"], {}, "--confirmed lists ega-gain more than once"),
    (["train", "NOPE", "--preset", "smoke"], {"RANK": "x"}, "$RANK='x' is not an integer >= 0; torchrun sets it"),
    (["train", "NOPE", "--preset", "smoke"], {"WORLD_SIZE": "0"}, "$WORLD_SIZE='0' is not an integer >= 1"),
    (["train", "NOPE", "--preset", "smoke"], {"RANK": "2", "WORLD_SIZE": "2"}, "$RANK=2 is not below $WORLD_SIZE=2"),
])
def test_user_errors_are_one_line_without_a_traceback(store, args, env, message, monkeypatch, capsys):
    store[0].mkdir()
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # "--device cuda" on a machine without one
    with pytest.raises(SystemExit) as exit_:
        main(args)
    err = capsys.readouterr().err
    assert exit_.value.code in (1, 2)
    assert message in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if "error" in line]) == 1


def test_an_empty_store_is_a_users_error_not_a_usage_error(store, capsys):
    """`table` on a store with no current run printed argparse's usage block and exited 2, as for a misspelt flag."""
    store[0].mkdir()
    with pytest.raises(SystemExit) as exit_:
        main(["table", "--preset", "smoke"])
    assert exit_.value.code == 1 and "usage:" not in capsys.readouterr().err


@pytest.mark.parametrize("command", [["table", "--preset", "smoke", "--results-dir"], ["progress", "--checkpoint-dir"],
                                     ["progress", "--results-dir"]])
def test_a_folder_option_naming_a_file_says_it_is_not_a_folder(store, tmp_path, command, capsys):
    """`--results-dir` naming a file was "no such folder"; `progress --checkpoint-dir` naming one found "no run in
    progress" and exited 0."""
    a_file = tmp_path / "a file"
    a_file.write_text("")
    with pytest.raises(SystemExit) as exit_:
        main([*command, str(a_file)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and f"{command[-1]} {a_file} is not a folder; give the folder that holds" in err


def test_data_named_where_there_is_none_stops_the_run_before_its_stored_file_is_touched(store, tiny, tmp_path, capsys):
    """A --data path with no TinyShakespeare set a stale stored result aside, then failed, and left the run's lock."""
    results, _ = store
    stale = result_path(tiny, "NOPE", 0)
    stale.parent.mkdir(parents=True)
    stale.write_text("{}")
    with pytest.raises(UserError, match=f"no TinyShakespeare at {tmp_path / 'nowhere'}"):
        train("NOPE", tiny, 0, data_path=tmp_path / "nowhere", progress=False)
    assert sorted(path.name for path in stale.parent.iterdir()) == ["seed0.json"]  # not set aside, no lock left


def test_a_corrupt_data_file_is_named_with_the_fix(store, tmp_path, monkeypatch, capsys):
    data = tmp_path / "tinyshakespeare" / "input.txt"
    data.parent.mkdir()
    data.write_text("To be or not to be")
    monkeypatch.setenv("MOPE_DATA_DIR", str(tmp_path))
    with pytest.raises(SystemExit) as exit_:
        main(["train", "NOPE", "--preset", "smoke"])
    err = capsys.readouterr().err
    assert exit_.value.code == 1 and "Traceback" not in err
    assert f"{data} is not TinyShakespeare" in err and "replace it with char-rnn's input.txt" in err


def test_debug_shows_the_traceback(store):
    done = mope_command("train", "NOPE", "--preset", "smoke", "--device", "cpux", "--debug")
    assert done.returncode == 2 and "Traceback" in done.stderr and "unknown device 'cpux'" in done.stderr


def test_a_diverging_run_is_one_message(store, monkeypatch, capsys):
    from mope.train import loop as training

    def diverge(*args, **kwargs):
        raise training.NonFiniteLoss("training loss is nan at step 3 of NOPE (preset smoke, seed 0); the run is stopped")

    monkeypatch.setattr(training, "train", diverge)
    with pytest.raises(SystemExit) as exit_:
        main(["train", "NOPE", "--preset", "smoke"])
    assert exit_.value.code == 1 and capsys.readouterr().err == (
        "mope: error: training loss is nan at step 3 of NOPE (preset smoke, seed 0); the run is stopped\n")


def as_typed_in_a_terminal():
    """Start a child with SIGINT at its default, as a shell with job control starts a command: run from a
    script in the background (`... &`), pytest and its children inherit SIGINT ignored, and the command
    keeps an ignored SIGINT so (mope/__init__.py), which would turn every Ctrl-C test into a no-op."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for(condition, seconds=120):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError
        time.sleep(0.2)


def test_ctrl_c_is_one_message_and_the_run_resumes_later(store):
    _, checkpoints = store
    # 100,000 steps: the run cannot finish between its first checkpoint and the signal, however loaded the machine
    process = subprocess.Popen([sys.executable, "-m", "mope", "train", "NOPE", "--preset", "smoke", "--steps", "100000",
                                "--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=as_typed_in_a_terminal)
    wait_for(lambda: any(checkpoints.rglob("*.pt")))
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130 and "Traceback" not in err
    assert "a run resumes from its last checkpoint" in err


def test_a_closed_pipe_ends_quietly(store):
    write_result(run("EGA-1", 0, 2.0, preset=get_preset("smoke")))
    process = subprocess.Popen([sys.executable, "-m", "mope", "table", "--preset", "smoke"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # the reader (think `| head -0`) is gone before the table is printed
    err = process.stderr.read().decode()
    process.wait(timeout=120)
    assert process.returncode == 141 and err == ""


@pytest.mark.parametrize("command", ["table --preset smoke", "claims --preset smoke", "claims --preset smoke --json"])
def test_a_closed_standard_output_is_one_line_and_a_failure(store, command):
    """Issue 75: with standard output closed before the start (`>&-`), `table` and `claims` ended in a traceback
    (`'NoneType' object has no attribute 'flush'`)."""
    write_result(run("EGA-1", 0, 2.0, preset=get_preset("smoke")))
    done = subprocess.run(f"{shlex.quote(sys.executable)} -m mope {command} >&-", shell=True, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.splitlines() == ["mope: error: standard output is closed; give the command somewhere to write "
                                        "(a file, a pipe, or > /dev/null)"]


# --- 8: SIGTERM to a suite -------------------------------------------------------------------------

def processes_mentioning(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and text in (entry / "cmdline").read_bytes().decode(errors="replace"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def start_two_job_suite(tmp_path, output) -> tuple[subprocess.Popen, Path]:
    """A smoke suite of two runs side by side, with its own temporary folder (returned, created empty)."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    suite = subprocess.Popen([sys.executable, "-m", "mope", "suite", "--preset", "smoke", "--seeds", "0",
                              "--variants", "BASE-DOT", "EGA-1", "--jobs", "2", "--no-progress"],
                             env={**os.environ, "TMPDIR": str(temporary)}, stdout=output, stderr=output, text=True)
    return suite, temporary


def test_sigterm_to_a_two_job_suite_leaves_no_process_and_no_log(store, tmp_path):
    results, _ = store
    suite, temporary = start_two_job_suite(tmp_path, subprocess.PIPE)
    wait_for(lambda: len(processes_mentioning(str(results))) >= 2)  # its two runs (the suite itself reads the env)
    suite.send_signal(signal.SIGTERM)
    _, err = suite.communicate(timeout=120)
    assert suite.returncode == 130 and "terminated by signal 15" in err and "Traceback" not in err
    assert processes_mentioning(str(results)) == []
    assert list(temporary.iterdir()) == []


# --- issue 23, case 4: claims names what it leaves out ----------------------------------------------

def test_claims_names_every_file_it_leaves_out_on_stderr_and_in_its_json(store, capsys):
    smoke = get_preset("smoke")
    write_result(run("BASE-DOT", 0, 2.5, preset=smoke))
    truncated = write_result(run("EGA-1", 0, 2.0, preset=smoke))
    truncated.write_text(truncated.read_text()[:50])
    write_result(run("EGA-1", 1, 2.0, preset=smoke, changes={"config_hash": PLACEHOLDER_HASH}))  # stale
    misfiled = result_path(smoke, "NOPE", 0)
    misfiled.parent.mkdir()
    misfiled.write_text(json.dumps(run("NOPE", 0, 2.0, preset=smoke, changes={"seed": 3})))

    main(["claims", "--preset", "smoke"])
    claims = capsys.readouterr()
    assert "(1 current runs)" in claims.out
    named = [line for line in claims.err.splitlines() if "(not shown)" in line]
    assert len(named) == 3 and len(claims.err.splitlines()) == 3
    assert any("stale (not shown): smoke/EGA-1/seed1.json: configuration 0123456789abcdef" in line for line in named)
    assert any("invalid (not shown): smoke/EGA-1/seed0.json: damaged: not valid JSON" in line for line in named)
    assert any("invalid (not shown): smoke/NOPE/seed0.json: holds seed 3, filed as seed 0" in line for line in named)

    main(["claims", "--preset", "smoke", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["current_runs"] == 1
    assert sorted((r["path"], r["kind"]) for r in report["skipped"]) == [
        ("smoke/EGA-1/seed0.json", "invalid"), ("smoke/EGA-1/seed1.json", "stale"), ("smoke/NOPE/seed0.json", "invalid")]
    assert all(r["reason"] for r in report["skipped"])


def test_claims_and_table_on_a_results_folder_that_is_not_there_say_so(store, tmp_path, capsys):
    for command in ("claims", "table"):
        with pytest.raises(SystemExit) as exit_:
            main([command, "--preset", "smoke", "--results-dir", str(tmp_path / "nonexistent")])
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and f"--results-dir {tmp_path / 'nonexistent'}: no such folder" in err
        assert len(err.strip().splitlines()) == 1


def test_a_results_folder_that_cannot_be_opened_or_read_is_named_as_the_option_or_variable_that_gave_it(
        store, tmp_path, monkeypatch, capsys):
    """A name too long for the file system was OSError's own words, the whole name echoed, exit 1; a folder this
    user may not read, "[Errno 13] Permission denied" on a preset inside it; $MOPE_RESULTS_DIR naming a file,
    "does not exist"; an empty --results-dir, the current directory."""
    too_long = "/tmp/" + "a" * 5000
    with pytest.raises(SystemExit) as exit_:
        main(["table", "--preset", "smoke", "--results-dir", too_long])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.startswith("mope: error: --results-dir /tmp/aaa") and "cannot be opened" in err
    assert len(err) < 600 and "give the folder that holds" in err

    unreadable = tmp_path / "unreadable"
    unreadable.mkdir()
    monkeypatch.setattr("mope.cli.os.access", lambda path, mode: Path(path) != unreadable)  # tests run as root
    with pytest.raises(SystemExit) as exit_:
        main(["claims", "--preset", "smoke", "--results-dir", str(unreadable)])
    assert exit_.value.code == 2 and f"--results-dir {unreadable} may not be read by this user" in capsys.readouterr().err
    monkeypatch.undo()

    a_file = tmp_path / "a file"
    a_file.write_text("")
    monkeypatch.setenv("MOPE_RESULTS_DIR", str(a_file))
    with pytest.raises(SystemExit) as exit_:
        main(["table", "--preset", "smoke"])
    err = capsys.readouterr().err
    assert exit_.value.code == 1 and f"the results folder $MOPE_RESULTS_DIR={a_file} is not a folder; point" in err

    for command in (["table", "--results-dir", ""], ["progress", "--checkpoint-dir", ""], ["train", "NOPE", "--data", ""]):
        with pytest.raises(SystemExit) as exit_:
            main(command)
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and f"{command[-2]}: an empty path; name a file or folder" in err, err


def test_a_variant_folder_this_user_may_not_read_is_named_not_passed_over(store, monkeypatch, capsys):
    """glob skipped a folder it could not list: its model's row vanished from Table 2 without a word."""
    results, _ = store
    write_result(run("BASE-DOT", 0, 1.50, preset=get_preset("smoke")))
    write_result(run("EGA-1", 0, 1.40, preset=get_preset("smoke")))
    hidden = results / "smoke" / "BASE-DOT"
    monkeypatch.setattr(results_module.os, "access", lambda path, mode: Path(path) != hidden)  # tests run as root
    found = scan("smoke")
    assert [r["variant"] for r in found.current] == ["BASE-DOT", "EGA-1"]  # root reads it all the same
    (rejected,) = found.invalid
    assert rejected.path == hidden and "may not read (permission denied)" in rejected.reason
    main(["table", "--preset", "smoke"])
    assert "smoke/BASE-DOT: a folder this user may not read" in capsys.readouterr().err
    from mope.book import run_records

    (row,) = [row for row in run_records.not_shown_table(["smoke"]).splitlines() if row.startswith("| `smoke`")]
    assert row.startswith("| `smoke` | BASE-DOT | all | invalid | a folder this user may not read")
    hidden = results / "smoke"  # now the preset's own folder is the one denied (the stand-in reads `hidden`)
    (rejected,) = scan("smoke").invalid
    assert rejected.path == hidden and "may not read" in rejected.reason
    (row,) = [row for row in run_records.not_shown_table(["smoke"]).splitlines() if row.startswith("| `smoke`")]
    assert row.startswith("| `smoke` | all | all | invalid | a folder this user may not read")


def test_standing_names_every_file_it_leaves_out_and_takes_no_confirmed(store, capsys):
    """`claims --standing` left damaged files out without a word, and ran with --confirmed ignored (exit 0)."""
    results, _ = store
    write_result(run("BASE-DOT", 0, 1.50, preset=get_preset("cpu")))
    damaged = results / "cpu" / "EGA-1" / "seed0.json"
    damaged.parent.mkdir(parents=True)
    damaged.write_text('{"variant": "EGA-1", "seed": 0')
    main(["claims", "--standing", "--json"])
    out, err = capsys.readouterr()
    assert json.loads(out) and err.count("\n") == 1 and err.startswith("notice: invalid (not shown): cpu/EGA-1/seed0.json")
    with pytest.raises(SystemExit) as exit_:
        main(["claims", "--standing", "--confirmed", "ega-gain"])
    assert exit_.value.code == 2 and "--standing and --confirmed answer different questions" in capsys.readouterr().err


def test_autocast_on_the_cpu_is_refused_before_anything_is_trained_or_filed(store, capsys):
    """`--autocast fp16 --device cpu` trained in float32 and filed the run as smoke-fp16."""
    results, _ = store
    with pytest.raises(SystemExit) as exit_:
        main(["train", "NOPE", "--preset", "smoke", "--autocast", "fp16", "--device", "cpu", "--no-progress"])
    assert exit_.value.code == 2 and "--autocast fp16 applies on CUDA only" in capsys.readouterr().err
    assert not results.exists()


# --- issue 23, case 5: train sets a stale or damaged result aside -----------------------------------------

@pytest.mark.parametrize("kind", ["stale", "damaged", "a folder"])
def test_train_sets_a_stale_or_damaged_result_aside_before_step_0(tiny, store, kind, capsys):
    path = result_path(tiny, "NOPE", 0)
    if kind == "stale":
        write_result(run("NOPE", 0, 2.0, preset=tiny, changes={"config_hash": PLACEHOLDER_HASH}))
    elif kind == "damaged":
        path.parent.mkdir(parents=True)
        path.write_text('{"schema": 1, "variant": "NO')
    else:  # a folder named seed0.json was found only after the whole run had trained
        path.mkdir(parents=True)
    before = path.read_bytes() if path.is_file() else None
    aside = []

    def on_step(step):
        if step == 0:
            aside.extend(path.parent.glob("seed0.json.set-aside-*"))

    train("NOPE", tiny, 0, on_step=on_step, progress=False)
    err = capsys.readouterr().err
    assert len(aside) == 1, "set aside before the first step"
    assert f"{path} (" in err and f"moved to {aside[0].name}, training it again" in err
    assert (aside[0].read_bytes() == before) if before is not None else aside[0].is_dir()
    assert load_result(tiny, "NOPE", 0) is not None


# --- issue 23, case 6: a suite's runs never outlive it -------------------------------------------------

def test_sigterm_while_the_suite_starts_a_run_stops_that_run_too(store, monkeypatch):
    started = []
    real_popen = subprocess.Popen

    class SignalledWhileStarting(real_popen):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            started.append(self)
            os.kill(os.getpid(), signal.SIGTERM)  # arrives before Popen() has returned

    monkeypatch.setattr(mope.train.suite.subprocess, "Popen", SignalledWhileStarting)
    monkeypatch.setattr(mope.train.suite, "run_command", lambda *args: [sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        with pytest.raises(KeyboardInterrupt, match="terminated by signal 15"):
            ensure_results("smoke", ["BASE-DOT", "EGA-1"], [0], jobs=2, progress=False)
        assert len(started) == 1 and started[0].poll() is not None  # stopped, not left running with ppid 1
    finally:
        for process in started:
            if process.poll() is None:
                process.kill()
                process.wait()


def test_sigkill_of_a_suite_stops_its_runs_and_leaves_no_log(store, tmp_path):
    results, _ = store
    suite, temporary = start_two_job_suite(tmp_path, subprocess.DEVNULL)
    try:
        wait_for(lambda: len(processes_mentioning(str(results))) >= 2)
        suite.kill()
        suite.wait(timeout=60)
        wait_for(lambda: processes_mentioning(str(results)) == [])
    finally:
        for pid in processes_mentioning(str(results)):
            os.kill(pid, signal.SIGKILL)
    assert not list(results.rglob("seed*.json"))  # stopped before they could finish
    assert list(temporary.iterdir()) == []


# --- issue 23, case 7: a full disk while saving a checkpoint -------------------------------------------

def test_a_full_disk_during_a_checkpoint_save_is_one_message(store):
    import resource

    def small_files():  # writes past 64 KiB fail with EFBIG, as writes to a full disk fail with ENOSPC
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))

    done = subprocess.run([sys.executable, "-m", "mope", "train", "NOPE", "--preset", "smoke", "--no-progress"],
                         capture_output=True, text=True, timeout=300, preexec_fn=small_files, restore_signals=False)
    path = checkpoint_path(get_preset("smoke"), "NOPE", 0)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith(f"mope: error: cannot write checkpoint {path} (") and "is the disk full?" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert list(path.parent.iterdir()) == []  # no temporary file (the run's lock lies beside its result)


# --- issue 23, cases 8 and 9: bad arguments exit 2 --------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["train", "NOPE", "--preset", "smoke", "--steps", "0"], "0 is not a positive integer"),
    (["train", "NOPE", "--preset", "smoke", "--steps", "-5"], "-5 is not a positive integer"),
    (["train", "NOPE", "--preset", "smoke", "--steps", "2"], "a shortened run needs at least 3"),
    (["suite", "--preset", "smoke", "--seeds", "0", "0"], "--seeds lists 0 more than once"),
    (["suite", "--preset", "smoke", "--variants", "NOPE", "NOPE"], "--variants lists NOPE more than once"),
    (["train", "NOPE", "--preset", "smoke", "--device", "cpux"], "unknown device 'cpux'"),
])
def test_bad_arguments_exit_2_with_one_line(store, args, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(args)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if "error" in line]) == 1


@pytest.mark.parametrize("threads", ["100000", "20000", "cores + 1"])
def test_threads_beyond_the_cores_are_refused_before_anything_starts(store, threads):
    from mope.train.devices import core_count

    count = str(core_count() + 1) if threads == "cores + 1" else threads
    done = mope_command("train", "NOPE", "--preset", "smoke", "--threads", count, "--no-progress")
    assert done.returncode == 2, done.stderr  # was a segfault (139) or "libgomp: Thread creation failed"
    assert f"{count} threads asked for, but this process may use {core_count()} core" in done.stderr
    assert "Traceback" not in done.stderr and len([line for line in done.stderr.splitlines() if "error" in line]) == 1


# --- issue 23, case 10: Ctrl-C while a command starts or exits ----------------------------------------

def started_line(process: subprocess.Popen, limit: float = 120.0) -> list[str]:
    """Read ``process``'s stderr until the interpreter reports (``-X importtime``) that the package ``mope`` is
    imported: the moment the command has started, a line the program prints, never a fixed delay (before it, Ctrl-C
    lands in the interpreter's own start, which no program can catch). The lines read, for the caller to keep."""
    deadline, lines = time.monotonic() + limit, []
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            raise AssertionError(f"the command ended before it started: {''.join(lines)[-2000:]}")
        lines.append(line)
        if line.rstrip().endswith("| mope"):
            return lines
    raise AssertionError("the command did not start in time")


@pytest.mark.parametrize("after", [0.0, 1.0])
def test_ctrl_c_while_the_command_starts_is_one_line(store, after):
    process = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "mope", "train", "NOPE", "--preset", "smoke",
                                "--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=as_typed_in_a_terminal)
    started_line(process)  # mope is imported; its own imports (torch: seconds) are next
    time.sleep(after)  # later in the start (or, on a fast machine, the run has begun: the same promise)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    err = "".join(line + "\n" for line in err.splitlines() if not line.startswith("import time:"))
    assert process.returncode == 130 and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1 and "interrupted" in err


def test_ctrl_c_while_the_command_exits_is_one_line(store):
    write_result(run("EGA-1", 0, 2.0, preset=get_preset("smoke")))
    script = ("import atexit, os, runpy, signal, sys, time\n"
              "atexit.register(lambda: (os.kill(os.getpid(), signal.SIGINT), time.sleep(2)))  # runs last\n"
              "sys.argv = ['mope', 'table', '--preset', 'smoke']\n"
              "runpy.run_module('mope', run_name='__main__', alter_sys=True)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          preexec_fn=as_typed_in_a_terminal)
    assert "EGA-1" in done.stdout  # the table was printed; then Ctrl-C during the exit handlers
    assert done.returncode == 130 and "Traceback" not in done.stderr and done.stderr == "mope: interrupted\n", done.stderr


# --- issue 23, case 11: temporary files, permissions, messages ----------------------------------------

def test_temporary_files_left_by_a_killed_save_are_removed_at_the_next_start(tiny, store, capsys):
    import fcntl

    path = checkpoint_path(tiny, "NOPE", 0)
    path.parent.mkdir(parents=True)
    left = path.with_name(path.name + ".k3j2x_a.tmp")  # a save killed by SIGKILL
    left.write_bytes(b"half a checkpoint")
    writing = path.with_name(path.name + ".b7c9q_w.tmp")  # a save in progress elsewhere: locked
    with open(writing, "wb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        train("NOPE", tiny, 0, progress=False)
        assert not left.exists() and writing.exists()
    assert f"removed 1 temporary file left by an interrupted save ({left.name})" in capsys.readouterr().err


def test_results_and_checkpoints_are_readable_by_the_group(tiny, store):
    mask = os.umask(0o022)
    try:
        with pytest.raises(Interrupted):
            train("NOPE", tiny, 0, on_step=stop_at(7), progress=False)
        assert checkpoint_path(tiny, "NOPE", 0).stat().st_mode & 0o777 == 0o644
        train("NOPE", tiny, 0, progress=False)
        assert result_path(tiny, "NOPE", 0).stat().st_mode & 0o777 == 0o644
    finally:
        os.umask(mask)


def test_a_json_error_names_its_place_once(store):
    smoke = get_preset("smoke")
    path = write_result(run("EGA-1", 0, 2.0, preset=smoke))
    path.write_text('{"schema": 1, "variant": "EGA')
    (reason,) = [r.reason for r in scan("smoke").invalid]
    assert reason.startswith("damaged: not valid JSON (Unterminated string starting at: line 1 column 26")
    assert "at at" not in reason


def test_a_result_that_does_not_validate_is_never_stored(store):
    smoke = get_preset("smoke")
    with pytest.raises(UserError, match=r"final.val_loss(_full)?: nan is not of type 'number'.*nothing was stored"):
        write_result(run("EGA-1", 0, float("nan"), preset=smoke))
    assert not result_path(smoke, "EGA-1", 0).exists()


# --- issue 31: a store no file can crash or hang, interrupts from the first line -----------------------

@pytest.mark.parametrize("learned", ["three σ", "every array empty"])
def test_claims_name_a_file_whose_learned_arrays_do_not_fit_its_configuration(store, learned, capsys):
    """Break 1: a σ of length 3 (or every learned array empty) passed the schema, then data_share_of_sigma
    failed to broadcast (3,) against (16,): a traceback from `claims`."""
    smoke = get_preset("smoke")
    write_result(run("BASE-DOT", 0, 2.5, preset=smoke))
    path = write_result(run("EGA-MORLET", 0, 2.0, preset=smoke, learned=decayed_morlet(16, 0.9)))
    path.write_text(with_sigma(path.read_text(), [2.0] * 3 if learned == "three σ" else []))
    main(["claims", "--preset", "smoke"])
    out, err = capsys.readouterr()
    assert "(1 current runs)" in out
    length = 3 if learned == "three σ" else 0
    assert err == (f"notice: invalid (not shown): smoke/EGA-MORLET/seed0.json: damaged: learned.morlet.omega: {length} "
                   "values, but its configuration fixes 16 (n_embd/2)\n")


def test_claims_json_is_strict_json_with_the_reason_for_every_null(store, capsys):
    """Break 2: a stored σ of 0 made `claims --json` print NaN (not JSON) and the text `nan%` with a verdict.
    The file is now refused; a statistic that is still not finite becomes null, with the reason."""
    smoke = get_preset("smoke")
    for seed in (0, 1):
        path = write_result(run("EGA-MORLET", seed, 2.0, preset=smoke, learned=decayed_morlet(16, 0.9)))
    path.write_text(with_sigma(path.read_text(), [0.0] + [2.0] * 15))
    main(["claims", "--preset", "smoke", "--json"])
    out = capsys.readouterr().out
    report = json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} is not JSON"))
    assert [r["path"] for r in report["skipped"]] == ["smoke/EGA-MORLET/seed1.json"]
    assert "nan" not in out.lower()

    from mope.evidence.claims_json import strict_claim_records

    (record,) = strict_claim_records([{"key": "k", "ours": float("nan"), "interval": [0.5, float("inf")], "n": 2}])
    assert record == {"key": "k", "ours": None, "interval": [0.5, None], "n": 2,
                      "nulled": ["ours was nan (not a finite number)", "interval[1] was inf (not a finite number)"]}


@pytest.mark.parametrize("where", ["results", "checkpoints"])
def test_a_fifo_named_like_a_temporary_file_is_never_opened(tiny, store, where):
    """Break 3: a FIFO under a temporary's name (seed0.json.abc123.tmp) made `train` hang for good before
    step 0: the clean-up opened it."""
    target = result_path(tiny, "NOPE", 0) if where == "results" else checkpoint_path(tiny, "NOPE", 0)
    target.parent.mkdir(parents=True)
    fifo = target.with_name(target.name + ".abc123.tmp")
    os.mkfifo(fifo)

    def hung(signum, frame):
        raise Interrupted("train hung before step 0")  # not an OSError, which the clean-up would swallow

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(600)  # a hang (for good) becomes a failure, whatever the machine's load
    try:
        train("NOPE", tiny, 0, progress=False)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert fifo.exists() and load_result(tiny, "NOPE", 0) is not None  # not ours to remove: kept


def watch_store_reads(monkeypatch, path: Path) -> tuple[list, list]:
    """Every opening of ``path`` by the store (``opened``) and the bytes of each read of it (``read``). Opening it
    fails at once rather than waiting on a FIFO for good."""
    opened, read = [], []
    real_open = open

    class Counted:
        def __init__(self, file):
            self.file = file

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.file.close()

        def fileno(self):
            return self.file.fileno()

        def read(self, size=-1):
            data = self.file.read(size)
            read.append(len(data))
            return data

    def watched_open(file, *args, **kwargs):
        if Path(file) != path:
            return real_open(file, *args, **kwargs)
        opened.append(path)
        if not path.is_file() or path.is_symlink():
            raise Interrupted(f"the store opened {path}, which is not a regular file")
        return Counted(real_open(file, *args, **kwargs))

    monkeypatch.setattr(mope.store.files, "open", watched_open, raising=False)
    return opened, read


@pytest.mark.parametrize("kind", ["a FIFO", "a symbolic link", "a 256 MiB sparse file"])
def test_the_store_opens_only_regular_files_of_a_size_a_run_can_have(store, tmp_path, kind, monkeypatch):
    """A symbolic link was followed (to any file); a results file of 1 GB was read whole (16 s, 2.3 GB). What the
    store opens and reads is watched, not how long it takes: a FIFO and a link are never opened, a file larger than
    any run is never read."""
    smoke = get_preset("smoke")
    elsewhere = write_result(run("NOPE", 0, 2.0, preset=smoke), tmp_path / "elsewhere")
    path = result_path(smoke, "NOPE", 0)
    path.parent.mkdir(parents=True)
    if kind == "a FIFO":
        os.mkfifo(path)
    elif kind == "a symbolic link":
        path.symlink_to(elsewhere)
    else:
        with open(path, "wb") as file:
            file.truncate(256 * 2**20)
    opened, read = watch_store_reads(monkeypatch, path)
    (rejected,) = scan("smoke").invalid
    assert scan("smoke").current == []
    assert read == []  # not a byte read of a file larger than any run
    if kind != "a 256 MiB sparse file":
        assert opened == []  # never opened: a FIFO would have kept its reader waiting, a link led anywhere
    expected = {"a FIFO": "damaged: not a regular file (a FIFO)",
                "a symbolic link": "damaged: not a regular file (a symbolic link)",
                "a 256 MiB sparse file": "damaged: 268,435,456 bytes, larger than any run (a reader opens at most 4 MiB)"}
    assert rejected.reason == expected[kind]


@pytest.mark.parametrize("kind", ["a folder", "a symbolic link"])
def test_a_checkpoint_path_that_is_not_a_regular_file_is_set_aside_before_step_0(tiny, store, tmp_path, kind, capsys):
    """Break 4: a folder at the checkpoint's path was never set aside: the run trained, failed at its
    first checkpoint with "is the disk full?", and every rerun failed the same way."""
    reference = train("NOPE", tiny, 0, results_root=store[0] / "reference", progress=False)
    path = checkpoint_path(tiny, "NOPE", 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "a folder":
        path.mkdir()
    else:
        (tmp_path / "elsewhere.pt").write_bytes(b"")
        path.symlink_to(tmp_path / "elsewhere.pt")
    result = retrained_after_setting_aside("NOPE", tiny, path, capsys, "damaged (not a regular file)")
    assert result["final"] == reference["final"]


def test_ctrl_c_from_the_first_line_of_the_command_is_one_line(store):
    """Break 5: Ctrl-C 0.04-0.12 s after `python -m mope` started printed a KeyboardInterrupt traceback
    and exited 1: the package imported its configuration (dataclasses) before any handler was set.
    A signal at every moment of the start: either it arrived before the package's handler was set (Python
    still starting, or the package's first lines, which decide whether it starts as the command: nothing
    can handle a signal there), or the command ends with one line and 130."""
    package = str(Path(mope.__file__).parent)
    init = Path(mope.__file__).read_text().splitlines()
    handler_line = next(n for n, line in enumerate(init, 1) if "_signal.signal(_signal.SIGINT" in line)
    handled = 0
    # 0 to 0.2 s every 5 ms, then ever longer (to 42 s) on a machine so loaded that the package is reached later;
    # the sweep ends once past 0.2 s and the package's handler has answered
    delays = [step / 200 for step in range(0, 40)] + [0.2 * 1.25**n for n in range(1, 25)]
    for delay in delays:
        if handled and delay > 0.2:
            break
        process = subprocess.Popen([sys.executable, "-m", "mope", "table", "--preset", "smoke"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   preexec_fn=as_typed_in_a_terminal)
        time.sleep(delay)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=120)
        if process.returncode == 130:
            handled += 1
            assert "Traceback" not in err and len(err.strip().splitlines()) == 1 and "interrupted" in err, err
        else:
            frames = [(path, int(line)) for path, line in re.findall(r'File "([^"]+)", line (\d+)', err)
                      if path.startswith(package)]
            assert all(path == mope.__file__ and line < handler_line for path, line in frames), (
                f"interrupted {delay:.3f} s after the start, inside the package after its handler was set:\n{err}")
    assert handled  # the sweep reached the package


def test_a_full_results_folder_names_the_file_and_the_remedy_and_the_rerun_stores_it(tiny, store, monkeypatch):
    """"No space left on device" for the results folder named neither the path nor the remedy."""
    import errno

    import mope.store.results

    def full(path, write):
        raise OSError(errno.ENOSPC, "No space left on device")

    written = mope.store.results.atomic_write
    monkeypatch.setattr(mope.store.results, "atomic_write", full)  # the results file only: checkpoints are saved
    path = result_path(tiny, "NOPE", 0)
    with pytest.raises(UserError) as error:
        train("NOPE", tiny, 0, progress=False)
    message = str(error.value)
    assert message.startswith(f"cannot write result {path} (OSError: [Errno 28] No space left on device); "
                              "the disk is full: free space there (or point --results-dir / $MOPE_RESULTS_DIR")
    assert message.endswith("run the same command again: the run's last checkpoint is kept, so it only evaluates "
                            "and stores the result")
    monkeypatch.setattr(mope.store.results, "atomic_write", written)  # room again
    steps = []
    train("NOPE", tiny, 0, on_step=steps.append, progress=False)
    assert steps == [] and load_result(tiny, "NOPE", 0) is not None  # as the message says


def test_steps_beyond_what_a_result_can_hold_are_refused_before_training(store, monkeypatch, capsys):
    """`--steps 10**23` was accepted (and trained), though the schema caps a stored run at 10^9 steps."""
    monkeypatch.setattr(mope.train.loop, "train", lambda *args, **kwargs: pytest.fail("it trained"))
    with pytest.raises(SystemExit) as exit_:
        main(["train", "NOPE", "--preset", "smoke", "--steps", str(10**23)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "steps could never be stored (a result holds at most 1,000,000,000); " \
                                     "choose 3..1000000000" in err


def test_fifty_thousand_repeated_variants_are_refused_at_once(store, capsys):
    """The repeat check compared every pair: 50,000 --variants took 82 s to be refused."""
    names = ["NOPE", "EGA-1"] * 25_000
    # each name may be compared with the registry's and a few more, never with every other name (1.25 billion pairs)
    most = (len(VARIANTS) + 2) * len(names)

    class Name(str):  # a variant's name that counts the comparisons made with it, and stops a pairwise check
        compared = 0

        def __eq__(self, other):
            Name.compared += 1
            if Name.compared > most:
                raise Interrupted(f"more than {most:,} comparisons for {len(names):,} names: a check of every pair")
            return str.__eq__(self, other)

        __hash__ = str.__hash__

    with pytest.raises(SystemExit) as exit_:
        main(["suite", "--preset", "smoke", "--variants", *map(Name, names)])
    assert exit_.value.code == 2 and Name.compared >= len(names)  # every name was checked, each one counted
    assert "--variants lists EGA-1, NOPE more than once" in capsys.readouterr().err


def test_a_folder_name_with_a_newline_cannot_forge_a_notice(store, capsys):
    """A results folder named "NOPE\\nnotice: ..." printed a line of its own."""
    from mope.store.results import report_skipped, set_aside_if_unusable

    results, _ = store
    forged = results / "smoke" / "NOPE\nnotice: all is well" / "seed0.json"
    forged.parent.mkdir(parents=True)
    forged.write_text("not json")
    report_skipped("smoke")  # what table, suite and claims print
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("notice: invalid (not shown): smoke/NOPE\\nnotice: all is well/")
    set_aside_if_unusable(forged, get_preset("smoke"), "training it again")
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and "NOPE\\nnotice: all is well" in lines[0]
    with pytest.raises(SystemExit):
        main(["table", "--preset", "smoke", "--results-dir", str(results / "gone\nnotice: all is well")])
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mope: error: --results-dir ") and "gone\\nnotice" in lines[0]


# --- issue 47: a stored field a page trusts is whole, or the file is named and left out ------------------

STORE = Path(mope.__file__).resolve().parents[1] / "results"

#: Edits of stored cpu-bpe runs that the schema lets through, and the reason the store gives for each.
PAGE_BREAKING_EDITS = {
    "PE-MORLET/seed0.json": (lambda d: d["config"]["model"].update(admissibility="straight_through"),
                             "config.model.admissibility is 'straight_through', PE-MORLET's is 'published'"),
    "PE-MORLET/seed1.json": (lambda d: d["config"]["model"].update(admissibility="sideways"),
                             "unknown admissibility mode 'sideways'; valid choices: published, straight_through, none"),
    "BASE-DOT/seed0.json": (lambda d: d["config"]["train"].update(lr=0.5), "(edited after the run was stored?)"),
    "BASE-DOT/seed1.json": (lambda d: d["provenance"].update(started="yesterday"),
                            "provenance.started: 'yesterday' is not an ISO 8601 time stamp"),
    "BASE-DOT/seed2.json": (lambda d: d["provenance"].update(finished="2026-11-30 06:10:00 UTC"),
                            "provenance.finished: '2026-11-30 06:10:00 UTC' is not an ISO 8601 time stamp"),
    "NOPE/seed0.json": (lambda d: d["provenance"].update(device="cpu\rAMD EPYC"),
                        'provenance.device: "cpu\\rAMD EPYC" holds the control character \\r'),
    "NOPE/seed1.json": (lambda d: d["config"]["model"].update(vocab_size=2048),
                        "config.model.vocab_size is 2048, NOPE's is 1024"),
    "PE-SINCOS/seed0.json": (lambda d: d["config"]["train"].update(tokenizer_sha256="0" * 64),
                             "(edited after the run was stored?)"),
}


def edit_stored(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=1))


def test_a_stored_field_no_page_can_take_is_named_and_left_out_by_the_cli_and_the_pages(store, capsys):
    """Each edit passed the schema and counted as current: the explorer stopped with ValueError on
    straight_through, the how-to-run and reproducibility pages on "yesterday", the runs CSV split a row
    on the carriage return, and an edited vocab_size or tokenizer hash still counted."""
    results, _ = store
    shutil.copytree(STORE, results)
    stored = len(list((results / "cpu-bpe").glob("*/seed*.json")))
    for name, (change, _) in PAGE_BREAKING_EDITS.items():
        edit_stored(results / "cpu-bpe" / name, change)

    main(["claims", "--preset", "cpu-bpe"])
    out, err = capsys.readouterr()
    assert f"({stored - len(PAGE_BREAKING_EDITS)} current runs)" in out
    assert len(err.splitlines()) == len(PAGE_BREAKING_EDITS)
    for name, (_, reason) in PAGE_BREAKING_EDITS.items():
        (line,) = [line for line in err.splitlines() if f" cpu-bpe/{name}: " in line]
        assert line.startswith("notice: invalid (not shown): ") and reason in line, line

    from mope.book import bokeh_page, downloads, explorer, run_records, run_times
    from mope.book.chapter_runs import BOOK_PRESETS

    table = run_records.not_shown_table(["cpu-bpe"])
    rows = [row for row in table.splitlines() if row.startswith("| `cpu-bpe` |")]
    assert len(rows) == len(PAGE_BREAKING_EDITS)
    for name, (_, reason) in PAGE_BREAKING_EDITS.items():
        variant, seed = name.removesuffix(".json").split("/seed")
        (row,) = [row for row in rows if f"| {variant} | {seed} |" in row]
        assert run_records.stored_text(reason) in row, row
    runs = {preset: results_module.load_results(preset) for preset in BOOK_PRESETS}  # what every page reads
    assert len(runs["cpu-bpe"]) == stored - len(PAGE_BREAKING_EDITS)
    run_records.preset_summary(runs)
    run_times.time_table([], runs, 2)
    bokeh_page.embed(explorer.explorer(explorer.all_points(runs)))
    table = list(csv.reader(io.StringIO(downloads.runs_csv(runs))))
    assert len(table) == 1 + sum(map(len, runs.values()))


def test_a_fifo_at_the_vocabulary_path_is_named_never_waited_on(store, tmp_path, monkeypatch, capsys):
    """A FIFO in place of the vocabulary file hung `train` and `claims --preset cpu` for good: `train` now names it
    at once, and the claims, which read stored runs alone, never open it."""
    from mope.train import subword
    from mope.train.data import DataError

    results, _ = store
    for preset in ("cpu", "cpu-bpe"):
        shutil.copytree(STORE / preset, results / preset)
    vocabularies = tmp_path / "vocabularies"
    vocabularies.mkdir()
    fifo = vocabularies / "bpe-1024.json"
    os.mkfifo(fifo)
    monkeypatch.setattr(subword, "VOCABULARY_DIR", vocabularies)

    def hung(signum, frame):
        raise Interrupted("hung on the vocabulary's FIFO")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(600)  # a hang (for good) becomes a failure, whatever the machine's load
    subword.load_tokenizer.cache_clear()
    subword._load.cache_clear()
    try:
        main(["claims", "--preset", "cpu"])  # verdicts read stored runs alone: the vocabulary is never opened
        out, err = capsys.readouterr()
        assert "subword tokens" in out and "Traceback" not in err
        with pytest.raises(DataError, match=r"not a regular file \(a FIFO\)"):
            train("NOPE", get_preset("cpu-bpe").shortened(3), 0, progress=False)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        subword.load_tokenizer.cache_clear()
        subword._load.cache_clear()


def test_two_suites_started_a_second_apart_train_each_run_once(store):
    """Without a lock each of two suites on one store trained every run (the results agreed, the time
    was spent twice). A run trained shows its own progress bar ("NOPE seed 0: 40%|..."); a suite that
    waited for the other's run says so and takes its result."""
    variants = ["NOPE", "PE-SINCOS"]
    command = [sys.executable, "-m", "mope", "suite", "--preset", "smoke", "--variants", *variants]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(1)
    second = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    outputs = [process.communicate(timeout=300) for process in (first, second)]
    assert [process.returncode for process in (first, second)] == [0, 0], outputs
    trained = {variant: [bool(re.search(rf"(?:^|[\r\n]){variant} seed 0: +\d+%", err)) for _, err in outputs]
               for variant in variants}
    assert {variant: sum(suites) for variant, suites in trained.items()} == {variant: 1 for variant in variants}, trained
    waited = sum(err.count("is stored and current; not trained again") for _, err in outputs)
    assert waited <= len(variants)
    assert len(scan("smoke").current) == len(variants)


# --- issue 57: the store two users share ------------------------------------------------------------------

def test_a_second_user_trains_on_a_shared_store_where_the_first_left_a_lock_file_only_they_may_write(tiny, store, monkeypatch):
    """A lock file opened read-write (mode 0644, never removed) locked every other user out for good: "[Errno 13]
    Permission denied: ….lock". Here the kernel's refusal is played for the second user (the tests run as root,
    whom no mode refuses): any write access to the first user's lock file is denied. The lock is taken on a
    read-only descriptor, so the second user trains and stores the run."""
    import errno

    result, checkpoint = result_path(tiny, "NOPE", 0), checkpoint_path(tiny, "NOPE", 0)
    locks = [path.with_name(path.name + ".lock") for path in (result, checkpoint)]  # where it lies, where it lay
    for lock in locks:
        lock.parent.mkdir(parents=True, exist_ok=True)
        lock.write_text("")
        lock.chmod(0o644)  # the first user's, as their run left it
    opened = os.open

    def as_the_second_user(path, flags, *args, **kwargs):
        if Path(path) in locks and flags & (os.O_WRONLY | os.O_RDWR):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return opened(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", as_the_second_user)
    train("NOPE", tiny, 0, progress=False)
    assert result.is_file()


def test_two_clones_with_their_own_checkpoint_folders_share_one_lock_per_run_and_a_stored_run_leaves_none(store, tmp_path):
    """The lock lay beside the checkpoint, so two clones sharing $MOPE_RESULTS_DIR but not their checkpoint folder
    trained every run twice. It lies beside the result: one store, one lock; and it is gone once the run is stored."""
    result = result_path(get_preset("smoke"), "NOPE", 0)
    result.parent.mkdir(parents=True)
    env = {**os.environ, "MOPE_CHECKPOINT_DIR": str(tmp_path / "other-clone-checkpoints"), "OMP_NUM_THREADS": "1"}
    with mope.store.files.run_lock(result, "NOPE seed 0 of smoke (held by this test)"):
        process = subprocess.Popen([sys.executable, "-m", "mope", "train", "NOPE", "--preset", "smoke", "--no-progress"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        waiting = process.stderr.readline()
        assert "is locked); waiting for it" in waiting and f"{result.name}.lock" in waiting, waiting
        assert not result.exists()
    _, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    assert result.is_file() and [p.name for p in result.parent.iterdir()] == [result.name]  # no lock left


def test_a_checkpoint_that_started_after_this_machines_clock_is_refused_before_step_0_naming_the_clock(tiny, store):
    """Such a run trained to its end, then refused to store ("finished … lies before started"), naming neither the
    clock nor a remedy: the training was lost. It is refused at the start, with the remedy."""
    with pytest.raises(Interrupted):
        train("NOPE", tiny, 0, on_step=stop_at(7), progress=False)
    path = checkpoint_path(tiny, "NOPE", 0)
    checkpoint = torch.load(path, weights_only=False)
    checkpoint["started"] = "2999-01-01T00:00:00+00:00"  # written by a machine whose clock runs far ahead
    torch.save(checkpoint, path)
    with pytest.raises(UserError, match=r"started at 2999-01-01T00:00:00\+00:00, after this machine's clock .*Set this "
                                        r"machine's clock right, or delete the checkpoint"):
        train("NOPE", tiny, 0, progress=False)
    assert path.is_file() and not result_path(tiny, "NOPE", 0).exists()  # nothing trained, nothing lost


HOLD_AND_MARK = """
import os, sys
from pathlib import Path
from mope.store.files import run_lock
result, marker, rounds = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for _ in range(rounds):
    with run_lock(result, "the probe's run"):
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))  # FileExistsError: another holds it too
        os.unlink(marker)
"""


def test_no_two_processes_ever_hold_a_runs_lock_at_once(tmp_path):
    """Issue 75: a waiter that saw the lock file vanish between two looks (its holder's run over) took the next
    holder's new lock file for a folder and set it aside, and both held the run (3-5 of 40 trials). Four processes
    take and give back one run's lock 1,000 times each; while holding it each creates a file no other may hold."""
    result, marker = tmp_path / "seed0.json", tmp_path / "held"
    processes = [subprocess.Popen([sys.executable, "-c", HOLD_AND_MARK, str(result), str(marker), "1000"],
                                  stderr=subprocess.PIPE, text=True) for _ in range(4)]
    errors = [process.communicate(timeout=300)[1] for process in processes]
    assert [process.returncode for process in processes] == [0] * 4, errors
    assert list(tmp_path.iterdir()) == []  # no lock left, none set aside
