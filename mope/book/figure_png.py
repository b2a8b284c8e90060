r"""How a figure of the book becomes its page's image: sharp on a phone's screen, light, and measured.

A phone shows 2 to 3 device pixels a CSS pixel; a figure saved at 1 pixel a CSS pixel was soft there. :func:`png`
saves a figure as the notebook's inline backend does (its tight box with a :data:`MARGIN` inch margin) but at
:data:`mope.book.figure_style.PIXEL_DENSITY` pixels a CSS pixel of its size on the page (laid out at
:data:`~mope.book.figure_style.DPI` CSS pixels an inch, it is saved at that times the density: 200 dpi), and returns
with it the size it is shown at: half its pixels, as IPython's "retina" format does (``{"width": ...,
"height": ...}``, the metadata Jupyter and myst-nb read). The PNG records its density (its ``pHYs`` chunk says 200
dpi), from which the book's pages size its ``<img>`` (``book/_ext/web_pages.py``).

Twice the pixels would weigh about twice as much. The image is stored with few colours (:func:`few_colours`):
every colour the figure's artists draw is kept exactly (a model's, a verdict's, the greys), and the other shades
(the blends at the edges of lines and letters, of translucent bands) are each given the nearest of the
:data:`PALETTE_SIZE` colours; a figure with a raster image of its own (``imshow``, ``figimage``), or with more
colours of its own than that, keeps all of them.

Each PNG carries what a check needs to know of its text, measured in the very drawing that made it
(:func:`drawn_texts`): ``mope:smallest-text-pt``, the size of its smallest text in points, and
``mope:layout-problems``, one line per text that overlaps or touches another (less than a CSS pixel apart) or is
cut at the image's edge or by the box it is clipped to (:func:`layout_problems`), empty when there is none.
``scripts/check_book_html.py`` fails a figure whose PNG reports a problem, or whose smallest text is shown below
:data:`~mope.book.figure_style.SMALLEST_FONT_PT` on a 400 px screen, or that is not drawn at twice the pixels it is
shown at.

:func:`show_figures_sharp`, called by every page that shows a figure, makes :func:`png` the running IPython's
way of showing a matplotlib figure.
"""
from __future__ import annotations

import base64
import io
import json
import struct
from contextlib import contextmanager
from typing import NamedTuple

from mope.book.figure_style import DPI, PIXEL_DENSITY

MARGIN = 0.1  # inches around the figure's tight box, as the inline backend saves it (savefig.pad_inches)
PALETTE_SIZE = 32  # colours of a stored figure at most: its artists' own, then the most common other shades
#: the PNG text chunks a figure carries (the module's docstring)
SMALLEST_TEXT_KEY = "mope:smallest-text-pt"
PROBLEMS_KEY = "mope:layout-problems"
#: pixels of the image (one CSS pixel): two texts closer than this collide (their letters touch), and a text may
#: reach this far past the image's edge or its clip box (its box's side bearing) before it is cut
TOLERANCE = PIXEL_DENSITY


class DrawnText(NamedTuple):
    """One line of a text as drawn: its words, its size in points, its corners in pixels of the image (y upwards;
    four, in turn around it: a rotated text's box is turned with it), the box it is clipped to (``(x0, y0, x1,
    y1)``, None when it is not clipped) and which text of the figure it is a line of (the lines of one text are never
    said to collide)."""

    text: str
    size: float
    corners: tuple[tuple[float, float], ...]
    clip: tuple[float, float, float, float] | None
    artist: int

    @property
    def box(self) -> tuple[float, float, float, float]:
        """The upright box around it, ``(x0, y0, x1, y1)``."""
        xs, ys = [x for x, _ in self.corners], [y for _, y in self.corners]
        return (min(xs), min(ys), max(xs), max(ys))


def _extents(bbox) -> tuple[float, float, float, float]:
    return (float(bbox.x0), float(bbox.y0), float(bbox.x1), float(bbox.y1))


def _line_corners(renderer, x, y, words, prop, angle, ismath) -> tuple[tuple[float, float], ...]:
    """The corners, y upwards, of one line of text that ``renderer`` draws from (``x``, ``y``), its baseline's start
    in the renderer's own coordinates (y downwards where it flips them, as Agg does), at ``angle`` degrees."""
    import math

    width, height, descent = renderer.get_text_width_height_descent(words, prop, ismath=ismath)
    cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    if renderer.flipy():  # back to y upwards, where the text's baseline runs at +angle
        y = renderer.get_canvas_width_height()[1] - y
    return tuple((x + u * cos - v * sin, y + u * sin + v * cos)
                 for u, v in ((0, -descent), (width, -descent), (width, height - descent), (0, height - descent)))


def _depth(first, second) -> float:
    """How deep two convex outlines (corners in turn) overlap: the least overlap of their shadows on the normals of
    their edges (0 or less: apart), the separating axis theorem."""
    import math

    depth = math.inf
    for outline in (first, second):
        for (x0, y0), (x1, y1) in zip(outline, outline[1:] + outline[:1]):
            length = math.hypot(x1 - x0, y1 - y0)
            if length == 0:
                continue
            nx, ny = (y0 - y1) / length, (x1 - x0) / length
            a = [x * nx + y * ny for x, y in first]
            b = [x * nx + y * ny for x, y in second]
            depth = min(depth, min(max(a), max(b)) - max(min(a), min(b)))
    return depth


@contextmanager
def _recording():
    """Every line of text matplotlib draws meanwhile, with the renderer that drew it."""
    from matplotlib.text import Text

    drawn: list = []
    original = Text.draw

    def draw(self, renderer):
        lines = []
        inner, own = renderer.draw_text, "draw_text" in vars(renderer)

        def draw_text(gc, x, y, words, prop, angle, ismath=False, mtext=None):
            lines.append((x, y, words, prop, angle, ismath))
            return inner(gc, x, y, words, prop, angle, ismath=ismath, mtext=mtext)

        renderer.draw_text = draw_text
        try:
            original(self, renderer)
        finally:
            if own:
                renderer.draw_text = inner
            else:
                del renderer.draw_text
        clip = _extents(self.get_clip_box()) if self.get_clip_on() and self.get_clip_box() is not None else None
        for x, y, words, prop, angle, ismath in lines:
            if words.strip():
                drawn.append((renderer, DrawnText(words, float(prop.get_size_in_points()),
                                                  _line_corners(renderer, x, y, words, prop, angle, ismath), clip,
                                                  id(self))))

    Text.draw = draw
    try:
        yield drawn
    finally:
        Text.draw = original


def _save(fig, dpi: float) -> tuple[bytes, list[DrawnText], tuple[int, int]]:
    """``fig`` saved as a PNG at ``dpi`` (its tight box, :data:`MARGIN`), the texts of the drawing that made it and
    the PNG's size in pixels (as its header says: the texts' corners are in that drawing's pixels)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not isinstance(fig.canvas, FigureCanvasAgg):  # a figure its function closed has lost its own canvas
        FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    with _recording() as drawn:
        fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight", pad_inches=MARGIN,
                    facecolor=fig.get_facecolor(), edgecolor=fig.get_edgecolor())
    last = drawn[-1][0] if drawn else None  # a tight box is drawn twice: the texts of the second drawing
    texts = [text for renderer, text in drawn if renderer is last]
    data = buffer.getvalue()
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk, first after the 8-byte signature
    return data, texts, (width, height)


def drawn_texts(fig, dpi: float = DPI * PIXEL_DENSITY) -> tuple[list[DrawnText], tuple[int, int]]:
    """The texts of ``fig`` as it is saved at ``dpi`` (:func:`png`'s way) and the image's (width, height) in pixels."""
    _, texts, size = _save(fig, dpi)
    return texts, size


def _overlap(a, b) -> tuple[float, float]:
    return min(a[2], b[2]) - max(a[0], b[0]), min(a[3], b[3]) - max(a[1], b[1])


def layout_problems(texts: list[DrawnText], size: tuple[int, int], tolerance: float = TOLERANCE) -> list[str]:
    """One line per line of text cut by its clip box or at the image's edge (``size``, its pixels) by more than
    ``tolerance`` pixels, and per pair of lines of two texts less than ``tolerance`` pixels apart (their outlines,
    turned with the text) or overlapping."""
    problems = []
    width, height = size
    for text in texts:
        x0, y0, x1, y1 = text.box
        if text.clip is not None and any(inside < whole - tolerance for inside, whole
                                         in zip(_overlap(text.box, text.clip), (x1 - x0, y1 - y0))):
            problems.append(f"{text.text!r} cut by the box it is clipped to")
        elif x0 < -tolerance or y0 < -tolerance or x1 > width + tolerance or y1 > height + tolerance:
            problems.append(f"{text.text!r} cut at the figure's edge")
    for i, first in enumerate(texts):
        for second in texts[i + 1:]:
            if second.artist == first.artist or min(_overlap(first.box, second.box)) <= -tolerance:
                continue
            depth = _depth(first.corners, second.corners)
            if depth > -tolerance:
                problems.append(f"{first.text!r} {'overlaps' if depth > 0 else 'touches'} {second.text!r}")
    return problems


def drawn_colours(fig) -> set[tuple[int, int, int]]:
    """Every colour ``fig``'s artists draw with (lines, markers, patches, collections, texts), as RGB on white."""
    from matplotlib.colors import to_rgba_array

    colours = set()
    getters = ("get_color", "get_facecolor", "get_edgecolor", "get_markerfacecolor", "get_markeredgecolor")
    for artist in fig.findobj():
        for name in getters:
            getter = getattr(artist, name, None)
            try:
                rgba = to_rgba_array(getter()) if getter is not None else ()
            except (TypeError, ValueError):
                continue
            for r, g, b, a in rgba:
                colours.add(tuple(round(255 * (c * a + 1 - a)) for c in (r, g, b)))
    return colours


def few_colours(image, kept: set[tuple[int, int, int]], size: int = PALETTE_SIZE):
    """``image`` (RGB) with at most ``size`` colours: those of ``kept`` (a figure's own) that it shows, exactly, then
    its most common other colours, every pixel given the nearest of them; ``image`` itself where ``kept`` alone would
    overfill the palette."""
    import numpy as np
    from PIL import Image

    pixels = np.asarray(image.convert("RGB"), dtype=np.int32).reshape(-1, 3)
    packed = (pixels[:, 0] << 16) | (pixels[:, 1] << 8) | pixels[:, 2]
    colours, inverse, counts = np.unique(packed, return_inverse=True, return_counts=True)
    own = np.isin(colours, [(r << 16) | (g << 8) | b for r, g, b in kept])
    if own.sum() > size:
        return image
    others = [i for i in np.argsort(-counts, kind="stable") if not own[i]][:size - int(own.sum())]
    chosen = np.concatenate([np.flatnonzero(own), np.asarray(others, dtype=np.int64)])
    rgb = np.stack([(colours >> 16) & 255, (colours >> 8) & 255, colours & 255], axis=1)
    nearest = ((rgb[:, None, :] - rgb[chosen][None, :, :]) ** 2).sum(axis=2).argmin(axis=1)
    indexed = Image.fromarray(nearest[inverse.reshape(-1)].astype(np.uint8).reshape(image.height, image.width), "P")
    indexed.putpalette(rgb[chosen].astype(np.uint8).flatten().tolist())
    return indexed


def png(fig) -> tuple[bytes, dict[str, int]]:
    """``fig`` as the book shows it: a PNG at :data:`~mope.book.figure_style.PIXEL_DENSITY` pixels a CSS pixel, in
    few colours, carrying its smallest text and its layout problems (the module's docstring), and the size it is
    shown at, ``{"width": ..., "height": ...}`` in CSS pixels."""
    from matplotlib.image import AxesImage, BboxImage, FigureImage
    from PIL import Image, PngImagePlugin

    dpi = DPI * PIXEL_DENSITY
    data, texts, size = _save(fig, dpi)
    with Image.open(io.BytesIO(data)) as saved:
        image = saved.convert("RGB")
    if not fig.findobj(lambda artist: isinstance(artist, (AxesImage, BboxImage, FigureImage))):
        image = few_colours(image, drawn_colours(fig))
    info = PngImagePlugin.PngInfo()
    info.add_text(SMALLEST_TEXT_KEY, f"{min((text.size for text in texts), default=0):g}")
    info.add_text(PROBLEMS_KEY, json.dumps(layout_problems(texts, image.size)))
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True, dpi=(dpi, dpi), pnginfo=info)
    return out.getvalue(), {"width": image.size[0] // PIXEL_DENSITY, "height": image.size[1] // PIXEL_DENSITY}


class PngFacts(NamedTuple):
    """What a PNG says of itself (:func:`png_metadata`)."""
    texts: dict[str, str]  # its text chunks (``tEXt``): the keys SMALLEST_TEXT_KEY and PROBLEMS_KEY
    dpi: float | None  # its resolution in dots an inch (``pHYs``), None where it gives none or only an aspect ratio
    size: tuple[int, int] | None  # its (width, height) in pixels


def png_metadata(path) -> PngFacts:
    """What a PNG at ``path`` says of itself, as :func:`png` writes it: its text chunks, its resolution and its size.
    Anything else says nothing, ``PngFacts({}, None, None)``: a missing file, one Pillow cannot read as an image, a
    damaged one, or an image of another format."""
    from PIL import Image

    try:
        with Image.open(path) as image:
            if image.format != "PNG":
                return PngFacts({}, None, None)
            texts = dict(getattr(image, "text", {}))  # a PNG's text chunks may follow its pixels: this reads them
            dpi, size = image.info.get("dpi"), image.size
    except (OSError, SyntaxError, ValueError):  # not an image, or a damaged one (Pillow raises all three)
        return PngFacts({}, None, None)
    return PngFacts(texts, float(dpi[0]) if dpi else None, size)


def show_figures_sharp() -> None:
    """Make :func:`png` the way the running IPython shows a matplotlib figure (a page's first cell calls it, before
    it draws: its backend is loaded now, which closes any figure); outside IPython, nothing to do."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    import matplotlib
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    # matplotlib loads its backend at the first figure; the kernel's inline backend then registers its own way of
    # showing one, over this one (the book's first build with this module showed every figure at 1 pixel a CSS
    # pixel): loaded now, it registers it once, before
    plt.switch_backend(matplotlib.get_backend())
    formatters = shell.display_formatter.formatters
    for mime in ("image/svg+xml", "image/jpeg", "application/pdf"):
        formatters[mime].type_printers.pop(Figure, None)
    formatters["image/png"].for_type(Figure, _shown)


def _shown(fig) -> tuple[str, dict[str, int]]:
    """:func:`png` as IPython's formatters return an image: base64 text, and its metadata."""
    data, size = png(fig)
    return base64.b64encode(data).decode("ascii"), size
