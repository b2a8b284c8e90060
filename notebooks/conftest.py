"""Collect the book's jupytext notebooks (``notebooks/NN_*.md``) with nbval.

nbval only collects ``.ipynb`` files. Under ``--nbval`` or ``--nbval-lax`` this hook converts each
``NN_*.md`` chapter to a notebook in memory with jupytext and hands it to nbval's own collector
(:class:`nbval.plugin.IPyNbFile`), so ``python -m pytest notebooks --nbval-lax`` runs every chapter
cell by cell in a fresh kernel, with the notebook's directory as working directory.

The paired ``NN_*.ipynb`` copies (committed for Colab, outputs stripped) are ignored here, so no
chapter runs twice; ``tests/test_book.py`` checks that they match the ``.md`` sources.

The kernel runs in the smoke preset (``MOPE_PRESET=smoke``) and writes results into a temporary
directory (``MOPE_RESULTS_DIR``) unless the caller sets either variable: a test run never touches
the repository's ``results/``.
"""
from __future__ import annotations

import os
import re
import tempfile

import jupytext
import pytest
from nbval import plugin as nbval_plugin

collect_ignore_glob = ["*.ipynb"]

CHAPTER = re.compile(r"^\d\d_.*\.md$")
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
    ``read`` returns the jupytext conversion, everything else is nbformat's."""

    def __init__(self, nbformat_module, notebook):
        self._nbformat = nbformat_module
        self._notebook = notebook

    def read(self, *args, **kwargs):
        return self._notebook

    def __getattr__(self, name):
        return getattr(self._nbformat, name)


class JupytextNotebook(nbval_plugin.IPyNbFile):
    """nbval's notebook collector, fed from a jupytext Markdown file."""

    def collect(self):
        notebook = jupytext.read(self.path)
        real = nbval_plugin.nbformat
        nbval_plugin.nbformat = _NotebookReader(real, notebook)
        try:
            yield from super().collect()
        finally:
            nbval_plugin.nbformat = real

    def setup(self):
        # the kernel inherits the environment at start-up: set ours for that moment only
        saved = dict(os.environ)
        os.environ.update(_kernel_environment())
        try:
            super().setup()
        finally:
            os.environ.clear()
            os.environ.update(saved)


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
        return JupytextNotebook.from_parent(parent, path=file_path)
    return None
