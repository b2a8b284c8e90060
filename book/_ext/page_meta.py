"""Sphinx extension: what a screen reader and a search engine read of a page.

* Every figure's image gets, as its alt text, the first sentence of the figure's caption, where it had none or
  only its own file path (MyST-NB writes the path of a figure a cell draws): a screen reader then says what the
  figure shows, never ``../_images/<sha256>.png``.
* Every page gets a ``<meta name="description">``: its first paragraph, cut at a sentence near 160 characters (a
  page Sphinx writes itself, such as the search page: the book's title and the page's name).
* A script the theme's extensions add twice (sphinx-thebe's inline configuration: two ``const THEBE_JS_URL``
  declarations, a JavaScript error on every page) is written once.
"""
from __future__ import annotations

import html
import re

from docutils import nodes

DESCRIPTION_LENGTH = 160


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` (up to the first ". " or the end), one line, without a figure's number."""
    text = " ".join(text.split())
    text = re.sub(r"^(Fig\.|Figure)\s*[\d.]+\s*", "", text)
    sentence = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
    return sentence


def is_path(alt: str | None, uri: str) -> bool:
    """Whether ``alt`` says nothing a reader can use: empty, the image's own address, or a file path."""
    return not alt or alt == uri or bool(re.fullmatch(r"[\w./-]+\.(png|svg|jpe?g|gif|webp)", alt))


def alt_from_captions(app, doctree, docname) -> None:
    for figure in doctree.findall(nodes.figure):
        caption = next(iter(figure.findall(nodes.caption)), None)
        if caption is None:
            continue
        for image in figure.findall(nodes.image):
            if is_path(image.get("alt"), image.get("uri", "")):
                image["alt"] = first_sentence(caption.astext())


def description(app, pagename, templatename, context, doctree) -> None:
    if doctree is None:  # a page Sphinx writes itself (search, genindex)
        text = f"{app.config.html_title}: the {'index' if pagename == 'genindex' else pagename} page."
    else:
        paragraph = next((p for p in doctree.findall(nodes.paragraph) if len(p.astext()) > 40), None)
        if paragraph is None:
            return
        text = " ".join(paragraph.astext().split())
    if len(text) > DESCRIPTION_LENGTH:
        cut = text[:DESCRIPTION_LENGTH]
        text = cut[: cut.rfind(" ")] + "…"
    context["metatags"] = context.get("metatags", "") + f'\n<meta name="description" content="{html.escape(text)}" />'


def scripts_once(app, pagename, templatename, context, doctree) -> None:
    seen, kept = set(), []
    for script in context.get("script_files", []):
        # an inline script is registered once with the file name None and once with "": the same script
        key = (getattr(script, "filename", script) or "", getattr(script, "attributes", {}).get("body", ""))
        if key not in seen:
            seen.add(key)
            kept.append(script)
    context["script_files"] = kept


def setup(app):
    app.connect("doctree-resolved", alt_from_captions)
    app.connect("html-page-context", description)
    app.connect("html-page-context", scripts_once)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
