"""The static pass of the book check (standard library only, and the names of :mod:`mope.book.figure_png`): every
internal link of the built HTML (its ``#anchor`` against the ``id``s of the target page) resolves, every ``<img>``
is a file that decodes as PNG, JPEG, GIF or SVG of a non-zero size, every script and stylesheet is a file of the
build (the book reads offline), every Colab link opens a paired ``.ipynb`` of the repository, and every figure
of the book (a PNG of ``_images/``) has twice the pixels of the width its page gives it and says what its text is
(drawn by :func:`mope.book.figure_png.png`), no text of it colliding with another or cut off
(:func:`figure_file_problems`). The bytes of each page's figures, as a browser
fetches them (a WebP copy where the build made one), are counted (:func:`figure_bytes`)."""
from __future__ import annotations

import functools
import json
import struct
import xml.etree.ElementTree as ElementTree
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from mope.book.figure_png import PROBLEMS_KEY, SMALLEST_TEXT_KEY, png_metadata
from mope.book.figure_style import PIXEL_DENSITY

SKIP_DIRS = {"_sources", "_static", "reports", "_images"}
EXTERNAL_SCHEMES = ("http:", "https:", "mailto:", "javascript:", "data:", "tel:", "ftp:")


class PageParser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.images: list[str] = []
        self.image_widths: dict[str, str] = {}  # the width an <img> is given, by its source
        self.assets: list[str] = []  # scripts and stylesheets the page loads
        self.redirect: str | None = None  # target of a <meta http-equiv="refresh"> page

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "meta" and (attrs.get("http-equiv") or "").lower() == "refresh":
            content = attrs.get("content") or ""
            if "url=" in content.lower():
                self.redirect = content[content.lower().index("url=") + 4:].strip().strip("'\"")
                self.links.append(self.redirect)
        for key in ("id", "name") if tag == "a" else ("id",):
            if attrs.get(key):
                self.ids.add(attrs[key])
        if tag == "a" and attrs.get("href") is not None:
            self.links.append(attrs["href"])
        if tag == "img" and attrs.get("src"):
            self.images.append(attrs["src"])
            if attrs.get("width"):
                self.image_widths[attrs["src"]] = attrs["width"]
        if tag == "script" and attrs.get("src"):
            self.assets.append(attrs["src"])
        if tag == "link" and "stylesheet" in (attrs.get("rel") or "").lower().split() and attrs.get("href"):
            self.assets.append(attrs["href"])


@functools.lru_cache(maxsize=None)
def parse_page(path: Path) -> PageParser:
    parser = PageParser()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    return parser


def image_problem(path: Path) -> str | None:
    """None if ``path`` is an image file with a non-zero size, else what is wrong with it."""
    if not path.is_file():
        return "missing file"
    data = path.read_bytes()
    if not data:
        return "empty file"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        if len(data) < 24 or data[12:16] != b"IHDR":
            return "truncated PNG"
        width, height = struct.unpack(">II", data[16:24])
        return None if width and height else f"PNG of size {width}x{height}"
    if data.startswith(b"\xff\xd8\xff") or data[:6] in (b"GIF87a", b"GIF89a"):
        return None
    if path.suffix.lower() == ".svg" or b"<svg" in data[:2048]:
        try:
            root = ElementTree.fromstring(data)
        except ElementTree.ParseError as error:
            return f"invalid SVG ({error})"
        return None if root.tag.endswith("svg") else "SVG without an <svg> root"
    return "not a PNG, JPEG, GIF or SVG"


def figure_file_problems(path: Path, shown: str | None = None) -> list[str]:
    """What is wrong with the figure at ``path`` (a PNG the book drew), given the width its page shows it at
    (``shown``, its ``<img>``'s width, in a dropdown or a tab not open as well): fewer than twice as many pixels
    (:data:`~mope.book.figure_style.PIXEL_DENSITY`); a figure that does not say what its text is (not drawn by
    ``mope.book.figure_png``), or one line per text of it that collides with another or is cut off."""
    texts, _, size = png_metadata(path)
    pixels = size[0] if size else 0
    problems = ([f"figure not drawn at {PIXEL_DENSITY}x: {pixels} px shown at {shown} px"]
                if shown and shown.isdigit() and pixels < PIXEL_DENSITY * int(shown) - 1 else [])
    if SMALLEST_TEXT_KEY not in texts:
        return problems + [
            "a figure that does not record its text (not saved by mope.book.figure_png.png): its text sizes and "
            "layout cannot be checked"]
    return problems + [f"text of a figure collides or is cut off: {problem}"
                       for problem in json.loads(texts.get(PROBLEMS_KEY, "[]"))]


def served_image(path: Path) -> Path:
    """The file a browser fetches for the image at ``path``: its WebP copy where the build made one (the page offers
    it through ``<picture>``), else ``path``."""
    webp = path.with_suffix(".webp")
    return webp if path.suffix.lower() == ".png" and webp.is_file() else path


def figure_bytes(root: Path, page: Path) -> int:
    """The bytes of the figures of ``page`` (each image of ``_images/`` once) as a browser fetches them."""
    files = {(page.parent / unquote(urlsplit(src).path)).resolve() for src in parse_page(page).images
             if "_images/" in src and not src.startswith(EXTERNAL_SCHEMES)}
    return sum(served_image(path).stat().st_size for path in files if path.is_file())


def html_pages(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.html") if not SKIP_DIRS & set(p.relative_to(root).parts[:-1]))


COLAB = "https://colab.research.google.com/github/"


def colab_problem(href: str, repository: Path | None) -> str | None:
    """A Colab launch link must open a paired .ipynb that exists in the repository."""
    path = href[len(COLAB):].split("/blob/", 1)[-1].split("/", 1)[-1]  # org/repo/blob/branch/<path>
    if not path.endswith(".ipynb"):
        return f"Colab link {href!r} does not open an .ipynb (Colab cannot read jupytext Markdown)"
    if repository is not None and not (repository / path).is_file():
        return f"Colab link {href!r}: no {path} in {repository}"
    return None


def static_check(root: Path, pages: list[Path], repository: Path | None = None) -> tuple[int, int, int, list[str]]:
    """(internal links checked, images checked, Colab links checked, problems)."""
    problems: list[str] = []
    n_links = n_images = n_colab = 0
    for page in pages:
        parsed = parse_page(page)
        name = page.relative_to(root).as_posix()
        for href in parsed.links:
            if href.startswith(COLAB):
                n_colab += 1
                problem = colab_problem(href, repository)
                if problem:
                    problems.append(f"{name}: {problem}")
                continue
            if not href or href.startswith(EXTERNAL_SCHEMES) or href.startswith("//"):
                continue
            parts = urlsplit(href)
            if parts.scheme or parts.netloc:
                continue
            n_links += 1
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                problems.append(f"{name}: broken link {href!r} (no file {target})")
                continue
            if parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in parse_page(target).ids:
                problems.append(f"{name}: broken anchor {href!r} (no id {parts.fragment!r} in "
                                f"{target.relative_to(root).as_posix() if target.is_relative_to(root) else target})")
        for src in parsed.images:
            if src.startswith(EXTERNAL_SCHEMES) or src.startswith("//"):
                if src.startswith("data:"):
                    continue
                problems.append(f"{name}: image from another host {src!r} (the book must read offline)")
                continue
            n_images += 1
            path = (page.parent / unquote(urlsplit(src).path)).resolve()
            problem = image_problem(path)
            if problem:
                problems.append(f"{name}: image {src!r}: {problem}")
            elif "_images/" in src and path.suffix.lower() == ".png":
                problems += [f"{name}: image {src!r}: {text}"
                             for text in figure_file_problems(path, parsed.image_widths.get(src))]
        for src in parsed.assets:
            if src.startswith(EXTERNAL_SCHEMES) or src.startswith("//"):
                problems.append(f"{name}: script or stylesheet from another host {src!r} (the book must read offline)")
            elif not (page.parent / unquote(urlsplit(src).path)).resolve().is_file():
                problems.append(f"{name}: script or stylesheet {src!r} is not in the build")
    return n_links, n_images, n_colab, problems
