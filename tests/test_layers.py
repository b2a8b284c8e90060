"""The package's layers and the direction of imports between them.

The contract is written once, in ``pyproject.toml`` (``[tool.importlinter]``): command line > book >
evidence > train > store > model, with ``mope.errors`` below them all. ``lint-imports`` (import-linter)
reads every import of the package, also those inside functions, and fails on one that goes upward,
or on one from the evidence into the training layer (the evidence reads stored runs only).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
pytestmark = pytest.mark.skipif(not LINT_IMPORTS.is_file(), reason="import-linter is not installed (pip install -e '.[test]')")


def lint_imports(checkout: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` on the package ``mope`` of ``checkout``, with that checkout's ``pyproject.toml``."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}  # before the installed (editable) package
    return subprocess.run([str(LINT_IMPORTS), "--config", str(checkout / "pyproject.toml"), "--no-cache"],
                          cwd=checkout, env=env, capture_output=True, text=True, timeout=120)


def contract_layers() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    contract, = [contract for contract in config["contracts"] if contract["id"] == "layers"]
    assert contract["type"] == "layers" and config["root_package"] == "mope"
    return contract["layers"]


def test_every_part_of_the_package_is_in_one_layer():
    """A new folder or top-level module cannot escape the contract: each is named in exactly one layer."""
    named = [name.strip() for layer in contract_layers() for name in layer.replace("|", ":").split(":")]
    package = ROOT / "mope"
    parts = {f"mope.{p.stem}" for p in package.glob("*.py") if p.stem != "__init__"} | {
        f"mope.{p.name}" for p in package.iterdir() if (p / "__init__.py").is_file()}
    assert sorted(named) == sorted(parts)
    assert contract_layers()[-1] == "mope.errors", "the shared errors lie below every layer"


def copy_of_the_package(folder: Path) -> Path:
    """The package and its contracts copied into ``folder`` (for a test to break one); the copy's package folder."""
    shutil.copy(ROOT / "pyproject.toml", folder / "pyproject.toml")
    shutil.copytree(ROOT / "mope", folder / "mope", ignore=shutil.ignore_patterns("__pycache__"))
    return folder / "mope"


def one_contract_broken(tmp_path, module: str, code: str) -> str:
    """The linter's report on a copy of the package with ``code`` appended to ``module`` (a path below the
    package; a new file if absent), having checked that exactly one of the three contracts broke."""
    package = copy_of_the_package(tmp_path)
    with open(package / module, "a") as file:
        file.write(code)
    result = lint_imports(tmp_path)
    assert result.returncode == 1 and "Contracts: 2 kept, 1 broken." in result.stdout, result.stdout + result.stderr
    return result.stdout


def test_the_package_keeps_its_layers():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 3 kept, 0 broken." in result.stdout


def test_an_upward_import_breaks_the_contract(tmp_path):
    """The same contract on a copy of the package in which the model imports the evidence: it fails, and
    names the import."""
    report = one_contract_broken(tmp_path, "model/upward.py", "from mope.evidence import claims  # wrong: model < evidence\n")
    assert "mope.model.upward -> mope.evidence.claims" in report


def test_the_chapters_runs_never_import_the_tables(tmp_path):
    """Issue 42: mope.book.chapter_runs and mope.book.tables imported each other; the tables read the chapter's
    runs, and an import back breaks the second contract."""
    report = one_contract_broken(tmp_path, "book/chapter_runs.py", "\n\ndef _back():\n    from mope.book import tables  # wrong: a cycle\n")
    assert "mope.book.chapter_runs -> mope.book.tables" in report


def test_no_module_of_the_evidence_layer_is_over_500_lines():
    """Issue 42: one home for each kind of thing; claims.py had grown to 1,200 lines of five concerns."""
    for module in (ROOT / "mope" / "evidence").glob("*.py"):
        assert len(module.read_text().splitlines()) <= 500, module.name


def test_an_import_of_the_training_layer_from_the_evidence_breaks_the_contract(tmp_path):
    """Downward, so the layers allow it, but a verdict must come from the stored runs alone: the evidence
    reading the data through mope.train breaks the second contract, which names the import."""
    report = one_contract_broken(tmp_path, "evidence/reads_data.py", "from mope.train import data  # wrong: stored runs only\n")
    assert "the evidence reads stored runs, never the training layer BROKEN" in report
    assert "mope.evidence.reads_data -> mope.train.data" in report
