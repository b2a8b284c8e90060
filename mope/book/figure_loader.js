// Draws the book's Bokeh figures as they near the screen, or on a phone when the reader asks (mope/book/bokeh_page.py
// writes one copy after each figure).
//
// A figure is a box (class mope-figure) followed by its Bokeh document as <script type="application/json"
// class="mope-figure-data">. Once the page has loaded and been drawn, and a box comes within half a screen of the
// window (an IntersectionObserver; at once in a browser without one), BokehJS is fetched, if the page has not got it
// yet, from the files named in this script's data-bokehjs (the book's own _static: no other host), with the figure's
// document where the book keeps it in a file of its own (the JSON element's data-src: book/_ext/bokehjs_files.py),
// and the figure is drawn. Every copy of this script shares one state (window.mopeFigures): BokehJS is fetched once,
// each figure drawn once.
//
// On a phone or a narrow window (ON_REQUEST) fetching and running BokehJS froze the page for seconds before a reader
// could scroll, so there each box shows, as soon as the page's HTML is read, the prompt its <template
// class="mope-figure-request"> holds (what the figure is, and a button naming what a tap downloads), and the figure
// is drawn only when its button is pressed. Where BokehJS came inline with the page (Colab), nothing is downloaded and
// every figure is drawn as on a desktop.
(function () {
  // A touch screen (a phone or a tablet: its primary pointer is a finger), or a window narrower than a phone held
  // upright can be (600 px: where Android's "compact" window class ends), whatever its pointer. A desktop's window,
  // wider and with a mouse, draws the figures as they near the screen.
  const ON_REQUEST = "(pointer: coarse), (max-width: 599.98px)";
  const urls = JSON.parse((document.currentScript && document.currentScript.dataset.bokehjs) || "[]");
  const state = window.mopeFigures = window.mopeFigures || {urls: [], library: null, seen: new WeakSet(), observer: null,
    inline: Boolean(window.Bokeh && window.Bokeh.embed)};
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
    return Promise.all([library(), documentOf(data)])
      .then(([, figure]) => window.Bokeh.embed.embed_items(figure.docs_json, figure.render_items))
      .catch(error => {
        console.error(error);
        box.textContent = `This figure could not be drawn: ${error && error.message || error}`;
      });
  }

  function onRequest() {
    return !state.inline && Boolean(window.matchMedia) && window.matchMedia(ON_REQUEST).matches;
  }

  function offer(box) {  // the box's prompt in its place; its button draws the figure (a <button>: a key presses it too)
    const template = box.querySelector("template.mope-figure-request");
    if (!template) return draw(box);
    const prompt = template.content.firstElementChild.cloneNode(true);
    const button = prompt.querySelector("button"), status = prompt.querySelector("[role=status]");
    if (window.Bokeh && window.Bokeh.embed) button.textContent = button.dataset.loaded;  // another figure brought it
    button.addEventListener("click", () => {
      button.setAttribute("aria-disabled", "true");  // not disabled: the focus stays where the reader left it
      status.textContent = status.dataset.busy;
      draw(box).then(() => {
        const focused = prompt.contains(document.activeElement);
        prompt.remove();
        if (focused) {  // the keyboard goes on from the figure, not from the top of the page
          box.tabIndex = -1;
          box.focus({preventScroll: true});
        }
        if (window.Bokeh && window.Bokeh.embed) {  // the other prompts' buttons now name only their figure's data
          for (const other of document.querySelectorAll(".mope-figure-prompt button:not([aria-disabled])")) {
            other.textContent = other.dataset.loaded;
          }
        }
      });
    }, {once: true});
    box.prepend(prompt);
  }

  function scan() {
    if (!state.observer && "IntersectionObserver" in window) {
      state.observer = new IntersectionObserver(entries => {
        for (const entry of entries) {
          if (!entry.isIntersecting) continue;
          state.observer.unobserve(entry.target);
          if (onRequest()) offer(entry.target);  // the window became narrow before the figure neared the screen
          else draw(entry.target);
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

  function offerAll() {  // on request: every box its prompt at once (it costs nothing), nothing fetched
    for (const box of document.querySelectorAll(".mope-figure")) {
      if (state.seen.has(box)) continue;
      state.seen.add(box);
      offer(box);
    }
  }

  if (onRequest()) {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", offerAll);
    else offerAll();
    return;
  }
  // Once the page has loaded and a frame of it is on the screen: the reader's text is drawn before BokehJS
  // is fetched and run, however slow the machine (on a busy one its run began before the text's first paint).
  const afterPaint = () => requestAnimationFrame(() => setTimeout(scan, 0));
  if (document.readyState === "complete") afterPaint();
  else window.addEventListener("load", afterPaint);
})();
