"""Markdown tables for reading: every column given (:func:`plain_markdown_table`), or only those that say
something (:func:`markdown_table`), and whether a table holds nothing but dashes (:func:`says_nothing`)."""
from __future__ import annotations

import re
from collections.abc import Sequence

from mope.evidence.estimates import DASH


def plain_markdown_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A MyST table of every column given, a pipe in a cell escaped and a line break made ``<br>`` (the book's
    tables leave out the columns that say nothing first: :func:`markdown_table`)."""
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|").replace("\n", "<br>") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


#: Cells that hold nothing: a column of only these is left out of a table.
EMPTY_CELLS = {DASH, "", "not run"}


def informative(header: Sequence[str], rows: Sequence[Sequence[str]]) -> tuple[list[str], list[list[str]], str]:
    """``header`` and ``rows`` without the columns (the first, which names the rows, always kept) that say
    nothing: every cell empty (:data:`EMPTY_CELLS`), or, over two rows or more, every cell the same; and
    a sentence that says what was left out ("" when nothing was)."""
    rows = [[str(cell) for cell in row] for row in rows]
    keep, empty, constant = [0], [], []
    for index in range(1, len(header)):
        cells = {row[index] for row in rows if index < len(row)}
        if rows and cells <= EMPTY_CELLS:
            empty.append(header[index])
        elif len(rows) > 1 and len(cells) == 1:
            constant.append(f"{header[index]}: {cells.pop()}")
        else:
            keep.append(index)
    said = []
    if empty:
        said.append(f"Left out, as nothing is there (not run, or not reported by the paper): {', '.join(empty)}.")
    if constant:
        said.append(f"In every row: {'; '.join(constant)}.")
    return [header[i] for i in keep], [[row[i] for i in keep if i < len(row)] for row in rows], " ".join(said)


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]], note: str = "") -> str:
    """A MyST table of the columns that say something (:func:`informative`, which names the others under
    the table); ``note`` goes under it too."""
    header, rows, left_out = informative(header, rows)
    notes = " ".join(part for part in (left_out, note) if part)
    return plain_markdown_table(header, rows) + (f"\n\n{notes}" if notes else "")


def _cells(line: str) -> list[str]:
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def says_nothing(markdown: str) -> bool:
    """Whether every table of ``markdown`` (and there is one) has nothing but empty cells beyond its first
    column: a tab that holds only dashes."""
    tables = re.findall(r"(?m)^\|.*\|\n\|(?:\s*:?-+:?\s*\|)+\n((?:\|.*\|\n?)*)", markdown)
    return bool(tables) and all(cell in EMPTY_CELLS for body in tables for line in body.splitlines() if line
                                for cell in _cells(line)[1:])
