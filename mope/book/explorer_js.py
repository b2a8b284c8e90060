"""The explorer's JavaScript (:mod:`mope.book.explorer`): the sections of ``explorer.js``, and the callbacks made of them.

``explorer.js`` (package data) holds the code of the Bokeh callbacks of the book's interactive figures, one
``// @section NAME`` at a time, each followed by an ``// args:`` line naming what it reads from its callback's
``args``; every value reaches it that way, never by string formatting.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True)
class Script:
    """One section of ``explorer.js``: the names it reads from its callback's ``args``, and its code."""

    args: tuple[str, ...]
    code: str


def scripts(text: str) -> dict[str, Script]:
    """The sections of ``explorer.js`` by name: each starts at a ``// @section NAME`` line, followed by an
    ``// args: a, b, ...`` line naming what it reads from its callback's ``args``."""
    found = {}
    for block in re.split(r"^// @section ", text, flags=re.M)[1:]:
        name, _, code = block.partition("\n")
        listed = re.match(r"// args:(.*)$", code, re.M)
        found[name.strip()] = Script(tuple(a.strip() for a in listed.group(1).split(",") if a.strip()), code)
    return found


# The browser's side of the figures, in its own file: explorer.js (shipped as package data).
JS = scripts(resources.files(__package__).joinpath("explorer.js").read_text(encoding="utf-8"))
# The callbacks, each a sequence of sections; values they read come through their args, never formatting.
MORLET_JS = JS["morlet"].code  # the forward of MorletPositions for one pair, in float32 like torch
REDRAW_JS = MORLET_JS + JS["redraw"].code
MENU_JS = JS["menu"].code + JS["jump"].code  # set the sliders to the chosen point (each change redraws)
TAP_JS = JS["tap"].code + JS["jump"].code
LOG_TICK_JS = JS["log_tick"].code
LOSS_JS = JS["loss"].code
FIT_JS = JS["fit"].code  # legends, titles and heights of the plots as narrow as their column
SLIDERS_JS = JS["sliders"].code  # names, values in the units shown and visible keyboard steps for the sliders
