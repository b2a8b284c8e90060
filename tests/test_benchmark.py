"""The throughput benchmark runs (quick mode, tiny shape, two variants) and reports ratios to BASE-DOT."""
import importlib.util
import json
import math
import sys
import time
from pathlib import Path

BENCHMARK = Path(__file__).resolve().parents[1] / "benchmarks" / "throughput.py"


def load_benchmark():
    spec = importlib.util.spec_from_file_location("throughput", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    sys.modules["throughput"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_quick_benchmark_reports_ratios_to_base_dot(tmp_path, capsys):
    """Budget: under 60 s on two shared cores (a few seconds when the machine is idle)."""
    started = time.perf_counter()
    out = tmp_path / "bench.json"
    results = load_benchmark().main(["--quick", "--shapes", "smoke", "--variants", "BASE-DOT", "PE-MORLET",
                                     "--repeats", "2", "--threads", "1", "--device", "cpu", "--json", str(out)])
    assert time.perf_counter() - started < 60
    rows = results["shapes"]["smoke"]["rows"]
    assert set(rows) == {"BASE-DOT", "PE-MORLET", "REFERENCE"}
    assert rows["BASE-DOT"]["ratio"] == 1.0
    for row in rows.values():
        assert row["tokens_per_s"] > 0 and math.isfinite(row["ratio"]) and row["ratio"] > 0
    # same architecture, same parameter count (fused QKV has the same number of weights)
    assert rows["REFERENCE"]["parameters"] == rows["BASE-DOT"]["parameters"]
    assert json.loads(out.read_text())["shapes"]["smoke"]["rows"].keys() == rows.keys()
    assert "PE-MORLET" in capsys.readouterr().out


def test_forward_benchmark_times_every_requested_variant_against_base_dot():
    spec = importlib.util.spec_from_file_location("forward", BENCHMARK.with_name("forward.py"))
    forward = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(forward)
    summary = forward.main(["--batch", "1", "--context", "16", "--rounds", "2", "--threads", "1",
                            "--variants", "PE-MORLET", "EGA-1"])
    assert list(summary) == ["BASE-DOT", "PE-MORLET", "EGA-1"]
    assert summary["BASE-DOT"][1] == 1.0
    assert all(ms > 0 and ratio > 0 for ms, ratio in summary.values())
