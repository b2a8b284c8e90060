"""How to cite this book, and the paper it executes, as BibTeX entries (the introduction ends with both).

The book's entry is written from ``_config.yml`` (its title, authors, year and the repository's address,
which is written there and nowhere else); the paper's is its entry of ``book/references.bib`` with the
year as the paper has it (the bibliography adds a letter to tell the author's works of 2026 apart).
"""
from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
PAPER_KEY = "zeris2026mope"


def book_bibtex(root: Path = ROOT) -> str:
    """The book's own BibTeX entry, from ``_config.yml`` of the checkout at ``root``."""
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    year = str(config["copyright"])
    return (f"@misc{{mope_executed_{year},\n"
            f"  author       = {{{{{config['author']}}}}},\n"
            f"  title        = {{{config['title']}: an executable companion to ``Beyond Sinusoids: A {{Morlet}} "
            f"Wavelet Framework for Transformer Positional Encoding''}},\n"
            f"  year         = {{{year}}},\n"
            f"  howpublished = {{Jupyter Book}},\n"
            f"  url          = {{{config['repository']['url']}}}\n"
            f"}}")


def paper_bibtex(root: Path = ROOT, key: str = PAPER_KEY) -> str:
    """The paper's BibTeX entry ``key`` of ``book/references.bib``, its year without the bibliography's letter."""
    text = (root / "book" / "references.bib").read_text(encoding="utf-8")
    match = re.search(r"@\w+\{" + re.escape(key) + r",.*?\n\}", text, flags=re.S)
    if match is None:
        raise KeyError(f"no entry {key!r} in {root / 'book' / 'references.bib'}")
    return re.sub(r"(year\s*=\s*\{\d{4})[a-z]\}", r"\1}", match.group(0))
