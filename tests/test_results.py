"""The results store: layout, configuration hash, reuse of what is current, retraining of what is stale."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import mope
import mope.train.suite
from mope.store.presets import PRESETS, get_preset
from mope.store.results import config_hash, expected_hash, load_result, load_results, result_path, results_root, write_result
from mope.train.suite import ensure_results
from mope.model.variants import VARIANTS, variant_config
from synthetic_runs import PLACEHOLDER_HASH, expected_config_hash, run


def test_default_store_is_the_checkouts_results_folder_and_the_environment_overrides_it(monkeypatch, tmp_path):
    monkeypatch.delenv("MOPE_RESULTS_DIR", raising=False)
    monkeypatch.chdir(tmp_path)  # not where a checkout keeps its store
    checkout = Path(mope.__file__).resolve().parents[1]
    assert results_root() == checkout / "results" and (checkout / "results" / "cpu").is_dir()
    monkeypatch.setenv("MOPE_RESULTS_DIR", str(tmp_path))
    assert result_path("cpu", "EGA-1", 2) == tmp_path / "cpu" / "EGA-1" / "seed2.json"


def test_an_installed_package_keeps_results_and_checkpoints_in_the_current_directory(tmp_path):
    """A copy of the package in a folder without pyproject.toml (site-packages after `pip install .`)
    must not write into that folder: its default store and checkpoints are under the current directory."""
    site, work = tmp_path / "site-packages", tmp_path / "work"
    shutil.copytree(Path(mope.__file__).parent, site / "mope", ignore=shutil.ignore_patterns("__pycache__"))
    work.mkdir()
    environment = {k: v for k, v in os.environ.items() if k not in ("MOPE_RESULTS_DIR", "MOPE_CHECKPOINT_DIR")}
    script = ("import mope, mope.store.results, mope.train.checkpoints\n"
              "print(mope.__file__); print(mope.store.results.results_root()); print(mope.train.checkpoints.checkpoint_root())")
    done = subprocess.run([sys.executable, "-c", script], cwd=work, capture_output=True, text=True, timeout=300,
                          env={**environment, "PYTHONPATH": str(site)})
    assert done.returncode == 0, done.stderr
    package, results, checkpoints = done.stdout.split()
    assert Path(package).parent == site / "mope"
    assert (Path(results), Path(checkpoints)) == (work / "results", work / "checkpoints")


def test_fixture_hashes_follow_the_rule_the_stored_runs_were_made_with():
    """tests/synthetic_runs.py computes the hash from the documented rule, independently of mope.store.results;
    both agree on every variant and preset, and with runs trained before this test existed."""
    for preset in (*PRESETS.values(), get_preset("smoke").shortened(60)):
        for variant in VARIANTS:
            assert expected_config_hash(variant, preset) == expected_hash(preset, variant), (preset.name, variant)
    assert expected_config_hash("PE-MORLET", get_preset("smoke").shortened(60)) == "ad523465e39b4491"
    stored = json.loads((Path(mope.__file__).resolve().parents[1] / "results/cpu/BASE-DOT/seed0.json").read_text())
    assert expected_config_hash("BASE-DOT", get_preset("cpu")) == stored["config_hash"]


def test_hash_covers_what_changes_the_numbers_only():
    cpu = get_preset("cpu")
    model = variant_config("EGA-1", cpu.shape())
    assert config_hash(model, cpu) == config_hash(model, cpu.replace(compile=True, checkpoint_interval=7))
    assert config_hash(model, cpu) != config_hash(model, cpu.replace(lr=3e-4))
    assert config_hash(model, cpu) != config_hash(variant_config("EGA-1-CAUSAL", cpu.shape()), cpu)


def test_write_is_atomic_and_loads_back(store):
    smoke = get_preset("smoke")
    path = write_result(run("EGA-1", 0, 2.0, preset=smoke))
    assert path == result_path("smoke", "EGA-1", 0) and [p.name for p in path.parent.iterdir()] == ["seed0.json"]
    write_result(run("BASE-DOT", 1, 2.5, preset=smoke))
    write_result(run("BASE-DOT", 0, 2.4, preset=smoke))
    assert [(r["variant"], r["seed"]) for r in load_results("smoke")] == [("BASE-DOT", 0), ("BASE-DOT", 1), ("EGA-1", 0)]
    assert load_result("smoke", "EGA-1", 0)["final"]["val_loss"] == 2.0 and load_result("smoke", "EGA-1", 5) is None


def test_a_file_changed_in_place_is_validated_afresh_not_from_what_was_read_before(store):
    from mope.store.results import read_result

    path = write_result(run("EGA-1", 0, 2.0, preset=get_preset("smoke")))
    assert read_result(path)[1] is None and read_result(path)[1] is None  # read twice: the same answer
    broken = json.loads(path.read_text())
    broken["final"]["val_loss"] = "low"
    path.write_text(json.dumps(broken))
    data, reason = read_result(path)
    assert data is None and reason.startswith("damaged: final.val_loss: 'low' is not of type")
    assert load_results("smoke") == []


def test_current_results_are_reused_and_stale_ones_retrained(store, monkeypatch, capsys):
    smoke = get_preset("smoke")
    trained = []

    def fake_train(variant, preset, seed, results_root=None, data_path=None, progress=True, unless_stored=False):
        trained.append((variant, seed))
        write_result(run(variant, seed, 1.5, preset=preset), results_root)

    monkeypatch.setattr(mope.train.suite, "train", fake_train)
    write_result(run("BASE-DOT", 0, 2.0, preset=smoke))
    write_result(run("EGA-1", 0, 2.0, preset=smoke, changes={"config_hash": PLACEHOLDER_HASH}))
    results = ensure_results("smoke", ["BASE-DOT", "EGA-1"], [0, 1], progress=False)
    assert trained == [("BASE-DOT", 1), ("EGA-1", 0), ("EGA-1", 1)]
    assert [r["final"]["val_loss"] for r in results] == [2.0, 1.5, 1.5, 1.5]
    notice = capsys.readouterr().err
    assert "stale" in notice and "0123456789abcdef" in notice and "moved to seed0.json.set-aside-" in notice
    assert len(list((store[0] / "smoke" / "EGA-1").glob("seed0.json.set-aside-*"))) == 1  # kept, not deleted
    trained.clear()
    ensure_results("smoke", ["BASE-DOT", "EGA-1"], [0, 1], progress=False)
    assert trained == []


def test_a_run_of_uncommitted_code_is_stale_and_retrained(store, monkeypatch, capsys):
    evidence = get_preset("cpu-short")  # one of the book's presets; a smoke run counts either way
    trained = []

    def fake_train(variant, preset, seed, results_root=None, data_path=None, progress=True, unless_stored=False):
        trained.append((variant, seed))
        write_result(run(variant, seed, 1.5, preset=preset), results_root)

    monkeypatch.setattr(mope.train.suite, "train", fake_train)
    dirty = run("BASE-DOT", 0, 2.0, preset=evidence)
    dirty["provenance"] = {**dirty["provenance"], "git_dirty": True}
    write_result(dirty)
    assert load_results("cpu-short") == [] and load_result("cpu-short", "BASE-DOT", 0) is None
    results = ensure_results("cpu-short", ["BASE-DOT"], [0], progress=False)
    assert trained == [("BASE-DOT", 0)] and [r["final"]["val_loss"] for r in results] == [1.5]
    assert "made from uncommitted code" in capsys.readouterr().err
    smoke = get_preset("smoke")
    write_result(dict(run("BASE-DOT", 0, 2.0, preset=smoke), provenance=dirty["provenance"]))
    assert [r["final"]["val_loss"] for r in load_results("smoke")] == [2.0]


def test_stored_result_follows_schema_1(tiny, store):
    result = mope.train.suite.train("PE-MORLET", tiny.replace(steps=3, warmup=1, eval_interval=2), 0, progress=False)
    stored = json.loads(result_path(tiny, "PE-MORLET", 0).read_text())
    assert stored == json.loads(json.dumps(result))
    assert set(stored) == {"schema", "variant", "preset", "seed", "config", "config_hash", "provenance",
                           "num_parameters", "history", "train_curve", "final", "learned"}
    assert set(stored["provenance"]) == {"git_commit", "git_dirty", "torch", "python", "device", "started",
                                         "finished", "wall_time_s", "tokens_per_s", "world_size", "throughput",
                                         "cpu_capability", "threads"}
    assert set(stored["final"]) == {"val_loss", "train_loss", "val_loss_full", "val_loss_full_by_context",
                                    "extrapolation_note", "val_loss_full_causal_stats"}
    assert stored["provenance"]["device"].startswith("cpu: ") and stored["provenance"]["world_size"] == 1
    assert stored["provenance"]["cpu_capability"] == torch.backends.cpu.get_cpu_capability()
    assert stored["provenance"]["threads"] == torch.get_num_threads()
    assert [h["step"] for h in stored["history"]] == [0, 2] and stored["history"][0]["lr"] == 0.0
    assert stored["train_curve"][0][0] == 0 and stored["train_curve"][-1][0] == 2
    assert set(stored["final"]["val_loss_full_by_context"]) == {"1x", "2x"}
    assert len(stored["learned"]["morlet"]["omega"]) == tiny.n_embd // 2


def test_parallel_jobs_refuse_a_configuration_that_is_not_a_registered_preset(tiny, store):
    with pytest.raises(ValueError, match="jobs=1"):
        ensure_results(tiny, ["BASE-DOT"], [0], jobs=2, progress=False)


def test_a_linked_folder_in_the_store_is_named_and_not_followed(store, tmp_path):
    """Issue 57: a symbolic link to a folder of runs elsewhere was followed, its runs shown as the store's own."""
    from mope.store.results import scan, write_result
    from synthetic_runs import run as made_up

    smoke = get_preset("smoke")
    elsewhere = tmp_path / "elsewhere" / "NOPE"
    elsewhere.mkdir(parents=True)
    (elsewhere / "seed0.json").write_text(json.dumps(made_up("NOPE", 0, 2.0, preset=smoke)))
    write_result(made_up("BASE-DOT", 0, 2.0, preset=smoke))
    os.symlink(elsewhere, store[0] / "smoke" / "NOPE")
    found = scan("smoke")
    assert [r["variant"] for r in found.current] == ["BASE-DOT"]
    (rejected,) = found.invalid
    assert rejected.path.name == "NOPE" and "a linked folder" in rejected.reason and "not followed" in rejected.reason
