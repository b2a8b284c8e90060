r"""The verdict rules: what one claim's measurement on one preset lets us say, in words defined once.

A rule per kind of statement a claim makes, each the paper's statement read literally:

``ordering``
    "A beats B": the effect (how much lower A's loss is) lies above 0 (:func:`verdict_ordering`).
``size``
    "A beats B by 0.080": at the paper's protocol (:data:`PAPER_PROTOCOL`), the direction and the size
    against the paper's number ± 0.02 (:data:`mope.evidence.paper.MATCH_MARGIN`), by two one-sided tests
    (:func:`verdict_size`); on any other preset, a smaller model, only the direction is judged, and the
    size is an observation, a ratio to the paper's number with its interval (:func:`verdict_direction`).
``equivalence``
    "A nearly matches B": at the paper's protocol, the gap lies within ± 0.02 of 0, by two one-sided tests
    (:func:`verdict_equivalence`); a near-equality has no direction, so on any other preset it is *not
    judged at this scale* and its gap is shown as a ratio to the paper's (:func:`verdict_not_judged`).
``every``
    "every pair ...": the share of pairs, seed by seed, is 1 (:func:`verdict_every`).
``mechanism``
    an explanation, tested by the control that isolates it against a threshold the claim states
    (:func:`verdict_mechanism`).

Every verdict a test decides carries the p-value of its test; :mod:`mope.evidence.corrections` then applies
Holm's correction over a preset's tests and the sequential threshold of a claim looked at again, and a verdict
that does not survive them reads *undecided after the correction*. The words are defined once
(:data:`VOCABULARY`), with the history of the rules (:data:`~mope.evidence.verdict_rules.RULES`): a verdict can be recomputed under each.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from mope.evidence import paper
from mope.evidence.estimates import (LEVEL, MOST_SEEDS, POWER, RESOLUTION, SD_RANGE, SHARE_RESOLUTION, Estimate,
                                     UnpairedDifference, scipy_stats, seeds_needed, seeds_range)

OUTCOMES = ("confirmed", "refuted", "undecided", "indicative", "moot", "not_judged", "not_run")
DECIDED = ("confirmed", "refuted")
SIZES = ("matches", "smaller", "larger", "undecided")
EQUIVALENCE_LEVEL = 0.90  # two one-sided tests at 5% each: the 90% interval inside the band
MARGIN = paper.MATCH_MARGIN
#: The one preset whose protocol is the paper's: only there is a size or a near-equality tested against
#: the paper's number; elsewhere the model is another (smaller, shorter-context, shorter-trained) one, whose
#: sizes are its own: a size claim is judged on its direction there, a near-equality not at all.
PAPER_PROTOCOL = "paper"
FAMILY_LEVEL = 0.05  # Holm's correction keeps the chance of any false verdict among a preset's at 5%
#: Pocock's nominal level for each of K equally spaced looks at an overall 5% (two-sided; Pocock 1977,
#: Table 1): a claim judged again after more seeds is decided at this level, not at 5%.
POCOCK_LEVELS = {1: 0.05, 2: 0.0294, 3: 0.0221, 4: 0.0182, 5: 0.0158}


#: The verdicts in words, defined once; the book shows this table beside the claims table.
VOCABULARY = rf"""| verdict | what it means |
|---|---|
| **confirmed** | The claim holds as the paper states it. "A beats B": the 95% interval of the effect (seed by seed) lies above 0. A size ("by 0.080"), at the paper's protocol: the {EQUIVALENCE_LEVEL:.0%} interval lies inside the paper's number ± {MARGIN} nats (two one-sided tests); a near-equality ("nearly matches"): inside 0 ± {MARGIN}. "Every pair": every pair, in every seed. A mechanism: the interval clears the threshold the claim states. |
| **direction confirmed** | A size claim on a smaller model (every preset but `{PAPER_PROTOCOL}`): only its direction is judged, and it holds (the 95% interval lies on the paper's side of 0); its size is not judged at this scale and is shown as a ratio to the paper's, with its 95% interval, as that model's. **direction refuted**: the interval lies on the other side. |
| **refuted** | The claim fails as stated: the 95% interval lies on the other side of 0 or of the threshold, or, at the paper's protocol, outside the paper's number ± {MARGIN} (*N× smaller* or *N× larger* says which way a size misses; *direction confirmed* that the sign still holds); "every pair": a seed in which some pair is not. |
| **undecided** | Neither: the interval is too wide. The row gives the seeds, in all, that would decide it with {POWER:.0%} probability if the effect and the spread are what we measured, at the strictest level its correction can need (Holm's at the first rank, which more seeds can move it to), and in brackets the same at both ends of the {SD_RANGE:.0%} interval of that spread (a spread measured on 3 seeds is itself uncertain), or says that {MOST_SEEDS} would not. A size at the paper's protocol whose direction is decided (its 95% interval on one side of 0, at Bonferroni's level over the preset's family) and whose size is not says both: *direction confirmed*, size undecided. |
| **undecided after the correction** | Decided at 95% on its own, but not once Holm's correction over every test of its preset is applied (adjusted p of 0.05 or more; the raw p beside it; a claim across two presets, two contexts or two token budgets, is decided in the family of the one with the longer context or the more tokens, and gets that verdict on both), or, for a claim looked at again after more seeds, not at the sequential level of its looks (Pocock: p < {POCOCK_LEVELS[2]} at each of two looks for 5% overall). |
| **not judged at this scale** | A near-equality ("nearly matches") on a smaller model: a near-equality has no direction, and the paper's margin belongs to its protocol, so no verdict; the gap is shown as a ratio to the paper's, with its 95% interval. |
| **indicative** | One seed: no interval, no verdict; the direction and size it shows. |
| **moot** | The claim explains a gain our runs do not show (a share of a mean gain that is 0 or less): nothing to explain, no verdict. |
| **not run** | The runs it needs are not stored. |

± {MARGIN} nats is the paper's own precision: its Δ is the difference of two single runs, and two
runs of one model differ in the paper by {paper.RUN_TO_RUN} (EGA-1: {paper.EGA_1_IN_FIRST_PAPER} in
{{cite}}`zeris2026ega`, {paper.TABLE_2_VAL["EGA-1"]} here), so a Δ of the paper is uncertain by about
±1.96 × {paper.RUN_TO_RUN} ≈ ±{MARGIN}. The thresholds of the mechanisms are stated, each with its
reason, in the `test` field of `python -m mope claims --json`. An interval takes the sd over seeds but
never less than the numbers' resolution ({RESOLUTION} nats; {SHARE_RESOLUTION:.0%} for a share): two seeds that agree to the
fifth decimal are not more certain than that; the "± sd" shown is that floored sd. Every record of
`python -m mope claims --json` gives its test's `p_value` and `p_adjusted`, the latter after Holm's
correction over the preset's tests (a further look's p first scaled by 0.05 over its Pocock level)."""

#: The outcomes of the claims document (its ``outcome`` field) in the words every reading page uses, one an
#: outcome and no two alike: words a reader knows without a glossary. The statistics behind them (the test, its
#: p-value, the correction) stay in the record's fields and one click away on each page (:data:`VOCABULARY`).
PLAIN_WORDS = {"confirmed": "holds", "refuted": "fails", "undecided": "not settled", "indicative": "one seed only",
               "not_judged": "cannot be tested at this scale", "moot": "nothing to explain", "not_run": "not run"}

#: What each plain word means, for a reader with no statistics; the rules in full: :data:`VOCABULARY`.
PLAIN_MEANINGS = {
    "confirmed": "Our seeds show what the paper says, beyond chance (*in its direction*: which model wins, on a "
                 "smaller model than the paper's, not by how much).",
    "refuted": "Our seeds show the opposite, or a size clearly not the paper's, beyond chance.",
    "undecided": "Our seeds cannot tell it from chance; it says how many seeds would settle it if the effect is what "
                 "we measured. A size whose direction our seeds settle says so apart: \"holds in direction: ...; "
                 "whether the size is the paper's is not settled yet\".",
    "indicative": "One run a model: a direction, not whether chance made it.",
    "not_judged": "\"Nearly matches\" on a smaller model: the paper's margin belongs to its own model.",
    "moot": "It explains a gain our runs do not show.",
    "not_run": "The runs it needs are not stored.",
}
PLAIN_VOCABULARY = "| verdict (its `outcome` in the JSON) | what it means |\n|---|---|\n" + "\n".join(
    f"| **{PLAIN_WORDS[outcome]}** (`{outcome}`) | {PLAIN_MEANINGS[outcome]} |" for outcome in OUTCOMES)

OUTCOME_WORDS = {"confirmed": "confirmed", "refuted": "refuted", "undecided": "undecided",
                 "indicative": "indicative", "moot": "moot", "not_judged": "not judged at this scale",
                 "not_run": "not run"}
CORRECTED_WORDS = "undecided after the correction"


# --- the verdict ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Verdict:
    """Our measurement of one claim on one preset, and what the claim's rule concludes from it."""

    estimate: Estimate
    outcome: str  # one of OUTCOMES
    size: str | None = None  # size claims at the paper's protocol: one of SIZES
    detail: str = ""  # what qualifies the outcome: "2.3× larger (direction confirmed)", "91% of pairs"
    seeds_needed: int | None = None  # undecided: the seeds in all that would decide it (None: more than 50)
    caveat: str | None = None  # what a control of ours says about the effect
    seeds_range: tuple[int | None, int | None] | None = None  # undecided: seeds_needed over the plausible sds
    p_value: float | None = None  # its test's p-value (two-sided t; two one-sided tests: the larger); None: no test
    judged_on: str | None = None  # a size or near-equality claim: "size" (the paper's protocol) or "direction"
    p_adjusted: float | None = None  # p after the sequential level and Holm's correction (corrections.corrected)
    looks: int = 1  # how many looks at the claim the plan makes on this preset (mope.store.plan.looks)
    corrected: bool = False  # decided at 95% alone, undecided once the correction is applied
    # what its test decides, in the test's own units: (low, high, level, mean) = the mean, the interval at ``level``
    # that must lie inside (low, high) to decide it the way the mean points; what seeds_needed reads at another level
    test: tuple[float, float, float, float] | None = None
    family: str | None = None  # the family it was corrected in: the preset whose plan declares it
    family_size: int | None = None  # the tests of that family
    # a size claim: its direction's outcome apart from its size's (on `paper` its 95% interval against 0 at Bonferroni's
    # level over the family, :func:`mope.evidence.corrections.corrected`; elsewhere the outcome); None for any other
    direction: str | None = None
    direction_p: float | None = None  # on `paper`: the p-value of the direction's t test against 0
    claimed: float | None = None  # a size claim: the paper's number

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise ValueError(f"outcome {self.outcome!r} is not one of {OUTCOMES}")
        if self.size is not None and self.size not in SIZES:
            raise ValueError(f"size {self.size!r} is not one of {SIZES}")

    @property
    def word(self) -> str:
        """"confirmed", "direction confirmed", "refuted", "undecided", "undecided after the correction",
        "not judged at this scale", "indicative", "moot", "not run"."""
        if self.corrected:
            return CORRECTED_WORDS
        if self.judged_on == "direction" and self.outcome in DECIDED:
            return f"direction {self.outcome}"
        return OUTCOME_WORDS[self.outcome]

    @property
    def text(self) -> str:
        """The verdict with its statistics: the word, then what qualifies it (the JSON's ``verdict``)."""
        return f"{self.word}: {self.detail}" if self.detail else self.word

    @property
    def plain_word(self) -> str:
        """The outcome's plain word (:data:`PLAIN_WORDS`): "holds", "not settled", ...; a size judged on its
        direction alone "holds in its direction"; a :attr:`size_open` "holds in direction"."""
        if self.size_open:
            return f"{PLAIN_WORDS[self.direction]} in direction"
        direction = " in its direction" if self.judged_on == "direction" and self.outcome in DECIDED else ""
        return PLAIN_WORDS[self.outcome] + direction

    @property
    def plain_detail(self) -> str:
        """What qualifies :attr:`plain_word`, with no statistic: for a verdict not settled, the seeds that would
        settle it (at the strictest level its correction can need); else the detail, its "one seed" said by the word."""
        if self.outcome == "undecided":
            return settle_text(self.seeds_needed, isinstance(self.estimate, UnpairedDifference))
        return self.detail.removeprefix("one seed, ") if self.outcome == "indicative" else self.detail

    @property
    def size_open(self) -> bool:  # a size at the paper's protocol whose direction is decided and whose size is not yet
        return self.outcome == "undecided" and self.direction in DECIDED and self.judged_on == "size"

    @property
    def plain(self) -> str:
        """The verdict as a reading page shows it: "not settled (about 13 seeds if the effect ...)", "holds",
        "fails: the other way round"; a :attr:`size_open` says both ("holds in direction: ...; whether the size ...")."""
        if self.size_open:
            return f"{self.plain_word}: {direction_words(self)}; whether the size is the paper's is " \
                   f"{PLAIN_WORDS['undecided']} yet ({self.plain_detail})"
        if self.outcome == "undecided":
            return f"{self.plain_word} ({self.plain_detail})"
        return f"{self.plain_word}: {self.plain_detail}" if self.plain_detail else self.plain_word

    def with_caveat(self, caveat: str | None) -> "Verdict":
        return replace(self, caveat=caveat)


def direction_words(verdict: Verdict) -> str:
    """"the paper's way in each of its 3 seeds, 0.112 against the paper's 0.119": a size claim's seeds and mean."""
    sign = math.copysign(1.0, verdict.claimed) * (1 if verdict.direction == "confirmed" else -1)
    values = list(verdict.estimate.values.values())
    agree = sum(sign * value > 0 for value in values)
    way = "the paper's way" if verdict.direction == "confirmed" else "the other way"
    seeds = f"each of its {len(values)} seeds" if agree == len(values) else f"{agree} of its {len(values)} seeds"
    return f"{way} in {seeds}, {verdict.estimate.mean:.3f} against the paper's {verdict.claimed:.3f}"


def p_value(estimate: Estimate, boundary: float) -> float:
    """Two-sided p-value of the t test of the mean against ``boundary``, with the floored sd the
    intervals use: below 0.05 exactly when the 95% interval excludes ``boundary``."""
    stats = scipy_stats()

    t = (estimate.mean - boundary) / estimate.standard_error
    return float(2 * stats.t.sf(abs(t), estimate.degrees_of_freedom))


def tested(estimate: Estimate, boundary: float) -> dict:
    """The ``p_value`` of the t test of ``estimate`` against ``boundary``, and the ``test`` a verdict records:
    its 95% interval on the side of ``boundary`` the mean lies on."""
    return {"p_value": p_value(estimate, boundary), "test": (*_beyond(estimate.mean, boundary), LEVEL, estimate.mean)}


def tested_band(estimate: Estimate, low: float, high: float) -> dict:
    """The ``p_value`` of two one-sided tests that the mean of ``estimate`` lies in (``low``, ``high``), and the
    ``test`` a verdict records: its 90% interval inside the band."""
    return {"p_value": band_p_value(estimate, low, high), "test": (low, high, EQUIVALENCE_LEVEL, estimate.mean)}


def band_p_value(estimate: Estimate, low: float, high: float) -> float:
    """The p-value of two one-sided tests that the mean lies inside (``low``, ``high``): the larger of the
    two one-sided p-values, below 0.05 exactly when the 90% interval lies inside."""
    stats = scipy_stats()

    error, df = estimate.standard_error, estimate.degrees_of_freedom
    return float(max(stats.t.sf((estimate.mean - low) / error, df), stats.t.sf((high - estimate.mean) / error, df)))


def size_ratio(ours: float, claimed: float, interval: tuple[float, float] | None = None) -> str:
    """"7.4× smaller", "1.3× larger", "the other sign" (only when the 95% ``interval`` lies on the other side
    of 0), "a sign still open" (a mean of the other sign whose interval reaches 0) or, with one seed and no
    interval, "against the claimed sign": our effect against the paper's."""
    if ours == 0 or claimed == 0:
        return "no effect" if ours == 0 else "the paper reports none"
    ratio = ours / claimed
    if ratio < 0:
        if interval is None:
            return "against the claimed sign"
        other_side = max(bound * math.copysign(1.0, claimed) for bound in interval) < 0
        return "the other sign" if other_side else "a sign still open"
    return f"{ratio:.2g}× larger" if ratio >= 1 else f"{1 / ratio:.2g}× smaller"


def decision_text(needed: int | None, seeds_range: tuple[int | None, int | None] | None,
                  each_preset: bool = False) -> str:
    """"13 seeds in all would decide it (4–26)", or "50 seeds would not decide it"; in brackets the seeds
    at the two ends of the range of plausible sds (:func:`~mope.evidence.estimates.seeds_range`). ``each_preset``:
    an unpaired difference of two presets, which needs that many seeds on each (seeds added to one alone never
    shrink the other's share of the error)."""
    if needed is None:
        return f"{MOST_SEEDS} seeds {'on each of the two presets ' if each_preset else ''}would not decide it"
    text = f"{needed} seeds {'on each of the two presets' if each_preset else 'in all'} would decide it"
    if seeds_range is not None:
        low, high = seeds_range
        text += f" ({low}–{high})" if high is not None else f" ({low} to over {MOST_SEEDS})"
    return text


def settle_text(needed: int | None, each_preset: bool = False) -> str:
    """"about 13 seeds if the effect is what we measured" (that would settle it with 80% power), "50
    seeds would not settle it": :func:`decision_text` in plain words, without the range (``each_preset``: "on each")."""
    each = " on each of the two presets" if each_preset else ""
    return (f"{MOST_SEEDS} seeds{each} would not settle it" if needed is None else
            f"about {needed} seeds{each} if the effect is what we measured")


def _undecided(estimate: Estimate, low: float = 0.0, high: float = math.inf, level: float = LEVEL,
               detail: str = "", size: str | None = None, mean: float | None = None,
               p: float | None = None) -> Verdict:
    """Undecided, with the seeds in all that would put the ``level`` interval inside (``low``, ``high``),
    the side the mean (``mean``: on the claim's side, default the estimate's) lies on, and ``p``, the
    p-value of the test that did not decide it (it counts among a preset's tests, :func:`holm`)."""
    mean = estimate.mean if mean is None else mean
    needed, spread, decide = seeds_to_decide(estimate, low, high, level, mean)
    return Verdict(estimate, "undecided", size, f"{detail}; {decide}" if detail else decide, needed,
                   seeds_range=spread, p_value=p, test=(low, high, level, mean))


def seeds_to_decide(estimate: Estimate, low: float, high: float, level: float,
                    mean: float) -> tuple[int | None, tuple[int | None, int | None] | None, str]:
    """(seeds needed, their range over the plausible sds, the words of :func:`decision_text`) for the ``level``
    interval of ``estimate``, its mean taken as ``mean``, to lie inside (``low``, ``high``)."""
    needed = seeds_needed(estimate.spread, mean, low, high, level)
    spread = (seeds_range(estimate.spread, estimate.n, mean, low, high, level, estimate.resolution)
              if needed is not None else None)
    return needed, spread, decision_text(needed, spread, isinstance(estimate, UnpairedDifference))


def _beyond(mean: float, boundary: float) -> tuple[float, float]:
    """The side of ``boundary`` that ``mean`` lies on, as an interval (low, high)."""
    return (boundary, math.inf) if mean > boundary else (-math.inf, boundary)


def identical(estimate: Estimate) -> bool:
    """Whether the seeds of ``estimate``, two or more, give one value (sd 0), as copies of one run do: they tell
    nothing of how seeds differ, and the resolution floor alone would set the interval. A size claim counts them
    as one seed (three copies of one run were "confirmed: size matches")."""
    return estimate.n > 1 and estimate.sd == 0


def identical_words(estimate: Estimate) -> str:
    return (f"; its {estimate.n} seeds give one value (sd 0), as copies of one run do, so they count as one"
            if identical(estimate) else "")


def _indicative(estimate: Estimate, detail: str, size: str | None = None) -> Verdict:
    return Verdict(estimate, "indicative", size, f"one seed, {detail}")


def verdict_ordering(estimate: Estimate) -> Verdict:
    """"A beats B", the effect being how much lower A's loss is: above 0."""
    if not estimate.n:
        return Verdict(estimate, "not_run")
    if estimate.n == 1:
        side = "in the claimed direction" if estimate.mean > 0 else "against the claim"
        return _indicative(estimate, side if estimate.mean else "no difference")
    low, high = estimate.interval
    if low > 0:
        return Verdict(estimate, "confirmed", **tested(estimate, 0.0))
    if high < 0:
        return Verdict(estimate, "refuted", detail="the other way round", **tested(estimate, 0.0))
    return _undecided(estimate, *_beyond(estimate.mean, 0.0), p=p_value(estimate, 0.0))


def ratio_text(estimate: Estimate, claimed: float, preset: str, per_token: float = 1.0) -> str:
    """"2.3× the paper's size on `cpu` (95%: 1.7 to 2.9×)": our effect over the paper's, with its interval,
    named as the preset's. The paper's losses are nats a character: an effect in nats a subword token is divided
    by ``per_token``, the characters a token covers, before it is set against the paper's ("per character")."""
    claimed *= per_token
    said = ["per character"] if per_token != 1.0 else []
    if estimate.interval is not None:
        low, high = sorted(bound / claimed for bound in estimate.interval)
        said.append(f"95%: {low:.2g} to {high:.2g}×")
    return f"{estimate.mean / claimed:.2g}× the paper's size on `{preset}`" + (f" ({'; '.join(said)})" if said else "")


def verdict_direction(estimate: Estimate, claimed: float, preset: str, per_token: float = 1.0) -> Verdict:
    """A size claim on a preset that is not the paper's protocol: the direction of the paper's number is
    tested (as an ordering), never its size, which is an observation: a ratio with its interval, named as
    ``preset``'s (per character where a token covers ``per_token`` characters, :func:`ratio_text`). The verdict
    reads "direction confirmed" or "direction refuted" (:attr:`Verdict.word`)."""
    if not estimate.n:
        return Verdict(estimate, "not_run", judged_on="direction")
    sign = math.copysign(1.0, claimed)
    oriented = Estimate({s: sign * v for s, v in estimate.values.items()}, estimate.resolution)
    direction = verdict_ordering(oriented)
    ratio = f"{ratio_text(estimate, claimed, preset, per_token)}, a size not judged at this scale"
    if direction.outcome == "indicative" or identical(estimate):
        side = "the paper's direction" if oriented.mean > 0 else "against the paper's direction"
        return replace(_indicative(estimate, f"{side}; {ratio}{identical_words(estimate)}"), judged_on="direction")
    if direction.outcome == "confirmed":
        return Verdict(estimate, "confirmed", detail=ratio, p_value=direction.p_value, test=direction.test,
                       judged_on="direction", direction="confirmed", claimed=claimed)
    if direction.outcome == "refuted":
        return Verdict(estimate, "refuted", detail=f"the other way round; {ratio}", p_value=direction.p_value,
                       test=direction.test, judged_on="direction", direction="refuted", claimed=claimed)
    return replace(direction, estimate=estimate, detail=f"direction open; {ratio}; " + direction.detail,
                   judged_on="direction", direction="undecided", claimed=claimed)


def verdict_not_judged(estimate: Estimate, claimed: float, preset: str, per_token: float = 1.0) -> Verdict:
    """A near-equality on a preset that is not the paper's protocol: not judged (a near-equality has no
    direction, and its margin is the paper's protocol's); the observation is the gap as a ratio to the
    paper's, with its 95% interval, named as ``preset``'s (per character, :func:`ratio_text`)."""
    if not estimate.n:
        return Verdict(estimate, "not_run")
    seeds = "one seed, " if estimate.n == 1 else ""
    return Verdict(estimate, "not_judged", detail=f"{seeds}a gap {ratio_text(estimate, claimed, preset, per_token)}")


def verdict_size(estimate: Estimate, claimed: float, margin: float = MARGIN) -> Verdict:
    """"A beats B by ``claimed``", at the paper's protocol: matches when the 90% interval lies in ``claimed``
    ± ``margin``; smaller or larger (refuted) when the 95% interval lies below or above that band."""
    if not estimate.n:
        return Verdict(estimate, "not_run")
    ratio = size_ratio(estimate.mean, claimed, estimate.interval)
    sign = math.copysign(1.0, claimed)
    magnitude = abs(claimed)
    if estimate.n == 1 or identical(estimate):
        return _indicative(estimate, ratio + identical_words(estimate))
    # everything on the paper's side: e > 0 means in the claimed direction
    oriented = Estimate({s: sign * v for s, v in estimate.values.items()}, estimate.resolution)
    verdict = _size(estimate, oriented, ratio, magnitude, margin)
    direction = "confirmed" if oriented.interval[0] > 0 else "refuted" if oriented.interval[1] < 0 else "undecided"
    return replace(verdict, direction=direction, direction_p=p_value(oriented, 0.0), claimed=claimed)


def _size(estimate: Estimate, oriented: Estimate, ratio: str, magnitude: float, margin: float) -> Verdict:
    """:func:`verdict_size` of ``estimate`` (``oriented``: on the paper's side), its direction not yet recorded apart."""
    low95, high95 = oriented.interval
    low90, high90 = oriented.interval_at(EQUIVALENCE_LEVEL)
    mean = oriented.mean
    edge_low, edge_high = magnitude - margin, magnitude + margin
    direction = "confirmed" if low95 > 0 else "refuted" if high95 < 0 else "undecided"
    if high95 < 0:
        return Verdict(estimate, "refuted", "smaller", "the other sign", **tested(oriented, 0.0))
    if edge_low <= low90 and high90 <= edge_high:
        return Verdict(estimate, "confirmed", "matches", "size matches", **tested_band(oriented, edge_low, edge_high))
    confirmed_sign = " (direction confirmed)" if direction == "confirmed" else ""
    if high95 < edge_low:
        detail = ratio + confirmed_sign if mean > 0 else f"smaller, {ratio}"  # "smaller, a sign still open"
        return Verdict(estimate, "refuted", "smaller", detail, **tested(oriented, edge_low))
    if low95 > edge_high:
        return Verdict(estimate, "refuted", "larger", ratio + confirmed_sign, **tested(oriented, edge_high))
    detail = f"{ratio} so far{confirmed_sign.replace(' (', '; ').rstrip(')')}"
    if edge_low < mean < edge_high:  # inside the band: what decides it is the 90% interval inside
        return _undecided(estimate, edge_low, edge_high, EQUIVALENCE_LEVEL, detail, "undecided", mean,
                          band_p_value(oriented, edge_low, edge_high))
    edge = edge_low if mean <= edge_low else edge_high
    return _undecided(estimate, *_beyond(mean, edge), LEVEL, detail, "undecided", mean, p_value(oriented, edge))


def verdict_equivalence(estimate: Estimate, claimed: float, margin: float = MARGIN) -> Verdict:
    """"A nearly matches B" (the paper's gap ``claimed``), at the paper's protocol: the gap lies within
    ± ``margin`` of 0."""
    if not estimate.n:
        return Verdict(estimate, "not_run")
    where = "inside" if abs(estimate.mean) <= margin else "outside"
    if estimate.n == 1:
        return _indicative(estimate, f"{where} ±{margin}")
    low90, high90 = estimate.interval_at(EQUIVALENCE_LEVEL)
    low95, high95 = estimate.interval
    if -margin <= low90 and high90 <= margin:
        return Verdict(estimate, "confirmed", detail=f"within ±{margin}", **tested_band(estimate, -margin, margin))
    if low95 > margin or high95 < -margin:
        same_sign = estimate.mean * claimed > 0
        gap = f"a gap {estimate.mean / claimed:.2g}× the paper's, " if same_sign else ""
        edge = margin if low95 > margin else -margin
        return Verdict(estimate, "refuted", detail=f"{gap}outside ±{margin}", **tested(estimate, edge))
    if abs(estimate.mean) < margin:
        return _undecided(estimate, -margin, margin, EQUIVALENCE_LEVEL, p=band_p_value(estimate, -margin, margin))
    edge = math.copysign(margin, estimate.mean)
    return _undecided(estimate, *_beyond(estimate.mean, edge), p=p_value(estimate, edge))


def pairs_percent(share: float) -> str:
    """"91%", "99.6%": a share of pairs as a percentage that reads 100% only when every pair is."""
    text = f"{share:.0%}"
    return f"{math.floor(share * 1000) / 10:.1f}%" if share < 1 and text == "100%" else text


def verdict_every(estimate: Estimate) -> Verdict:
    """"Every pair": the share of pairs, seed by seed, is 1 in every seed. A universal statement, so one
    seed below 1 refutes it (a count, not a test: no interval, no p-value)."""
    if not estimate.n:
        return Verdict(estimate, "not_run")
    if estimate.n == 1:
        return _indicative(estimate, f"{pairs_percent(estimate.mean)} of pairs")
    if all(value == 1 for value in estimate.values.values()):
        return Verdict(estimate, "confirmed", detail="every pair in every seed")
    below = sorted(seed for seed, value in estimate.values.items() if value < 1)
    seeds = f"seed{'s' if len(below) > 1 else ''} {', '.join(map(str, below))}"
    return Verdict(estimate, "refuted", detail=f"{pairs_percent(estimate.mean)} of pairs; below 100% in {seeds}")


def threshold_words(threshold: float, share: bool = False) -> str:
    """"0.5", or of a ``share`` "50%": a mechanism's threshold as its statistic is shown beside it."""
    return f"{threshold * 100:g}%" if share else f"{threshold:g}"


def verdict_mechanism(estimate: Estimate, threshold: float, side: int, share: bool = False) -> Verdict:
    """A statistic the mechanism needs above (``side`` = +1) or below (−1) ``threshold``; of a ``share``, the
    threshold is said as the share is shown, in percent ("below 50%", :func:`threshold_words`)."""
    if not estimate.n:
        return Verdict(estimate, "not_run")
    said = threshold_words(threshold, share)
    if estimate.n == 1:
        where = f"{'above' if estimate.mean > threshold else 'below'} {said}"
        return _indicative(estimate, f"{where}, {'the claim' + chr(39) + 's way' if side * (estimate.mean - threshold) > 0 else 'against the claim'}")
    low, high = sorted(side * (bound - threshold) for bound in estimate.interval)
    if low > 0:
        return Verdict(estimate, "confirmed", **tested(estimate, threshold))
    if high < 0:
        return Verdict(estimate, "refuted", detail=f"{'below' if side > 0 else 'above'} {said}",
                       **tested(estimate, threshold))
    return _undecided(estimate, *_beyond(estimate.mean, threshold), p=p_value(estimate, threshold))


def verdict_moot(estimate: Estimate, gain: Estimate) -> Verdict:
    """A share of a gain (``gain``, seed by seed) whose mean is 0 or less: no share, no verdict."""
    return Verdict(estimate, "moot", detail=f"no gain to share: the mean gain is {gain.mean:+.3f} (n={gain.n})")
