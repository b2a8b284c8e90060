"""The command line: the smoke suite end to end in subprocesses, Table 2, and argument errors."""
import json
import subprocess
import sys

import pytest

from mope.cli import main
from mope.presets import PRESETS
from mope.results import load_results


def _mope(*args):
    return subprocess.run([sys.executable, "-m", "mope", *args], capture_output=True, text=True, timeout=300)


def test_smoke_suite_end_to_end(store):
    results, checkpoints = store
    suite = _mope("suite", "--preset", "smoke", "--seeds", "0", "--variants", "BASE-DOT", "EGA-1",
                  "--jobs", "2", "--no-progress")
    assert suite.returncode == 0, suite.stderr
    stored = load_results("smoke")
    assert [(r["variant"], r["seed"]) for r in stored] == [("BASE-DOT", 0), ("EGA-1", 0)]
    assert all(r["provenance"]["device"].endswith("1 thread") for r in stored)
    assert not any(checkpoints.rglob("*.pt"))
    before = (results / "smoke" / "EGA-1" / "seed0.json").stat().st_mtime_ns

    table = _mope("table", "--preset", "smoke")
    assert table.returncode == 0, table.stderr
    ega = next(line for line in table.stdout.splitlines() if line.startswith("EGA-1 "))
    assert "1.3821" in ega and f"{stored[1]['final']['val_loss']:.4f} (n=1)" in ega
    assert "PE-SINCOS" not in table.stdout

    again = _mope("suite", "--preset", "smoke", "--seeds", "0", "--variants", "EGA-1", "--no-progress")
    assert again.returncode == 0 and (results / "smoke" / "EGA-1" / "seed0.json").stat().st_mtime_ns == before
    assert json.loads((results / "smoke" / "EGA-1" / "seed0.json").read_text())["final"] == stored[1]["final"]


@pytest.mark.parametrize("args, listed", [
    (["train", "EGA-2", "--preset", "smoke"], "EGA-1-CAUSAL"),
    (["suite", "--preset", "gpu"], ", ".join(repr(name) for name in PRESETS)),
    (["suite", "--variants", "BASE-DOT", "NOPE2"], "MORLET-ROPE-REL"),
])
def test_bad_arguments_list_the_valid_choices(args, listed, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(args)
    assert exit_.value.code == 2 and listed in capsys.readouterr().err


def test_table_without_results_says_how_to_make_them(store, capsys):
    store[0].mkdir()
    with pytest.raises(SystemExit):
        main(["table", "--preset", "smoke"])
    assert "python -m mope suite --preset smoke" in capsys.readouterr().err


def test_claims_json_is_the_claim_records_and_the_files_left_out(store, capsys):
    from mope.claims import claim_records

    store[0].mkdir()
    main(["claims", "--preset", "smoke", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"preset", "current_runs", "claims", "skipped"}
    assert report["preset"] == "smoke" and report["current_runs"] == 0 and report["skipped"] == []
    claims = report["claims"]
    assert claims == json.loads(json.dumps(claim_records("smoke"), ensure_ascii=False))
    assert len(claims) >= 10
    assert all({"claim", "section", "kind", "paper", "ours", "sd", "n", "verdict", "outcome", "size", "interval",
                "seeds_needed", "loss", "caveat"} <= set(c) for c in claims)
    assert {c["kind"] for c in claims} <= {"ordering", "size", "equivalence", "every", "mechanism"}
    assert all(c["verdict"] == "not run" and c["n"] == 0 for c in claims)  # an empty store judges nothing


def test_claims_table_states_the_rule(store, capsys):
    store[0].mkdir()
    main(["claims", "--preset", "smoke"])
    out = capsys.readouterr().out
    assert out.startswith("The paper's claims against preset 'smoke' (0 current runs)")
    assert "indicative: One seed: no interval, no verdict" in out
