"""What a reader may cite: for each of the paper's headline claims, one sentence our runs support (what holds,
where, on how many seeds, with what caveat) and the sentence that would overstate it.

Each sentence is built from the claims documents (``python -m mope claims --preset P --json``, one a preset,
closest to the paper's protocol first): its numbers are the records' ``ours``, ``paper``, ``n`` and ``caveat``,
each named with its scale, and what it says holds is what the record's ``outcome`` and ``direction`` decide.
A claim is cited where it is settled (``confirmed`` or ``refuted``, or its direction alone where its size is
open); where no scale settles it, the sentence says so. The overstatement is the paper's own sentence, said as
a general result, with what in the records it goes beyond.
"""
from __future__ import annotations

from collections.abc import Mapping

from mope.book.claims_tables import plain_caveat
from mope.evidence.claims import presets_named
from mope.evidence.measures import FUTURE_READING, reads_future
from mope.evidence.bottom_line import PLAIN, PUBLISHED, Records, compared, percent, scale_in_words, size_open
from mope.evidence.verdicts import DECIDED

#: The paper's headline claims, in the order its abstract and contributions make them: the claim's key, and
#: what its statistic says when it is not a difference of two models' losses (a share, put in its place).
HEADLINES = (
    ("ega-mope-gain", None),
    ("ega-mope-best", None),
    ("gain-survives-causal-gate", "a gate that sees only the past keeps {share} of EGA-1's gain"),
    ("mope-below-base", None),
    ("mope-beats-sincos", None),
    ("every-pair-pushed", "{share} of MoPE's pairs end on the bound ωσ = 5 with weight decay off"),
)
#: The models in words (:data:`~mope.evidence.bottom_line.PLAIN`), the energy gate named with the table it is on.
NAMES = {**PLAIN, "EGA-1": "a learned table with the energy gate"}


def seeds(n: int) -> str:
    return "one seed" if n == 1 else f"{n} seeds"


def settled(record: dict) -> bool:
    """Whether ``record`` says something a reader may cite: a decided outcome, or a decided direction."""
    return record["outcome"] in DECIDED or size_open(record)


def measured(record: dict, share: str | None) -> str:
    """E.g. "the loss of MoPE with the energy gate is 0.112 nats below that of a learned position table", or for a
    share "−3% of EGA-1's gain ...": what ``record`` measured, in words."""
    if share is not None:
        return share.format(share=percent(record["ours"]))
    lower, other, by = compared(record)
    return f"the loss of {NAMES.get(lower, lower)} is {by:.3f} nats below that of {NAMES.get(other, other)}"


def status(record: dict) -> str:
    """"holds", "fails", "holds in direction, its size not settled", "holds in direction": what the record lets a
    reader say (a size off the paper's protocol is judged on its direction alone: it never "holds" as a size)."""
    way = "holds" if (record.get("direction") or record["outcome"]) == "confirmed" else "fails"
    if size_open(record):
        return f"{way} in direction, its size not settled"
    if record.get("judged_on") == "direction":
        return f"{way} in direction"
    return "holds" if record["outcome"] == "confirmed" else "fails"


def holds(record: dict) -> bool:
    """Whether ``record`` settles its claim the paper's way (in direction, where only its direction is settled)."""
    return record["outcome"] == "confirmed" or size_open(record) and record["direction"] == "confirmed"


def where_settled(records: Records, key: str) -> list[tuple[str, dict]]:
    """(preset, record) of ``key`` on every preset that settles it, closest to the paper's protocol first."""
    return [(preset, found[key]) for preset, found in records.items() if key in found and settled(found[key])]


def cite(records: Records, key: str, share: str | None) -> str:
    """The sentence a reader may cite for ``key``: what the closest scale that settles it measured, where, on how
    many seeds, with the paper's number, the record's caveat and, where other scales settle it the other way, those."""
    found = where_settled(records, key)
    if not found:
        tried = [(p, r[key]) for p, r in records.items() if key in r and r[key]["n"]]
        most = max((r["n"] for _, r in tried), default=0)
        return (f"Nothing yet: no scale settles it ({seeds(most)} at most)" if tried else "Nothing yet: not run") + "."
    preset, record = found[0]
    paper = f"; the paper: {percent(record['paper']) if share else format(abs(record['paper']), '.3f')}" \
        if record["paper"] is not None and key != "every-pair-pushed" else ""
    text = (f"On `{preset}` ({scale_in_words(preset)}; {seeds(record['n'])}), {measured(record, share)}"
            f" ({status(record)}{paper})")
    other = [(p, r) for p, r in found[1:] if holds(r) != holds(record)]
    same = [p for p, r in found[1:] if holds(r) == holds(record)]
    if same:
        text += f"; the same on {presets_named(same)}"
    if other:
        text += "; it " + "; ".join(f"{status(r)} on `{p}` ({seeds(r['n'])}: {measured(r, share)})" for p, r in other)
    caveat = plain_caveat(record["caveat"])
    return text + (f". Caveat: {caveat}" if caveat else "") + "."


def overstated(records: Records, key: str) -> str:
    """The paper's sentence for ``key`` as a general result, and what the records say it goes beyond."""
    found = where_settled(records, key)
    quote = next(r[key]["quote"] for r in records.values() if key in r)
    beyond = []
    if any(size_open(r) for _, r in found):
        beyond.append("its size is not settled")
    failing = [p for p, r in found if not holds(r)]
    if failing:
        beyond.append(f"it fails on {presets_named(failing)}")
    if not found:
        beyond.append("no scale here settles it")
    published = records.get(PUBLISHED, {}).get(key)
    if found and published is not None and not settled(published):
        beyond.append(f"at the paper's own protocol it {'stands on one seed' if published['n'] == 1 else 'is not settled'}"
                      if published["n"] else "it is not run at the paper's own protocol")
    if any(reads_future(r["caveat"]) for _, r in found):
        beyond.append(f"{FUTURE_READING}, which a language model must not")
    beyond.append("every run here is a small model on TinyShakespeare")
    return f"“{quote}”, as a result in general: " + "; ".join(beyond) + "."


def citable(records: Records) -> list[tuple[str, str, str]]:
    """(the claim in a few words, the sentence to cite, the one that would overstate it), one a headline claim
    of :data:`HEADLINES` that the records hold."""
    out = []
    for key, share in HEADLINES:
        present = [found[key] for found in records.values() if key in found]
        if present:
            out.append((present[0]["claim"], cite(records, key, share), overstated(records, key)))
    return out


def markdown(records: Records) -> str:
    """The page's list: each headline claim, the sentence to cite, and the one that would overstate it."""
    return "\n\n".join(f"**{claim}.** *You can cite:* {sentence}\n\n*It would overstate it to write:* {over}"
                       for claim, sentence, over in citable(records))


def by_preset(documents: Mapping[str, list[dict]]) -> Records:
    """{preset: {key: record}} from {preset: the claims document's records}, in the documents' order."""
    return {preset: {record["key"]: record for record in records} for preset, records in documents.items()}
