"""The book's Bokeh figures on a page: BokehJS as files of the book, each figure drawn as it nears the screen.

BokehJS (its core and widgets, weighed by :func:`weight_line` on the page that shows them) used to travel inline in
the explorer's page: bytes no browser could cache, parsed before the page's text was drawn. Now:

* **BokehJS is two static files of the book**, copied from the installed ``bokeh`` package into the build's
  ``_static/bokehjs/`` (:func:`copy_bokehjs`, run by the book's extension ``book/_ext/bokehjs_files.py``), their
  names carrying Bokeh's version (``bokeh-<version>.min.js``): a browser keeps them between pages and visits, and a
  new Bokeh is a new name. Nothing comes from a CDN: the book works offline and from a downloaded copy.
* **A figure is its JSON and a small loader** (:func:`embed`): the figure's box (the height it will take kept
  free, so that the text below does not jump), its Bokeh document as ``<script type="application/json">`` and
  ``figure_loader.js`` (package data), which fetches BokehJS and draws the figure once its box comes within half
  a screen of the window (an ``IntersectionObserver``; at once in a browser without one). The page's text is
  drawn first; the loss curves, far below the explorer, cost nothing until a reader scrolls to them.
* **On a phone or a narrow window a figure waits for a tap** (:func:`request_prompt`): fetching and running BokehJS
  for the explorer, in view as its page opens, froze a phone's page for seconds (all of the page's blocking time in
  Lighthouse's mobile audit). There the loader puts in each box what the figure is and a button
  naming what a tap downloads (BokehJS's files and the figure's document, their sizes computed); nothing is fetched
  until it is pressed. Without JavaScript the box stays as it was, empty at its reserved height.
* **Colab** shows a cell's output in a frame of its own, where the book's files are not: there the notebook puts
  BokehJS inline before the figures (:func:`inline_bokehjs`), and the loader, finding it, fetches nothing.
"""
from __future__ import annotations

import gzip
import hashlib
import html
import json
import re
import shutil
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

import bokeh
from bokeh.core.json_encoder import serialize_json
from bokeh.core.templates import MACROS, ROOT_DIV
from bokeh.embed.util import OutputDocumentFor, standalone_docs_json_and_render_items
from bokeh.models import Div, LayoutDOM
from bokeh.resources import Resources
from bokeh.util.paths import bokehjs_path

BOKEHJS_COMPONENTS = ("bokeh", "bokeh-widgets")  # the core library and its widgets: no WebGL, tables, MathJax
BOKEHJS_DIR = "bokehjs"  # under the build's _static
#: The book's ``_static`` folder seen from a chapter of ``notebooks/`` (where the explorer's page is).
CHAPTER_STATIC = "../_static"
LOADER = resources.files(__package__).joinpath("figure_loader.js").read_text(encoding="utf-8")


def bokehjs_files() -> dict[str, Path]:
    """BokehJS's files in the installed package, by the name the book gives them: ``bokeh-<version>.min.js`` and
    ``bokeh-widgets-<version>.min.js``, in the order they must run."""
    folder = Path(bokehjs_path()) / "js"
    return {f"{name}-{bokeh.__version__}.min.js": folder / f"{name}.min.js" for name in BOKEHJS_COMPONENTS}


def bokehjs_urls(static: str = CHAPTER_STATIC) -> list[str]:
    """Where a page finds BokehJS's files, ``static`` being the build's ``_static`` seen from the page."""
    return [f"{static}/{BOKEHJS_DIR}/{name}" for name in bokehjs_files()]


def copy_bokehjs(static: Path) -> list[Path]:
    """Copy BokehJS's files into ``static/bokehjs`` (a build's ``_static``); the files written."""
    target = static / BOKEHJS_DIR
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, source in bokehjs_files().items():
        if not source.is_file():
            raise FileNotFoundError(f"{source}: BokehJS is missing from the installed bokeh package")
        shutil.copyfile(source, target / name)
        written.append(target / name)
    return written


def inline_bokehjs() -> str:
    """BokehJS (core and widgets) as inline <script> elements, for an output frame without the book's files (Colab)."""
    return Resources(mode="inline", components=list(BOKEHJS_COMPONENTS)).render_js()


#: The heights (px) BokehJS draws each figure at, kept free before it draws it so that the text below does not jump:
#: the explorer's panels side by side (wide: measured in the book's 660 px column at 1280 px) and stacked (narrow:
#: 1,881 px in a 400 px window's 353 px column, 1,936 px at 360 px), by the width the figure's box then has.
RESERVED_HEIGHTS = {"explorer": {"wide": 1180, "narrow": 1920}, "loss_curves": {"wide": 570, "narrow": 680}}
#: Below this width of the figure's box (px) its panels are stacked: two panels of at least 300 px each do not fit.
STACKED_BELOW = 620


def reserved_style(name: str) -> str:
    """The CSS keeping a figure's box ``name`` its height, wide and stacked (a container query on its box)."""
    heights = RESERVED_HEIGHTS.get(name)
    if heights is None:
        return ""
    box = f".mope-figure-{name}"
    return (f"<style>{box}{{min-height:{heights['wide']}px}}"
            f"@container (max-width:{STACKED_BELOW - 1}px){{{box}{{min-height:{heights['narrow']}px}}}}</style>")


def embed(layout: LayoutDOM, static: str = CHAPTER_STATIC, about: str = "") -> str:
    """The HTML that draws ``layout`` when it nears the screen: its box (of the height it will take), its document as
    JSON (every ``<`` escaped: stored text cannot close the element) and the loader that fetches BokehJS from
    ``static`` (the build's ``_static`` seen from the page) if the page has not got it. ``about``: what the figure
    is, in a few words, shown in its box where it waits for the reader's tap (:func:`request_prompt`)."""
    with OutputDocumentFor([layout]):
        docs_json, [item] = standalone_docs_json_and_render_items([layout])
    (root,) = item.roots
    element = ROOT_DIV.render(root=root, macros=MACROS)
    data = serialize_json({"docs_json": docs_json, "render_items": [item.to_json()]}).replace("<", "\\u003c")
    name = layout.name or "figure"
    style = "" if isinstance(layout, Div) else reserved_style(name)  # a Div is a line of text, not a drawn figure
    urls = html.escape(json.dumps(bokehjs_urls(static)))
    return (f'<div style="container-type:inline-size">{style}{PROMPT_STYLE}'
            f'<div class="mope-figure mope-figure-{html.escape(name)}">{element}{request_prompt(about, data)}</div></div>'
            f'<script type="application/json" class="mope-figure-data">{data}</script>'
            f'<script data-bokehjs="{urls}">{LOADER}</script>')


#: The words of the prompt that stands in a figure's box where the loader draws it only on request (a phone or a
#: narrow window: figure_loader.js says when); the sizes in them are computed (:func:`request_prompt`).
PROMPT_WHY = ("On a phone or a narrow window this figure is drawn when you ask: drawing it downloads BokehJS, the "
              "library that draws it, and the figure's data, then keeps the processor busy for a while.")
PROMPT_BUSY = "Fetching BokehJS and drawing the figure…"
#: The prompt's look: the page's own colours (an output's, inverted in the dark theme), a button of a finger's size.
PROMPT_STYLE = ("<style>.mope-figure-prompt{padding:1rem;border:1px dashed currentColor;border-radius:.25rem;"
                "text-align:left}"
                ".mope-figure-prompt button{font:inherit;color:inherit;background:transparent;"
                "padding:.75rem 1rem;border:2px solid currentColor;border-radius:.25rem;cursor:pointer}"
                ".mope-figure-prompt p:last-child{margin:0}</style>")


def _megabytes(size: int) -> str:
    return f"{size / 1e6:.2f} MB"


def request_prompt(about: str, data: str) -> str:
    """What a figure's box shows where the loader draws the figure only when the reader asks: a ``<template>`` (shown by
    nothing, without JavaScript too) holding what the figure is (``about``), then a button (before the reasons, so
    that a phone's first screen shows it) naming what a tap downloads, gzip-compressed as the book's server sends it:
    BokehJS's files and the figure's document ``data`` (the button's ``data-loaded``: the label once another figure has
    brought BokehJS), beside it the words that say the figure is being drawn, and why it waits."""
    library = sum(packed for _, packed in _library_sizes().values())
    figure = _size(data)[1]
    label = "Draw the interactive figure ({})"
    first = label.format(f"{_megabytes(library + figure)} compressed: BokehJS and its data")
    later = label.format(f"{_megabytes(figure)} compressed: its data")
    title = f"<p><strong>{html.escape(about)}</strong></p>" if about else ""
    return (f'<template class="mope-figure-request"><div class="mope-figure-prompt">{title}'
            f'<p><button type="button" data-loaded="{html.escape(later)}">{html.escape(first)}</button> '
            f'<span role="status" data-busy="{html.escape(PROMPT_BUSY)}"></span></p>'
            f'<p>{html.escape(PROMPT_WHY)}</p></div></template>')


FIGURES_DIR = "figures"  # under the build's _static: each figure's document, a file named by its content
#: The loader as :func:`embed` writes it after each figure.
LOADER_SCRIPT = re.compile(r'<script data-bokehjs="[^"]*">' + re.escape(LOADER) + "</script>")
#: A figure's document inline in a page, as :func:`embed` writes it.
INLINE_DOCUMENT = re.compile(r'<script type="application/json" class="mope-figure-data">(.*?)</script>', re.S)
#: The name of a figure's document file, as :func:`figure_files` links it from a page.
DOCUMENT_FILE = re.compile(r'data-src="[^"]*/' + FIGURES_DIR + r'/(figure-[0-9a-f]{16}\.js)"')


def figure_files(page: str, static: Path, static_url: str) -> str:
    """``page`` (a built page's HTML) with each figure's inline document moved into a file of the book,
    ``static/figures/figure-<hash>.js``, which stores it in ``window.mopeFigureData`` under its hash for the loader
    (a <script>, which a page opened from disk may load where it may not fetch JSON); ``static_url``: ``static`` seen
    from the page. The page's HTML keeps only the element that names the file: its text is drawn without waiting for
    the figures' data, and the data is cached between visits. Of the copies
    of the loader that follow the figures (each output frame of Colab needs its own) the page keeps the first."""
    def moved(match: re.Match) -> str:
        data = match[1]
        key = hashlib.sha256(data.encode()).hexdigest()[:16]
        name = f"figure-{key}.js"
        (static / FIGURES_DIR).mkdir(parents=True, exist_ok=True)
        (static / FIGURES_DIR / name).write_text(
            f"(window.mopeFigureData = window.mopeFigureData || {{}})[{json.dumps(key)}] = {data};\n", encoding="utf-8")
        return (f'<script type="application/json" class="mope-figure-data" data-key="{key}" '
                f'data-src="{html.escape(static_url)}/{FIGURES_DIR}/{name}"></script>')

    return one_loader(INLINE_DOCUMENT.sub(moved, page))


def one_loader(page: str) -> str:
    """``page`` with only the first of the copies of the loader that :func:`embed` writes after each figure: the
    loader draws every figure of its page, and the book's pages keep one (Colab's frames each need their own)."""
    first = []

    def once(match: re.Match) -> str:
        first.append(match)
        return match[0] if len(first) == 1 else ""

    return LOADER_SCRIPT.sub(once, page)


def _size(text: str | bytes) -> tuple[int, int]:
    """Bytes of ``text`` (UTF-8), raw and gzip-compressed."""
    data = text.encode() if isinstance(text, str) else text
    return len(data), len(gzip.compress(data, compresslevel=6))


def _library_sizes() -> dict[str, tuple[int, int]]:
    """Each of BokehJS's files by the name the book gives it, its bytes raw and gzip-compressed."""
    return {name: _size(path.read_bytes()) for name, path in bokehjs_files().items()}


def weight_line(parts: Mapping[str, str]) -> str:
    """Sentences: what the interactive figures (with one copy of the loader, as the book's page keeps) and BokehJS's
    files weigh, raw and gzip-compressed."""
    raw, packed = _size(one_loader("".join(parts.values())))
    library = _library_sizes().values()
    return (f"The interactive figures weigh {_megabytes(raw)} ({_megabytes(packed)} gzip-compressed) and BokehJS "
            f"{_megabytes(sum(r for r, _ in library))} ({_megabytes(sum(p for _, p in library))} gzip-compressed): "
            "files of the book that a browser fetches when the figures near the screen, after the page's text (on a "
            "phone or a narrow window, when the reader presses the figure's button), and keeps for later visits; "
            "nothing is fetched from another host.")


def weight_statement(parts: Mapping[str, str]) -> str:
    """Sentences with the bytes of each part, raw and gzip-compressed (the total with one copy of the loader, as the
    book's page keeps), then BokehJS's files."""
    sizes = {name: _size(text) for name, text in parts.items()}
    total = _size(one_loader("".join(parts.values())))
    listed = "; ".join(f"{name} {raw / 1e3:,.0f} kB ({packed / 1e3:,.0f} kB gzip)"
                       for name, (raw, packed) in sizes.items())
    files = "; ".join(f"{name} {raw / 1e3:,.0f} kB ({packed / 1e3:,.0f} kB gzip)"
                      for name, (raw, packed) in _library_sizes().items())
    return (f"The interactive figures weigh {_megabytes(total[0])} "
            f"({_megabytes(total[1])} gzip-compressed, as a web server sends it): {listed}. They and BokehJS are "
            f"files of the book, fetched when a figure nears the screen (on a phone or a narrow window, when the reader "
            f"presses its button) and kept by the browser: {files}. Nothing is "
            "fetched from another host; the rest of the page is the book's theme, as on every chapter.")
