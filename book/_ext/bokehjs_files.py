"""Sphinx extension: the explorer's page as files of the book (issue 73), once every page is written.

* **BokehJS** in ``_static/bokehjs/``, named with Bokeh's version (``bokeh-<version>.min.js``): the page fetches it when
  its figures near the screen, a file a browser keeps between visits, instead of carrying it inline
  (:mod:`mope.book.bokeh_page`); copied from the installed ``bokeh`` package, the one that wrote the figures' JSON,
  so that the two always agree.
* **Each figure's document** (its JSON) moved out of the page's HTML into
  ``_static/figures/figure-<hash>.js`` (:func:`mope.book.bokeh_page.figure_files`): the page's text arrives and is
  drawn without it. A document no page links any more (an earlier build's) is deleted; one that a page this build did
  not rewrite still links is kept.
"""
from __future__ import annotations

import os
from pathlib import Path

from mope.book.bokeh_page import DOCUMENT_FILE, FIGURES_DIR, INLINE_DOCUMENT, copy_bokehjs, figure_files


def write_files(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    static = outdir / "_static"
    copy_bokehjs(static)
    linked = set()
    for page in outdir.rglob("*.html"):
        if "_static" in page.relative_to(outdir).parts:
            continue
        text = page.read_text(encoding="utf-8")
        if INLINE_DOCUMENT.search(text) is not None:
            static_url = Path(os.path.relpath(static, page.parent)).as_posix()
            text = figure_files(text, static, static_url)
            page.write_text(text, encoding="utf-8")
        linked.update(DOCUMENT_FILE.findall(text))
    for document in sorted((static / FIGURES_DIR).glob("figure-*.js")):
        if document.name not in linked:
            document.unlink()


def setup(app):
    app.connect("build-finished", write_files)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
