"""The browser pass of the book check: the build served by ``http.server`` on 127.0.0.1, every page loaded
in headless Chromium (requests to other hosts refused unless allowed) at the wide width, its probes run
(:mod:`book_html.probes`), its height measured, then the same page at the narrow width; screenshots of the
chosen pages on request."""
from __future__ import annotations

import asyncio
import functools
import json
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urljoin

from book_html.devtools import DevTools, evaluate, save_screenshot, set_width
from book_html.probes import (HEIGHT_PROBE, NARROW_PROBE, PAGE_PROBE, figure_problems, narrow_problems,
                               reading_problems)
from book_html.static_pass import parse_page
from mope.book.figure_png import PngFacts, png_metadata
from mope.book.figure_style import PIXEL_DENSITY, SMALLEST_FONT_PT

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


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


async def browser_check(browser: str, base_url: str, root: Path, pages: list[Path], screenshots: Path | None,
                        screenshot_pages: set[str], allow_external: bool, timeout: float, wide: int, narrow: int
                        ) -> tuple[int, int, list[str], dict[str, int]]:
    """(images seen in the rendered DOMs, formulas rendered by MathJax, problems, {page: height at ``wide`` px}):
    each page is checked at ``wide`` px, then at ``narrow`` px."""
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

    @functools.lru_cache(maxsize=None)
    def chunks(src: str) -> PngFacts:  # what a figure's PNG says of itself, by the path the page serves it at
        path = (root / src.lstrip("/")).resolve()
        return png_metadata(path)

    def figures(state: dict, width: int) -> list[str]:
        return figure_problems(state["figures"], chunks, f"at {width} px", SMALLEST_FONT_PT, PIXEL_DENSITY)
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
                await set_width(devtools, wide, timeout)
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
            problems += [f"{name}: {problem}" for problem in reading_problems(state, wide) + figures(state, wide)]
            shoot = screenshots is not None and (not screenshot_pages or name in screenshot_pages)
            stem = name.replace("/", "__").removesuffix(".html")
            try:
                heights[name] = int(await evaluate(devtools, HEIGHT_PROBE, timeout, "height probe"))
                if shoot:
                    await save_screenshot(devtools, screenshots / f"{stem}.png", timeout)
                await set_width(devtools, narrow, timeout)
                narrow_report = json.loads(await evaluate(devtools, NARROW_PROBE, timeout, "narrow-screen probe"))
                if shoot:
                    await save_screenshot(devtools, screenshots / f"{stem}-400.png", timeout)
            except (asyncio.TimeoutError, RuntimeError) as error:
                problems.append(f"{name}: {type(error).__name__} {error}")
                continue
            problems += [f"{name}: {problem}" for problem in narrow_problems(narrow_report)
                         + figures(narrow_report, narrow_report["window"])]
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
