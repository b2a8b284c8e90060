"""What a gate that sees only the past finds where the paper ran its models (the ``paper`` preset), in plain words.

The published energy gate standardises each query's attention energies with their mean and spread over the whole
window, future positions included. Two runs at the paper's protocol answer the question a reader brings to the
headline, whether its gain is the gate's salience or the future it reads:

- EGA-1-CAUSAL, the gate retrained with statistics of the past only: the share of EGA-1's gain over BASE-DOT it
  keeps, L(BASE-DOT) − L(EGA-1-CAUSAL) of each seed over the mean of L(BASE-DOT) − L(EGA-1) (the claim
  ``gain-survives-causal-gate`` of the claims document, with its verdict's plain words);
- EGA-MORLET-CAUSAL, MoPE with that gate: its loss against the learned table's (BASE-DOT), a measurement beside
  the headline claim (its caveat in the claims document), with no verdict of its own.

Every number is on the whole validation split, the split the share divides (chapter 6's table of the causal gate);
with one seed the words say "one seed only" and name the planned seeds that would test it. Where neither causal
gate is stored, nothing is said (:func:`trained` returns None): the pages then say that the runs are missing.
"""
from __future__ import annotations

from collections.abc import Mapping

from mope.evidence import bottom_line, claims, measures
from mope.evidence.bottom_line import PUBLISHED, below_or_above, causal_caveats, percent, seeds_count
from mope.evidence.verdicts import PLAIN_WORDS

SHARE = "gain-survives-causal-gate"


def _seeds(n: int) -> str:
    """"one seed only", "3 seeds": one seed in the plain word of a verdict on one seed, which a record's plain words
    open with (the share's are said after it), more as they are counted elsewhere."""
    return PLAIN_WORDS["indicative"] if n == 1 else seeds_count(n)


def gate_share(runs: list[dict], record: dict | None, name_seeds: bool = True) -> str | None:
    """"EGA-1 keeps 48% of its gain over BASE-DOT (+0.047 against +0.097; one seed only: below 50%, against the
    claim ...)": what the causal gate retrained at the paper's protocol keeps of the published gate's gain."""
    published, retrained = measures.common_gains(runs, "EGA-1", "EGA-1-CAUSAL", "BASE-DOT")
    if not published or record is None or not record["n"]:
        return None
    mean = lambda values: sum(values.values()) / len(values)  # noqa: E731
    gains = f"{mean(retrained):+.3f} against {mean(published):+.3f}"
    if record["outcome"] == "moot":
        return f"EGA-1's published gate gains nothing over BASE-DOT to share ({gains}, {_seeds(record['n'])})"
    caveats = "".join(f"; {caveat}" for caveat in causal_caveats({PUBLISHED: runs}, "EGA-1-CAUSAL", name_seeds))
    return (f"EGA-1 keeps {percent(record['ours'])} of its gain over BASE-DOT ({gains}, {_seeds(record['n'])}: "
            f"{record['plain'].removeprefix(PLAIN_WORDS['indicative'] + ': ')}{caveats})")


def mope_against_table(runs: list[dict], name_seeds: bool = True) -> str | None:
    """"MoPE with that gate (EGA-MORLET-CAUSAL) has a loss 0.077 below the learned table's (BASE-DOT; one seed only;
    ...)": the model named as the headline beside it names it, then by its name in the tables."""
    gain = bottom_line.causal_mope_gain({PUBLISHED: runs})
    if not gain.n:
        return None
    caveats = "".join(f"; {caveat}" for caveat in causal_caveats({PUBLISHED: runs}, "EGA-MORLET-CAUSAL", name_seeds))
    return (f"MoPE with that gate (EGA-MORLET-CAUSAL) has a loss {below_or_above(gain.mean)} the learned table's "
            f"(BASE-DOT; {_seeds(gain.n)}{caveats})")


def share_record(findings: Mapping[str, claims.Findings]) -> dict | None:
    """The claims document's record of the share a causal gate keeps at the paper's protocol, from ``findings``."""
    return next((claims.record(claim, verdict) for claim, verdict in findings.get(PUBLISHED, []) if claim.key == SHARE),
                None)


def trained(runs: list[dict], record: dict | None, name_seeds: bool = True) -> str | None:
    """What the causal gates trained at the paper's protocol find, as one clause, from its stored ``runs`` and the
    claims document's ``record`` of the share: the share of EGA-1's gain its causal gate keeps and where MoPE with that
    gate stands against the learned table, on the whole validation split; with ``name_seeds``, with the planned seeds
    that would test each (a page that lists the missing runs itself leaves them out); None where neither is stored."""
    parts = [part for part in (gate_share(runs, record, name_seeds), mope_against_table(runs, name_seeds)) if part]
    if not parts:
        return None
    return "retrained with a gate that sees only the past (whole validation split), " + "; ".join(parts)
