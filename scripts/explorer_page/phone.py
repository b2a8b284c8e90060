"""The explorer page at a phone's width (scripts/check_explorer.py, check 9): every figure waits for its button, and
nothing asks for BokehJS until it is pressed; pressed, it draws the figure."""
from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from urllib.parse import unquote

from .browser import EDGE, HELPERS, PHONE, TOLERANCE, Explorer, browser_session, difference

#: Each figure's box at a phone's width, once the page has loaded and the loader has had a frame and a turn to act:
#: its reserved height (CSS min-height) and height, the labels of its buttons, its document (inline, or the file that
#: stores it); whether BokehJS is on the page, and where the loader would fetch its files from.
PHONE_BOXES = """
const done = arguments[arguments.length - 1];
const turn = next => () => requestAnimationFrame(() => setTimeout(next, 0));  // a frame, then a task
const loader = document.querySelector("script[data-bokehjs]");
const urls = loader ? JSON.parse(loader.dataset.bokehjs) : [];
const report = () => done({bokeh: window.Bokeh !== undefined, urls: urls,
  boxes: Array.from(document.querySelectorAll(".mope-figure"), box => {
    const data = box.parentElement.nextElementSibling;
    return {name: box.className, reserved: parseFloat(getComputedStyle(box).minHeight) || 0,
            height: box.getBoundingClientRect().height,
            buttons: Array.from(box.querySelectorAll(".mope-figure-prompt button"), b => b.textContent),
            inline: data.dataset.src ? null : data.textContent, src: data.dataset.src || null};
  })});
const settled = turn(turn(report));
if (document.readyState === "complete") settled(); else window.addEventListener("load", settled);
"""
LABEL = re.compile(r"Draw the interactive figure \(([0-9.]+) MB compressed: (BokehJS and its data|its data)\)")


def gzipped(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=6))


def document_bytes(page: Path, box: dict) -> bytes:
    """The figure's document as the page carries it: inline, or in the book's file that stores it."""
    if box["inline"] is not None:
        return box["inline"].encode()
    stored = (page.parent / unquote(box["src"])).read_text(encoding="utf-8")
    return stored[stored.index("] = ") + 4:].rstrip().removesuffix(";").encode()


def bokehjs_requested(driver) -> list[str]:
    return [url for url in requested(driver) if re.search(r"/bokeh(-widgets)?-[^/]*\.min\.js$", url)]


def requested(driver) -> set[str]:
    """Every URL the page has asked for since the last call (Chromium's network log, read once)."""
    return {json.loads(entry["message"])["message"]["params"]["request"]["url"]
            for entry in driver.get_log("performance")
            if json.loads(entry["message"])["message"]["method"] == "Network.requestWillBeSent"}


def check_phone(page: Path, timeout: float = 60.0) -> list[str]:
    """At a phone's width: a button in every box and nothing fetched until it is pressed; then the button draws."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    problems: list[str] = []
    where = f"at {PHONE[0]} px"
    with browser_session(problems, where) as driver:
        driver.set_window_size(*PHONE)
        driver.set_script_timeout(timeout)
        driver.get(page.resolve().as_uri())
        seen = driver.execute_async_script(PHONE_BOXES)
        fetched = bokehjs_requested(driver)
        if fetched or seen["bokeh"]:
            problems.append(f"{where} BokehJS was fetched before any button was pressed: {fetched or 'window.Bokeh'}")
        library = sum(gzipped((page.parent / unquote(url)).read_bytes()) for url in seen["urls"])
        for box in seen["boxes"]:
            if len(box["buttons"]) != 1:
                problems.append(f"{where} the box {box['name']!r} shows {len(box['buttons'])} buttons, not one")
                continue
            if box["reserved"] and abs(box["height"] - box["reserved"]) > EDGE:
                problems.append(f"{where} the box {box['name']!r} is {box['height']:.0f} px high with its button, "
                                f"not its reserved {box['reserved']:.0f} px: the text below it jumps")
            expected = (library + gzipped(document_bytes(page, box))) / 1e6
            label = LABEL.fullmatch(box["buttons"][0])
            if label is None or label[2] != "BokehJS and its data" or label[1] != f"{expected:.2f}":
                problems.append(f"{where} the button says {box['buttons'][0]!r}; a tap downloads {expected:.2f} MB "
                                "compressed, BokehJS and the figure's data")
        print(f"{where}: {len(seen['boxes'])} boxes, buttons {[b for box in seen['boxes'] for b in box['buttons']]}, "
              f"heights {[round(box['height']) for box in seen['boxes']]} px; BokehJS fetched before a press: "
              f"{bool(fetched or seen['bokeh'])}")
        if problems:
            return problems
        explorer = Explorer(driver, timeout)
        first = driver.find_element("css selector", ".mope-figure .mope-figure-prompt button")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", first)
        if bokehjs_requested(driver) or driver.execute_script("return window.Bokeh !== undefined;"):
            return [f"{where} BokehJS was fetched after the page had loaded, before any button was pressed"]
        first.send_keys(Keys.ENTER)  # the keyboard: a <button> in the page's tab order
        try:
            explorer.wait.until(lambda d: d.execute_script(
                HELPERS + "return window.Bokeh !== undefined && model('status') !== null "
                          "&& model('status').text.length > 0;"))
        except TimeoutException:
            return problems + [f"{where} pressing the explorer's button did not draw it within {timeout:.0f} s"]
        if not any(url.startswith("file:") for url in bokehjs_requested(driver)):
            problems.append(f"{where} the explorer was drawn without fetching the book's BokehJS file")
        worst = difference(explorer.state())
        print(f"{where}: Enter on the explorer's button drew it; max |drawn - MorletPositions| = {worst:.1e}")
        if not worst <= TOLERANCE:
            problems.append(f"{where} the explorer drawn on request differs from MorletPositions by up to {worst:.1e}")
        rest = driver.execute_script("return Array.from(document.querySelectorAll('.mope-figure-prompt button'), "
                                     "b => b.textContent);")
        kinds = [(LABEL.fullmatch(label) or [None] * 3)[2] for label in rest]
        if len(rest) != len(seen["boxes"]) - 1 or set(kinds) - {"its data"}:
            problems.append(f"{where} after the explorer was drawn the other boxes' buttons say {rest}, not one each "
                            "naming its data only")
        elif rest:
            second = driver.find_element("css selector", ".mope-figure-prompt button")
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", second)
            second.click()
            try:
                WebDriverWait(driver, timeout).until(lambda d: d.execute_script(
                    HELPERS + "return model('loss_curves') !== null && !document.querySelector('.mope-figure-prompt');"))
                print(f"{where}: a click on the loss curves' button drew them")
            except TimeoutException:
                problems.append(f"{where} a click on the loss curves' button did not draw them within {timeout:.0f} s")
    return problems
