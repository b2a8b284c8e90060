#!/usr/bin/env python3
"""Check the built book as a web page: accessibility (axe-core), layout shift, weight and Lighthouse, as GitHub Pages serves it.

    python scripts/check_web.py _build/html [--pages book/intro.html ...] [--lighthouse all|none|PAGE ...]
                                            [--lighthouse-jobs N]

The build is served on 127.0.0.1 with gzip compression (as GitHub Pages serves it) and checked:

1. **Every page, in headless Chromium** (Selenium, the browser's cache off), at 1280 px and at 400 px wide: what it
   loads until it has settled (every request, gzipped as sent: Resource Timing's transfer sizes) within its budget,
   600 KiB for the introduction and the chapters, 1.2 MiB for the explorer (it fetches BokehJS's files); its
   cumulative layout shift (the largest session window of layout-shift entries) at most 0.1; then axe-core
   (``tools/web``, pinned, installed with ``npm ci``), injected into the page, finds no critical and no serious
   violation.
2. **Lighthouse** (``tools/web``), mobile and desktop, on every page (``--lighthouse none`` or some pages for a
   quicker look): accessibility 100, best practices 100, SEO at least 95, layout shift at most 0.1 and the budgets
   above; the largest contentful paint of the introduction and the chapters (but the explorer) against its target
   of :data:`MAX_LARGEST_PAINT` seconds, printed where it is over, failed with ``--gate-largest-paint`` where the median of :data:`PAINT_AUDITS` audits is over (a page over
   in its first audit is audited again; CI passes it: the
   introduction and every chapter met it at median of 3 once the stylesheets were pruned into one file and MathJax's
   fonts cut to the book's characters, book/_ext/lean_css.py and static_maths.py); every figure printed, the machine's benchmark index with them, and the
   performance score printed, not gated (it depends on the machine's load). An audit that times out is tried once
   more (``lighthouse-pages.mjs``). Each of :data:`LIGHTHOUSE_JOBS`
   processes (``tools/web/lighthouse-pages.mjs``) launches one Chromium and audits its share of the pages in it
   through Lighthouse's Node API, instead of its command line launching both once a page and form:
   all 18 pages in both form factors in 351 s on two busy cores (load average 5 to 9), two at a time, where the
   command line took 12 min 46 s. The API page takes the longest (over a minute a form: its 4,400 links).

Every failure is printed, one line each, with its page; the last line is the summary. Exit status 0 only if nothing
failed; 2 if the build or the tools are missing.
"""
from __future__ import annotations

import argparse
import functools
import gzip
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "tools" / "web" / "node_modules"
AXE = TOOLS / "axe-core" / "axe.min.js"
LIGHTHOUSE = ROOT / "tools" / "web" / "lighthouse-pages.mjs"
LIGHTHOUSE_INSTALLED = TOOLS / "lighthouse" / "core" / "index.js"
LIGHTHOUSE_FORMS = ("mobile", "desktop")
#: Seconds without a word from Lighthouse before its run is called hung (one page in one form factor takes 5 to 30 s
#: on two busy cores).
LIGHTHOUSE_SILENCE = 300
#: Lighthouse runs side by side (each its own Chromium and its share of the pages).
LIGHTHOUSE_JOBS = 2
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
WIDTHS = {"desktop": (1280, 900), "400 px": (400, 900)}
KIB = 1024
#: What a page may load, gzipped, in bytes: the explorer fetches BokehJS; the introduction and chapters the rest.
BUDGETS = {"notebooks/03_explorer.html": 1200 * KIB}
READING_BUDGET = 600 * KIB
READING_PAGES = ("book/intro.html", "notebooks/")
GATES = {"accessibility": 1.0, "best-practices": 1.0, "seo": 0.95}
MAX_LAYOUT_SHIFT = 0.1
#: Lighthouse's largest contentful paint (its simulated phone on Slow 4G, or its desktop), in seconds, that a page a
#: reader reads in order may not exceed (issue 73): the introduction and the numbered chapters but the explorer, whose
#: plots BokehJS draws.
MAX_LARGEST_PAINT = 2.5
#: Audits of a page over its paint target, the first included, whose median is judged (as the target is stated).
PAINT_AUDITS = 3
LARGEST_PAINT_PAGES = ("book/intro.html", "notebooks/0")
LARGEST_PAINT_EXEMPT = ("notebooks/03_explorer.html",)
SKIP_DIRS = {"_sources", "_static", "_images", "_downloads", "reports"}
COMPRESSED = {".html", ".js", ".css", ".svg", ".json", ".txt", ".xml", ".map", ".inv", ".ipynb", ".md", ".bib"}


def largest_paint_target(page: str) -> float | None:
    """The seconds ``page``'s largest contentful paint may take in Lighthouse, None where it has no target."""
    if page in LARGEST_PAINT_EXEMPT or not page.startswith(LARGEST_PAINT_PAGES):
        return None
    return MAX_LARGEST_PAINT


def budget(page: str) -> int | None:
    """The gzipped bytes ``page`` may load, None where the issue sets no budget (the back matter)."""
    if page in BUDGETS:
        return BUDGETS[page]
    return READING_BUDGET if page.startswith(READING_PAGES) else None


class GzipHandler(SimpleHTTPRequestHandler):
    """Serves files as GitHub Pages does: text gzip-compressed when the browser accepts it."""

    def log_message(self, *args):
        pass

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if path.suffix not in COMPRESSED or "gzip" not in self.headers.get("Accept-Encoding", "") or not path.is_file():
            return super().send_head()
        body = compressed(path, path.stat().st_mtime)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return None


@functools.lru_cache(maxsize=None)
def compressed(path: Path, mtime: float) -> bytes:
    return gzip.compress(path.read_bytes(), compresslevel=6)


def serve(root: Path) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(GzipHandler, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def pages_of(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.html")
                  if not SKIP_DIRS & set(p.relative_to(root).parts[:-1]) and p.name != "index.html")


def browser_path() -> str:
    found = next((p for p in map(shutil.which, BROWSERS) if p), None)
    if not found or not shutil.which("chromedriver"):
        raise SystemExit("needs Chromium and chromedriver (Debian: apt-get install -y chromium chromium-driver)")
    return found


# --- axe-core -------------------------------------------------------------------------------------

# After the load event, once MathJax has typeset, the fonts have loaded and 1.5 s have passed (BokehJS draws): the
# bytes the page loaded (gzipped, as sent) and its cumulative layout shift (the largest session window: shifts less
# than 1 s apart, at most 5 s long, none just after an input).
SETTLE_AND_MEASURE = """
const done = arguments[arguments.length - 1];
(async () => {
  for (let i = 0; i < 100 && document.querySelector("script[src*='mathjax' i]")
       && !(window.MathJax && MathJax.startup && MathJax.startup.promise); i++) await new Promise(r => setTimeout(r, 50));
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  await document.fonts.ready;
  await new Promise(r => setTimeout(r, 1500));
  const shifts = await new Promise(resolve => {
    const observer = new PerformanceObserver(list => { observer.disconnect(); resolve(list.getEntries()); });
    observer.observe({type: "layout-shift", buffered: true});
    setTimeout(() => { observer.disconnect(); resolve([]); }, 1000);  // no shift at all: no callback
  });
  let cls = 0, session = 0, first = 0, last = 0;
  for (const shift of shifts.filter(s => !s.hadRecentInput)) {
    if (shift.startTime - last > 1000 || shift.startTime - first > 5000) { session = 0; first = shift.startTime; }
    session += shift.value; last = shift.startTime; cls = Math.max(cls, session);
  }
  const entries = performance.getEntriesByType("navigation").concat(performance.getEntriesByType("resource"));
  done({bytes: entries.reduce((sum, e) => sum + (e.transferSize || 0), 0), requests: entries.length, cls: cls});
})();
"""
# Then every image loaded and decoded (lazy ones too), and axe on the whole document.
AXE_RUN = """
const done = arguments[arguments.length - 1];
(async () => {
  await Promise.all(Array.from(document.images, img => { img.loading = "eager"; return img.decode().catch(() => {}); }));
  const result = await axe.run(document, {resultTypes: ["violations"]});
  done(result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map(n => n.target.join(" ")).slice(0, 3), count: v.nodes.length})));
})().catch(error => done([{id: "axe-failed", impact: "critical", help: String(error), nodes: [], count: 1}]));
"""


def browser_check(base: str, pages: list[str]) -> list[str]:
    """Every page over its budget or its layout shift, and every critical or serious violation axe finds on it, at
    every width of ``WIDTHS``."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = browser_path()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    driver.set_script_timeout(120)
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})  # every page pays for its theme
    axe = AXE.read_text(encoding="utf-8")
    problems = []
    try:
        for width, (w, h) in WIDTHS.items():
            driver.set_window_size(w, h)
            for page in pages:
                driver.get(base + page)
                loaded = driver.execute_async_script(SETTLE_AND_MEASURE)
                problems += over_limits(f"{page} at {width}", loaded["bytes"], loaded["cls"], budget(page))
                driver.execute_script(axe)
                violations = driver.execute_async_script(AXE_RUN)
                bad = [v for v in violations if v["impact"] in ("critical", "serious")]
                others = sum(v["count"] for v in violations if v not in bad)
                print(f"{page} at {width}: {loaded['bytes'] / KIB:,.0f} KiB gzipped in {loaded['requests']} requests, "
                      f"layout shift {loaded['cls']:.3f}; axe {sum(v['count'] for v in bad)} critical or serious, "
                      f"{others} other")
                problems += [f"{page} at {width}: axe {v['impact']} {v['id']} ({v['help']}) on {v['count']} "
                             f"elements: {'; '.join(v['nodes'])}" for v in bad]
    finally:
        driver.quit()
    return problems


def over_limits(where: str, weight: float, shift: float, limit: int | None) -> list[str]:
    """The page's weight over its budget and its layout shift over the limit, as problems."""
    problems = []
    if shift > MAX_LAYOUT_SHIFT:
        problems.append(f"{where}: layout shift {shift:.3f} above {MAX_LAYOUT_SHIFT}")
    if limit and weight > limit:
        problems.append(f"{where}: loads {weight / KIB:,.0f} KiB gzipped, over its budget of {limit / KIB:,.0f} KiB")
    return problems


# --- Lighthouse -----------------------------------------------------------------------------------

def lighthouse_runs(base: str, pages: list[str], jobs: int) -> Iterator[dict]:
    """Lighthouse's summary of each page of ``pages`` in each form factor, as it comes: ``tools/web/lighthouse-pages.mjs``
    audits them against one Chromium it launches, ``jobs`` of them side by side (each its share of the pages). A run
    that does not come (its browser or Lighthouse hung: nothing heard for :data:`LIGHTHOUSE_SILENCE` seconds, or
    its process ended without it) is a summary with an error."""
    env = dict(os.environ, CHROME_PATH=browser_path())
    shares = [pages[i::jobs] for i in range(jobs) if pages[i::jobs]]
    lines: queue.Queue = queue.Queue()
    processes, told = [], []
    for share in shares:
        stderr = tempfile.TemporaryFile(mode="w+")  # a file, not a pipe: a full pipe would stall Lighthouse
        process = subprocess.Popen(["node", str(LIGHTHOUSE), base, *share], stdout=subprocess.PIPE, stderr=stderr,
                                   text=True, env=env, cwd=LIGHTHOUSE.parent)
        processes.append((process, stderr))
        threading.Thread(target=relay, args=(process.stdout, lines), daemon=True).start()
    expected = {(page, form) for page in pages for form in LIGHTHOUSE_FORMS}
    running = len(processes)
    try:
        while running:
            try:
                line = lines.get(timeout=LIGHTHOUSE_SILENCE)
            except queue.Empty:
                break
            if line is None:
                running -= 1
            elif line.startswith("{"):
                run = json.loads(line)
                expected.discard((run["page"], run["form"]))
                yield run
            else:
                told.append(line.strip())
    finally:
        for process, stderr in processes:
            if process.poll() is None:
                process.terminate()  # the script closes its Chromium on SIGTERM
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            stderr.seek(0)
            told.append(stderr.read().strip()[-300:])
            stderr.close()
    message = " ".join(filter(None, told)) or "no message"
    for page, form in sorted(expected):
        yield {"page": page, "form": form, "errors": [f"no report (nothing heard for {LIGHTHOUSE_SILENCE} s, or "
                                                       f"Lighthouse ended: {message})"]}


def relay(stream, lines: queue.Queue) -> None:
    """Every line of ``stream`` into ``lines``, then None: the stream has ended."""
    for line in stream:
        lines.put(line)
    lines.put(None)


def paint_misses(base: str, misses: dict[tuple[str, str], list[float]], elements: dict[tuple[str, str], str],
                 jobs: int, gate_paint: bool) -> list[str]:
    """The pages whose largest paint was over its target in one audit, judged as the target is stated: with
    ``gate_paint`` each such page is audited :data:`PAINT_AUDITS` times in all and fails if the median is over (one
    audit on a busy machine can paint late by chance); without it each one over is printed."""
    if gate_paint and misses:
        again = sorted({page for page, _ in misses})
        for _ in range(PAINT_AUDITS - 1):
            for run in lighthouse_runs(base, again, jobs):
                key = (run["page"], run["form"])
                if key in misses and not run["errors"] and run["lcp"] is not None:
                    misses[key].append(run["lcp"] / 1000)
    problems = []
    for (page, form), paints in sorted(misses.items()):
        middle, listed, target = statistics.median(paints), ", ".join(f"{p:.1f}" for p in paints), largest_paint_target(page)
        miss = (f"{page} ({form}): Lighthouse largest contentful paint {middle:.1f} s (median of {listed}), over its "
                f"target of {target} s ({elements[(page, form)]})")
        if not gate_paint:
            print("OVER TARGET (printed, not gated)", miss)
        elif middle > target:
            problems.append(miss)
        else:
            print(f"lighthouse {page} {form}: largest paint within its target at the median of {len(paints)} audits "
                  f"({listed} s)")
    return problems


def lighthouse_check(base: str, pages: list[str], jobs: int = LIGHTHOUSE_JOBS, gate_paint: bool = False) -> list[str]:
    """What fails Lighthouse's gates on ``pages``, in both form factors; a largest paint over its target fails only
    with ``gate_paint`` (as CI runs it; without it each one over is printed)."""
    problems, started = [], time.monotonic()
    misses: dict[tuple[str, str], list[float]] = {}  # (page, form) over its paint target: its largest paints, seconds
    elements: dict[tuple[str, str], str] = {}
    for run in lighthouse_runs(base, pages, jobs):
        page, form = run["page"], run["form"]
        if run["errors"]:
            problems.append(f"{page} ({form}): Lighthouse failed: {'; '.join(run['errors'])}")
            continue
        limit = budget(page)
        scores, shift, weight = run["scores"], run["cls"], run["bytes"]
        print(f"lighthouse {page} {form}: performance {percent(scores['performance'])}, accessibility "
              f"{percent(scores['accessibility'])}, best practices {percent(scores['best-practices'])}, "
              f"SEO {percent(scores['seo'])}; layout shift {shift:.3f}; largest paint {run['lcp'] / 1000:.1f} s; "
              + (f"total blocking time {run['tbt']:,.0f} ms; " if run.get("tbt") is not None else "") +
              f"{weight / KIB:,.0f} KiB gzipped" + (f" (budget {limit / KIB:,.0f} KiB)" if limit else "")
              + f"; benchmark index {run.get('benchmark') or 0:,.0f}; {run['seconds']:.0f} s"
              + (f", {run['tries']} tries" if run.get("tries", 1) > 1 else ""))
        target = largest_paint_target(page)
        if target is not None and run["lcp"] is not None and run["lcp"] / 1000 > target:
            misses[(page, form)] = [run["lcp"] / 1000]
            elements[(page, form)] = run.get("lcpElement") or "element not named"
        for key, least in GATES.items():
            if scores[key] is None or scores[key] < least:
                problems.append(f"{page} ({form}): Lighthouse {key} {scores[key]} below {least} "
                                f"(failing: {', '.join(run['failing'].get(key, [])) or 'see the report'})")
        problems += over_limits(f"{page} (Lighthouse {form})", weight, shift, limit)
        if shift > MAX_LAYOUT_SHIFT:
            problems += [f"{page} (Lighthouse {form}): shifted {s['score']:.3f}: {s['node']} {s['snippet']}"
                         for s in run["shifts"]]
    problems += paint_misses(base, misses, elements, jobs, gate_paint)
    if pages:
        print(f"lighthouse: {len(pages)} pages, mobile and desktop, in {time.monotonic() - started:.0f} s "
              f"({jobs} at a time)")
    return problems


def percent(score: float | None) -> str:
    return "none" if score is None else f"{score * 100:.0f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="the built book (_build/html)")
    parser.add_argument("--pages", nargs="+", help="pages to check, relative to the build (default: every page)")
    parser.add_argument("--no-browser", action="store_true", help="skip the weight, layout shift and axe-core pass")
    parser.add_argument("--lighthouse", nargs="+", default=["all"], metavar="PAGE",
                        help="pages Lighthouse checks: 'all' (the default: every page checked), 'none' or pages")
    parser.add_argument("--lighthouse-jobs", type=int, default=LIGHTHOUSE_JOBS, choices=(1, 2, 3, 4),
                        help=f"Lighthouse runs side by side, each with its own Chromium (default {LIGHTHOUSE_JOBS})")
    parser.add_argument("--gate-largest-paint", action="store_true",
                        help=f"fail a reading page whose largest paint is over {MAX_LARGEST_PAINT} s (default: print it)")
    args = parser.parse_args(argv)
    if not (args.root / "search.html").is_file():
        print(f"{args.root}: not a built book; build it first (make book)", file=sys.stderr)
        return 2
    pages = args.pages or pages_of(args.root)
    unknown = [page for page in args.lighthouse if page not in pages and page not in ("all", "none")]
    if unknown:  # what was asked is checked first, before the tools: a wrong page name is named wherever it is run
        print(f"--lighthouse: not a page checked here: {', '.join(unknown)}; choose 'all', 'none' or some of: "
              f"{', '.join(pages)}", file=sys.stderr)
        return 2
    if not AXE.is_file() or not LIGHTHOUSE_INSTALLED.is_file():
        print(f"{TOOLS}: Lighthouse and axe-core are not installed; run (cd tools/web && npm ci)", file=sys.stderr)
        return 2
    started = time.monotonic()
    server, base = serve(args.root)
    try:
        problems = [] if args.no_browser else browser_check(base, pages)
        chosen = {"all": pages, "none": []}.get(args.lighthouse[0], args.lighthouse)
        problems += lighthouse_check(base, chosen, args.lighthouse_jobs, args.gate_largest_paint)
    finally:
        server.shutdown()
    for problem in problems:
        print("FAILED", problem)
    print(f"{len(pages)} pages checked in {time.monotonic() - started:.0f} s: "
          + ("passed" if not problems else f"{len(problems)} problems"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
