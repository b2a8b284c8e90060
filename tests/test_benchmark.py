"""The throughput benchmarks: they run (quick mode, tiny shape), and their ratios to BASE-DOT are the
right ratios of the right timings (checked with timings made up for the test)."""
import importlib.util
import json
import math
import sys
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).resolve().parents[1] / "benchmarks" / "throughput.py"


def load_benchmark(name: str = "throughput"):
    spec = importlib.util.spec_from_file_location(name, BENCHMARK.with_name(f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_quick_benchmark_reports_ratios_to_base_dot(tmp_path, capsys):
    """A few seconds on an idle machine (timed by nothing here: a test never depends on the machine's speed)."""
    out = tmp_path / "bench.json"
    results = load_benchmark().main(["--quick", "--shapes", "smoke", "--variants", "BASE-DOT", "PE-MORLET",
                                     "--repeats", "2", "--threads", "1", "--device", "cpu", "--json", str(out)])
    rows = results["shapes"]["smoke"]["rows"]
    assert set(rows) == {"BASE-DOT", "PE-MORLET", "REFERENCE"}
    for row in rows.values():
        assert row["tokens_per_s"] > 0 and math.isfinite(row["ratio"]) and row["ratio"] > 0
    # same architecture, same parameter count (fused QKV has the same number of weights)
    assert rows["REFERENCE"]["parameters"] == rows["BASE-DOT"]["parameters"]
    assert json.loads(out.read_text())["shapes"]["smoke"]["rows"].keys() == rows.keys()
    assert "PE-MORLET" in capsys.readouterr().out


def test_throughput_ratio_is_each_models_speed_over_base_dots_round_by_round(monkeypatch):
    """Made-up step times, round by round: PE-MORLET takes 2x BASE-DOT's time in every round, the
    reference 0.8x, so their throughput ratios are 0.5 and 1.25 whatever the machine's drift."""
    throughput = load_benchmark()
    step_seconds = {"BASE-DOT": 0.010, "PE-MORLET": 0.020, "REFERENCE": 0.008}
    rounds = {}

    def timed(runner, device, steps):  # every model slows down by the same factor from round to round
        rounds[runner.name] = rounds.get(runner.name, 0) + 1
        return step_seconds[runner.name] * (1 + rounds[runner.name])

    monkeypatch.setattr(throughput, "timed", timed)
    results = throughput.main(["--quick", "--shapes", "smoke", "--variants", "BASE-DOT", "PE-MORLET",
                               "--repeats", "3", "--threads", "1", "--device", "cpu", "--no-memory"])
    rows = results["shapes"]["smoke"]["rows"]
    assert rows["PE-MORLET"]["ratio"] == pytest.approx(0.5) and rows["REFERENCE"]["ratio"] == pytest.approx(1.25)
    assert rows["BASE-DOT"]["ratio"] == pytest.approx(1.0)
    # call 1 is the warm-up, calls 2-4 the timed rounds (3x, 4x, 5x the step time): the median is 4x;
    # the smoke shape is a batch of 8 windows of 32 tokens
    assert rounds == {"BASE-DOT": 4, "PE-MORLET": 4, "REFERENCE": 4}
    assert rows["PE-MORLET"]["tokens_per_s"] == pytest.approx(8 * 32 / (4 * 0.020))
    assert rows["PE-MORLET"]["ms_per_step"] == pytest.approx(4 * 20.0)


def test_forward_benchmark_reports_time_ratios_to_base_dot(monkeypatch):
    """Made-up forward times by model: PE-MORLET 1.5x BASE-DOT's, EGA-1 2x; the ratios say so."""
    forward = load_benchmark("forward")
    milliseconds = {("morlet", "none"): 15.0, ("learned", "ega"): 20.0, ("learned", "none"): 10.0}
    monkeypatch.setattr(forward, "forward_ms", lambda model, idx: milliseconds[(model.config.absolute, model.config.gate)])
    summary = forward.main(["--batch", "1", "--context", "16", "--rounds", "3", "--threads", "1",
                            "--variants", "PE-MORLET", "EGA-1"])
    assert summary == {"BASE-DOT": (10.0, 1.0), "PE-MORLET": (15.0, 1.5), "EGA-1": (20.0, 2.0)}


def test_forward_benchmark_times_every_requested_variant_against_base_dot():
    forward = load_benchmark("forward")
    summary = forward.main(["--batch", "1", "--context", "16", "--rounds", "2", "--threads", "1",
                            "--variants", "PE-MORLET", "EGA-1"])
    assert list(summary) == ["BASE-DOT", "PE-MORLET", "EGA-1"]
    assert all(ms > 0 and ratio > 0 for ms, ratio in summary.values())
