// The book's own script (Jupyter Book adds every .js file of _static/ to every page).
// A box that scrolls sideways (a wide table, an output, a formula, a code listing) gets the class
// "book-scrolls-more" while more of it lies to the right: _static/book.css fades its right edge. Only the boxes the
// book's stylesheet lets scroll are looked at (not every element of the page: the API page has thousands), once when
// the page has loaded and once a resize has settled.
const BOOK_SCROLL_BOXES = ".pst-scrollable-table-container, div.cell_output, div.output.text_html, div.math, " +
    "div.highlight > pre, mjx-container";
// A box inside a closed dropdown is not looked at until the dropdown opens: reading its size lays out the dropdown's
// hidden body (Chromium keeps it unlaid while closed), and chapter 1's closed derivations hold thousands of elements
// of typeset formulas, the most of its main-thread work after its load (Lighthouse's total blocking time).
function bookShown(box) {
  return !box.closest("details:not([open])");
}
// Runs look(root) on the boxes of a dropdown once it opens (after the next script putting its body in place).
function bookOnOpen(look) {
  // the toggle event does not bubble: heard on its way down
  document.addEventListener("toggle", function (event) {
    const details = event.target;
    if (details.tagName === "DETAILS" && details.open) requestAnimationFrame(function () { look(details); });
  }, true);
}
function bookDebounced(run, wait) {
  let timer = null;
  return function () {
    clearTimeout(timer);
    timer = setTimeout(run, wait);
  };
}
(function () {
  const SELECTOR = ".pst-scrollable-table-container, div.cell_output, div.output.text_html, div.math, div.highlight > pre";
  function mark(box) {
    const more = box.scrollWidth > box.clientWidth + 1 && box.scrollLeft + box.clientWidth < box.scrollWidth - 1;
    box.classList.toggle("book-scrolls-more", more);
  }
  function markAll(root) {
    (root || document).querySelectorAll(SELECTOR).forEach(function (box) {
      if (bookShown(box)) mark(box);
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(SELECTOR).forEach(function (box) {
      box.addEventListener("scroll", function () { mark(box); }, {passive: true});
    });
  });
  window.addEventListener("load", function () { markAll(); });
  window.addEventListener("resize", bookDebounced(markAll, 200));
  bookOnOpen(markAll);
})();

// A link to a member of the API page opens the dropdown that holds it (a closed <details> hides its target). The
// build keeps each dropdown's body of the API page in a <template> (book/_ext/api_reference.py: 43,812 elements in the
// page otherwise): it is put in place when the dropdown opens, or when a link names an element inside it.
(function () {
  function unfold(details) {
    const folded = details.querySelector(":scope > template.book-folded");
    if (!folded) return;
    const body = folded.content;
    folded.replaceWith(body);
  }
  function folderOf(id) {
    return Array.from(document.querySelectorAll("template.book-folded"))
        .find(folded => folded.content.getElementById(id));
  }
  function openTarget() {
    const id = decodeURIComponent(window.location.hash.slice(1));
    if (id && !document.getElementById(id)) {
      const folded = folderOf(id);
      if (folded) unfold(folded.parentElement);
    }
    const target = id && document.getElementById(id);
    for (let e = target; e; e = e.parentElement) {
      if (e.tagName === "DETAILS") e.open = true;
    }
    if (target) target.scrollIntoView();
  }
  // the toggle event does not bubble: heard on its way down
  document.addEventListener("toggle", function (event) {
    if (event.target.tagName === "DETAILS" && event.target.open) unfold(event.target);
  }, true);
  window.addEventListener("load", openTarget);
  window.addEventListener("hashchange", openTarget);
})();

// The theme's tab stops (pydata-sphinx-theme: a code listing or output box that scrolls is one, tabindex 0, another
// box -1), which its script sets at load on every box but those of a closed dropdown (book/_ext/theme_tab_stops.py):
// the boxes of a dropdown get them when it opens, measured then, before the book's own below.
(function () {
  const THEME_SCROLL_BOXES = "pre, .nboutput > .output_area, .cell_output > .output, .jp-RenderedHTMLCommon, " +
      ".pst-scrollable-table-container";
  bookOnOpen(function (details) {
    details.querySelectorAll(THEME_SCROLL_BOXES).forEach(function (box) {
      if (!bookShown(box)) return;
      box.tabIndex = box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight ? 0 : -1;
    });
  });
})();

// A box that scrolls (a formula wider than its line, a wide table or output) can be reached with the keyboard: it
// joins the tab order, as axe-core's scrollable-region-focusable asks of a box with more than 13 px to scroll (its
// threshold; a formula whose glyphs overhang their box by a pixel is not a tab stop). Only the known scroll boxes
// are looked at, when the page is idle after its load and once a resize has settled.
(function () {
  const AXE_SCROLL_THRESHOLD = 13;
  function reachable(root) {
    (root || document).querySelectorAll("article :is(" + BOOK_SCROLL_BOXES + ")").forEach(function (box) {
      if (box.hasAttribute("tabindex") || !bookShown(box) || box.scrollWidth <= box.clientWidth + AXE_SCROLL_THRESHOLD) return;
      const overflow = getComputedStyle(box).overflowX;
      if ((overflow === "auto" || overflow === "scroll") && !box.querySelector("a, button, input, select, textarea, [tabindex]")) {
        box.tabIndex = 0;
      }
    });
  }
  const whenIdle = window.requestIdleCallback || function (run) { setTimeout(run, 1); };
  window.addEventListener("load", function () {
    const typeset = window.MathJax && MathJax.startup && MathJax.startup.promise;  // a build without Node: typeset here
    (typeset || Promise.resolve()).then(function () { whenIdle(function () { reachable(); }); });
  });
  window.addEventListener("resize", bookDebounced(reachable, 200));
  bookOnOpen(reachable);
})();
