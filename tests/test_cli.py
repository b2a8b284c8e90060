"""The command line: the smoke suite end to end in subprocesses, Table 2, and argument errors."""
import json
import subprocess
import sys

import pytest
import torch

from mope.cli import EXIT_ERROR, main
from mope.store.presets import PRESETS, get_preset
from mope.store.results import expected_hash, load_results, write_result
from mope.train.devices import core_count
from synthetic_runs import PLACEHOLDER_HASH, run


def _mope(*args):
    return subprocess.run([sys.executable, "-m", "mope", *args], capture_output=True, text=True, timeout=300)


def test_smoke_suite_end_to_end(store):
    results, checkpoints = store
    suite = _mope("suite", "--preset", "smoke", "--seeds", "0", "--variants", "BASE-DOT", "EGA-1",
                  "--jobs", "2", "--no-progress")
    assert suite.returncode == 0, suite.stderr
    stored = load_results("smoke")
    assert [(r["variant"], r["seed"]) for r in stored] == [("BASE-DOT", 0), ("EGA-1", 0)]
    threads = max(1, core_count() // 2)  # each of the two jobs gets its share of this machine's cores
    devices = [r["provenance"]["device"] for r in stored]
    if torch.cuda.is_available():
        assert all(device.startswith("cuda:") for device in devices), devices
    else:
        assert all(device.endswith(f", {threads} thread{'s' if threads > 1 else ''}") for device in devices), devices
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
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and listed in err
    assert len(err.splitlines()) == 1 and "usage:" not in err and f"(see mope {args[0]} --help)" in err


def test_table_without_results_says_how_to_make_them(store, capsys):
    store[0].mkdir()
    with pytest.raises(SystemExit) as exit_:
        main(["table", "--preset", "smoke"])
    assert exit_.value.code == EXIT_ERROR and "python -m mope suite --preset smoke" in capsys.readouterr().err


def test_claims_json_is_the_claim_records_and_the_files_left_out(store, capsys):
    from mope.evidence.claims import claim_records

    store[0].mkdir()
    main(["claims", "--preset", "smoke", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"preset", "current_runs", "claims", "skipped"}
    assert report["preset"] == "smoke" and report["current_runs"] == 0 and report["skipped"] == []
    claims = report["claims"]
    assert [c["key"] for c in claims] == [c["key"] for c in claim_records("smoke")] and len(claims) >= 10
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


def small_store():
    """Smoke runs with answers worked out by hand: BASE-DOT at 1.500, 1.501, 1.502 over seeds 0-2;
    EGA-MORLET at 1.381, 1.384, 1.383 (gains 0.119, 0.117, 0.119 over BASE-DOT seed by seed); one EGA-1
    file of another configuration (stale)."""
    smoke = get_preset("smoke")
    for seed, (base, ega_morlet) in enumerate([(1.500, 1.381), (1.501, 1.384), (1.502, 1.383)]):
        write_result(run("BASE-DOT", seed, base, preset=smoke))
        write_result(run("EGA-MORLET", seed, ega_morlet, preset=smoke))
    write_result(run("EGA-1", 0, 1.2, preset=smoke, changes={"config_hash": PLACEHOLDER_HASH}))


def test_claims_json_on_a_small_store_gives_the_verdicts_worked_out_by_hand(store, capsys):
    small_store()
    main(["claims", "--preset", "smoke", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["current_runs"] == 6
    today = expected_hash(get_preset("smoke"), "EGA-1")  # the hash of today's configuration, not a former name's
    assert report["skipped"] == [{"path": "smoke/EGA-1/seed0.json", "kind": "stale",
                                  "reason": f"configuration {PLACEHOLDER_HASH}, current is {today}"}]
    claims = {c["key"]: c for c in report["claims"]}
    gain = claims["ega-mope-gain"]  # EGA-MORLET improves on BASE-DOT by 0.119: mean 0.11833, sd 0.00115
    assert (gain["n"], gain["ours"], gain["sd"]) == (3, pytest.approx(0.118333, abs=1e-6), pytest.approx(0.001155, abs=1e-6))
    assert gain["outcome"] == "confirmed" and gain["judged_on"] == "direction"  # smoke is not the paper's protocol
    assert gain["verdict"] == ("direction confirmed: 0.99× the paper's size on `smoke` (95%: 0.97 to 1×), a size not "
                               "judged at this scale")
    assert claims["ega-gain"]["n"] == 0 and claims["ega-gain"]["verdict"] == "not run"  # EGA-1's only run is stale
    assert claims["ega-mope-best"]["verdict"] == "not run"


def test_table_on_a_small_store_prints_the_means_sds_and_gaps_worked_out_by_hand(store, capsys):
    small_store()
    main(["table", "--preset", "smoke"])
    out, err = capsys.readouterr()
    rows = {line.split()[0]: line for line in out.splitlines()[2:]}
    assert set(rows) == {"BASE-DOT", "EGA-MORLET"}
    assert rows["BASE-DOT"].split() == ["BASE-DOT", "1.4742", "1.5010", "±", "0.0010", "(n=3)", "+0.0268",
                                        "1.5010", "±", "0.0010", "(n=3)"]
    assert rows["EGA-MORLET"].split() == ["EGA-MORLET", "1.3550", "1.3827", "±", "0.0015", "(n=3)", "+0.0277",
                                          "1.3827", "±", "0.0015", "(n=3)"]
    assert "stale (not shown): smoke/EGA-1/seed0.json" in err


def test_claims_standing_gives_every_claim_its_standing_and_its_verdict_on_each_preset_with_runs(store, capsys):
    from mope.evidence.standings import STANDINGS, standing_records, judge_presets

    for seed, (base, ega_morlet) in enumerate([(1.500, 1.381), (1.501, 1.384), (1.502, 1.383)]):
        write_result(run("BASE-DOT", seed, base, preset=get_preset("cpu")))
        write_result(run("EGA-MORLET", seed, ega_morlet, preset=get_preset("cpu")))
    main(["claims", "--standing", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report == json.loads(json.dumps(standing_records(judge_presets())))
    assert all(set(r) == {"key", "claim", "source", "standing", "text", "holds_on", "fails_on", "undecided_on", "by_preset"}
               and r["standing"] in STANDINGS and "every scale" not in r["text"]  # one preset decides: never "every scale"
               for r in report)
    gain = next(r for r in report if r["key"] == "ega-mope-gain")
    assert gain["standing"] == "holds where decided" and list(gain["by_preset"]) == ["cpu"]
    assert (gain["holds_on"], gain["fails_on"], gain["undecided_on"]) == (["cpu"], [], [])
    cpu = gain["by_preset"]["cpu"]  # worked by hand: gains 0.119, 0.117, 0.119; sd 0.001155; t = mean / (sd / sqrt 3)
    assert (cpu["n"], cpu["outcome"], cpu["ours"]) == (3, "confirmed", pytest.approx(0.118333, abs=1e-6))
    t = 0.118333 / (0.0011547 / 3 ** 0.5)  # the rule's test is two-sided
    from scipy import stats
    assert cpu["p_value"] == pytest.approx(2 * stats.t.sf(t, df=2), rel=1e-3) and cpu["p_value"] <= cpu["p_adjusted"] < 0.05
    untested = [r for r in report if r["key"] != "ega-mope-gain"]  # no other claim has its runs in this store
    assert untested and all(r["standing"] == "not tested" and r["by_preset"] == {} and not r["holds_on"] for r in untested)
    main(["claims", "--standing"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[:6] == ["claim", "paper", "cpu-long-4x", "cpu-long", "cpu", "cpu-short"]
    row = next(line for line in lines if line.startswith("EGA-MORLET improves on BASE-DOT by 0.119"))
    assert "direction confirmed (n=3)" in row and row.endswith("holds where decided: cpu")
    assert lines[-1].startswith("Tally: holds where decided: 1; not tested: ")


def test_claims_standing_with_a_preset_is_refused_in_one_line(store, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["claims", "--standing", "--preset", "cpu"])
    assert stop.value.code == 2
    assert "--standing judges every preset (paper, cpu-long-4x, cpu-long, cpu, cpu-short, cpu-bpe); leave out --preset cpu" in capsys.readouterr().err


def test_claims_confirmed_names_the_files_it_left_out_and_answers_in_json_when_asked(store, capsys):
    """Issue 57: `claims --confirmed` dropped a stale or damaged run without a notice and ignored --json."""
    small_store()
    with pytest.raises(SystemExit) as exit_code:
        main(["claims", "--preset", "smoke", "--confirmed", "ega-gain", "--json"])
    assert exit_code.value.code == 1  # EGA-1's only run is stale: not run, not confirmed
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert [record["key"] for record in report["claims"]] == ["ega-gain"] and report["claims"][0]["outcome"] == "not_run"
    assert report["skipped"][0]["path"] == "smoke/EGA-1/seed0.json"
    assert "notice: " in err and "EGA-1" in err and "stale" in err
    main(["claims", "--preset", "smoke", "--confirmed", "ega-mope-gain"])  # confirmed: exits 0
    out, err = capsys.readouterr()
    assert out.startswith("smoke ega-mope-gain: direction confirmed") and "EGA-1" in err
