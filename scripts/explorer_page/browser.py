"""What the explorer's checks share: headless Chromium offline, and the explorer's state read from the page and
compared with MorletPositions (scripts/check_explorer.py; its phone check, :mod:`explorer_page.phone`)."""
from __future__ import annotations

import math
import shutil
from contextlib import contextmanager

import numpy as np
import torch

from mope.book.explorer import ADMISSIBILITY_MODES, CONTEXT
from mope.model.positional.morlet import MorletPositions

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
TOLERANCE = 1e-6  # float32 torch against float32-emulating JavaScript: a few ulp
PHONE = (400, 900)
EDGE = 1.0  # px a box may pass the column's edge by (sub-pixel layout)

# Injected before every script: find a Bokeh model by name in any document, and the view drawing it.
HELPERS = """
const model = name => {
  for (const doc of Bokeh.documents) { const found = doc.get_model_by_name(name); if (found) return found; }
  return null;
};
const view = m => {
  for (const root of Bokeh.index) { const found = root.owner.find_one(m); if (found) return found; }
  return null;
};
"""
STATE = HELPERS + """
const modes = %s;
return {
  omega: model("omega").value, sigma: model("sigma").value, centre: model("centre").value,
  position: model("position").value, mode: modes[model("admissibility").active],
  cos: Array.from(model("pair").data.cos), sin: Array.from(model("pair").data.sin),
  kernel: Array.from(model("kernel").data.correlation, v => Number.isNaN(v) ? null : v),
  bound: model("bound").text, colour: model("state").data.colour[0], status: model("status").text,
};
""" % list(ADMISSIBILITY_MODES)


def find_executable(names) -> str | None:
    return next((found for found in map(shutil.which, names) if found), None)


@contextmanager
def browser_session(problems: list[str], where: str = ""):
    """A browser of :func:`start_browser` for the checks of a ``with`` block: an error of the browser or its driver
    ends the block as one problem ("the browser failed", with ``where``), and the browser is closed either way."""
    from selenium.common.exceptions import WebDriverException

    driver = start_browser()
    try:
        yield driver
    except WebDriverException as error:
        problems.append(f"the browser failed{' ' + where if where else ''}: {error.msg}")
    finally:
        driver.quit()


def start_browser():
    """Headless Chromium under chromedriver, no host name resolving, its network log recorded."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver = find_executable(BROWSERS), find_executable(("chromedriver",))
    if not browser or not driver:
        raise SystemExit("needs Chromium and chromedriver (Debian: apt-get install -y chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,1000", "--host-resolver-rules=MAP * ~NOTFOUND"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    return webdriver.Chrome(service=Service(driver), options=options)


def reference(state: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Both channels and the kernel row at b from MorletPositions, for the sliders' raw parameters."""
    module = MorletPositions(2, admissibility=state["mode"], learned_centre=True)
    with torch.no_grad():  # the sliders hold log10 values; fill_ rounds to float32 as Math.fround does
        module.log_omega.fill_(state["omega"] * math.log(10))
        module.log_sigma.fill_(state["sigma"] * math.log(10))
        module.centre.fill_(state["centre"])
        pair = module(CONTEXT).double().numpy()
    b = int(state["position"])
    kernel = np.full(2 * CONTEXT - 1, np.nan)
    kernel[CONTEXT - 1 - b: 2 * CONTEXT - 1 - b] = pair @ pair[b]  # tau = -b .. T-1-b
    return pair[:, 0], pair[:, 1], kernel


def difference(state: dict) -> float:
    """The largest |drawn - MorletPositions| over both channels and the kernel (inf if the kernel's lags differ)."""
    cos, sin, kernel = reference(state)
    drawn_kernel = np.array([np.nan if v is None else v for v in state["kernel"]])
    if not np.array_equal(np.isnan(drawn_kernel), np.isnan(kernel)):
        return math.inf  # drawn at other lags than those with 0 <= b + tau < T
    return max(np.abs(np.array(state["cos"]) - cos).max(), np.abs(np.array(state["sin"]) - sin).max(),
               np.nanmax(np.abs(drawn_kernel - kernel)))


class Explorer:
    """The page in the browser: read the explorer's state, and act on it as a reader does."""

    def __init__(self, driver, timeout: float):
        from selenium.webdriver.support.ui import WebDriverWait

        self.driver = driver
        self.wait = WebDriverWait(driver, timeout)

    def run(self, script: str, *args):
        return self.driver.execute_script(HELPERS + script, *args)

    def state(self) -> dict:
        return self.driver.execute_script(STATE)

    def element(self, name: str, selector: str, index: int = 0):
        """An element of the widget ``name`` (inside its shadow root), scrolled to the middle of the window."""
        element = self.run(f"return view(model({name!r})).shadow_el.querySelectorAll({selector!r})[{index}];")
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
        return element

    def drag_slider(self, name: str, fraction: float) -> None:
        """Drag the slider's handle with the mouse to ``fraction`` of its track (0 = left end)."""
        from selenium.webdriver.common.action_chains import ActionChains

        handle = self.element(name, ".noUi-handle")
        track = self.element(name, ".noUi-base").rect
        offset = track["x"] + fraction * track["width"] - (handle.rect["x"] + handle.rect["width"] / 2)
        ActionChains(self.driver).click_and_hold(handle).move_by_offset(round(offset), 0).release().perform()

    def changed(self, before: dict) -> dict:
        """Wait until the drawn channels or kernel differ from ``before``; the new state."""
        def redrawn(_):
            now = self.state()
            return now["cos"] != before["cos"] or now["kernel"] != before["kernel"]

        self.wait.until(redrawn, "the curves were not redrawn")
        return self.state()
