"""The book's infrastructure: table of contents, configuration, paired notebooks, nbval collection,
and the HTML checker (on a tiny synthetic site; the real book is checked after ``make book``)."""
from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
SYNC_COMMAND = "jupytext --to ipynb --update notebooks/0*.md book/reproducibility.md"


def load_yaml(name: str) -> dict:
    return yaml.safe_load((ROOT / name).read_text())


def toc_files(entry) -> list[str]:
    found = []
    if isinstance(entry, dict):
        for key, value in entry.items():
            if key in ("file", "root"):
                found.append(value)
            else:
                found += toc_files(value)
    elif isinstance(entry, list):
        for item in entry:
            found += toc_files(item)
    return found


def is_notebook(path: Path) -> bool:
    """A jupytext page that executes (a kernelspec in its front matter)."""
    return "kernelspec:" in path.read_text()[:2000]


def chapter_notebooks() -> list[Path]:
    """The chapters notebooks/NN_*.md that are notebooks: nbval runs these."""
    return [p for p in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.md")) if is_notebook(p)]


def executable_pages() -> list[Path]:
    """Every page of the table of contents that executes: each gets a Colab button."""
    pages = [ROOT / f"{name}.md" for name in toc_files(load_yaml("_toc.yml"))]
    return [p for p in pages if p.is_file() and is_notebook(p)]


def test_every_toc_entry_exists():
    files = toc_files(load_yaml("_toc.yml"))
    assert "book/intro" in files
    for name in ("notebooks/01_mathematics", "notebooks/02_encodings", "notebooks/03_reproduction",
                 "notebooks/04_learned_parameters", "notebooks/05_stress_tests", "book/reproducibility",
                 "book/how_to_run", "book/references"):
        assert name in files
    for name in files:
        assert (ROOT / f"{name}.md").is_file(), f"_toc.yml names {name}, which has no .md file"


def test_config_builds_offline_with_proofs_and_colab():
    config = load_yaml("_config.yml")
    assert "sphinx_proof" in config["sphinx"]["extra_extensions"]
    assert config["only_build_toc_files"] is True
    assert config["execute"]["execute_notebooks"] in ("force", "cache")
    for pattern in (".venv", "_build", "results", "checkpoints", "notebooks/*.ipynb", "book/*.ipynb"):
        assert pattern in config["exclude_patterns"]
    assert config["launch_buttons"]["colab_url"] == "https://colab.research.google.com"
    assert config["repository"]["url"].startswith("https://github.com/")
    assert (ROOT / config["bibtex_bibfiles"][0]).is_file()


@pytest.mark.parametrize("source", chapter_notebooks(), ids=lambda p: p.name)
def test_chapter_installs_in_colab_and_reads_its_preset(source):
    notebook = jupytext.read(source)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    first = code[0].source
    assert '"google.colab" in sys.modules' in first and "pip" in first
    assert load_yaml("_config.yml")["repository"]["url"] in first, "install from the book's repository"
    parameters = [cell for cell in code if "parameters" in cell.metadata.get("tags", [])]
    assert len(parameters) == 1 and 'os.environ.get("MOPE_PRESET", "cpu")' in parameters[0].source


@pytest.mark.parametrize("source", executable_pages(), ids=lambda p: p.name)
def test_paired_ipynb_matches_its_markdown_source(source):
    """Colab opens the paired .ipynb of each executable page: it must be the .md page, outputs stripped."""
    paired = source.with_suffix(".ipynb")
    assert paired.is_file(), f"{paired.name} is missing: run `{SYNC_COMMAND}`"
    expected = jupytext.read(source)
    actual = nbformat.read(paired, as_version=4)
    stale = f"{paired.name} is out of date with {source.name}: run `{SYNC_COMMAND}`"
    assert [c.cell_type for c in actual.cells] == [c.cell_type for c in expected.cells], stale
    for got, want in zip(actual.cells, expected.cells):
        assert got.source == want.source, stale
        assert got.metadata.get("tags", []) == want.metadata.get("tags", []), stale
        assert got.metadata.get("mystnb") == want.metadata.get("mystnb"), stale
        if got.cell_type == "code":
            assert got.outputs == [] and got.execution_count is None, f"{paired.name}: strip its outputs"
    assert actual.metadata["kernelspec"]["name"] == "python3"


def test_nbval_collects_the_markdown_chapters_once():
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "--nbval-lax", "-p", "no:cacheprovider",
         "notebooks"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    items = [line for line in result.stdout.splitlines() if "::Cell " in line]
    for source in chapter_notebooks():
        assert any(line.startswith(f"notebooks/{source.name}::Cell 0") for line in items), source.name
    assert not any(".ipynb::" in line for line in items), "paired .ipynb copies were collected too"


# --- scripts/check_book_html.py ------------------------------------------------------------------

def load_checker():
    spec = importlib.util.spec_from_file_location("check_book_html", ROOT / "scripts" / "check_book_html.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PNG_1x1 = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8ffff3f0005fe02fea7d6a4d70000000049454e44ae426082")


def make_site(tmp_path: Path, broken: bool) -> Path:
    site = tmp_path / ("broken" if broken else "good")
    (site / "sub").mkdir(parents=True)
    (site / "img.png").write_bytes(PNG_1x1)
    target = "sub/page.html#missing" if broken else "sub/page.html#here"
    image = "nothere.png" if broken else "img.png"
    (site / "index.html").write_text(
        f'<html><head><title>Home</title></head><body><main><a href="{target}">x</a>'
        f'<a href="https://example.org/">external</a><img src="{image}"></main></body></html>')
    (site / "sub" / "page.html").write_text(
        '<html><head><title>Page</title></head><body><main><h1 id="here">Here</h1>'
        '<a href="../index.html">home</a><img src="../img.png"></main></body></html>')
    return site


def test_html_checker_static_pass(tmp_path, capsys):
    checker = load_checker()
    assert checker.main([str(make_site(tmp_path, broken=False)), "--no-browser"]) == 0
    assert "2 pages, 2 figures, 2 internal links, 0 broken" in capsys.readouterr().out
    assert checker.main([str(make_site(tmp_path, broken=True)), "--no-browser"]) == 1
    out = capsys.readouterr().out
    assert "broken anchor 'sub/page.html#missing'" in out and "nothere.png" in out


@pytest.mark.skipif(not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")),
                    reason="no Chromium on this machine")
def test_html_checker_in_chromium(tmp_path, capsys):
    checker = load_checker()
    shots = tmp_path / "shots"
    assert checker.main([str(make_site(tmp_path, broken=False)), "--screenshots", str(shots)]) == 0
    assert re.search(r"\(2 <img> decoded in Chromium\)", capsys.readouterr().out)
    assert (shots / "index.png").read_bytes().startswith(b"\x89PNG")
