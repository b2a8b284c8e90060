#!/usr/bin/env python3
"""Drive the explorer chapter of the built book in headless Chromium, offline, and check what it draws.

    python scripts/check_explorer.py _build/html            # the book's page notebooks/03_explorer.html
    python scripts/check_explorer.py some/page.html         # any page that carries the two figures

The page is opened from disk (``file://``, as a reader opens a downloaded book) in headless Chromium
driven by Selenium through chromedriver (Debian: ``apt-get install chromium chromium-driver``), with
every host name unresolvable. It passes when:

1. every request the page makes is for a local file (Chromium's network log), BokehJS among them as the book's
   own file ``bokeh-<version>.min.js`` (not inline in the page), and BokehJS drew both figures (the explorer's
   status line and bound marker are written; the loss curves once scrolled to: a figure is drawn as it nears the
   screen);
2. the numbers the explorer draws (both channels over b = 0..T-1 and the kernel C(b, tau)) equal
   ``mope.model.positional.MorletPositions`` for the sliders' raw parameters, to 1e-6, at the start and
   after every interaction below;
3. dragging the sigma slider with the mouse to the right end of its track redraws the channels and
   shows the marker "inside"; after the omega slider is dragged too, dragging sigma to the left end
   redraws them again and flips the marker to "outside" (and the slider's point in the (sigma, omega)
   plane from green to red);
4. the jump menu moves the sliders to the paper's pair 127 (clamped, then projected above pi), and the
   "bound off" button draws MorletPositions(admissibility="none"); a jump back to initial pair 0 sets the
   bound it was initialised under again ("published");
5. on the loss figure, when the store has runs, unticking a shown model's box removes its curves;
6. at 400 px, every control and plot of both figures (each Bokeh widget, plot and layout, and the buttons, inputs,
   menus and slider tracks inside the widgets) lies inside the page's column (its article's content box) and the
   window; and at 1280 px the explorer's panels stand side by side as before (the spiral beside the plane);
7. at 400 px, each of the four sliders' handles is named by its slider's title and announces its value as the
   title shows it (aria-valuetext), and three presses of the right arrow key move omega and sigma by visible
   steps (each at least 4% of the value, and the curves redrawn);
8. the page states what its figures weigh, that statement matches their bytes (inline in the page, or the files of
   the book that hold their documents), and they stay within a budget (1 MB; BokehJS, 1.65 MB, is a file of its own);
   at 1280 px no figure waits for a button;
9. opened afresh in a 400 px window (a phone's width), every figure's box shows its button, nothing asks for BokehJS,
   the boxes keep their reserved heights and each button names what a tap downloads (BokehJS's files and the
   figure's document, gzip-compressed, to the hundredth of a MB); the explorer's button pressed with the Enter key
   fetches BokehJS and draws the explorer (its numbers equal MorletPositions'), the loss curves' button then names
   its data only, and a click on it draws the loss curves.

It prints the weight of the whole page: its HTML and every file it loads (the book's theme). Exit status 0 only if every check
passes; the last line is the summary. What the checks share (the browser, the explorer's state against MorletPositions)
and the phone check (9) lie beside it in ``scripts/explorer_page/``.
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

import bokeh

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:  # scripts/explorer_page/ beside it, however this script is loaded (the tests load it by path)
    sys.path.insert(0, HERE)
from explorer_page.browser import (  # noqa: E402
    BROWSERS, EDGE, HELPERS, PHONE, TOLERANCE, Explorer, browser_session, difference, find_executable, start_browser)
from explorer_page.phone import check_phone  # noqa: E402

PAGE = "notebooks/03_explorer.html"
FIGURES_BUDGET = 1_000_000  # bytes the interactive figures may add to the page's HTML (BokehJS is a file of its own)
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")


def check(page: Path, timeout: float = 60.0) -> list[str]:
    """Every check on ``page``; the problems found (empty when it passes)."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import Select

    problems: list[str] = []
    with browser_session(problems) as driver:
        driver.get(page.resolve().as_uri())
        explorer = Explorer(driver, timeout)
        # each figure is drawn as it nears the screen: bring each there in turn, as a reader scrolling down does, and
        # wait for it (scrolled past all at once, before the loader watched them, the explorer was never near the
        # screen again: only the loss curves, far below, were drawn)
        drawn = {"the explorer": "model('status') !== null && model('status').text.length > 0",
                 "the loss curves": "model('loss_curves') !== null"}
        for index, (figure, condition) in enumerate(drawn.items()):
            driver.execute_script("document.querySelectorAll('.mope-figure')[arguments[0]].scrollIntoView();", index)
            try:
                explorer.wait.until(lambda d: d.execute_script(
                    HELPERS + f"return window.Bokeh !== undefined && {condition};"))
            except TimeoutException:
                return [f"{page}: BokehJS did not draw {figure} within {timeout:.0f} s of its box nearing the screen"]

        start = explorer.state()
        print(f"start: {re.sub('<[^>]+>', ' ', start['bound'])}; {re.sub('<[^>]+>', ' ', start['status'])}")
        steps = [("start", start)]
        explorer.drag_slider("position", 0.05)
        later = explorer.changed(start)
        steps.append((f"position dragged to b = {later['position']}", later))
        explorer.drag_slider("sigma", 1.0)
        wide = explorer.changed(later)
        steps.append(("sigma dragged to the right end", wide))
        explorer.drag_slider("omega", 0.9)  # a frequency whose phases omega * b need float32 rounding
        turned = explorer.changed(wide)
        steps.append(("omega dragged to 90% of its track", turned))
        explorer.drag_slider("sigma", 0.0)
        narrow = explorer.changed(turned)
        steps.append(("sigma dragged to the left end", narrow))
        if "inside" not in turned["bound"] or "outside" not in narrow["bound"]:
            problems.append(f"the bound marker did not flip inside -> outside: {turned['bound']!r} -> {narrow['bound']!r}")
        if turned["colour"] == narrow["colour"]:
            problems.append("the slider's point in the (sigma, omega) plane kept its colour across the bound")

        Select(explorer.element("jump", "select")).select_by_visible_text("paper pair 127")
        # the points travel as float32: log10 of 3.346 rounded to float32 lies within 3e-8 of the exact one
        explorer.wait.until(lambda _: abs(explorer.state()["omega"] - math.log10(3.346)) < 1e-7,
                            "the jump menu did not move the omega slider")
        paper = explorer.changed(narrow)
        steps.append(("jump to paper pair 127", paper))
        if "projected" not in paper["status"] or "ω > π" not in paper["status"]:
            problems.append(f"paper pair 127 should be clamped then projected above pi: {paper['status']!r}")
        explorer.element("admissibility", ".bk-btn", 1).click()
        free = explorer.changed(paper)
        steps.append(("bound off", free))
        Select(explorer.element("jump", "select")).select_by_visible_text("initial pair 0")
        back = explorer.changed(free)
        steps.append(("jump to initial pair 0", back))
        if back["mode"] != "published":  # a jump sets the bound its point was learned under
            problems.append(f"the jump to initial pair 0 left the bound {back['mode']!r}, not 'published'")
        for name, state in steps:
            worst = difference(state)
            print(f"{name}: sigma~ = {10 ** state['sigma']:.4g}, omega~ = {10 ** state['omega']:.4g}, "
                  f"mode {state['mode']}: max |drawn - MorletPositions| = {worst:.1e}")
            if not worst <= TOLERANCE:
                problems.append(f"{name}: the drawn numbers differ from MorletPositions by up to {worst:.1e}")

        # the loss curves before the keyboard: the keyboard's check narrows the window to 400 px and back, and a
        # click landing while the page lays itself out again (seconds on a loaded machine) missed the model's box
        problems += check_loss_curves(explorer)
        problems += check_column(explorer)
        problems += check_keyboard(explorer)
        problems += check_requests_and_weight(driver, page)
        waiting = driver.execute_script("return document.querySelectorAll('.mope-figure-prompt').length;")
        if waiting:
            problems.append(f"at 1280 px {waiting} figures wait for a button instead of being drawn")
    return problems


#: Every control and plot of the page's Bokeh figures, and where the page's column is: for each view of a layout,
#: widget or plot, and each control inside a widget (its buttons, inputs, menus, slider tracks), its name and its
#: left and right edges; the column is the content box of the figures' article (else main, else the body).
PLACES = """
const box = document.querySelector(".mope-figure");
const column = box.closest("article") || box.closest("main") || document.body;
const style = getComputedStyle(column), edges = column.getBoundingClientRect();
const found = [], seen = new Set();
const place = (name, element) => {
  const r = element.getBoundingClientRect();
  if (r.width > 0 && r.height > 0) found.push([name, r.left, r.right]);
};
for (const root of Bokeh.index) for (const v of root.owner.query(() => true)) {
  if (seen.has(v) || !(v.el instanceof Element) || !("sizing_mode" in v.model)) continue;  // layouts, widgets, plots
  seen.add(v);
  const name = `${v.model.type} ${v.model.name || v.model.title?.text || v.model.title || ""}`.trim();
  place(name, v.el);
  if (v.shadow_el) for (const c of v.shadow_el.querySelectorAll("button, input, select, label, .bk-btn, .noUi-base"))
    place(`${name}: ${c.tagName.toLowerCase()} ${(c.textContent || "").trim().slice(0, 30)}`.trim(), c);
}
return {left: edges.left + parseFloat(style.paddingLeft), right: edges.right - parseFloat(style.paddingRight),
        window: document.documentElement.clientWidth, found: found};
"""


def outside_column(places: dict) -> list[str]:
    """What lies outside the column or the window, one line each."""
    left, right = max(places["left"], 0), min(places["right"], places["window"])
    return [f"{name} spans {a:.0f} to {b:.0f} px, outside the column's {left:.0f} to {right:.0f} px"
            for name, a, b in places["found"] if a < left - EDGE or b > right + EDGE]


def check_column(explorer: Explorer) -> list[str]:
    """At 400 px, every control and plot of both figures inside the column; at 1280 px, the explorer's spiral and
    (sigma, omega) plane side by side."""
    problems = []
    explorer.driver.set_window_size(*PHONE)
    try:  # the page lays itself out again at the new width (seconds on a loaded machine)
        explorer.wait.until(lambda _: not outside_column(explorer.run(PLACES)))
    except Exception:  # selenium's TimeoutException: what is still outside is reported below
        pass
    places = explorer.run(PLACES)
    problems += [f"at {PHONE[0]} px: {line}" for line in outside_column(places)]
    figures = [entry for entry in places["found"] if entry[0].startswith("Figure ")]
    print(f"at {PHONE[0]} px: {len(places['found'])} controls, plots and layouts, {len(figures)} plots, within the "
          f"column's {places['left']:.0f} to {places['right']:.0f} px: "
          f"{len(places['found']) - len(outside_column(places))}; plot widths "
          f"{sorted({round(b - a) for _, a, b in figures})} px")
    explorer.driver.set_window_size(1280, 1000)

    def side_by_side(_) -> bool:  # the spiral's right edge left of the plane's left edge
        found = explorer.run(PLACES)["found"]
        spiral = [right for name, _, right in found if name.startswith("Figure spiral")]
        plane = [left for name, left, _ in found if name.startswith("Figure (σ, ω) plane")]
        return len(spiral) == len(plane) == 1 and spiral[0] <= plane[0] + EDGE

    try:
        explorer.wait.until(side_by_side)
    except Exception:  # selenium's TimeoutException
        problems.append("at 1280 px the spiral and the (sigma, omega) plane are not side by side")
    return problems


SLIDERS = ("omega", "sigma", "position", "centre")
KEY_PRESSES = 3
LEAST_STEP = 1.04  # each press moves a log slider's raw value by at least 4%


def check_keyboard(explorer: Explorer) -> list[str]:
    """At 400 px: every slider's handle named by its title, its value announced as shown; arrow keys move the
    log sliders by visible steps."""
    from selenium.webdriver.common.keys import Keys

    problems = []
    explorer.driver.set_window_size(400, 900)
    for name in SLIDERS:
        handle = explorer.element(name, ".noUi-handle")
        title = explorer.run(f"return model({name!r}).title;")
        if handle.get_attribute("aria-label") != title:
            problems.append(f"the {name} slider's handle is named {handle.get_attribute('aria-label')!r}, not {title!r}")
        if name not in ("omega", "sigma"):
            continue
        before = explorer.state()
        said = handle.get_attribute("aria-valuetext") or ""
        if not said.startswith(f"{10 ** before[name]:.4g}"[:4]):
            problems.append(f"the {name} slider announces {said!r} for the raw value {10 ** before[name]:.4g}")
        handle.send_keys(*[Keys.ARROW_RIGHT] * KEY_PRESSES)
        try:
            after = explorer.changed(before)
        except Exception:  # selenium's TimeoutException: the keys moved nothing that is drawn
            problems.append(f"{KEY_PRESSES} presses of the right arrow on the {name} slider redrew nothing")
            continue
        ratio = 10 ** (after[name] - before[name])
        print(f"keyboard at 400 px: {KEY_PRESSES} right arrows move {name}~ from {10 ** before[name]:.4g} to "
              f"{10 ** after[name]:.4g} (x{ratio:.3f}); announced {handle.get_attribute('aria-valuetext')!r}")
        if ratio < LEAST_STEP ** KEY_PRESSES:
            problems.append(f"{KEY_PRESSES} right arrows move {name}~ by x{ratio:.4f} only, under "
                            f"{LEAST_STEP - 1:.0%} a press: not a visible step")
    explorer.driver.set_window_size(1280, 1000)
    return problems


def check_loss_curves(explorer: Explorer) -> list[str]:
    runs = explorer.run("return model('runs') === null ? 0 : model('runs').data.variant.length;")
    if not runs:
        print("loss curves: the store has no runs (the figure says so)")
        return []
    shown = explorer.run("return model('train_shown').data.variant.length + model('val_shown').data.variant.length;")
    if not shown:
        return ["the loss figure shows nothing although the store has runs"]
    ticked = explorer.run("return model('variants').active[0];")
    explorer.element("variants", "input", ticked).click()
    explorer.wait.until(lambda _: explorer.run(
        "return model('train_shown').data.variant.length + model('val_shown').data.variant.length;") < shown,
        "unticking a model did not remove its curves")
    print(f"loss curves: {runs} stored runs; unticking a model removed its curves")
    return []


def check_requests_and_weight(driver, page: Path) -> list[str]:
    """No request leaves the machine; print the page weight; the page's statement matches its figures."""
    urls = {json.loads(entry["message"])["message"]["params"]["request"]["url"]
            for entry in driver.get_log("performance")
            if json.loads(entry["message"])["message"]["method"] == "Network.requestWillBeSent"}
    problems = [f"request to another host: {url}" for url in sorted(urls) if not url.startswith(LOCAL_SCHEMES)]
    library = f"bokeh-{bokeh.__version__}.min.js"
    if not any(url.startswith("file:") and url.endswith("/" + library) for url in urls):
        problems.append(f"BokehJS was not loaded from the book's own file {library}")
    files = {Path(unquote(urlsplit(url).path)) for url in urls if url.startswith("file:")}
    weight = sum(path.stat().st_size for path in files if path.is_file())
    # the figures: their documents and loaders inline in the page, and the documents the book keeps in files
    # and each figure's styles and the prompt its box keeps for a phone (a <template>)
    figures = driver.execute_script("""
        const bytes = text => new TextEncoder().encode(text).length;
        const boxes = Array.from(document.querySelectorAll(".mope-figure"));
        return Array.from(document.querySelectorAll("script:not([src])"))
          .filter(s => s.text.includes("Bokeh") || s.dataset.src)
          .concat(boxes.flatMap(box => Array.from(box.parentElement.querySelectorAll(":scope > style"))))
          .concat(boxes.flatMap(box => Array.from(box.querySelectorAll(":scope > template"))))
          .reduce((sum, s) => sum + bytes(s.outerHTML), 0);""")
    figures += sum(path.stat().st_size for path in files if path.is_file() and path.name.startswith("figure-"))
    print(f"page weight: {weight:,} bytes, the HTML ({page.stat().st_size:,}; the interactive figures {figures:,}, "
          f"inline or in files of the book) and the {len(files) - 1} files it loads; {len(urls)} requests, {len(problems)} to another host")
    if figures > FIGURES_BUDGET:
        problems.append(f"the interactive figures weigh {figures:,} bytes, over the budget of {FIGURES_BUDGET:,}")
    statement = re.search(r"interactive figures weigh ([0-9.]+) MB", driver.execute_script("return document.body.innerText;"))
    if statement is None:
        problems.append("the page does not state its weight ('The interactive figures weigh N MB')")
    elif abs(float(statement.group(1)) * 1e6 - figures) > 0.01e6:
        problems.append(f"the page states {statement.group(1)} MB; its figures weigh {figures:,} bytes")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", type=Path, help=f"the built book (its {PAGE} is checked) or a page")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for each redraw (default 60)")
    args = parser.parse_args(argv)
    page = args.target / PAGE if args.target.is_dir() else args.target
    if not page.is_file():
        print(f"{page}: no such page; build the book first (make book)", file=sys.stderr)
        return 2
    started = time.monotonic()
    problems = check(page, args.timeout) + check_phone(page, args.timeout)
    for problem in problems:
        print("FAILED", problem)
    print(f"explorer page {page}: {'passed' if not problems else f'{len(problems)} problems'} "
          f"in {time.monotonic() - started:.1f} s")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
