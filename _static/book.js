// The book's own script (Jupyter Book adds every .js file of _static/ to every page).
// A box that scrolls sideways (a wide table, an output, a formula) gets the class
// "book-scrolls-more" while more of it lies to the right: _static/book.css fades its right edge.
(function () {
  const SELECTOR = ".pst-scrollable-table-container, div.cell_output, div.output.text_html, div.math";
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
