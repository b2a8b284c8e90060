#!/usr/bin/env python3
"""Check a built Jupyter Book in a real headless browser.

    python scripts/check_book_html.py _build/html [--screenshots DIR] [--pages a.html b.html]

Two passes over every ``*.html`` file of the build:

1. **Static** (standard library only): every internal link (``href`` to a local file, with its
   ``#anchor`` checked against the ``id``s of the target page) resolves; every ``<img>`` source is a
   file on disk that decodes as PNG / JPEG / GIF / SVG with a non-zero size; every script and
   stylesheet is a file of the build, none from another host (the book must read offline).
2. **Browser**: the build is served by ``http.server`` on 127.0.0.1 and every page is loaded in
   headless Chromium driven over the DevTools protocol (tornado's websocket client, which the
   notebook kernel already depends on). After the page's load event, its images decoded and MathJax
   done, a page passes when

   - it has a title and a main article, and every ``<img>`` decodes with ``naturalWidth > 0``;
   - every formula Sphinx marks as maths was rendered by MathJax, and no TeX is left in the text
     (``$$``, ``\\(``, ``\\begin{``, ``\\omega``, ``$x^2$`` ... outside code);
   - every image of the article sits in a ``<figure>`` with a non-empty caption and is shown at
     (nearly) its natural width, so the text drawn in it is not shrunk to fit the column;
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
   figure's image is wider than its column (its ``<figure>``) or the screen, nor shrunk below 96% of its natural
   size (where its 9 pt text, drawn at 100 dpi, would read below 9 pt): the book draws its figures for a phone's
   column, so none scrolls sideways or loses a part.

   ``--screenshots DIR`` saves a PNG of the chosen pages (at 1280 px, and at 400 px as ``*-400.png``).

Colab launch links must open a paired ``.ipynb`` that exists in the repository (Colab cannot read
the jupytext Markdown sources).

Requests to other hosts are refused inside the browser unless ``--allow-external`` is given, so
the check runs offline and never waits on a network. Every problem is printed, one line each, with
the page it was found on, then the height of every page. Exit status 0 only if nothing is broken; the
last line is the summary ("N pages, M figures, K internal links, F formulas rendered by MathJax, 0 broken").
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import fnmatch
import functools
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import xml.etree.ElementTree as ElementTree
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

SKIP_DIRS = {"_sources", "_static", "reports", "_images"}
EXTERNAL_SCHEMES = ("http:", "https:", "mailto:", "javascript:", "data:", "tel:", "ftp:")
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


# --- static pass ----------------------------------------------------------------------------------

class PageParser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.images: list[str] = []
        self.assets: list[str] = []  # scripts and stylesheets the page loads
        self.redirect: str | None = None  # target of a <meta http-equiv="refresh"> page

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "meta" and (attrs.get("http-equiv") or "").lower() == "refresh":
            content = attrs.get("content") or ""
            if "url=" in content.lower():
                self.redirect = content[content.lower().index("url=") + 4:].strip().strip("'\"")
                self.links.append(self.redirect)
        for key in ("id", "name") if tag == "a" else ("id",):
            if attrs.get(key):
                self.ids.add(attrs[key])
        if tag == "a" and attrs.get("href") is not None:
            self.links.append(attrs["href"])
        if tag == "img" and attrs.get("src"):
            self.images.append(attrs["src"])
        if tag == "script" and attrs.get("src"):
            self.assets.append(attrs["src"])
        if tag == "link" and "stylesheet" in (attrs.get("rel") or "").lower().split() and attrs.get("href"):
            self.assets.append(attrs["href"])


@functools.lru_cache(maxsize=None)
def parse_page(path: Path) -> PageParser:
    parser = PageParser()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    return parser


def image_problem(path: Path) -> str | None:
    """None if ``path`` is an image file with a non-zero size, else what is wrong with it."""
    if not path.is_file():
        return "missing file"
    data = path.read_bytes()
    if not data:
        return "empty file"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        if len(data) < 24 or data[12:16] != b"IHDR":
            return "truncated PNG"
        width, height = struct.unpack(">II", data[16:24])
        return None if width and height else f"PNG of size {width}x{height}"
    if data.startswith(b"\xff\xd8\xff") or data[:6] in (b"GIF87a", b"GIF89a"):
        return None
    if path.suffix.lower() == ".svg" or b"<svg" in data[:2048]:
        try:
            root = ElementTree.fromstring(data)
        except ElementTree.ParseError as error:
            return f"invalid SVG ({error})"
        return None if root.tag.endswith("svg") else "SVG without an <svg> root"
    return "not a PNG, JPEG, GIF or SVG"


def html_pages(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.html") if not SKIP_DIRS & set(p.relative_to(root).parts[:-1]))


COLAB = "https://colab.research.google.com/github/"


def colab_problem(href: str, repository: Path | None) -> str | None:
    """A Colab launch link must open a paired .ipynb that exists in the repository."""
    path = href[len(COLAB):].split("/blob/", 1)[-1].split("/", 1)[-1]  # org/repo/blob/branch/<path>
    if not path.endswith(".ipynb"):
        return f"Colab link {href!r} does not open an .ipynb (Colab cannot read jupytext Markdown)"
    if repository is not None and not (repository / path).is_file():
        return f"Colab link {href!r}: no {path} in {repository}"
    return None


def static_check(root: Path, pages: list[Path], repository: Path | None = None) -> tuple[int, int, int, list[str]]:
    """(internal links checked, images checked, Colab links checked, problems)."""
    problems: list[str] = []
    n_links = n_images = n_colab = 0
    for page in pages:
        parsed = parse_page(page)
        name = page.relative_to(root).as_posix()
        for href in parsed.links:
            if href.startswith(COLAB):
                n_colab += 1
                problem = colab_problem(href, repository)
                if problem:
                    problems.append(f"{name}: {problem}")
                continue
            if not href or href.startswith(EXTERNAL_SCHEMES) or href.startswith("//"):
                continue
            parts = urlsplit(href)
            if parts.scheme or parts.netloc:
                continue
            n_links += 1
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                problems.append(f"{name}: broken link {href!r} (no file {target})")
                continue
            if parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in parse_page(target).ids:
                problems.append(f"{name}: broken anchor {href!r} (no id {parts.fragment!r} in "
                                f"{target.relative_to(root).as_posix() if target.is_relative_to(root) else target})")
        for src in parsed.images:
            if src.startswith(EXTERNAL_SCHEMES) or src.startswith("//"):
                if src.startswith("data:"):
                    continue
                problems.append(f"{name}: image from another host {src!r} (the book must read offline)")
                continue
            n_images += 1
            problem = image_problem((page.parent / unquote(urlsplit(src).path)).resolve())
            if problem:
                problems.append(f"{name}: image {src!r}: {problem}")
        for src in parsed.assets:
            if src.startswith(EXTERNAL_SCHEMES) or src.startswith("//"):
                problems.append(f"{name}: script or stylesheet from another host {src!r} (the book must read offline)")
            elif not (page.parent / unquote(urlsplit(src).path)).resolve().is_file():
                problems.append(f"{name}: script or stylesheet {src!r} is not in the build")
    return n_links, n_images, n_colab, problems


# --- browser pass ---------------------------------------------------------------------------------

class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(root: Path) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def find_browser(explicit: str | None) -> str:
    for name in ([explicit] if explicit else []) + list(BROWSERS):
        found = shutil.which(name) if name else None
        if found:
            return found
    raise SystemExit("no Chromium found: install it (Debian: apt-get install -y chromium) or pass --browser")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DevTools:
    """A minimal DevTools-protocol client for one page target."""

    def __init__(self, connection):
        self.connection = connection
        self.next_id = 0
        self.events: list[dict] = []

    @classmethod
    async def connect(cls, url: str) -> "DevTools":
        from tornado.websocket import websocket_connect

        return cls(await websocket_connect(url, max_message_size=512 * 1024 * 1024))

    async def call(self, method: str, timeout: float = 60.0, **params) -> dict:
        self.next_id += 1
        wanted = self.next_id
        await self.connection.write_message(json.dumps({"id": wanted, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            message = await asyncio.wait_for(self.connection.read_message(), max(deadline - time.monotonic(), 0.01))
            if message is None:
                raise RuntimeError("the browser closed the DevTools connection")
            data = json.loads(message)
            if data.get("id") == wanted:
                if "error" in data:
                    raise RuntimeError(f"{method}: {data['error']}")
                return data.get("result", {})
            if "method" in data:
                self.events.append(data)

    async def wait_event(self, method: str, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for i, event in enumerate(self.events):
                if event["method"] == method:
                    return self.events.pop(i)
            message = await asyncio.wait_for(self.connection.read_message(), max(deadline - time.monotonic(), 0.01))
            if message is None:
                raise RuntimeError("the browser closed the DevTools connection")
            data = json.loads(message)
            if "method" in data:
                self.events.append(data)


# Run inside each page after its load event: make lazy images load now, decode them all, wait for
# MathJax to typeset, then inspect what a reader sees in the page's article.
PAGE_PROBE = r"""
(async () => {
  const images = Array.from(document.images);
  images.forEach(img => { img.loading = "eager"; });
  const broken = [];
  await Promise.all(images.map(img => img.decode().then(
      () => { if (!(img.naturalWidth > 0)) broken.push(img.currentSrc || img.src); },
      () => broken.push(img.currentSrc || img.src))));

  // MathJax loads deferred: wait for it to start, then for its first typesetting to finish.
  if (document.querySelector("script[src*='mathjax' i]")) {
    for (let i = 0; i < 200 && !(window.MathJax && MathJax.startup && MathJax.startup.promise); i++) {
      await new Promise(resolve => setTimeout(resolve, 50));
    }
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  }

  // the page's own content: Sphinx themes put it in an <article> inside <main>, after the buttons
  const article = document.querySelector("article.bd-article") || document.querySelector("article")
      || document.querySelector("main, [role=main]") || document.body;
  const shortText = (text, n = 70) => text.replace(/\s+/g, " ").trim().slice(0, n);

  // Maths: every element Sphinx marks as maths holds a MathJax rendering, and no TeX is left as text.
  const unrendered = Array.from(article.querySelectorAll(".math"))
      .filter(el => !el.querySelector("mjx-container")).map(el => shortText(el.textContent));
  const prose = article.cloneNode(true);
  prose.querySelectorAll("pre, code, kbd, samp, script, style, textarea, mjx-container, .highlight")
      .forEach(el => el.remove());
  const rawTex = [];
  const texPattern = /\$\$|\\[()\[\]]|\\(?:begin|end)\{|\\[A-Za-z]{2,}|\$[^$\s][^$]{0,160}?[\\^_{][^$]{0,160}?\$/g;
  for (const match of prose.textContent.matchAll(texPattern)) {
    const at = match.index;
    rawTex.push(shortText(prose.textContent.slice(Math.max(0, at - 30), at + 40)));
  }

  // Figures: every image of the article sits in a <figure> with a non-empty caption, and is shown at
  // (nearly) its natural width, so that the text drawn in it keeps its size.
  const uncaptioned = [], shrunk = [];
  for (const img of article.querySelectorAll("img")) {
    const name = (img.currentSrc || img.src).split("/").pop();
    const caption = img.closest("figure") && img.closest("figure").querySelector("figcaption");
    if (!caption || !caption.textContent.trim()) uncaptioned.push(name);
    const intended = parseFloat(img.getAttribute("width")) || img.naturalWidth;
    if (img.offsetParent !== null && img.clientWidth > 0 && img.clientWidth < 0.95 * intended) {
      shrunk.push(`${name} (${intended} px shown at ${img.clientWidth} px)`);
    }
  }

  // Tables: no cell whose content is wider than the cell (clipped, or spilling into its neighbour).
  const cramped = [];
  for (const cell of article.querySelectorAll("td, th")) {
    if (cell.offsetParent !== null && cell.scrollWidth > cell.clientWidth + 1) {
      cramped.push(`${shortText(cell.textContent, 40)} (${cell.scrollWidth} px in ${cell.clientWidth} px)`);
    }
  }
  // Claims tables (_static/book.js marks them): every column on a wide screen, none behind a scroll.
  const wideClaims = [];
  for (const table of article.querySelectorAll("table.book-claims")) {
    const box = table.parentElement;
    if (table.offsetParent !== null && table.scrollWidth > box.clientWidth + 1) {
      const head = Array.from(table.querySelectorAll("thead th")).map(th => th.textContent.trim()).join(" | ");
      wideClaims.push(`${shortText(head, 60)} (${table.scrollWidth} px in ${box.clientWidth} px)`);
    }
  }

  // Printed outputs: a line wider than the output block is cut off at the column's edge (or hidden
  // behind a horizontal scroll bar): outputs must wrap.
  const cutOutputs = [];
  for (const block of article.querySelectorAll(".cell_output pre, div.output pre")) {
    if (block.closest(".cell_output > div.highlight-python")) continue;  // a code listing: scrolls, with its cue
    if (block.offsetParent !== null && block.scrollWidth > block.clientWidth + 1) {
      const line = Array.from(block.textContent.split("\n")).sort((a, b) => b.length - a.length)[0] || "";
      cutOutputs.push(`${shortText(line, 60)} (${block.scrollWidth} px in ${block.clientWidth} px)`);
    }
  }

  // Paths of the machine that built the book, anywhere in the page's text or links.
  const page = document.body.cloneNode(true);
  page.querySelectorAll("script, style, noscript").forEach(el => el.remove());
  const attributes = Array.from(document.querySelectorAll("[href], [src]"))
      .map(el => el.getAttribute("href") || el.getAttribute("src")).join(" ");
  const pathPattern = /(?:file:\/\/|(?<![\w.~-])\/(?:work|home|root|tmp|Users|opt|usr|var|private|mnt|srv)\/)[^\s"'<>)]*|\b[A-Z]:\\Users\\[^\s"'<>]*/g;
  const machinePaths = Array.from(new Set(((page.textContent + " " + attributes).match(pathPattern) || [])));

  return JSON.stringify({
    title: document.title,
    readyState: document.readyState,
    article: !!document.querySelector("main, article, [role=main]"),
    images: images.length,
    broken: broken,
    formulas: article.querySelectorAll("mjx-container").length,
    unrendered: unrendered,
    rawTex: rawTex,
    uncaptioned: uncaptioned,
    shrunk: shrunk,
    cramped: cramped,
    wideClaims: wideClaims,
    machinePaths: machinePaths,
    cutOutputs: cutOutputs,
    columnWidth: article.clientWidth,
  });
})()
"""


# The page's height, at the width the browser has now, as a reader sees it once everything has rendered:
# at least 1.5 s after the load event, after the web fonts have loaded, and once the height has stopped
# changing (figures drawn by scripts, such as Bokeh's, and MathJax's output settle after the load
# event), sampled every 250 ms for up to 10 s.
HEIGHT_PROBE = r"""
(async () => {
  const height = () => Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0);
  const navigation = performance.getEntriesByType("navigation")[0];
  const loaded = navigation && navigation.loadEventEnd ? navigation.loadEventEnd : performance.now();
  while (performance.now() < loaded + 1500) await new Promise(resolve => setTimeout(resolve, 100));
  if (document.fonts) await document.fonts.ready;
  let last = -1, same = 0;
  for (let i = 0; i < 40 && same < 3; i++) {
    await new Promise(resolve => setTimeout(resolve, 250));
    const now = height();
    same = now === last ? same + 1 : 0;
    last = now;
  }
  return last;
})()
"""

# Run after the viewport is narrowed to 400 px: does the page scroll sideways, does anything of the
# article stick out of the screen without a box of its own that scrolls, and does every table that
# scrolls inside its box show a cue that it does?
NARROW_PROBE = r"""
(async () => {
  await new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  await new Promise(resolve => setTimeout(resolve, 100));
  const width = document.documentElement.clientWidth;
  const shortText = (text, n = 50) => text.replace(/\s+/g, " ").trim().slice(0, n);
  const describe = el => `<${el.tagName.toLowerCase()}${el.className && typeof el.className === "string"
      ? " class=" + el.className.trim().split(/\s+/).slice(0, 2).join(".") : ""}> ${shortText(el.textContent)}`;
  const pageScroll = Math.max(document.documentElement.scrollWidth, document.body.scrollWidth);
  const scroller = el => {
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const overflow = getComputedStyle(a).overflowX;
      if (overflow === "auto" || overflow === "scroll") return a;
      if (overflow === "hidden" || overflow === "clip") return null;
    }
    return null;
  };
  const article = document.querySelector("article.bd-article") || document.querySelector("article")
      || document.querySelector("main, [role=main]") || document.body;
  const sticking = [];
  for (const el of article.querySelectorAll("*")) {
    if (el.closest("mjx-assistive-mml")) continue;  // MathJax's screen-reader copy, clipped on purpose
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 1) continue;
    const inside = scroller(el);
    if (inside && inside.getBoundingClientRect().right <= width + 1) continue;
    if (el.parentElement && sticking.includes(el.parentElement)) { sticking.push(el); continue; }
    sticking.push(el);
  }
  const topmost = sticking.filter(el => !sticking.includes(el.parentElement)).slice(0, 5)
      .map(el => `${describe(el)} (right edge at ${Math.round(el.getBoundingClientRect().right)} px)`);
  const noCue = [];
  for (const table of article.querySelectorAll("table")) {
    const box = scroller(table);
    if (!box || box.scrollWidth <= box.clientWidth + 1) continue;
    const style = getComputedStyle(box);
    const cue = [style.backgroundImage, style.maskImage, style.webkitMaskImage].some(v => v && v !== "none");
    if (!cue) noCue.push(shortText(table.textContent));
  }
  // Verdicts: every cell of a table's "verdict" column lies on the screen, not merely in a box that
  // scrolls (a reader must not scroll sideways to read one), in every tab of the page; in the claims
  // across every preset (columns "claim", "standing", then a verdict a preset) every cell.
  const verdictsOff = [];
  const measureVerdicts = () => {
    for (const table of article.querySelectorAll("table")) {
      const headers = Array.from(table.querySelectorAll("thead th")).map(th => th.textContent.trim());
      const standings = headers[0] === "claim" && headers[1] === "standing";
      const column = headers.findIndex(header => /^verdict/i.test(header));
      if (column < 0 && !standings) continue;
      for (const row of table.querySelectorAll("tbody tr")) {
        for (const cell of standings ? Array.from(row.cells) : [row.cells[column]]) {
        if (!cell) continue;
        const box = cell.getBoundingClientRect();
        if (box.width === 0) continue;  // in a tab not shown: measured when its tab is
        if (box.left < -1 || box.right > width + 1) {
          const text = `${shortText(cell.textContent)} (${Math.round(box.left)}–${Math.round(box.right)} px)`;
          if (!verdictsOff.includes(text)) verdictsOff.push(text);
        }
        }
      }
    }
  };
  const tabs = Array.from(article.querySelectorAll(".sd-tab-set > input[type=radio]"));
  const checked = tabs.filter(tab => tab.checked);
  measureVerdicts();
  for (const tab of tabs) {
    tab.checked = true;
    await new Promise(resolve => requestAnimationFrame(resolve));
    measureVerdicts();
  }
  checked.forEach(tab => { tab.checked = true; });
  // Figures: every image of a figure is drawn for the column, never wider than the box it sits in (its
  // <figure>) nor than the screen: a figure that scrolls sideways, or sticks out, hides part of itself. Nor is it
  // shrunk below 96% of its natural size: drawn at 100 dpi with text of 9 pt, it shows that text at 9 CSS pt
  // (9 × 100/96) only down to there (mope.book.figures.SMALLEST_FONT_PT).
  const wideFigures = [], shrunkFigures = [];
  for (const img of article.querySelectorAll("figure img")) {
    const box = img.getBoundingClientRect();
    if (box.width === 0) continue;  // in a tab or a dropdown not shown
    const container = img.closest("figure");
    const name = (img.currentSrc || img.src).split("/").pop();
    if (box.width > container.clientWidth + 1 || box.right > width + 1) {
      wideFigures.push(`${name} (${Math.round(box.width)} px in a ${container.clientWidth} px column)`);
    } else if (box.width < 0.96 * img.naturalWidth - 1) {
      shrunkFigures.push(`${name} (${img.naturalWidth} px shown at ${Math.round(box.width)} px)`);
    }
  }
  return JSON.stringify({width: width, pageScroll: pageScroll, sticking: topmost, noCue: noCue,
                         verdictsOff: verdictsOff.slice(0, 5), wideFigures: wideFigures,
                         shrunkFigures: shrunkFigures});
})()
"""

PAGE_HEIGHT_LIMIT = 12_000  # px at 1280 px: no page taller
# px at 1280 px: the introduction and the chapters together, a ratchet against bloat: it rises only with
# content a reader needs, in a commit that says what. 60,000 until 2026-12-03; 65,000 for the introduction's
# figure of every claim, chapter 4's token budget and the figures stacked for phones (64,627 px); 67,500 when
# cpu-long-4x joined the chapters (a tab or a line on each table that reads it, its verdicts: 65,790 px).
# Chapter 1, the tallest, was read section by section then: its derivations are already collapsed code cells,
# and what shows is each statement, the paper's words and our reading of them. Down to 65,000 on 2026-12-04, when
# the introduction's findings went behind a dropdown under the bottom line (64,285 px; the introduction 7,831).
# Issue 53's target for the reading pages, 45,000, is not met yet: what remains is mostly figures and the tables
# of results. Down to 53,500 on 2026-12-04 (53,328 px; the introduction 4,033), when the derivations, the rules'
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


async def evaluate(devtools: "DevTools", expression: str, timeout: float, what: str):
    """The value of ``expression`` in the page (a promise awaited); RuntimeError naming ``what`` if it threw."""
    reply = await devtools.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True,
                                timeout=timeout)
    if "exceptionDetails" in reply:
        raise RuntimeError(f"{what} failed: {reply['exceptionDetails'].get('text')}")
    return reply["result"]["value"]


async def save_screenshot(devtools: "DevTools", path: Path, timeout: float) -> None:
    shot = await devtools.call("Page.captureScreenshot", format="png", timeout=timeout)
    path.write_bytes(base64.b64decode(shot["data"]))


async def set_width(devtools: "DevTools", width: int, timeout: float) -> None:
    await devtools.call("Emulation.setDeviceMetricsOverride", width=width, height=900, deviceScaleFactor=1,
                        mobile=False, timeout=timeout)


async def browser_check(browser: str, base_url: str, root: Path, pages: list[Path], screenshots: Path | None,
                        screenshot_pages: set[str], allow_external: bool, timeout: float
                        ) -> tuple[int, int, list[str], dict[str, int]]:
    """(images seen in the rendered DOMs, formulas rendered by MathJax, problems, {page: height at 1280 px})."""
    profile = tempfile.mkdtemp(prefix="check-book-chromium-")
    port = free_port()
    arguments = [
        browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        # scroll bars shown, as a reader's browser shows them: they narrow the column, and the page grows
        "--disable-dev-shm-usage", "--mute-audio", f"--user-data-dir={profile}",
        f"--remote-debugging-port={port}", "--remote-allow-origins=*", "--window-size=1280,900",
    ]
    if not allow_external:
        arguments.append("--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1")
    arguments.append("about:blank")
    process = subprocess.Popen(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    problems: list[str] = []
    heights: dict[str, int] = {}
    n_images = n_formulas = 0
    try:
        target = None
        deadline = time.monotonic() + 30
        while target is None:
            if process.poll() is not None:
                raise RuntimeError(f"{browser} exited with status {process.returncode} at start-up")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{browser} did not open its DevTools port within 30 s")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2) as response:
                    targets = json.load(response)
                target = next((t for t in targets if t.get("type") == "page"), None)
            except OSError:
                pass
            if target is None:
                await asyncio.sleep(0.2)
        devtools = await DevTools.connect(target["webSocketDebuggerUrl"])
        await devtools.call("Page.enable")
        for page in pages:
            name = page.relative_to(root).as_posix()
            if parse_page(page).redirect is not None:
                continue  # a redirect page: its target is a checked link, and a page of its own
            url = urljoin(base_url, name)
            devtools.events.clear()
            try:
                await set_width(devtools, WIDE, timeout)
                navigation = await devtools.call("Page.navigate", url=url, timeout=timeout)
                if navigation.get("errorText"):
                    problems.append(f"{name}: did not load ({navigation['errorText']})")
                    continue
                await devtools.wait_event("Page.loadEventFired", timeout)
                state = json.loads(await evaluate(devtools, PAGE_PROBE, timeout, "page probe"))
            except (asyncio.TimeoutError, RuntimeError) as error:
                problems.append(f"{name}: {type(error).__name__} {error}")
                continue
            n_images += state["images"]
            if not state["title"] or not state["article"]:
                problems.append(f"{name}: rendered without a title or main article ({state})")
            for src in state["broken"]:
                problems.append(f"{name}: image did not load in the browser: {src}")
            n_formulas += state["formulas"]
            problems += [f"{name}: {problem}" for problem in reading_problems(state)]
            shoot = screenshots is not None and (not screenshot_pages or name in screenshot_pages)
            stem = name.replace("/", "__").removesuffix(".html")
            try:
                heights[name] = int(await evaluate(devtools, HEIGHT_PROBE, timeout, "height probe"))
                if shoot:
                    await save_screenshot(devtools, screenshots / f"{stem}.png", timeout)
                await set_width(devtools, NARROW, timeout)
                narrow = json.loads(await evaluate(devtools, NARROW_PROBE, timeout, "narrow-screen probe"))
                if shoot:
                    await save_screenshot(devtools, screenshots / f"{stem}-400.png", timeout)
            except (asyncio.TimeoutError, RuntimeError) as error:
                problems.append(f"{name}: {type(error).__name__} {error}")
                continue
            problems += [f"{name}: {problem}" for problem in narrow_problems(narrow)]
        devtools.connection.close()
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(profile, ignore_errors=True)
    return n_images, n_formulas, problems, heights


def narrow_problems(state: dict) -> list[str]:
    """What goes wrong on a 400 px screen, from the narrow probe's report."""
    at = f"at {state['width']} px"
    problems = []
    if state["pageScroll"] > state["width"] + 1:
        problems.append(f"the page scrolls sideways {at} ({state['pageScroll']} px wide)")
    problems += [f"sticks out of the screen {at}, in no box that scrolls: {what}" for what in state["sticking"]]
    problems += [f"table scrolls inside its box {at} with no visible cue: {text!r}" for text in state["noCue"]]
    problems += [f"verdict off the screen {at}: {text!r}" for text in state.get("verdictsOff", [])]
    problems += [f"figure wider than its column {at}: {name}" for name in state.get("wideFigures", [])]
    problems += [f"figure shrunk {at}, its 9 pt text below 9 pt: {name}" for name in state.get("shrunkFigures", [])]
    return problems


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


def reading_problems(state: dict) -> list[str]:
    """What keeps a reader from reading a rendered page, from the page probe's report."""
    column = f"a {state['columnWidth']} px column"
    return ([f"maths not rendered by MathJax: {text!r}" for text in state["unrendered"]]
            + [f"raw TeX in the text: {text!r}" for text in state["rawTex"]]
            + [f"figure without a caption: {name}" for name in state["uncaptioned"]]
            + [f"figure shrunk to fit {column}, its text with it: {name}" for name in state["shrunk"]]
            + [f"table cell wider than its column: {cell}" for cell in state["cramped"]]
            + [f"claims table wider than the column at {WIDE} px: {table}" for table in state["wideClaims"]]
            + [f"path of the build machine on the page: {path}" for path in state["machinePaths"]]
            + [f"printed output cut off at the column's edge: {line}" for line in state.get("cutOutputs", [])])


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
                args.allow_external, args.timeout))
        finally:
            with_server[0].shutdown()
        problems += browser_problems + height_problems(heights, args.max_page_height, args.max_reading_height,
                                                                      args.max_intro_height)
    for problem in problems:
        print("BROKEN", problem)
    for line in height_report(heights) if heights else []:
        print(line)
    seen = "" if browser_images is None else f" ({browser_images} <img> decoded in Chromium)"
    colab = f", {n_colab} Colab links" if n_colab else ""
    maths = "" if browser_formulas is None else f", {browser_formulas} formulas rendered by MathJax"
    print(f"{len(pages)} pages, {n_figures} figures{seen}, {n_links} internal links{colab}{maths}, "
          f"{len(problems)} broken")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
