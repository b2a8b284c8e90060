"""Provenance the schema does not require is optional everywhere (issue 75): a valid run without any one of those
fields passes through every function that renders provenance (a dash or "not recorded" where it is missing), and a
run without a field that those functions read as they are is not valid."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from mope.book import downloads, run_records, run_times, tables
from mope.evidence import bottom_line, devices
from mope.model.variants import TABLE_2
from mope.store.presets import get_preset
from mope.store.result_schema import REQUIRED_PROVENANCE, RESULT_SCHEMA, schema_problem
from tests.synthetic_runs import run

SMOKE = get_preset("smoke")
STRETCH = {"git_commit": "0123456789abcdef", "git_dirty": False, "device": "cpu: test, 1 thread",
           "cpu_capability": "AVX2", "threads": 1, "torch": "t"}
#: Every provenance field the schema declares, filled in as a run of today records it.
FULL = {"git_commit": "0123456789abcdef", "git_dirty": False, "torch": "t", "python": "p",
        "device": "cpu: test, 1 thread", "cpu_capability": "AVX2", "threads": 1,
        "started": "2026-11-30T06:00:00+00:00", "finished": "2026-11-30T06:10:00+00:00", "wall_time_s": 600.0,
        "tokens_per_s": 1.0, "world_size": 1,
        "throughput": {"tokens_per_s": 1.0, "first_step_s": 0.1, "steps_timed": 40, "flops_per_token": 1.0,
                       "peak_flops_per_s": None, "peak_source": None, "mfu": None, "compiled": False,
                       "fused_adamw": False},
        "segments": [{"from_step": 0, "to_step": 20, **STRETCH},
                     {"from_step": 20, "to_step": SMOKE.steps, **STRETCH, "device": "cuda: NVIDIA H200",
                      "cpu_capability": None}]}
OPTIONAL = sorted(set(RESULT_SCHEMA["properties"]["provenance"]["properties"]) - set(REQUIRED_PROVENANCE))


def test_every_declared_provenance_field_is_required_or_optional_and_the_full_record_is_valid():
    assert set(FULL) == set(RESULT_SCHEMA["properties"]["provenance"]["properties"])
    assert schema_problem(stored_runs(None)[0]) is None


def stored_runs(*without: str | None) -> list[dict]:
    """Two seeds of each model of Table 2 on the smoke preset (one seed on a GPU, as the paper's runs mix them), each
    without the provenance fields ``without``."""
    runs = []
    for variant in TABLE_2:
        for seed in (0, 1):
            found = run(variant, seed, 2.0 + seed / 10, preset=SMOKE)
            found["provenance"] = copy.deepcopy(FULL)
            if seed:
                found["provenance"]["device"] = "cuda: NVIDIA H200"
            for field in without:
                found["provenance"].pop(field, None)
            runs.append(json.loads(json.dumps(found)))  # as a reader gets it from the store
    return runs


def everything_that_renders_provenance(runs: list[dict]) -> list[str]:
    """Table 2 (with its note on mixed devices), the reproducibility page's tables, the runs CSV and its column
    dictionary, the time tables, and what would settle the headline."""
    stored = {"paper": runs}
    undecided = {"paper": {"ega-mope-gain": {"key": "ega-mope-gain", "outcome": "undecided", "n": 2,
                                             "seeds_needed": 9, "ours": 0.1, "paper": 0.119}}}
    csv = downloads.runs_csv(stored)
    return [tables.table_2(stored), devices.mixed_devices_note(runs, TABLE_2), devices.seed_devices(runs),
            run_records.run_table("paper", runs), run_records.preset_summary(stored), str(run_records.most_at_once(runs)),
            csv, downloads.column_dictionary(downloads.csv_columns(csv)), str(run_times.preset_rows("paper", runs)),
            str(run_times.busy_seconds(runs)), bottom_line.what_would_settle_it(undecided, stored) or ""]


@pytest.mark.parametrize("field", OPTIONAL)
def test_a_run_without_an_optional_provenance_field_is_valid_and_every_page_renders_it(field):
    runs = stored_runs(field)
    assert schema_problem(runs[0]) is None
    rendered = everything_that_renders_provenance(runs)
    assert rendered[0].startswith("| model |") and all(isinstance(text, str) for text in rendered)


def test_a_missing_instruction_set_reads_not_recorded_and_missing_stretches_the_runs_own_cells():
    table = run_records.run_table("paper", stored_runs("segments"))
    assert "(steps 0" not in table and "`0123456`" in table and "AVX2" in table
    assert run_records.NOT_RECORDED in run_records.run_table("paper", stored_runs("segments", "cpu_capability"))


@pytest.mark.parametrize("field", REQUIRED_PROVENANCE)
def test_a_run_without_a_required_provenance_field_is_not_valid(field):
    assert schema_problem(stored_runs(field)[0]) == f"provenance: {field!r} is a required property"
    assert schema_problem(stored_runs(field)[0], use_jsonschema=False) == f"provenance: {field!r} is a required property"


def test_every_provenance_field_read_without_a_fallback_is_one_the_schema_requires():
    """Wherever a page, a notebook or the package reads ``run["provenance"]["field"]`` as it is (a KeyError if it is
    missing: `book/reproducibility.md` read git_dirty so, `devices.precision` device), the schema requires it."""
    root = Path(__file__).resolve().parents[1]
    read = re.compile(r"""\[["']provenance["']\]\[["']([a-z_]+)["']\]""")
    found = {(path.relative_to(root).as_posix(), field)
             for folder in ("mope", "book", "notebooks") for path in (root / folder).rglob("*")
             if path.suffix in (".py", ".md") for field in read.findall(path.read_text(encoding="utf-8"))}
    assert ("book/reproducibility.md", "git_dirty") in found and ("mope/evidence/devices.py", "device") in found
    assert not {(where, field) for where, field in found if field not in REQUIRED_PROVENANCE} - {
        ("mope/train/checkpoints.py", "properties")}  # the schema's own declaration, read there


def test_a_stored_device_description_is_named_as_a_sentence_names_it():
    """One helper names a stored CPU or GPU on every page ("Intel(R) Xeon(R) Processor" was "Intel Xeon" on one line
    of the reproducibility page and kept whole on the next), with no character of markup left in it."""
    from mope.store.results import device_name

    assert device_name("cpu: Intel(R) Xeon(R) Processor, 2 threads") == "Intel Xeon"
    assert device_name("cpu: AMD EPYC, 1 thread") == "AMD EPYC" and device_name("cuda: NVIDIA H200") == "NVIDIA H200"
    assert device_name("cpu: <b>*x*</b>, 1 thread") == "bxb" and device_name("") == ""


def test_a_stored_device_description_is_sorted_by_its_kind_in_one_place():
    """The how-to-run table, the reproducibility page's hours and the unknowns page's cost all split runs into CPU
    and GPU runs by one helper, the part of the stored description before its colon."""
    from mope.store.results import device_kind

    assert device_kind("cpu: AMD EPYC, 2 threads") == "cpu" and device_kind("cuda: NVIDIA H200") == "cuda"
    assert device_kind("mps") == "mps" and device_kind("") == "unrecorded" and device_kind(None) == "unrecorded"
