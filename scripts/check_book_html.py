#!/usr/bin/env python3
"""Check a built Jupyter Book in a real headless browser.

    python scripts/check_book_html.py _build/html [--screenshots DIR] [--pages a.html b.html]

Two passes over every ``*.html`` file of the build:

1. **Static** (standard library only): every internal link (``href`` to a local file, with its
   ``#anchor`` checked against the ``id``s of the target page) resolves; every ``<img>`` source is a
   file on disk that decodes as PNG / JPEG / GIF / SVG with a non-zero size; every script and
   stylesheet is a file of the build, none from another host (the book must read offline); every figure's PNG
   records its text as ``mope.book.figure_png`` measured it when it was drawn, and no text of it overlaps another
   or is cut at its edge. The bytes of each page's figures, as a browser fetches them, are printed.
2. **Browser**: the build is served by ``http.server`` on 127.0.0.1 and every page is loaded in
   headless Chromium driven over the DevTools protocol (tornado's websocket client, which the
   notebook kernel already depends on). After the page's load event, its images decoded, MathJax
   done and every dropdown opened (a body the book's script keeps folded until its dropdown opens, as the API
   page's, must be put in place), a page passes when

   - it has a title and a main article, and every ``<img>`` decodes with ``naturalWidth > 0``;
   - every formula Sphinx marks as maths was rendered by MathJax, and no TeX is left in the text
     (``$$``, ``\\(``, ``\\begin{``, ``\\omega``, ``$x^2$`` ... outside code);
   - every image of the article sits in a ``<figure>`` with a non-empty caption and is shown at
     (nearly) the width its page gives it, so the text drawn in it is not shrunk to fit the column; it has
     twice the pixels it is shown at (``mope.book.figure_style.PIXEL_DENSITY``: sharp on a phone's screen);
   - no table cell's content is wider than the cell (clipped, or spilling into its neighbour), and no
     claims table is wider than the column at 1280 px (each preset's column in view, none behind a scroll);
   - no path of the machine that built it (``/work/...``, ``/home/...``, ``file://``) appears in
     its text or links.

   - no printed output (a cell's output block) is wider than the column: long lines wrap, none is cut
     off at the column's edge (a code listing a cell displays keeps its indentation and scrolls inside
     its box, with the fade cue of the book's stylesheet).

3. **Length and narrow screens**: each page's height at 1280 px is measured and printed (once the web
   fonts have loaded, 1.5 s after the load event at the earliest, and the height has stopped changing:
   what a reader's browser shows); the check
   fails when a page is taller than ``--max-page-height`` (PAGE_HEIGHT_LIMIT) or the pages a reader reads in
   order (the introduction and the numbered chapters, READING_PAGES) are together taller than
   ``--max-reading-height`` (READING_HEIGHT_LIMIT), or the introduction alone taller than ``--max-intro-height``
   (INTRO_HEIGHT_LIMIT); the limits and their history are written once, below. At a 400 px viewport no page may scroll sideways and nothing
   of the article may stick out of the screen: a wide table, formula or figure scrolls inside its own
   box, and a table that does carries a visible cue (its box's right edge fades, a mask or background
   image of the book's stylesheet, while more lies beyond it). Every cell of a table's "verdict"
   column, in every tab, must lie on the screen itself (the book stacks such tables on a phone), and so
   must every cell of the claims across every preset (headers "claim", "standing", then one a preset). No
   figure's image is wider than its column (its ``<figure>``) or the screen, and its smallest text, as its PNG
   records it (points, at its dpi), is shown at 9 CSS pt or more at both widths, every dropdown opened at 400 px
   (its points × dpi / 96 × the width shown / its pixels): the book draws its figures for a phone's column, so none scrolls sideways, loses a
   part or reads small; and each still has twice the pixels it is shown at.

   ``--screenshots DIR`` saves a PNG of the chosen pages (at 1280 px, and at 400 px as ``*-400.png``).

Colab launch links must open a paired ``.ipynb`` that exists in the repository (Colab cannot read
the jupytext Markdown sources).

Requests to other hosts are refused inside the browser unless ``--allow-external`` is given, so
the check runs offline and never waits on a network. Every problem is printed, one line each, with
the page it was found on, then the height of every page. Exit status 0 only if nothing is broken; the
last line is the summary ("N pages, M figures, K internal links, F formulas rendered by MathJax, 0 broken").

This script is the command, its limits and its report; the passes lie beside it in ``scripts/book_html/``: the
static pass (``static_pass``), the browser pass (``browser_pass``), the probes run in each page (``probes``) and
the DevTools client (``devtools``).
"""
from __future__ import annotations

import argparse
import asyncio
import fnmatch
import sys
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:  # scripts/book_html/ beside it, however this script is loaded (the tests load it by path)
    sys.path.insert(0, HERE)
from book_html.browser_pass import BROWSERS, browser_check, find_browser, serve  # noqa: E402
from book_html.static_pass import figure_bytes, html_pages, static_check  # noqa: E402


PAGE_HEIGHT_LIMIT = 12_000  # px at 1280 px: no page taller
# px at 1280 px: the introduction and the chapters together, a ratchet against bloat: it rises only with
# content a reader needs, in a commit that says what. 60,000 until 2026-12-03; 65,000 for the introduction's
# figure of every claim, chapter 4's token budget and the figures stacked for phones (64,627 px); 67,500 when
# cpu-long-4x joined the chapters (a tab or a line on each table that reads it, its verdicts: 65,790 px).
# Chapter 1, the tallest, was read section by section then: its derivations are already collapsed code cells,
# and what shows is each statement, the paper's words and our reading of them. Down to 65,000 on 2026-12-04, when
# the introduction's findings went behind a dropdown under the bottom line (64,285 px; the introduction 7,831).
# Down to 53,500 on 2026-12-04 (53,328 px; the introduction 4,033), when the derivations, the rules'
# history, the claims tables, the per-preset tabs of the chapters' controls, each chapter's claims by standing and
# the statistics behind each verdict went behind dropdowns; the introduction is held to 4,500 on its own.
# Down to 49,000 on 2026-12-04 (48,280 px; the introduction 3,986), when the chapters' secondary figures went
# behind dropdowns, their :name: kept: RoPE, Morlet-RoPE, ALiBi and the toy EGA-1 gate (chapter 2), the distance
# to Table 2 and the gaps over training (4), Figure 4's boundary (5), the two contexts (6), the learned centres and
# the pairs without the bound (7); each chapter's opening, main figure, main table and verdicts stay in view. The
# margin is what another machine's fonts add (about 64 px a page).
# Down to 45,000, issue 53's target, on 2026-12-04 (44,314 px; the introduction 3,901), when chapter 2's redrawn
# Figures 1 and 2 and chapter 4's every-seed figure went behind dropdowns (their :name: kept), every heading and
# dropdown title that wrapped was cut to one line, and what was said twice was said once: §6.1's quotation (in
# chapter 4), the dash note (in the introduction), chapters 5-7's pointers to the verdict words, chapter 4's training
# step (in its dropdown).
READING_HEIGHT_LIMIT = 45_000
INTRO_HEIGHT_LIMIT = 4_500  # px at 1280 px: the introduction, the page every reader opens
INTRO = "book/intro.html"
# what a reader reads in order: the introduction and the numbered chapters (not "MoPE and EGA in your own model",
# notebooks/own_model, a page of "Using this book")
READING_PAGES = (INTRO, "notebooks/[0-9][0-9]_*")
WIDE, NARROW = 1280, 400


def is_reading_page(name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, page) for page in READING_PAGES)


# Sphinx's generated indexes grow with the package's members and are reached by their letter links
# and the search box, not read from the top: no page limit for them.
GENERATED_INDEXES = ("genindex.html", "py-modindex.html", "search.html")


def height_problems(heights: dict[str, int], page_limit: int, reading_limit: int,
                    intro_limit: int = INTRO_HEIGHT_LIMIT) -> list[str]:
    """Pages taller than ``page_limit`` (but the generated indexes), the introduction taller than ``intro_limit``,
    and the reading pages together taller than ``reading_limit``."""
    problems = [f"{name}: {height:,} px tall at {WIDE} px, above the limit of {page_limit:,} px"
                for name, height in heights.items() if height > page_limit and name not in GENERATED_INDEXES]
    if heights.get(INTRO, 0) > intro_limit:
        problems.append(f"{INTRO}: {heights[INTRO]:,} px tall at {WIDE} px, above the introduction's limit of "
                        f"{intro_limit:,} px")
    reading = sum(height for name, height in heights.items() if is_reading_page(name))
    if reading > reading_limit:
        problems.append(f"the introduction and the chapters are {reading:,} px tall at {WIDE} px together, "
                        f"above the limit of {reading_limit:,} px")
    return problems


def height_report(heights: dict[str, int]) -> list[str]:
    """One line per page (its height at 1280 px), then the total of the reading pages and of all."""
    width = max(map(len, heights), default=0)
    lines = [f"height {name:<{width}} {height:>8,} px" + ("  (reading)" if is_reading_page(name) else "")
             for name, height in heights.items()]
    reading = sum(height for name, height in heights.items() if is_reading_page(name))
    lines.append(f"height {'introduction and chapters':<{width}} {reading:>8,} px")
    lines.append(f"height {'all pages':<{width}} {sum(heights.values()):>8,} px")
    return lines


def figure_report(root: Path, pages: list[Path]) -> list[str]:
    """One line per page that shows figures: their bytes as a browser fetches them (WebP copies where the build made
    them), then the total."""
    sizes = {page.relative_to(root).as_posix(): figure_bytes(root, page) for page in pages}
    sizes = {name: size for name, size in sizes.items() if size}
    width = max(map(len, sizes), default=0)
    lines = [f"figures {name:<{width}} {size / 1024:>8,.1f} KiB" for name, size in sizes.items()]
    return lines + [f"figures {'all pages':<{width}} {sum(sizes.values()) / 1024:>8,.1f} KiB"] if sizes else []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html_dir", type=Path, help="the built book, e.g. _build/html")
    parser.add_argument("--browser", help="Chromium executable (default: the first of %s on PATH)" % ", ".join(BROWSERS))
    parser.add_argument("--no-browser", action="store_true", help="only the static pass")
    parser.add_argument("--screenshots", type=Path, help="save PNG screenshots into this directory")
    parser.add_argument("--pages", nargs="*", default=[],
                        help="pages (relative to html_dir) to screenshot; default: all pages")
    parser.add_argument("--allow-external", action="store_true", help="let the browser reach other hosts")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per page (default 60)")
    parser.add_argument("--max-page-height", type=int, default=PAGE_HEIGHT_LIMIT,
                        help=f"px at {WIDE} px a page may be tall (default {PAGE_HEIGHT_LIMIT:,})")
    parser.add_argument("--max-reading-height", type=int, default=READING_HEIGHT_LIMIT,
                        help=f"px at {WIDE} px the introduction and chapters may be tall together "
                             f"(default {READING_HEIGHT_LIMIT:,})")
    parser.add_argument("--max-intro-height", type=int, default=INTRO_HEIGHT_LIMIT,
                        help=f"px at {WIDE} px the introduction may be tall (default {INTRO_HEIGHT_LIMIT:,})")
    parser.add_argument("--repository", type=Path,
                        help="repository root, where Colab links must find their .ipynb "
                             "(default: the folder holding _build, when html_dir is <repo>/_build/html)")
    args = parser.parse_args(argv)

    root = args.html_dir.resolve()
    if not (root / "index.html").is_file():
        print(f"{root}: no index.html; build the book first (make book)", file=sys.stderr)
        return 2
    pages = html_pages(root)
    repository = args.repository
    if repository is None and root.parent.name == "_build":
        repository = root.parent.parent
    n_links, n_figures, n_colab, problems = static_check(root, pages, repository)
    browser_images = browser_formulas = None
    heights: dict[str, int] = {}
    if not args.no_browser:
        if args.screenshots:
            args.screenshots.mkdir(parents=True, exist_ok=True)
        browser = find_browser(args.browser)
        with_server = serve(root)
        try:
            browser_images, browser_formulas, browser_problems, heights = asyncio.run(browser_check(
                browser, with_server[1], root, pages, args.screenshots, set(args.pages),
                args.allow_external, args.timeout, WIDE, NARROW))
        finally:
            with_server[0].shutdown()
        problems += browser_problems + height_problems(heights, args.max_page_height, args.max_reading_height,
                                                                      args.max_intro_height)
    for problem in problems:
        print("BROKEN", problem)
    for line in height_report(heights) if heights else []:
        print(line)
    for line in figure_report(root, pages):
        print(line)
    seen = "" if browser_images is None else f" ({browser_images} <img> decoded in Chromium)"
    colab = f", {n_colab} Colab links" if n_colab else ""
    maths = "" if browser_formulas is None else f", {browser_formulas} formulas rendered by MathJax"
    print(f"{len(pages)} pages, {n_figures} figures{seen}, {n_links} internal links{colab}{maths}, "
          f"{len(problems)} broken")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
