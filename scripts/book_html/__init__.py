"""The parts of ``scripts/check_book_html.py``, the check of a built book in a headless browser: the static
pass over the HTML files (:mod:`book_html.static_pass`), the DevTools client (:mod:`book_html.devtools`),
the probes run inside each page and what their reports mean (:mod:`book_html.probes`), and the browser
pass that serves the build and loads every page in Chromium (:mod:`book_html.browser_pass`). The command,
its limits on the pages' heights and its report stay in the script."""
