#!/usr/bin/env python3
"""Write the Colab set-up cell of every executable page from ``_config.yml``.

    python scripts/write_colab_cells.py          # rewrite the cells (and the pages' Colab .ipynb)
    python scripts/write_colab_cells.py --check  # exit 1, naming the pages whose cell is out of date

The repository's address is written in one place, ``repository.url`` in ``_config.yml`` (the
launch and repository buttons read it there). A notebook opened in Colab cannot read that file
before it has cloned the repository, so the first code cell of every executable page carries a
copy of the address; this script writes that copy. A fork changes ``repository.url`` and runs it.
The cell installs the clone with the extras ``evidence`` and ``bpe`` (pyproject.toml), which the
chapters need beyond what Colab holds.

The cell's options (its tags) are kept; only its code is replaced. An executable page is a page
of ``_toc.yml`` whose jupytext front matter names a kernel; its first code cell must be the set-up
cell (it mentions ``google.colab``).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the package of this checkout, installed or not
from mope.book.colab_notebook import executable_pages, notebook_text  # noqa: E402

FENCE = "```{code-cell}"
MARKER = "google.colab"

TEMPLATE = '''\
# Colab set-up: clone the book's repository (its code and stored results) and install it; a no-op
# elsewhere. The address is repository.url in _config.yml, copied here by scripts/write_colab_cells.py.
import os
import subprocess
import sys

if "google.colab" in sys.modules:
    REPOSITORY, CHECKOUT = "{url}", "/content/{name}"
    if not os.path.isdir(CHECKOUT):
        subprocess.run(["git", "clone", "--depth", "1", REPOSITORY, CHECKOUT], check=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "-e", CHECKOUT + "[evidence,bpe]"], check=True)
    sys.path.insert(0, CHECKOUT)  # the running kernel does not see a fresh editable install otherwise'''


def repository_url(root: Path = ROOT) -> str:
    return yaml.safe_load((root / "_config.yml").read_text())["repository"]["url"]


def setup_cell_code(url: str) -> str:
    """The code of the Colab set-up cell for the repository at ``url``."""
    return TEMPLATE.format(url=url, name=url.rstrip("/").rsplit("/", 1)[-1])


def first_code_cell(lines: list[str]) -> tuple[int, int, int]:
    """(index of its opening fence, index where its code starts, index of its closing fence)."""
    start = next(i for i, line in enumerate(lines) if line.startswith(FENCE))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].rstrip() == "```")
    body = start + 1
    if lines[body].rstrip() == "---":  # a YAML options block
        body = next(i for i in range(body + 1, end) if lines[i].rstrip() == "---") + 1
    else:
        while body < end and lines[body].startswith(":"):
            body += 1
    if body > start + 1 and body < end and not lines[body].strip():
        body += 1  # the blank line between the options and the code
    return start, body, end


def with_setup_cell(text: str, code: str) -> str:
    lines = text.split("\n")
    _, body, end = first_code_cell(lines)
    if MARKER not in "\n".join(lines[body:end]):
        raise ValueError(f"the first code cell does not mention {MARKER!r}: it is not the Colab set-up cell")
    return "\n".join(lines[:body] + code.split("\n") + lines[end:])


def stale_pages(root: Path = ROOT) -> list[Path]:
    code = setup_cell_code(repository_url(root))
    return [page for page in executable_pages(root) if with_setup_cell(page.read_text(), code) != page.read_text()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report the pages whose cell is out of date")
    args = parser.parse_args(argv)
    stale = stale_pages()
    if args.check:
        for page in stale:
            print(f"{page.relative_to(ROOT)}: its Colab set-up cell does not match _config.yml's repository.url; "
                  f"run python scripts/write_colab_cells.py")
        return 1 if stale else 0
    code = setup_cell_code(repository_url())
    for page in stale:
        page.write_text(with_setup_cell(page.read_text(), code))
        # the page's Colab notebook, written from the page (mope.book.colab_notebook)
        page.with_suffix(".ipynb").write_text(notebook_text(page, root=ROOT))
        print(f"rewrote {page.relative_to(ROOT)} and its .ipynb")
    return 0


if __name__ == "__main__":
    sys.exit(main())
