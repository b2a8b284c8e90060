// The book's own script (Jupyter Book adds every .js file of _static/ to every page).
// A box that scrolls sideways (a wide table, an output, a formula, a code listing) gets the class
// "book-scrolls-more" while more of it lies to the right: _static/book.css fades its right edge.
(function () {
  const SELECTOR = ".pst-scrollable-table-container, div.cell_output, div.output.text_html, div.math, div.highlight > pre";
  function mark(box) {
    const more = box.scrollWidth > box.clientWidth + 1 && box.scrollLeft + box.clientWidth < box.scrollWidth - 1;
    box.classList.toggle("book-scrolls-more", more);
  }
  function markAll() {
    document.querySelectorAll(SELECTOR).forEach(mark);
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(SELECTOR).forEach(function (box) {
      box.addEventListener("scroll", function () { mark(box); }, {passive: true});
    });
    markAll();
  });
  window.addEventListener("load", markAll);
  window.addEventListener("resize", markAll);
})();

// A link to a member of the API page opens the dropdown that holds it (a closed <details> hides its target).
(function () {
  function openTarget() {
    const id = decodeURIComponent(window.location.hash.slice(1));
    const target = id && document.getElementById(id);
    for (let e = target; e; e = e.parentElement) {
      if (e.tagName === "DETAILS") e.open = true;
    }
    if (target) target.scrollIntoView();
  }
  window.addEventListener("load", openTarget);
  window.addEventListener("hashchange", openTarget);
})();

// A box that scrolls (a formula MathJax drew wider than its line, a figure wider than a phone) can be reached with
// the keyboard: it joins the tab order, as axe-core's scrollable-region-focusable asks, once MathJax has drawn.
(function () {
  function reachable() {
    document.querySelectorAll("article *").forEach(function (box) {
      const overflow = getComputedStyle(box).overflowX;
      if ((overflow === "auto" || overflow === "scroll") && box.scrollWidth > box.clientWidth + 1
          && !box.hasAttribute("tabindex") && !box.querySelector("a, button, input, select, textarea, [tabindex]")) {
        box.tabIndex = 0;
      }
    });
  }
  window.addEventListener("load", function () {
    const typeset = window.MathJax && MathJax.startup && MathJax.startup.promise;
    (typeset || Promise.resolve()).then(reachable);
  });
  window.addEventListener("resize", reachable);
})();

// A page with formulas keeps its article hidden until MathJax has typeset them: a formula drawn in
// place of its TeX takes another width and height, and the text around it would jump (a layout shift of up to 0.15).
(function () {
  if (!document.querySelector("script[src*='mathjax/']")) return;
  const root = document.documentElement;
  function show() { root.classList.remove("book-typesetting"); }
  root.classList.add("book-typesetting");
  window.addEventListener("load", function () {
    const typeset = window.MathJax && MathJax.startup && MathJax.startup.promise;
    if (!typeset) { show(); return; }  // MathJax did not load: the formulas stay TeX, the page is shown at once
    typeset.then(show, show);
    // A guard against a typesetting that never ends, counted from the load event: a timer from the page's start
    // (4 s, before) fired mid-typesetting on a busy machine and let the text jump (layout shift 0.118, chapter 5).
    setTimeout(show, 10000);
  });
})();
