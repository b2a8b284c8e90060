"""What a chapter found, said first: the plain sentence that opens a chapter whose question the bottom line
does not ask (:mod:`mope.evidence.bottom_line` opens the introduction and, with the findings, chapters 4 and 6).

Like the bottom line, each sentence is read from the claims records (``python -m mope claims --json``, the book's
one claims document), names the scale and the seeds each number stands on, says how sure it is in the
words of :data:`~mope.evidence.verdicts.PLAIN_WORDS` and no statistics, and links to its evidence.
"""
from __future__ import annotations

from mope.evidence import learned_parameters, paper
from mope.evidence.bottom_line import MAIN, PUBLISHED, SETTLED, Records, certainty, how_sure, percent, sure_at, where


def _record(records: Records, preset: str, key: str) -> dict | None:
    """``key``'s record on ``preset`` where it has seeds, else None."""
    record = records.get(preset, {}).get(key)
    return record if record and record["n"] else None


def learned(records: Records, decayed: tuple[float, float] | None = None) -> str | None:
    """Chapter 5: whether MoPE's learned σ and ωσ are the data's choice, from the claims ``sigma-set-by-data``
    (the data's share of σ's move beyond weight decay alone; the paper's reading needs at least half) and
    ``every-pair-pushed`` (with decay off, the share of pairs on ωσ = 5). ``decayed``: σ's range under weight
    decay alone at the paper's protocol (default: :func:`~mope.evidence.learned_parameters.decay_only_sigma`).
    None without either claim's runs."""
    shares = [(p, r) for p in (PUBLISHED, MAIN) if (r := _record(records, p, "sigma-set-by-data"))]
    every = _record(records, MAIN, "every-pair-pushed")
    if not shares and every is None:
        return None
    decided = [r for _, r in shares if r["outcome"] in SETTLED]
    answer = ("Not settled" if not decided else "Mostly not" if decided[0]["outcome"] == "refuted" else "Mostly yes")
    low, high = decayed or learned_parameters.decay_only_sigma()
    reported = paper.TABLE_3_SIGMA
    text = (f"**Are MoPE's learned bandwidths the data's choice? {answer}.** With no data at all, the weight decay of "
            f"the paper's training takes σ to [{low:.2f}, {high:.2f}], where the paper reports the learned σ ∈ "
            f"[{reported[0]:.2f}, {reported[1]:.2f}]")
    if shares:
        text += "; of σ's move from its initial value, the data's share is " + " and ".join(
            f"{percent(r['ours'])} on {sure_at(where(p, r['n']), r)}" for p, r in shares)
    if every is not None:
        pairs = ("every pair on the bound ωσ = 5, as the paper says" if every["ours"] >= 1 else
                 f"{percent(every['ours'])} of the pairs on the bound ωσ = 5, not every pair as the paper says")
        sure = "" if every["n"] == 1 else f"; {certainty(every)}"
        text += f". With weight decay off, the data put {pairs} ({where(MAIN, every['n'])}{sure})"
    return text + " ({ref}`learned-table-3`, {ref}`learned-boundary`)."


#: The changes the paper proposes (§7, §9) that chapter 7 trains: the claim that the change lowers the loss, the
#: change in words, and whose loss it changes.
CHANGES = (("centre-improves-mope", "a learned centre b₀", "MoPE's"),
           ("no-bound-improves-loss", "dropping the bound ωσ ≥ 5", "MoPE's"),
           ("morlet-rope", "Gaussian locality on RoPE (Morlet-RoPE)", "RoPE's"),
           ("morlet-rope-rel", "Gaussian locality on RoPE's offset", "RoPE's"))


def _change(record: dict, change: str, whose: str, scale: str) -> str:
    """"a learned centre b₀ does not clearly change MoPE's loss (not settled: ...)", with its ``scale`` where the
    changes do not share one."""
    lowers = record["outcome"] == "confirmed" or record["n"] == 1 and record["ours"] > 0  # one seed: its direction
    raises = record["outcome"] == "refuted" or record["n"] == 1 and record["ours"] < 0
    effect = (f"lowers {whose} loss by {record['ours']:.3f}" if lowers else
              f"raises {whose} loss by {abs(record['ours']):.3f}" if raises else f"does not clearly change {whose} loss")
    return f"{change} {effect}" + (f" on {scale}" if scale else "") + how_sure(record)


def open_questions(records: Records) -> str | None:
    """Chapter 7: whether the changes the paper proposes lower the loss (:data:`CHANGES`, on ``cpu``), and what
    subword tokens do to MoPE (its deficit against the learned table, σ beyond two words). None without runs."""
    changes = [(r, change, whose) for key, change, whose in CHANGES if (r := _record(records, MAIN, key))]
    deficit = _record(records, MAIN, "subword-deficit-smaller")
    sigma = _record(records, MAIN, "subword-sigma-beyond-words")
    if not changes and deficit is None and sigma is None:
        return None
    text = ""
    if changes:
        helped = [change for r, change, _ in changes if r["outcome"] == "confirmed"]
        answer = (f"Yes: {' and '.join(helped)}" if helped else
                  "None does so far" if any(r["outcome"] not in SETTLED for r, _, _ in changes) else "No")
        seeds = {r["n"] for r, _, _ in changes}
        common = where(MAIN, seeds.pop()) if len(seeds) == 1 else ""
        said = "; ".join(_change(r, change, whose, "" if common else where(MAIN, r["n"])) for r, change, whose in changes)
        said = f"On {common}: {said}" if common else said[0].upper() + said[1:]
        text = (f"**Do the changes the paper proposes help? {answer}.** {said} "
                "({ref}`open-centre`, {ref}`open-bound`, {ref}`open-rope`).")
    subword = []
    if deficit is not None:
        smaller = {"confirmed": "is smaller", "refuted": "is not smaller"}.get(deficit["outcome"], "may be smaller")
        subword.append(f"MoPE's deficit against the learned table {smaller} than on characters{how_sure(deficit)}")
    if sigma is not None:
        pairs = "none of its pairs has" if sigma["ours"] == 0 else f"{percent(sigma['ours'])} of its pairs have"
        subword.append(f"{pairs} a σ beyond two words{how_sure(sigma)}")
    if subword:
        n = (deficit or sigma)["n"]
        text += (" " if text else "") + (f"On subword tokens ({where('cpu-bpe', n)}, beside `{MAIN}`), "
                                         + ", and ".join(subword) + " ({ref}`open-subword`).")
    return text
