"""Runs and results that survive mistakes: a rehearsal never touches real work, a damaged file is named
and handled, and every error a user can cause is one clear message."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

import mope.suite
from interruptions import Interrupted, stop_at
from mope.cli import main
from mope.errors import ConfigError, UserError
from mope.presets import get_preset
from mope.results import expected_hash, load_result, result_path, scan, write_result
from mope.suite import ensure_results
from mope.training import checkpoint_path, train
from mope.variants import variant_config


def fake_result(preset, variant, seed, val, changes=None):
    """A schema-1 result with made-up losses, current for ``preset`` unless ``changes`` say otherwise."""
    result = {"schema": 1, "variant": variant, "preset": preset.name, "seed": seed,
              "config_hash": expected_hash(preset, variant),
              "config": {"model": variant_config(variant, preset.shape()).to_dict(), "train": preset.to_dict()},
              "provenance": {}, "history": [], "final": {"val_loss": val, "val_loss_full": val}}
    result.update(changes or {})
    return result


def mope_command(*args, env=None, **kwargs):
    return subprocess.run([sys.executable, "-m", "mope", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})}, **kwargs)


# --- 1, 2, 7: rehearsals and custom configurations never touch a preset's work -----------------------

def test_rehearsal_after_an_interrupted_run_keeps_its_checkpoint_and_stored_result(store):
    smoke = get_preset("smoke")
    write_result(fake_result(smoke, "NOPE", 1, 3.25))  # a finished run of the preset
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
    write_result(fake_result(smoke, "EGA-1", 0, 3.1832))
    write_result(fake_result(smoke, "EGA-1", 1, 3.9015, {"config_hash": "0123456789abcdef"}))
    main(["table", "--preset", "smoke"])
    table = capsys.readouterr()
    row = next(line for line in table.out.splitlines() if line.startswith("EGA-1 "))
    assert "3.1832 (n=1)" in row and "3.9015" not in table.out
    assert "stale (not shown): smoke/EGA-1/seed1.json: configuration 0123456789abcdef" in table.err


# --- 3: damaged results files ----------------------------------------------------------------------

DAMAGED = {
    "truncated": lambda good: good[: len(good) // 2],
    "not JSON": lambda good: "not json at all",
    "wrong schema": lambda good: json.dumps({**json.loads(good), "schema": 7}),
    "no final": lambda good: json.dumps({k: v for k, v in json.loads(good).items() if k != "final"}),
    "final without a number": lambda good: json.dumps({**json.loads(good), "final": {"val_loss": None}}),
    "a list": lambda good: "[1, 2]",
}


@pytest.mark.parametrize("damage", DAMAGED)
def test_a_damaged_results_file_is_named_skipped_then_set_aside_and_retrained(store, damage, monkeypatch, capsys):
    smoke = get_preset("smoke")
    write_result(fake_result(smoke, "BASE-DOT", 0, 2.5))
    path = write_result(fake_result(smoke, "EGA-1", 0, 2.0))
    path.write_text(DAMAGED[damage](path.read_text()))

    found = scan("smoke")
    assert [r["variant"] for r in found.current] == ["BASE-DOT"]
    assert [r.path for r in found.invalid] == [path]
    main(["table", "--preset", "smoke"])
    table = capsys.readouterr()
    assert "BASE-DOT" in table.out and "invalid (not shown): smoke/EGA-1/seed0.json: " in table.err

    trained = []
    monkeypatch.setattr(mope.suite, "train", lambda variant, preset, seed, **kw: (
        trained.append((variant, seed)), write_result(fake_result(preset, variant, seed, 1.5), kw["results_root"])))
    ensure_results("smoke", ["BASE-DOT", "EGA-1"], [0], progress=False)
    assert trained == [("EGA-1", 0)]
    assert len(list(path.parent.glob("seed0.json.set-aside-*"))) == 1  # the damaged file is kept aside
    assert load_result(smoke, "EGA-1", 0)["final"]["val_loss"] == 1.5


@pytest.mark.parametrize("misfiled, reason", [
    (dict(variant="BASE-DOT"), "holds a run of BASE-DOT, filed under EGA-1"),
    (dict(seed=3), "holds seed 3, filed as seed 0"),
    (dict(preset="cpu"), "holds a run of preset 'cpu', filed under 'smoke'"),
])
def test_a_misfiled_result_is_invalid(store, misfiled, reason):
    smoke = get_preset("smoke")
    path = result_path(smoke, "EGA-1", 0)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(fake_result(smoke, "EGA-1", 0, 2.0, misfiled)))
    found = scan("smoke")
    assert found.current == [] and [r.reason for r in found.invalid] == [reason]


def test_only_seed_files_count(store):
    smoke = get_preset("smoke")
    path = write_result(fake_result(smoke, "EGA-1", 0, 2.0))
    (path.parent / "seed0.orig.json").write_text(path.read_text())
    (path.parent / "seed01.json").write_text(path.read_text())
    assert [(r["variant"], r["seed"]) for r in scan("smoke").current] == [("EGA-1", 0)]


def test_former_name_of_a_renamed_preset_still_counts(store):
    short = get_preset("cpu-short")
    as_stored = fake_result(short.replace(name="cpu"), "NOPE", 0, 2.36)  # stored before the rename
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


@pytest.mark.parametrize("damage", ["garbage bytes", "non-finite weights"])
def test_a_damaged_checkpoint_is_set_aside_once_and_the_run_starts_over(tiny, store, damage, capsys):
    with pytest.raises(Interrupted):
        train("NOPE", tiny, 0, on_step=stop_at(7), progress=False)
    path = checkpoint_path(tiny, "NOPE", 0)
    if damage == "garbage bytes":
        path.write_bytes(b"\x00 this is not a checkpoint")
    else:
        poison_weights(path)
    steps = []
    train("NOPE", tiny, 0, on_step=steps.append, progress=False)
    notice = capsys.readouterr().err
    assert steps[0] == 0 and f"checkpoint {path} is damaged" in notice and "starting this run from step 0" in notice
    assert len(list(path.parent.glob(path.name + ".set-aside-*"))) == 1
    assert load_result(tiny, "NOPE", 0) is not None


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
])
def test_user_errors_are_one_line_without_a_traceback(store, args, env, message, monkeypatch, capsys):
    store[0].mkdir()
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as exit_:
        main(args)
    err = capsys.readouterr().err
    assert exit_.value.code in (1, 2)
    assert message in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if "error" in line]) == 1


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
    run = mope_command("train", "NOPE", "--preset", "smoke", "--device", "cpux", "--debug")
    assert run.returncode == 2 and "Traceback" in run.stderr and "unknown device 'cpux'" in run.stderr


def test_a_diverging_run_is_one_message(store, monkeypatch, capsys):
    from mope import training

    def diverge(*args, **kwargs):
        raise training.NonFiniteLoss("training loss is nan at step 3 of NOPE (preset smoke, seed 0); the run is stopped")

    monkeypatch.setattr(training, "train", diverge)
    with pytest.raises(SystemExit) as exit_:
        main(["train", "NOPE", "--preset", "smoke"])
    assert exit_.value.code == 1 and capsys.readouterr().err == (
        "mope: error: training loss is nan at step 3 of NOPE (preset smoke, seed 0); the run is stopped\n")


def wait_for(condition, seconds=120):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError
        time.sleep(0.2)


def test_ctrl_c_is_one_message_and_the_run_resumes_later(store):
    _, checkpoints = store
    process = subprocess.Popen([sys.executable, "-m", "mope", "train", "NOPE", "--preset", "smoke", "--no-progress"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: any(checkpoints.rglob("*.pt")))
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130 and "Traceback" not in err
    assert "a run resumes from its last checkpoint" in err


def test_a_closed_pipe_ends_quietly(store):
    write_result(fake_result(get_preset("smoke"), "EGA-1", 0, 2.0))
    process = subprocess.Popen([sys.executable, "-m", "mope", "table", "--preset", "smoke"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # the reader (think `| head -0`) is gone before the table is printed
    err = process.stderr.read().decode()
    process.wait(timeout=120)
    assert process.returncode == 141 and err == ""


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


def test_sigterm_to_a_two_job_suite_leaves_no_process_and_no_log(store, tmp_path):
    results, checkpoints = store
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    suite = subprocess.Popen([sys.executable, "-m", "mope", "suite", "--preset", "smoke", "--seeds", "0",
                              "--variants", "BASE-DOT", "EGA-1", "--jobs", "2", "--no-progress"],
                             env={**os.environ, "TMPDIR": str(temporary)},
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: len(processes_mentioning(str(results))) >= 2)  # its two runs (the suite itself reads the env)
    suite.send_signal(signal.SIGTERM)
    _, err = suite.communicate(timeout=120)
    assert suite.returncode == 130 and "terminated by signal 15" in err and "Traceback" not in err
    assert processes_mentioning(str(results)) == []
    assert list(temporary.iterdir()) == []
