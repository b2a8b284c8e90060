"""The corrections a preset's verdicts must survive: Holm's over its many tests, and the sequential level of
a claim looked at again after more seeds.

A preset judges some twenty claims, each at 95%: among that many true claims, about one verdict in twenty
could be wrong by chance alone. Holm's step-down correction over every test of the preset (decided or not)
keeps the chance of any wrong verdict within it at 5% (``FAMILY_LEVEL`` of :mod:`mope.evidence.verdicts`). A claim
the plan judged, then gave more seeds (``Stage.further_look`` of :mod:`mope.store.plan`), was looked at twice: each
look is held to Pocock's level for that many looks (:data:`~mope.evidence.verdicts.POCOCK_LEVELS`; 0.0294 for
two), which enters Holm's correction as its p-value scaled by 0.05 over that level. A decided verdict whose
adjusted p-value is 0.05 or more becomes *undecided after the correction*, its raw p beside it
(:func:`corrected`); every verdict carries its ``p_adjusted``.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from mope.evidence.estimates import UnpairedDifference
from mope.evidence.verdicts import DECIDED, FAMILY_LEVEL, POCOCK_LEVELS, Verdict, decision_text, seeds_to_decide


def sequential_level(looks: int) -> float:
    """The level each of ``looks`` looks at a claim is decided at, for 5% overall: Pocock's, tabulated for 1 to 5
    looks; beyond the table (a look the plan did not count), Bonferroni's split of 5% over the looks, which is
    stricter than Pocock's at every number of looks."""
    if looks < 1:
        raise ValueError(f"{looks} looks: a claim is looked at once at least")
    return POCOCK_LEVELS.get(looks, FAMILY_LEVEL / looks)


def level_name(looks: int) -> str:
    """Whose level :func:`sequential_level` gives at ``looks`` looks: "Pocock's", or beyond his table "Bonferroni's"."""
    return "Pocock's" if looks in POCOCK_LEVELS else "Bonferroni's"


def holm(tests: Sequence[tuple[str, float]]) -> dict[str, float]:
    """{key: Holm-adjusted p} for the tests ``(key, p)`` of one family: the k-th smallest of the m p-values
    multiplied by m − k + 1, the adjusted values kept non-decreasing and at most 1. A p-value that is not a
    number between 0 and 1 is refused, naming its test (sorting would put it anywhere)."""
    for key, p in tests:
        if not 0.0 <= p <= 1.0:  # also False for NaN
            raise ValueError(f"the test of {key!r} has p = {p}: Holm's correction needs a p-value in [0, 1]")
    adjusted, running = {}, 0.0
    for rank, (key, p) in enumerate(sorted(tests, key=lambda test: test[1])):
        running = max(running, min(1.0, (len(tests) - rank) * p))
        adjusted[key] = running
    return adjusted


def corrected(verdicts: Sequence[tuple[str, Verdict]], looks: dict[str, int] | None = None,
              level: float = FAMILY_LEVEL, family: Sequence[str] | None = None,
              name: str | None = None) -> list[tuple[str, Verdict]]:
    """``verdicts`` ``(key, verdict)`` of one preset with ``p_adjusted``, ``looks`` and their family set; a decided
    verdict whose adjusted p is ``level`` or more made undecided after the correction (the raw and adjusted p in
    its detail, the verdict it had alone after them). ``family``: the keys the plan declares as the family
    (:data:`mope.store.plan.FAMILIES`), each without a p-value among ``verdicts`` counted at p = 1 (a planned test
    without runs yet); a verdict with a p-value outside it joins it (never a test left uncorrected). None: the
    family is every verdict with a p-value. ``name``: the family's name (its preset). ``looks``: {key: the looks
    the plan makes at that claim}, 1 where absent."""
    looks = looks or {}
    scaled = [(key, min(1.0, verdict.p_value * level / sequential_level(looks.get(key, 1))))
              for key, verdict in verdicts if verdict.p_value is not None]
    tested = {key for key, _ in scaled}
    scaled += [(key, 1.0) for key in dict.fromkeys(family or ()) if key not in tested]
    adjusted = holm(scaled)
    out = []
    for key, verdict in verdicts:
        if key not in adjusted:
            out.append((key, verdict))
            continue
        verdict = replace(verdict, looks=looks.get(key, 1), family=name, family_size=len(scaled))
        if verdict.p_value is None:  # a member of the declared family without a test yet (one seed, no runs)
            out.append((key, verdict))
            continue
        verdict = replace(verdict, p_adjusted=adjusted[key])
        if verdict.outcome in DECIDED and adjusted[key] >= level:
            sequential = (f" (look {verdict.looks} of {verdict.looks}: {level_name(verdict.looks)} level "
                          f"{sequential_level(verdict.looks):.3g})" if verdict.looks > 1 else "")
            verdict = replace(verdict, outcome="undecided", corrected=True, seeds_needed=None, seeds_range=None,
                              detail=f"p = {verdict.p_value:.3g}{sequential}, {adjusted[key]:.3g} after Holm's "
                                     f"correction over {len(scaled)} tests; alone: {verdict.text}")
        if verdict.outcome == "undecided" and verdict.test is not None:
            verdict = seeds_after_correction(verdict, len(scaled))
        out.append((key, direction_after_correction(verdict, len(scaled), level)))
    return out


def direction_after_correction(verdict: Verdict, family_size: int, level: float = FAMILY_LEVEL) -> Verdict:
    """``verdict`` with its direction's outcome as the correction leaves it: a size judged on its direction alone
    has the outcome's; a size at the paper's protocol keeps the direction its 95% interval decides only where
    the direction's p-value, scaled for its looks, clears Bonferroni's level over the family (``level`` over
    ``family_size``: the strictest Holm's correction could set)."""
    if verdict.judged_on == "direction" and verdict.direction is not None:
        return replace(verdict, direction=verdict.outcome if verdict.outcome in DECIDED else "undecided")
    if verdict.direction in DECIDED and verdict.direction_p is not None:
        scaled = verdict.direction_p * level / sequential_level(verdict.looks)
        if scaled * family_size >= level:
            return replace(verdict, direction="undecided")
    return verdict


def corrected_level(test_level: float, looks: int, multiplier: int) -> float:
    """The confidence level a test must clear once corrected: its own (0.95 for a t test, 0.90 for two one-sided
    tests) with its error rate scaled by the sequential level of its ``looks`` over 5% and divided by Holm's
    ``multiplier`` (m − k + 1 for the k-th smallest of m p-values; m, the family's size, at the strictest)."""
    return 1.0 - (1.0 - test_level) * sequential_level(looks) / FAMILY_LEVEL / multiplier


def seeds_after_correction(verdict: Verdict, multiplier: int) -> Verdict:
    """An undecided ``verdict`` with the seeds that would decide it at the strictest level its correction could
    demand (``multiplier``: the family's size, Holm's multiplier at the first rank, and its looks), with 80% power
    at the measured effect: its rank among the family's p-values moves as seeds are added, so the level at its
    current rank, the least strict, would count too few. Every undecided verdict, "after the correction"
    included, says how many seeds would settle it at that level, and names the level."""
    low, high, test_level, mean = verdict.test
    level = corrected_level(test_level, verdict.looks, multiplier)
    needed, spread, decide = seeds_to_decide(verdict.estimate, low, high, level, mean)
    decide += f" at the {level:.2%} level, the strictest its correction can need"
    if verdict.corrected:
        detail = f"{verdict.detail}; {decide}"
    else:
        alone = decision_text(verdict.seeds_needed, verdict.seeds_range,
                              isinstance(verdict.estimate, UnpairedDifference))
        detail = verdict.detail.replace(alone, decide) if alone in verdict.detail else f"{verdict.detail}; {decide}"
    return replace(verdict, seeds_needed=needed, seeds_range=spread, detail=detail)
