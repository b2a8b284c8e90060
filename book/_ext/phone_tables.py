"""Sphinx extension: every table of the book read on a phone without a sideways swipe (issue 73).

Once the HTML builder has written every page (``build-finished``), each ``<table>`` with a header row is marked
for the book's stylesheet (``_static/book.css``), in the HTML itself, so that it is laid out at its first paint:

* each body cell gets its column's name as ``data-label`` (the header's text, tags stripped);
* a table of :data:`STACK_FROM` columns or more, and any with a "verdict" column or whose first column is "claim"
  (a claim's sentence, with what is said of it), gets the class ``book-stacked``: on a narrow screen it is
  a card a row, its first cell the card's title and every other cell under it beside its column's name, so that
  every result is on the screen (Table 2 was 444 px wide in a 364 px column at 400 px, the causal-gate table
  590 px: their answers lay behind a sideways scroll);
* a table whose first column is "claim" gets ``book-claims``, and one whose second is "standing" also
  ``book-standings``: on a wide screen their claims are given the width their sentences need.

A table of two or three columns keeps its rows: it fits a phone's column (``scripts/check_book_html.py`` fails a
table wider than its box at 400 px, whichever layout it has).
"""
from __future__ import annotations

import html
import re
from pathlib import Path

#: A table of this many columns or more is stacked into cards on a narrow screen.
STACK_FROM = 4
TABLE = re.compile(r"(<table\b)([^>]*)(>)(.*?)(</table>)", re.S)
HEAD = re.compile(r"<thead\b[^>]*>(.*?)</thead>", re.S)
ROW = re.compile(r"<tr\b[^>]*>(.*?)</tr>", re.S)
HEADER_CELL = re.compile(r"<th\b([^>]*)>(.*?)</th>", re.S)
BODY = re.compile(r"<tbody\b[^>]*>.*?</tbody>", re.S)
BODY_CELL = re.compile(r"<td\b(?![^>]*\bdata-label=)")
CLASS = re.compile(r'\bclass="([^"]*)"')


def header_texts(table: str) -> list[str] | None:
    """The text of each cell of the table's first header row, None where it has none or a cell spans columns."""
    head = HEAD.search(table)
    row = ROW.search(head[1]) if head else None
    if row is None:
        return None
    cells = HEADER_CELL.findall(row[1])
    if not cells or any("colspan" in attributes for attributes, _ in cells):
        return None
    return [" ".join(html.unescape(re.sub(r"<[^>]+>", "", text)).split()) for _, text in cells]


def table_classes(headers: list[str]) -> list[str]:
    """The classes the book's stylesheet lays a table out by, from its header (see the module's docstring)."""
    classes = []
    claims = bool(headers) and headers[0] == "claim"
    standings = claims and len(headers) > 1 and headers[1] == "standing"
    if claims:
        classes.append("book-claims")
    if standings:
        classes.append("book-standings")
    if len(headers) >= STACK_FROM or claims or any(re.match(r"verdict", h, re.I) for h in headers):
        classes.append("book-stacked")
    return classes


def labelled_body(body: str, headers: list[str]) -> str:
    """``body`` (a ``<tbody>``) with each cell given its column's name as ``data-label``."""
    def row(match: re.Match) -> str:
        column = 0

        def cell(opening: re.Match) -> str:
            nonlocal column
            label = headers[column] if column < len(headers) else ""
            column += 1
            return f'{opening[0]} data-label="{html.escape(label, quote=True)}"'

        return BODY_CELL.sub(cell, match[0])

    return ROW.sub(row, body)


def mark_table(match: re.Match) -> str:
    opening, attributes, close, inner, end = match.groups()
    headers = header_texts(inner)
    if headers is None:
        return match[0]
    classes = table_classes(headers)
    if classes:
        present = CLASS.search(attributes)
        if present is None:
            attributes += f' class="{" ".join(classes)}"'
        else:
            new = [c for c in classes if c not in present[1].split()]
            attributes = attributes[:present.end(1)] + "".join(" " + c for c in new) + attributes[present.end(1):]
    inner = BODY.sub(lambda body: labelled_body(body[0], headers), inner)
    return opening + attributes + close + inner + end


def mark_tables(text: str) -> str:
    """A page with each of its tables marked (see the module's docstring); marking it twice changes nothing."""
    return TABLE.sub(mark_table, text)


def mark_pages(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    for page in outdir.rglob("*.html"):
        if "_static" in page.relative_to(outdir).parts:
            continue
        text = page.read_text(encoding="utf-8")
        marked = mark_tables(text)
        if marked != text:
            page.write_text(marked, encoding="utf-8")


def setup(app):
    app.connect("build-finished", mark_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
