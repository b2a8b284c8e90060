// The formulas of the book typeset in Node by the book's own copy of MathJax 3 (book/_ext/static_maths.py runs it
// once a build): reads {"mathjax": its folder, "fontURL": where the stylesheet finds its fonts, "formulas":
// [[TeX, display], ...]} as JSON on stdin, writes {"html": [one <mjx-container> a formula], "css": the stylesheet of
// every formula} as JSON on stdout. The output is MathJax's CommonHTML with the MathML a screen reader reads, as the
// pages drew it in the browser before (input/tex, output/chtml, a11y/assistive-mml).
"use strict";

function readStdin() {
  return new Promise((resolve, reject) => {
    const chunks = [];
    process.stdin.on("data", chunk => chunks.push(chunk));
    process.stdin.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    process.stdin.on("error", reject);
  });
}

async function main() {
  const request = JSON.parse(await readStdin());
  const MathJax = await require(request.mathjax + "/node-main.js").init({
    loader: {paths: {mathjax: request.mathjax}, load: ["adaptors/liteDOM", "input/tex", "output/chtml", "a11y/assistive-mml"]},
    chtml: {fontURL: request.fontURL},
    startup: {typeset: false},
  });
  const adaptor = MathJax.startup.adaptor;
  const html = [];
  for (const [tex, display] of request.formulas) {
    // the promise form: a macro of a TeX package MathJax loads on demand (autoload) is loaded, then typeset
    html.push(adaptor.outerHTML(await MathJax.tex2chtmlPromise(tex, {display: display})));
  }
  const css = adaptor.textContent(MathJax.chtmlStylesheet());
  process.stdout.write(JSON.stringify({html: html, css: css}));
}

main().catch(error => {
  // the stack, then last the one line static_maths.py reports: what failed (the first line of the error's message)
  const what = String(error && error.message || error).split("\n")[0];
  process.stderr.write(`${error && error.stack || error}\ntypesetting the book's formulas failed: ${what}\n`);
  process.exit(1);
});
