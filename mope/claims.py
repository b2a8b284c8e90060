r"""The paper's claims, each with the rule that judges it, and their verdicts on our runs.

This module owns, for every empirical claim of the paper: its words and section, its **kind**
(``ordering``: one model beats another; ``size``: an effect of a stated size; ``mechanism``: an
explanation, tested by a control run), the paper's number, what we measure, and where the book shows
it. It also owns the verdict rules (:func:`verdict_ordering`, :func:`verdict_size`,
:func:`verdict_mechanism`, stated in words in :data:`RULE`), and the claims table in the three forms
that show it: the command line (:func:`claims_report`, ``python -m mope claims``), the book's
Markdown (:func:`claims_markdown`), and the records behind both (:func:`claim_records`).

Every measurement is an :class:`~mope.estimates.Estimate` over seeds, paired by seed.
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mope import learned, results
from mope.estimates import DASH, Estimate, context_values, final_values, improvement, paired, per_seed
from mope.presets import TrainConfig, get_preset
from mope.variants import VARIANTS

KINDS = ("ordering", "size", "mechanism")
PAPER_NOISE = 0.01  # nats: the paper's EGA-1 scored 1.3712 (its Paper 1) and 1.3821 (this paper)
NOT_RUN, INDICATIVE = "not run", "indicative"
VERDICTS = ("supported", "direction holds", "not resolved", "not supported", "contradicted", INDICATIVE, NOT_RUN)

#: The verdict rules in words, as the book states them (MyST Markdown).
RULE = r"""Every effect is measured **seed by seed** (the models of a seed saw the same batches) and summarised
by its mean, its sample sd and the number of seeds n; its 95% interval is mean ± t·sd/√n, with sd
taken as at least 0.001. **One seed** gives no interval and no verdict: it is *indicative*, with the
direction and size it shows. With two seeds or more:

* an **ordering** claim ("A beats B", the effect being how much lower A's loss is) is *supported* when
  the interval lies above 0, *contradicted* when it lies below 0, *not resolved* otherwise;
* a **size** claim ("+0.119") is *supported* only when the interval, widened on each side by the
  paper's own run-to-run noise of 0.01 nats, holds the paper's number. An interval on the paper's side
  of 0 that misses it is *direction holds*, with the ratio of the sizes ("7× smaller"); an interval
  around 0 that misses it is *not supported*; one around both 0 and the paper's number is *not
  resolved*; one on the other side of 0 is *contradicted*;
* a **mechanism** claim is tested by a control run and a threshold named with the claim: *supported*
  when the interval lies on the paper's side of the threshold, *not supported* when it lies on the
  other side, *not resolved* otherwise."""


# --- verdict rules ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Finding:
    """Our measurement of one claim on one preset, and the verdict the claim's rule gives it."""

    estimate: Estimate
    verdict: str
    note: str = ""

    @property
    def text(self) -> str:
        """"direction holds, 7.4× smaller": the verdict word, then its note."""
        return f"{self.verdict}, {self.note}" if self.note else self.verdict


def size_ratio(ours: float, paper: float) -> str:
    """"7.4× smaller", "1.3× larger" or "opposite sign": our effect against the paper's."""
    if ours == 0 or paper == 0:
        return "no effect" if ours == 0 else "the paper reports no effect"
    ratio = ours / paper
    if ratio < 0:
        return "opposite sign"
    return f"{ratio:.2g}× larger" if ratio >= 1 else f"{1 / ratio:.2g}× smaller"


def _one_seed(estimate: Estimate, detail: str) -> Finding:
    return Finding(estimate, INDICATIVE, "one seed" + (f": {detail}" if detail else ""))


def _side(value: float) -> str:
    return "in the claimed direction" if value > 0 else "against the claim" if value < 0 else "no difference"


def verdict_ordering(estimate: Estimate) -> Finding:
    """An effect claimed positive (how much lower the better model's loss is)."""
    if not estimate.n:
        return Finding(estimate, NOT_RUN)
    if estimate.n == 1:
        return _one_seed(estimate, _side(estimate.mean))
    low, high = estimate.interval
    if low > 0:
        return Finding(estimate, "supported")
    if high < 0:
        return Finding(estimate, "contradicted")
    return Finding(estimate, "not resolved", "interval includes 0")


def verdict_size(estimate: Estimate, paper: float, noise: float = PAPER_NOISE) -> Finding:
    """An effect claimed to be ``paper`` (see :data:`RULE`)."""
    if not estimate.n:
        return Finding(estimate, NOT_RUN)
    ratio = size_ratio(estimate.mean, paper)
    if estimate.n == 1:
        return _one_seed(estimate, ratio)
    low, high = estimate.interval
    holds_paper = low - noise <= paper <= high + noise
    # the interval in the paper's direction: its lower end above 0 = entirely on the paper's side of 0
    lower, upper = sorted(math.copysign(1, paper) * bound for bound in (low, high))
    if upper < 0:
        return Finding(estimate, "contradicted", "opposite sign")
    if lower > 0:
        return Finding(estimate, "supported") if holds_paper else Finding(estimate, "direction holds", ratio)
    if holds_paper:
        return Finding(estimate, "not resolved", "interval includes 0 and the paper's value")
    return Finding(estimate, "not supported", f"{ratio}, interval includes 0")


def verdict_mechanism(estimate: Estimate, threshold: float, side: int) -> Finding:
    """A statistic the paper's mechanism needs above (``side`` = +1) or below (−1) ``threshold``."""
    if not estimate.n:
        return Finding(estimate, NOT_RUN)
    if estimate.n == 1:
        return _one_seed(estimate, "on the paper's side" if side * (estimate.mean - threshold) > 0
                         else "against the paper")
    low, high = (side * (bound - threshold) for bound in estimate.interval)
    low, high = min(low, high), max(low, high)
    if low > 0:
        return Finding(estimate, "supported")
    if high < 0:
        return Finding(estimate, "not supported")
    return Finding(estimate, "not resolved", f"interval includes {threshold:g}")


# --- the claims ---------------------------------------------------------------------------------------

Measure = Callable[[list[dict], TrainConfig], tuple[Estimate, str]]


@dataclass(frozen=True)
class Claim:
    """One empirical claim of the paper, what we measure to judge it, and where the book shows the evidence."""

    words: str
    section: str
    kind: str
    paper: float | None  # the effect the paper reports (ordering, size) or the number the claim rests on
    measure: Measure  # our per-seed statistic, and a short note on what else the runs show
    shown_in: str  # the label of the book's section that shows the evidence
    test: str  # what is measured, in words
    threshold: float = 0.0  # mechanism claims: the value the statistic must clear ...
    side: int = 1  # ... from above (+1) or from below (-1)
    signed: bool = True  # False for a statistic that is a share or a size, not a difference

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"claim kind {self.kind!r} is not one of {KINDS}")

    def judge(self, runs: list[dict], cfg: TrainConfig) -> Finding:
        estimate, context = self.measure(runs, cfg)
        if self.kind == "ordering":
            finding = verdict_ordering(estimate)
        elif self.kind == "size":
            finding = verdict_size(estimate, self.paper)
        else:
            finding = verdict_mechanism(estimate, self.threshold, self.side)
        if context and estimate.n:
            note = f"{finding.note}; {context}" if finding.note else context
            finding = Finding(finding.estimate, finding.verdict, note)
        return finding


def paper_gap(better: str, worse: str) -> float:
    """How much lower Table 2 puts ``better``'s loss than ``worse``'s."""
    return round(VARIANTS[worse].paper_val - VARIANTS[better].paper_val, 4)


def advantage(better: str, worse: str, key: str = "val_loss") -> Measure:
    """L(worse) − L(better), seed by seed."""
    return lambda runs, cfg: (paired(runs, worse, better, key), "")


def _mean_text(estimate: Estimate, decimals: int = 3) -> str:
    return f"{estimate.mean:+.{decimals}f}" if estimate.n else DASH


def interaction_excess(runs: list[dict], key: str = "val_loss") -> Estimate:
    """Δ(EGA-MORLET) − Δ(EGA-1) − Δ(PE-MORLET), seed by seed (Table 4's "excess")."""
    values = [final_values(runs, v, key) for v in ("BASE-DOT", "EGA-1", "PE-MORLET", "EGA-MORLET")]
    return per_seed(lambda base, gate, pe, both: gate + pe - base - both, *values)


def _sincos_locality(runs, cfg):
    locality = paired(runs, "PE-SINCOS-SCALED", "PE-MORLET")
    rescaling = paired(runs, "PE-SINCOS", "PE-SINCOS-SCALED")
    return locality, f"scaling sin/cos alone gains {_mean_text(rescaling)}" if rescaling.n else ""


def _causal_gate(runs, cfg):
    causal = improvement(runs, "EGA-1-CAUSAL", key="val_loss_full")
    published = improvement(runs, "EGA-1", key="val_loss_full")
    return causal, f"published gate {_mean_text(published)}" if published.n else ""


def _pushed_without_decay(runs, cfg):
    found = learned.morlet_runs(runs, "PE-MORLET-NODECAY")
    reference = learned.decay_only_reference("PE-MORLET-NODECAY", cfg)
    pushed = Estimate({s: learned.below_decay_only(a, reference) for s, a in found.items()}, resolution=0.01)
    with_decay = learned.decay_only_reference("PE-MORLET", cfg)["stored_product"]
    return pushed, f"with decay, decay alone takes every pair to ωσ = {np.median(with_decay):.2f}"


def _below_bound_without_projection(runs, cfg):
    found = learned.morlet_runs(runs, "PE-MORLET-FREE")
    reference = learned.decay_only_reference("PE-MORLET-FREE", cfg)
    shift = Estimate({s: float(np.median(learned.stored_product(a) - reference["stored_product"]))
                      for s, a in found.items()})
    if not found:
        return shift, ""
    median = np.median(np.concatenate([learned.stored_product(a) for a in found.values()]))
    return shift, f"median ωσ {median:.2f}, decay alone {np.median(reference['stored_product']):.2f}"


def _sigma_moved_by_data(runs, cfg):
    found = learned.morlet_runs(runs, "EGA-MORLET")
    reference = learned.decay_only_reference("EGA-MORLET", cfg)
    moved = Estimate({s: float(np.median(np.abs(np.log(a["sigma"] / reference["sigma"])))) for s, a in found.items()},
                     resolution=0.001)
    if not found:
        return moved, ""
    sigma = np.concatenate([a["sigma"] for a in found.values()])
    return moved, (f"learned σ in [{sigma.min():.2f}, {sigma.max():.2f}], decay alone "
                   f"[{reference['sigma'].min():.2f}, {reference['sigma'].max():.2f}]")


def _extrapolation(runs, cfg):
    growth = per_seed(lambda long, short: long - short, context_values(runs, "PE-MORLET", "4x"),
                      context_values(runs, "PE-MORLET", "1x"))
    nope = per_seed(lambda long, short: long - short, context_values(runs, "NOPE", "4x"),
                    context_values(runs, "NOPE", "1x"))
    return growth, f"NOPE {_mean_text(nope)}" if nope.n else ""


CLAIMS: tuple[Claim, ...] = (
    Claim("PE-MORLET is worse than BASE-DOT", "§6.2", "ordering", paper_gap("BASE-DOT", "PE-MORLET"),
          advantage("BASE-DOT", "PE-MORLET"), "repro-table-2", "L(PE-MORLET) − L(BASE-DOT)"),
    Claim("PE-MORLET beats PE-SINCOS by 0.080", "§6.2, §7", "size", 0.080,
          advantage("PE-MORLET", "PE-SINCOS"), "repro-table-2", "L(PE-SINCOS) − L(PE-MORLET)"),
    Claim("PE-MORLET beats PE-SINCOS because of Gaussian locality, not the scale of sin/cos", "§6.2, §7",
          "mechanism", 0.080, _sincos_locality, "repro-sincos-scale",
          "L(PE-SINCOS-SCALED) − L(PE-MORLET): MoPE against sin/cos at the token scale; above 0"),
    Claim("PE-ROPE nearly matches BASE-DOT (+0.011)", "§6.2, §7", "size", 0.011,
          advantage("PE-ROPE", "BASE-DOT"), "repro-table-2", "L(BASE-DOT) − L(PE-ROPE)"),
    Claim("PE-ROPE beats PE-MORLET", "§6.2", "ordering", paper_gap("PE-ROPE", "PE-MORLET"),
          advantage("PE-ROPE", "PE-MORLET"), "repro-table-2", "L(PE-MORLET) − L(PE-ROPE)"),
    Claim("PE-ROPE beats PE-SINCOS", "§6.2", "ordering", paper_gap("PE-ROPE", "PE-SINCOS"),
          advantage("PE-ROPE", "PE-SINCOS"), "repro-table-2", "L(PE-SINCOS) − L(PE-ROPE)"),
    Claim("EGA-1 improves on BASE-DOT by 0.092", "Table 2", "size", 0.092,
          advantage("EGA-1", "BASE-DOT"), "repro-table-2", "L(BASE-DOT) − L(EGA-1)"),
    Claim("EGA-MORLET improves on BASE-DOT by 0.119", "Abstract, §6.2", "size", 0.119,
          advantage("EGA-MORLET", "BASE-DOT"), "repro-table-2", "L(BASE-DOT) − L(EGA-MORLET)"),
    Claim("EGA-MORLET beats EGA-1 (best overall)", "§6.2", "ordering", paper_gap("EGA-MORLET", "EGA-1"),
          advantage("EGA-MORLET", "EGA-1"), "repro-table-2", "L(EGA-1) − L(EGA-MORLET)"),
    Claim("EGA and MoPE interact: +0.059 beyond the sum of their gains", "§6.4, Table 4", "size", 0.059,
          lambda runs, cfg: (interaction_excess(runs), ""), "learned-table-4",
          "Δ(EGA-MORLET) − Δ(EGA-1) − Δ(PE-MORLET)"),
    Claim("EGA's gain is salience: it survives a gate that cannot see the future", "§6.4", "mechanism", 0.092,
          _causal_gate, "stress-causal-gate",
          "whole-validation gain of EGA-1-CAUSAL over BASE-DOT; above 0"),
    Claim("The optimizer pushes every pair onto ωσ = 5", "§6.3, Fig. 4", "mechanism", 1.0,
          _pushed_without_decay, "learned-boundary",
          "share of PE-MORLET-NODECAY's pairs whose stored ωσ the data pushed below 5 (the bound holds them); "
          "above 0.5",
          threshold=0.5, signed=False),
    Claim("Without the bound, the pairs would go below ωσ = 5", "§6.3", "mechanism", None,
          _below_bound_without_projection, "learned-boundary",
          "PE-MORLET-FREE: median over pairs of ωσ minus where decay alone leaves it; below 0", side=-1),
    Claim("σ ∈ [1.49, 4.50]: the data put MoPE at the character-to-word scale", "§6.3, §7", "mechanism", None,
          _sigma_moved_by_data, "learned-table-3",
          "EGA-MORLET: median |log σ − log σ(decay alone)|, how far the data moved σ; above 0.05",
          threshold=0.05, signed=False),
    Claim("MoPE carries useful position: PE-MORLET beats NOPE", "§7 (implicit)", "ordering", None,
          advantage("PE-MORLET", "NOPE"), "stress-mope-vs-nope", "L(NOPE) − L(PE-MORLET)"),
    Claim("MoPE generalizes to longer contexts", "§7", "mechanism", None, _extrapolation, "stress-extrapolation",
          "PE-MORLET: whole-validation loss at 4× the training context minus at 1×; below 0", side=-1),
    Claim("Gaussian locality would improve RoPE (Morlet-RoPE)", "§7", "ordering", None,
          advantage("MORLET-ROPE", "ROPE-ONLY"), "stress-proposals", "L(ROPE-ONLY) − L(MORLET-ROPE)"),
)


# --- the claims table ---------------------------------------------------------------------------------

def judge_all(preset: str | TrainConfig, runs: list[dict] | None = None) -> list[tuple[Claim, Finding]]:
    """Every claim judged on ``runs`` (default: the current stored runs of ``preset``)."""
    cfg = get_preset(preset) if isinstance(preset, str) else preset
    runs = results.load_results(cfg.name) if runs is None else runs
    return [(claim, claim.judge(runs, cfg)) for claim in CLAIMS]


def _number(value: float | None) -> float | None:
    return None if value is None else round(float(value), 6)


def claim_records(preset: str | TrainConfig, runs: list[dict] | None = None) -> list[dict]:
    """One dict per claim: claim, section, kind, paper, ours, sd, n, verdict (the JSON of the CLI)."""
    return [{"claim": claim.words, "section": claim.section, "kind": claim.kind, "paper": claim.paper,
             "ours": _number(finding.estimate.mean), "sd": _number(finding.estimate.sd),
             "n": finding.estimate.n, "verdict": finding.text}
            for claim, finding in judge_all(preset, runs)]


def _number_text(value: float | None, signed: bool) -> str:
    return DASH if value is None else f"{value:+.3f}" if signed else f"{value:.3f}"


def plain(markdown: str) -> str:
    """``markdown`` without emphasis, one line per paragraph or list item (for the terminal)."""
    text = markdown.replace("\n* ", "\n- ").replace("**", "").replace("*", "")
    return "\n".join(" ".join(block.split()) for block in re.split(r"\n\n|\n(?=- )", text))


def claims_report(preset: str, as_json: bool) -> str:
    """The claims table of ``preset`` for the terminal (``python -m mope claims --preset P [--json]``)."""
    records = claim_records(preset)
    if as_json:
        return json.dumps(records, indent=1, ensure_ascii=False)
    header = ("claim", "where", "paper", "ours (± sd, n)", "verdict")
    rows = [header] + [(r["claim"], r["section"], _number_text(r["paper"], claim.signed), _ours_text(r, claim.signed),
                        r["verdict"]) for claim, r in zip(CLAIMS, records)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1] for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    runs = sum(1 for _ in results.load_results(preset))
    return "\n".join([f"The paper's claims against preset {preset!r} ({runs} current runs)", *lines, "",
                      plain(RULE)])


def _ours_text(record: dict, signed: bool) -> str:
    if not record["n"]:
        return DASH
    spread = f" ± {record['sd']:.3f}" if record["sd"] is not None else ""
    return f"{_number_text(record['ours'], signed)}{spread} (n={record['n']})"


def claims_markdown(presets: Sequence[str], findings: dict[str, list[tuple[Claim, Finding]]] | None = None,
                    shown_in: Sequence[str] | None = None) -> str:
    """The claims table of the book (MyST Markdown): claim (linked to the section that shows it), section,
    the paper's number, then per preset the verdict word over our estimate and its note. ``shown_in``:
    only the claims whose evidence is in these sections."""
    findings = findings if findings is not None else {p: judge_all(p) for p in presets}
    head = ["claim", "§", "paper", *(f"`{p}`" for p in presets)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for i, claim in enumerate(CLAIMS):
        if shown_in is not None and claim.shown_in not in shown_in:
            continue
        cells = [f"{{ref}}`{claim.words} <{claim.shown_in}>`", claim.section, _number_text(claim.paper, claim.signed)]
        for preset in presets:
            finding = findings[preset][i][1]
            if not finding.estimate.n:
                cells.append(NOT_RUN)
                continue
            note = f"<br>{finding.note}" if finding.note else ""
            cells.append(f"**{finding.verdict}**<br>{finding.estimate.format(signed=claim.signed)}{note}")
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


def budget_changes(findings: dict[str, list[tuple[Claim, Finding]]], short: str = "cpu-short",
                   long: str = "cpu") -> str:
    """Which verdicts change between a shorter and a longer training budget (MyST Markdown): the claims
    judged under both (a verdict, not "indicative" or "not run"), and among them those whose verdict word
    differs, each with both estimates (and a warning when the numbers of seeds differ); "" when either
    preset is missing."""
    if short not in findings or long not in findings:
        return ""
    judged, changed = 0, []
    for (claim, before), (_, after) in zip(findings[short], findings[long]):
        if {before.verdict, after.verdict} & {INDICATIVE, NOT_RUN}:
            continue
        judged += 1
        if before.verdict != after.verdict:
            seeds = ("" if before.estimate.n == after.estimate.n else
                     f"; not on the same number of seeds, and the interval of {min(before.estimate.n, after.estimate.n)} "
                     "seeds is the wider one, which alone can change a verdict")
            changed.append(f"* {claim.words} ({claim.section}): **{before.verdict}** under `{short}` "
                           f"({before.estimate.format(signed=claim.signed)}), **{after.verdict}** under `{long}` "
                           f"({after.estimate.format(signed=claim.signed)}){seeds}")
    waiting = len(CLAIMS) - judged
    head = (f"Of the {len(CLAIMS)} claims, {judged} have a verdict under both `{short}` and `{long}`"
            + (f" ({waiting} still lack one: a single seed gives an indication only, or the runs are missing)"
               if waiting else ""))
    if not judged:
        return head + "."
    if not changed:
        return head + "; none of these verdicts changes with the training budget."
    return head + f"; {len(changed)} of them change{'s' if len(changed) == 1 else ''} with the budget:\n\n" + "\n".join(changed)


def single_seed_contrasts(findings: dict[str, list[tuple[Claim, Finding]]], judged: str = "cpu",
                          single: str = "paper", noise: float = PAPER_NOISE) -> str:
    """Where a single seed of ``single`` (the published protocol) points away from ``judged``'s verdict
    (MyST Markdown), among the claims with a verdict under ``judged`` and exactly one seed under
    ``single``: an ordering or size effect of the other sign and larger than ``noise``; for a size
    claim not supported under ``judged``, an estimate nearer the paper's number than to ``judged``'s
    mean; for a mechanism claim, a statistic on the other side of its threshold from what the verdict
    says. "" when either preset is missing or nothing points away."""
    if judged not in findings or single not in findings:
        return ""
    lines = []
    for (claim, verdict), (_, one) in zip(findings[judged], findings[single]):
        if verdict.verdict in (INDICATIVE, NOT_RUN) or one.estimate.n != 1:
            continue
        ours, theirs = verdict.estimate.mean, one.estimate.mean
        if claim.kind == "mechanism":
            paper_side = claim.side * (theirs - claim.threshold) > 0
            if verdict.verdict not in ("supported", "not supported") or paper_side == (verdict.verdict == "supported"):
                continue
            why = (f"on the paper's side of its threshold {claim.threshold:g}" if paper_side
                   else f"across its threshold {claim.threshold:g}, against the paper")
        elif ours * theirs < 0 and abs(theirs) > noise:
            why = "the other sign"
        elif claim.kind == "size" and verdict.verdict != "supported" and abs(theirs - claim.paper) < abs(theirs - ours):
            why = f"nearer the paper's {claim.paper:+.3f} than to `{judged}`'s"
        else:
            continue
        lines.append(f"* {claim.words} ({claim.section}): **{verdict.verdict}** under `{judged}` "
                     f"({verdict.estimate.format(signed=claim.signed)}); one seed of `{single}` gives "
                     f"{one.estimate.format(signed=claim.signed)}, {why}")
    return "\n".join(lines)
