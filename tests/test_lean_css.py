"""The book's stylesheets keep only the rules that can match something of the book (issue 73): book/_ext/lean_css.py.

The pruning is tested on small stylesheets; where the book has been built (``_build/html``), its theme stylesheet is
compared with the theme's own.
"""
from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from loading import load

ROOT = Path(__file__).resolve().parents[1]
BUILT = ROOT / "_build" / "html"

lean_css = load("lean_css", ROOT / "book" / "_ext" / "lean_css.py")

SHEET = """@charset "UTF-8";/*!
 * A license, kept
 */:root{--x:1}/* a plain comment, dropped */
.used,.unused{color:red}
.missing{color:blue}
a.used>span:hover::before{content:"{ a brace in a string }"}
@media (min-width:960px){.missing{margin:0}.used{margin:1px}}
@media print{.missing{display:none}}
@supports (display:grid){@media screen{div#main .used{display:grid}}}
.used:not(.missing){padding:0}
table .used{border:0}
[data-gone] .used{border:1px}
[data-theme=dark] .used{color:white}
.bs-tooltip-auto{top:0}
.used::-moz-focus-inner,.missing{border:0}
@keyframes spin{to{transform:rotate(1turn)}}
@keyframes gone{to{opacity:0}}
.used{animation:spin 1s}
@font-face{font-family:Font Awesome\\ 6 Free;src:url(fa.woff2)}
@font-face{font-family:"Unused Face";src:url(unused.woff2)}
.used{font:var(--fa-font-solid)}
:root{--fa-font-solid:normal 900 1em/1 "Font Awesome 6 Free"}
"""
WORDS = {"used", "a", "span", "div", "main", "data-theme", "dark"}


def test_a_rule_is_kept_only_where_each_class_id_element_and_attribute_it_needs_is_in_the_book():
    lean = lean_css.lean(SHEET, WORDS, prefixes=("bs-",))
    assert lean.startswith('@charset "UTF-8";/*!\n * A license, kept\n */')
    assert "a plain comment" not in lean
    assert ".used{color:red}" in lean  # .unused dropped from the list, the rule kept
    assert ".missing{color:blue}" not in lean
    assert 'a.used>span:hover::before{content:"{ a brace in a string }"}' in lean  # pseudos are not names
    assert "@media (min-width:960px){.used{margin:1px}}" in lean
    assert "@media print" not in lean  # a group left empty goes with its rules
    assert "@supports (display:grid){@media screen{div#main .used{display:grid}}}" in lean
    assert ".used:not(.missing){padding:0}" in lean  # what :not() excludes need not be in the book
    assert "table .used" not in lean  # no <table>
    assert "[data-gone]" not in lean and "[data-theme=dark] .used{color:white}" in lean
    assert ".bs-tooltip-auto{top:0}" in lean  # a class a script builds from its prefix
    assert ".used::-moz-focus-inner,.missing{border:0}" in lean  # a vendor's pseudo: the rule kept or dropped whole
    assert "@keyframes spin" in lean and "@keyframes gone" not in lean
    assert "Font Awesome\\ 6 Free" in lean and "Unused Face" not in lean


def test_an_elements_or_attributes_name_matches_in_any_case_a_class_or_id_only_in_its_own():
    """HTML matches element and attribute names in any case: `DIV` styles a <div>, `table` a <TABLE>."""
    sheet = "DIV .used{margin:0}table .used{border:0}[DATA-THEME] .used{color:red}.USED{padding:0}#MAIN{top:0}"
    lean = lean_css.lean(sheet, WORDS | {"TABLE"})
    assert "DIV .used{margin:0}" in lean and "table .used{border:0}" in lean and "[DATA-THEME] .used{color:red}" in lean
    assert ".USED" not in lean and "#MAIN" not in lean


def test_a_stylesheet_whose_rules_all_match_comes_back_as_it_was():
    sheet = "/*! keep */\nbody{margin:0}@media (max-width:600px){body .x,p>a[href]{padding:0}}@page{margin:1cm}"
    assert lean_css.lean(sheet, {"body", "x", "p", "a", "href"}) == sheet


def test_the_words_of_the_book_come_from_its_pages_and_the_scripts_they_load(tmp_path):
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "used.js").write_text('e.classList.add("shown");n.className=`tip-${side}`;m.className="arrow-" + side', encoding="utf-8")
    (tmp_path / "_static" / "unloaded.js").write_text('e.classList.add("never")', encoding="utf-8")
    (tmp_path / "_static" / "theme.css").write_text(".x{}", encoding="utf-8")
    page = tmp_path / "intro.html"
    text = ('<head><link href="_static/theme.css?digest=1" rel="stylesheet" /><script defer src="_static/used.js">'
            '</script></head><body><p class="lead">Hello</p></body>')
    words, prefixes = lean_css.book_words({page: text}, tmp_path)
    assert {"lead", "body", "Hello", "shown"} <= words and "never" not in words
    assert prefixes == ("arrow-", "tip-")
    assert lean_css.linked_stylesheets({page: text}, tmp_path) == [(tmp_path / "_static" / "theme.css").resolve()]


def test_an_unclosed_block_is_named():
    with pytest.raises(ValueError, match="a block opened at character 2 is never closed"):
        lean_css.lean(".a{color:red", {"a"})
    with pytest.raises(ValueError, match="a block opened at character 12 is never closed"):  # a group's too
        lean_css.lean("@media print{.a{color:red}", {"a"})


INTRO = BUILT / "book" / "intro.html"
#: What a selector names that a page's markup cannot show (states, pseudo-elements): taken off before it is matched.
STATE = re.compile(r"::?(?!not\(|is\(|where\(|has\(|nth-|first-child|last-child|only-child|first-of-type|"
                   r"last-of-type|only-of-type|empty|root|checked|disabled)[\w-]+")


@pytest.mark.skipif(not INTRO.is_file(), reason="the book is not built (make book)")
def test_the_built_pages_link_one_stylesheet_without_the_theme_rules_that_match_none_of_their_elements():
    import bs4
    import soupsieve

    theme = Path(importlib.import_module("pydata_sphinx_theme").__file__).parent / "theme" / "pydata_sphinx_theme"
    original = (theme / "static" / "styles" / "pydata-sphinx-theme.css").read_text(encoding="utf-8")
    for name in ("book/intro.html", "notebooks/04_reproduction.html", "book/cite.html"):
        text = (BUILT / name).read_text(encoding="utf-8")
        links = re.findall(r'<link\b[^>]*rel="stylesheet"[^>]*href="([^"]+)"', text)
        assert len(links) == 1 and "/_static/book-" in links[0], (name, links)  # one file: the page's sheets joined
        bundle = ((BUILT / name).parent / links[0]).read_text(encoding="utf-8")
        assert len(bundle) < 0.6 * len(original)  # all its sheets together, less than the theme's alone was
        kept = set(lean_css.selectors(",".join(rule[1] for rule in rules_of(bundle))))
        dropped = set(lean_css.selectors(",".join(rule[1] for rule in rules_of(original)))) - kept
        soup, checked = bs4.BeautifulSoup(text, "html.parser"), 0
        classes = {c for tag in soup.find_all(class_=True) for c in tag["class"]}
        for selector in dropped:  # a dropped rule for a class of the page: no element of the page matches it
            last = re.findall(r"\.([\w-]+)", selector.split()[-1] if selector.split() else "")
            if not set(last) & classes or "\\" in selector:
                continue
            bare = STATE.sub("", selector)
            try:
                found = soup.select_one(bare)
            except (soupsieve.SelectorSyntaxError, ValueError, NotImplementedError):
                continue  # a selector soupsieve does not read
            assert found is None, (name, selector)
            checked += 1
        assert checked > 20, (name, checked)


def rules_of(css: str) -> list:
    """Every style rule of ``css``, inside groups too."""
    found = []
    for item in lean_css.parse(css)[0]:
        if item[0] == "rule" and not item[1].startswith("@"):
            found.append(item)
        elif item[0] == "group":
            found += rules_of(lean_css.serialise(item[2]))
    return found


def test_a_pages_stylesheets_become_one_file_in_their_order_where_the_first_was_linked(tmp_path):
    static = tmp_path / "_static"
    (static / "styles").mkdir(parents=True)
    (static / "styles" / "theme.css").write_text('@charset "UTF-8";.a{background:url(../vendor/x.png)}', encoding="utf-8")
    (static / "book.css").write_text('.b{mask:url("data:image/svg+xml,<svg/>")}', encoding="utf-8")
    (static / "maths.css").write_text(".m{}", encoding="utf-8")
    (tmp_path / "book").mkdir()
    head = ('<noscript><style>.x{}</style></noscript>\n<link href="../_static/styles/theme.css?digest=1" rel="stylesheet" />\n'
            '<script defer src="../_static/a.js"></script>\n<link rel="stylesheet" type="text/css" href="../_static/book.css" />\n'
            '<link rel="icon" href="../_static/favicon.svg"/>\n')
    bundles = {}
    read = lambda sheet: sheet.read_text(encoding="utf-8")
    intro = lean_css.bundle_page(head + '<link rel="stylesheet" href="../_static/maths.css" />\n</head>',
                                 tmp_path / "book" / "intro.html", tmp_path, bundles, read)
    plain = lean_css.bundle_page(head + "</head>", tmp_path / "book" / "cite.html", tmp_path, bundles, read)
    assert len(bundles) == 2  # one file for each list of sheets
    with_maths = bundles[tuple((static / name).resolve() for name in ("styles/theme.css", "book.css", "maths.css"))]
    assert intro == ('<noscript><style>.x{}</style></noscript>\n'
                     f'<link rel="stylesheet" href="../_static/{with_maths}" />\n'
                     '<script defer src="../_static/a.js"></script>\n<link rel="icon" href="../_static/favicon.svg"/>\n</head>')
    assert "maths" not in plain and plain.count('rel="stylesheet"') == 1
    assert (static / with_maths).read_text(encoding="utf-8") == (
        '@charset "UTF-8";\n.a{background:url("vendor/x.png")}\n.b{mask:url("data:image/svg+xml,<svg/>")}\n.m{}\n')
    # where joining the sheets would change what applies, the page is left as it is: an inline style or another
    # host's sheet among the links (it would move in the cascade), a sheet for one medium, a sheet with an @import
    script = '<script defer src="../_static/a.js"></script>'
    for between in ("<style>.y{}</style>", '<link rel="stylesheet" href="https://example.org/x.css" />'):
        mixed = head.replace(script, between)
        assert lean_css.bundle_page(mixed, tmp_path / "book" / "x.html", tmp_path, bundles, read) == mixed
    printed = head.replace('type="text/css"', 'media="print"')
    assert lean_css.bundle_page(printed, tmp_path / "book" / "x.html", tmp_path, bundles, read) == printed
    everywhere = head.replace('type="text/css"', 'media="all"')
    assert lean_css.bundle_page(everywhere, tmp_path / "book" / "x.html", tmp_path, bundles, read) != everywhere
    (static / "imports.css").write_text('@import "book.css";', encoding="utf-8")
    imports = head.replace("book.css", "imports.css")
    assert lean_css.bundle_page(imports, tmp_path / "book" / "x.html", tmp_path, bundles, read) == imports


def test_once_the_pages_are_written_each_links_one_pruned_file_and_the_sheets_stay_as_they_were(tmp_path):
    (tmp_path / "_static").mkdir()
    theme = ".used{color:red}.unused{color:blue}@media print{.unused{margin:0}}"
    (tmp_path / "_static" / "theme.css").write_text(theme, encoding="utf-8")
    (tmp_path / "_static" / "maths.css").write_text("mjx-container{font-size:120%}", encoding="utf-8")
    head = '<head><link rel="stylesheet" href="_static/theme.css" />\n{}</head>'
    (tmp_path / "intro.html").write_text(head.format("") + '<p class="used">text</p>', encoding="utf-8")
    (tmp_path / "maths.html").write_text(head.format('<link rel="stylesheet" href="_static/maths.css" />\n')
                                         + '<p class="used"><mjx-container>x</mjx-container></p>', encoding="utf-8")
    app = type("App", (), {"outdir": str(tmp_path), "builder": type("Builder", (), {"format": "html"})()})()
    lean_css.lean_stylesheets(app, None)
    bundles = {}
    for name in ("intro.html", "maths.html"):
        (href,) = re.findall(r'rel="stylesheet" href="([^"]+)"', (tmp_path / name).read_text(encoding="utf-8"))
        bundles[name] = (tmp_path / href).read_text(encoding="utf-8")
    assert bundles["intro.html"] == '@charset "UTF-8";\n.used{color:red}\n'
    assert bundles["maths.html"] == '@charset "UTF-8";\n.used{color:red}\nmjx-container{font-size:120%}\n'
    assert (tmp_path / "_static" / "theme.css").read_text(encoding="utf-8") == theme


def test_a_bundle_of_an_earlier_build_that_no_page_links_is_removed_and_the_others_stay(tmp_path):
    """Each build writes its bundles under new names when the sheets change: an earlier build's were left in
    ``_static/`` for ever, beside the book's own files that look alike."""
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "theme.css").write_text(".used{color:red}", encoding="utf-8")
    (tmp_path / "_static" / "book-0123456789ab.css").write_text(".old{}", encoding="utf-8")  # an earlier build's
    (tmp_path / "_static" / "book-notes.css").write_text(".mine{}", encoding="utf-8")  # not a bundle's name
    (tmp_path / "intro.html").write_text('<head><link rel="stylesheet" href="_static/theme.css" />\n</head>'
                                         '<p class="used">text</p>', encoding="utf-8")
    app = type("App", (), {"outdir": str(tmp_path), "builder": type("Builder", (), {"format": "html"})()})()
    lean_css.lean_stylesheets(app, None)
    (href,) = re.findall(r'rel="stylesheet" href="_static/([^"]+)"', (tmp_path / "intro.html").read_text(encoding="utf-8"))
    assert sorted(path.name for path in (tmp_path / "_static").iterdir()) == sorted([href, "book-notes.css", "theme.css"])
    lean_css.lean_stylesheets(app, None)  # a second pass over pages that already link their bundle: nothing lost
    (href,) = re.findall(r'rel="stylesheet" href="([^"]+)"', (tmp_path / "intro.html").read_text(encoding="utf-8"))
    assert (tmp_path / href).is_file() and len(list((tmp_path / "_static").glob("book-*.css"))) == 2
