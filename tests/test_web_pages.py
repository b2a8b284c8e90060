"""The book as a web page (issue 55): book/_ext/web_pages.py rewrites each built page to load only what it uses.

The rewriting is tested on small pages; where the book has been built (``_build/html``), its pages are checked
too. ``scripts/check_web.py`` (run by CI after the build) checks the pages in Chromium with axe-core and Lighthouse.
"""
from __future__ import annotations

import base64
import importlib
import os
import re
import shutil
import struct
import zlib
from pathlib import Path

import pytest

from loading import load
from mope.book.figure_png import png_metadata

ROOT = Path(__file__).resolve().parents[1]
BUILT = ROOT / "_build" / "html"


web_pages = load("web_pages", ROOT / "book" / "_ext" / "web_pages.py")
check_web = load("check_web", ROOT / "scripts" / "check_web.py")

KIT = ('var p={github:[496,512,[],"f09b","M1 2z"]};d("fab",p),d("fa-brands",p)'
       'var p={file:[384,512,[],"f15b","M3 4z"]};d("far",p),d("fa-regular",p)'
       'var p={"magnifying-glass":[512,512,[128269,"search"],"f002","M5 6z"],file:[384,512,[],"f15b","M7 8z"]};'
       'd("fas",p),d("fa-solid",p)')


def png(width: int, height: int, dpi: float | None = None) -> bytes:
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\0" + b"\0" * width for _ in range(height))
    density = chunk(b"pHYs", struct.pack(">IIB", round(dpi / 0.0254), round(dpi / 0.0254), 1)) if dpi else b""
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)) + density
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def test_a_figure_at_twice_its_pixels_is_shown_at_half_of_them_without_the_fixed_height_myst_nb_gives_it(tmp_path):
    """Issue 73: mope.book.figure_png saves a figure at 200 dpi for a page laid out at 100 (its PNG says so); the page
    gives its <img> half its pixels, and drops the inline width and height myst-nb wrote from the notebook's
    metadata (a fixed height squashed the figure once a phone's column shrank its width)."""
    (tmp_path / "_images").mkdir()
    (tmp_path / "_images" / "sharp.png").write_bytes(png(730, 500, dpi=200))
    (tmp_path / "_images" / "plain.png").write_bytes(png(365, 250, dpi=100))
    page = tmp_path / "book" / "intro.html"
    page.parent.mkdir()
    text = web_pages.sized_images('<img alt="a" src="../_images/sharp.png" style="width: 365px; height: 250px;" />'
                                  '<img alt="b" src="../_images/plain.png" />', page)
    assert '<img decoding="async" width="365" height="250" alt="a" src="../_images/sharp.png" />' in text
    assert 'width="365" height="250" alt="b"' in text
    assert web_pages.pixel_density(png_metadata(tmp_path / "_images" / "sharp.png").dpi, 100) == 2
    (tmp_path / "_images" / "odd.png").write_bytes(png(711, 501, dpi=200))
    odd = web_pages.sized_images('<img alt="c" src="../_images/odd.png" />', page)
    assert 'width="355" height="250"' in odd  # never shown wider than half its pixels


PAGE = """<head><script data-cfasync="false">
    document.documentElement.dataset.mode = localStorage.getItem("mode") || "auto";
    document.documentElement.dataset.theme = localStorage.getItem("theme") || "auto";
  </script><script defer src="../_static/scripts/fontawesome.js?digest=1"></script>
<link href="../_static/scripts/fontawesome.js?digest=1" rel="preload" as="script">
    <script src="../_static/searchtools.js"></script>
    <script src="../_static/language_data.js"></script>
    <script src="../searchindex.js"></script></head>
<button class="btn search-button-field" title="Search" aria-label="Search" data-bs-placement="bottom"></button>
<img alt="Colab logo" src="../_static/images/logo_colab.png">
<img alt="first" src="../_images/a.png" /><img alt="second" src="../_images/b.png" />
<details><summary aria-label="Toggle hidden content">Show code cell source</summary></details>
<details class="sd-dropdown"><summary class="sd-summary-title">See <a class="reference internal" href="#x">§2</a></summary>
<div role="list" class="citation-list"><div class="citation" id="id1" role="doc-biblioentry">A paper</div></div>
"""


def test_a_page_loads_no_icon_kit_no_search_index_and_its_figures_lazily_with_their_size(tmp_path):
    (tmp_path / "_images").mkdir()
    (tmp_path / "_images" / "a.png").write_bytes(png(6, 4))
    (tmp_path / "_images" / "b.png").write_bytes(png(3, 2))
    (tmp_path / "_images" / "a.webp").write_bytes(b"RIFF")  # a WebP copy of a.png only
    page = tmp_path / "book" / "intro.html"
    page.parent.mkdir()
    text = web_pages.rewrite(PAGE, page, search_page=False)
    assert "fontawesome.js" not in text and '<link rel="stylesheet" href="../_static/icons.css" />' in text
    assert "searchtools.js" not in text and "searchindex.js" not in text and "language_data.js" not in text
    assert "searchindex.js" in web_pages.rewrite(PAGE, page, search_page=True)
    # the theme's, sized by its CSS, in a menu hidden until it opens: fetched when it is shown
    assert '<img loading="lazy" alt="Colab logo" src="../_static/images/logo_colab.png">' in text
    assert '<picture><source type="image/webp" srcset="../_images/a.webp" /><img decoding="async" width="6" height="4" alt="first"' in text  # the first figure: not lazy
    assert '<img decoding="async" loading="lazy" width="3" height="2" alt="second" src="../_images/b.png" />' in text
    assert text.count("<picture>") == 1
    assert "<summary>Show code cell source</summary>" in text
    # "auto" resolved to light or dark in the head, before the first paint, not by the theme's deferred script
    assert web_pages.THEME_RESOLVED in text and web_pages.THEME_UNRESOLVED not in text
    assert 'aria-label="Search Ctrl+K"' in text
    assert 'role="listitem"' in text and "doc-biblioentry" not in text
    assert '<span class="book-summary-link">§2</span>' in text and 'href="#x"' not in text
    assert web_pages.rewrite(text, page, search_page=False) == text  # rewriting twice changes nothing


def test_the_heads_scripts_are_deferred_in_their_order_but_on_the_search_page():
    head = ('<head><script data-cfasync="false">document.documentElement.dataset.mode = "auto";</script>\n'
            '<link rel="preload" as="script" href="../_static/scripts/bootstrap.js?digest=1" />\n'
            '<script src="../_static/doctools.js?v=1"></script><script>let hint = 1;</script>\n'
            '<script data-sd-tabs-storage-prefix="x-" src="../_static/design-tabs.js?v=2"></script>\n'
            '<script async="async" src="../_static/sphinx-thebe.js"></script></head>'
            '<body><script src="../_static/later.js"></script><script defer src="../_static/scripts/bootstrap.js?digest=1">'
            '</script></body>')
    page = web_pages.deferred_scripts(head)
    assert '<script defer src="../_static/doctools.js?v=1"></script><script>let hint = 1;</script>' in page
    assert '<script defer data-sd-tabs-storage-prefix="x-" src="../_static/design-tabs.js?v=2"></script>' in page
    assert '<script async="async" src="../_static/sphinx-thebe.js"></script>' in page  # async stays async
    assert 'rel="preload" as="script"' not in page  # the theme's deferred scripts are not fetched first
    assert '<body><script src="../_static/later.js"></script>' in page  # only the head's
    assert web_pages.deferred_scripts(page) == page
    search = '<head><script src="_static/searchtools.js"></script></head>'
    assert web_pages.rewrite(search, Path("search.html"), search_page=True) == search


def test_a_page_links_sphinxs_basic_stylesheet_itself_not_through_the_themes_import():
    theme = "/* Provided by Sphinx's 'basic' theme, and included in the final set of assets */\n@import \"../basic.css\";\n"
    assert web_pages.BASIC_IMPORT.fullmatch(theme)
    assert not web_pages.BASIC_IMPORT.fullmatch(theme + "body { margin: 0; }\n")  # more than the import: kept
    page = '<link href="../_static/styles/theme.css?digest=5" rel="stylesheet" />'
    assert web_pages.rewrite(page, Path("book/intro.html"), False, theme_imports_basic=True) == (
        '<link href="../_static/basic.css" rel="stylesheet" />')
    assert web_pages.rewrite(page, Path("book/intro.html"), False) == page


def test_a_png_gets_a_lossless_webp_copy_once(tmp_path):
    from PIL import Image

    Image.new("RGB", (300, 200), "white").save(tmp_path / "plain.png")  # compresses well as WebP
    web_pages.write_webp(tmp_path)
    with Image.open(tmp_path / "plain.webp") as copy, Image.open(tmp_path / "plain.png") as original:
        assert copy.size == original.size and copy.convert("RGB").tobytes() == original.tobytes()
    before = (tmp_path / "plain.webp").stat().st_mtime_ns
    web_pages.write_webp(tmp_path)  # a copy newer than its PNG is kept as it is
    assert (tmp_path / "plain.webp").stat().st_mtime_ns == before


def test_the_icon_stylesheet_draws_each_named_icon_from_the_kit_solid_first():
    icons = web_pages.icon_paths(KIT)
    assert icons["search"] == icons["magnifying-glass"] == (512, 512, "M5 6z")
    assert icons["file"] == (384, 512, "M7 8z")  # the solid pack's, as the theme's "fas fa-file" asks
    css = web_pages.icon_css({"github", "file", "lg", "nowhere"}, icons)
    assert re.findall(r"\.fa-([\w-]+)\{--fa:", css) == ["file", "github"]
    assert "viewBox='0 0 496 512'><path d='M1 2z'/>" in css and "content:none" in css


def test_a_kit_without_a_pack_is_named():
    with pytest.raises(ValueError, match="no icon pack 'fab'"):
        web_pages.icon_paths(KIT.replace('d("fab",p)', ""))


def test_the_parts_of_mathjax_the_pages_load_ship_with_the_offline_copy():
    offline = Path(importlib.import_module("sphinx-mathjax-offline").__file__).parent / "static"
    for part in [web_pages.MATHJAX] + [f"mathjax/{name}.js" for name in web_pages.MATHJAX_PARTS]:
        assert (offline / part).is_file(), part
    assert (offline / "mathjax" / "output" / "chtml" / "fonts" / "tex.js").is_file()  # output/chtml's font


def test_the_budgets_are_the_issues():
    assert check_web.budget("notebooks/03_explorer.html") == 1200 * 1024
    assert check_web.budget("book/intro.html") == check_web.budget("notebooks/02_encodings.html") == 600 * 1024
    assert check_web.budget("book/api.html") is None
    assert check_web.GATES == {"accessibility": 1.0, "best-practices": 1.0, "seo": 0.95}
    assert check_web.MAX_LAYOUT_SHIFT == 0.1


def test_the_largest_paint_target_is_the_issues_on_the_reading_pages_but_the_explorer():
    assert check_web.MAX_LARGEST_PAINT == 2.5  # issue 73: Lighthouse's largest contentful paint, seconds
    for page in ("book/intro.html", "notebooks/01_mathematics.html", "notebooks/07_open_questions.html"):
        assert check_web.largest_paint_target(page) == 2.5, page
    for page in ("notebooks/03_explorer.html", "notebooks/own_model.html", "book/api.html", "search.html"):
        assert check_web.largest_paint_target(page) is None, page


@pytest.mark.skipif(not (BUILT / "search.html").is_file(), reason="the book is not built")
def test_the_built_pages_load_only_what_they_use():
    icons = (BUILT / web_pages.ICON_CSS).read_text()
    for name in ("bars", "github", "magnifying-glass", "sun", "moon", "xmark"):
        assert f".fa-{name}{{--fa:" in icons, name
    for kind in web_pages.ADMONITIONS:  # every admonition's icon, drawn without Font Awesome's font
        assert web_pages.ADMONITION_ICON.format(kind="." + kind if kind else "") + "{--fa:" in icons, kind
    for page in check_web.pages_of(BUILT):
        text = (BUILT / page).read_text(encoding="utf-8")
        assert "fontawesome.js" not in text, page
        assert ("searchindex.js" in text) == (page == "search.html"), page
        assert web_pages.THEME_RESOLVED in text, page  # the theme's head script as the book rewrites it
        for tag in re.findall(r'<img\b[^>]*src="[^"]*_images/[^"]*"[^>]*>', text):
            assert re.search(r'width="\d+" height="\d+"', tag), (page, tag)
    # Lighthouse's SEO: the pages Sphinx writes itself are described too (book/_ext/page_meta.py)
    assert '<meta name="description" content="MoPE, executed: the search page." />' in (BUILT / "search.html").read_text()
    assert len(list((BUILT / "_images").glob("*.webp"))) == len(list((BUILT / "_images").glob("*.png")))


needs_browser_tools = pytest.mark.skipif(
    not check_web.AXE.is_file() or not any(map(shutil.which, check_web.BROWSERS)) or not shutil.which("chromedriver"),
    reason="no Chromium and chromedriver, or axe-core not installed in tools/web (cd tools/web && npm ci)")


@needs_browser_tools
def test_the_web_check_fails_a_page_over_its_budget_or_with_an_unnamed_slider(tmp_path, capsys):
    page = "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{0}</title></head><body><main>{1}</main>"
    (tmp_path / "search.html").write_text(page.format("Search", "<h1>Search</h1><p>Find a word.</p>"))
    (tmp_path / "notebooks").mkdir()
    heavy = "<script>/*" + base64.b64encode(os.urandom(800 * 1024)).decode() + "*/</script>"  # 800 KiB gzipped
    (tmp_path / "notebooks" / "01_heavy.html").write_text(page.format("Heavy", "<h1>Heavy</h1>" + heavy))
    (tmp_path / "notebooks" / "02_slider.html").write_text(page.format("Slider", (
        "<h1>Slider</h1><div role='slider' tabindex='0' aria-valuemin='0' aria-valuemax='1' aria-valuenow='0'></div>")))
    assert check_web.main([str(tmp_path), "--lighthouse", "none"]) == 1
    out = capsys.readouterr().out
    assert "FAILED notebooks/01_heavy.html at desktop: loads" in out and "over its budget of 600 KiB" in out
    assert "FAILED notebooks/02_slider.html at 400 px: axe serious aria-input-field-name" in out
    assert "search.html" not in "".join(line for line in out.splitlines() if line.startswith("FAILED"))


def test_lighthouse_is_asked_only_for_pages_the_check_knows(tmp_path, capsys):
    (tmp_path / "search.html").write_text("<!DOCTYPE html><title>Search</title>")
    assert check_web.main([str(tmp_path), "--no-browser", "--lighthouse", "book/nowhere.html"]) == 2
    err = capsys.readouterr().err
    assert "--lighthouse: not a page checked here: book/nowhere.html" in err and "'all', 'none'" in err
    assert "search.html" in err  # the pages it could have named


needs_lighthouse = pytest.mark.skipif(
    not check_web.LIGHTHOUSE_INSTALLED.is_file() or not shutil.which("node")
    or not any(map(shutil.which, check_web.BROWSERS)) or not shutil.which("chromedriver"),
    reason="no Chromium or Node, or Lighthouse not installed in tools/web (cd tools/web && npm ci)")


@needs_lighthouse
def test_lighthouse_reports_every_form_and_fails_a_page_without_a_description(tmp_path, capsys):
    page = ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{0}</title>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>{1}</head>"
            "<body><main><h1>{0}</h1><p>A page of the book, in plain words.</p></main></body></html>")
    (tmp_path / "search.html").write_text(page.format("Search", "<meta name='description' content='Find a word.'>"))
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "01_plain.html").write_text(page.format("Plain", ""))  # no meta description: SEO < 95
    assert check_web.main([str(tmp_path), "--no-browser", "--lighthouse", "notebooks/01_plain.html"]) == 1
    out = capsys.readouterr().out
    for form in check_web.LIGHTHOUSE_FORMS:
        assert re.search(rf"^lighthouse notebooks/01_plain\.html {form}: performance \d+, accessibility \d+", out, re.M)
        assert re.search(rf"^lighthouse notebooks/01_plain\.html {form}: .*; benchmark index [\d,]+; \d+ s", out, re.M)
        assert re.search(rf"^FAILED notebooks/01_plain\.html \({form}\): Lighthouse seo 0\.\d+ below 0\.95 "
                         r"\(failing: [^)]*meta-description", out, re.M), out
    assert "lighthouse search.html" not in out  # only the page asked for


def test_a_page_over_its_paint_target_once_is_judged_by_the_median_of_three_audits(monkeypatch, capsys):
    """One late paint on a busy machine does not fail CI; a page late in two audits of three does."""
    paints = {"book/intro.html": iter([3.1, 2.0, 2.2]), "notebooks/04_reproduction.html": iter([3.1, 2.9, 1.0])}

    def audits(base, pages, jobs):
        for page in pages:
            yield {"page": page, "form": "mobile", "errors": [], "lcp": next(paints[page]) * 1000}

    monkeypatch.setattr(check_web, "lighthouse_runs", audits)
    misses = {(page, "mobile"): [next(paints[page])] for page in sorted(paints)}
    elements = dict.fromkeys(misses, "p")
    problems = check_web.paint_misses("", misses, elements, 1, gate_paint=True)
    assert [problem.split(" ")[0] for problem in problems] == ["notebooks/04_reproduction.html"]
    assert "median of 3.1, 2.9, 1.0" in problems[0]
    assert "book/intro.html mobile: largest paint within its target at the median of 3 audits" in capsys.readouterr().out


def test_without_the_gate_a_late_paint_is_printed_once_and_audited_no_more(monkeypatch, capsys):
    monkeypatch.setattr(check_web, "lighthouse_runs", lambda *_: pytest.fail("audited again without the gate"))
    misses = {("book/intro.html", "mobile"): [3.1]}
    assert check_web.paint_misses("", misses, dict.fromkeys(misses, "p"), 1, gate_paint=False) == []
    assert "OVER TARGET (printed, not gated) book/intro.html (mobile)" in capsys.readouterr().out
