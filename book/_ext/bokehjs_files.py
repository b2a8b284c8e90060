"""Sphinx extension: BokehJS's files in the build's ``_static/bokehjs/``, named with Bokeh's version (issue 73).

The explorer's page fetches BokehJS from the book itself when its figures near the screen, a file a browser keeps
between visits, instead of carrying it inline (:mod:`mope.book.bokeh_page`); the files are copied from the
installed ``bokeh`` package, the one that wrote the figures' JSON, so that the two always agree.
"""
from __future__ import annotations

from pathlib import Path

from mope.book.bokeh_page import copy_bokehjs


def copy_files(app, exception) -> None:
    if exception is None and app.builder.format == "html":
        copy_bokehjs(Path(app.outdir) / "_static")


def setup(app):
    app.connect("build-finished", copy_files)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
