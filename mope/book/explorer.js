// The JavaScript of the book's interactive figures (chapter 6), read by mope/book/explorer.py.
//
// Each "// @section NAME" line starts the body of one Bokeh CustomJS callback (or tick formatter);
// explorer.py joins sections into callbacks and passes every value they read through the callbacks'
// `args`: nothing is written into this file by string formatting. The names a section reads from its
// args are listed on its "// args:" line (tests/test_explorer.py checks them against explorer.py).

// @section morlet
// args: constants
//
// The one MoPE forward pass of the explorer: MorletPositions (mope/model/positional/morlet.py) for
// one pair, in float32 like torch (Math.fround after every operation). Raw parameters from the log10
// sliders, then the released code's clamps and projection:
//
//   omega <- min(omega_raw, 0.95 pi),  sigma <- max(sigma_raw, 1e-3),
//   omega <- 5 / sigma  if omega * sigma < 5  (mode "published"; not with the bound off, mode "none"),
//
// then the paper's MoPE with the released code's centre b0 (0 as published) and eps = 1e-8:
//
//   G(b) = exp(-(b - b0)^2 / (2 sigma^2 + eps)),
//   MoPE(b, 2i)   = cos(omega b) G(b),
//   MoPE(b, 2i+1) = sin(omega b) G(b),      b = 0..T-1.
//
// scripts/check_explorer.py compares what the page draws with MorletPositions to 1e-6.
const f = Math.fround;
const BOUND = constants.bound, OMEGA_MAX = f(constants.omega_max), SIGMA_MIN = f(constants.sigma_min);
const EPS = f(constants.envelope_eps);
function effective(log10_omega, log10_sigma, mode) {
  const omega_raw = f(Math.exp(f(log10_omega * Math.LN10)));
  const sigma_raw = f(Math.exp(f(log10_sigma * Math.LN10)));
  const clamped = Math.min(omega_raw, OMEGA_MAX);
  const sigma = Math.max(sigma_raw, SIGMA_MIN);
  const product = f(clamped * sigma);
  const outside = product < BOUND;
  const omega = outside && mode === "published" ? f(BOUND / sigma) : clamped;
  return {omega_raw, sigma_raw, clamped, omega, sigma, product, outside};
}
function channels(omega, sigma, centre, length) {
  const denominator = f(f(2 * f(sigma * sigma)) + EPS);
  const b0 = f(centre);
  const out = {b: [], cos: [], sin: [], envelope: []};
  for (let b = 0; b < length; b++) {
    const offset = f(b - b0);
    const envelope = f(Math.exp(f(-f(offset * offset) / denominator)));
    const phase = f(omega * b);
    out.b.push(b);
    out.envelope.push(envelope);
    out.cos.push(f(f(Math.cos(phase)) * envelope));
    out.sin.push(f(f(Math.sin(phase)) * envelope));
  }
  return out;
}

// @section redraw
// args: constants, omega_slider, sigma_slider, position, centre, admissibility, modes, pair_source, marker_source, kernel_source, rope_source, state_source, bound, status, dead_left, dead_right, colours
//
// Redraw the four views from the sliders (runs after the morlet section, in the same callback).
const mode = modes[admissibility.active];
const p = effective(omega_slider.value, sigma_slider.value, mode);
const T = constants.context, b = position.value, b0 = centre.value;
const pair = channels(p.omega, p.sigma, b0, T);
pair.minus_envelope = pair.envelope.map(g => -g);
pair_source.data = pair;
marker_source.data = {b: [b], cos: [pair.cos[b]], sin: [pair.sin[b]]};
const lags = [], correlation = [];
for (let tau = -(T - 1); tau <= T - 1; tau++) {
  const other = b + tau;
  lags.push(tau);
  correlation.push(other >= 0 && other < T ? pair.cos[b] * pair.cos[other] + pair.sin[b] * pair.sin[other] : NaN);
}
kernel_source.data = {tau: lags, correlation: correlation};
const fine = [], rope = [], envelope = [], minus = [];
for (let i = -8 * (T - 1); i <= 8 * (T - 1); i++) {
  const tau = i / 8, g = Math.exp(-tau * tau / (4 * p.sigma * p.sigma));
  fine.push(tau); rope.push(Math.cos(p.omega * tau)); envelope.push(g); minus.push(-g);
}
rope_source.data = {tau: fine, rope: rope, envelope: envelope, minus_envelope: minus};
const side = p.outside ? "outside" : "inside";
state_source.data = {omega_raw: [p.omega_raw], sigma_raw: [p.sigma_raw], omega: [p.omega], sigma: [p.sigma],
                     colour: [colours[side]]};
const reach = p.sigma * Math.sqrt(-2 * Math.log(constants.dead_envelope));
dead_left.right = Math.max(b0 - reach, 0);
dead_right.left = Math.min(b0 + reach, T - 1);
const what = p.outside ? (mode === "published" ? "projected: ω ← 5/σ" : "bound off: not projected") : "not projected";
bound.text = `<b>${side}</b> ωσ ≥ 5`;
bound.styles = {...bound.styles, "background-color": colours[side]};
const notes = [];
if (p.clamped < p.omega_raw) notes.push("ω̃ clamped to 0.95π");
if (p.sigma > p.sigma_raw) notes.push("σ̃ clamped to 10⁻³");
if (p.omega > Math.PI) {  // folded about the Nyquist frequency, as mope.evidence.kernels.alias_frequency does
  const folded = p.omega % (2 * Math.PI), alias = folded > Math.PI ? 2 * Math.PI - folded : folded;
  notes.push(`ω > π: at integer b the pair equals that of ω = ${alias.toPrecision(4)}` +
             (folded > Math.PI ? " with its sine channel negated" : ""));
}
status.text = `slider: ω̃ = ${p.omega_raw.toPrecision(4)}, σ̃ = ${p.sigma_raw.toPrecision(4)}, ` +
  `ωσ = ${p.product.toPrecision(6)} after the clamps (${what})<br>` +
  `drawn: ω = ${p.omega.toPrecision(4)}, σ = ${p.sigma.toPrecision(4)}; period 2π/ω = ${(2 * Math.PI / p.omega).toPrecision(3)} tokens; ` +
  `G(b) < 10⁻³ beyond |b − b₀| = ${reach.toPrecision(3)} tokens` + (notes.length ? "<br>" + notes.join("; ") : "");

// @section menu
// args: menu
//
// The jump menu's choice: the row of the points to jump to (the jump section follows).
const index = Number(menu.value);

// @section tap
// args: points
//
// A point tapped in the (sigma, omega) plane: its row (the jump section follows).
if (points.selected.indices.length === 0) return;
const index = points.selected.indices[0];
points.selected.indices = [];

// @section jump
// args: points, omega_slider, sigma_slider, centre, admissibility
//
// Set the sliders to row `index` of the points (each change redraws through the redraw callback); a value
// beyond a slider's span sets it to the span's end.
const d = points.data;
omega_slider.value = Math.min(Math.max(Math.log10(d.omega[index]), omega_slider.start), omega_slider.end);
sigma_slider.value = Math.min(Math.max(Math.log10(d.sigma[index]), sigma_slider.start), sigma_slider.end);
centre.value = Math.min(Math.max(d.centre[index], centre.start), centre.end);
admissibility.active = d.admissibility[index];  // the bound's index in the radio buttons

// @section log_tick
// args:
//
// A log10 slider's value shown as the raw value (a CustomJSTickFormatter: Bokeh itself passes `tick`).
return (10 ** tick).toPrecision(4);

// @section loss
// args: preset, variants, seeds, curves, variant_names, seed_values, runs, train_shown, val_shown, x_range, y_range
//
// The loss curves of the chosen preset, models, seeds and curves; the view fitted to what is shown.
const name = preset.value;
const chosen = new Set(variants.active.map(i => variant_names[i]));
const seeds_on = new Set(seeds.active.map(i => seed_values[i]));
const counts = {};
const d = runs.data;
const train = {xs: [], ys: [], variant: [], seed: [], colour: []};
const val = {step: [], loss: [], variant: [], seed: [], colour: []};
for (let i = 0; i < d.preset.length; i++) {
  if (d.preset[i] !== name) continue;
  counts[d.variant[i]] = (counts[d.variant[i]] || 0) + 1;
  if (!chosen.has(d.variant[i]) || !seeds_on.has(d.seed[i])) continue;
  if (curves.active.includes(0)) {
    train.xs.push(d.train_step[i]); train.ys.push(d.train_loss[i]);
    train.variant.push(d.variant[i]); train.seed.push(d.seed[i]); train.colour.push(d.colour[i]);
  }
  if (curves.active.includes(1)) {
    for (let j = 0; j < d.val_step[i].length; j++) {
      val.step.push(d.val_step[i][j]); val.loss.push(d.val_loss[i][j]);
      val.variant.push(d.variant[i]); val.seed.push(d.seed[i]); val.colour.push(d.colour[i]);
    }
  }
}
train_shown.data = train;
val_shown.data = val;
let first = Infinity, last = -Infinity, low = Infinity, high = -Infinity;
for (const xs of train.xs.concat([val.step])) for (const x of xs) { first = Math.min(first, x); last = Math.max(last, x); }
for (const ys of train.ys.concat([val.loss])) for (const y of ys) { low = Math.min(low, y); high = Math.max(high, y); }
if (first <= last) {  // something is shown: fit the view to it
  const pad = 0.05 * (high - low || 1);
  Object.assign(x_range, {start: 10 ** Math.floor(Math.log10(first)), end: last * 1.3});
  Object.assign(y_range, {start: low - pad, end: high + pad});
}
variants.labels = variant_names.map(v => `${v} (${counts[v] || 0})`);

// @section sliders
// args: sliders, steps, units
//
// What a keyboard and a screen reader get of the sliders (noUiSlider's handle inside each Bokeh slider): the
// handle is named by the slider's title; its aria-valuetext is the value as the title shows it (a log slider's
// raw value, not its log10); an arrow key moves it by its entry of `steps` (a log slider by a visible 0.02
// decade, 4.7%, not its 0.001-decade drag resolution), Page Up/Down by ten of them, Home/End to its ends.
const KEYS = {ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1, PageUp: 10, PageDown: -10};
function shown(slider, value) {
  return slider.name in units ? `${(10 ** value).toPrecision(4)} ${units[slider.name]}` : `${value}`;
}
function attach(slider, attempt) {
  let handle = null;
  for (const root of Bokeh.index) {
    const view = root.owner.find_one(slider);
    handle = view && view._noUiSlider ? view.shadow_el.querySelector(".noUi-handle") : null;
    if (handle) {
      const describe = () => handle.setAttribute("aria-valuetext", shown(slider, slider.value));
      handle.setAttribute("aria-label", slider.title);
      view._noUiSlider.on("update", describe);  // after noUiSlider's own aria-valuetext: ours stands
      describe();
      handle.addEventListener("keydown", event => {
        const step = steps[slider.name] * (KEYS[event.key] || 0);
        const end = event.key === "Home" ? slider.start : event.key === "End" ? slider.end : null;
        if (!step && end === null) return;
        event.preventDefault();
        event.stopImmediatePropagation();  // noUiSlider's own listener on the handle moves by one 0.001 step
        slider.value = end !== null ? end : Math.min(Math.max(slider.value + step, slider.start), slider.end);
      }, true);
      return;
    }
  }
  if (attempt < 100) setTimeout(() => attach(slider, attempt + 1), 50);  // drawn after the document is ready
}
for (const slider of sliders) attach(slider, 0);

// @section fit
// args: plots, legends, widths, titles, narrow_titles, heights, extras
//
// Each plot as its column lets it be (issue 73: a phone's column is 368 px), the lists read in parallel: where the
// plot's frame is narrower than its entry of `widths` (what its legend's one row of items takes), its legend above
// the frame (or null) goes one item a line, its title takes its narrow form (broken over lines; null: kept) and it
// grows by its entry of `extras` px, so that its frame keeps its height; where it is wider, all as built (`titles`,
// `heights`). Run when the document is drawn and whenever a plot's frame changes width.
for (let i = 0; i < plots.length; i++) {
  const plot = plots[i];
  if (!plot.inner_width) continue;  // not laid out yet: the change of inner_width calls again
  const narrow = plot.inner_width < widths[i];
  const ncols = narrow ? 1 : "auto";
  if (legends[i] !== null && legends[i].ncols !== ncols) legends[i].ncols = ncols;
  const title = narrow && narrow_titles[i] !== null ? narrow_titles[i] : titles[i];
  if (plot.title.text !== title) plot.title.text = title;
  const height = heights[i] + (narrow ? extras[i] : 0);
  if (plot.height !== height) plot.height = height;
}
