"""Each claim's standing across the presets: what its verdicts on every scale trained say together, and which
presets decided it.

A standing never says more than its verdicts: "at every scale that decides it" only where at least two presets decide
the claim the same way and none leaves it undecided; otherwise "where decided", naming the presets that decide
it, those where it is undecided with the way their estimate points, and apart from them the presets with one
seed (`paper` has one seed of each model: it never decides, and its direction is told beside, "`paper`: one seed,
the claim's way"). The verdicts are :mod:`mope.evidence.claims`', corrections applied (``python -m mope claims --standing``).
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from mope.evidence import claims
from mope.evidence.claims import CLAIMS, Claim, Findings, presets_named, verdict_of
from mope.evidence.verdicts import MARGIN, PLAIN_WORDS, Verdict
from mope.store.presets import STANDING_PRESETS

HOLDS_EVERYWHERE, HOLDS_WHERE_DECIDED = "holds at every scale that decides it", "holds where decided"
FAILS_EVERYWHERE, FAILS_WHERE_DECIDED = "fails at every scale that decides it", "fails where decided"
DEPENDS, UNDECIDED, INDICATIVE = "depends on the scale", "not settled wherever tested", "one seed only wherever tested"
NOT_JUDGED, NOT_TESTED = "cannot be tested at these scales", "not tested"
STANDINGS = (HOLDS_EVERYWHERE, HOLDS_WHERE_DECIDED, FAILS_EVERYWHERE, FAILS_WHERE_DECIDED, DEPENDS, UNDECIDED,
             INDICATIVE, NOT_JUDGED, NOT_TESTED)
#: Fewest presets that must decide a claim, and the same way, for "at every scale that decides it".
EVERY_SCALE = 2

#: The standings in words, defined once; the book shows this table beside the claims table.
STANDING_VOCABULARY = f"""| standing | what it means |
|---|---|
| **{HOLDS_EVERYWHERE}** | Confirmed on every preset that decides the claim, at least {EVERY_SCALE} decide it, and none leaves it undecided. |
| **{HOLDS_WHERE_DECIDED}** | Confirmed where decided, but decided on fewer than {EVERY_SCALE} presets or undecided on some: it names them. |
| **{FAILS_EVERYWHERE}** | Refuted on every preset that decides it, at least {EVERY_SCALE} decide it, and none leaves it undecided. |
| **{FAILS_WHERE_DECIDED}** | Refuted where decided, on fewer than {EVERY_SCALE} presets or undecided on some. |
| **{DEPENDS}** | Confirmed on some presets and refuted on others; it names where it holds and where it fails. |
| **{UNDECIDED}** | No preset decides it, and at least one has several seeds. |
| **{INDICATIVE}** | One seed wherever it was tested (elsewhere not run, or not testable there): a direction, no verdict. |
| **{NOT_JUDGED}** | A near-equality, judged at the paper's protocol alone, where it has no runs of several seeds. |
| **{NOT_TESTED}** | No preset holds the runs it needs (or the gain it explains is absent, *moot*). |

Every standing names the presets that decide the claim, those where it is undecided (after the correction
or not) and which way their estimate points there (a way the seeds cannot yet tell from chance), and apart from
them those with one seed and which way that seed points (`paper` has one seed of each model). A size holds or
fails on a preset other than `paper` by its direction only, and on `paper` by its direction too where that is
settled and its size not yet (named beside)."""


def points_the_claims_way(claim: Claim, verdict: Verdict) -> bool:
    """Whether one seed's measurement points the claim's way: the paper's sign for a comparison, a gap inside
    the paper's precision for a near-equality, the claim's side of its threshold for a mechanism, every pair
    for "every"."""
    mean = verdict.estimate.mean
    if claim.kind == "equivalence":
        return abs(mean) <= MARGIN
    if claim.kind == "mechanism":
        return claim.side * (mean - claim.threshold) > 0
    if claim.kind == "every":
        return mean == 1
    return mean * (claim.paper if claim.kind == "size" else 1) > 0


@dataclass(frozen=True)
class Standing:
    """One claim's standing across presets, computed from each preset's verdict."""

    words: str  # one of STANDINGS
    holds: tuple[str, ...] = ()  # the presets that confirm it
    fails: tuple[str, ...] = ()  # the presets that refute it
    undecided: tuple[str, ...] = ()  # the presets where it is undecided (several seeds; after the correction too)
    leaning_toward: tuple[str, ...] = ()  # among ``undecided``, those whose estimate points the claim's way ...
    leaning_against: tuple[str, ...] = ()  # ... and those whose estimate points against it (neither: not known)
    single: tuple[str, ...] = ()  # the presets where it has one seed
    toward: tuple[str, ...] = ()  # among ``single``, those whose one seed points the claim's way ...
    against: tuple[str, ...] = ()  # ... and those whose one seed points against it (neither: not known)
    moot: tuple[str, ...] = ()  # the presets where it has nothing to test (e.g. no gain to share)
    not_judged: tuple[str, ...] = ()  # the presets where it is not judged at that scale (a near-equality)
    direction_only: bool = False  # a size claim decided on its direction alone wherever decided
    size_open: tuple[str, ...] = ()  # among ``holds`` and ``fails``, presets where the direction is decided, the size not
    named: Callable[[Sequence[str]], str] = presets_named  # presets as a sentence names them (Claim.judged_where)

    @property
    def _deciding(self) -> str:
        """"holds on `cpu-short`; fails on `cpu`", "`cpu` and `cpu-short`": the presets that decide the claim,
        or "" where none does."""
        if self.holds and self.fails:
            return f"holds on {self.named(self.holds)}; fails on {self.named(self.fails)}"
        return self.named(self.holds or self.fails) if self.holds or self.fails else ""

    @property
    def _leaning(self) -> str:
        """"`cpu` and `cpu-short` (leaning the claim's way) and on `cpu-long-4x` (leaning against the claim)": the
        presets that leave the claim undecided, with the way their estimate points, which the seeds cannot yet
        tell from chance: those leaning the claim's way first, then those leaning against it, each group in the
        order of the presets (the presets alone where that way is not known); for a size, the way is its sign."""
        groups = [(tuple(p for p in self.undecided if p in lean), words) for lean, words in
                  ((self.leaning_toward, "leaning the claim's way"), (self.leaning_against, "leaning against the claim"))]
        if sum(len(presets) for presets, _ in groups) < len(self.undecided):
            return self.named(self.undecided)
        return " and on ".join(f"{self.named(presets)} ({words})" for presets, words in groups if presets)

    @property
    def behind(self) -> str:
        """"`cpu-long` and `cpu`; not settled on `cpu-short` (leaning the claim's way); `paper`: one seed, the claim's
        way": every preset behind the standing, where it is decided, then undecided (with the way its estimate
        leans), then not judged or moot, then where it has one seed and which way that seed points."""
        parts = [self._deciding] if self._deciding else []
        if self.size_open:
            parts.append(f"whether the size is the paper's is {PLAIN_WORDS['undecided']} on {self.named(self.size_open)}")
        if self.undecided:
            parts.append(f"{PLAIN_WORDS['undecided']} on {self._leaning}")
        if self.not_judged:
            parts.append(f"cannot be tested on {self.named(self.not_judged)}")
        if self.moot:
            parts.append(f"{PLAIN_WORDS['moot']} on {self.named(self.moot)}")
        ways = {**{preset: ", the claim's way" for preset in self.toward},
                **{preset: ", against the claim" for preset in self.against}}
        parts += [f"`{preset}`: one seed{ways.get(preset, '')}" for preset in self.single]
        return "; ".join(parts) or "no run yet"

    @property
    def phrase(self) -> str:
        """:attr:`words` as a table shows them: "direction holds where decided" ("direction depends on the scale")
        for a size claim that every deciding preset decided on its direction alone (its size is judged at the
        paper's protocol only)."""
        decided = self.words in (HOLDS_EVERYWHERE, HOLDS_WHERE_DECIDED, FAILS_EVERYWHERE, FAILS_WHERE_DECIDED, DEPENDS)
        return f"direction {self.words}" if self.direction_only and decided else self.words

    @property
    def text(self) -> str:
        """"holds where decided: `cpu`; not settled on `cpu-long` (leaning against the claim); `paper`: one seed, the
        claim's way": the words and every preset behind them (:attr:`behind`)."""
        return f"{self.phrase}: {self.behind}" if self.behind != "no run yet" else self.phrase


def standing(verdicts: Mapping[str, Verdict], named: Callable[[Sequence[str]], str] = presets_named,
             claim: Claim | None = None) -> Standing:
    """The standing of one claim from its verdict on each preset (``{preset: verdict}``, closest to the
    paper's protocol first), naming presets with ``named`` (the claim's :meth:`Claim.judged_where`); with
    ``claim``, which way each single seed points (:func:`points_the_claims_way`)."""
    def presets(outcome):
        return tuple(p for p, v in verdicts.items() if v.outcome == outcome and not v.size_open)
    size_open = tuple(p for p, v in verdicts.items() if v.size_open)  # the direction decided, the size not yet
    holds = tuple(p for p, v in verdicts.items() if v.outcome == "confirmed" or v.size_open and v.direction == "confirmed")
    fails = tuple(p for p, v in verdicts.items() if v.outcome == "refuted" or v.size_open and v.direction == "refuted")
    def ways(among: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The presets of ``among`` whose estimate points the claim's way, and those pointing against it."""
        toward = tuple(p for p in among if claim is not None and points_the_claims_way(claim, verdicts[p]))
        return toward, tuple(p for p in among if claim is not None and p not in toward)
    single, undecided = presets("indicative"), presets("undecided")
    toward, against = ways(single)
    leaning_toward, leaning_against = ways(undecided)
    rest = {"undecided": undecided, "leaning_toward": leaning_toward, "leaning_against": leaning_against,
            "single": single, "toward": toward, "against": against,
            "moot": presets("moot"),
            "not_judged": presets("not_judged"), "named": named}
    every = not rest["undecided"] and len(holds) + len(fails) >= EVERY_SCALE
    if holds and fails:
        words = DEPENDS
    elif holds:
        words = HOLDS_EVERYWHERE if every else HOLDS_WHERE_DECIDED
    elif fails:
        words = FAILS_EVERYWHERE if every else FAILS_WHERE_DECIDED
    else:
        words = (UNDECIDED if rest["undecided"] else INDICATIVE if single else NOT_JUDGED if rest["not_judged"]
                 else NOT_TESTED)
    direction_only = bool(holds or fails) and all(verdicts[p].judged_on == "direction" or p in size_open
                                                  for p in (*holds, *fails))
    return Standing(words, holds, fails, **rest, direction_only=direction_only, size_open=size_open)


def judge_presets(presets: Sequence[str] = STANDING_PRESETS) -> dict[str, Findings]:
    """{preset: :func:`~mope.evidence.claims.judge_all` of its stored runs} for each of ``presets``."""
    return {preset: claims.judge_all(preset) for preset in presets}


def closeness(preset: str) -> int:
    """How far ``preset`` is from the paper's protocol: its place in STANDING_PRESETS (others last)."""
    return STANDING_PRESETS.index(preset) if preset in STANDING_PRESETS else len(STANDING_PRESETS)


def standings(findings: Mapping[str, Findings]) -> dict[str, Standing]:
    """{claim key: :func:`standing`} from ``findings`` of several presets, read closest to the paper's
    protocol first (:data:`~mope.store.presets.STANDING_PRESETS`, then any other). A claim across two presets
    (two contexts, two token budgets) is one measurement: it stands on its home (:meth:`Claim.home`) alone
    where ``findings`` hold it, never counted as two scales."""
    order = sorted(findings, key=closeness)
    return {claim.key: standing({preset: verdict_of(findings[preset], claim.key) for preset in order
                                 if claim.home(preset) == preset or claim.home(preset) not in findings},
                                claim.judged_where, claim) for claim in CLAIMS}


def standing_records(findings: Mapping[str, Findings]) -> list[dict]:
    """One dict per claim: key, claim, source, standing (its words), text (the words and the presets behind
    them), holds_on, fails_on, undecided_on, and by_preset, every preset where it has runs:
    {preset: {outcome, direction, ours, n, verdict, p_value, p_adjusted}} (``python -m mope claims --standing --json``)."""
    found = standings(findings)
    records = []
    for claim in CLAIMS:
        by_preset = {preset: verdict_of(preset_findings, claim.key) for preset, preset_findings in findings.items()}
        held = found[claim.key]
        records.append({"key": claim.key, "claim": claim.words, "source": claim.source, "standing": held.words,
                        "text": held.text, "holds_on": list(held.holds), "fails_on": list(held.fails),
                        "undecided_on": list(held.undecided),
                        "by_preset": {preset: {"outcome": v.outcome, "direction": v.direction,
                                               "ours": claims.rounded(v.estimate.mean),
                                               "n": v.estimate.n, "verdict": v.text, "p_value": v.p_value,
                                               "p_adjusted": v.p_adjusted}
                                      for preset, v in by_preset.items() if v.outcome != "not_run"}})
    return records


def standing_tally(found: Mapping[str, Standing]) -> dict[str, int]:
    """{standing words: how many claims have it}, every standing listed, in :data:`STANDINGS` order."""
    return {words: sum(s.words == words for s in found.values()) for words in STANDINGS}


def standing_report(as_json: bool, presets: Sequence[str] = STANDING_PRESETS) -> str:
    """Every claim's standing across ``presets`` for the terminal (``python -m mope claims --standing``)."""
    findings = judge_presets(presets)
    if as_json:
        return json.dumps(standing_records(findings), indent=1, ensure_ascii=False)
    found = standings(findings)
    header = ("claim", *presets, "standing")
    rows = [header] + [(claim.words, *(verdict_of(findings[p], claim.key).word
                                       + (f" (n={verdict_of(findings[p], claim.key).estimate.n})"
                                          if verdict_of(findings[p], claim.key).estimate.n else "") for p in presets),
                        claims.plain(found[claim.key].text).replace("`", "")) for claim in CLAIMS]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1] for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    tally = "; ".join(f"{words}: {count}" for words, count in standing_tally(found).items() if count)
    return "\n".join(["Each claim's standing across the presets, closest to the paper's protocol first", *lines, "",
                      f"Tally: {tally}."])
