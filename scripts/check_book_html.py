#!/usr/bin/env python3
"""Check a built Jupyter Book in a real headless browser.

    python scripts/check_book_html.py _build/html [--screenshots DIR] [--pages a.html b.html]

Two passes over every ``*.html`` file of the build:

1. **Static** (standard library only): every internal link (``href`` to a local file, with its
   ``#anchor`` checked against the ``id``s of the target page) resolves, and every ``<img>`` source
   is a file on disk that decodes as PNG / JPEG / GIF / SVG with a non-zero size.
2. **Browser**: the build is served by ``http.server`` on 127.0.0.1 and every page is loaded in
   headless Chromium driven over the DevTools protocol (tornado's websocket client, which the
   notebook kernel already depends on). A page passes when it loads without a network error, has a
   title and a main article, and every ``<img>`` in the rendered DOM decodes with
   ``naturalWidth > 0``. ``--screenshots DIR`` saves a PNG of the chosen pages.

Colab launch links must open a paired ``.ipynb`` that exists in the repository (Colab cannot read
the jupytext Markdown sources).

Requests to other hosts (MathJax's CDN, fonts) are refused inside the browser unless
``--allow-external`` is given, so the check runs offline and never waits on a network.
Exit status 0 only if nothing is broken; the last line is the summary
("N pages, M figures, K internal links, 0 broken").
"""
from __future__ import annotations

import argparse
import asyncio
import base64
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


# Run inside each page after its load event: make lazy images load now, decode them all, report.
PAGE_PROBE = """
(async () => {
  const images = Array.from(document.images);
  images.forEach(img => { img.loading = "eager"; });
  const broken = [];
  await Promise.all(images.map(img => img.decode().then(
      () => { if (!(img.naturalWidth > 0)) broken.push(img.currentSrc || img.src); },
      () => broken.push(img.currentSrc || img.src))));
  return JSON.stringify({
    title: document.title,
    readyState: document.readyState,
    article: !!document.querySelector("main, article, [role=main]"),
    images: images.length,
    broken: broken,
  });
})()
"""


async def browser_check(browser: str, base_url: str, root: Path, pages: list[Path], screenshots: Path | None,
                        screenshot_pages: set[str], allow_external: bool, timeout: float) -> tuple[int, list[str]]:
    """(images seen in the rendered DOMs, problems)."""
    profile = tempfile.mkdtemp(prefix="check-book-chromium-")
    port = free_port()
    arguments = [
        browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio", f"--user-data-dir={profile}",
        f"--remote-debugging-port={port}", "--remote-allow-origins=*", "--window-size=1280,900",
    ]
    if not allow_external:
        arguments.append("--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1")
    arguments.append("about:blank")
    process = subprocess.Popen(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    problems: list[str] = []
    n_images = 0
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
                navigation = await devtools.call("Page.navigate", url=url, timeout=timeout)
                if navigation.get("errorText"):
                    problems.append(f"{name}: did not load ({navigation['errorText']})")
                    continue
                await devtools.wait_event("Page.loadEventFired", timeout)
                probe = await devtools.call("Runtime.evaluate", expression=PAGE_PROBE, awaitPromise=True,
                                            returnByValue=True, timeout=timeout)
            except (asyncio.TimeoutError, RuntimeError) as error:
                problems.append(f"{name}: {type(error).__name__} {error}")
                continue
            if "exceptionDetails" in probe:
                problems.append(f"{name}: page probe failed: {probe['exceptionDetails'].get('text')}")
                continue
            state = json.loads(probe["result"]["value"])
            n_images += state["images"]
            if not state["title"] or not state["article"]:
                problems.append(f"{name}: rendered without a title or main article ({state})")
            for src in state["broken"]:
                problems.append(f"{name}: image did not load in the browser: {src}")
            if screenshots is not None and (not screenshot_pages or name in screenshot_pages):
                shot = await devtools.call("Page.captureScreenshot", format="png", timeout=timeout)
                out = screenshots / (name.replace("/", "__").removesuffix(".html") + ".png")
                out.write_bytes(base64.b64decode(shot["data"]))
        devtools.connection.close()
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(profile, ignore_errors=True)
    return n_images, problems


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
    browser_images = None
    if not args.no_browser:
        if args.screenshots:
            args.screenshots.mkdir(parents=True, exist_ok=True)
        browser = find_browser(args.browser)
        with_server = serve(root)
        try:
            browser_images, browser_problems = asyncio.run(browser_check(
                browser, with_server[1], root, pages, args.screenshots, set(args.pages),
                args.allow_external, args.timeout))
        finally:
            with_server[0].shutdown()
        problems += browser_problems
    for problem in problems:
        print("BROKEN", problem)
    seen = "" if browser_images is None else f" ({browser_images} <img> decoded in Chromium)"
    colab = f", {n_colab} Colab links" if n_colab else ""
    print(f"{len(pages)} pages, {n_figures} figures{seen}, {n_links} internal links{colab}, {len(problems)} broken")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
