"""Every table read on a phone (issue 73): book/_ext/phone_tables.py labels each cell of a built page's tables with
its column's name and marks the tables the stylesheet stacks into cards on a narrow screen.
``scripts/check_book_html.py`` fails a table wider than its box at 400 px in the built book."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from loading import load

ROOT = Path(__file__).resolve().parents[1]
BUILT = ROOT / "_build" / "html"


phone_tables = load("phone_tables", ROOT / "book" / "_ext" / "phone_tables.py")


def table(*header: str, rows: int = 2) -> str:
    head = "".join(f'<th class="head"><p>{name}</p></th>' for name in header)
    body = "".join('<tr class="row-even">' + "".join(f"<td><p>{r}.{c}</p></td>" for c in range(len(header))) + "</tr>"
                   for r in range(rows))
    return (f'<div class="pst-scrollable-table-container"><table class="table">\n<thead>\n<tr class="row-odd">{head}'
            f"</tr>\n</thead>\n<tbody>\n{body}\n</tbody>\n</table>\n</div>")


def test_each_cell_is_labelled_with_its_column_and_a_wide_table_is_stacked():
    page = table("model", "paper val", "a &amp; <code>b</code>", "<code>cpu</code>")
    marked = phone_tables.mark_tables(page)
    assert '<table class="table book-stacked">' in marked
    labels = re.findall(r'<td data-label="([^"]*)"', marked)
    assert labels == ["model", "paper val", "a &amp; b", "cpu"] * 2
    assert phone_tables.mark_tables(marked) == marked  # marking twice changes nothing


def test_a_narrow_table_keeps_its_rows_but_a_table_of_verdicts_is_stacked():
    assert "book-stacked" not in phone_tables.mark_tables(table("pair", "initial σ", "learned σ"))
    assert phone_tables.table_classes(["model", "verdict"]) == ["book-stacked"]
    assert phone_tables.table_classes(["claim", "standing", "cpu"]) == ["book-claims", "book-standings", "book-stacked"]
    assert phone_tables.table_classes(["claim", "paper says", "verdict"]) == ["book-claims", "book-stacked"]
    assert phone_tables.table_classes(["claim", "kind", "what is measured"]) == ["book-claims", "book-stacked"]


def test_a_table_without_a_header_or_with_a_spanning_header_is_left_alone():
    plain = "<table><tbody><tr><td>1</td></tr></tbody></table>"
    assert phone_tables.mark_tables(plain) == plain
    spanning = table("a", "b", "c", "d").replace('<th class="head">', '<th class="head" colspan="2">', 1)
    assert phone_tables.mark_tables(spanning) == spanning


@pytest.mark.skipif(not (BUILT / "notebooks" / "04_reproduction.html").is_file(), reason="the book is not built")
def test_the_built_tables_of_results_are_stacked_on_a_phone():
    chapter_4 = (BUILT / "notebooks" / "04_reproduction.html").read_text(encoding="utf-8")
    chapter_6 = (BUILT / "notebooks" / "06_stress_tests.html").read_text(encoding="utf-8")
    assert re.search(r'<table class="[^"]*book-stacked[^"]*">\s*<thead>\s*<tr[^>]*><th[^>]*><p>model</p>', chapter_4)
    assert 'data-label="share that survives"' in chapter_6
