"""Sphinx extension: each written page loads only what it uses, and its markup passes axe-core (issue 55).

Once the HTML builder has written every page (``build-finished``), each page of the build is rewritten:

* **Icons.** The theme loads Font Awesome's whole SVG kit (``fontawesome.js``, 1.5 MB, 530 KiB gzipped) to draw
  the twenty-odd icons of its buttons. :func:`write_icon_css` writes ``_static/icons.css`` instead: one CSS mask
  for each icon a page or the theme's scripts name (``fa-bars``, ``fa-github`` ...), its path taken from that
  same kit, and every page links it in place of the script.
* **Search.** The theme puts Sphinx's search scripts and the whole search index (180 kB) in every page's head,
  blocking its rendering, for a search-as-you-type the book does not turn on; they stay on the search page only
  (the search box of every page submits to it).
* **Images.** Every figure's ``<img>`` (a file of ``_images/``) gets its ``width`` and ``height`` (the size it is
  shown at: its pixels over its density, 2 for a figure saved at twice its pixels by ``mope.book.figure_png``, whose
  PNG says 200 dpi where its page lays it out at ``figure_style.DPI``; so the browser reserves its box before it
  arrives: no layout shift; the inline size that myst-nb writes from the notebook's metadata is dropped, its fixed
  height would squash a figure shrunk to a phone's column), ``decoding="async"`` and, all but the first of
  the page, ``loading="lazy"`` (a figure below the screen or in a tab not shown is fetched when it is needed). A
  PNG gets a lossless WebP copy beside it (:func:`write_webp`: the book's 1.6 MB of figures in 0.64 MB), which
  the browser takes through ``<picture>``; the PNG stays the ``<img>``'s source (and the notebooks' for Colab). The
  theme's own images (the Colab logo in the launch menu, hidden until it opens) load lazily: a phone fetched that logo
  before its first paint.
* **MathJax**, where the book is built without Node (with Node, ``static_maths.py`` typesets every formula at build
  time and takes MathJax's scripts out of the pages), comes in its parts (:data:`MATHJAX`): the loader, the core, TeX input, CommonHTML output and its font,
  and the MathML a screen reader reads (162 KiB gzipped), without the right-click menu that the combined
  ``tex-chtml.js`` (263 KiB gzipped, one file too large to ship without a source map) carries. Every formula is
  typeset at load, not lazily: MathJax's ``ui/lazy`` typesets a formula only as it scrolls into view, and at
  400 px chapter 1 then opened with 189 of its 199 formulas as empty placeholders (10,740 px tall, not 12,348),
  its text jumping as a reader scrolled (layout shifts of 0.12 to 0.16 each); a placeholder also reads as a rendered
  formula to a check that looks for MathJax's container.
* **Scripts deferred.** The head's scripts of the book's extensions (Sphinx's, the theme's, copy buttons, tabs, the
  book's own: nine files, each blocking the first paint while it arrives) get ``defer``: they run in their order once
  the page is parsed, as their own code waits for (``DOMContentLoaded``), and the text is drawn without them. The
  theme's preload hints for its two deferred scripts at the end of the page are dropped: on a slow link they took the
  bandwidth from the stylesheets the first paint waits for. The search page keeps its scripts as they are (its index
  script calls the search script as it loads).
* **No stylesheet behind another.** The theme's ``styles/theme.css`` holds nothing but ``@import "../basic.css"``: a
  reader's browser found Sphinx's basic stylesheet only once that file had arrived, one more round trip before the
  first paint. Each page links ``basic.css`` itself instead (:func:`direct_stylesheets`, only while ``theme.css`` is
  that import and nothing else).
* **Colour mode.** The theme's default mode is set ("auto", what the theme falls back to), so its script does not
  log an error on every page; and the page's head resolves "auto" to the theme it stands for (light or dark, as
  the reader's system prefers: the theme's own rule) before anything is drawn (:data:`THEME_RESOLVED`). The theme
  left ``data-theme="auto"`` until its deferred script ran, and the styles written for a theme (the code blocks'
  line height and border in ``pygments.css``) then arrived late: on a first visit drawn before that script ran,
  every code block grew by 3.4 px and the text below it jumped (layout shift 0.145 on the how-to-run page, phone).
* **Names a screen reader reads.** A code cell's toggle is named by what it shows ("Show code cell source"),
  not "Toggle hidden content"; the search button by its visible text and shortcut; a bibliography's entries are
  the list items its list requires (``role="listitem"``, not the retired ``doc-biblioentry``); a link inside a
  dropdown's title (a control inside a control: the title opens the dropdown) becomes plain text.
"""
from __future__ import annotations

import re
from pathlib import Path

from mope.book.figure_png import png_metadata
from mope.book.figure_style import DPI as FIGURE_DPI  # CSS pixels an inch of a figure on its page

#: MathJax from the book's own copy (sphinx-mathjax-offline): the startup component loads the others.
MATHJAX = "mathjax/startup.js"
MATHJAX_PARTS = ["input/tex", "output/chtml", "a11y/assistive-mml"]
ICON_CSS = "_static/icons.css"
FONT_AWESOME = "_static/scripts/fontawesome.js"
THEME_SCRIPTS = ("_static/scripts/pydata-sphinx-theme.js", "_static/scripts/sphinx-book-theme.js")
#: Font Awesome's packs in the theme's kit, in the order a name is looked up (solid first, as the theme uses).
PACKS = ("fas", "fab", "far")
#: One icon of the kit: ``name:[width,height,[aliases],"unicode","path"]``.
ICON = re.compile(r'(?:"([\w-]+)"|\b([a-z][\w]*)):\[(\d+),(\d+),\[([^\]]*)\],"[0-9a-f]+","(M[^"]+)"\]')
ICON_NAMES = re.compile(r"\bfa-([a-z0-9]+(?:-[a-z0-9]+)*)")
NOT_ICONS = {"solid", "regular", "brands", "lg", "sm", "xs", "2x", "3x", "fw", "spin"}
ICON_BASE = (
    ".fa,.fas,.far,.fab,.fa-solid,.fa-regular,.fa-brands{display:inline-block;width:1.25em;height:1em;"
    "vertical-align:-.125em;background-color:currentColor;-webkit-mask:var(--fa) center/contain no-repeat;"
    "mask:var(--fa) center/contain no-repeat}.fa-lg{font-size:1.25em;vertical-align:-.2em}"
    # the theme's stylesheet draws the same classes as glyphs of Font Awesome's web fonts (267 KiB): none drawn
    ".fa::before,.fas::before,.far::before,.fab::before,.fa-solid::before,.fa-regular::before,.fa-brands::before"
    "{content:none!important}"
)

#: The icon the theme draws in an admonition's title (its stylesheet's ``--pst-icon-admonition-*``), by admonition
#: class; "" for any other admonition. Drawn as masks too, so that no page fetches Font Awesome's solid font.
ADMONITIONS = {"": "bell", "note": "info-circle", "error": "times-circle", "attention": "exclamation-circle",
               "important": "exclamation-circle", "caution": "exclamation-triangle", "danger": "exclamation-triangle",
               "warning": "exclamation-triangle", "hint": "lightbulb", "tip": "lightbulb", "seealso": "share",
               "todo": "pencil"}
ADMONITION_ICON = ".admonition{kind}>.admonition-title::after,div.admonition{kind}>.admonition-title::after"

#: The theme's head script, which leaves "auto" (no stored choice) unresolved until the theme's deferred script runs.
THEME_UNRESOLVED = 'document.documentElement.dataset.theme = localStorage.getItem("theme") || "auto";'
#: The same script resolving the mode as the theme's script does (a stored mode, else the system's preference).
THEME_RESOLVED = ('document.documentElement.dataset.theme = /^(light|dark)$/.test(document.documentElement.dataset.mode)'
                  ' ? document.documentElement.dataset.mode'
                  ' : (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");')
SEARCH_SCRIPT = re.compile(r'\s*<script src="[^"]*(?:_static/searchtools\.js|_static/language_data\.js|searchindex\.js)">'
                           r"</script>")
FA_SCRIPT = re.compile(r'<script defer src="([^"]*)_static/scripts/fontawesome\.js[^"]*"></script>')
FA_PRELOAD = re.compile(r'\s*<link[^>]*href="[^"]*_static/scripts/fontawesome\.js[^"]*"[^>]*>')
IMG = re.compile(r"<img\b[^>]*>")
#: The size docutils writes on an image whose notebook output gave one (myst-nb): a fixed height in pixels.
INLINE_SIZE = re.compile(r' style="width: [\d.]+px; height: [\d.]+px;"')
#: A script of the head loaded from the book's ``_static/`` that blocks parsing (neither ``async`` nor ``defer``).
BLOCKING_SCRIPT = re.compile(r'<script (?![^>]*\b(?:async|defer)\b)([^>]*\bsrc="[^"]*_static/[^"]*"[^>]*)></script>')
SCRIPT_PRELOAD = re.compile(r'\s*<link rel="preload" as="script" href="[^"]*_static/scripts/[^"]*" />')
SUMMARY = re.compile(r"(<summary\b[^>]*>)(.*?)(</summary>)", re.S)


def icon_paths(kit: str) -> dict[str, tuple[int, int, str]]:
    """Every icon of the kit by name and alias: (width, height, SVG path), the first pack of ``PACKS`` winning."""
    packs = {}
    for pack in PACKS:
        end = kit.find(f'd("{pack}",p)')
        start = kit.rfind("var p={", 0, end)
        if end < 0 or start < 0:
            raise ValueError(f"{FONT_AWESOME}: no icon pack {pack!r} (the theme's Font Awesome kit changed)")
        icons = {}
        for match in ICON.finditer(kit, start, end):
            name, width, height, aliases, path = match[1] or match[2], int(match[3]), int(match[4]), match[5], match[6]
            for key in [name] + re.findall(r'"([\w-]+)"', aliases):
                icons.setdefault(key, (width, height, path))
        packs[pack] = icons
    merged: dict[str, tuple[int, int, str]] = {}
    for pack in PACKS:
        for name, icon in packs[pack].items():
            merged.setdefault(name, icon)
    return merged


def icon_css(names: set[str], icons: dict[str, tuple[int, int, str]]) -> str:
    """The stylesheet drawing each of ``names``, and each admonition's icon, as a mask of its SVG path, in the text's
    colour."""
    def mask(name: str) -> str:
        width, height, path = icons[name]
        svg = f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {width} {height}'><path d='{path}'/></svg>"
        return f'--fa:url("data:image/svg+xml,{svg.replace("#", "%23")}")'

    rules = [ICON_BASE, ADMONITION_ICON.format(kind="") + "{content:''!important;font:inherit;width:1em;height:1em;"
             "background-color:currentColor;-webkit-mask:var(--fa) center/contain no-repeat;"
             "mask:var(--fa) center/contain no-repeat}"]
    rules += [f".fa-{name}{{{mask(name)}}}" for name in sorted(names & icons.keys())]
    rules += [f"{ADMONITION_ICON.format(kind='.' + kind if kind else '')}{{{mask(name)}}}"
              for kind, name in ADMONITIONS.items() if name in icons]
    return "\n".join(rules) + "\n"


def write_icon_css(outdir: Path, pages: list[Path]) -> None:
    """Write ``_static/icons.css`` for every icon named in ``pages`` and the theme's scripts."""
    kit = outdir / FONT_AWESOME
    if not kit.is_file():
        raise FileNotFoundError(f"{kit}: the theme's Font Awesome kit, which the icons are drawn from, is missing")
    texts = [p.read_text(encoding="utf-8") for p in pages] + [(outdir / s).read_text(encoding="utf-8")
                                                              for s in THEME_SCRIPTS if (outdir / s).is_file()]
    names = {name for text in texts for name in ICON_NAMES.findall(text)} - NOT_ICONS
    (outdir / ICON_CSS).write_text(icon_css(names, icon_paths(kit.read_text(encoding="utf-8"))), encoding="utf-8")


def write_webp(images: Path) -> None:
    """A lossless WebP copy of every PNG in ``images`` that it makes smaller (none is kept otherwise)."""
    from PIL import Image

    for png in images.glob("*.png"):
        webp = png.with_suffix(".webp")
        if webp.is_file() and webp.stat().st_mtime >= png.stat().st_mtime:
            continue
        with Image.open(png) as image:
            image.save(webp, "WEBP", lossless=True, method=4)
        if webp.stat().st_size >= png.stat().st_size:
            webp.unlink()


def pixel_density(dpi: float | None, layout_dpi: float) -> int:
    """Image pixels a CSS pixel of a PNG of ``dpi`` dots an inch (its ``pHYs`` chunk,
    :func:`mope.book.figure_png.png_metadata`) laid out at ``layout_dpi``: rounded, at least 1 (1 where it says none)."""
    return max(1, round(dpi / layout_dpi)) if dpi else 1


def sized_images(text: str, page: Path) -> str:
    """``text`` with each figure's ``<img>`` (a file of ``_images/``) given its size (a PNG's), async decoding and,
    after the page's first, lazy loading, in a ``<picture>`` offering its WebP copy where there is one; the theme's
    own images (logos in menus, sized by its CSS) only load lazily."""
    count = 0

    def attributes(match: re.Match) -> str:
        nonlocal count
        tag = match[0]
        src = re.search(r'\bsrc="([^"]+)"', tag)
        if src is not None and "_static/images/" in src[1] and "loading=" not in tag:
            return tag[:4] + ' loading="lazy"' + tag[4:]  # the theme's: a logo in a menu, fetched when it opens
        if src is None or "_images/" not in src[1] or "://" in src[1] or "decoding=" in tag:
            return tag
        count += 1
        path = (page.parent / src[1].split("?")[0]).resolve()
        png = png_metadata(path)
        extra = ' decoding="async"' + (' loading="lazy"' if count > 1 else "")
        if png.size and "width=" not in tag and "height=" not in tag:
            density = pixel_density(png.dpi, FIGURE_DPI)
            width, height = png.size
            extra += f' width="{width // density}" height="{height // density}"'  # never more than its pixels allow
            tag = INLINE_SIZE.sub("", tag)
        tag = tag[:4] + extra + tag[4:]
        if not path.with_suffix(".webp").is_file():
            return tag
        webp = src[1].rsplit(".", 1)[0] + ".webp"
        return f'<picture><source type="image/webp" srcset="{webp}" />{tag}</picture>'


    return IMG.sub(attributes, text)


def plain_summary(match: re.Match) -> str:
    """A dropdown's title with its links as plain text (a link inside the control that opens the dropdown)."""
    inner = re.sub(r"<a\b[^>]*>", '<span class="book-summary-link">', match[2]).replace("</a>", "</span>")
    return match[1] + inner + match[3]


#: The theme's stylesheet that only imports Sphinx's basic one, as a page links it, and what it imports.
THEME_CSS = "_static/styles/theme.css"
THEME_CSS_LINK = re.compile(r'<link href="([^"]*)_static/styles/theme\.css(?:\?[^"]*)?" rel="stylesheet" />')
BASIC_IMPORT = re.compile(r'\s*(?:/\*.*?\*/\s*)*@import "\.\./basic\.css";\s*', re.S)


def direct_stylesheets(text: str) -> str:
    """A page linking Sphinx's ``basic.css`` itself, not through the theme's ``theme.css`` that only imports it."""
    return THEME_CSS_LINK.sub(r'<link href="\1_static/basic.css" rel="stylesheet" />', text)


def deferred_scripts(text: str) -> str:
    """A page with the scripts of its head deferred and the theme's script preloads dropped (the module's docstring)."""
    end = text.find("</head>")
    if end < 0:
        return text
    head = BLOCKING_SCRIPT.sub(r"<script defer \1></script>", text[:end])
    return SCRIPT_PRELOAD.sub("", head) + text[end:]


def rewrite(text: str, page: Path, search_page: bool, theme_imports_basic: bool = False) -> str:
    """One page as the book serves it (see the module's docstring); ``theme_imports_basic``: the theme's ``theme.css``
    is nothing but the import of ``basic.css``."""
    if theme_imports_basic:
        text = direct_stylesheets(text)
    if not search_page:
        text = deferred_scripts(SEARCH_SCRIPT.sub("", text))
    text = FA_PRELOAD.sub("", text)
    kit = FA_SCRIPT.search(text)
    if kit:  # the icons' stylesheet last in the head, after the theme's (which it overrides)
        text = FA_SCRIPT.sub("", text).replace("</head>", f'<link rel="stylesheet" href="{kit[1]}{ICON_CSS}" />\n</head>', 1)
    text = sized_images(text, page).replace(THEME_UNRESOLVED, THEME_RESOLVED)
    text = text.replace('<summary aria-label="Toggle hidden content">', "<summary>")
    text = text.replace('aria-label="Search" data-bs-placement', 'aria-label="Search Ctrl+K" data-bs-placement')
    text = text.replace('role="doc-biblioentry"', 'role="listitem"')
    return SUMMARY.sub(plain_summary, text)


def rewrite_pages(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    pages = [p for p in outdir.rglob("*.html") if "_static" not in p.relative_to(outdir).parts]
    write_icon_css(outdir, pages)
    if (outdir / "_images").is_dir():
        write_webp(outdir / "_images")
    theme = outdir / THEME_CSS
    imports_basic = theme.is_file() and BASIC_IMPORT.fullmatch(theme.read_text(encoding="utf-8")) is not None
    for page in pages:
        text = page.read_text(encoding="utf-8")
        page.write_text(rewrite(text, page, page == outdir / "search.html", imports_basic), encoding="utf-8")


def configure(app, config) -> None:
    config.mathjax_path = MATHJAX
    loader = config.mathjax3_config.setdefault("loader", {}) if config.mathjax3_config else {}
    if not config.mathjax3_config:
        config.mathjax3_config = {"loader": loader}
    loader["load"] = MATHJAX_PARTS
    config.html_context.setdefault("default_mode", "auto")  # the layout's data-mode (a context value, not an option)


def setup(app):
    app.connect("config-inited", configure, priority=900)
    app.connect("build-finished", rewrite_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
