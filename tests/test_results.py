"""The results store: layout, configuration hash, reuse of what is current, retraining of what is stale."""
import json

import pytest

import mope
import mope.suite
from mope.presets import get_preset
from mope.results import (
    config_hash, expected_hash, load_result, load_results, result_path, results_root, summary_table, write_result,
)
from mope.suite import ensure_results
from mope.variants import variant_config


def _fake_result(preset, variant, seed, val, full=None, config_hash=None):
    """A schema-1 result with made-up losses (the store's tests need no training)."""
    return {"schema": 1, "variant": variant, "preset": preset.name, "seed": seed,
            "config_hash": config_hash or expected_hash(preset, variant),
            "config": {"model": variant_config(variant, preset.shape()).to_dict(), "train": preset.to_dict()},
            "provenance": {}, "history": [],
            "final": {"val_loss": val, "val_loss_full": full if full is not None else val + 0.01}}


def test_default_root_is_the_repository_results_directory(monkeypatch, tmp_path):
    monkeypatch.delenv("MOPE_RESULTS_DIR", raising=False)
    from pathlib import Path
    assert results_root() == Path(mope.__file__).resolve().parents[1] / "results"
    monkeypatch.setenv("MOPE_RESULTS_DIR", str(tmp_path))
    assert result_path("cpu", "EGA-1", 2) == tmp_path / "cpu" / "EGA-1" / "seed2.json"


def test_hash_covers_what_changes_the_numbers_only():
    cpu = get_preset("cpu")
    model = variant_config("EGA-1", cpu.shape())
    assert config_hash(model, cpu) == config_hash(model, cpu.replace(compile=True, checkpoint_interval=7))
    assert config_hash(model, cpu) != config_hash(model, cpu.replace(lr=3e-4))
    assert config_hash(model, cpu) != config_hash(variant_config("EGA-1-CAUSAL", cpu.shape()), cpu)


def test_write_is_atomic_and_loads_back(store):
    smoke = get_preset("smoke")
    path = write_result(_fake_result(smoke, "EGA-1", 0, 2.0))
    assert path == result_path("smoke", "EGA-1", 0) and [p.name for p in path.parent.iterdir()] == ["seed0.json"]
    write_result(_fake_result(smoke, "BASE-DOT", 1, 2.5))
    write_result(_fake_result(smoke, "BASE-DOT", 0, 2.4))
    assert [(r["variant"], r["seed"]) for r in load_results("smoke")] == [("BASE-DOT", 0), ("BASE-DOT", 1), ("EGA-1", 0)]
    assert load_result("smoke", "EGA-1", 0)["final"]["val_loss"] == 2.0 and load_result("smoke", "EGA-1", 5) is None


def test_current_results_are_reused_and_stale_ones_retrained(store, monkeypatch, capsys):
    smoke = get_preset("smoke")
    trained = []

    def fake_train(variant, preset, seed, results_root=None, data_path=None, progress=True):
        trained.append((variant, seed))
        write_result(_fake_result(preset, variant, seed, 1.5), results_root)

    monkeypatch.setattr(mope.suite, "train", fake_train)
    write_result(_fake_result(smoke, "BASE-DOT", 0, 2.0))
    write_result(_fake_result(smoke, "EGA-1", 0, 2.0, config_hash="0123456789abcdef"))
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

    def fake_train(variant, preset, seed, results_root=None, data_path=None, progress=True):
        trained.append((variant, seed))
        write_result(_fake_result(preset, variant, seed, 1.5), results_root)

    monkeypatch.setattr(mope.suite, "train", fake_train)
    dirty = _fake_result(evidence, "BASE-DOT", 0, 2.0)
    dirty["provenance"] = {"git_commit": "0123456789abcdef", "git_dirty": True}
    write_result(dirty)
    assert load_results("cpu-short") == [] and load_result("cpu-short", "BASE-DOT", 0) is None
    results = ensure_results("cpu-short", ["BASE-DOT"], [0], progress=False)
    assert trained == [("BASE-DOT", 0)] and [r["final"]["val_loss"] for r in results] == [1.5]
    assert "made from uncommitted code" in capsys.readouterr().err
    smoke = get_preset("smoke")
    write_result(dict(_fake_result(smoke, "BASE-DOT", 0, 2.0), provenance=dirty["provenance"]))
    assert [r["final"]["val_loss"] for r in load_results("smoke")] == [2.0]


def test_summary_table_mean_sd_n():
    smoke = get_preset("smoke")
    rows = summary_table([_fake_result(smoke, "EGA-1", s, v) for s, v in enumerate([1.0, 2.0, 3.0])]
                         + [_fake_result(smoke, "NOPE", 0, 4.0)])
    ega, nope = rows
    assert ega["variant"] == "EGA-1" and ega["paper_val"] == 1.3821
    assert ega["val_loss"] == {"mean": 2.0, "sd": 1.0, "n": 3}
    assert ega["val_loss_full"]["mean"] == pytest.approx(2.01)
    assert nope["paper_val"] is None and nope["val_loss"] == {"mean": 4.0, "sd": None, "n": 1}


def test_stored_result_follows_schema_1(tiny, store):
    result = mope.suite.train("PE-MORLET", tiny.replace(steps=3, warmup=1, eval_interval=2), 0, progress=False)
    stored = json.loads(result_path(tiny, "PE-MORLET", 0).read_text())
    assert stored == json.loads(json.dumps(result))
    assert set(stored) == {"schema", "variant", "preset", "seed", "config", "config_hash", "provenance",
                           "num_parameters", "history", "train_curve", "final", "learned"}
    assert set(stored["provenance"]) == {"git_commit", "git_dirty", "torch", "python", "device", "started",
                                         "finished", "wall_time_s", "tokens_per_s", "world_size", "throughput"}
    assert set(stored["final"]) == {"val_loss", "train_loss", "val_loss_full", "val_loss_full_by_context",
                                    "extrapolation_note", "val_loss_full_causal_stats"}
    assert stored["provenance"]["device"].startswith("cpu: ") and stored["provenance"]["world_size"] == 1
    assert [h["step"] for h in stored["history"]] == [0, 2] and stored["history"][0]["lr"] == 0.0
    assert stored["train_curve"][0][0] == 0 and stored["train_curve"][-1][0] == 2
    assert set(stored["final"]["val_loss_full_by_context"]) == {"1x", "2x"}
    assert len(stored["learned"]["morlet"]["omega"]) == tiny.n_embd // 2


def test_parallel_jobs_refuse_a_configuration_that_is_not_a_registered_preset(tiny, store):
    with pytest.raises(ValueError, match="jobs=1"):
        ensure_results(tiny, ["BASE-DOT"], [0], jobs=2, progress=False)
