"""Sphinx extension: a page's stylesheets as one file of only the rules that can match something of the book (issue 73).

The theme's stylesheet (``pydata-sphinx-theme.css``: Bootstrap, Font Awesome's 1,377 icon classes, the theme's own
rules; 397 kB, 64 KiB gzipped) blocks the first paint of every page, and about nine tenths of it styles nothing the
book has. Once every page is written (``build-finished``, after the other extensions have rewritten them), each
stylesheet that a page links from ``_static/`` is read without the rules that cannot match (the files themselves stay
as the theme and the extensions wrote them):

* **What the book has** (:func:`book_words`): every word of every page (its tags, classes, ids, attributes and text)
  and of every script a page loads (a class a script adds is named in it: Bootstrap's ``show``, the search page's
  results), and each prefix a script builds a class from (Bootstrap's ``bs-${name}-auto``).
* **A selector is dropped** (:func:`may_match`) only when a class, id, element or attribute it requires is none of
  those words (an element's or attribute's name in any case, as HTML matches them; a class or id in its own); what sits inside a functional pseudo-class (``:not(...)``, ``:is(...)``) and a selector with an escape
  are kept as they are. A rule none of whose selectors may match is dropped, and so is a group (``@media``,
  ``@supports``) left empty, an ``@keyframes`` no kept rule animates with and an ``@font-face`` whose family no kept rule
  names. License comments (``/*! ... */``) stay. A rule listing a vendor's pseudo-class (``::-moz-focus-inner``), which
  voids the whole rule in the other browsers, is kept or dropped whole, so that no rule comes to apply that did not.

Each page's stylesheets are then **one file** (:func:`bundle_page`): the pruned sheets it links from ``_static/``, in
its order, joined into ``_static/book-<digest>.css`` (one such file for each list of sheets: the pages with formulas
add MathJax's), linked where the first of them was. A phone on a slow link fetched thirteen stylesheets before its
first paint, each a request of its own; the file's name changes with its content, so a cached copy is never stale.
A bundle of an earlier build that no page links any more is removed from ``_static/``.

Nothing is copied by hand: the rules are the theme's own, as this build of it wrote them, so a theme upgrade or a
page that starts using a class keeps what it needs. The pruning only removes selectors that match no element of any
page, so no page looks different (``tests/test_lean_css.py``).
"""
from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Callable

from sphinx.util import logging

#: At-rules whose block holds rules (pruned inside, dropped when left empty).
GROUPS = {"media", "supports", "layer", "container", "document", "scope"}
WORD = re.compile(r"[A-Za-z_][\w-]*")
#: A prefix a script builds a class name from: a template literal's text ending in "-" before ``${``, or a string
#: ending in "-" that is added to (``"tip-" + side``).
TEMPLATE_PREFIX = re.compile(r"[`\"']([A-Za-z][\w-]*-)(?:\$\{|[\"']\s*\+)")
SCRIPT_SRC = re.compile(r'<script\b[^>]*\bsrc="([^"?#]+)')
#: A page's link to a stylesheet, the whole tag with the line's indent (its address, less any query, captured).
LINK = re.compile(r'[ \t]*<link\b(?=[^>]*\brel="stylesheet")[^>]*\bhref="([^"?#]+)[^"]*"[^>]*>\n?')
#: A functional pseudo-class's argument (``:not(.a)``, ``:nth-child(2n+1)``): kept as it is, not looked into.
PSEUDO_ARGUMENT = re.compile(r"(::?[\w-]+)\((?:[^()]|\([^()]*\))*\)")
PSEUDO = re.compile(r"::?[\w-]+")
#: A vendor's pseudo-class or pseudo-element (``::-moz-focus-inner``): a browser without it ignores the whole rule.
VENDOR_PSEUDO = re.compile(r"::?-[a-z]+-")
ATTRIBUTE = re.compile(r"\[\s*([\w-]+)[^\]]*\]")
NAMED = re.compile(r"([.#])([\w-]+)")
#: An element named by a compound selector (at the start of it, after a combinator or a comma).
ELEMENT = re.compile(r"(?:^|[\s>+~(])([A-Za-z][\w-]*)")
FONT_FAMILY = re.compile(r"font-family\s*:\s*([^;}]+)")
KEYFRAMES = re.compile(r"@(?:-webkit-)?keyframes\s+([\w-]+)")
URL = re.compile(r"""url\(\s*(["']?)([^"')]+)\1\s*\)""")
CHARSET = re.compile(r'@charset\s+"[^"]*";\s*')
#: The name of a bundle this extension writes (``_static/book-<digest>.css``).
BUNDLE_NAME = re.compile(r"book-[0-9a-f]{12}\.css")
#: A sheet's ``@import``, void below the first rule of the file it is in: a sheet with one is never joined to another.
IMPORT = re.compile(r"@import\b")
#: A link's ``media`` other than ``all``: the sheet applies only there, which it would not once joined to the others.
MEDIA = re.compile(r'\bmedia="(?!all")')
LOGGER = logging.getLogger(__name__)


def parse(css: str, start: int = 0, nested: bool = False) -> tuple[list, int]:
    """The rules of ``css`` from ``start`` as a list of ``("rule", prelude, body)``, ``("group", prelude, rules)``,
    ``("statement", text)`` and ``("comment", text)`` (license comments only; others are dropped), and where it stopped
    (after the ``}`` closing a group when ``nested``)."""
    items: list = []
    i, prelude = start, start
    while i < len(css):
        char = css[i]
        if css.startswith("/*", i):
            end = css.find("*/", i + 2)
            end = len(css) if end < 0 else end + 2
            if css.startswith("/*!", i) and not css[prelude:i].strip():
                items.append(("comment", css[i:end]))
            if not css[prelude:i].strip():
                prelude = end
            i = end
        elif char in "\"'":
            i = string_end(css, i)
        elif char == "{":
            head = re.sub(r"/\*.*?\*/", "", css[prelude:i], flags=re.S).strip()
            name = re.match(r"@([\w-]+)", head)
            if name and name[1].lower() in GROUPS:
                rules, i = parse(css, i + 1, nested=True)
                items.append(("group", head, rules))
            else:
                end = block_end(css, i)
                items.append(("rule", head, css[i + 1:end]))
                i = end + 1
            prelude = i
        elif char == "}" and nested:
            return items, i + 1
        elif char == ";":
            if css[prelude:i].strip():
                items.append(("statement", css[prelude:i + 1].strip()))
            i += 1
            prelude = i
        else:
            i += 1
    if nested:
        raise ValueError(f"a block opened at character {start - 1} is never closed")
    return items, i


def string_end(css: str, start: int) -> int:
    """The index after the string that opens at ``start``."""
    i = start + 1
    while i < len(css) and css[i] != css[start]:
        i += 2 if css[i] == "\\" else 1
    return i + 1


def block_end(css: str, start: int) -> int:
    """The index of the ``}`` closing the block that opens at ``start``."""
    depth, i = 0, start
    while i < len(css):
        if css[i] in "\"'":
            i = string_end(css, i)
            continue
        if css.startswith("/*", i):
            end = css.find("*/", i + 2)
            i = len(css) if end < 0 else end + 2
            continue
        depth += {"{": 1, "}": -1}.get(css[i], 0)
        if depth == 0:
            return i
        i += 1
    raise ValueError(f"a block opened at character {start} is never closed")


def selectors(prelude: str) -> list[str]:
    """A rule's selector list, split at its top-level commas."""
    parts, depth, current = [], 0, []
    for char in prelude:
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    parts.append("".join(current).strip())
    return [part for part in parts if part]


def may_match(selector: str, words: set[str], prefixes: tuple[str, ...], folded: set[str]) -> bool:
    """False only when ``selector`` requires a class, id, element or attribute that is none of ``words`` (a class may
    also start with one of ``prefixes``, the ones scripts build class names from). HTML matches an element's or an
    attribute's name in any case (``DIV`` matches ``<div>``): those are looked up in lower case among ``folded``,
    ``words`` in lower case; a class or an id in its own case."""
    if "\\" in selector:
        return True
    bare = PSEUDO_ARGUMENT.sub("", selector)
    for name in ATTRIBUTE.findall(bare):
        if name.lower() not in folded:
            return False
    bare = PSEUDO.sub("", ATTRIBUTE.sub("", bare))
    for kind, name in NAMED.findall(bare):
        if name not in words and not (kind == "." and name.startswith(prefixes)):
            return False
    bare = NAMED.sub("", bare)
    return all(name.lower() in folded for name in ELEMENT.findall(bare))


def prune(items: list, words: set[str], prefixes: tuple[str, ...], folded: set[str]) -> list:
    """``items`` without the rules that cannot match and the groups they leave empty (keyframes and font faces as
    they are: :func:`lean` decides on them once every rule is known); ``folded``: :func:`may_match`'s."""
    kept = []
    for item in items:
        if item[0] == "rule" and not item[1].startswith("@"):
            listed = selectors(item[1])
            chosen = [s for s in listed if may_match(s, words, prefixes, folded)]
            if chosen and VENDOR_PSEUDO.search(item[1]):
                chosen = listed  # one selector a browser does not know voids the rule: kept whole, void or not
            if chosen:
                kept.append(("rule", ",".join(chosen), item[2]))
        elif item[0] == "group":
            rules = prune(item[2], words, prefixes, folded)
            if any(rule[0] != "comment" for rule in rules):
                kept.append(("group", item[1], rules))
        else:
            kept.append(item)
    return kept


def declarations(items: list) -> str:
    """The declarations of every style rule of ``items`` (not of an at-rule's own block), joined."""
    text = []
    for item in items:
        if item[0] == "rule" and not item[1].startswith("@"):
            text.append(item[2])
        elif item[0] == "group":
            text.append(declarations(item[2]))
    return "\n".join(text)


def drop_unused_at_rules(items: list, used: str) -> list:
    """``items`` without an ``@keyframes`` whose name and an ``@font-face`` whose family ``used`` (the declarations of
    the kept rules) never names."""
    plain = unescaped(used)
    kept = []
    for item in items:
        if item[0] == "rule" and item[1].startswith("@"):
            keyframes = KEYFRAMES.match(item[1])
            if keyframes and not re.search(rf"(?<![\w-]){re.escape(keyframes[1])}(?![\w-])", used):
                continue
            family = FONT_FAMILY.search(item[2]) if item[1].lower().startswith("@font-face") else None
            if family and unescaped(family[1]).strip().strip("\"'") not in plain:
                continue
        elif item[0] == "group":
            item = ("group", item[1], drop_unused_at_rules(item[2], used))
        kept.append(item)
    return kept


def unescaped(css: str) -> str:
    """``css`` without its backslash escapes (``Font Awesome\\ 6 Free`` as ``Font Awesome 6 Free``), in lower case."""
    return re.sub(r"\\(.)", r"\1", css).lower()


def serialise(items: list) -> str:
    out = []
    for item in items:
        if item[0] in ("comment", "statement"):
            out.append(item[1] + ("\n" if item[0] == "comment" else ""))
        elif item[0] == "rule":
            out.append(f"{item[1]}{{{item[2]}}}")
        else:
            out.append(f"{item[1]}{{{serialise(item[2])}}}")
    return "".join(out)


def lean(css: str, words: set[str], prefixes: tuple[str, ...] = ()) -> str:
    """``css`` without the rules that cannot match a page whose words are ``words`` (the module's docstring)."""
    kept = prune(parse(css)[0], words, prefixes, {word.lower() for word in words})
    return serialise(drop_unused_at_rules(kept, declarations(kept)))


def book_words(pages: dict[Path, str], outdir: Path) -> tuple[set[str], tuple[str, ...]]:
    """Every word of the pages and of the scripts they load, and the class prefixes those scripts build names from."""
    words: set[str] = set()
    scripts: set[Path] = set()
    for page, text in pages.items():
        words.update(WORD.findall(text))
        scripts.update((page.parent / src).resolve() for src in SCRIPT_SRC.findall(text) if "://" not in src)
    prefixes: set[str] = set()
    for script in sorted(scripts):
        if script.is_file() and outdir.resolve() in script.parents:
            text = script.read_text(encoding="utf-8", errors="replace")
            words.update(WORD.findall(text))
            prefixes.update(TEMPLATE_PREFIX.findall(text))
    return words, tuple(sorted(prefixes))


def static_links(text: str, page: Path, static: Path) -> list[tuple[re.Match, Path]]:
    """Each link of ``text`` (the page at ``page``) to a stylesheet under ``static`` (resolved), with its path, in
    order."""
    links = []
    for match in LINK.finditer(text):
        path = None if "://" in match[1] else (page.parent / match[1]).resolve()
        if path is not None and static in path.parents:
            links.append((match, path))
    return links


def linked_stylesheets(pages: dict[Path, str], outdir: Path) -> list[Path]:
    """The stylesheets of ``_static/`` that the pages link."""
    static = (outdir / "_static").resolve()
    found = {path for page, text in pages.items() for _, path in static_links(text, page, static)}
    return sorted(path for path in found if path.is_file())


def rebased(css: str, source: Path, target: Path) -> str:
    """``css`` of a sheet in folder ``source`` with each relative ``url()`` rewritten for a sheet in ``target``."""
    def rebase(match: re.Match) -> str:
        address = match[2].strip()
        if re.match(r"^(?:[a-z][\w+.-]*:|/|#)", address, re.I):
            return match[0]
        return f'url("{Path(os.path.relpath(source / address, target)).as_posix()}")'
    return URL.sub(rebase, css)


def bundle_page(text: str, page: Path, outdir: Path, bundles: dict[tuple[Path, ...], str],
                content: Callable[[Path], str]) -> str:
    """``text`` with the stylesheets it links from ``_static/`` replaced by one link, where the first of them was, to
    the bundle of them all, each as ``content`` gives it (the bundle written once, into ``bundles`` by the sheets'
    paths, as ``_static/`` names it). A page is left as it is where joining its sheets would change what applies: an
    inline ``<style>`` or another stylesheet among those links (it would move in the cascade), a link with a ``media``
    of its own, a sheet with an ``@import``."""
    static = (outdir / "_static").resolve()
    found = static_links(text, page, static)
    links, sheets = [m for m, _ in found], tuple(path for _, path in found)
    if not links or not all(sheet.is_file() for sheet in sheets) or any(MEDIA.search(link[0]) for link in links):
        return text
    between = text[links[0].start():links[-1].end()]
    if "<style" in between or len(LINK.findall(between)) != len(links):
        return text
    if sheets not in bundles:
        sheet_texts = [content(sheet) for sheet in sheets]
        if any(IMPORT.search(css) for css in sheet_texts):
            return text
        css = "".join(CHARSET.sub("", rebased(css, sheet.parent, static)) + "\n"
                      for css, sheet in zip(sheet_texts, sheets))
        name = f"book-{hashlib.sha256(css.encode()).hexdigest()[:12]}.css"
        (static / name).write_text('@charset "UTF-8";\n' + css, encoding="utf-8")
        bundles[sheets] = name
    href = Path(os.path.relpath(static / bundles[sheets], page.parent)).as_posix()
    first = links[0]
    out = [text[:first.start()], f'<link rel="stylesheet" href="{href}" />\n']
    for previous, link in zip(links, links[1:] + [None]):
        out.append(text[previous.end():link.start() if link else len(text)])
    return "".join(out)


def lean_stylesheets(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    pages = {page: page.read_text(encoding="utf-8") for page in outdir.rglob("*.html")
             if "_static" not in page.relative_to(outdir).parts}
    words, prefixes = book_words(pages, outdir)
    original = {sheet: sheet.read_text(encoding="utf-8") for sheet in linked_stylesheets(pages, outdir)}
    leaner = {sheet: lean(css, words, prefixes) for sheet, css in original.items()}
    bundles: dict[tuple[Path, ...], str] = {}
    linked = set()
    for page, text in pages.items():
        bundled = bundle_page(text, page, outdir, bundles, leaner.__getitem__)
        if bundled != text:
            page.write_text(bundled, encoding="utf-8")
        linked.update(BUNDLE_NAME.findall(bundled))
    for stale in (outdir / "_static").glob("book-*.css"):  # an earlier build's bundle that no page links now
        if BUNDLE_NAME.fullmatch(stale.name) and stale.name not in linked:
            stale.unlink()
    before, after = sum(map(len, original.values())), sum(map(len, leaner.values()))
    LOGGER.info(f"lean_css: the book's stylesheets from {before:,} to {after:,} characters, in {len(bundles)} files")


def setup(app):
    # after every extension that rewrites the pages (api_reference, web_pages, static_maths, phone_tables,
    # bokehjs_files: the default priority, 500)
    app.connect("build-finished", lean_stylesheets, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
