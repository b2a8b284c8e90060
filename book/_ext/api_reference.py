"""Sphinx extension: the API page (``book/api.md``), generated from the package itself.

**Every module.** The line ``{API_MODULES}`` of the page is replaced, when the page is read, by one
section per module of ``mope`` (found by ``pkgutil``, so a new module appears without editing the
page), each an ``automodule`` with its members, folded into a dropdown (the page lists the modules; a
reader opens one). Packages show their docstring only: their members are documented in their modules.

**Maths.** The docstrings of ``mope`` write formulas the way the chapters do, ``$...$`` inline and ``$$...$$``
on lines of their own. autodoc parses docstrings as reStructuredText, where a dollar sign is just
a character, so before parsing this extension rewrites each ``$$...$$`` as a ``.. math::`` block
and each ``$...$`` as the ``:math:`` role. Inline literals (````...````) and interpreted text
(```...```) are left alone, so ````$MOPE_DATA_DIR```` stays a literal.
"""
from __future__ import annotations

import importlib
import pkgutil
import re

DISPLAY_START = re.compile(r"^(?P<indent>\s*)\$\$")
# code spans and interpreted text, which keep their dollar signs
LITERAL = re.compile(r"(``.+?``|`[^`]+`)", re.S)
# $...$ with no space just inside either dollar (as pandoc reads it), within one paragraph
INLINE = re.compile(r"(?<![\\$])\$(?=[^\s$])(?P<tex>(?:[^$\n]|\n(?!\s*\n))*?[^\s\\$])\$(?!\$)")


def inline_math(text: str) -> str:
    """``text`` with every ``$tex$`` outside literals written as ``:math:`tex```."""

    def role(match: re.Match) -> str:
        before = match.string[match.start() - 1] if match.start() else " "
        after = match.string[match.end()] if match.end() < len(match.string) else " "
        # reStructuredText needs a role to be set off from letters and digits: an escaped space does that
        return ("\\ " if before.isalnum() else "") + f":math:`{match['tex']}`" + ("\\ " if after.isalnum() else "")

    return "".join(part if LITERAL.fullmatch(part) else INLINE.sub(role, part) for part in LITERAL.split(text))


def display_math(lines: list[str]) -> list[str]:
    """Each ``$$...$$`` (starting a line, possibly spanning several) as a ``.. math::`` block."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        start = DISPLAY_START.match(lines[i])
        if not start:
            out.append(lines[i])
            i += 1
            continue
        indent = start["indent"]
        text = lines[i][start.end():]
        body: list[str] = []
        while "$$" not in text:
            body.append(text)
            i += 1
            if i == len(lines):
                raise ValueError(f"unclosed $$ in a docstring: {lines[-len(body):]}")
            text = lines[i].strip()
        formula, rest = text.split("$$", 1)
        body.append(formula)
        out += ["", indent + ".. math::", ""] + [indent + "   " + part.strip() for part in body if part.strip()] + [""]
        if rest.strip():
            out.append(indent + rest.strip())
        i += 1
    return out


def docstring_to_rst_math(app, what, name, obj, options, lines: list[str]) -> None:
    lines[:] = inline_math("\n".join(display_math(lines))).split("\n")


API_PAGE = "book/api"
PLACEHOLDER = "{API_MODULES}"
PACKAGE = "mope"


def module_sections(package: str = PACKAGE) -> str:
    """MyST text: a section with an ``automodule`` for every module of ``package`` (but ``__main__``).

    A module's documentation is folded into a dropdown under its heading (a package's, its docstring
    only, is shown), so that the page is a list of the modules a reader opens one at a time; a link
    to a member opens its module's dropdown."""
    root = importlib.import_module(package)
    names = [package] + [m.name for m in pkgutil.walk_packages(root.__path__, f"{package}.")
                         if not m.name.endswith("__main__")]
    sections = []
    for name in names:
        is_package = hasattr(importlib.import_module(name), "__path__")
        block = f"```{{eval-rst}}\n.. automodule:: {name}" + ("" if is_package else "\n   :members:") + "\n```\n"
        if not is_package:
            block = f":::{{dropdown}} The module `{name}`: its documentation, classes and functions\n{block}:::\n"
        sections.append(f"## `{name}`\n\n{block}")
    return "\n".join(sections)


def fill_api_page(app, docname: str, source: list[str]) -> None:
    if docname == API_PAGE:
        if PLACEHOLDER not in source[0]:
            raise ValueError(f"{API_PAGE}.md has lost its {PLACEHOLDER} line")
        source[0] = source[0].replace(PLACEHOLDER, module_sections())


def setup(app):
    app.connect("source-read", fill_api_page)
    app.connect("autodoc-process-docstring", docstring_to_rst_math)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
