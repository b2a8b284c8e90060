"""Each executable page of the book as the notebook Colab opens: what the book shows, without a book build.

    python -m mope.book.colab_notebook           # rewrite every page's .ipynb from its .md
    python -m mope.book.colab_notebook --check   # exit 1, naming each .ipynb out of date with its .md

The ``.md`` pages are the source; their ``.ipynb`` copies are written from them, never edited. Sphinx
builds the book from the MyST of a page; Jupyter and Colab run the notebook cell by cell and render
its Markdown cells as they are. So the notebook of a page is its MyST written out:

* each ``{eval:figure}`` becomes a code cell that displays the figure where the book places it (tagged
  ``book-figure``), followed by its caption with the book's figure number;
* each paragraph with an inline computed value (the ``eval`` role) becomes a code cell that displays the paragraph as
  Markdown with the values filled in (tagged ``book-prose``; Colab shows it as a form, code hidden);
* each ``literalinclude`` becomes the source it includes, read now with Sphinx's own reader (so its
  ``pyobject``, ``lines`` and other options select what the book shows);
* tabs and dropdowns become headings, proofs plain paragraphs, cross-references and citations links
  into the published book (:mod:`mope.book.plain_markdown`);
* a cell after the Colab set-up cell makes the Markdown that cells display plain too (the book renders
  a displayed Markdown output as MyST: the findings' tabs, the dropdowns of tables).

The code cells are the page's own, in order, with their tags.
"""
from __future__ import annotations

import argparse
import hashlib
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import jupytext
import nbformat

from mope.book.plain_markdown import ROOT, Book, MystError, blocks_to_pieces, raw_myst, rewrite_roles, toc_pages

FIGURE_TAG, PROSE_TAG, OUTPUTS_TAG = "book-figure", "book-prose", "book-markdown-outputs"
EVAL_ROLE = re.compile(r"\{eval\}`")
COLAB_MARKER = "google.colab"
OUTPUTS_CELL = '''\
# Markdown that cells display is written for the book (MyST: tabs, dropdowns, cross-references):
# from here on it shows as plain Markdown, as the book renders it.
from mope.book.plain_markdown import show_markdown_outputs_plainly

show_markdown_outputs_plainly()'''


def executable_pages(root: Path = ROOT) -> list[Path]:
    """The pages of the table of contents that execute (a kernelspec in their front matter)."""
    pages = [root / f"{name}.md" for name, _ in toc_pages(root)]
    return [p for p in pages if p.is_file() and "kernelspec:" in p.read_text()[:2000]]


def include_source(root: Path):
    """What a ``literalinclude`` of the book shows, read as Sphinx reads it."""
    from sphinx.directives.code import LiteralIncludeReader

    def include(argument: str, options: dict[str, str]) -> str:
        path = root / argument.lstrip("/")
        if not path.is_file():
            raise MystError(f"literalinclude {argument}: no such file")
        parsed = {key: (int(value) if key in ("dedent", "tab-width", "lineno-start") else value)
                  for key, value in options.items() if key not in ("caption", "language", "name", "linenos")}
        text, _ = LiteralIncludeReader(str(path), parsed, SimpleNamespace(source_encoding="utf-8")).read()
        return text

    return include


def _cell_id(page: str, index: int, source: str) -> str:
    return hashlib.sha1(f"{page}\n{index}\n{source}".encode()).hexdigest()[:12]


def _prose_cell(text: str, book: Book, page: str) -> str:
    """The code of a cell that displays ``text`` as Markdown with its computed (``eval``) values filled in."""
    values: list[str] = []

    def placeholder(expression: str) -> str:
        values.append(expression.strip())
        return f"\x00{len(values) - 1}\x00"

    written = rewrite_roles(text, book, page, evaluate=placeholder)
    if '"""' in written:
        raise MystError(f"{page}: a paragraph with {{eval}} holds '\"\"\"', which the displaying cell cannot quote")
    escaped = written.replace("{", "{{").replace("}", "}}")
    escaped = re.sub("\x00(\\d+)\x00", lambda m: "{" + values[int(m[1])] + "}", escaped)
    return ("#@title The book's text, with the numbers computed above\n"
            "from IPython.display import Markdown\n\n"
            f'Markdown(rf"""\n{escaped}\n""")')


def _split_paragraphs(text: str) -> list[str]:
    """Markdown split at blank lines outside code blocks and display maths."""
    chunks, current, fence, maths = [], [], None, False
    for line in text.split("\n"):
        stripped = line.strip()
        if fence is None and re.match(r"^(`{3,}|~{3,})", stripped):
            fence = re.match(r"^(`{3,}|~{3,})", stripped)[1]
        elif fence is not None and stripped == fence:
            fence = None
        elif fence is None and stripped.startswith("$$") and not (stripped.endswith("$$") and len(stripped) > 2):
            maths = not maths
        if not stripped and fence is None and not maths:
            if current:
                chunks.append("\n".join(current))
            current = []
        else:
            current.append(line)
    if current:
        chunks.append("\n".join(current))
    return chunks


def colab_notebook(path: Path, book: Book | None = None, root: Path = ROOT) -> nbformat.NotebookNode:
    """The notebook Colab opens for the page at ``path`` (a jupytext MyST page of the book)."""
    book = book or Book.from_repository(root)
    page = path.resolve().relative_to(root.resolve()).with_suffix("").as_posix()
    source = jupytext.read(path)
    include = include_source(root)
    cells: list[nbformat.NotebookNode] = []

    def markdown(text: str) -> None:
        if cells and cells[-1].cell_type == "markdown":
            cells[-1].source += "\n\n" + text
        else:
            cells.append(nbformat.v4.new_markdown_cell(text))

    def code(text: str, tags: list[str], colab_form: bool = False) -> None:
        cell = nbformat.v4.new_code_cell(text)
        cell.metadata["tags"] = tags
        if colab_form:  # Colab shows the cell's title and output, its code folded
            cell.metadata["cellView"] = "form"
            cell.metadata["jupyter"] = {"source_hidden": True}
        cells.append(cell)

    level = 1
    for cell in source.cells:
        if cell.cell_type == "code":
            copy = nbformat.v4.new_code_cell(cell.source)
            copy.metadata.update({key: cell.metadata[key] for key in ("tags", "mystnb") if key in cell.metadata})
            cells.append(copy)
            if COLAB_MARKER in cell.source and not any(c.cell_type == "code" for c in cells[:-1]):
                code(OUTPUTS_CELL, [OUTPUTS_TAG])
            continue
        if cell.cell_type != "markdown":
            cells.append(cell)
            continue
        headings = re.findall(r"^(#{1,6})\s", re.sub(r"^(`{3,}|~{3,}).*?^\1\s*$", "", cell.source, flags=re.M | re.S),
                              re.M)  # the headings of the cell, none from its code blocks
        for piece in blocks_to_pieces(cell.source, book, page=page, heading_level=level, include=include):
            if piece.kind == "figure":
                code(f"#@title {piece.title}\ndisplay({piece.text})", [FIGURE_TAG], colab_form=True)
                continue
            pending: list[str] = []
            for paragraph in _split_paragraphs(piece.text):
                if EVAL_ROLE.search(paragraph):
                    if pending:
                        markdown(rewrite_roles("\n\n".join(pending), book, page))
                        pending = []
                    code(_prose_cell(paragraph, book, page), [PROSE_TAG], colab_form=True)
                else:
                    pending.append(paragraph)
            if pending:
                markdown(rewrite_roles("\n\n".join(pending), book, page))
        if headings:
            level = len(headings[-1])

    notebook = nbformat.v4.new_notebook()
    notebook.metadata = {"kernelspec": source.metadata["kernelspec"],
                         "language_info": {"name": "python"},
                         "colab": {"provenance": []}}
    for index, cell in enumerate(cells):
        cell.id = _cell_id(page, index, cell.source)
    notebook.cells = cells
    return notebook


def rendering_problems(executed: nbformat.NotebookNode) -> list[str]:
    """What an executed Colab notebook fails to show as the book does: a figure cell without an
    image, MyST left in a Markdown cell or in a displayed Markdown output."""
    problems = []
    for index, cell in enumerate(executed.cells):
        if cell.cell_type == "markdown" and (marks := raw_myst(cell.source)):
            problems.append(f"Markdown cell {index} shows raw MyST: {marks}")
        if cell.cell_type != "code":
            continue
        if FIGURE_TAG in cell.metadata.get("tags", []) and not any(
                "image/png" in output.get("data", {}) for output in cell.get("outputs", [])):
            problems.append(f"cell {index} ({cell.source.splitlines()[-1]}) shows no image")
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if (marks := raw_myst(data.get("text/markdown", ""))):
                problems.append(f"cell {index} displays Markdown with raw MyST: {marks}")
            if "text/markdown" not in data and str(data.get("text/plain", "")).startswith(
                    "<IPython.core.display.Markdown object>"):
                problems.append(f"cell {index} displays Markdown that could not be written plainly (see its stderr)")
    return problems


def notebook_text(path: Path, book: Book | None = None, root: Path = ROOT) -> str:
    """The .ipynb file of the page at ``path``, as written to disk."""
    return nbformat.writes(colab_notebook(path, book, root)) + "\n"


def stale_notebooks(root: Path = ROOT) -> list[Path]:
    """The committed .ipynb copies that differ from what their .md page converts to now."""
    book = Book.from_repository(root)
    stale = []
    for page in executable_pages(root):
        paired = page.with_suffix(".ipynb")
        if not paired.is_file() or paired.read_text() != notebook_text(page, book, root):
            stale.append(paired)
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only name the .ipynb files out of date")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_notebooks()
        for paired in stale:
            print(f"{paired.relative_to(ROOT)} is out of date with its .md: run python -m mope.book.colab_notebook")
        return 1 if stale else 0
    book = Book.from_repository()
    for page in executable_pages():
        page.with_suffix(".ipynb").write_text(notebook_text(page, book))
        print(f"wrote {page.with_suffix('.ipynb').relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
