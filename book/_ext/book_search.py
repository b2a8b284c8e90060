"""Sphinx extension: the book's search finds the numbers a reader searches for and ranks the chapters above the API.

**Numbers.** Sphinx's English search splits words at every character that is not a letter or digit, so
``0.119`` is indexed as ``0`` and ``119``, and its query drops both (a term made of digits alone is skipped):
a number of the book could not be found. :class:`BookSearch` keeps a decimal number whole, in the index
(:data:`WORD`) and in the query (:data:`SPLIT_QUERY`, the same rule in JavaScript).

**Ranking.** The API page documents every function of the package; its objects outscore a chapter's words
(a search for "Holm" opened on a function). :data:`SCORER` lowers every result on the API page below any
chapter's, keeping Sphinx's other scores.
"""
from __future__ import annotations

import re
from pathlib import Path

from sphinx.search.en import SearchEnglish

#: A decimal number (0.119, 1.4, 3,001 is two words) kept whole, else a word as Sphinx's default splits it.
WORD = re.compile(r"\d+(?:\.\d+)+|\w+")
#: The query split by the same rule: at anything but letters, digits, "_" and a point between digits.
SPLIT_QUERY = r"""
function splitQuery(query) {
  return query.split(/(?:(?<!\d)\.|\.(?!\d)|[^\p{L}\p{N}_.])+/u).filter((term) => term);
}
"""
#: Sphinx's default scores (sphinx/themes/basic/static/searchtools.js), and every result on the API page
#: ("book/api") lowered by 100, below any chapter's.
SCORER = Path(__file__).with_name("book_search_scorer.js")


class BookSearch(SearchEnglish):
    """English search that keeps decimal numbers whole."""

    _word_re = WORD
    js_splitter_code = SPLIT_QUERY


def use_scorer(app, config) -> None:
    config.html_search_scorer = str(SCORER)


def setup(app):
    app.add_search_language(BookSearch)
    app.connect("config-inited", use_scorer)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
