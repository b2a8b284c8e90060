// Lighthouse on many pages against one browser: scripts/check_web.py runs it on every page of the built book.
//
//     CHROME_PATH=/usr/bin/chromium node lighthouse-pages.mjs BASE_URL PAGE...
//
// Chromium is launched once (chrome-launcher, which Lighthouse's own command line uses) and Lighthouse's Node API
// audits each page, mobile then desktop (the command line's --preset=desktop), each in a new tab with the cache and
// the origin's storage cleared, as the command line does: launching Chromium and loading Lighthouse once instead of
// 2 × pages times. A page Lighthouse cannot audit is reported as an error and the others go on.
//
// Each run prints one line of JSON on stdout: the page, the form factor, the four scores (0 to 1), the layout
// shift, the largest contentful paint (ms), the bytes loaded (as sent), the binary audits that failed in each
// category, the elements that shifted most (Lighthouse's layout-shifts audit), the machine's benchmark index
// (Lighthouse's measure of how fast this machine ran, which its simulated timings depend on), the element of the
// largest paint and the tries taken.
//
// An audit that fails with a timeout of the DevTools protocol (a page of tens of thousands of elements on a busy
// machine: "Waiting for DevTools protocol response has exceeded the allotted time") is run once more before it is
// reported as an error.
//
// Audits of no weight in any score are skipped (screenshots, the back/forward cache test, which navigates the
// page away and back): they cost time and gate nothing.
import * as ChromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import desktopConfig from "lighthouse/core/config/desktop-config.js";

const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"];
const FLAGS = {
  output: "json",
  logLevel: "error",
  onlyCategories: CATEGORIES,
  disableFullPageScreenshot: true,
  skipAudits: ["screenshot-thumbnails", "final-screenshot", "bf-cache"],
  maxWaitForLoad: 90_000,  // a loaded machine: the command line's 45 s doubled
};
const CHROME_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"];
const FORMS = {mobile: undefined, desktop: desktopConfig};

// The summary of one Lighthouse result (LH.Result).
function summary(page, form, lhr) {
  const audits = lhr.audits;
  const failing = {};
  for (const [key, category] of Object.entries(lhr.categories)) {
    failing[key] = category.auditRefs.map(ref => audits[ref.id])
        .filter(a => a && a.scoreDisplayMode === "binary" && a.score !== null && a.score < 1).map(a => a.id);
  }
  const shifts = (audits["layout-shifts"]?.details?.items || []).slice(0, 5)
      .map(item => ({score: item.score, node: item.node?.selector || "", snippet: item.node?.snippet || ""}));
  return {
    page, form,
    scores: Object.fromEntries(CATEGORIES.map(key => [key, lhr.categories[key]?.score ?? null])),
    cls: audits["cumulative-layout-shift"]?.numericValue ?? null,
    lcp: audits["largest-contentful-paint"]?.numericValue ?? null,
    tbt: audits["total-blocking-time"]?.numericValue ?? null,
    bytes: audits["total-byte-weight"]?.numericValue ?? null,
    failing, shifts,
    benchmark: lhr.environment?.benchmarkIndex ?? null,
    lcpElement: largestPaintElement(audits["largest-contentful-paint-element"]),
    errors: lhr.runtimeError ? [lhr.runtimeError.message] : [],
  };
}

// The element of the largest contentful paint, as Lighthouse names it (its selector, or its markup cut short).
function largestPaintElement(audit) {
  const tables = audit?.details?.items || [];
  for (const table of tables) {
    for (const item of table.items || []) {
      if (item.node) return item.node.selector || (item.node.snippet || "").slice(0, 80);
    }
  }
  return null;
}

const TIMED_OUT = /exceeded the allotted time|timed? ?out/i;

// One page in one form factor, a try more where the first timed out.
async function audit(base, page, form, config, port) {
  let line;
  for (let tries = 1; tries <= 2; tries++) {
    try {
      const result = await lighthouse(base + page, {...FLAGS, port}, config);
      line = summary(page, form, result.lhr);
    } catch (error) {
      line = {page, form, errors: [String(error && error.message || error)]};
    }
    line.tries = tries;
    if (!line.errors.some(message => TIMED_OUT.test(message))) break;
  }
  return line;
}

async function main([base, ...pages]) {
  if (!base || !pages.length) {
    console.error("usage: node lighthouse-pages.mjs BASE_URL PAGE...");
    process.exit(2);
  }
  const chrome = await ChromeLauncher.launch({chromeFlags: CHROME_FLAGS, logLevel: "silent"});
  process.on("SIGTERM", async () => {  // told to stop (check_web.py heard nothing for too long): no Chromium left
    await chrome.kill();
    process.exit(1);
  });
  let failed = 0;
  try {
    for (const page of pages) {
      for (const [form, config] of Object.entries(FORMS)) {
        const started = Date.now();
        const line = await audit(base, page, form, config, chrome.port);
        if (line.errors.length) failed++;
        line.seconds = (Date.now() - started) / 1000;
        process.stdout.write(JSON.stringify(line) + "\n");
      }
    }
  } finally {
    await chrome.kill();
  }
  process.exit(failed ? 1 : 0);
}

main(process.argv.slice(2));
