"""The book layer: what the chapters show.

Tables (:mod:`mope.book.tables`; the claims tables, :mod:`mope.book.claims_tables`; Markdown tables in
general, :mod:`mope.book.markdown_tables`), figures of runs (reproducing Table 2,
:mod:`mope.book.reproduction_figures`; what MoPE learns, :mod:`mope.book.learned_figures`; the stress tests,
:mod:`mope.book.stress_figures`; how every figure looks, :mod:`mope.book.figure_style`) and figures that need no
run (:mod:`mope.book.plots`), the introduction's figure of every claim on every preset
(:mod:`mope.book.claims_figure`), one colour per model (:mod:`mope.book.palette`), the interactive
figures (:mod:`mope.book.explorer`; on a page, :mod:`mope.book.bokeh_page`), which runs a chapter shows (:mod:`mope.book.chapter_runs`) and
where each number comes from (:mod:`mope.book.run_records`). Only the command line sits above it.
"""
import importlib.util

from mope.errors import missing_extra_error

# What the layer imports from its extra, "book" (pyproject.toml): the libraries of its figures and of the explorer,
# and the notebooks' format (tests/test_wheel.py checks that the extra installs each). Without one, importing any
# module of the layer is one MissingExtraError naming the extra, not a ModuleNotFoundError from deep inside it.
BOOK_PACKAGES = ("matplotlib", "bokeh", "jupytext")

_missing = [package for package in BOOK_PACKAGES if importlib.util.find_spec(package) is None]
if _missing:
    raise missing_extra_error(", ".join(_missing), "book", "the book layer (mope.book)")
