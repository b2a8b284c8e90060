r"""The paper's claims, each tested as the paper states it: the catalogue, and every claim judged on a preset.

This module owns, for every empirical claim the book judges: its words, the paper's own sentence and
section, whose claim it is (the paper's, or ours: :attr:`Claim.source`), its **kind** (one of :data:`KINDS`:
the statement it makes, whose rule is in :mod:`mope.evidence.verdicts`), the paper's number (from
:mod:`mope.evidence.paper`), what we measure (:mod:`mope.evidence.measures`) and on which loss, and where the
book shows the evidence. :func:`judge_all` judges every claim on a preset and applies the corrections of its
family (:mod:`mope.evidence.corrections`); every page of the book, the command line (``python -m mope claims``)
and its JSON (:func:`record`) show these verdicts and compute none of their own. A claim's standing across
the presets is :mod:`mope.evidence.standings`'; the book's tables of claims are :mod:`mope.book.claims_tables`'.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from mope.store import plan, results
from mope.evidence import corrections, measures, open_questions, paper
from mope.evidence.estimates import DASH, Estimate
from mope.evidence.verdict_rules import CURRENT_RULE, RULE_NAMES, RULES, rule_at_least
from mope.evidence.verdicts import (PAPER_PROTOCOL, VOCABULARY, Verdict, verdict_direction, verdict_equivalence,
                                    verdict_every, verdict_mechanism, verdict_moot, verdict_not_judged,
                                    verdict_ordering, verdict_size)
from mope.store.presets import BUDGET_PAIRS, CONTEXT_PAIRS, TOKENIZATION_PAIRS, TrainConfig, get_preset

KINDS = ("ordering", "size", "equivalence", "every", "mechanism")
SOURCES = ("paper", "ours")
#: The stored loss each measurement reads, by the name the JSON gives it.
LOSSES = {"val_loss": "val_batches", "val_loss_full": "val_whole"}


def presets_named(presets: Sequence[str]) -> str:
    """"`cpu`", "`cpu-long` and `cpu`", "`a`, `b` and `c`": presets as a sentence names them."""
    names = [f"`{p}`" for p in presets]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


@dataclass(frozen=True)
class Claim:
    """One empirical claim of the paper, what we measure to judge it, and where the book shows the evidence."""

    key: str  # a short name, stable across versions (the JSON and the tests use it)
    words: str  # the claim in a few words
    quote: str  # the paper's own sentence (or table entry)
    section: str
    kind: str
    paper: float | None  # the paper's number: the effect, the size, the share or the threshold it rests on
    measure: measures.Measure  # our per-seed statistic, and a caveat a control gives (or None)
    shown_in: str  # the label of the book's section that shows the evidence
    test: str  # what is measured, and for a mechanism its threshold with the reason for it
    loss: str | None = "val_loss"  # the stored loss it reads (None: learned parameters)
    threshold: float = 0.0  # mechanism claims: the value the statistic must clear ...
    side: int = 1  # ... from above (+1) or from below (−1)
    signed: bool = True  # False for a statistic that is a share, not a difference
    across_contexts: bool = False  # measured on the preset and its twin of the other context (CONTEXT_PAIRS)
    across_budgets: bool = False  # measured on the preset and its twin of the other token budget (BUDGET_PAIRS)
    across_tokenizations: bool = False  # measured on the preset's subword twin (TOKENIZATION_PAIRS) beside it
    gain: Callable[[list[dict]], Estimate] | None = None  # a share's claims: the gain, seed by seed, it shares out
    source: str = "paper"  # whose claim it is: "paper" (the paper states it) or "ours" (a claim we add)
    fixed_in: str | None = None  # the commit that fixed the rule before the runs that judge it, where recorded

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"claim kind {self.kind!r} is not one of {KINDS}")
        if self.source not in SOURCES:
            raise ValueError(f"claim source {self.source!r} is not one of {SOURCES}")
        if self.kind in ("size", "equivalence") and self.paper is None:
            raise ValueError(f"a {self.kind} claim needs the paper's number: {self.words!r}")

    @property
    def tag(self) -> str:
        """"§6.2, §7" for a claim of the paper; "ours" for a claim we add (never a section of the paper)."""
        return self.section if self.source == "paper" else "ours"

    def twins(self, presets: Sequence[str]) -> tuple[str, ...]:
        """The subword twins a claim at subword tokens reads beside ``presets``; () for any other claim."""
        return tuple(TOKENIZATION_PAIRS[p] for p in presets if p in TOKENIZATION_PAIRS) if self.across_tokenizations else ()

    def read_beside(self, presets: Sequence[str]) -> str:
        """"`cpu-bpe` beside `cpu`": the :meth:`twins` read beside ``presets``, the runs a verdict on them stands
        on; "" for any other claim (its verdict stands on ``presets`` alone)."""
        twins = self.twins(presets)
        return f"{presets_named(twins)} beside {presets_named(presets)}" if twins else ""

    def judged_where(self, presets: Sequence[str]) -> str:
        """The presets a verdict of this claim on ``presets`` stands on, as a sentence names them: "`cpu`", or
        for a claim at subword tokens "`cpu-bpe` beside `cpu`" (:meth:`read_beside`)."""
        return self.read_beside(presets) or presets_named(presets)

    @property
    def pairs(self) -> dict[str, str]:
        """The twin presets this claim compares, (shorter context or fewer tokens: the other): CONTEXT_PAIRS or
        BUDGET_PAIRS; {} for a claim of one preset."""
        return CONTEXT_PAIRS if self.across_contexts else BUDGET_PAIRS if self.across_budgets else {}

    def presets_read(self, preset: str) -> tuple[str, ...]:
        """The presets a verdict of this claim on ``preset`` reads: ``preset``, and for a claim across contexts
        or token budgets its twin of the other context or budget."""
        return (preset, *(p for short, long in self.pairs.items() for p in (short, long)
                          if preset in (short, long) and p != preset))

    def home(self, preset: str) -> str:
        """The preset whose family decides this claim on ``preset``: for a claim across contexts or token budgets,
        the twin with the longer context or the more tokens (its rule is a stage of that preset's plan); for any
        other claim ``preset`` itself."""
        return self.pairs.get(preset, preset)

    def judge(self, runs: list[dict], cfg: TrainConfig, longer: list[dict] | None = None,
              shorter: list[dict] | None = None, more: list[dict] | None = None,
              fewer: list[dict] | None = None, rule: str = CURRENT_RULE) -> Verdict:
        """The verdict on ``runs`` of preset ``cfg``, before the corrections of the preset's family
        (:func:`judge_all` applies them). A claim across contexts reads ``runs`` with ``longer``, the runs of
        the preset's longer-context twin, or ``shorter`` with ``runs``, those of its shorter-context twin
        (neither: there is none, and the claim is not run); a claim across token budgets likewise reads
        ``runs`` with ``more`` (its twin trained on more tokens) or ``fewer`` with ``runs``. Under ``rule``
        (:data:`~mope.evidence.verdict_rules.RULES`; the current one by default) a size or near-equality is tested
        against the paper's number on :data:`PAPER_PROTOCOL` alone; elsewhere a size on its direction, a
        near-equality not at all."""
        if self.across_contexts or self.across_budgets:
            after, before = (longer, shorter) if self.across_contexts else (more, fewer)
            pair = (runs, after) if after is not None else (before, runs) if before is not None else None
            estimate, caveat = self.measure(*pair) if pair else (Estimate(), None)
        else:
            estimate, caveat = self.measure(runs, cfg)
        estimate, left_out = _finite_seeds(estimate)
        if left_out:  # never a verdict, or a "nan%", from a statistic that is not a number
            caveat = "; ".join(filter(None, [caveat, left_out]))
        gain = self.gain(runs) if self.gain is not None else None
        off_protocol = cfg.name != PAPER_PROTOCOL and rule != RULES[0].name
        if gain is not None and gain.n and gain.mean <= 0:
            verdict = verdict_moot(estimate, gain)
        elif self.kind == "equivalence" and off_protocol and rule_at_least(rule, "parts, corrected"):
            verdict = verdict_not_judged(estimate, self.paper, cfg.name, cfg.characters_per_token())
        elif self.kind in ("size", "equivalence") and off_protocol:
            verdict = verdict_direction(estimate, self.paper, cfg.name, cfg.characters_per_token())
        elif self.kind == "ordering":
            verdict = verdict_ordering(estimate)
        elif self.kind == "size":
            verdict = replace(verdict_size(estimate, self.paper), judged_on="size")
        elif self.kind == "equivalence":
            verdict = replace(verdict_equivalence(estimate, self.paper), judged_on="size")
        elif self.kind == "every":
            verdict = verdict_every(estimate)
        else:
            verdict = verdict_mechanism(estimate, self.threshold, self.side, share=not self.signed)
        return verdict.with_caveat(caveat if estimate.n or left_out else None)


def _finite_seeds(estimate: Estimate) -> tuple[Estimate, str | None]:
    """``estimate`` without the seeds whose value is not a finite number, and which those were (or None)."""
    groups = {name: getattr(estimate, name) for name in ("values", "other") if hasattr(estimate, name)}
    finite = {name: {seed: value for seed, value in group.items() if math.isfinite(value)}
              for name, group in groups.items()}
    dropped = sorted({seed for name, group in groups.items() for seed in set(group) - set(finite[name])})
    if not dropped:
        return estimate, None
    return (replace(estimate, **finite),
            f"seed{'s' if len(dropped) > 1 else ''} {', '.join(map(str, dropped))} left out: not a finite number")


#: The tokens the paper's protocol reads in training (steps × batch × context).
PAPER_TRAINING_TOKENS = get_preset("paper").steps * get_preset("paper").batch_size * get_preset("paper").block_size

#: The commit that fixed the three rules of the token budget (``cpu-long-4x``); its first stored run started 14 s later.
BUDGET_RULES_COMMIT = "5ea5de9a4abca7a146bfc5e9619e4fbffe013abe"

#: Every claim the book judges, in the order its tables list them.
CLAIMS: tuple[Claim, ...] = (
    Claim("mope-below-base", "PE-MORLET is worse than BASE-DOT",
          "MoPE alone underperforms the baseline", "§6.2, §9", "ordering", paper.gap("BASE-DOT", "PE-MORLET"),
          measures.advantage("BASE-DOT", "PE-MORLET"), "repro-table-2", "L(PE-MORLET) − L(BASE-DOT) > 0"),
    Claim("mope-beats-sincos", f"PE-MORLET beats PE-SINCOS by {paper.MOPE_OVER_SINCOS:.3f}",
          f"MoPE beats sin/cos by {paper.MOPE_OVER_SINCOS:.3f}", "§6.2, §7", "size", paper.MOPE_OVER_SINCOS,
          measures.advantage("PE-MORLET", "PE-SINCOS", caveat=measures.sincos_scale_caveat), "repro-table-2",
          f"L(PE-SINCOS) − L(PE-MORLET) against {paper.MOPE_OVER_SINCOS:.3f} ± {paper.MATCH_MARGIN}"),
    Claim("locality-not-scale", "…because of Gaussian locality, not the scale of sin/cos",
          "The Gaussian locality provides measurable benefit over the degenerate σ=∞ limit", "§6.2, §7",
          "mechanism", None, measures.advantage("PE-MORLET", "PE-SINCOS-SCALED"), "repro-sincos-scale",
          "L(PE-SINCOS-SCALED) − L(PE-MORLET) > 0: MoPE against sin/cos at the token embeddings' scale, the "
          "control that leaves locality as the only difference; any gain above 0 is locality's"),
    Claim("rope-matches-base", "PE-ROPE nearly matches BASE-DOT",
          f"PE-ROPE (val = {paper.TABLE_2_VAL['PE-ROPE']:.4f}) nearly matches the learned embedding baseline", "§6.2",
          "equivalence", paper.gap("PE-ROPE", "BASE-DOT"), measures.advantage("PE-ROPE", "BASE-DOT"), "repro-table-2",
          f"L(BASE-DOT) − L(PE-ROPE) within ± {paper.MATCH_MARGIN} (the paper's gap is "
          f"{paper.TABLE_2_DELTA['PE-ROPE']:+.3f})"),
    Claim("rope-beats-mope", "PE-ROPE beats PE-MORLET", paper.table_2_pair("PE-ROPE", "PE-MORLET"), "§6.2", "ordering",
          paper.gap("PE-ROPE", "PE-MORLET"), measures.advantage("PE-ROPE", "PE-MORLET"), "repro-table-2",
          "L(PE-MORLET) − L(PE-ROPE) > 0"),
    Claim("rope-beats-sincos", "PE-ROPE beats PE-SINCOS", paper.table_2_pair("PE-ROPE", "PE-SINCOS"), "§6.2", "ordering",
          paper.gap("PE-ROPE", "PE-SINCOS"), measures.advantage("PE-ROPE", "PE-SINCOS"), "repro-table-2",
          "L(PE-SINCOS) − L(PE-ROPE) > 0"),
    Claim("ega-gain", f"EGA-1 improves on BASE-DOT by {paper.TABLE_2_DELTA['EGA-1']:.3f}",
          f"Table 2: Δ = {paper.TABLE_2_DELTA['EGA-1']:+.3f}", "Table 2", "size",
          paper.TABLE_2_DELTA["EGA-1"], measures.advantage("EGA-1", "BASE-DOT", caveat=measures.noncausal_caveat("EGA-1-CAUSAL")),
          "repro-table-2", f"L(BASE-DOT) − L(EGA-1) against {paper.TABLE_2_DELTA['EGA-1']:.3f} ± {paper.MATCH_MARGIN}"),
    Claim("ega-mope-gain", f"EGA-MORLET improves on BASE-DOT by {paper.TABLE_2_DELTA['EGA-MORLET']:.3f}",
          f"MoPE achieves {paper.TABLE_2_DELTA['EGA-MORLET']:+.3f} improvement over standard attention", "§1, §6.2, §9", "size",
          paper.TABLE_2_DELTA["EGA-MORLET"],
          measures.advantage("EGA-MORLET", "BASE-DOT", caveat=measures.noncausal_caveat("EGA-MORLET-CAUSAL")),
          "repro-table-2", f"L(BASE-DOT) − L(EGA-MORLET) against {paper.TABLE_2_DELTA['EGA-MORLET']:.3f} ± "
          f"{paper.MATCH_MARGIN}"),
    Claim("ega-mope-best", "EGA-MORLET beats EGA-1 (best overall)", "EGA-MORLET combination — best overall",
          "§6.2", "ordering", paper.gap("EGA-MORLET", "EGA-1"), measures.advantage("EGA-MORLET", "EGA-1"), "repro-table-2",
          "L(EGA-1) − L(EGA-MORLET) > 0"),
    Claim("interaction", f"EGA and MoPE interact: +{paper.table_4_delta('Interaction benefit excess'):.3f} beyond the "
          "sum of their gains", f"The excess {paper.table_4_delta('Interaction benefit excess'):.3f} is consistent with "
          "complementarity between the two mechanisms", "§6.4, Table 4",
          "size", paper.table_4_delta("Interaction benefit excess"),
          lambda runs, cfg: (measures.interaction_excess(runs), None), "learned-table-4",
          f"Δ(EGA-MORLET) − Δ(EGA-1) − Δ(PE-MORLET) against {paper.table_4_delta('Interaction benefit excess'):.3f} "
          f"± {paper.MATCH_MARGIN}"),
    Claim("gain-survives-causal-gate", "EGA's gain is salience: it survives a gate that cannot see the future",
          "EGA operates on what to attend to (spectral salience)", "§6.2, §6.4", "mechanism", None, measures.causal_gate_share,
          "stress-causal-gate",
          "EGA-1-CAUSAL's whole-validation gain over BASE-DOT as a share of EGA-1's, seed by seed; above 50%: "
          "a gain that mostly vanishes once the gate stops reading future tokens is not the salience of "
          "what it attends to", loss="val_loss_full", threshold=0.5, signed=False, gain=measures.published_gate_gain),
    Claim("every-pair-pushed", "The optimizer pushes every pair onto ωσ = 5",
          "The optimizer consistently pushes every dimension toward the constraint limit", "§6.3, Fig. 4",
          "every", 1.0, measures.pushed_without_decay, "learned-boundary",
          "PE-MORLET-NODECAY (no weight decay on log ω, log σ, so only the data move them): the share of "
          "pairs whose stored ωσ the data pushed below 5, where the bound holds them; every pair means 1 in "
          "every seed", loss=None, signed=False),
    Claim("below-without-bound", "Without the bound, the pairs would go below ωσ = 5",
          "the underlying gradient consistently favors stronger locality … than the constraint permits", "§6.3",
          "mechanism", None, measures.below_bound_without_projection, "open-bound",
          "PE-MORLET-FREE: median over pairs of the stored ωσ minus where decay alone leaves it; below 0",
          loss=None, side=-1),
    Claim("sigma-set-by-data", "σ ∈ [1.49, 4.50]: the data put MoPE at the character-to-word scale",
          "the model allocates all representational capacity accordingly", "§6.3, §7", "mechanism", None,
          measures.sigma_set_by_data, "learned-table-3",
          "EGA-MORLET: the share of σ's way from its initial value (in log) that the data account for, beyond "
          "weight decay alone (median over pairs); above 50%: the data, not the decay, put σ where it is",
          loss=None, threshold=0.5, signed=False),
    Claim("mope-beats-nope", "MoPE carries useful position: PE-MORLET beats NOPE",
          "(implicit: MoPE is offered as a positional encoding)", "§7", "ordering", None,
          measures.advantage("PE-MORLET", "NOPE"), "stress-mope-vs-nope", "L(NOPE) − L(PE-MORLET) > 0", source="ours"),
    Claim("extrapolates", "MoPE generalizes to longer contexts",
          "MoPE generalizes via its wavelet structure", "§7", "mechanism", None, measures.extrapolation,
          "stress-extrapolation",
          "PE-MORLET: whole-validation loss at 4× the training context minus at 1×; below 0: a model that "
          "generalises to longer contexts does not get worse on them", loss="val_loss_full", side=-1),
    Claim("morlet-rope", "Gaussian locality would improve RoPE (Morlet-RoPE)",
          "Adding locality (σ_i<∞) would improve RoPE in the same way that MoPE improves sin/cos", "§7",
          "ordering", None, measures.advantage("MORLET-ROPE", "ROPE-ONLY"), "open-rope",
          "L(ROPE-ONLY) − L(MORLET-ROPE) > 0"),
    Claim("deficit-shrinks-with-context", "MoPE's deficit against the learned table shrinks as the context grows",
          "The theoretical advantage of MoPE would be expected to dominate at longer context lengths", "§7",
          "ordering", None, measures.gap_change("BASE-DOT", "PE-MORLET"), "stress-context-length",
          "[L(PE-MORLET) − L(BASE-DOT)] at T=64 minus at T=256 (cpu, cpu-long), seed by seed; above 0 "
          "(fixed before the cpu-long runs)", across_contexts=True),
    Claim("sincos-gap-grows-with-context", "MoPE's advantage over sin/cos grows with the context",
          "The theoretical advantage of MoPE over sin/cos PE grows with context length T", "§7", "ordering", None,
          measures.gap_change("PE-SINCOS", "PE-MORLET"), "stress-context-length",
          "[L(PE-SINCOS) − L(PE-MORLET)] at T=256 minus at T=64 (cpu-long, cpu), seed by seed; above 0 "
          "(fixed before the cpu-long runs)", across_contexts=True),
    # The paper's open questions (issue 32), each rule fixed before the runs that decide it: the subword
    # preset cpu-bpe and seeds 1-4 of the cpu controls. Their estimands: mope.evidence.open_questions.
    Claim("subword-sigma-beyond-words", "At subword tokens MoPE's σ reaches beyond the character-to-word scale",
          "Whether MoPE produces broader σ_i values spanning clause and sentence scales at word-level "
          "tokenization and larger context remains open", "§7", "mechanism", None, open_questions.sigma_beyond_words,
          "open-subword",
          "PE-MORLET on cpu-bpe (judged beside cpu, its character twin): the share of pairs whose σ covers more than "
          "two words (2 × 5.53 = 11.1 characters, 4.74 tokens at 2.33 characters a token on the validation split) "
          "and lies above where weight decay alone leaves it; above 10%: a tenth of the pairs at a scale that "
          "no pair of the character runs and no decay-only pair reaches is a broader σ, not a stray pair",
          loss=None, threshold=open_questions.SHARE_BEYOND, signed=False, across_tokenizations=True),
    Claim("subword-deficit-smaller", "MoPE's deficit against the learned table is smaller at subword tokens",
          "Future work should test MoPE at word-level tokenization and long context", "§7, §9", "ordering", None,
          open_questions.deficit_change, "open-subword",
          "[L(PE-MORLET) − L(BASE-DOT)] on the whole validation split in nats a character: at characters (cpu) "
          "minus at subword tokens (cpu-bpe, nats a token divided by 2.33 characters a token), seed by seed; above 0 "
          "(fixed before the cpu-bpe runs). The 64-token window then spans 2.33 times the characters: the tokens and "
          "the context in characters change together", loss="val_loss_full", across_tokenizations=True, source="ours"),
    Claim("centre-improves-mope", "A learned centre b₀ improves MoPE (PE-MORLET-CENTRED beats PE-MORLET)",
          "the natural generalisation uses a learned center b_{0,i} per dimension", "§3, §7", "ordering", None,
          measures.advantage("PE-MORLET-CENTRED", "PE-MORLET"), "open-centre",
          "L(PE-MORLET) − L(PE-MORLET-CENTRED) > 0 (fixed before seeds 1-4)"),
    Claim("centres-leave-origin", "The learned centres move into the window, away from the origin",
          "token 5 intrinsically receives a higher-amplitude positional representation than token 200", "§7",
          "mechanism", None, open_questions.centres_into_window, "open-centre",
          "PE-MORLET-CENTRED: the median over pairs of the centre b₀ in units of its pair's σ; above 1: a peak moved "
          "into the window by more than its own width no longer gives the first positions the most amplitude, the "
          "origin prior the centre was proposed to remove (fixed before seeds 1-4)", loss=None, threshold=1.0),
    Claim("no-bound-improves-loss", "Without the bound ωσ ≥ 5 MoPE's loss improves (PE-MORLET-FREE beats PE-MORLET)",
          "whether relaxing it improves performance is an open question motivated by the boundary saturation "
          "finding", "§7", "ordering", None, measures.advantage("PE-MORLET-FREE", "PE-MORLET"), "open-bound",
          "L(PE-MORLET) − L(PE-MORLET-FREE) > 0 (fixed before seeds 1-4; where the pairs go: the claim "
          "\"Without the bound, the pairs would go below ωσ = 5\")"),
    Claim("morlet-rope-rel", "Gaussian locality on the offset would improve RoPE (MORLET-ROPE-REL)",
          "Adding locality (σ_i<∞) would improve RoPE in the same way that MoPE improves sin/cos", "§7",
          "ordering", None, measures.advantage("MORLET-ROPE-REL", "ROPE-ONLY"), "open-rope",
          "L(ROPE-ONLY) − L(MORLET-ROPE-REL) > 0 (fixed before seeds 1-4)"),
    # The token budget (issue 43): cpu-long against cpu-long-4x, the same model at four times the tokens. Rules
    # fixed before the first cpu-long-4x run, judged at seeds 0-2 (a later seed is a further look). All three read
    # the whole validation split, the same 111,540 characters on both presets, whose random-batch evaluations
    # differ (16 batches of 8 sequences against 16 of 32).
    Claim("ega-mope-deficit-shrinks-with-tokens", "EGA-MORLET's deficit against BASE-DOT is smaller at four times the tokens",
          "(ours: at the paper's protocol EGA-MORLET trails BASE-DOT at step 1,000 and leads from step 2,500 on)",
          "§6.2", "ordering", None, measures.budget_gap_change("EGA-MORLET", "BASE-DOT", grows=False), "repro-token-budget",
          "[L(EGA-MORLET) − L(BASE-DOT)] on the whole validation split on cpu-long minus on cpu-long-4x, unpaired "
          "(Welch: the two presets' seeds share no batches); above 0 (fixed before the cpu-long-4x runs)",
          loss="val_loss_full", across_budgets=True, source="ours", fixed_in=BUDGET_RULES_COMMIT),
    Claim("ega-mope-beats-base-more-tokens", "EGA-MORLET beats BASE-DOT at four times the tokens",
          f"MoPE achieves {paper.TABLE_2_DELTA['EGA-MORLET']:+.3f} improvement over standard attention", "§1, §6.2",
          "ordering", None,
          measures.with_more_tokens(measures.advantage("EGA-MORLET", "BASE-DOT", "val_loss_full")), "repro-token-budget",
          "L(BASE-DOT) − L(EGA-MORLET) on the whole validation split on cpu-long-4x, seed by seed; above 0 (fixed "
          "before the cpu-long-4x runs)", loss="val_loss_full", across_budgets=True, source="ours",
          fixed_in=BUDGET_RULES_COMMIT),
    Claim("ega-gain-grows-with-tokens", "EGA-1's gain over BASE-DOT is larger at four times the tokens",
          f"(ours: the paper's Δ = {paper.TABLE_2_DELTA['EGA-1']:+.3f} is measured at "
          f"{PAPER_TRAINING_TOKENS / 1e6:.0f}M tokens)", "Table 2",
          "ordering", None,
          measures.budget_gap_change("BASE-DOT", "EGA-1", grows=True), "repro-token-budget",
          "[L(BASE-DOT) − L(EGA-1)] on the whole validation split on cpu-long-4x minus on cpu-long, unpaired "
          "(Welch); above 0 (fixed before the cpu-long-4x runs)", loss="val_loss_full", across_budgets=True,
          source="ours", fixed_in=BUDGET_RULES_COMMIT),
)

CLAIMS_BY_KEY: dict[str, Claim] = {claim.key: claim for claim in CLAIMS}


def get_claim(key: str) -> Claim:
    try:
        return CLAIMS_BY_KEY[key]
    except KeyError:
        raise KeyError(f"unknown claim {key!r}; claims: {', '.join(CLAIMS_BY_KEY)}") from None


# --- the claims table ---------------------------------------------------------------------------------

Findings = list[tuple[Claim, Verdict]]


def judge_all(preset: str | TrainConfig, runs: list[dict] | None = None,
              longer: list[dict] | None = None, shorter: list[dict] | None = None,
              more: list[dict] | None = None, fewer: list[dict] | None = None, rule: str = CURRENT_RULE) -> Findings:
    """Every claim judged on ``runs`` (default: the current stored runs of ``preset``); the claims across
    contexts also on ``longer`` (default: the stored runs of the preset's longer-context twin, if it has
    one) or on ``shorter`` (default: those of its shorter-context twin, if it is one's longer twin); the
    claims across token budgets likewise on ``more`` or ``fewer`` (:data:`BUDGET_PAIRS`). Under the current
    ``rule`` the verdicts are then :func:`~mope.evidence.corrections.corrected` as one family, each claim
    at the looks the plan makes at it (:func:`mope.store.plan.looks`); an earlier rule applied no correction."""
    cfg = get_preset(preset) if isinstance(preset, str) else preset
    runs = results.load_results(cfg.name) if runs is None else runs
    if longer is None and cfg.name in CONTEXT_PAIRS:
        longer = results.load_results(CONTEXT_PAIRS[cfg.name])
    twin = next((short for short, long in CONTEXT_PAIRS.items() if long == cfg.name), None)
    if shorter is None and longer is None and twin is not None:
        shorter = results.load_results(twin)
    if more is None and cfg.name in BUDGET_PAIRS:
        more = results.load_results(BUDGET_PAIRS[cfg.name])
    fewer_twin = next((few for few, many in BUDGET_PAIRS.items() if many == cfg.name), None)
    if fewer is None and more is None and fewer_twin is not None:
        fewer = results.load_results(fewer_twin)
    if rule not in RULE_NAMES:
        raise ValueError(f"unknown rule {rule!r}; rules: {', '.join(RULE_NAMES)}")
    judged = [(claim, claim.judge(runs, cfg, longer, shorter, more, fewer, rule)) for claim in CLAIMS]
    if not rule_at_least(rule, "direction and size said apart"):  # a size at `paper` had one outcome, no direction
        judged = [(claim, replace(verdict, direction=None) if verdict.judged_on == "size" else verdict)
                  for claim, verdict in judged]
    if not rule_at_least(rule, "parts, corrected"):
        return judged
    looks = {claim.key: plan.looks(claim.presets_read(cfg.name), claim.key) for claim in CLAIMS}
    if rule_at_least(rule, "families declared before the runs"):  # the declared family; a twin's claims at home alone
        at_home = [(claim.key, verdict) for claim, verdict in judged if claim.home(cfg.name) == cfg.name]
        corrected = dict(corrections.corrected(at_home, looks, family=plan.family(cfg.name), name=cfg.name))
    else:  # every verdict with a p-value, a twin's claims too
        corrected = dict(corrections.corrected([(claim.key, verdict) for claim, verdict in judged], looks))
    if rule_at_least(rule, "one claim, one verdict"):
        corrected.update(verdicts_at_home(cfg.name, runs, longer, more, rule))
    return [(claim, corrected.get(claim.key, verdict)) for claim, verdict in judged]


def preset_findings(preset: str, runs: list[dict] | None = None) -> Findings:
    """The verdicts the claims document (``python -m mope claims --preset P --json``) gives on ``preset``: every claim
    judged on all of the preset's current stored runs, whichever part of them ``runs`` holds (None: all), so that
    no page judges a subset of runs, whose tests would differ from the document's. ``runs`` that are not all among
    the preset's stored runs (a reader's own, or runs made up in a test) are judged as they are given."""
    stored = results.load_results(preset)
    if runs is not None and not {_identity(run) for run in runs} <= {_identity(run) for run in stored}:
        return judge_all(preset, runs)
    return judge_all(preset, stored)


def _identity(run: dict) -> tuple:
    """What tells one stored run from another: its variant, seed, configuration and final loss."""
    return (run.get("variant"), run.get("seed"), run.get("config_hash"), (run.get("final") or {}).get("val_loss"))


def verdicts_at_home(preset: str, runs: list[dict], longer: list[dict] | None,
                     more: list[dict] | None, rule: str = CURRENT_RULE) -> dict[str, Verdict]:
    """{key: verdict} of the claims across two presets that ``preset`` (with ``runs``) shares with a twin that is
    their home (:meth:`Claim.home`: the longer context, the more tokens): each claim judged once, corrected in its
    home's family, so that both presets give it the same verdict."""
    shared = {}
    for pairs, twin_runs, as_twin in ((CONTEXT_PAIRS, longer, "shorter"), (BUDGET_PAIRS, more, "fewer")):
        if preset in pairs and twin_runs is not None:
            at_home = judge_all(pairs[preset], twin_runs, rule=rule, **{as_twin: runs})
            shared.update({claim.key: verdict for claim, verdict in at_home if claim.pairs == pairs})
    return shared


def verdict_of(findings: Findings, key: str) -> Verdict:
    """The verdict of the claim ``key`` among ``findings``."""
    for claim, verdict in findings:
        if claim.key == key:
            return verdict
    raise KeyError(f"no claim {key!r} among the findings")


def rounded(value: float | None) -> float | None:
    return None if value is None else round(float(value), 6)


def record(claim: Claim, verdict: Verdict) -> dict:
    """One claim's verdict as the JSON of ``python -m mope claims --json`` gives it: ``verdict`` in the words of the
    rules, ``plain`` in those of every reading page (:attr:`~mope.evidence.verdicts.Verdict.plain`). ``sd`` is the sd the
    interval uses (the sample sd, at least ``resolution``): mean ± t(``df``)·sd/√n reproduces ``interval`` (``df``:
    n − 1 seed by seed; Welch–Satterthwaite's for two presets' unpaired seeds)."""
    interval = verdict.estimate.interval
    return {"key": claim.key, "claim": claim.words, "quote": claim.quote, "section": claim.section,
            "kind": claim.kind, "paper": claim.paper, "test": claim.test, "shown_in": claim.shown_in,
            "judged_on": verdict.judged_on,
            "ours": rounded(verdict.estimate.mean), "sd": rounded(verdict.estimate.spread), "n": verdict.estimate.n,
            "df": rounded(verdict.estimate.degrees_of_freedom) if interval is not None else None,
            "resolution": verdict.estimate.resolution,
            "interval": None if interval is None else [rounded(bound) for bound in interval],
            "outcome": verdict.outcome, "direction": verdict.direction, "size": verdict.size,
            "seeds_needed": verdict.seeds_needed,
            "seeds_needed_range": None if verdict.seeds_range is None else list(verdict.seeds_range),
            "p_value": None if verdict.p_value is None else float(f"{verdict.p_value:.3g}"),
            "p_adjusted": None if verdict.p_adjusted is None else float(f"{verdict.p_adjusted:.3g}"),
            "family": verdict.family, "family_size": verdict.family_size,
            "source": claim.source, "fixed_in": claim.fixed_in,
            "loss": LOSSES.get(claim.loss) if claim.loss else None, "caveat": verdict.caveat,
            "verdict": verdict.text, "plain": verdict.plain}


def claim_records(preset: str | TrainConfig, runs: list[dict] | None = None,
                  longer: list[dict] | None = None) -> list[dict]:
    """One dict per claim (:func:`record`): the JSON of the CLI."""
    return [record(claim, verdict) for claim, verdict in judge_all(preset, runs, longer)]


def number_text(value: float | None, signed: bool) -> str:
    return DASH if value is None else f"{value:+.3f}" if signed else f"{value:.3f}"


def plain(markdown: str) -> str:
    """``markdown`` without emphasis, one line per paragraph or list item (for the terminal)."""
    text = markdown.replace("\n* ", "\n- ").replace("**", "").replace("*", "")
    return "\n".join(" ".join(block.split()) for block in re.split(r"\n\n|\n(?=- )", text))


def claims_report(preset: str) -> str:
    """The claims table of ``preset`` for the terminal (``python -m mope claims --preset P``; its ``--json``
    is :func:`mope.evidence.claims_json.claims_document`)."""
    header = ("claim", "where", "paper", "ours (± sd, n)", "verdict")
    runs = results.load_results(preset)
    verdicts = judge_all(preset, runs)
    rows = [header] + [(claim.words, claim.tag, paper_text(claim), estimate_text(claim, verdict),
                        verdict.text + (f" [{verdict.caveat}]" if verdict.caveat else ""))
                       for claim, verdict in verdicts]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1] for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    vocabulary = "\n".join(" ".join(line.strip("|").split("|")[0].split()) + ": " + line.split("|")[2].strip()
                           for line in VOCABULARY.splitlines() if line.startswith("| **"))
    return "\n".join([f"The paper's claims against preset {preset!r} ({len(runs)} current runs)", *lines, "",
                      plain(vocabulary)])


def estimate_text(claim: Claim, verdict: Verdict) -> str:
    """"+0.186 ± 0.050 (n=3)", or a share as a percentage."""
    if not verdict.estimate.n:
        return DASH
    if not claim.signed:
        spread = f" ± {verdict.estimate.spread:.0%}" if verdict.estimate.n > 1 else ""
        return f"{verdict.estimate.mean:.0%}{spread} (n={verdict.estimate.n})"
    return verdict.estimate.format(signed=claim.signed)


def paper_text(claim: Claim) -> str:
    if claim.paper is None:
        return DASH
    if claim.kind == "every":
        return "all"
    return number_text(claim.paper, claim.signed)
