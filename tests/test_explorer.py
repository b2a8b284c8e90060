"""The explorer chapter's figures (mope.book.explorer): what they offer, what they draw, and the browser check.

The browser tests build a page from the explorer's parts and drive it in headless Chromium with
``scripts/check_explorer.py`` (the check CI runs on the built book); they skip only where Chromium or
chromedriver is not installed.
"""
from __future__ import annotations

import gzip
import importlib.util
import json
import math
import re
import tomllib
from html import escape
from html.parser import HTMLParser
from pathlib import Path

import bokeh
import numpy as np
import pytest
from bokeh.models import HoverTool, LayoutDOM, Row

from mope.book import bokeh_page, explorer, explorer_js
from mope.evidence.paper import REPORTED_PAIRS
from mope.model.positional.morlet import initial_morlet_parameters

ROOT = Path(__file__).resolve().parents[1]


def stored_run(variant: str, seed: int = 0, preset: str = "cpu", pairs: int = 8, admissibility: str = "published",
               centre: list[float] | None = None) -> dict:
    """The keys of a stored run that the figures read (a MoPE run learns pairs; others learn none)."""
    omega, sigma = (t.tolist() for t in initial_morlet_parameters(pairs))
    learned = {"morlet": {"omega_raw": [1.1 * w for w in omega], "sigma_raw": [0.8 * s for s in sigma],
                          "centre": centre}} if "MORLET" in variant else {}
    return {"preset": preset, "variant": variant, "seed": seed, "config": {"model": {"admissibility": admissibility}},
            "train_curve": [[0, 4.17], [10, 3.68], [20, 3.21], [30, 2.90]],
            "history": [{"step": 0, "lr": 0.0, "train_loss": 4.16, "val_loss": 4.17},
                        {"step": 30, "lr": 1e-3, "train_loss": 2.89, "val_loss": 2.93}],
            "learned": learned}


RUNS = {"cpu": [stored_run("BASE-DOT", 0), stored_run("BASE-DOT", 1), stored_run("PE-MORLET", 0),
                stored_run("PE-MORLET-FREE", 0, admissibility="none", centre=[0.5 * i for i in range(8)])],
        "cpu-short": [stored_run("PE-SINCOS", 0, preset="cpu-short")]}


# --- what the explorer offers ---------------------------------------------------------------------

def test_initial_points_are_the_released_initialisation_at_the_papers_128_pairs():
    points = explorer.initial_points()
    omega, sigma = initial_morlet_parameters(128)
    assert [p.omega for p in points] == omega.tolist() and [p.sigma for p in points] == sigma.tolist()
    assert [i for i, p in enumerate(points) if p.in_menu] == [0, 64, 127]
    assert {(p.centre, p.admissibility) for p in points} == {(0.0, "published")}


def test_paper_points_are_the_pairs_the_paper_reports():
    points = explorer.paper_points()
    assert [(p.omega, p.sigma) for p in points] == list(REPORTED_PAIRS.values())
    assert [p.label for p in points] == ["paper pair 0", "paper pair 64", "paper pair 127"]
    assert all(p.in_menu for p in points)


def test_learned_points_are_a_runs_raw_values_with_its_centre_and_bound():
    run = RUNS["cpu"][3]
    points = explorer.learned_points(run)
    assert [p.omega for p in points] == run["learned"]["morlet"]["omega_raw"]
    assert [p.sigma for p in points] == run["learned"]["morlet"]["sigma_raw"]
    assert [p.centre for p in points] == run["learned"]["morlet"]["centre"]
    assert {p.admissibility for p in points} == {"none"}
    assert [i for i, p in enumerate(points) if p.in_menu] == [0, 4, 7]  # first, middle, last pair
    assert points[0].label == "cpu PE-MORLET-FREE seed 0, pair 0"
    assert {p.centre for p in explorer.learned_points(RUNS["cpu"][2])} == {0.0}  # published: no centre
    assert explorer.learned_points(RUNS["cpu"][0]) == []  # BASE-DOT learns no MoPE pair


def test_all_points_are_initial_then_paper_then_every_learned_pair():
    points = explorer.all_points(RUNS)
    assert len(points) == 128 + 3 + 2 * 8
    assert points[:131] == explorer.initial_points() + explorer.paper_points()


def test_an_empty_store_gives_no_runs_and_both_figures_still_build(store):
    runs = explorer.stored_runs()
    assert runs == {}
    assert explorer.all_points(runs) == explorer.initial_points() + explorer.paper_points()
    assert "No stored run" in bokeh_page.embed(explorer.loss_curves(runs, "cpu"))
    assert 'data-root-id' in bokeh_page.embed(explorer.explorer(explorer.all_points(runs)))


def test_the_sliders_span_what_the_model_draws_whatever_values_are_stored():
    """A stored value far out (a σ of 3e6, a centre of 1e5: the schema lets both through) used to stretch a
    slider for every reader; the spans are the model's, and a point beyond them sets its slider to the end."""
    far = explorer.ParameterPoint("far", "far", 1e-5, 3e6, centre=1e5)
    for points in (explorer.all_points(RUNS), explorer.all_points(RUNS) + [far], [far]):
        layout = explorer.explorer(points)
        omega, sigma = layout.select_one({"name": "omega"}), layout.select_one({"name": "sigma"})
        centre = layout.select_one({"name": "centre"})
        assert (omega.start, omega.end) == (-3.0, 0.7)  # 1e-3 and 4, rounded out to a tenth of a decade
        assert (sigma.start, sigma.end) == (-0.4, 4.0)  # 0.5 and 1e4
        assert (centre.start, centre.end) == (-255.0, 255.0)  # the paper's window T = 256, on either side
    assert (omega.value, sigma.value, centre.value) == (-3.0, 4.0, 255.0)  # the far point: each at its span's end
    layout = explorer.explorer(explorer.all_points(RUNS))
    assert layout.select_one({"name": "omega"}).value == 0.0  # starts at initial pair 0
    assert layout.select_one({"name": "sigma"}).value == pytest.approx(math.log10(5))


@pytest.mark.parametrize("mode", ["published", "straight_through", "none"])
def test_every_admissibility_mode_the_model_accepts_is_drawn_by_its_forward(mode):
    """A stored straight_through run stopped explorer() with ValueError (only two modes were known)."""
    (point, *_) = explorer.learned_points(stored_run("PE-MORLET", admissibility=mode))
    assert point.admissibility == ("none" if mode == "none" else "published")
    assert 'data-root-id' in bokeh_page.embed(explorer.explorer([point]))


def test_the_jump_menu_offers_initial_paper_and_learned_pairs_by_group():
    points = explorer.all_points(RUNS)
    menu = explorer.explorer(points).select_one({"name": "jump"})
    assert list(menu.options) == ["initial (128 pairs, released code)", "paper (Section 6.3, EGA-MORLET)",
                                  "cpu PE-MORLET seed 0", "cpu PE-MORLET-FREE seed 0"]
    labels = {label: points[int(index)].label for group in menu.options.values() for index, label in group}
    assert all(label == point for label, point in labels.items())
    assert len(labels) == 3 + 3 + 2 * 3


def test_the_points_travel_as_float32_with_the_bound_as_the_radio_buttons_index():
    points = explorer.all_points(RUNS)
    layout = explorer.explorer(points)
    data = layout.select_one({"name": "points"}).data
    for column in ("omega", "sigma", "centre"):
        assert data[column].dtype == np.float32
    omega, sigma = initial_morlet_parameters(128)  # float32 tensors, as a trained model's: they travel exactly
    assert data["omega"][:128].tolist() == omega.tolist() and data["sigma"][:128].tolist() == sigma.tolist()
    buttons = layout.select_one({"name": "admissibility"}).labels
    assert [buttons[i] for i in data["admissibility"][-2:]] == ["bound off (FREE)"] * 2
    assert [buttons[i] for i in data["admissibility"][:1]] == ["ωσ ≥ 5 projected (published)"]


# --- the JavaScript: one static file, every name it reads passed in -----------------------------

JS_FILE = ROOT / "mope" / "book" / "explorer.js"
JS_WORDS = re.compile(r"\bconst |\blet |=>|\bfunction\b|\breturn\b|\.value\b|Math\.|\.data\b")
JS_GLOBALS = {"Math", "Number", "Set", "Object", "NaN", "Infinity", "true", "false", "null", "undefined",
              "const", "let", "function", "return", "if", "else", "for", "of", "new", "continue", "cb_obj", "cb_data"}


def free_names(code: str) -> set[str]:
    """The names a callback body reads that it does not declare itself: its args (a tokenizer, not a parser,
    enough for explorer.js: comments and string texts dropped, property names and object keys skipped)."""
    code = re.sub(r"//[^\n]*", "", code)
    code = re.sub(r'"[^"\n]*"', '""', code)
    code = re.sub(r"`[^`]*`", lambda m: " ".join(re.findall(r"\$\{([^}]*)\}", m.group(0))), code)
    inner: set[str] = set()
    while (function := re.search(r"function\s+([A-Za-z_$][\w$]*)\s*\(([^)]*)\)\s*\{", code)):
        depth, end = 1, function.end()  # the function's body, to its matching brace: its parameters are its own
        while depth:
            depth += {"{": 1, "}": -1}.get(code[end], 0)
            end += 1
        inner |= free_names(code[function.end():end - 1]) - {p.strip() for p in function.group(2).split(",")}
        code = code[:function.start()] + f"const {function.group(1)} = 0;" + code[end:]
    declared = set(re.findall(r"\b(?:const|let)\s+([A-Za-z_$][\w$]*)", code))
    declared |= set(re.findall(r",\s*([A-Za-z_$][\w$]*)\s*=(?!=)", code))  # const a = 1, b = 2
    declared |= set(re.findall(r"([A-Za-z_$][\w$]*)\s*=>", code))  # x => ...
    code = re.sub(r"([{,]\s*)[A-Za-z_$][\w$]*\s*:", r"\1", code)  # object keys
    code = re.sub(r"\{([A-Za-z_$][\w$]*(?:\s*,\s*[A-Za-z_$][\w$]*)*)\}",  # shorthand {a, b}: those read a, b
                  lambda m: " " + m.group(1) + " ", code)
    used = set(re.findall(r"(?<![\w$.])([A-Za-z_$][\w$]*)", code))
    return (used | inner) - declared - JS_GLOBALS


def callbacks(layout) -> list:
    from bokeh.models import CustomJS, CustomJSTickFormatter
    return list(layout.select({"type": CustomJS})) + list(layout.select({"type": CustomJSTickFormatter}))


def test_the_explorers_javascript_is_one_static_file_shipped_with_the_package():
    assert JS_FILE.is_file()
    assert set(explorer_js.JS) == {"morlet", "redraw", "menu", "tap", "jump", "log_tick", "loss", "sliders", "fit"}
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^\[tool\.setuptools\.package-data\]\n"mope\.book" = \["explorer\.js", "figure_loader\.js"\]',
                     pyproject, re.M)
    # the only MoPE forward in JavaScript: one effective() and one channels() in the whole file
    text = JS_FILE.read_text(encoding="utf-8")
    assert text.count("function effective(") == 1 and text.count("function channels(") == 1
    assert "MoPE(b, 2i)   = cos(omega b) G(b)" in text and "MoPE(b, 2i+1) = sin(omega b) G(b)" in text
    # explorer.py's strings hold no JavaScript (and no ${...} or {...} left for string formatting)
    import ast
    strings = [node.value for module in ("explorer.py", "explorer_js.py")
               for node in ast.walk(ast.parse((ROOT / "mope" / "book" / module).read_text()))
               if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    prose = "The book's interactive figures"  # the module's docstring, which names Math.fround
    strings = [text for text in strings if not text.startswith(prose)]
    assert [text for text in strings if JS_WORDS.search(text)] == []


@pytest.mark.parametrize("layout", ["explorer", "loss curves"])
def test_every_name_the_javascript_reads_is_passed_in_its_callbacks_args(layout):
    built = (explorer.explorer(explorer.all_points(RUNS)) if layout == "explorer"
             else explorer.loss_curves(RUNS, "cpu"))
    found = callbacks(built)
    assert found
    sections = {script.code: name for name, script in explorer_js.JS.items()}
    for callback in found:
        names = [sections[code] for code in sections if code in callback.code]
        assert "".join(explorer_js.JS[name].code for name in names) == callback.code  # made of whole sections
        listed = {arg for name in names for arg in explorer_js.JS[name].args}
        assert set(callback.args) == listed, names  # the args lines say what is passed, no more, no less
        free = free_names(callback.code) - ({"tick"} if "log_tick" in names else set())
        assert free <= set(callback.args), (names, free - set(callback.args))
        assert listed <= free_names(callback.code), names  # and each listed name is read
    if layout == "explorer":
        redraw = next(c for c in found if "function channels(" in c.code)
        assert redraw.args["constants"] == explorer.js_constants()


def test_the_free_name_finder_sees_a_name_the_args_lack():
    code = explorer.REDRAW_JS.replace("const T = constants.context", "const T = context_length")
    assert "context_length" in free_names(code) and "context_length" not in free_names(explorer.REDRAW_JS)


# --- the loss curves ------------------------------------------------------------------------------

def test_a_curve_keeps_the_points_a_log_axis_can_tell_apart_and_its_last():
    points = [(step, 4.0 - step / 1000) for step in range(10, 3001, 10)]
    kept = explorer.log_spaced(points)
    assert kept[:10] == points[:10] and kept[-1] == points[-1]  # steps 10-100 lie far apart on a log axis
    gaps = [math.log10(b) - math.log10(a) for (a, _), (b, _) in zip(kept[:-2], kept[1:-1])]
    assert min(gaps) >= explorer.CURVE_SPACING_DECADES and len(kept) == 71
    assert set(kept) <= set(points) and explorer.log_spaced([]) == []


def test_loss_rows_hold_every_validation_loss_and_the_log_spaced_training_curve_from_step_1():
    rows = explorer.loss_rows(RUNS)
    assert rows["preset"] == ["cpu"] * 4 + ["cpu-short"]
    assert rows["train_step"][0].tolist() == [10, 20, 30]  # step 0 cannot sit on a log axis
    assert rows["train_loss"][0].tolist() == pytest.approx([3.68, 3.21, 2.90])
    assert rows["val_step"][0].tolist() == [30] and rows["val_loss"][0].tolist() == pytest.approx([2.93])
    assert rows["colour"][0] == rows["colour"][1] != rows["colour"][2]  # one colour per model


def test_loss_curves_start_on_the_chosen_preset_comparing_base_dot_and_mope():
    layout = explorer.loss_curves(RUNS, "cpu")
    variants = layout.select_one({"name": "variants"})
    assert layout.select_one({"name": "loss_preset"}).value == "cpu"
    assert layout.select_one({"name": "loss_preset"}).options == ["cpu", "cpu-short"]
    assert [variants.labels[i] for i in variants.active] == ["BASE-DOT", "PE-MORLET"]
    assert explorer.loss_curves(RUNS, "paper").select_one({"name": "loss_preset"}).value == "cpu"  # no paper runs
    hovers = sorted(tuple(label for label, _ in tool.tooltips) for tool in layout.select({"type": HoverTool}))
    assert hovers == [("model", "seed", "step", "training loss"), ("model", "seed", "step", "validation loss")]
    assert layout.select_one({"name": "loss_steps"}) is not None  # a log axis: x_axis_type="log"


# --- offline, and the page weight -----------------------------------------------------------------

class ExternalResources(HTMLParser):
    """The elements of an HTML text that would make the browser fetch something (script code is not parsed)."""

    def __init__(self):
        super().__init__()
        self.found: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("link", "iframe", "img") or (tag == "script" and "src" in attrs):
            self.found.append((tag, attrs))


def test_bokehjs_is_two_versioned_files_of_the_book_and_no_figure_loads_anything_else(tmp_path):
    files = bokeh_page.bokehjs_files()
    assert list(files) == [f"bokeh-{bokeh.__version__}.min.js", f"bokeh-widgets-{bokeh.__version__}.min.js"]
    written = bokeh_page.copy_bokehjs(tmp_path / "_static")
    assert [p.read_bytes() for p in written] == [p.read_bytes() for p in files.values()]
    assert bokeh_page.bokehjs_urls() == [f"../_static/bokehjs/{name}" for name in files]
    parser = ExternalResources()
    parser.feed(bokeh_page.embed(explorer.explorer(explorer.all_points(RUNS)))
                + bokeh_page.embed(explorer.loss_curves(RUNS, "cpu")))
    assert parser.found == []  # no <script src>, <link>, <img>: BokehJS is fetched by the loader, from the book
    html = bokeh_page.embed(explorer.loss_curves(RUNS, "cpu"))
    assert "BEGIN bokeh.min.js" not in html and "BEGIN bokeh.min.js" in bokeh_page.inline_bokehjs()  # inline: Colab
    assert f'data-bokehjs="{escape(json.dumps(bokeh_page.bokehjs_urls()))}"' in html


def test_a_figure_keeps_its_height_wide_and_stacked_and_its_stored_text_cannot_close_its_element():
    html = bokeh_page.embed(explorer.explorer(explorer.all_points(RUNS)))
    heights = bokeh_page.RESERVED_HEIGHTS["explorer"]
    assert f".mope-figure-explorer{{min-height:{heights['wide']}px}}" in html
    assert f"@container (max-width:{bokeh_page.STACKED_BELOW - 1}px)" in html and f"{heights['narrow']}px" in html
    data = re.search(r'<script type="application/json" class="mope-figure-data">(.*?)</script>', html, re.S)[1]
    assert "<" not in data and json.loads(data)["render_items"][0]["roots"]
    assert "min-height" not in bokeh_page.embed(explorer.loss_curves({}, "cpu"))  # a line of text, nothing drawn


def test_on_a_phone_a_box_offers_a_button_naming_what_a_tap_downloads_and_without_javascript_shows_nothing_new():
    """The prompt the loader shows where a figure waits for the reader (a phone, a narrow window) is written into the
    figure's box as a <template>, inert without JavaScript; its button names the bytes BokehJS's files and the
    figure's document take gzip-compressed (then, once BokehJS is on the page, the document's alone); what the
    figure is, stored text, is escaped."""
    html = bokeh_page.embed(explorer.explorer(explorer.all_points(RUNS)), about="The <i>explorer</i> & its sliders")
    (document,) = bokeh_page.INLINE_DOCUMENT.findall(html)
    packed = lambda data: len(gzip.compress(data, compresslevel=6))  # noqa: E731
    library = sum(packed(path.read_bytes()) for path in bokeh_page.bokehjs_files().values())
    figure = packed(document.encode())
    box = re.search(r'<div class="mope-figure mope-figure-explorer">(.*?)</div></div><script', html, re.S)[1]
    (prompt,) = re.findall(r'<template class="mope-figure-request">(.*?)</template>', box, re.S)
    assert (f">Draw the interactive figure ({(library + figure) / 1e6:.2f} MB compressed: BokehJS and its data)"
            "</button>") in prompt
    assert f'data-loaded="Draw the interactive figure ({figure / 1e6:.2f} MB compressed: its data)"' in prompt
    assert '<button type="button"' in prompt and 'role="status"' in prompt  # a key presses it; its state is read out
    assert "The &lt;i&gt;explorer&lt;/i&gt; &amp; its sliders" in prompt and "<i>" not in html
    outside = box.replace(f'<template class="mope-figure-request">{prompt}</template>', "")
    assert "<button" not in outside and "mope-figure-prompt" not in outside and "Draw" not in outside


def test_the_book_moves_each_figures_document_into_a_content_named_file_beside_bokehjs(tmp_path):
    """book/_ext/bokehjs_files.py, once the pages are written: BokehJS's files and each figure's document in _static,
    the page keeping only the element that names the document's file (relative to the page)."""
    spec = importlib.util.spec_from_file_location("bokehjs_files", ROOT / "book" / "_ext" / "bokehjs_files.py")
    extension = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(extension)
    html = bokeh_page.embed(explorer.loss_curves(RUNS, "cpu"))
    (document,) = bokeh_page.INLINE_DOCUMENT.findall(html)
    (tmp_path / "notebooks").mkdir()
    page = tmp_path / "notebooks" / "03_explorer.html"
    page.write_text(f"<p>text</p>{html}{bokeh_page.embed(explorer.loss_curves({}, 'cpu'))}", encoding="utf-8")
    (tmp_path / "other.html").write_text("<p>no figure</p>", encoding="utf-8")

    class Builder:
        format = "html"

    app = type("App", (), {"outdir": str(tmp_path), "builder": Builder()})()
    (tmp_path / "_static" / "figures").mkdir(parents=True)
    (tmp_path / "_static" / "figures" / "figure-0123456789abcdef.js").write_text("an earlier build's", encoding="utf-8")
    # a page an earlier build moved, which this (incremental) build did not rewrite, keeps its document
    (tmp_path / "_static" / "figures" / "figure-fedcba9876543210.js").write_text("still linked", encoding="utf-8")
    (tmp_path / "unchanged.html").write_text('<script type="application/json" class="mope-figure-data" '
                                             'data-key="fedcba9876543210" data-src="_static/figures/'
                                             'figure-fedcba9876543210.js"></script>', encoding="utf-8")
    extension.write_files(app, None)
    assert sorted(p.name for p in (tmp_path / "_static" / "figures").iterdir() if "fedcba" not in p.name) == sorted(
        f"figure-{key}.js" for key in re.findall(r'data-key="([0-9a-f]{16})"', page.read_text(encoding="utf-8")))
    assert len(list((tmp_path / "_static" / "figures").iterdir())) == 3  # this build's two, the unchanged page's
    assert sorted(p.name for p in (tmp_path / "_static" / "bokehjs").iterdir()) == sorted(bokeh_page.bokehjs_files())
    written = page.read_text(encoding="utf-8")
    assert document not in written and bokeh_page.INLINE_DOCUMENT.search(written) is None
    key = re.search(r'data-key="([0-9a-f]{16})" data-src="\.\./_static/figures/figure-\1\.js"', written)[1]
    stored = (tmp_path / "_static" / "figures" / f"figure-{key}.js").read_text(encoding="utf-8")
    assert stored == f'(window.mopeFigureData = window.mopeFigureData || {{}})["{key}"] = {document};\n'
    assert (tmp_path / "other.html").read_text(encoding="utf-8") == "<p>no figure</p>"
    assert written.count(bokeh_page.LOADER) == 1 and written.count(' data-src="') == 2  # one loader


def test_every_panel_follows_the_column_and_the_rows_wrap_on_a_phone():
    """Issue 73: the fixed 640 px layout was cut at the right of a phone's 368 px column."""
    for layout in (explorer.explorer(explorer.all_points(RUNS)), explorer.loss_curves(RUNS, "cpu")):
        fixed = [m for m in layout.select({"type": LayoutDOM}) if m.sizing_mode != "stretch_width"
                 and m.name not in ("bound", "loss_preset")]
        assert fixed == [], [type(m).__name__ for m in fixed]
        rows = [m for m in layout.select({"type": Row})]
        assert rows and all(explorer.WRAP_ROW in m.stylesheets for m in rows)


def test_the_weight_statement_counts_the_bytes_of_each_part_and_of_bokehjs_files():
    statement = bokeh_page.weight_statement({"library": "é" * 600_000, "figure": "x" * 50_000})
    assert "figures weigh 1.25 MB" in statement  # UTF-8 bytes: é takes two
    assert "library 1,200 kB" in statement and "figure 50 kB" in statement
    assert re.search(r"\(0\.00 MB gzip-compressed", statement)
    files = bokeh_page.bokehjs_files()
    core = f"bokeh-{bokeh.__version__}.min.js"
    assert f"{core} {files[core].stat().st_size / 1e3:,.0f} kB" in statement
    size = sum(p.stat().st_size for p in files.values())
    assert f"BokehJS {size / 1e6:.2f} MB" in bokeh_page.weight_line({"figure": "x"})


# --- the chapter, the build and CI ----------------------------------------------------------------

def test_the_chapter_follows_the_encodings_and_ci_checks_it_in_chromium_after_the_book_build():
    toc = (ROOT / "_toc.yml").read_text()
    assert toc.index("notebooks/02_encodings") < toc.index("notebooks/03_explorer") < toc.index("notebooks/04_reproduction")
    ci = (ROOT / ".ci" / "run").read_text()
    assert ci.index("make book") < ci.index("scripts/check_explorer.py _build/html")
    assert "chromium-driver" in ci
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    named = {extra: {re.match(r"[\w-]+", requirement)[0] for requirement in extras[extra]} for extra in ("book", "test")}
    assert "bokeh" in named["book"] and {"bokeh", "selenium"} <= named["test"]


# --- in a real browser ----------------------------------------------------------------------------

def load_checker():
    spec = importlib.util.spec_from_file_location("check_explorer", ROOT / "scripts" / "check_explorer.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CHECKER = load_checker()
needs_chromium = pytest.mark.skipif(
    not (CHECKER.find_executable(CHECKER.BROWSERS) and CHECKER.find_executable(("chromedriver",))),
    reason="no Chromium and chromedriver on this machine")


def write_page(path: Path, runs, statement: bool = True, files: bool = False) -> Path:
    """A page of both figures in a column as wide as the book's (690 px), BokehJS's files in its _static; with
    ``files``, their documents there too, as the book keeps them (else inline, as in Colab)."""
    bokeh_page.copy_bokehjs(path.parent / "_static")
    figures = {"the explorer": bokeh_page.embed(explorer.explorer(explorer.all_points(runs)), static="_static"),
               "the loss curves": bokeh_page.embed(explorer.loss_curves(runs, "cpu"), static="_static")}
    text = f"<p>{bokeh_page.weight_statement(figures)}</p>" if statement else ""
    page = (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>explorer</title>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            "<style>body{margin:0} main{max-width:690px;margin:0 auto;padding:0 16px}</style></head>"
            f"<body><main>{''.join(figures.values())}{text}</main></body></html>")
    path.write_text(bokeh_page.figure_files(page, path.parent / "_static", "_static") if files else page, encoding="utf-8")
    return path


@needs_chromium
@pytest.mark.parametrize("runs, files", [(RUNS, True), ({}, False)],
                         ids=["with runs, documents in files", "empty store, documents inline"])
def test_the_page_passes_the_browser_check(tmp_path, capsys, runs, files):
    assert CHECKER.main([str(write_page(tmp_path / "page.html", runs, files=files))]) == 0
    out = capsys.readouterr().out
    assert "sigma dragged to the left end" in out
    assert "at 400 px: Enter on the explorer's button drew it" in out  # opened afresh at a phone's width
    assert re.search(r"passed in [0-9.]+ s$", out.rstrip())
    assert ("unticking a model removed its curves" in out) == bool(runs)


@needs_chromium
def test_the_browser_check_fails_a_page_whose_formula_departs_from_morlet_positions_or_whose_plots_a_phone_cuts(
        tmp_path, capsys, monkeypatch):
    # one float32 rounding dropped (the phase omega * b kept in float64): at omega ~ 2, sigma ~ 1e4 the
    # channels move by ~1e-5
    broken = explorer.REDRAW_JS.replace("const phase = f(omega * b);", "const phase = omega * b;")
    assert broken != explorer.REDRAW_JS
    monkeypatch.setattr(explorer, "REDRAW_JS", broken)
    # and the panels of a fixed width (Bokeh's default plot: 600 px), as before issue 73, in a phone's 368 px column
    monkeypatch.setattr(explorer, "STRETCH", "fixed")
    assert CHECKER.main([str(write_page(tmp_path / "page.html", RUNS, statement=False))]) == 1
    out = capsys.readouterr().out
    assert "omega dragged to 90% of its track: the drawn numbers differ from MorletPositions" in out
    assert "does not state its weight" in out
    assert re.search(r"FAILED at 400 px: Figure channel pair over positions b = 0…T−1 spans 16 to 6\d\d px, "
                     r"outside the column's 16 to 36\d px", out), out


def test_the_loss_plot_names_the_unit_of_every_preset_it_can_show_and_its_axis_label_fits():
    """Issue 46: "loss (nats per character; per token on cpu-bpe)" was cut off along the 380 px axis; the
    title, as wide as the plot, carries the unit, the axis a label that fits (at most 12 px a character)."""
    assert explorer.loss_unit({"cpu": [], "paper": []}) == "nats per character"
    assert explorer.loss_unit({"cpu": [], "cpu-bpe": []}) == "nats per character (per token on cpu-bpe)"
    layout = explorer.loss_curves(RUNS | {"cpu-bpe": RUNS["cpu"]}, "cpu")
    (plot,) = [model for model in layout.select({"type": figure_type()})]
    assert plot.title.text.endswith("nats per character (per token on cpu-bpe)")
    (axis,) = plot.left
    assert axis.axis_label == explorer.LOSS_AXIS and 12 * len(axis.axis_label) < plot.height - 80


def figure_type():
    from bokeh.plotting import figure

    return type(figure())


@needs_chromium
def test_the_browser_check_fails_sliders_a_keyboard_moves_invisibly_or_a_screen_reader_cannot_name(tmp_path, capsys,
                                                                                                      monkeypatch):
    # the 0.001-decade drag resolution as the keyboard's step (three presses: 1.000 -> 1.007), and no names
    monkeypatch.setattr(explorer, "KEY_STEPS", dict(explorer.KEY_STEPS, omega=0.001, sigma=0.001))
    monkeypatch.setattr(explorer, "SLIDERS_JS", explorer.SLIDERS_JS.replace(
        'handle.setAttribute("aria-label", slider.title);', ""))
    assert CHECKER.main([str(write_page(tmp_path / "page.html", {}))]) == 1
    out = capsys.readouterr().out
    assert "3 right arrows move omega~ by x1.0069 only, under 4% a press: not a visible step" in out
    assert "the position slider's handle is named None, not 'position b (kernel, markers)'" in out


@needs_chromium
def test_at_a_phones_width_bokehjs_is_fetched_only_when_a_figures_button_is_pressed_and_then_draws_it(tmp_path, capsys):
    page = write_page(tmp_path / "page.html", RUNS, files=True)
    assert CHECKER.check_phone(page) == []
    out = capsys.readouterr().out
    assert "at 400 px: 2 boxes, buttons ['Draw the interactive figure (" in out
    assert "BokehJS fetched before a press: False" in out
    assert "Enter on the explorer's button drew it" in out and "a click on the loss curves' button drew them" in out


@needs_chromium
def test_the_phone_check_fails_a_page_that_fetches_bokehjs_on_a_phone_without_asking(tmp_path, capsys, monkeypatch):
    # the loader before it asked: every window draws the figures as they near the screen
    desktop_only = bokeh_page.LOADER.replace('"(pointer: coarse), (max-width: 599.98px)"', '"(max-width: 0px)"')
    assert desktop_only != bokeh_page.LOADER
    monkeypatch.setattr(bokeh_page, "LOADER", desktop_only)
    problems = CHECKER.check_phone(write_page(tmp_path / "page.html", RUNS))
    assert problems and all("shows 0 buttons, not one" in problem for problem in problems[-2:]), problems


@needs_chromium
@pytest.mark.parametrize("width", [1280, CHECKER.PHONE[0]], ids=["drawn as it nears the screen", "drawn on a tap"])
def test_a_figure_whose_document_is_missing_says_so_in_its_box(tmp_path, width):
    from selenium.webdriver.support.ui import WebDriverWait

    page = write_page(tmp_path / "page.html", RUNS, statement=False, files=True)
    for document in (tmp_path / "_static" / bokeh_page.FIGURES_DIR).iterdir():
        document.unlink()
    driver = CHECKER.start_browser()
    try:
        driver.set_window_size(width, CHECKER.PHONE[1])
        driver.get(page.as_uri())
        driver.execute_script("for (const box of document.querySelectorAll('.mope-figure')) box.scrollIntoView();")
        if width < 1280:  # each box waits for its button
            buttons = WebDriverWait(driver, 60).until(lambda d: d.execute_script(
                "const found = document.querySelectorAll('.mope-figure-prompt button'); return found.length == 2 && found;"))
            for button in buttons:
                button.click()
        said = WebDriverWait(driver, 60).until(lambda d: d.execute_script(
            "const texts = [...document.querySelectorAll('.mope-figure')].map(box => box.textContent);"
            "return texts.every(text => text.startsWith('This figure could not be drawn: ')) && texts;"))
    finally:
        driver.quit()
    assert len(said) == 2 and all("could not load" in text and "/figures/figure-" in text for text in said), said


def test_an_error_of_the_browser_ends_a_check_as_one_problem_and_the_browser_is_closed(monkeypatch):
    """A crashed tab or a lost driver is a failed check that says where, never a traceback, and no browser is left
    running after it."""
    import sys

    from selenium.common.exceptions import WebDriverException

    closed = []

    class Driver:
        def quit(self):
            closed.append(True)

    monkeypatch.setattr(sys.modules["explorer_page.browser"], "start_browser", Driver)
    problems: list[str] = []
    with CHECKER.browser_session(problems, "at 400 px") as driver:
        assert isinstance(driver, Driver)
        raise WebDriverException("tab crashed")
    assert problems == ["the browser failed at 400 px: tab crashed"] and closed == [True]
    with CHECKER.browser_session(problems):
        pass
    assert len(problems) == 1 and closed == [True, True]
