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

from mope.evidence.verdicts import DECIDED, FAMILY_LEVEL, POCOCK_LEVELS, Verdict


def sequential_level(looks: int) -> float:
    """The level each of ``looks`` looks at a claim is decided at, for 5% overall (Pocock)."""
    try:
        return POCOCK_LEVELS[looks]
    except KeyError:
        raise ValueError(f"{looks} looks: Pocock's levels are tabulated for {min(POCOCK_LEVELS)} to "
                         f"{max(POCOCK_LEVELS)} looks") from None


def holm(tests: Sequence[tuple[str, float]]) -> dict[str, float]:
    """{key: Holm-adjusted p} for the tests ``(key, p)`` of one family: the k-th smallest of the m p-values
    multiplied by m − k + 1, the adjusted values kept non-decreasing and at most 1."""
    adjusted, running = {}, 0.0
    ordered = sorted(tests, key=lambda test: test[1])
    for rank, (key, p) in enumerate(ordered):
        running = max(running, min(1.0, (len(ordered) - rank) * p))
        adjusted[key] = running
    return adjusted


def corrected(verdicts: Sequence[tuple[str, Verdict]], looks: dict[str, int] | None = None,
              level: float = FAMILY_LEVEL) -> list[tuple[str, Verdict]]:
    """``verdicts`` ``(key, verdict)`` of one preset with ``p_adjusted`` and ``looks`` set, every verdict with a
    p-value counted as one test of the family; a decided verdict whose adjusted p is ``level`` or more made
    undecided after the correction (the raw and adjusted p in its detail, the verdict it had alone after them).
    ``looks``: {key: the looks the plan makes at that claim}, 1 where absent."""
    looks = looks or {}
    scaled = [(key, min(1.0, verdict.p_value * level / sequential_level(looks.get(key, 1))))
              for key, verdict in verdicts if verdict.p_value is not None]
    adjusted = holm(scaled)
    out = []
    for key, verdict in verdicts:
        if key not in adjusted:
            out.append((key, verdict))
            continue
        verdict = replace(verdict, p_adjusted=adjusted[key], looks=looks.get(key, 1))
        if verdict.outcome in DECIDED and adjusted[key] >= level:
            sequential = (f" (look {verdict.looks} of {verdict.looks}: Pocock's level "
                          f"{sequential_level(verdict.looks)})" if verdict.looks > 1 else "")
            verdict = replace(verdict, outcome="undecided", corrected=True, seeds_needed=None, seeds_range=None,
                              detail=f"p = {verdict.p_value:.3g}{sequential}, {adjusted[key]:.3g} after Holm's "
                                     f"correction over {len(scaled)} tests; alone: {verdict.text}")
        out.append((key, verdict))
    return out

