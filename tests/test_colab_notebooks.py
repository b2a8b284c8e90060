"""The Colab notebooks: each executable page's .ipynb is written from its MyST page
(``python -m mope.book.colab_notebook``), and, run as Colab runs it (nbclient, no book build), it shows
what the book shows: every figure as an image, every computed number as text, no MyST markup.

The conversion is specified on a tiny synthetic book; the real pages are checked statically here,
and executed by nbval (``notebooks/conftest.py``: every chapter, with its figures checked) and below
(the back-matter pages nbval does not collect)."""
from __future__ import annotations

import os
import textwrap
import time
from pathlib import Path

import nbformat
import pytest
from IPython.display import Markdown

from mope.book import colab_notebook as colab
from mope.book.plain_markdown import Book, MystError, raw_myst, to_plain_markdown

ROOT = Path(__file__).resolve().parents[1]
PAGES = colab.executable_pages(ROOT)
REGENERATE = "python -m mope.book.colab_notebook"


# --- a synthetic book ---------------------------------------------------------------------------

FRONT_MATTER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
"""

SETUP_CELL = """```{code-cell} ipython3
:tags: [hide-input]

import sys  # the Colab set-up cell: "google.colab" in sys.modules
```
"""


@pytest.fixture
def tiny_book(tmp_path: Path) -> Path:
    """Two numbered chapters, a bibliography and a module to include, published from github.com/someone/fork."""
    (tmp_path / "_toc.yml").write_text(textwrap.dedent("""\
        format: jb-book
        root: intro
        parts:
          - caption: Chapters
            numbered: true
            chapters:
              - file: notebooks/01_first
              - file: notebooks/02_second
        """))
    (tmp_path / "_config.yml").write_text("repository:\n  url: https://github.com/someone/fork\n")
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "references.bib").write_text(
        "@misc{gabor1946,\n  author = {Gabor, Dennis},\n  title = {Theory},\n  year = {1946}\n}\n\n"
        "@misc{two2020,\n  author = {One, Ann and Two, Bob and Three, Cy},\n  year = {2020}\n}\n")
    (tmp_path / "intro.md").write_text("# Intro\n\nNo code.\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(textwrap.dedent('''\
        """A module."""
        import math


        def area(r):
            """The disc's area."""
            return math.pi * r * r


        def other():
            return 1
        '''))
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "01_first.md").write_text(FRONT_MATTER + textwrap.dedent("""\
        ```bash
        # a comment in a code block, not the page's title
        ```

        # The first chapter

        (first-section)=
        ## A section

        $$
        x = 1
        $$ (eq-one)

        ```{prf:proposition} Small
        :label: prop-small

        One is small.
        ```
        """))
    (tmp_path / "notebooks" / "02_second.md").write_text(FRONT_MATTER + "# The second chapter\n\n" + SETUP_CELL
                                                          + textwrap.dedent("""\

        ```{code-cell} ipython3
        X, FIG = "3.5", None
        ```

        Text before, {ref}`first-section` and $e^{-x}$.

        The value {eval}`X` with $e^{-x}$ and a [link](https://example.org).

        ```{eval:figure} FIG
        :name: fig-first

        The caption, {eval}`X` free.
        ```

        ::::{tab-set}
        :::{tab-item} One tab
        In tab one.
        :::
        :::{tab-item} Two
        ```{literalinclude} /pkg/mod.py
        :pyobject: area
        :caption: pkg/mod.py — the area
        ```
        :::
        ::::

        :::{dropdown} Lines 2 to 3
        ```{literalinclude} /pkg/mod.py
        :lines: 2-3
        ```
        :::
        """))
    return tmp_path


def test_cross_references_become_links_into_the_published_book(tiny_book):
    book = Book.from_repository(tiny_book)
    url = "https://someone.github.io/fork/"
    text = ("{ref}`first-section`, {ref}`the section <first-section>`, {numref}`fig-first`, "
            "{numref}`Figure %s <fig-first>`, {eq}`eq-one`, {prf:ref}`prop-small`, {doc}`01_first`, "
            "{doc}`/intro`, {cite:t}`gabor1946`, {cite}`gabor1946,two2020`, {py:func}`~pkg.mod.area`, "
            "{py:mod}`pkg.mod`, {py:meth}`~mope.store.presets.TrainConfig.lr_at`, {py:mod}`mope.store`")
    first = f"{url}notebooks/01_first.html"
    assert to_plain_markdown(text, book, "notebooks/02_second") == (
        f"[A section]({first}#first-section), [the section]({first}#first-section), "
        f"[Fig. 2.1]({url}notebooks/02_second.html#fig-first), "
        f"[Figure 2.1]({url}notebooks/02_second.html#fig-first), [(1.1)]({first}#equation-eq-one), "
        f"[Proposition 1.1]({first}#prop-small), [The first chapter]({first}), [Intro]({url}intro.html), "
        f"[Gabor [1946]]({url}book/references.html), "
        f"[[Gabor, 1946]({url}book/references.html), [One et al., 2020]({url}book/references.html)], "
        f"`area`, `pkg.mod`, [`lr_at`]({url}book/api.html#mope.store.presets.TrainConfig.lr_at), "
        f"[`mope.store`]({url}book/api.html#module-mope.store)")


def test_directives_become_plain_markdown(tiny_book):
    book = Book.from_repository(tiny_book)
    first = (tiny_book / "notebooks" / "01_first.md").read_text().split("---\n", 2)[2]
    plain = to_plain_markdown(first, book, "notebooks/01_first")
    assert "(first-section)=" not in plain and "## A section" in plain
    assert "$$\nx = 1\n\\tag{1.1}\n$$" in plain  # the equation keeps its number
    assert "**Proposition 1.1** (Small).\n\nOne is small." in plain
    assert to_plain_markdown("## Top\n\n:::{dropdown} More\nHidden text.\n:::\n", book) == (
        "## Top\n\n### More\n\nHidden text.")
    assert to_plain_markdown("```{note}\nMind {ref}`first-section`.\n```", book).startswith("> **Note.**\n>\n> Mind [A")
    # the intro's citation grid and the reproducibility page's downloads, as their cells display them
    assert to_plain_markdown("::::{grid} 1 1 2 2\n:::{grid-item}\nThis book:\n:::\n:::{grid-item}\nThe paper:\n:::\n::::",
                             book) == "This book:\n\nThe paper:"
    assert to_plain_markdown("- {download}`runs.csv </_build/downloads/runs.csv>`: every run", book) == (
        "- `runs.csv` (in `_build/downloads/runs.csv`): every run")
    # the own-model page's classes, documented by autodoc in the book: in a notebook, help() shows the same text
    assert to_plain_markdown("```{eval-rst}\n.. autoclass:: mope.Rotary\n   :no-index:\n\n"
                             ".. autoclass:: mope.ALiBi\n```", book) == "* `help(mope.Rotary)`\n* `help(mope.ALiBi)`"


def test_unknown_markup_is_a_clear_error(tiny_book):
    book = Book.from_repository(tiny_book)
    with pytest.raises(MystError, match=r"unknown role \{kbd\}.*the roles written as Markdown: eval, ref"):
        to_plain_markdown("Press {kbd}`Ctrl`.", book)
    with pytest.raises(MystError, match=r"directive \{mermaid\} has no plain Markdown form; those that do: tab-set"):
        to_plain_markdown("```{mermaid}\ngraph\n```", book)
    with pytest.raises(MystError, match=r"\{ref\}`nowhere`: no such label in the book's pages"):
        to_plain_markdown("See {ref}`nowhere`.", book)
    with pytest.raises(MystError, match="is never closed"):
        to_plain_markdown(":::{dropdown} Open\ntext\n", book)
    with pytest.raises(MystError, match="autoclass directives alone"):
        to_plain_markdown("```{eval-rst}\n.. autoclass:: mope.Rotary\n\nSome prose.\n```", book)


def test_a_page_becomes_its_colab_notebook(tiny_book):
    notebook = colab.colab_notebook(tiny_book / "notebooks" / "02_second.md", root=tiny_book)
    kinds = [(cell.cell_type, cell.metadata.get("tags", [])) for cell in notebook.cells]
    assert kinds[:3] == [("markdown", []), ("code", ["hide-input"]), ("code", [colab.OUTPUTS_TAG])]
    assert "google.colab" in notebook.cells[1].source  # the set-up cell stays first
    prose = [cell for cell in notebook.cells if colab.PROSE_TAG in cell.metadata.get("tags", [])]
    figures = [cell for cell in notebook.cells if colab.FIGURE_TAG in cell.metadata.get("tags", [])]
    assert len(prose) == 2 and len(figures) == 1 and figures[0].source == "#@title Fig. 2.1\ndisplay(FIG)"
    assert prose[0].metadata["cellView"] == "form"  # Colab folds the code and shows the output
    markdown = "\n\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
    assert raw_myst(markdown) == []
    assert "Text before, [A section](https://someone.github.io/fork/notebooks/01_first.html#first-section)" in markdown
    assert "## One tab\n\nIn tab one.\n\n## Two" in markdown  # one level below the page's title
    assert ("*pkg/mod.py — the area*\n\n```python\ndef area(r):\n    \"\"\"The disc's area.\"\"\"\n"
            "    return math.pi * r * r\n```") in markdown  # pyobject: the function, nothing else
    assert "## Lines 2 to 3\n\n```python\nimport math\n```" in markdown  # lines 2-3 of the file
    # the prose cells display the text with the values filled in, maths and links untouched
    namespace = {"X": "3.5"}
    exec(prose[0].source.replace("Markdown(", "shown = Markdown(", 1), namespace)
    assert namespace["shown"].data.strip() == "The value 3.5 with $e^{-x}$ and a [link](https://example.org)."
    caption_index = notebook.cells.index(figures[0]) + 1
    assert notebook.cells[caption_index] is prose[1]  # the caption, below the figure, has a value too
    exec(prose[1].source.replace("Markdown(", "shown = Markdown(", 1), namespace)
    assert namespace["shown"].data.strip() == "**Fig. 2.1** The caption, 3.5 free."


def test_markdown_outputs_show_plainly(tiny_book):
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        from mope.book.plain_markdown import show_markdown_outputs_plainly

        shown = Markdown("::::{tab-set}\n:::{tab-item} `cpu`\nSee {ref}`first-section`.\n:::\n::::")
        assert shell.display_formatter.format(shown)[0]["text/markdown"] == shown.data  # before
        show_markdown_outputs_plainly(tiny_book)
        assert shell.display_formatter.format(shown)[0]["text/markdown"] == (
            "### `cpu`\n\nSee [A section](https://someone.github.io/fork/notebooks/01_first.html#first-section).")
    finally:
        InteractiveShell.clear_instance()


def test_rendering_problems_name_a_missing_image_and_left_markup():
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("Still {eval}`X` here"),
        nbformat.v4.new_code_cell("#@title Fig. 1\ndisplay(FIG)", metadata={"tags": [colab.FIGURE_TAG]},
                                  outputs=[nbformat.v4.new_output("display_data", {"text/plain": "<Figure>"})]),
        nbformat.v4.new_code_cell("show()", outputs=[
            nbformat.v4.new_output("display_data", {"text/markdown": ":::{dropdown} Raw\n:::"}),
            nbformat.v4.new_output("display_data", {"text/plain": "<IPython.core.display.Markdown object>"})])])
    assert colab.rendering_problems(notebook) == [
        "Markdown cell 0 shows raw MyST: ['{eval}`']",
        "cell 1 (display(FIG)) shows no image",
        "cell 2 displays Markdown with raw MyST: [':::{dropdown}']",
        "cell 2 displays Markdown that could not be written plainly (see its stderr)"]
    notebook.cells[1].outputs.append(nbformat.v4.new_output("display_data", {"image/png": "iVBOR"}))
    assert len(colab.rendering_problems(notebook)) == 3


# --- the book's own pages -----------------------------------------------------------------------

BOOK = Book.from_repository(ROOT)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_committed_notebook_is_written_from_its_page(page):
    """Colab opens the committed .ipynb: it must be what the .md page converts to now."""
    paired = page.with_suffix(".ipynb")
    assert paired.is_file(), f"{paired.relative_to(ROOT)} is missing: run `{REGENERATE}`"
    assert paired.read_text() == colab.notebook_text(page, BOOK, ROOT), (
        f"{paired.relative_to(ROOT)} is out of date with {page.name}: run `{REGENERATE}`")
    nbformat.validate(nbformat.read(paired, as_version=4))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_notebook_has_a_cell_for_every_figure_and_no_markup(page):
    notebook = colab.colab_notebook(page, BOOK, ROOT)
    figure_cells = [c for c in notebook.cells if colab.FIGURE_TAG in c.metadata.get("tags", [])]
    assert len(figure_cells) == page.read_text().count("{eval:figure}")
    assert [m for c in notebook.cells if c.cell_type == "markdown" for m in raw_myst(c.source)] == []
    # the page's own code cells, in order, after the Colab set-up cell and the outputs cell
    own = [c for c in notebook.cells if c.cell_type == "code"
           and not {colab.FIGURE_TAG, colab.PROSE_TAG, colab.OUTPUTS_TAG} & set(c.metadata.get("tags", []))]
    source = colab.jupytext.read(page)
    assert [c.source for c in own] == [c.source for c in source.cells if c.cell_type == "code"]
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert "google.colab" in code[0].source and colab.OUTPUTS_TAG in code[1].metadata["tags"]


def test_every_figure_of_the_book_is_a_figure_cell_of_its_notebook():
    """24 figures (21 when Colab was first made to show them, three more with the open questions)."""
    cells = sum(colab.FIGURE_TAG in c.metadata.get("tags", [])
                for page in PAGES for c in nbformat.read(page.with_suffix(".ipynb"), as_version=4).cells)
    assert cells == sum(page.read_text().count("{eval:figure}") for page in PAGES) >= 24


# --- run as Colab runs it -----------------------------------------------------------------------

BACK_MATTER = [page for page in PAGES if page.parent.name == "book"]  # nbval runs notebooks/NN_*.md


@pytest.mark.parametrize("page", BACK_MATTER, ids=lambda p: p.name)
def test_back_matter_notebook_run_as_colab_shows_what_the_book_shows(page, tmp_path, monkeypatch):
    """The committed .ipynb, executed from a fresh kernel with nbclient (smoke preset, results in a
    temporary folder): an image in every figure cell, no MyST as text."""
    from nbclient import NotebookClient

    monkeypatch.setenv("MOPE_PRESET", os.environ.get("MOPE_PRESET", "smoke"))
    monkeypatch.setenv("MOPE_RESULTS_DIR", str(tmp_path))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")  # Colab's, and Jupyter's
    notebook = nbformat.read(page.with_suffix(".ipynb"), as_version=4)
    started = time.perf_counter()
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(page.parent)}}).execute()
    assert colab.rendering_problems(notebook) == []
    images = sum("image/png" in output.get("data", {}) for cell in notebook.cells for output in cell.get("outputs", []))
    assert images >= page.read_text().count("{eval:figure}")
    print(f"{page.name}: {images} images in {time.perf_counter() - started:.1f} s")


#: Stored strings a results file or a folder could hold (issue 44): a spreadsheet formula, a tag with a
#: script, and a newline followed by what would be a heading on a line of its own.
STORED_STRINGS = ('=HYPERLINK("evil.example.com","x")', "<img src=x onerror=alert(1)>", "AMD\n# injected heading")


def render_as_commonmark(markdown: str) -> str:
    """Markdown as a notebook front end renders it: CommonMark with tables, raw HTML allowed."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").render(markdown)


def test_no_stored_string_is_live_in_the_reproducibility_notebook_or_page(tmp_path, monkeypatch):
    """Each string stored as a run's device and as a folder's name, in a temporary store: the Colab notebook
    of the reproducibility page, executed, and the book's MyST of its tables show each as text, on one line."""
    from nbclient import NotebookClient
    from synthetic_runs import run
    from test_chapter_runs import render_as_the_book

    from mope.book import run_records
    from mope.store import results
    from mope.store.presets import get_preset

    monkeypatch.setenv("MOPE_PRESET", "smoke")
    monkeypatch.setenv("MOPE_RESULTS_DIR", str(tmp_path))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    for seed, text in enumerate(STORED_STRINGS):
        made = run("BASE-DOT", seed, 1.5, preset=get_preset("cpu"))  # a preset the page lists
        # a newline the store refuses in a stored string (a run that holds one is never written): a folder name only
        made["provenance"]["device"] = text if "\n" not in text else "cpu: test, 1 thread"
        results.write_result(made)
        (tmp_path / "cpu" / text).mkdir()
        (tmp_path / "cpu" / text / "seed0.json").write_text("{}")
    page = ROOT / "book" / "reproducibility.ipynb"
    notebook = nbformat.read(page, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(page.parent)}}).execute()
    shown = "\n\n".join(output["data"]["text/markdown"] for cell in notebook.cells for output in cell.get("outputs", [])
                        if "text/markdown" in output.get("data", {}))
    stored = results.load_results("cpu")
    book = "\n\n".join([run_records.preset_summary({"cpu": stored}), run_records.run_table("cpu", stored),
                        run_records.not_shown_table(["cpu"])])
    for html in (render_as_commonmark(shown), render_as_the_book(book)):
        assert "<img" not in html and "<h1" not in html
        assert html.count("&lt;img src=x onerror=alert(1)&gt;") == 3  # the device (summary, table) and the folder
        assert html.count("AMD # injected heading") == 1  # the folder (the store refuses it as a device)
        assert html.count("=HYPERLINK(&quot;evil.example.com&quot;,&quot;x&quot;)") == 3
