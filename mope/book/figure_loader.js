// Draws the book's Bokeh figures as they near the screen (mope/book/bokeh_page.py writes one copy after each figure).
//
// A figure is a box (class mope-figure) followed by its Bokeh document as <script type="application/json"
// class="mope-figure-data">. Once the page has loaded and been drawn, and a box comes within half a screen of the
// window (an IntersectionObserver; at once in a browser without one), BokehJS is fetched, if the page has not got it
// yet, from the files named in this script's data-bokehjs (the book's own _static: no other host), with the figure's
// document where the book keeps it in a file of its own (the JSON element's data-src: book/_ext/bokehjs_files.py),
// and the figure is drawn. Every copy of this script shares one state (window.mopeFigures): BokehJS is fetched once,
// each figure drawn once.
(function () {
  const urls = JSON.parse((document.currentScript && document.currentScript.dataset.bokehjs) || "[]");
  const state = window.mopeFigures = window.mopeFigures || {urls: [], library: null, seen: new WeakSet(), observer: null};
  if (!state.urls.length) state.urls = urls;

  function load(url, ordered) {  // a script of the book's own, as a <script> element: file:// allows no fetch
    return new Promise((resolve, reject) => {
      const tag = document.createElement("script");
      tag.src = url;
      tag.async = !ordered;  // ordered: fetched side by side, run in the order given (BokehJS's core before its widgets)
      tag.onload = resolve;
      tag.onerror = () => reject(new Error(`could not load ${url}`));
      document.head.appendChild(tag);
    });
  }

  function library() {  // BokehJS: already on the page (inline, as in Colab), else its files in their order
    if (!state.library) {
      state.library = window.Bokeh && window.Bokeh.embed ? Promise.resolve()
        : Promise.all(state.urls.map(url => load(url, true)));
    }
    return state.library;
  }

  function documentOf(data) {  // the figure's document: inline, or a file of the book (data-src) that stores it
    if (!data.dataset.src) return Promise.resolve(JSON.parse(data.textContent));
    return load(data.dataset.src, false).then(() => window.mopeFigureData[data.dataset.key]);
  }

  function draw(box) {  // a figure that cannot be drawn says so in its box, where the reader looks for it
    const data = box.parentElement.nextElementSibling;
    Promise.all([library(), documentOf(data)])
      .then(([, figure]) => window.Bokeh.embed.embed_items(figure.docs_json, figure.render_items))
      .catch(error => {
        console.error(error);
        box.textContent = `This figure could not be drawn: ${error && error.message || error}`;
      });
  }

  function scan() {
    if (!state.observer && "IntersectionObserver" in window) {
      state.observer = new IntersectionObserver(entries => {
        for (const entry of entries) {
          if (!entry.isIntersecting) continue;
          state.observer.unobserve(entry.target);
          draw(entry.target);
        }
      }, {rootMargin: "50% 0px"});
    }
    for (const box of document.querySelectorAll(".mope-figure")) {
      if (state.seen.has(box)) continue;
      state.seen.add(box);
      if (state.observer) state.observer.observe(box);
      else draw(box);
    }
  }

  // Once the page has loaded and a frame of it is on the screen: the reader's text is drawn before BokehJS
  // is fetched and run, however slow the machine (on a busy one its run began before the text's first paint).
  const afterPaint = () => requestAnimationFrame(() => setTimeout(scan, 0));
  if (document.readyState === "complete") afterPaint();
  else window.addEventListener("load", afterPaint);
})();
