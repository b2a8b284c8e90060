"""Collect the book's executable pages in ``notebooks/`` (the chapters ``NN_*.md`` and the page "MoPE and EGA in
your own model", ``own_model.md``) with nbval, as the notebooks Colab opens.

nbval only collects ``.ipynb`` files. Under ``--nbval`` or ``--nbval-lax`` this hook converts each
``NN_*.md`` chapter in memory to its Colab notebook (:func:`mope.book.colab_notebook.colab_notebook`,
the conversion that writes the committed ``NN_*.ipynb``) and hands it to nbval's own collector
(:class:`nbval.plugin.IPyNbFile`), so ``python -m pytest notebooks --nbval-lax`` runs every chapter
cell by cell in a fresh kernel, with the notebook's directory as working directory, as Colab runs it.
After its last cell, one more item per chapter checks what the run showed: an image in every figure
cell and no raw MyST in a Markdown cell or a displayed Markdown output
(:func:`mope.book.colab_notebook.rendering_problems`).

The committed ``NN_*.ipynb`` copies are ignored here, so no chapter runs twice;
``tests/test_colab_notebooks.py`` checks that they match the ``.md`` sources.

The kernel runs in the smoke preset (``MOPE_PRESET=smoke``) and writes results into a temporary
directory (``MOPE_RESULTS_DIR``) unless the caller sets either variable: a test run never touches
the repository's ``results/``.
"""
from __future__ import annotations

import os
import re
import tempfile

import nbformat
import pytest
from nbval import plugin as nbval_plugin

from mope.book.colab_notebook import colab_notebook, rendering_problems

collect_ignore_glob = ["*.ipynb"]

CHAPTER = re.compile(r"^(\d\d_.*|own_model)\.md$")
_RESULTS_DIR = None


def _kernel_environment() -> dict[str, str]:
    global _RESULTS_DIR
    if _RESULTS_DIR is None:
        _RESULTS_DIR = tempfile.mkdtemp(prefix="mope-nbval-results-")
    return {"MOPE_PRESET": os.environ.get("MOPE_PRESET", "smoke"),
            "MOPE_RESULTS_DIR": os.environ.get("MOPE_RESULTS_DIR", _RESULTS_DIR),
            "MPLBACKEND": os.environ.get("MPLBACKEND", "module://matplotlib_inline.backend_inline")}


class _NotebookReader:
    """Stands in for the ``nbformat`` module inside nbval while one chapter is collected:
    ``read`` returns the Colab notebook, everything else is nbformat's."""

    def __init__(self, nbformat_module, notebook):
        self._nbformat = nbformat_module
        self._notebook = notebook

    def read(self, *args, **kwargs):
        return self._notebook

    def __getattr__(self, name):
        return getattr(self._nbformat, name)


class ColabNotebook(nbval_plugin.IPyNbFile):
    """nbval's notebook collector, fed with the Colab notebook of a chapter's MyST page."""

    def collect(self):
        notebook = colab_notebook(self.path)
        real = nbval_plugin.nbformat
        nbval_plugin.nbformat = _NotebookReader(real, notebook)
        try:
            cells = list(super().collect())
        finally:
            nbval_plugin.nbformat = real
        yield from cells
        yield ColabRendering.from_parent(self, name="Colab rendering", notebook=notebook, cells=cells)

    def setup(self):
        # the kernel inherits the environment at start-up: set ours for that moment only
        saved = dict(os.environ)
        os.environ.update(_kernel_environment())
        try:
            super().setup()
        finally:
            os.environ.clear()
            os.environ.update(saved)


class ColabRendering(pytest.Item):
    """After a chapter's cells ran: each figure shown as an image, no MyST left as text."""

    def __init__(self, *, notebook, cells, **kwargs):
        super().__init__(**kwargs)
        self.notebook, self.cells = notebook, cells

    def runtest(self):
        executed = nbformat.from_dict(self.notebook)
        code_cells = [cell for cell in executed.cells if cell.cell_type == "code"]
        for cell, item in zip(code_cells, self.cells):
            if item.test_outputs is None:
                pytest.fail(f"{item.name} did not run: the chapter stopped before its end")
            cell.outputs = item.test_outputs
        problems = rendering_problems(executed)
        assert not problems, f"{self.path.name}, run as Colab runs it:\n" + "\n".join(problems)

    def reportinfo(self):
        return self.path, 0, f"{self.path.name}::Colab rendering"


def _is_notebook(path) -> bool:
    """A chapter that jupytext reads as a notebook (a kernelspec in its front matter)."""
    with open(path, encoding="utf-8") as handle:
        head = handle.read(2000)
    return head.startswith("---") and "kernelspec:" in head


def pytest_collect_file(file_path, parent):
    option = parent.config.option
    if not (getattr(option, "nbval", False) or getattr(option, "nbval_lax", False)):
        return None
    if CHAPTER.match(file_path.name) and _is_notebook(file_path):
        return ColabNotebook.from_parent(parent, path=file_path)
    return None
