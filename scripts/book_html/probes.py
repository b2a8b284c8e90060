"""What the book check runs inside each rendered page, and what their reports mean: ``PAGE_PROBE`` (images
decoded, maths rendered, figures captioned, unshrunk and measured (``FIGURES``, judged by :func:`figure_problems`),
table cells and printed outputs that fit, no path of the build machine), ``HEIGHT_PROBE`` (the page's height once it has settled) and ``NARROW_PROBE`` (at a phone's
width: nothing scrolls sideways or sticks out, verdicts and figures on the screen); :func:`reading_problems`
and :func:`narrow_problems` turn the first and the last into one line per problem."""
from __future__ import annotations

from mope.book.figure_png import SMALLEST_TEXT_KEY


# Shared by the page probe and the narrow one: every dropdown of the article opened for the measures that follow, as a
# reader may open each (a closed one's body has no size), and its body shown. The API page keeps each dropdown's body
# in a ``<template class="book-folded">`` that the book's script puts in place on the dropdown's toggle event, which the
# browser dispatches after the dropdown opens: the page probe waits for it (up to 5 s a round; the narrow probe, after
# it, waits none; a dropdown shown by a body put in place is opened in the next round), and a body still folded is a
# problem: a reader who opens it sees nothing. ``closeDropdowns()`` closes them again; the bodies put in place stay (a
# closed dropdown lays out nothing of its body: the page's height is as it was).
OPEN_DROPDOWNS = r"""
  const openedDropdowns = [], foldedDropdowns = [];
  const openDropdowns = async () => {
    const folded = details => details.querySelector(":scope > template.book-folded");
    for (let round = 0; round < 5; round++) {
      const closed = Array.from(article.querySelectorAll("details:not([open])"))
          .filter(details => !openedDropdowns.includes(details));
      if (!closed.length) break;
      closed.forEach(details => { details.open = true; openedDropdowns.push(details); });
      for (let i = 0; i < /*TICKS*/ && closed.some(folded); i++) await new Promise(resolve => setTimeout(resolve, 50));
      for (const details of closed.filter(folded)) {
        foldedDropdowns.push(shortText((details.querySelector("summary") || details).textContent, 60));
      }
    }
    await new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  };
  const closeDropdowns = () => openedDropdowns.forEach(details => { details.open = false; });
"""


# Shared by the page probe (at the wide width) and the narrow one, every dropdown open (OPEN_DROPDOWNS): every display
# formula (MathJax's display container) whose drawing is wider than its box (the container, which scrolls, beside the
# equation's number, or Sphinx's ``div.math`` around it): a part of it is cut off, or behind a sideways scroll.
WIDE_FORMULAS = r"""
  const wideFormulas = [];
  for (const formula of article.querySelectorAll("mjx-container[display='true']")) {
    if (formula.getBoundingClientRect().width === 0) continue;  // in a tab not shown
    const holder = formula.closest("div.math") || formula;
    const wide = [formula, holder].find(box => box.scrollWidth > box.clientWidth + 1);
    if (wide) {
      const label = holder.querySelector(".eqno");
      const name = (label ? label.textContent.trim() + " " : "") + formula.textContent;
      wideFormulas.push(`${shortText(name, 60)} (${wide.scrollWidth} px in ${wide.clientWidth} px)`);
    }
  }
"""


# Shared by the page probe and the narrow one: every image of a figure of the article as it is shown now, its source
# (the PNG, whose text chunks say what its text is, even where the browser took its WebP copy), its width on the
# screen and its natural width (pixels), for :func:`figure_problems`.
FIGURES = r"""
  const figures = [];
  for (const img of article.querySelectorAll("figure img")) {
    const box = img.getBoundingClientRect();
    if (box.width === 0 || !img.getAttribute("src")) continue;  // in a tab or a dropdown not shown
    figures.push({src: decodeURIComponent(new URL(img.getAttribute("src"), location.href).pathname),
                  name: img.getAttribute("src").split("/").pop(), shown: box.width, natural: img.naturalWidth});
  }
"""


def figure_problems(figures: list[dict], chunks, at: str, smallest_pt: float, density: int) -> list[str]:
    """For each figure a probe measured (``figures``: its source, width shown and natural width), whether it has
    ``density`` times the pixels it is shown at, and whether its smallest text, as its PNG records it
    (``chunks(source)``: its PNG's ``PngFacts``, the text chunks and dots an inch), is shown at ``smallest_pt`` CSS points or
    more: its points × its dpi / 96 px a CSS inch × the width shown / its pixels."""
    problems = []
    for figure in figures:
        shown, natural, name = figure["shown"], figure["natural"], figure["name"]
        if natural < density * shown - 1:
            problems.append(f"figure not drawn at {density}x {at}: {name} ({natural} px shown at {shown:.0f} px)")
        texts, dpi, _ = chunks(figure["src"])
        if SMALLEST_TEXT_KEY in texts and dpi and natural:
            points = float(texts[SMALLEST_TEXT_KEY]) * dpi / 96 * shown / natural
            if points < smallest_pt - 0.005:
                problems.append(f"figure's smallest text shown at {points:.2f} pt {at}, below {smallest_pt:g} pt: "
                                f"{name} ({natural} px shown at {shown:.0f} px)")
    return problems


# Run inside each page after its load event: make lazy images load now, decode them all, wait for
# MathJax to typeset, open every dropdown (OPEN_DROPDOWNS), then inspect what a reader sees in the page's article.
PAGE_PROBE = r"""
(async () => {
  const images = Array.from(document.images);
  images.forEach(img => { img.loading = "eager"; });
  const broken = [];
  await Promise.all(images.map(img => img.decode().then(
      () => { if (!(img.naturalWidth > 0)) broken.push(img.currentSrc || img.src); },
      () => broken.push(img.currentSrc || img.src))));

  // MathJax loads deferred: wait for it to start, then for its first typesetting to finish.
  if (document.querySelector("script[src*='mathjax' i]")) {
    for (let i = 0; i < 200 && !(window.MathJax && MathJax.startup && MathJax.startup.promise); i++) {
      await new Promise(resolve => setTimeout(resolve, 50));
    }
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  }

  // the page's own content: Sphinx themes put it in an <article> inside <main>, after the buttons
  const article = document.querySelector("article.bd-article") || document.querySelector("article")
      || document.querySelector("main, [role=main]") || document.body;
  const shortText = (text, n = 70) => text.replace(/\s+/g, " ").trim().slice(0, n);
/*OPEN_DROPDOWNS*/
  await openDropdowns();

  // Maths: every element Sphinx marks as maths holds a MathJax rendering, and no TeX is left as text.
  const unrendered = Array.from(article.querySelectorAll(".math"))
      .filter(el => !el.querySelector("mjx-container")).map(el => shortText(el.textContent));
  const prose = article.cloneNode(true);
  prose.querySelectorAll("pre, code, kbd, samp, script, style, textarea, mjx-container, .highlight")
      .forEach(el => el.remove());
  const rawTex = [];
  const texPattern = /\$\$|\\[()\[\]]|\\(?:begin|end)\{|\\[A-Za-z]{2,}|\$[^$\s][^$]{0,160}?[\\^_{][^$]{0,160}?\$/g;
  for (const match of prose.textContent.matchAll(texPattern)) {
    const at = match.index;
    rawTex.push(shortText(prose.textContent.slice(Math.max(0, at - 30), at + 40)));
  }

  // Figures: every image of the article sits in a <figure> with a non-empty caption, and is shown at
  // (nearly) its natural width, so that the text drawn in it keeps its size.
  const uncaptioned = [], shrunk = [];
  for (const img of article.querySelectorAll("img")) {
    const name = (img.currentSrc || img.src).split("/").pop();
    const caption = img.closest("figure") && img.closest("figure").querySelector("figcaption");
    if (!caption || !caption.textContent.trim()) uncaptioned.push(name);
    const intended = parseFloat(img.getAttribute("width")) || img.naturalWidth;
    if (img.offsetParent !== null && img.clientWidth > 0 && img.clientWidth < 0.95 * intended) {
      shrunk.push(`${name} (${intended} px shown at ${img.clientWidth} px)`);
    }
  }

  // Tables: no cell whose content is wider than the cell (clipped, or spilling into its neighbour).
  const cramped = [];
  for (const cell of article.querySelectorAll("td, th")) {
    if (cell.offsetParent !== null && cell.scrollWidth > cell.clientWidth + 1) {
      cramped.push(`${shortText(cell.textContent, 40)} (${cell.scrollWidth} px in ${cell.clientWidth} px)`);
    }
  }
  // Claims tables (book/_ext/phone_tables.py marks them): every column on a wide screen, none behind a scroll.
  const wideClaims = [];
  for (const table of article.querySelectorAll("table.book-claims")) {
    const box = table.parentElement;
    if (table.offsetParent !== null && table.scrollWidth > box.clientWidth + 1) {
      const head = Array.from(table.querySelectorAll("thead th")).map(th => th.textContent.trim()).join(" | ");
      wideClaims.push(`${shortText(head, 60)} (${table.scrollWidth} px in ${box.clientWidth} px)`);
    }
  }

/*WIDE_FORMULAS*/
/*FIGURES*/

  // Printed outputs: a line wider than the output block is cut off at the column's edge (or hidden
  // behind a horizontal scroll bar): outputs must wrap.
  const cutOutputs = [];
  for (const block of article.querySelectorAll(".cell_output pre, div.output pre")) {
    if (block.closest(".cell_output > div.highlight-python")) continue;  // a code listing: scrolls, with its cue
    if (block.offsetParent !== null && block.scrollWidth > block.clientWidth + 1) {
      const line = Array.from(block.textContent.split("\n")).sort((a, b) => b.length - a.length)[0] || "";
      cutOutputs.push(`${shortText(line, 60)} (${block.scrollWidth} px in ${block.clientWidth} px)`);
    }
  }

  // Paths of the machine that built the book, anywhere in the page's text or links.
  const page = document.body.cloneNode(true);
  page.querySelectorAll("script, style, noscript").forEach(el => el.remove());
  const attributes = Array.from(document.querySelectorAll("[href], [src]"))
      .map(el => el.getAttribute("href") || el.getAttribute("src")).join(" ");
  const pathPattern = /(?:file:\/\/|(?<![\w.~-])\/(?:work|home|root|tmp|Users|opt|usr|var|private|mnt|srv)\/)[^\s"'<>)]*|\b[A-Z]:\\Users\\[^\s"'<>]*/g;
  const machinePaths = Array.from(new Set(((page.textContent + " " + attributes).match(pathPattern) || [])));
  closeDropdowns();

  return JSON.stringify({
    title: document.title,
    readyState: document.readyState,
    article: !!document.querySelector("main, article, [role=main]"),
    images: images.length,
    broken: broken,
    formulas: article.querySelectorAll("mjx-container").length,
    foldedDropdowns: foldedDropdowns.slice(0, 5), foldedCount: foldedDropdowns.length,
    unrendered: unrendered,
    rawTex: rawTex,
    uncaptioned: uncaptioned,
    shrunk: shrunk,
    cramped: cramped,
    wideClaims: wideClaims,
    machinePaths: machinePaths,
    cutOutputs: cutOutputs,
    wideFormulas: wideFormulas,
    figures: figures,
    columnWidth: article.clientWidth,
  });
})()
""".replace("/*OPEN_DROPDOWNS*/", OPEN_DROPDOWNS.replace("/*TICKS*/", "100")).replace(
    "/*WIDE_FORMULAS*/", WIDE_FORMULAS).replace("/*FIGURES*/", FIGURES)


# The page's height, at the width the browser has now, as a reader sees it once everything has rendered:
# at least 1.5 s after the load event, after the web fonts have loaded, and once the height has stopped
# changing (figures drawn by scripts, such as Bokeh's, and MathJax's output settle after the load
# event), sampled every 250 ms for up to 10 s.
HEIGHT_PROBE = r"""
(async () => {
  const height = () => Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0);
  const navigation = performance.getEntriesByType("navigation")[0];
  const loaded = navigation && navigation.loadEventEnd ? navigation.loadEventEnd : performance.now();
  while (performance.now() < loaded + 1500) await new Promise(resolve => setTimeout(resolve, 100));
  if (document.fonts) await document.fonts.ready;
  let last = -1, same = 0;
  for (let i = 0; i < 40 && same < 3; i++) {
    await new Promise(resolve => setTimeout(resolve, 250));
    const now = height();
    same = now === last ? same + 1 : 0;
    last = now;
  }
  return last;
})()
"""

# Run after the viewport is narrowed to 400 px: does the page scroll sideways, does anything of the
# article stick out of the screen without a box of its own that scrolls, and does every table that
# scrolls inside its box show a cue that it does? Does the column keep its width while the page is shorter than the
# window, as it is when a browser draws its first lines?
NARROW_PROBE = r"""
(async () => {
  await new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  await new Promise(resolve => setTimeout(resolve, 100));
  const width = document.documentElement.clientWidth;
  const shortText = (text, n = 50) => text.replace(/\s+/g, " ").trim().slice(0, n);
  const describe = el => `<${el.tagName.toLowerCase()}${el.className && typeof el.className === "string"
      ? " class=" + el.className.trim().split(/\s+/).slice(0, 2).join(".") : ""}> ${shortText(el.textContent)}`;
  const pageScroll = Math.max(document.documentElement.scrollWidth, document.body.scrollWidth);
  const scroller = el => {
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const overflow = getComputedStyle(a).overflowX;
      if (overflow === "auto" || overflow === "scroll") return a;
      if (overflow === "hidden" || overflow === "clip") return null;
    }
    return null;
  };
  const article = document.querySelector("article.bd-article") || document.querySelector("article")
      || document.querySelector("main, [role=main]") || document.body;
  const sticking = [];
  for (const el of article.querySelectorAll("*")) {
    if (el.closest("mjx-assistive-mml")) continue;  // MathJax's screen-reader copy, clipped on purpose
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 1) continue;
    const inside = scroller(el);
    if (inside && inside.getBoundingClientRect().right <= width + 1) continue;
    if (el.parentElement && sticking.includes(el.parentElement)) { sticking.push(el); continue; }
    sticking.push(el);
  }
  const topmost = sticking.filter(el => !sticking.includes(el.parentElement)).slice(0, 5)
      .map(el => `${describe(el)} (right edge at ${Math.round(el.getBoundingClientRect().right)} px)`);
  const noCue = [];
  for (const table of article.querySelectorAll("table")) {
    const box = scroller(table);
    if (!box || box.scrollWidth <= box.clientWidth + 1) continue;
    const style = getComputedStyle(box);
    const cue = [style.backgroundImage, style.maskImage, style.webkitMaskImage].some(v => v && v !== "none");
    if (!cue) noCue.push(shortText(table.textContent));
  }
  // Verdicts: every cell of a table's "verdict" column lies on the screen, not merely in a box that
  // scrolls (a reader must not scroll sideways to read one), in every tab of the page; in the claims
  // across every preset (columns "claim", "standing", then a verdict a preset) every cell.
  const verdictsOff = [];
  const measureVerdicts = () => {
    for (const table of article.querySelectorAll("table")) {
      const headers = Array.from(table.querySelectorAll("thead th")).map(th => th.textContent.trim());
      const standings = headers[0] === "claim" && headers[1] === "standing";
      const column = headers.findIndex(header => /^verdict/i.test(header));
      if (column < 0 && !standings) continue;
      for (const row of table.querySelectorAll("tbody tr")) {
        for (const cell of standings ? Array.from(row.cells) : [row.cells[column]]) {
        if (!cell) continue;
        const box = cell.getBoundingClientRect();
        if (box.width === 0) continue;  // in a tab not shown: measured when its tab is
        if (box.left < -1 || box.right > width + 1) {
          const text = `${shortText(cell.textContent)} (${Math.round(box.left)}–${Math.round(box.right)} px)`;
          if (!verdictsOff.includes(text)) verdictsOff.push(text);
        }
        }
      }
    }
  };
  // Tables: none wider than its box (a reader would swipe sideways to reach its last columns), in every tab and
  // every dropdown, opened for the measure.
  const wideTables = [];
  const measureTables = () => {
    for (const table of article.querySelectorAll("table")) {
      const box = table.getBoundingClientRect();
      if (box.width === 0) continue;  // in a tab not shown: measured when its tab is
      const column = scroller(table) || table.parentElement;
      if (box.width > column.clientWidth + 1) {
        const head = Array.from(table.querySelectorAll("thead th")).map(th => th.textContent.trim()).join(" | ");
        const text = `${shortText(head || table.textContent, 60)} (${Math.round(box.width)} px in ${column.clientWidth} px)`;
        if (!wideTables.includes(text)) wideTables.push(text);
      }
    }
  };
/*OPEN_DROPDOWNS*/
  await openDropdowns();
  const tabs = Array.from(article.querySelectorAll(".sd-tab-set > input[type=radio]"));
  const checked = tabs.filter(tab => tab.checked);
  measureVerdicts();
  measureTables();
  for (const tab of tabs) {
    tab.checked = true;
    await new Promise(resolve => requestAnimationFrame(resolve));
    measureVerdicts();
    measureTables();
  }
  checked.forEach(tab => { tab.checked = true; });
  // Figures, every dropdown open (a figure in one is shrunk with its box): each one shown is measured (FIGURES):
  // figure_problems says whether it has twice the pixels it is shown at and its smallest text reads at 9 pt
  // (mope.book.figure_style.SMALLEST_FONT_PT).
/*FIGURES*/
/*WIDE_FORMULAS*/
  closeDropdowns();
  // Every image of a figure is drawn for the column, never wider than the box it sits in (its <figure>) nor than
  // the screen: a figure that scrolls sideways, or sticks out, hides part of itself.
  const wideFigures = [];
  for (const img of article.querySelectorAll("figure img")) {
    const box = img.getBoundingClientRect();
    if (box.width === 0) continue;  // in a tab or a dropdown not shown
    const container = img.closest("figure");
    const name = (img.currentSrc || img.src).split("/").pop();
    if (box.width > container.clientWidth + 1 || box.right > width + 1) {
      wideFigures.push(`${name} (${Math.round(box.width)} px in a ${container.clientWidth} px column)`);
    }
  }
  // The page's width while it is no taller than the window, as it is when its first lines are drawn (its content
  // hidden for the measure): a scroll bar that appears only once the page has grown taller narrows the page, and
  // every line then rewraps and jumps. The body's laid-out width, not the root's clientWidth (which leaves out a
  // reserved gutter while nothing scrolls).
  const bodyWidth = () => Math.round(document.body.getBoundingClientRect().width * 10) / 10;
  const tallWidth = bodyWidth();
  const content = document.querySelector(".bd-container") || article;
  const shown = content.style.display;
  content.style.display = "none";
  const shortWidth = document.documentElement.scrollHeight <= window.innerHeight ? bodyWidth() : tallWidth;
  content.style.display = shown;
  return JSON.stringify({window: window.innerWidth, width: width, tallWidth: tallWidth, shortWidth: shortWidth,
                         pageScroll: pageScroll, sticking: topmost, noCue: noCue,
                         verdictsOff: verdictsOff.slice(0, 5), wideTables: wideTables, wideFigures: wideFigures,
                         figures: figures, wideFormulas: wideFormulas});
})()
""".replace("/*OPEN_DROPDOWNS*/", OPEN_DROPDOWNS.replace("/*TICKS*/", "0")).replace(
    "/*WIDE_FORMULAS*/", WIDE_FORMULAS).replace("/*FIGURES*/", FIGURES)


def narrow_problems(state: dict) -> list[str]:
    """What goes wrong on a 400 px screen, from the narrow probe's report."""
    at = f"at {state['window']} px"
    problems = []
    if state["pageScroll"] > state["width"] + 1:
        problems.append(f"the page scrolls sideways {at} ({state['pageScroll']} px wide)")
    problems += [f"sticks out of the screen {at}, in no box that scrolls: {what}" for what in state["sticking"]]
    problems += [f"table scrolls inside its box {at} with no visible cue: {text!r}" for text in state["noCue"]]
    problems += [f"verdict off the screen {at}: {text!r}" for text in state["verdictsOff"]]
    problems += [f"table wider than its box {at}, its last columns behind a sideways scroll: {text!r}"
                 for text in state["wideTables"]]
    problems += [f"figure wider than its column {at}: {name}" for name in state["wideFigures"]]
    problems += [f"formula wider than its column {at}, a part of it cut off: {text}"
                 for text in state["wideFormulas"]]
    if state["shortWidth"] != state["tallWidth"]:
        problems.append(f"the page narrows once it is taller than the window (its scroll bar appears) {at}: "
                        f"{state['shortWidth']:g} px wide before, {state['tallWidth']:g} px after; the text drawn "
                        "first rewraps and jumps")
    return problems


def reading_problems(state: dict, wide: int) -> list[str]:
    """What keeps a reader from reading a rendered page, from the page probe's report (taken at ``wide`` px)."""
    column = f"a {state['columnWidth']} px column"
    folded = state["foldedDropdowns"]
    more = state["foldedCount"] - len(folded)
    return ([f"dropdown opened, its body never shown: {text!r}" for text in folded]
            + ([f"{more} more dropdowns opened, their bodies never shown"] if more > 0 else [])
            + [f"maths not rendered by MathJax: {text!r}" for text in state["unrendered"]]
            + [f"raw TeX in the text: {text!r}" for text in state["rawTex"]]
            + [f"figure without a caption: {name}" for name in state["uncaptioned"]]
            + [f"figure shrunk to fit {column}, its text with it: {name}" for name in state["shrunk"]]
            + [f"table cell wider than its column: {cell}" for cell in state["cramped"]]
            + [f"claims table wider than the column at {wide} px: {table}" for table in state["wideClaims"]]
            + [f"formula wider than its column at {wide} px, a part of it cut off: {text}"
               for text in state["wideFormulas"]]
            + [f"path of the build machine on the page: {path}" for path in state["machinePaths"]]
            + [f"printed output cut off at the column's edge: {line}" for line in state["cutOutputs"]])
