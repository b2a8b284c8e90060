"""The theme's tab stops pass over the boxes of closed dropdowns (book/_ext/theme_tab_stops.py): reading the size of a
box in a closed dropdown laid out the dropdown's hidden body, and on chapter 1 that task was the most of the page's
main-thread work after its load (Lighthouse's total blocking time). book.js gives a dropdown's boxes the theme's tab
stops when it opens."""
from __future__ import annotations

import re
from pathlib import Path

import pydata_sphinx_theme
import pytest
import yaml

from loading import load

ROOT = Path(__file__).resolve().parents[1]
theme_tab_stops = load("theme_tab_stops", ROOT / "book" / "_ext" / "theme_tab_stops.py")
THEME_SCRIPT = (Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "static" / "scripts"
                / "pydata-sphinx-theme.js")


def test_the_theme_script_skips_a_box_inside_a_closed_dropdown_and_nothing_else_changes():
    script = THEME_SCRIPT.read_text(encoding="utf-8")
    skipping = theme_tab_stops.skip_closed_dropdowns(script)
    assert skipping.count('if(e.closest("details:not([open])"))return;e.tabIndex=') == 1
    assert skipping.replace('if(e.closest("details:not([open])"))return;', "", 1) == script
    assert theme_tab_stops.skip_closed_dropdowns(skipping) == skipping  # a second build leaves it as it is


def test_a_theme_script_without_the_loop_stops_the_build_naming_the_file():
    with pytest.raises(ValueError, match=r"pydata-sphinx-theme\.js: the theme's tab-stop loop .* not found exactly once"):
        theme_tab_stops.skip_closed_dropdowns("document.querySelectorAll('pre').forEach(e => e.focus());")


def test_the_book_runs_the_extension():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["sphinx"]["local_extensions"]["theme_tab_stops"] == "book/_ext"


def test_book_js_gives_an_opened_dropdowns_boxes_the_theme_s_tab_stops_before_its_own():
    script = (ROOT / "_static" / "book.js").read_text()
    theme = script.index("const THEME_SCROLL_BOXES")
    assert re.search(r"box\.tabIndex = box\.scrollWidth > box\.clientWidth \|\| box\.scrollHeight > box\.clientHeight "
                     r"\? 0 : -1;", script[theme:])
    assert theme < script.index("bookOnOpen(reachable);")  # the book's own skip a box the theme made a tab stop
    # the theme's selectors, as its script names them
    selectors = re.search(r'THEME_SCROLL_BOXES = ("[^;]*);', script).group(1)
    named = re.findall(r'[^",+\s][^",]*[^",\s]', selectors)
    loop = re.search(r'document\.querySelectorAll\(\[([^\]]*)\]\.join\(", "\)\)\.forEach\(e=>\{e\.tabIndex=',
                     THEME_SCRIPT.read_text(encoding="utf-8"))
    assert loop and [name.strip() for name in named] == re.findall(r'"([^"]*)"', loop.group(1))
