"""Every result stored in the repository's results/ loads as current and validates against the declared
schema: a change of the code that moved a configuration hash, or a schema that rejected a real file,
fails here before it hides the book's evidence."""
import json

import pytest

from mope.store import result_schema, results
from mope.store.presets import CPU_SWEEP, PRESETS

STORE = results.REPO_ROOT / "results"
STORED = sorted(STORE.rglob("seed*.json"))


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
