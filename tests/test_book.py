"""The book's infrastructure: table of contents, configuration, Colab set-up cells, nbval collection,
and the HTML checker (on a tiny synthetic site; the real book is checked after ``make book``)."""
from __future__ import annotations

import importlib.util
import re
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import jupytext
import nbformat
import pytest
import yaml

from mope.errors import EXTRAS

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"


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
    for name in ("notebooks/01_mathematics", "notebooks/02_encodings", "notebooks/04_reproduction",
                 "notebooks/05_learned_parameters", "notebooks/06_stress_tests", "notebooks/07_open_questions",
                 "book/reproducibility",
                 "book/how_to_run", "book/references"):
        assert name in files
    for name in files:
        assert (ROOT / f"{name}.md").is_file(), f"_toc.yml names {name}, which has no .md file"


def test_config_builds_offline_with_proofs_and_colab():
    config = load_yaml("_config.yml")
    assert "sphinx_proof" in config["sphinx"]["extra_extensions"]
    # MathJax from the build itself: the package's copy exists and replaces the CDN address
    assert "sphinx-mathjax-offline" in config["sphinx"]["extra_extensions"]
    offline = importlib.import_module("sphinx-mathjax-offline")
    assert (Path(offline.__file__).parent / "static" / "mathjax" / "tex-chtml.js").is_file()
    assert config["only_build_toc_files"] is True
    # "inline" executes every page afresh, cell by cell, so that prose can show computed numbers ({eval})
    assert config["execute"]["execute_notebooks"] == "inline"
    for pattern in (".venv", "_build", "results", "checkpoints", "notebooks/*.ipynb", "book/*.ipynb"):
        assert pattern in config["exclude_patterns"]
    assert config["launch_buttons"]["colab_url"] == "https://colab.research.google.com"
    assert config["repository"]["url"].startswith("https://github.com/")
    assert (ROOT / config["bibtex_bibfiles"][0]).is_file()


@pytest.mark.parametrize("source", chapter_notebooks(), ids=lambda p: p.name)
def test_chapter_installs_in_colab_and_reads_its_preset(source):
    notebook = jupytext.read(source)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    first = code[0]
    assert '"google.colab" in sys.modules' in first.source and "pip" in first.source
    assert load_yaml("_config.yml")["repository"]["url"] in first.source, "install from the book's repository"
    extras = re.search(r'"-e", CHECKOUT \+ "\[([\w,]+)\]"', first.source)
    assert extras and set(extras[1].split(",")) == set(EXTRAS.values()), \
        f"Colab installs the extras of the packages the code imports ({sorted(set(EXTRAS.values()))})"
    assert "remove-cell" in first.metadata.get("tags", []), "the set-up cell is for Colab: the book leaves it out"
    parameters = [cell for cell in code if "parameters" in cell.metadata.get("tags", [])]
    assert len(parameters) == 1 and 'os.environ.get("MOPE_PRESET", "cpu")' in parameters[0].source


def test_make_book_rebuilds_every_page_and_fails_on_a_warning():
    """A chapter's source may be unchanged while the stored results it reads changed: an incremental
    build would keep the old numbers, so every build is a whole one."""
    dry_run = subprocess.run(["make", "-n", "-W", "pyproject.toml", "book"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout  # the commands make would run, venv set-up included
    (build,) = [line.split() for line in dry_run.splitlines() if "jupyter-book build" in line]
    assert build[build.index("build"):] == ["build", "--all", ".", "-W", "--keep-going"]


def test_colab_cells_are_written_from_the_config():
    """The repository's address is written once, in _config.yml; every page's Colab cell is its copy."""
    spec = importlib.util.spec_from_file_location("write_colab_cells", ROOT / "scripts" / "write_colab_cells.py")
    writer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(writer)
    stale = [page.relative_to(ROOT).as_posix() for page in writer.stale_pages()]
    assert not stale, f"run `python scripts/write_colab_cells.py`: stale Colab cells in {stale}"
    code = writer.setup_cell_code("https://github.com/someone/fork")
    assert '"https://github.com/someone/fork", "/content/fork"' in code
    page = "# T\n\n```{code-cell} ipython3\n:tags: [hide-input]\n\nimport sys  # google.colab\n```\n\ntext\n"
    rewritten = writer.with_setup_cell(page, code)
    assert rewritten.startswith("# T\n\n```{code-cell} ipython3\n:tags: [hide-input]\n\n# Colab set-up")
    assert rewritten.endswith("otherwise\n```\n\ntext\n")
    with pytest.raises(ValueError, match="not the Colab set-up cell"):
        writer.with_setup_cell("```{code-cell} ipython3\nprint(1)\n```\n", code)


def test_nbval_collects_the_markdown_chapters_once():
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "--nbval-lax", "-p", "no:cacheprovider",
         "notebooks"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    items = [line for line in result.stdout.splitlines() if "::Cell " in line]
    for source in [*chapter_notebooks(), NOTEBOOKS / "own_model.md"]:
        assert any(line.startswith(f"notebooks/{source.name}::Cell 0") for line in items), source.name
    assert not any(".ipynb::" in line for line in items), "the committed .ipynb copies were collected too"


def test_the_page_on_ones_own_model_uses_the_public_modules_and_sits_under_using_this_book():
    """Issue 56: a decoder written against ``from mope import ...`` only, trained in the build, placed after "How to
    run" and outside the numbered chapters (their numbers stay)."""
    parts = {part["caption"]: [entry["file"] for entry in part["chapters"]] for part in load_yaml("_toc.yml")["parts"]}
    using = parts["Using this book"]
    assert using[using.index("book/how_to_run") + 1] == "notebooks/own_model"
    assert "notebooks/own_model" not in parts["Chapters"]
    cells = [cell.source for cell in jupytext.read(NOTEBOOKS / "own_model.md").cells if cell.cell_type == "code"]
    (decoder,) = [source for source in cells if "class Decoder" in source]
    imports = [line for line in decoder.splitlines() if "mope" in line and line.startswith(("import", "from"))]
    assert imports and all(line.startswith("from mope import ") for line in imports), imports
    assert 30 <= len(decoder.splitlines()) <= 50
    text = (NOTEBOOKS / "own_model.md").read_text()
    for habit in ("Sin/cos amplitude", "Weight decay", "Where the gate enters attention", "pip install"):
        assert habit in text, habit


# --- scripts/check_book_html.py ------------------------------------------------------------------

def load_checker():
    spec = importlib.util.spec_from_file_location("check_book_html", ROOT / "scripts" / "check_book_html.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PNG_1x1 = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8ffff3f0005fe02fea7d6a4d70000000049454e44ae426082")


def png(width: int, height: int) -> bytes:
    """A white RGB PNG of the given size."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + b"\xff" * 3 * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def make_site(tmp_path: Path, broken: bool) -> Path:
    site = tmp_path / ("broken" if broken else "good")
    (site / "sub").mkdir(parents=True)
    (site / "img.png").write_bytes(PNG_1x1)
    target = "sub/page.html#missing" if broken else "sub/page.html#here"
    image = "nothere.png" if broken else "img.png"
    (site / "index.html").write_text(
        f'<html><head><title>Home</title></head><body><main><a href="{target}">x</a>'
        f'<a href="https://example.org/">external</a>'
        f'<figure><img src="{image}"><figcaption>Fig. 1 A dot.</figcaption></figure></main></body></html>')
    (site / "sub" / "page.html").write_text(
        '<html><head><title>Page</title></head><body><main><h1 id="here">Here</h1>'
        '<a href="../index.html">home</a>'
        '<figure><img src="../img.png"><figcaption>Fig. 2 The same dot.</figcaption></figure></main></body></html>')
    return site


# A page a reader cannot read: TeX left as text, maths MathJax did not render, a figure without a
# caption, one shrunk to fit the column, a table cell too narrow for its number, a path of the
# build machine, and a script from another host. Code may show dollars and backslashes.
UNREADABLE = r"""<html><head><title>Unreadable</title>
<script src="https://cdn.example.org/mathjax/tex-chtml.js"></script><style>img { max-width: 100%; }</style></head>
<body><main style="width: 300px">
<p>The envelope $e^{-\tau^2/4\sigma^2}$ and \(\omega\) stay raw.</p>
<span class="math notranslate nohighlight">\(b\)</span>
<pre>print(f"${x}$ and \\omega are code")</pre>
<img src="img.png" width="1" height="1">
<figure><img src="wide.png"><figcaption>Fig. 1 Too wide.</figcaption></figure>
<table style="table-layout: fixed; width: 60px"><tr><td style="width: 20px; white-space: nowrap">10</td>
<td style="width: 20px; white-space: nowrap">-1.75e-04</td></tr></table>
<p>Results were read from /work/main/results/cpu on the build machine.</p>
</main></body></html>"""


def make_unreadable_site(tmp_path: Path) -> Path:
    site = tmp_path / "unreadable"
    site.mkdir()
    (site / "img.png").write_bytes(PNG_1x1)
    (site / "wide.png").write_bytes(png(1000, 1))
    (site / "index.html").write_text(UNREADABLE)
    return site


def test_html_checker_static_pass(tmp_path, capsys):
    checker = load_checker()
    assert checker.main([str(make_site(tmp_path, broken=False)), "--no-browser"]) == 0
    assert "2 pages, 2 figures, 2 internal links, 0 broken" in capsys.readouterr().out
    assert checker.main([str(make_site(tmp_path, broken=True)), "--no-browser"]) == 1
    out = capsys.readouterr().out
    assert "broken anchor 'sub/page.html#missing'" in out and "nothere.png" in out
    assert checker.main([str(make_unreadable_site(tmp_path)), "--no-browser"]) == 1
    assert "script or stylesheet from another host 'https://cdn.example.org/" in capsys.readouterr().out


needs_chromium = pytest.mark.skipif(
    not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")),
    reason="no Chromium on this machine")


@needs_chromium
def test_html_checker_in_chromium(tmp_path, capsys):
    checker = load_checker()
    shots = tmp_path / "shots"
    assert checker.main([str(make_site(tmp_path, broken=False)), "--screenshots", str(shots)]) == 0
    assert re.search(r"\(2 <img> decoded in Chromium\)", capsys.readouterr().out)
    assert (shots / "index.png").read_bytes().startswith(b"\x89PNG")


@needs_chromium
def test_html_checker_finds_what_a_reader_cannot_read(tmp_path, capsys):
    checker = load_checker()
    assert checker.main([str(make_unreadable_site(tmp_path))]) == 1
    problems = [line for line in capsys.readouterr().out.splitlines() if line.startswith("BROKEN")]
    found = "\n".join(problems)
    assert "raw TeX in the text" in found and r"\tau^2" in found and r"\(" in found
    assert "maths not rendered by MathJax: '\\\\(b\\\\)'" in found
    assert "${x}$" not in found, "code is not prose: its dollars are not TeX"
    assert "figure without a caption: img.png" in found
    assert "figure shrunk to fit" in found and "wide.png (1000 px shown at" in found
    assert "table cell wider than its column: -1.75e-04" in found
    assert "path of the build machine on the page: /work/main/results/cpu" in found


# A dropdown whose body the page keeps in a <template> until it opens, as the book's API page does: with the book's
# script, the body is put in place when the check opens the dropdown, and what is wrong in it (raw TeX) is found and its
# formula counted; without the script, a reader who opens the dropdown sees nothing.
FOLDED = """<html><head><title>Folded</title>{script}</head><body><main><article class="bd-article">
<details class="sd-dropdown"><summary>mope.model.energy_gate</summary><template class="book-folded"><div>
<p>The gate $e^{{-\\tau^2}}$ left raw.</p>
<div class="math"><mjx-container class="MathJax" display="true"><span>g</span></mjx-container></div>
</div></template></details></article></main></body></html>"""


@needs_chromium
def test_html_checker_opens_every_dropdown_and_reads_a_folded_body_once_the_book_script_unfolds_it(tmp_path, capsys):
    checker = load_checker()
    site = make_page(tmp_path, "unfolded", FOLDED.format(script='<script src="book.js"></script>'))
    shutil.copy(ROOT / "_static" / "book.js", site / "book.js")
    for _ in range(3):  # the same count each time: the check waits for the body, whenever the script puts it in place
        assert checker.main([str(site)]) == 1
        out = capsys.readouterr().out
        assert "raw TeX in the text" in out and r"\tau^2" in out
        assert "1 formulas rendered by MathJax" in out
        assert "body never shown" not in out
    site = make_page(tmp_path, "folded", FOLDED.format(script=""))
    assert checker.main([str(site)]) == 1
    assert "dropdown opened, its body never shown: 'mope.model.energy_gate'" in capsys.readouterr().out


# A page too tall, one too wide for a phone, a wide table that scrolls inside its box without a cue, a display
# formula wider than the column at both widths, and a printed output cut off at the column's edge. The tall page keeps
# its scroll bar's room, as the book's stylesheet does (a page that narrows once it is tall fails the check).
TALL = """<html><head><title>Tall</title><style>html { scrollbar-gutter: stable; }</style></head><body><main><article class="bd-article">
<p>A long page.</p><div style="height: 13000px"></div></article></main></body></html>"""
NARROW = """<html><head><title>Narrow</title><meta name="viewport" content="width=device-width"></head>
<body><main><article class="bd-article" style="max-width: 100%">
<p style="width: 900px">A paragraph of fixed width, wider than a phone.</p>
<div style="overflow-x: auto"><table><tr><td style="white-space: nowrap">a very wide cell of a table
that scrolls inside its own box, with no cue that it does, 0123456789 0123456789</td></tr></table></div>
<div class="math"><span class="eqno">(2.1)</span><mjx-container display="true" style="display: block; overflow-x: auto">
<span style="display: inline-block; width: 1500px">g equals a formula too long for any column</span></mjx-container></div>
<div class="cell_output" style="width: 300px"><pre style="white-space: pre; overflow-x: auto">a printed line far too long for its column: 0123456789 0123456789 0123456789 0123456789 0123456789 0123456789</pre></div>
</article></main></body></html>"""


def make_page(tmp_path: Path, name: str, html: str) -> Path:
    site = tmp_path / name
    site.mkdir()
    (site / "index.html").write_text(html)
    return site


@needs_chromium
def test_html_checker_prints_every_height_and_fails_above_the_limits(tmp_path, capsys):
    checker = load_checker()
    site = make_page(tmp_path, "tall", TALL)
    assert checker.main([str(site)]) == 1
    out = capsys.readouterr().out
    assert re.search(r"^height index\.html +1[34],\d{3} px$", out, flags=re.M), out
    assert "above the limit of 12,000 px" in out
    assert checker.main([str(site), "--max-page-height", "20000", "--max-reading-height", "20000"]) == 0
    assert "0 broken" in capsys.readouterr().out


def test_heights_add_up_over_the_introduction_and_the_chapters():
    checker = load_checker()
    heights = {"book/intro.html": 7_000, "notebooks/01_mathematics.html": 11_000, "notebooks/02_encodings.html": 11_000,
               "book/api.html": 5_000}
    assert checker.height_problems(heights, 12_000, 30_000, 7_000) == []
    (problem,) = checker.height_problems(heights, 12_000, 30_000, 6_999)  # the introduction has a budget of its own
    assert problem == "book/intro.html: 7,000 px tall at 1280 px, above the introduction's limit of 6,999 px"
    assert checker.INTRO_HEIGHT_LIMIT == 4_500 and checker.READING_HEIGHT_LIMIT <= 45_000  # issue 53: a ratchet
    assert len(checker.height_problems(heights, 12_000, 30_000)) == 1  # 7,000 px: above the default 4,500
    heights = {**heights, "book/intro.html": 4_500}
    (problem,) = checker.height_problems(heights, 12_000, 26_000)
    assert "26,500 px tall at 1280 px together" in problem
    (problem,) = checker.height_problems({**heights, "book/api.html": 12_001}, 12_000, 30_000)
    assert problem.startswith("book/api.html: 12,001 px tall")
    assert checker.height_problems({**heights, "genindex.html": 20_000}, 12_000, 30_000) == []  # an index, not read
    assert checker.height_problems({**heights, "notebooks/own_model.html": 5_000}, 12_000, 30_000) == []  # not a chapter
    lines = checker.height_report(heights)
    assert lines[-2].endswith("26,500 px") and lines[-1].endswith("31,500 px")


@needs_chromium
def test_html_checker_finds_what_a_phone_cannot_read(tmp_path, capsys):
    checker = load_checker()
    assert checker.main([str(make_page(tmp_path, "narrow", NARROW))]) == 1
    found = "\n".join(line for line in capsys.readouterr().out.splitlines() if line.startswith("BROKEN"))
    assert "the page scrolls sideways at 400 px" in found
    assert "sticks out of the screen at 400 px, in no box that scrolls: <p> A paragraph of fixed width" in found
    assert "table scrolls inside its box at 400 px with no visible cue: 'a very wide cell" in found
    assert "table wider than its box at 400 px, its last columns behind a sideways scroll: 'a very wide cell" in found
    assert "printed output cut off at the column's edge: a printed line far too long" in found
    for width in (1280, 400):
        assert f"formula wider than its column at {width} px, a part of it cut off: (2.1) g equals a formula" in found


def test_the_book_stylesheet_wraps_outputs_and_marks_boxes_that_scroll():
    css = (ROOT / "_static" / "book.css").read_text()
    assert re.search(r"div\.cell_output pre[^{]*\{[^}]*white-space: pre-wrap", css)
    assert re.search(r"div\.cell_output > div\.highlight-python pre \{[^}]*white-space: pre;", css)
    assert ".book-scrolls-more" in css and "mask-image" in css
    assert re.search(r"figcaption[^{]*\{[^}]*color: var\(--pst-color-text-base\)", css)
    script = (ROOT / "_static" / "book.js").read_text()
    assert "book-scrolls-more" in script and ".pst-scrollable-table-container" in script


def function_body(script: str, name: str) -> str:
    """The body of the function ``name`` of a script (its lines up to the closing brace at its own indent)."""
    found = re.search(r"^( *)function " + name + r"\(.*?\) \{\n(.*?)^\1\}", script, re.S | re.M)
    assert found, f"no function {name} in the script"
    return found.group(2)


def test_the_book_script_measures_no_box_of_a_closed_dropdown_until_it_opens():
    """Reading the size of a box in a closed dropdown lays out the dropdown's hidden body: chapter 1's closed
    derivations hold thousands of typeset elements, and measuring their formulas at load was the most of the page's
    main-thread work after its load (Lighthouse's total blocking time). book.js marks a box that scrolls (its fade)
    and makes it a tab stop only where no closed dropdown holds it, and looks at a dropdown's boxes when it opens."""
    script = (ROOT / "_static" / "book.js").read_text()
    assert 'box.closest("details:not([open])")' in function_body(script, "bookShown")
    opening = function_body(script, "bookOnOpen")
    assert '"toggle"' in opening and "details.open" in opening and "look(details)" in opening
    assert "if (bookShown(box)) mark(box);" in function_body(script, "markAll")
    assert "!bookShown(box)" in function_body(script, "reachable")
    assert "bookOnOpen(markAll);" in script and "bookOnOpen(reachable);" in script


def test_how_to_run_describes_the_page_check_at_the_widths_and_wait_it_uses():
    checker = load_checker()
    text = " ".join((ROOT / "book" / "how_to_run.md").read_text().split())
    wait = re.search(r"performance\.now\(\) < loaded \+ (\d+)\)", (ROOT / "scripts" / "book_html" / "probes.py").read_text())
    assert wait, "the probe no longer waits after the load event as how_to_run says"
    assert f"height of every page in a {checker.WIDE} px window" in text
    assert f"at least {int(wait.group(1)) / 1000:g} s after loading" in text
    assert f"at a {checker.NARROW} px screen it fails when a page scrolls sideways" in text
