"""mope.book.figure_png (issue 73): a figure of the book is saved at twice the pixels it is shown at, in few colours
that keep its own exactly, and its PNG says its smallest text and any text that collides or is cut off."""
import base64
import io
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402

from mope.book import figure_png, figure_style, palette  # noqa: E402


def column_figure(height=2.0):
    with figure_style.book_style():
        fig, ax = plt.subplots(figsize=(figure_style.COLUMN_WIDTH, height), constrained_layout=True)
    return fig, ax


def saved(fig):
    data, shown = figure_png.png(fig)
    plt.close(fig)
    return Image.open(io.BytesIO(data)), shown, data


def test_a_figure_is_saved_at_twice_the_pixels_it_is_shown_at_and_says_its_density():
    fig, ax = column_figure()
    ax.plot([0, 1], [0, 1])
    image, shown, _ = saved(fig)
    # at most the column's width and the notebook's margin on each side, in CSS px (figure_style's docstring: 365)
    assert 300 < shown["width"] <= (figure_style.COLUMN_WIDTH + 2 * figure_png.MARGIN) * figure_style.DPI + 1
    assert (image.size[0] // 2, image.size[1] // 2) == (shown["width"], shown["height"])
    assert figure_style.PIXEL_DENSITY == 2
    assert image.info["dpi"] == pytest.approx((200, 200), abs=0.01)


def test_the_png_records_its_smallest_text_and_no_problem_when_there_is_none():
    fig, ax = column_figure()
    ax.plot([0, 1], [0, 1])
    ax.set(xlabel="step", ylabel="loss", title="a title")
    ax.text(0.5, 0.5, "small", fontsize=7, transform=ax.transAxes)
    image, _, _ = saved(fig)
    assert float(image.text[figure_png.SMALLEST_TEXT_KEY]) == 7
    assert json.loads(image.text[figure_png.PROBLEMS_KEY]) == []


def test_texts_that_overlap_are_named_and_the_lines_of_one_text_are_not():
    fig, ax = column_figure()
    ax.text(0.3, 0.5, "first words", transform=ax.transAxes)
    ax.text(0.35, 0.52, "second words", transform=ax.transAxes)
    ax.text(0.1, 0.1, "one text\nover two lines", transform=ax.transAxes)
    image, _, _ = saved(fig)
    assert json.loads(image.text[figure_png.PROBLEMS_KEY]) == ["'first words' overlaps 'second words'"]


def test_texts_closer_than_a_css_pixel_touch():
    first = figure_png.DrawnText("left", 9.0, ((0, 0), (50, 0), (50, 20), (0, 20)), None, 1)
    near = figure_png.DrawnText("near", 9.0, ((51, 0), (90, 0), (90, 20), (51, 20)), None, 2)
    apart = figure_png.DrawnText("apart", 9.0, ((53, 30), (90, 30), (90, 50), (53, 50)), None, 3)
    assert figure_png.layout_problems([first, near], (100, 100)) == ["'left' touches 'near'"]
    assert figure_png.layout_problems([first, apart], (100, 100)) == []


def test_the_drawn_size_is_the_images_even_without_a_text():
    fig, ax = column_figure()
    ax.set_axis_off()
    ax.plot([0, 1], [0, 1])
    texts, size = figure_png.drawn_texts(fig)
    image, _, _ = saved(fig)
    assert texts == [] and size == image.size


def test_texts_that_touch_no_other_are_not_said_to_collide():
    fig, ax = column_figure()
    ax.text(0.05, 0.5, "left", transform=ax.transAxes)
    ax.text(0.6, 0.5, "right", transform=ax.transAxes)
    texts, size = figure_png.drawn_texts(fig)
    plt.close(fig)
    assert figure_png.layout_problems(texts, size) == []


def test_a_text_cut_by_the_box_it_is_clipped_to_is_named():
    fig, ax = column_figure()
    ax.text(0.9, 0.5, "runs past the axes", transform=ax.transAxes, clip_on=True)
    texts, size = figure_png.drawn_texts(fig)
    plt.close(fig)
    assert figure_png.layout_problems(texts, size) == ["'runs past the axes' cut by the box it is clipped to"]


def test_a_text_outside_the_image_is_named():
    def upright(x0, y0, x1, y1):
        return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))

    text = figure_png.DrawnText("y label", 9.0, upright(-10.0, 20.0, 5.0, 120.0), None, 1)
    inside = figure_png.DrawnText("tick", 9.0, upright(10.0, 20.0, 40.0, 40.0), None, 2)
    assert figure_png.layout_problems([text, inside], (700, 400)) == ["'y label' cut at the figure's edge"]


def test_a_rotated_label_is_measured_upright_along_its_axis():
    fig, ax = column_figure()
    ax.set_ylabel("a label along the axis")
    texts, _ = figure_png.drawn_texts(fig)
    plt.close(fig)
    (label,) = [t for t in texts if t.text == "a label along the axis"]
    x0, y0, x1, y1 = label.box
    assert y1 - y0 > 5 * (x1 - x0)  # tall and narrow: read along the vertical axis


def test_slanted_labels_side_by_side_do_not_collide_though_their_upright_boxes_do_and_crowded_ones_do():
    """Tick labels turned 40 degrees (chapter 4's models): their upright boxes overlap, the words do not."""
    names = ["BASE-DOT", "PE-SINCOS", "PE-ROPE", "PE-MORLET", "EGA-1", "EGA-MORLET", "PE-SINCOS-SCALED"]
    for count, collide in ((7, False), (40, True)):
        fig, ax = column_figure(2.6)
        ax.set_xticks(range(count), (names * 6)[:count], rotation=40, ha="right", rotation_mode="anchor")
        texts, size = figure_png.drawn_texts(fig)
        plt.close(fig)
        labels = [t for t in texts if t.text in names]
        upright = any(min(figure_png._overlap(a.box, b.box)) > 2 for a, b in zip(labels, labels[1:]))
        assert upright  # what a check of upright boxes would have called a collision
        assert bool(figure_png.layout_problems(texts, size)) is collide


def test_every_colour_the_figure_draws_is_kept_exactly_and_the_palette_is_small():
    fig, ax = column_figure()
    models = ["PE-SINCOS", "PE-ROPE", "PE-MORLET", "EGA-1", "EGA-MORLET"]
    for k, model in enumerate(models):
        ax.plot(np.arange(50), np.sin(np.arange(50) / 5 + k), color=palette.colour(model), lw=2)
        ax.fill_between(np.arange(50), k - 0.2, k + 0.2, color=palette.colour(model), alpha=0.2, lw=0)
    ax.plot([10], [1], "o", ms=8, color=palette.VERDICT_COLOURS["undecided"])
    image, _, data = saved(fig)
    assert image.mode == "P" and len(image.getcolors()) <= figure_png.PALETTE_SIZE
    shown = {colour for _, colour in image.convert("RGB").getcolors()}
    wanted = {tuple(int(c[i:i + 2], 16) for i in (1, 3, 5))
              for c in [palette.colour(m) for m in models] + [palette.VERDICT_COLOURS["undecided"]]}
    assert wanted <= shown


def test_few_colours_keeps_an_image_that_has_few_and_maps_the_others_to_the_nearest():
    image = Image.new("RGB", (4, 1))
    image.putdata([(255, 255, 255), (0, 0, 0), (200, 0, 0), (198, 2, 0)])
    few = figure_png.few_colours(image, kept={(200, 0, 0), (255, 255, 255), (0, 0, 0)}, size=3).convert("RGB")
    assert [few.getpixel((x, 0)) for x in range(4)] == [(255, 255, 255), (0, 0, 0), (200, 0, 0), (200, 0, 0)]


def test_a_figure_with_more_colours_of_its_own_than_the_palette_or_with_an_image_keeps_every_colour():
    image = Image.new("RGB", (4, 1))
    image.putdata([(255, 255, 255), (0, 0, 0), (200, 0, 0), (198, 2, 0)])
    assert figure_png.few_colours(image, kept={colour for _, colour in image.getcolors()}, size=3) is image
    for draw in ("imshow", "figimage"):  # an image in axes, an image on the figure itself
        fig, ax = column_figure()
        getattr(ax if draw == "imshow" else fig, draw)(np.linspace(0, 1, 400).reshape(20, 20))  # 256 shades
        shown, _, _ = saved(fig)
        assert shown.mode == "RGB" and len(shown.getcolors(maxcolors=100_000)) > figure_png.PALETTE_SIZE, draw


def test_ipython_shows_a_figure_through_png_with_the_size_it_is_shown_at():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        figure_png.show_figures_sharp()
        fig, ax = column_figure()
        ax.plot([0, 1], [0, 1])
        data, metadata = shell.display_formatter.format(fig)
        plt.close(fig)
    finally:
        InteractiveShell.clear_instance()
    image = Image.open(io.BytesIO(base64.b64decode(data["image/png"])))
    assert image.size[0] // 2 == metadata["image/png"]["width"]
    assert figure_png.SMALLEST_TEXT_KEY in image.text


def test_in_a_jupyter_kernel_a_figure_drawn_after_the_first_cell_is_shown_at_twice_its_pixels(tmp_path, monkeypatch):
    """The book's first build with this module showed every figure at 1 pixel a CSS pixel: the kernel's inline
    backend, loaded by matplotlib at the first figure, registered its own way of showing one over :func:`png`. A
    real kernel runs a page's first cell, then draws and shows a figure as the book's {eval:figure} does."""
    import os

    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import matplotlib.pyplot as plt\nfrom mope.book import figure_png\n\n"
                                  "figure_png.show_figures_sharp()"),
        nbformat.v4.new_code_cell("fig, ax = plt.subplots(figsize=(3.45, 2.0))\nax.plot([0, 1], [0, 1])\n"
                                  "plt.close(fig)\nfig")])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # the kernel inherits this process's environment: this worktree's mope first
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    NotebookClient(notebook, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    (output,) = [o for o in notebook.cells[1].outputs if "image/png" in o.get("data", {})]
    image = Image.open(io.BytesIO(base64.b64decode(output["data"]["image/png"])))
    assert output["metadata"]["image/png"]["width"] == image.size[0] // 2
    assert image.info["dpi"] == pytest.approx((200, 200), abs=0.01) and figure_png.SMALLEST_TEXT_KEY in image.text


def test_what_a_saved_png_says_of_itself_is_read_back_by_the_one_reader_the_checks_share(tmp_path):
    """png_metadata reads what png wrote (the pages size an image by its density, the checks read its text), and a
    file that is no image, a damaged one, a missing one or an image of another format says nothing rather than
    stopping the build or the check."""
    fig, ax = column_figure()
    ax.plot([0, 1], [0, 1])
    ax.text(0.5, 0.5, "small", fontsize=7, transform=ax.transAxes)
    _, _, data = saved(fig)
    (tmp_path / "figure.png").write_bytes(data)
    texts, dpi, size = figure_png.png_metadata(tmp_path / "figure.png")
    assert float(texts[figure_png.SMALLEST_TEXT_KEY]) == 7 and json.loads(texts[figure_png.PROBLEMS_KEY]) == []
    assert dpi == pytest.approx(200, abs=0.01) and size == Image.open(io.BytesIO(data)).size
    Image.new("RGB", (4, 3)).save(tmp_path / "plain.png")  # no pHYs, no text
    assert figure_png.png_metadata(tmp_path / "plain.png") == ({}, None, (4, 3))
    (tmp_path / "notes.png").write_text("not an image")
    (tmp_path / "cut.png").write_bytes(data[:len(data) // 2])
    assert figure_png.png_metadata(tmp_path / "notes.png") == figure_png.png_metadata(tmp_path / "cut.png") == ({}, None, None)
    Image.new("RGB", (4, 3)).save(tmp_path / "photo.jpg", dpi=(200, 200))
    assert figure_png.png_metadata(tmp_path / "photo.jpg") == ({}, None, None)
    assert figure_png.png_metadata(tmp_path / "missing.png") == figure_png.png_metadata(tmp_path) == ({}, None, None)
