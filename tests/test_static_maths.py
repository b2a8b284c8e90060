"""The formulas typeset when the book is built (issue 73): book/_ext/static_maths.py puts MathJax's CommonHTML in
place of each formula's TeX, so that a page loads no MathJax JavaScript and shows its text at once."""
from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path

import pytest

from loading import load

ROOT = Path(__file__).resolve().parents[1]
BUILT = ROOT / "_build" / "html"


static_maths = load("static_maths", ROOT / "book" / "_ext" / "static_maths.py")
#: The copy of MathJax that sphinx-mathjax-offline ships and a build copies into ``_static/mathjax``.
OFFLINE = Path(importlib.import_module("sphinx-mathjax-offline").__file__).parent / "static" / "mathjax"
needs_node_and_mathjax = pytest.mark.skipif(not shutil.which("node") or not (OFFLINE / "node-main.js").is_file(),
                                            reason="no Node, or sphinx-mathjax-offline ships no node-main.js")

PAGE = r"""<head>
    <script>window.MathJax = {"loader": {"load": ["input/tex", "output/chtml", "a11y/assistive-mml"]}}</script>
    <script defer="defer" src="../_static/mathjax/startup.js"></script>
</head><body><p>The bound <span class="math notranslate nohighlight">\(\omega\sigma\ge5\)</span> and
<span class="math notranslate nohighlight">\(k&lt;T\)</span>.</p>
<div class="math notranslate nohighlight" id="equation-eq-gate">
<span class="eqno">(2.1)<a class="headerlink" href="#equation-eq-gate">#</a></span>\[
g_j=\frac{e_j-\mu}{s}
\]</div>
<div class="cell_output docutils container">
<div class="output text_latex math notranslate nohighlight">
\[\displaystyle e^{- \tau^{2}}\]</div>
</div></body>"""


def test_each_formula_is_found_with_its_tex_unescaped():
    assert static_maths.formulas_of(PAGE) == [(r"\omega\sigma\ge5", False), ("k<T", False),
                                             (r"g_j=\frac{e_j-\mu}{s}", True), (r"\displaystyle e^{- \tau^{2}}", True)]


def test_a_page_gets_its_typeset_formulas_the_stylesheet_and_no_mathjax_script():
    typeset = {formula: f"<mjx-container>{i}</mjx-container>"
               for i, formula in enumerate(static_maths.formulas_of(PAGE))}
    page = static_maths.typeset_page(PAGE, typeset, "../_static/mathjax-chtml.css")
    assert "mathjax/startup.js" not in page and "window.MathJax" not in page
    assert '<span class="math notranslate nohighlight"><mjx-container>1</mjx-container></span>' in page
    assert '<span class="eqno">(2.1)<a class="headerlink" href="#equation-eq-gate">#</a></span><mjx-container>2' in page
    assert '<div class="output text_latex math notranslate nohighlight"><mjx-container>3' in page  # a cell's LaTeX
    assert '<link rel="stylesheet" href="../_static/mathjax-chtml.css" />\n</head>' in page
    assert "\\(" not in page and "\\[" not in page
    plain = "<head></head><p>No maths.</p>"
    assert static_maths.typeset_page(plain, {}, "x.css") == plain  # no formula: no stylesheet


@needs_node_and_mathjax
def test_node_typesets_a_formula_with_the_mathml_a_screen_reader_reads():
    formulas = [(r"\frac{1}{T}\sum_{k<T} e_k", True), (r"\boldsymbol{x}", False)]  # \boldsymbol: loaded on demand
    typeset, css = static_maths.typeset(formulas, shutil.which("node"), OFFLINE)
    display = typeset[formulas[0]]
    assert display.startswith('<mjx-container class="MathJax" jax="CHTML" display="true"')
    assert "<mjx-assistive-mml" in display and "<mfrac>" in display
    assert "merror" not in typeset[formulas[1]]
    assert f'url("{static_maths.FONT_URL}/MathJax_Main-Regular.woff")' in css
    served = static_maths.stylesheet_of(css)
    assert served.count("font-display: swap;") == css.count("@font-face") > 0
    assert served.endswith('mjx-container[jax="CHTML"] {\n  font-size: 120%;\n}\n')


@pytest.mark.skipif(not shutil.which("node"), reason="no Node")
def test_a_typesetting_that_fails_is_one_line_naming_what_failed(tmp_path):
    missing = tmp_path / "no-mathjax"
    with pytest.raises(RuntimeError) as failed:
        static_maths.typeset([("x", False)], shutil.which("node"), missing)
    message = str(failed.value)
    assert message == f"typesetting the book's formulas failed: Cannot find module '{missing}/node-main.js'", message


@pytest.mark.parametrize("answer, problem", [
    ("Segmentation fault", "answered with no JSON of typeset formulas: 'Segmentation fault"),
    ('{"css": ""}', "answered with no JSON of typeset formulas"),
    ('{"html": ["<mjx-container>x</mjx-container>"], "css": ""}', "typeset 1 formulas of 2 asked")])
def test_an_answer_that_is_not_every_formula_typeset_is_one_line_saying_so(tmp_path, answer, problem):
    """A formula is never dropped silently, nor a page left with its TeX: a short or garbled answer stops the build."""
    node = tmp_path / "node"
    node.write_text(f"#!/bin/sh\ncat > /dev/null\necho '{answer}'\n")
    node.chmod(0o755)
    with pytest.raises(RuntimeError) as failed:
        static_maths.typeset([("x", False), ("y", True)], str(node), tmp_path)
    assert problem in str(failed.value) and "\n" not in str(failed.value)


@pytest.mark.skipif(not (BUILT / "notebooks" / "02_encodings.html").is_file() or not shutil.which("node"),
                    reason="the book is not built, or built without Node")
def test_the_built_pages_load_no_mathjax_javascript():
    for page in BUILT.rglob("*.html"):
        if "_static" in page.parts:
            continue
        text = page.read_text(encoding="utf-8")
        assert "_static/mathjax/" not in text, page
        assert not re.search(r'math notranslate nohighlight"[^>]*>\s*(?:<span class="eqno">.*?</span>)?\s*\\[(\[]', text,
                             re.S), page
    encodings = (BUILT / "notebooks" / "02_encodings.html").read_text(encoding="utf-8")
    assert "<mjx-container" in encodings
    # the page's stylesheet, its sheets in one file (book/_ext/lean_css.py), carries MathJax's
    sheets = re.findall(r'<link\b[^>]*rel="stylesheet"[^>]*href="([^"]+)"', encodings)
    styles = "".join(((BUILT / "notebooks") / sheet).read_text(encoding="utf-8") for sheet in sheets)
    assert 'mjx-container[jax="CHTML"]' in styles and "font-display: swap" in styles
    script = (ROOT / "_static" / "book.js").read_text()
    assert "book-typesetting" not in script  # no page hides its text while formulas typeset


def test_each_maths_font_is_cut_to_the_characters_the_stylesheet_draws(tmp_path):
    fonttools = pytest.importorskip("fontTools.ttLib")
    main = OFFLINE / "output" / "chtml" / "fonts" / "woff-v2" / "MathJax_Main-Regular.woff"
    if not main.is_file():
        pytest.skip("sphinx-mathjax-offline ships no MathJax_Main-Regular.woff")
    static = tmp_path / "_static"
    (static / static_maths.FONT_URL).mkdir(parents=True)
    shutil.copy(main, static / static_maths.FONT_URL / main.name)
    css = ('@font-face {\n  font-family: MJXTEX;\n  src: url("' + static_maths.FONT_URL + '/MathJax_Main-Regular.woff") '
           'format("woff");\n}\nmjx-c.mjx-c3D::before {\n  content: "=";\n}\nmjx-c.mjx-c2211::before {\n  content: "\\2211";\n}')
    assert static_maths.drawn_characters(css) == {"=", "\u2211"}
    cut = static_maths.subset_fonts(css, static)
    assert f'url("{static_maths.SUBSET}/MathJax_Main-Regular.woff")' in cut and static_maths.FONT_URL not in cut
    subset = static / static_maths.SUBSET / main.name
    assert subset.stat().st_size < main.stat().st_size / 3
    kept = set(fonttools.TTFont(subset).getBestCmap())
    assert kept == {ord("="), 0x2211} & set(fonttools.TTFont(main).getBestCmap())


@needs_node_and_mathjax
def test_once_the_pages_are_written_each_formula_is_typeset_and_its_page_links_the_stylesheet(tmp_path):
    (tmp_path / "_static").mkdir()
    (tmp_path / static_maths.MATHJAX).symlink_to(OFFLINE, target_is_directory=True)
    (tmp_path / "notebooks").mkdir()
    maths, plain = tmp_path / "notebooks" / "01.html", tmp_path / "intro.html"
    maths.write_text(PAGE, encoding="utf-8")
    plain.write_text("<head></head><p>No maths.</p>", encoding="utf-8")
    app = type("App", (), {"outdir": str(tmp_path), "builder": type("Builder", (), {"format": "html"})()})()
    static_maths.typeset_pages(app, None)
    page = maths.read_text(encoding="utf-8")
    assert page.count("<mjx-container") == 4 and "\\(" not in page and "mathjax/startup.js" not in page
    assert '<link rel="stylesheet" href="../_static/mathjax-chtml.css" />' in page
    assert plain.read_text(encoding="utf-8") == "<head></head><p>No maths.</p>"
    css = (tmp_path / static_maths.CSS).read_text(encoding="utf-8")
    assert "font-display: swap;" in css and 'mjx-container[jax="CHTML"]' in css
    if importlib.util.find_spec("fontTools"):  # each font the stylesheet names, cut, beside it
        fonts = re.findall(r'url\("([^"]+\.woff)"\)', css)
        assert fonts and all(font.startswith(f"{static_maths.SUBSET}/") for font in fonts)
        assert all((tmp_path / "_static" / font).is_file() for font in fonts)
