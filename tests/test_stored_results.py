"""Every result stored in the repository's results/ loads as current and validates against the declared
schema: a change of the code that moved a configuration hash, or a schema that rejected a real file,
fails here before it hides the book's evidence."""
import json

import pytest

from mope.store import in_progress, result_schema, results
from mope.store.presets import CPU_SWEEP, PRESETS

STORE = results.REPO_ROOT / "results"
PROGRESS = STORE / in_progress.FOLDER  # the records of runs in progress: no stored runs, read by no verdict
STORED = sorted(path for path in STORE.rglob("seed*.json") if PROGRESS not in path.parents)
RECORDS = sorted(PROGRESS.rglob("seed*.json"))


def folder_of(path):
    """(configuration, store root) that a stored file is read with."""
    relative = path.relative_to(STORE).parts
    if relative[0] == "sweeps":
        (candidate,) = [c for c in CPU_SWEEP if c.name == relative[1]]
        return candidate, results.sweep_root(STORE)
    return PRESETS[relative[0]], STORE


def test_the_store_holds_runs():
    assert len(STORED) >= 80


@pytest.mark.parametrize("path", STORED, ids=[str(p.relative_to(STORE)) for p in STORED])
def test_every_stored_result_validates_and_is_current(path):
    data = json.loads(path.read_text())
    assert result_schema.schema_problem(data) is None
    cfg, root = folder_of(path)
    found, reason, stale = results.check_file(path, results.folder_config(cfg))
    assert reason is None and found == data
    assert data["config_hash"] in results.expected_hashes(cfg, data["variant"])
    assert results.load_result(cfg, data["variant"], data["seed"], root) == data


def test_no_reader_leaves_a_stored_file_out():
    for preset in PRESETS:
        assert results.skipped(preset, STORE) == [], preset
    for candidate in CPU_SWEEP:
        assert results.skipped(candidate, results.sweep_root(STORE)) == [], candidate.name


@pytest.mark.parametrize("path", STORED[::7], ids=[str(p.relative_to(STORE)) for p in STORED[::7]])
def test_without_jsonschema_the_same_schema_accepts_every_stored_result(path):
    """A machine without jsonschema (the bare GPU image) validates against the same declaration."""
    assert result_schema.schema_problem(json.loads(path.read_text()), use_jsonschema=False) is None


def test_every_record_of_a_run_in_progress_validates_and_its_run_is_not_stored():
    """A committed record of a run in progress is valid by either validator, filed where it belongs, of today's
    configuration, and its run is not stored yet (once it is, `python -m mope progress` removes the record).
    One test over every record (there may be none, when no run is in progress), so that CI never skips it."""
    for path in RECORDS:
        data = json.loads(path.read_text())
        assert in_progress.record_problem(data) is None, path
        assert in_progress.record_problem(data, use_jsonschema=False) is None, path
        assert in_progress.read_record(path) == (data, None), path
        assert data["config_hash"] in results.expected_hashes(data["preset"], data["variant"]), path
        assert not in_progress.superseded(data, STORE), path
