"""Sphinx extension: the theme's tab stops skip the boxes of closed dropdowns (chapter 1's blocking time).

pydata-sphinx-theme's script (``_static/scripts/pydata-sphinx-theme.js``), once a page has loaded, makes every code
listing and output box a tab stop where it scrolls (``tabindex`` 0, -1 elsewhere), reading each box's size. A box in
a closed dropdown has no layout: reading its size makes the browser lay out the dropdown's hidden body, and chapter
1's collapsed derivations hold thousands of typeset elements: that one task was the most of the page's main-thread
work after its load (Lighthouse's total blocking time). Once the HTML builder has written the book
(``build-finished``), :func:`skip_closed_dropdowns` makes the theme's loop pass over a box inside a closed
``<details>``; ``_static/book.js`` gives the boxes of a dropdown the theme's tab stops when it opens, measured then.

The theme's script is minified: the loop is found by its exact text (:data:`LOOP`), and a theme whose script no
longer holds it exactly once stops the build with an error naming the file, rather than leaving it unchanged
unnoticed.
"""
from __future__ import annotations

from pathlib import Path

SCRIPT = Path("_static") / "scripts" / "pydata-sphinx-theme.js"
#: The theme's loop over its scroll boxes (pydata-sphinx-theme 0.17, ``addTabStopsToScrollableElements``), from the
#: join of its selectors to the assignment of each box's ``tabindex``.
LOOP = '.join(", ")).forEach(e=>{e.tabIndex='
SKIPPING = '.join(", ")).forEach(e=>{if(e.closest("details:not([open])"))return;e.tabIndex='


def skip_closed_dropdowns(script: str) -> str:
    """``script`` (the theme's) with its tab-stop loop passing over the boxes inside a closed ``<details>``."""
    if SKIPPING in script:
        return script
    if script.count(LOOP) != 1:
        raise ValueError(f"{SCRIPT}: the theme's tab-stop loop ({LOOP!r}) is not found exactly once "
                         f"({script.count(LOOP)} times); its script changed: update book/_ext/theme_tab_stops.py")
    return script.replace(LOOP, SKIPPING)


def rewrite_theme_script(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    path = Path(app.outdir) / SCRIPT
    path.write_text(skip_closed_dropdowns(path.read_text(encoding="utf-8")), encoding="utf-8")


def setup(app):
    app.connect("build-finished", rewrite_theme_script)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
