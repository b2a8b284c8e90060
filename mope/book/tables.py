r"""The tables of the reproduction chapters (Table 2, learned parameters, stress tests) and of the
variants page, as MyST Markdown for reading.

This module owns the layout of every results table: numbers to 0.001 nats (the resolution below which
no difference is read), a dash where there is nothing ("—": not run, or not reported by the paper),
presets side by side (the chapter's main preset first), and no provenance (that is the reproducibility
page, :mod:`mope.book.run_records`). The numbers come from :mod:`mope.evidence.estimates` and :mod:`mope.evidence.learned_parameters`, the
paper's from :mod:`mope.evidence.paper`. A cell that shows a claim's verdict shows the one :mod:`mope.evidence.claims`
gives that claim (:func:`~mope.book.claims_tables.verdict_markdown`); no table judges a claim itself.

A chapter displays a table with ``display(Markdown(...))`` in a notebook whose outputs are rendered as
MyST (``mystnb: render_markdown_format: myst``), so that links and line breaks in cells work.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from statistics import NormalDist

import numpy as np

from mope.evidence import claims, devices, learned_parameters, paper
from mope.book.chapter_runs import step_shape
from mope.book.claims_tables import marked_verdict, verdict_markdown, with_future_note
from mope.book.markdown_tables import markdown_table
from mope.evidence.measures import causal_share, interaction_excess
from mope.evidence.verdicts import Verdict, verdict_ordering
from mope.evidence.estimates import (DASH, Estimate, by_variant, common_seeds, context_values, distance_to_paper, final_values, gap_curve,
                             improvement, loss, paired, per_seed)
from mope.model.variants import TABLE_2, VARIANTS

Runs = Mapping[str, list[dict]]  # {preset: its current runs}, the chapter's main preset first

#: The claim whose verdict a row of Table 2 (by model) or Table 4 (by component) shows.
TABLE_2_CLAIMS = {"PE-ROPE": "rope-matches-base", "PE-MORLET": "mope-below-base", "EGA-1": "ega-gain",
                  "EGA-MORLET": "ega-mope-gain"}
TABLE_4_CLAIMS = {"EGA-1 only": "ega-gain", "MoPE only": "mope-below-base", "EGA-MORLET (actual)": "ega-mope-gain",
                  "Interaction benefit excess": "interaction"}
CONTEXTS = ("1x", "2x", "4x")


def number(value: float | None, decimals: int = 3, signed: bool = False) -> str:
    return DASH if value is None else f"{value:{'+' if signed else ''}.{decimals}f}"


def outcome(estimate: Estimate, positive: str, negative: str) -> str:
    """An effect in words by the ordering rule of :mod:`mope.evidence.claims`: ``positive`` when its 95% interval
    lies above 0, ``negative`` when below, else undecided with the seeds that would decide it."""
    verdict = verdict_ordering(estimate)
    if not estimate.n:
        return DASH
    words = {"confirmed": positive, "refuted": negative}
    if verdict.outcome in words:
        answer = words[verdict.outcome]
    elif verdict.outcome == "indicative":
        shown_as_zero = abs(estimate.mean) < estimate.resolution / 2
        answer = "one seed: no difference at this precision" if shown_as_zero else \
            f"one seed: {positive if estimate.mean > 0 else negative}"
    else:
        answer = verdict.plain
    return f"{estimate.format(signed=True)}<br>{answer}"


def _claim_verdicts(preset: str, preset_runs: list[dict]) -> dict[str, Verdict]:
    """The verdicts of the claims document on ``preset`` (:func:`mope.evidence.claims.preset_findings`): a table that
    shows some of the stored runs shows the verdicts of all of them."""
    return {claim.key: verdict for claim, verdict in claims.preset_findings(preset, preset_runs)}


def devices_note(runs: Runs, variants: Sequence[str]) -> str:
    """Where a preset's runs of ``variants`` computed on more than one kind of device, the sentence that says so
    (:func:`mope.evidence.devices.mixed_devices_note`), after the preset's name where the table shows several."""
    notes = {preset: devices.mixed_devices_note(preset_runs, variants) for preset, preset_runs in runs.items()}
    return " ".join(f"`{preset}`: {note}" if len(runs) > 1 else note for preset, note in notes.items() if note)


def preset_header(presets: Sequence[str]) -> list[str]:
    return [f"`{p}`" for p in presets]


# --- reproducing Table 2 ------------------------------------------------------------------------------

def table_2(runs: Runs) -> str:
    """Table 2 beside ours: per preset our loss, our Δ over BASE-DOT (seed by seed), and the verdict of
    the claim the paper makes about that model (:data:`TABLE_2_CLAIMS`)."""
    verdicts = {preset: _claim_verdicts(preset, preset_runs) for preset, preset_runs in runs.items()}
    rows = []
    for name in TABLE_2:
        row = [name, paper.TABLE_2_ENCODING[name], number(paper.TABLE_2_VAL[name], 4),
               number(paper.TABLE_2_DELTA.get(name), signed=True)]
        for preset, preset_runs in runs.items():
            ours = loss(preset_runs, name)
            if not ours.n:
                row.append(DASH)
            elif name == "BASE-DOT":
                row.append(f"L = {ours.format()}<br>reference")
            else:
                delta = improvement(preset_runs, name)
                lines = [f"L = {ours.format()}", f"Δ = {delta.format(signed=True)}"]
                if name in TABLE_2_CLAIMS:
                    lines.append(marked_verdict(TABLE_2_CLAIMS[name], verdicts[preset][TABLE_2_CLAIMS[name]]))
                row.append("<br>".join(lines))
        rows.append(row)
    header = ["model", "encoding (paper)", "paper val", "paper Δ", *preset_header(runs)]
    note = ("A verdict is that of the paper's claim about the model (the claims table of the "
            "introduction): PE-ROPE nearly matches BASE-DOT, PE-MORLET is worse, EGA-1 and EGA-MORLET improve on it "
            "by the paper's Δ. The paper makes no claim of PE-SINCOS's Δ alone.")
    return with_future_note(markdown_table(header, rows, " ".join(filter(None, (note, devices_note(runs, TABLE_2))))))


def table_2_distances(runs: Runs, variants: Sequence[str] = TABLE_2) -> str:
    """One line per preset: how far our losses lie from the paper's Table 2 "Val" over ``variants``
    (the range of ours − paper), and over how many seeds; "" when no preset has runs of them."""
    lines = []
    for preset, preset_runs in runs.items():
        distances = distance_to_paper(preset_runs, variants)
        if not distances:
            continue
        gaps = {name: distance.mean for name, distance in distances.items()}
        closest, furthest = min(gaps, key=lambda v: abs(gaps[v])), max(gaps, key=lambda v: abs(gaps[v]))
        seeds = sorted({distance.n for distance in distances.values()})
        n = f"{seeds[0]}" if len(seeds) == 1 else f"{seeds[0]}–{seeds[-1]}"
        lines.append(f"* `{preset}` ({len(gaps)} of {len(variants)} models, n = {n} seed{'s' if seeds[-1] > 1 else ''}): "
                     f"ours − paper from {min(gaps.values()):+.4f} to {max(gaps.values()):+.4f} nats (the paper gives "
                     f"four decimals); closest {closest} ({gaps[closest]:+.4f}), furthest {furthest} ({gaps[furthest]:+.4f}).")
    return "\n".join(lines)


def plateau_table(runs: Runs, plateaus: Mapping[str, float], variants: Sequence[str] = TABLE_2) -> str:
    """Each model's loss (Val: random batches, as Table 2's) per preset, and the stage it reached: unigram, between,
    or below bigram."""
    def stage(value: float) -> str:
        if value >= plateaus["unigram"] - 0.05:
            return "unigram plateau"
        return "between unigram and bigram" if value >= plateaus["bigram"] else "below bigram"

    losses = {(name, preset): loss(preset_runs, name, "val_loss") for name in variants
              for preset, preset_runs in runs.items()}
    stages = {stage(whole.mean) for whole in losses.values() if whole.n}
    one_stage = len(stages) == 1  # then said once, under the table, not in every cell
    rows = []
    for name in variants:
        row = [name]
        for preset in runs:
            whole = losses[(name, preset)]
            row.append(DASH if not whole.n else whole.format() if one_stage else f"{whole.format()}<br>{stage(whole.mean)}")
        rows.append(row)
    note = f"Every model shown is {stages.pop()}." if one_stage else ""
    return markdown_table(["model", *preset_header(runs)], rows, note)


def gap_trend_table(runs: Runs, variants: Sequence[str], baseline: str = "BASE-DOT") -> str:
    """Δ = L(baseline) − L(model) at the evaluation half-way through training and at the last one (mean
    over the seeds that have both runs), per preset: which gaps close and which open as training goes on."""
    rows = []
    for name in variants:
        row = [name]
        for preset_runs in runs.values():
            curve = gap_curve(preset_runs, name, baseline)
            if not curve:
                row.append(DASH)
                continue
            steps = sorted(curve)
            middle = min(steps, key=lambda s: abs(s - steps[-1] / 2))
            row.append(f"{np.mean(curve[middle]):+.3f} → {np.mean(curve[steps[-1]]):+.3f}<br>"
                       f"(steps {middle:,} → {steps[-1]:,}, n={len(curve[steps[-1]])})")
        rows.append(row)
    return markdown_table(["model", *preset_header(runs)], rows)


def comparison_table(runs: Runs, questions: Mapping[tuple[str, str], str], key: str = "val_loss") -> str:
    """One row per (variant, baseline): Δ = L(baseline) − L(variant) seed by seed (positive = the variant
    is better), per preset, in words by the ordering rule."""
    rows = []
    for (variant, baseline), question in questions.items():
        row = [question, f"{variant} vs {baseline}"]
        for preset_runs in runs.values():
            delta = paired(preset_runs, baseline, variant, key)
            row.append(outcome(delta, f"{variant} better", f"{baseline} better"))
        rows.append(row)
    return markdown_table(["question", "Δ = L(second) − L(first)", *preset_header(runs)], rows)


# --- what MoPE learns ---------------------------------------------------------------------------------

def table_4(runs: Runs) -> str:
    """Table 4 of the paper beside ours: each Δ seed by seed, on the paper's loss (Val, as Table 2: one number per
    quantity), with the verdict of the paper's claim about the row (:data:`TABLE_4_CLAIMS`)."""
    key = "val_loss"
    verdicts = {preset: _claim_verdicts(preset, preset_runs) for preset, preset_runs in runs.items()}
    rows = []
    for component, paper_val, paper_delta, variant in paper.TABLE_4:
        row = [component, number(paper_val, 4), number(paper_delta, signed=True)]
        for preset, preset_runs in runs.items():
            if variant == "BASE-DOT":
                ours = loss(preset_runs, variant, key)
                row.append(f"L = {ours.format()}<br>reference" if ours.n else DASH)
                continue
            if variant is not None:
                delta = improvement(preset_runs, variant, key=key)
                lines = [f"L = {loss(preset_runs, variant, key).format()}"]
            elif component.startswith("Sum"):
                gate, pe = improvement(preset_runs, "EGA-1", key=key), improvement(preset_runs, "PE-MORLET", key=key)
                delta, lines = per_seed(lambda a, b: a + b, gate.values, pe.values), []
            else:
                delta, lines = interaction_excess(preset_runs, key), []
            if not delta.n:
                row.append(DASH)
                continue
            lines.append(f"Δ = {delta.format(signed=True)}")
            if preset in verdicts and component in TABLE_4_CLAIMS:
                lines.append(marked_verdict(TABLE_4_CLAIMS[component], verdicts[preset][TABLE_4_CLAIMS[component]]))
            row.append("<br>".join(lines))
        rows.append(row)
    return with_future_note(markdown_table(["component", "paper val", "paper Δ", *preset_header(runs)], rows))


def boundary_table(runs: Runs, cfgs: Mapping[str, object], variants: Sequence[str] = learned_parameters.MORLET_VARIANTS) -> str:
    """Per preset and MoPE variant: the pairs on ωσ = 5, the spread of ωσ, where weight decay alone would
    leave the stored ωσ (that preset's schedule, that variant's settings), and the pairs the data pushed
    below that."""
    rows = []
    for preset, preset_runs in runs.items():
        for name in variants:
            found = learned_parameters.morlet_runs(preset_runs, name)
            reference = learned_parameters.decay_only_reference(name, cfgs[preset])
            decay_only = f"{np.median(reference['stored_product']):.3f}"
            if not found:
                rows.append([f"`{preset}`", name, "0", DASH, DASH, decay_only, DASH])
                continue
            arrays = list(found.values())
            product = np.concatenate([a["omega"] * a["sigma"] for a in arrays])
            per_seed_share = lambda f: ", ".join(f"{f(a):.0%}" for a in arrays)  # noqa: E731
            rows.append([
                f"`{preset}`", name, str(len(arrays)),
                per_seed_share(lambda a: learned_parameters.on_boundary(a["omega"], a["sigma"]).mean()),
                f"{np.median(product):.3f} [{product.min():.3f}, {product.max():.3f}]", decay_only,
                per_seed_share(lambda a: learned_parameters.below_decay_only(a, reference)),
            ])
    header = ["preset", "variant", "seeds", "pairs on ωσ = 5 (per seed)", "ωσ used: median [min, max]",
              "stored ωσ after decay alone", "pairs the data pushed below it (per seed)"]
    return markdown_table(header, rows)


def quartile_rows(omega: np.ndarray, sigma: np.ndarray, groups: int = 4) -> list[list[str]]:
    """Table 3 of the paper for any number of pairs: ranges over contiguous blocks of pair index."""
    rows = []
    for block in np.array_split(np.arange(len(omega)), groups):
        o, s = omega[block], sigma[block]
        period, radius = 2 * np.pi / o, RADIUS_95 * s
        rows.append([f"{block[0]}–{block[-1]}", f"{o.min():.3f}–{o.max():.3f}", f"{s.min():.2f}–{s.max():.2f}",
                     f"{period.min():.1f}–{period.max():.1f}", f"±{radius.min():.1f}–{radius.max():.1f}"])
    return rows


def distance_to_table_3(omega: np.ndarray, sigma: np.ndarray) -> tuple[float, float] | None:
    """The largest absolute difference from the paper over the ω, and over the σ, range ends of Table 3's
    four quartiles (None unless there are the paper's 128 pairs, whose quartiles the table's rows are)."""
    if len(omega) != 4 * 32:
        return None
    d_omega = d_sigma = 0.0
    for block, (_, omega_range, sigma_range, _, _) in zip(np.array_split(np.arange(len(omega)), 4), paper.TABLE_3):
        ours_omega = (omega[block].min(), omega[block].max())
        ours_sigma = (sigma[block].min(), sigma[block].max())
        d_omega = max(d_omega, *(abs(o - p) for o, p in zip(ours_omega, omega_range)))
        d_sigma = max(d_sigma, *(abs(s - p) for s, p in zip(ours_sigma, sigma_range)))
    return float(d_omega), float(d_sigma)


#: The 95 % radius of the lag envelope e^(−τ²/4σ²), in units of σ: a Gaussian of standard deviation √2·σ,
#: so 1.96·√2 ≈ 2.77 (chapter 1, "the envelope's width"), where the paper's Table 3 writes 2σ.
RADIUS_95 = NormalDist().inv_cdf(0.975) * math.sqrt(2)
TABLE_3_HEADER = ["pairs", "ω range", "σ range", "period 2π/ω (tokens)", f"95% radius {RADIUS_95:.2f}σ (tokens)"]
TABLE_3_RADIUS_NOTE = (f"The paper's last column is 2σ; the 95 % interval of its envelope e^(−τ²/4σ²) is "
                       f"±1.96·√2·σ ≈ ±{RADIUS_95:.2f}σ ({{ref}}`math-envelope-width`), which every row here uses, "
                       "the paper's rows computed from their own σ.")


def table_3(sources: Mapping[str, tuple[np.ndarray, np.ndarray] | None]) -> str:
    """Table 3 of the paper, then the same quartiles of each ``sources`` entry {title: (omega, sigma)}; a
    source that is None (not run) is named, with no row."""
    rows = [["**paper** (EGA-MORLET, 128 pairs)", "", "", "", ""]]
    rows += [[dims, f"{o[0]:.3f}–{o[1]:.3f}", f"{s[0]:.2f}–{s[1]:.2f}", f"{p[0]:.1f}–{p[1]:.1f}",
              f"±{RADIUS_95 * s[0]:.1f}–{RADIUS_95 * s[1]:.1f}"] for dims, o, s, p, _ in paper.TABLE_3]
    missing = [title for title, arrays in sources.items() if arrays is None]
    for title, arrays in sources.items():
        if arrays is not None:
            rows.append([f"**{title}**", "", "", "", ""])
            rows += quartile_rows(*arrays)
    note = TABLE_3_RADIUS_NOTE + (f" Not run: {'; '.join(missing)}." if missing else "")
    return markdown_table(TABLE_3_HEADER, rows, note)


def prediction_table(runs: list[dict], variant: str, reference: Mapping[str, np.ndarray],
                     pairs: Sequence[int] | None = None) -> str:
    """Learned σ (mean ± sd over seeds) against its initial and decay-only values at a few pairs, and over
    all pairs the largest relative distance of each to the learned values."""
    pooled = learned_parameters.pooled_morlet(runs, variant)
    if pooled is None:
        return f"{variant}: not run."
    n = len(pooled["sigma"])
    pairs = sorted({0, n // 2, n - 1}) if pairs is None else pairs
    spread = pooled["sigma_sd"]
    rows = [[str(i), f"{pooled['sigma_init'][i]:.3f}", f"{reference['sigma'][i]:.3f}",
             f"{pooled['sigma'][i]:.3f}" + (f" ± {spread[i]:.3f}" if spread is not None else "")] for i in pairs]
    distance = lambda other: f"{np.max(np.abs(other / pooled['sigma'] - 1)):.1%}"  # noqa: E731
    rows.append([f"all {n}: largest distance to learned", distance(pooled["sigma_init"]), distance(reference["sigma"]),
                 f"(n={pooled['seeds']})"])
    return markdown_table(["pair", "initial σ", "decay-only σ", "learned σ"], rows)


# --- stress tests -------------------------------------------------------------------------------------

def causal_gate_table(runs: Runs, gates: Sequence[tuple[str, str, str]] = (
        ("EGA-1", "EGA-1-CAUSAL", "BASE-DOT"), ("EGA-MORLET", "EGA-MORLET-CAUSAL", "PE-MORLET"))) -> str:
    """Whole-validation gain over the gate-less model, seed by seed: the published gate, the same weights
    evaluated with causal statistics, the gate retrained causally, and the share of the published gain
    that survives (for EGA-1 with the verdict of the paper's salience claim)."""
    rows = []
    for gate, causal, base in gates:
        for preset, preset_runs in runs.items():
            published = improvement(preset_runs, gate, base, "val_loss_full")
            same_weights = per_seed(lambda b, g: b - g, final_values(preset_runs, base, "val_loss_full"),
                                    final_values(preset_runs, gate, "val_loss_full_causal_stats"))
            retrained = improvement(preset_runs, causal, base, "val_loss_full")
            share = causal_share(preset_runs, gate, causal, base)
            share_cell = f"{share.mean:.0%}" + (f" ± {share.spread:.0%}" if share.n > 1 else "") if share.n else DASH
            if gate == "EGA-1" and share.n:
                verdict = _claim_verdicts(preset, preset_runs)["gain-survives-causal-gate"]
                share_cell += "<br>" + verdict_markdown(verdict)
            rows.append([gate, f"`{preset}`", base, published.format(signed=True), same_weights.format(signed=True),
                         retrained.format(signed=True), share_cell])
    header = ["gate", "preset", "whole-validation gain over", "published gate", "same weights, causal statistics",
              "causal gate, retrained", "share that survives"]
    return markdown_table(header, rows, devices_note(runs, [name for gate in gates for name in gate]))


def extrapolation_table(runs: Runs, variants: Sequence[str]) -> str:
    """The change of the whole-validation loss from 1× to 2× and to 4× the training context, seed by seed: changes
    only, since a level on the whole split would restate Table 2's (Val) with another number."""
    rows = []
    for name in variants:
        for preset, preset_runs in runs.items():
            group = by_variant(preset_runs).get(name, [])
            if not group:
                continue
            if all((r["final"].get("val_loss_full_by_context") or {}).get("2x") is None for r in group):
                rows.append([name, f"`{preset}`", "n/a", "cannot run past its training context (its position table has T rows)"])
                continue
            at = {c: context_values(preset_runs, name, c) for c in CONTEXTS}
            growth = {c: per_seed(lambda long, short: long - short, at[c], at["1x"]) for c in ("2x", "4x")}
            rows.append([name, f"`{preset}`", growth["2x"].format(signed=True),
                         outcome(growth["4x"], "rises", "falls")])
    if not rows:
        return "None of these models is stored in the presets shown."
    return markdown_table(["model", "preset", "2× − 1×", "4× − 1×"], rows, "Only models with stored runs are listed.")


def context_table(short: list[dict], long: list[dict], contexts: tuple[int, int],
                  variants: Sequence[str] = ("BASE-DOT", "PE-MORLET", "PE-SINCOS", "NOPE")) -> str:
    """Each model's loss (Val, as Table 2 and the claims of the context read it) trained at two contexts (``short``,
    ``long``: the runs of each), over the seeds trained at both, and the change seed by seed."""
    rows = []
    for name in variants:
        at_short, at_long = final_values(short, name, "val_loss"), final_values(long, name, "val_loss")
        seeds = common_seeds(at_short, at_long)
        if not seeds:
            continue
        change = per_seed(lambda b, a: b - a, at_long, at_short)
        rows.append([name, Estimate({s: at_short[s] for s in seeds}).format(),
                     Estimate({s: at_long[s] for s in seeds}).format(), change.format(signed=True)])
    if not rows:
        return "No model is stored at both contexts yet."
    return markdown_table(["model", f"T = {contexts[0]}", f"T = {contexts[1]}", "change"], rows,
                          "Val, random validation batches as in Table 2 (what the claims of the context read); the same seeds at both contexts.")


def tokenization_table(characters: list[dict], tokens: list[dict], per_token: float,
                       variants: Sequence[str] = ("BASE-DOT", "PE-MORLET", "PE-SINCOS", "NOPE")) -> str:
    """Whole-validation loss of each model at characters (``characters``: its runs) and at subword tokens
    (``tokens``), the latter per token and per character (divided by ``per_token``, the characters a token
    covers), each over the seeds stored at that tokenization."""
    rows = []
    for name in variants:
        at_characters = final_values(characters, name, "val_loss_full")
        at_tokens = final_values(tokens, name, "val_loss_full")
        if not at_characters and not at_tokens:
            continue
        rows.append([name, Estimate(at_characters).format(), Estimate(at_tokens).format(),
                     Estimate({s: v / per_token for s, v in at_tokens.items()}).format()])
    if not rows:
        return "No model is stored at either tokenization yet."
    return markdown_table(["model", "characters: nats a character", "subword: nats a token",
                           "subword: nats a character"], rows,
                          f"Whole validation split; a token covers {per_token:.2f} characters there.")


def reach_table(runs: Runs, block_sizes: Mapping[str, int],
                variants: Sequence[str] = ("PE-MORLET", "EGA-MORLET")) -> str:
    """How far into the window MoPE's envelope reaches: beyond 3.03σ it is below 1% of its peak."""
    rows = []
    for preset, preset_runs in runs.items():
        for name in variants:
            found = learned_parameters.morlet_runs(preset_runs, name)
            if not found:
                continue
            largest = max(float(a["sigma"].max()) for a in found.values())
            reach = largest * np.sqrt(2 * np.log(100))
            window = block_sizes[preset]
            rows.append([name, f"`{preset}`", f"{largest:.2f}", f"{reach:.1f}", str(window),
                         f"{max(0.0, 1 - reach / window):.0%}"])
    if not rows:
        return "No MoPE model is stored in the presets shown."
    return markdown_table(["model", "preset", "largest σ (tokens)", "envelope < 1% beyond position", "window T",
                           "share of the window without position signal"], rows)


def sweep_table(sweep: Mapping, chosen, decided_at: int) -> str:
    """One row per candidate of the stored sweep: its shape of a step, learning rate, the random-batch
    validation loss at ``decided_at`` (when the preset was fixed) and the whole-validation loss at the end."""
    rows = []
    for candidate, run in sweep.items():
        at = {h["step"]: h["val_loss"] for h in run["history"]} if run else {}
        rows.append([step_shape(candidate), f"{candidate.lr:g}",
                     number(at.get(decided_at)), number(run["final"]["val_loss_full"] if run else None),
                     "**chosen**" if candidate == chosen else ""])
    return markdown_table(["tokens of a step", "peak lr", f"validation at step {decided_at:,} (random batches)",
                           "whole validation at the end", "`cpu`"], rows,
                          "A candidate without numbers: its run is not stored (or is stale).")


# --- the variants page --------------------------------------------------------------------------------

ABSOLUTE_WORDS = {"learned": "learned table", "sincos": "sin/cos", "sincos_scaled": "sin/cos × 0.02·√2",
                  "morlet": "MoPE", "none": DASH}
ATTENTION_WORDS = {"none": DASH, "rope": "RoPE", "alibi": "ALiBi", "morlet_rope": "RoPE × Gaussian of position",
                   "morlet_rope_relative": "RoPE × Gaussian of offset"}
GATE_WORDS = {"none": DASH, "ega": "EGA-1 (window statistics)", "ega_causal": "EGA-1 (prefix statistics)"}


def input_positions(config) -> str:
    """The position vector added at the input, in words, with MoPE's options."""
    words = ABSOLUTE_WORDS[config.absolute]
    if config.absolute == "morlet":
        options = [text for flag, text in ((config.admissibility == "none", "no ωσ ≥ 5 bound"),
                                           (not config.decay_positional, "no decay on log ω, log σ"),
                                           (config.morlet_centre, "learned centres")) if flag]
        words += f" ({', '.join(options)})" if options else ""
    return words


def variants_tables() -> tuple[str, str]:
    """Two tables of every registered variant: what it is (where it puts positions, its gate, whether it
    is causal, its size at the paper's shape) and what it is for (Table 2 or a control, and why)."""
    from mope.store.presets import get_preset
    from mope.model.variants import build_model, variant_config

    shape = get_preset("paper").shape()
    structure, purpose = [], []
    for name, variant in VARIANTS.items():
        config = variant_config(name, shape)
        model = build_model(name, shape, knowingly_non_causal=True)  # counted, not trained
        structure.append([f"**{name}**", input_positions(config), ATTENTION_WORDS[config.attention_positions],
                          GATE_WORDS[config.gate], "yes" if variant.causal else "**no**",
                          f"{model.num_parameters():,}"])
        purpose.append([f"**{name}**", "Table 2" if variant.in_table_2 else "control", variant.description])
        del model
    return (markdown_table(["variant", "input positions", "attention positions", "gate", "causal", "parameters"],
                           structure),
            markdown_table(["variant", "in", "purpose"], purpose))
