r"""Sphinx extension: the formulas typeset when the book is built, so that a page shows its text at once (issue 73).

Sphinx writes each formula as TeX (``<span class="math">\(...\)</span>``, ``<div class="math">...\[...\]</div>``) for
MathJax to typeset in the reader's browser: 161 KiB gzipped of JavaScript and up to 114 KiB of fonts, with the page's
text hidden until it had finished (a formula drawn in place of its TeX takes another size, and the text around it
jumped): the introduction's largest paint took 11.8 s on a throttled phone. Once the HTML builder has written every
page (``build-finished``), this extension instead

* typesets every formula of the book in Node (``typeset_maths.js`` beside this file, with the book's own copy of
  MathJax 3 that sphinx-mathjax-offline copies into ``_static/mathjax``: TeX in, CommonHTML out with the MathML a
  screen reader reads, as the browser drew it), each distinct formula once;
* puts each typeset formula in place of its TeX, writes the stylesheet of them all to ``_static/mathjax-chtml.css``
  (its fonts, the same copy's, load only where a page shows their glyphs; every glyph's box is sized by the
  stylesheet, so nothing moves when they arrive; each font cut to the characters the stylesheet draws, written to
  ``_static/mathjax-subset/`` by fontTools where it is installed: chapter 1's fonts from 105 to about 41 KiB), links it
  from each page with formulas, and takes the MathJax
  scripts out of every page: a page loads no MathJax JavaScript and paints its text, formulas included, at once.

Where Node is not installed (``node`` on the PATH) the pages are left as Sphinx wrote them: MathJax typesets them in
the browser, and the text is shown while it does (the formulas then settle into place).
"""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from sphinx.util import logging

SCRIPT = Path(__file__).with_name("typeset_maths.js")
CSS = "_static/mathjax-chtml.css"
#: the book's copy of MathJax (sphinx-mathjax-offline's, the one the pages' scripts loaded), and where the stylesheet
#: (in ``_static/``) finds its fonts
MATHJAX = "_static/mathjax"
FONT_URL = "mathjax/output/chtml/fonts/woff-v2"
#: The size of a formula against the text around it. MathJax in a browser scales its formulas so that their x-height
#: matches the text's font (127% with Linux's DejaVu Sans, about 120% with a phone's Roboto or San Francisco, whose
#: x-height is about 0.53 em against MathJax's 0.442 em); typeset at build time, they take the phone's size.
SCALE = 1.2
#: Sphinx's formulas: an inline one, and a displayed one with its equation number if it has one (a cell's LaTeX
#: output is a displayed formula too, its <div> of classes "output text_latex math ...").
INLINE = re.compile(r'(<span class="(?:[\w-]+ )*math notranslate nohighlight">)\\\((.*?)\\\)(</span>)', re.S)
DISPLAY = re.compile(r'(<div class="(?:[\w-]+ )*math notranslate nohighlight"[^>]*>(?:\s*<span class="eqno">.*?</span>)?)'
                     r'\s*\\\[(.*?)\\\](\s*</div>)', re.S)
MATHJAX_SCRIPTS = re.compile(r'\s*<script>window\.MathJax = [^<]*</script>'
                             r'|\s*<script defer="defer" src="[^"]*_static/mathjax/[^"]*"></script>')
FONT_FACE = re.compile(r"@font-face\b[^{]*\{")
LOGGER = logging.getLogger(__name__)


def formula(match: re.Match, display: bool) -> tuple[str, bool]:
    """The formula that ``match`` (of :data:`INLINE` or :data:`DISPLAY`) found: (its TeX, unescaped, a displayed one's
    without the blank around it; ``display``)."""
    tex = html.unescape(match[2])
    return (tex.strip() if display else tex), display


def formulas_of(text: str) -> list[tuple[str, bool]]:
    """Every formula of a page as (its TeX, whether it is displayed), inline ones first, each in order."""
    return ([formula(m, False) for m in INLINE.finditer(text)]
            + [formula(m, True) for m in DISPLAY.finditer(text)])


def typeset(formulas: list[tuple[str, bool]], node: str, mathjax: Path) -> tuple[dict[tuple[str, bool], str], str]:
    """({(TeX, display): its <mjx-container>}, the stylesheet of them all), typeset by ``typeset_maths.js``; a
    RuntimeError with the script's last line of error output (what failed, in one line) where it fails, and one saying
    so where its answer is not the JSON of every formula asked (none is ever dropped silently)."""
    distinct = list(dict.fromkeys(formulas))
    request = json.dumps({"mathjax": str(mathjax), "fontURL": FONT_URL, "formulas": distinct})
    result = subprocess.run([node, str(SCRIPT)], input=request, capture_output=True, text=True, encoding="utf-8",
                            check=False)
    if result.returncode != 0:
        raise RuntimeError(result.stderr.strip().splitlines()[-1] if result.stderr.strip() else
                           f"{SCRIPT.name} exited with status {result.returncode}")
    try:
        answer = json.loads(result.stdout)
        html, css = answer["html"], answer["css"]
    except (json.JSONDecodeError, KeyError, TypeError):
        raise RuntimeError(f"{SCRIPT.name} answered with no JSON of typeset formulas: {result.stdout[:200]!r}") from None
    if not isinstance(html, list) or len(html) != len(distinct):
        raise RuntimeError(f"{SCRIPT.name} typeset {len(html) if isinstance(html, list) else 'no'} formulas of "
                           f"{len(distinct)} asked")
    return dict(zip(distinct, html)), css


def stylesheet_of(css: str) -> str:
    """MathJax's stylesheet as the book serves it: formulas at :data:`SCALE` of the text, and each font shown as soon as
    it arrives, the glyphs drawn meanwhile in a fallback font (``font-display: swap``: every glyph's box is sized by
    the stylesheet, so nothing moves, and a paragraph with a formula is not held back by a font still on its way)."""
    css = FONT_FACE.sub(r"\g<0>\n  font-display: swap;", css)
    return f'{css}\nmjx-container[jax="CHTML"] {{\n  font-size: {SCALE:.0%};\n}}\n'


#: Where each font is written cut to the characters the book's formulas draw (in ``_static/``).
SUBSET = "mathjax-subset"
FONT_FILE = re.compile(r'url\("(' + re.escape(FONT_URL) + r'/([\w-]+\.woff))"\)')
CONTENT = re.compile(r'content:\s*"((?:[^"\\]|\\.)*)"')


def drawn_characters(css: str) -> set[str]:
    """Every character a rule of MathJax's stylesheet draws (its ``content``: ``"\\1D465"`` or ``"a"``)."""
    drawn = set()
    for value in CONTENT.findall(css):
        drawn.update(re.sub(r"\\([0-9A-Fa-f]{1,6})\s?|\\(.)",
                            lambda m: chr(int(m[1], 16)) if m[1] else m[2], value))
    return drawn


def subset_fonts(css: str, static: Path) -> str:
    """``css`` with each of its fonts cut to the characters the stylesheet draws, written to ``_static/`` ``SUBSET``;
    as it is where fontTools is not installed. A chapter with formulas fetched 105 KiB of MathJax's fonts (its AMS
    font, 40 KiB, for a few symbols) before its first paint."""
    try:
        from fontTools import subset
    except ImportError:
        return css
    characters = drawn_characters(css)
    (static / SUBSET).mkdir(exist_ok=True)

    def cut(match: re.Match) -> str:
        source, name = static / match[1], match[2]
        options = subset.Options()
        options.flavor, options.notdef_outline, options.name_IDs = "woff", True, ["*"]
        options.drop_tables += ["FFTM"]  # FontForge's timestamps, which fontTools cannot cut
        font = subset.load_font(str(source), options)
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=[ord(c) for c in characters])
        subsetter.subset(font)
        subset.save_font(font, str(static / SUBSET / name), options)
        return f'url("{SUBSET}/{name}")'
    return FONT_FILE.sub(cut, css)


def typeset_page(text: str, typeset_html: dict[tuple[str, bool], str], stylesheet: str) -> str:
    """A page with each formula's TeX replaced by its typesetting, MathJax's scripts taken out and, where it has
    formulas, ``stylesheet`` (its address from the page) linked."""
    had_maths = bool(INLINE.search(text) or DISPLAY.search(text))
    text = INLINE.sub(lambda m: m[1] + typeset_html[formula(m, False)] + m[3], text)
    text = DISPLAY.sub(lambda m: m[1] + typeset_html[formula(m, True)] + m[3], text)
    text = MATHJAX_SCRIPTS.sub("", text)
    if had_maths:
        text = text.replace("</head>", f'<link rel="stylesheet" href="{stylesheet}" />\n</head>', 1)
    return text


def typeset_pages(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    node = shutil.which("node")
    if node is None:
        LOGGER.info("static_maths: no Node on the PATH; MathJax typesets the formulas in the browser")
        return
    outdir = Path(app.outdir)
    pages = {page: page.read_text(encoding="utf-8") for page in outdir.rglob("*.html")
             if "_static" not in page.relative_to(outdir).parts}
    found = {page: formulas_of(text) for page, text in pages.items()}
    formulas = [item for page_formulas in found.values() for item in page_formulas]
    typeset_html, css = typeset(formulas, node, outdir / MATHJAX)
    (outdir / CSS).write_text(subset_fonts(stylesheet_of(css), outdir / "_static"), encoding="utf-8")
    for page, text in pages.items():
        stylesheet = Path(os.path.relpath(outdir / CSS, page.parent)).as_posix()
        new = typeset_page(text, typeset_html, stylesheet)
        if new != text:
            page.write_text(new, encoding="utf-8")
    LOGGER.info(f"static_maths: {len(set(formulas))} formulas typeset, in {sum(map(bool, found.values()))} of "
                f"{len(pages)} pages")


def setup(app):
    app.connect("build-finished", typeset_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
