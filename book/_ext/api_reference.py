"""Sphinx extension: the API page (``book/api.md``), generated from the package itself.

**Every module, by layer.** The line ``{API_MODULES}`` of the page is replaced, when the page is read,
by one section per layer of ``mope`` (the layers of the import contract in ``pyproject.toml``, bottom
first) and within it one per module (found by ``pkgutil``, so a new module appears without editing the
page), each an ``automodule`` with its members, folded into a dropdown titled with its name (the page lists
the modules; a reader opens one). Packages show their docstring only: their members are documented in their modules.

**Maths.** The docstrings of ``mope`` write formulas the way the chapters do, ``$...$`` inline and ``$$...$$``
on lines of their own. autodoc parses docstrings as reStructuredText, where a dollar sign is just
a character, so before parsing this extension rewrites each ``$$...$$`` as a ``.. math::`` block
and each ``$...$`` as the ``:math:`` role. Inline literals (````...````) and interpreted text
(```...```) are left alone, so ````$MOPE_DATA_DIR```` stays a literal.

**Folded until opened.** Once the page is written (``build-finished``), the body of each module's dropdown is put
in a ``<template>`` (:func:`fold_dropdowns`): it stays in the HTML, with its anchors, for links, search and the
checks that read the file, but not in the page a browser builds, which held 43,812 elements and made Lighthouse's
audit time out on a busy machine (issue 73). ``_static/book.js`` puts a module's members in place when its
dropdown is opened, or a link names one of them.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the backport import-linter installs
    import tomli as tomllib
from pathlib import Path

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


ENVIRONMENT = re.compile(r"\\begin\{(\w+\*?)\}.*?\\end\{\1\}", re.S)


def broken_over_lines(tex: str) -> bool:
    """Whether a display formula breaks its line (``\\\\``) outside any environment of its own (``cases``...)."""
    while ENVIRONMENT.search(tex):
        tex = ENVIRONMENT.sub("", tex)
    return "\\\\" in tex


def display_math(lines: list[str]) -> list[str]:
    """Each ``$$...$$`` (starting a line, possibly spanning several) as a ``.. math::`` block; one broken over lines
    with ``\\\\`` (a formula too wide for a phone's column in one line) is set as centred lines (``gathered``)."""
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
        body = [part.strip() for part in body if part.strip()]
        if broken_over_lines(" ".join(body)):
            body = [r"\begin{gathered}", *body, r"\end{gathered}"]
        out += ["", indent + ".. math::", ""] + [indent + "   " + part for part in body] + [""]
        if rest.strip():
            out.append(indent + rest.strip())
        i += 1
    return out


def docstring_to_rst_math(app, what, name, obj, options, lines: list[str]) -> None:
    lines[:] = inline_math("\n".join(display_math(lines))).split("\n")


API_PAGE = "book/api"
PLACEHOLDER = "{API_MODULES}"
PACKAGE = "mope"
ROOT = Path(__file__).resolve().parents[2]


def layers(root: Path = ROOT) -> list[str]:
    """The package's layers, bottom first, as the import contract of ``pyproject.toml`` declares them
    (``[tool.importlinter]``, top first there; siblings ``a : b`` in one layer)."""
    config = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["importlinter"]
    contract, = (c for c in config["contracts"] if c["type"] == "layers")
    return [name.strip() for layer in reversed(contract["layers"]) for name in re.split(r"[:|]", layer)]


def module_sections(package: str = PACKAGE) -> str:
    """MyST text: a section with an ``automodule`` for every module of ``package`` (but ``__main__``).

    The sections follow the layers (:func:`layers`, bottom first): a layer's package is a section
    showing its docstring only (a sub-package, ``mope.model.positional``, a subsection), and each of its
    modules a dropdown titled with the module's name, so that the page is a list of the modules a reader opens
    one at a time (one line each: a heading above each would say the name twice and make the page twice as
    tall); a link to a member opens its module's dropdown. Modules of no layer (none at present) come last."""
    root = importlib.import_module(package)
    names = [m.name for m in pkgutil.walk_packages(root.__path__, f"{package}.") if not m.name.endswith("__main__")]
    order = layers()

    def place(name: str) -> tuple[int, str]:
        rank = next((i for i, layer in enumerate(order) if name == layer or name.startswith(layer + ".")), len(order))
        return rank, name

    sections = [f"## `{package}`\n\n```{{eval-rst}}\n.. automodule:: {package}\n```\n"]
    for name in sorted(names, key=place):
        if hasattr(importlib.import_module(name), "__path__"):  # a layer (mope.model) or a sub-package
            level = 2 if name in order or name.count(".") == 1 else 3
            sections.append(f"{'#' * level} `{name}`\n\n```{{eval-rst}}\n.. automodule:: {name}\n```\n")
        else:  # the dropdown's title names the module; only a layer that is one module (mope.cli) has a heading
            heading = f"## `{name}`\n\n" if name in order else ""
            sections.append(f"{heading}:::{{dropdown}} `{name}`\n```{{eval-rst}}\n.. automodule:: {name}\n"
                            "   :members:\n```\n:::\n")
    return "\n".join(sections)


#: A module's dropdown on the written page: its opening and title, its body, its end (no dropdown nests in another).
DROPDOWN = re.compile(r'(<details class="[^"]*\bsd-dropdown\b[^"]*">\s*<summary\b.*?</summary>)(.*?)(</details>)', re.S)
FOLD = '<template class="book-folded">'


def fold_dropdowns(text: str) -> str:
    """The API page with each dropdown's body in a ``<template class="book-folded">``; folding twice changes nothing."""
    def fold(match: re.Match) -> str:
        head, body, end = match.groups()
        if body.lstrip().startswith(FOLD):
            return match[0]
        return f"{head}{FOLD}{body}</template>{end}"

    return DROPDOWN.sub(fold, text)


def fold_api_page(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    page = Path(app.outdir) / f"{API_PAGE}.html"
    if page.is_file():
        page.write_text(fold_dropdowns(page.read_text(encoding="utf-8")), encoding="utf-8")


def fill_api_page(app, docname: str, source: list[str]) -> None:
    if docname == API_PAGE:
        if PLACEHOLDER not in source[0]:
            raise ValueError(f"{API_PAGE}.md has lost its {PLACEHOLDER} line")
        source[0] = source[0].replace(PLACEHOLDER, module_sections())


def setup(app):
    app.connect("source-read", fill_api_page)
    app.connect("autodoc-process-docstring", docstring_to_rst_math)
    app.connect("build-finished", fold_api_page)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
