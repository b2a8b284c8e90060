"""The book's answer in plain words: five sentences, one per question a reader brings, above everything else.

1. Does MoPE beat the usual encodings (a learned table, sin/cos, RoPE)?
2. Does the energy gate (EGA) help, and why?
3. What holds at the paper's own scale?
4. What does the book not know yet, and what would settle it?
5. What to use instead?

Each sentence is built from the claims document's records (:func:`mope.evidence.claims.claim_records`, the JSON
of ``python -m mope claims --preset P --json``): its numbers are the records' ``ours``, each named with the
scale and seeds it stands on, and "settled" means the record's verdict is decided (``confirmed`` or
``refuted``), whatever the paper said. No p-value and no name of a correction stands here: the statistics are
one click away, in the claims table. A difference "L(A) − L(B)" of a claim's test is read as which of the two
models has the lower loss, and by how much.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from mope.evidence import claims, devices, estimates, measures
from mope.evidence.verdicts import PLAIN_WORDS, settle_text
from mope.store import plan
from mope.store.results import device_kind, device_name
from mope.store.presets import TRAINING_CHARACTERS, get_preset

PUBLISHED, MAIN, LONG, BPE = "paper", "cpu", "cpu-long", "cpu-bpe"
SHORT = "cpu-short"
#: The scales the energy gate's answer (:func:`gate`) reads, the paper's protocol first.
GATE_PRESETS = (PUBLISHED, MAIN, SHORT, LONG)

#: The models as a reader who has not read the paper knows them.
PLAIN = {"BASE-DOT": "a learned position table", "PE-SINCOS": "sin/cos positions", "PE-ROPE": "RoPE added to a learned table",
         "PE-MORLET": "MoPE", "EGA-1": "the energy gate", "EGA-MORLET": "MoPE with the energy gate",
         "NOPE": "no positions at all"}
#: The outcomes of the claims document in the bottom line's words.
SETTLED = ("confirmed", "refuted")

Records = Mapping[str, Mapping[str, dict]]  # {preset: {claim key: record}}


def records_by_preset(documents: Mapping[str, list[dict]]) -> Records:
    """{preset: {key: record}} from {preset: the list of records of ``claims --json``}."""
    return {preset: {record["key"]: record for record in records} for preset, records in documents.items()}


def page_records(findings: Mapping[str, claims.Findings], presets: Iterable[str]) -> Records:
    """{preset: {key: record}} of the claims document on each of ``presets``, for a page that opens with an answer:
    the page's ``findings`` (:func:`~mope.evidence.claims.preset_findings`, the document's verdicts) where it
    judged the preset, else the preset's stored runs judged the same way."""
    return {preset: {claim.key: claims.record(claim, verdict)
                     for claim, verdict in findings.get(preset) or claims.preset_findings(preset)} for preset in presets}


def compared(record: dict) -> tuple[str, str, float] | None:
    """(the model with the lower loss, the other, by how much) of a record whose test is "L(A) − L(B) ...";
    None where the record has no estimate or its test is not such a difference."""
    found = re.match(r"L\(([A-Z0-9-]+)\) − L\(([A-Z0-9-]+)\)", record["test"])
    if found is None or record["ours"] is None:
        return None
    first, second = found.groups()
    return (second, first, record["ours"]) if record["ours"] >= 0 else (first, second, -record["ours"])


def where(preset: str, n: int) -> str:
    """"`cpu`, 8 seeds": the scale and the seeds a number stands on."""
    return f"`{preset}`, {seeds_count(n)}"


def scale_in_words(preset: str) -> str:
    """"4 layers, 64-character windows, 6.1M characters read in training": what a preset's models are, from its
    configuration, for a reader who does not know the preset's name."""
    cfg = get_preset(preset)
    window, unit = ("token windows of subwords", "tokens") if cfg.tokenizer else ("character windows", "characters")
    trained = cfg.steps * cfg.batch_size * cfg.block_size / 1e6
    return f"{cfg.n_layer} layers, {cfg.block_size}-{window}, {trained:.1f}M {unit} read in training"


class NamedOnce:
    """:func:`where` that says what a scale is the first time it is named ("`cpu` (4 layers, 64-character
    windows, 6.1M characters read in training; 8 seeds)", "`paper` (the paper's own protocol; one seed)": its numbers are
    in its own sentence) and only its name after ("`cpu`, 8 seeds"): the bottom line's one home of each scale's
    description."""

    def __init__(self):
        self.named: set[str] = set()

    def __call__(self, preset: str, n: int) -> str:
        if preset in self.named:
            return where(preset, n)
        self.named.add(preset)
        what = "the paper's own protocol" if preset == PUBLISHED else scale_in_words(preset)
        return f"`{preset}` ({what}; {seeds_count(n)})"


def size_open(record: dict) -> bool:
    """Whether ``record`` is a size at the paper's protocol whose direction is settled and whose size is not yet."""
    return record["outcome"] == "undecided" and record.get("direction") in SETTLED and record.get("judged_on") == "size"


def certainty(record: dict) -> str:
    """"settled", "not settled: about 20 seeds if the effect is what we measured", "not
    settled", "one seed only", or for a size whose direction is settled and size not "its size not settled: about 9
    seeds ...": the plain words of :data:`~mope.evidence.verdicts.PLAIN_WORDS`. What is settled is said: a size judged
    on its direction alone off the paper's protocol "its direction settled"; a mechanism, the side of its threshold
    the claims document decides ("settled: below 50%" of a share), not the number quoted beside it."""
    if record["outcome"] in SETTLED:
        if record.get("kind") == "size" and record.get("judged_on") == "direction":
            return "its direction settled"
        if record.get("kind") == "mechanism" and ": " in record.get("plain", ""):
            return "settled: " + record["plain"].split(": ", 1)[1]
        return "settled"
    if record["n"] == 1:
        return PLAIN_WORDS["indicative"]
    if size_open(record):
        return f"its size not settled: {settle_text(record['seeds_needed'])}"
    if record["outcome"] == "undecided":
        return f"{PLAIN_WORDS['undecided']}: {settle_text(record['seeds_needed'])}"
    return PLAIN_WORDS["undecided"]


def _settled_word(record: dict, yes: bool) -> str:
    """"yes" or "no" where ``record`` is settled (``yes``: the way the question asks), else "not settled"."""
    return ("yes" if yes else "no") if record["outcome"] in SETTLED else PLAIN_WORDS["indicative"] \
        if record["n"] == 1 else PLAIN_WORDS["undecided"]


def lower_by(record: dict, model: str) -> float | None:
    """How much lower ``model``'s loss is than the other model's of ``record`` (negative: higher)."""
    found = compared(record)
    if found is None:
        return None
    lower, _, by = found
    return by if lower == model else -by


def below_or_above(by: float, unit: str = "") -> str:
    """"0.133 below", "0.111 above" (with ``unit`` after the number): a difference of losses in words."""
    return f"{abs(by):.3f}{unit} {'below' if by > 0 else 'above'}"


def _against(record: dict, model: str, against: str) -> str:
    """"0.133 above that of a learned position table": ``model``'s loss against ``against``'s, from ``record``."""
    by = lower_by(record, model)
    return f"{below_or_above(by)} that of {PLAIN[against]}"


def percent(share: float) -> str:
    """"88%", "−3%" (a true minus sign, never "-0%"): a share as every page quotes it."""
    return f"{share:.0%}".replace("-0%", "0%").replace("-", "−")


def mope_against_the_usual(records: Records, where=where) -> str | None:
    """Question 1, on the CPU model and at the paper's context: MoPE against a learned table, RoPE and sin/cos; where
    it beats sin/cos but, settled, not sin/cos scaled to the token embeddings (``locality-not-scale`` refuted), the
    answer says "sin/cos as published" and gives the scaled one's lead."""
    keys = (("mope-below-base", "BASE-DOT"), ("rope-beats-mope", "PE-ROPE"), ("mope-beats-sincos", "PE-SINCOS"))
    shown = [p for p in (MAIN, LONG) if all(records.get(p, {}).get(k, {}).get("n") for k, _ in keys)]
    if not shown:
        return None
    main = records[shown[0]]
    short = {"BASE-DOT": "a learned table", "PE-ROPE": "RoPE", "PE-SINCOS": "sin/cos"}
    beaten = [short[model] for k, model in keys if lower_by(main[k], "PE-MORLET") > 0]
    if not all(main[k]["outcome"] in SETTLED for k, _ in keys):
        answer = "Not settled"
    else:
        answer = "Yes" if len(beaten) == len(keys) else "No" if not beaten else f"Only against {' and '.join(beaten)}"
    scaled = [(p, records[p]["locality-not-scale"]) for p in shown
              if records[p].get("locality-not-scale", {}).get("outcome") == "refuted" and records[p]["locality-not-scale"]["ours"] < 0]
    if scaled and "sin/cos" in beaten and answer != "Not settled":
        answer += " as published"
    parts = []
    for preset in shown:
        found = records[preset]
        n = min(found[k]["n"] for k, _ in keys)
        against = [_against(found[k], "PE-MORLET", model) if not parts else below_or_above(lower_by(found[k], "PE-MORLET"))
                   for k, model in keys]  # after the first scale, the models in the same order, unnamed
        parts.append(f"on {where(preset, n)}, its loss is " + ", ".join(against)
                     + f" ({'all settled in direction' if all(found[k]['outcome'] in SETTLED for k, _ in keys) else 'not all settled'})")
    text = (f"**Does MoPE beat the usual position encodings? {answer}.** Loss a character, in nats (lower is better): "
            + "; ".join(parts) + " ({ref}`repro-table-2`)")
    if scaled and "sin/cos" in beaten:
        text += ("; sin/cos scaled to the token embeddings' size has a loss below MoPE's: " + "; ".join(
            f"by {-record['ours']:.3f} on `{p}`, {seeds_count(record['n'])} (settled)" for p, record in scaled)
                 + " ({ref}`repro-sincos-scale`)")
    return text + "."


def reads_the_future(records: Records, preset: str) -> bool:
    """Whether on ``preset`` a gate that sees only the past keeps, settled, less than half of the published gate's
    settled gain (``gain-survives-causal-gate`` refuted, ``ega-gain`` confirmed): its gain comes mostly from reading
    future tokens, which a language model cannot."""
    found = records.get(preset, {})
    share, gain = found.get("gain-survives-causal-gate"), found.get("ega-gain")
    return bool(share and gain and share["outcome"] == "refuted" and gain["outcome"] == "confirmed")


def gain_settled(records: Records, preset: str) -> bool:
    """Whether the published gate's gain on ``preset`` has a settled sign: only then has a share of it a meaning."""
    return records.get(preset, {}).get("ega-gain", {}).get("outcome") in SETTLED


def whole_gains(stored: Mapping[str, list[dict]]) -> dict[str, float]:
    """{preset: EGA-1's mean gain over BASE-DOT on the whole validation split}: the gain a causal gate's share
    divides (chapter 6's table of the causal gate), the one the gate's answer quotes (:func:`gate`)."""
    gains = {p: estimates.improvement(runs, "EGA-1", key="val_loss_full") for p, runs in stored.items()}
    return {p: gain.mean for p, gain in gains.items() if gain.n}


def gate(records: Records, where=where, whole: Mapping[str, float] | None = None,
         stored: Mapping[str, list[dict]] | None = None) -> str | None:
    """Question 2: the energy gate's gain over the learned table, the paper's protocol first, and how much of it a
    gate that sees only past tokens keeps: at the paper's protocol from one seed on (one seed settles nothing, and
    says so; with ``stored``, the planned seeds not stored that would test it are named, and the devices' arithmetic
    where the causal gate computed unlike the published one), on the CPU scales from
    two, and there only where the gain's sign is settled (a share of a gain that may be 0 says nothing). Where the
    past-only gate keeps, settled, less than half of a settled gain, the answer there is not "yes" but that the
    gain comes from reading the future (:func:`reads_the_future`). With ``whole`` (:func:`whole_gains`) each gain
    is quoted on the whole validation split, the gain the share divides, as every page quotes it; whether its
    sign is settled is its record's (``ega-gain``)."""
    shares = [(p, records[p]["gain-survives-causal-gate"]) for p in GATE_PRESETS
              if records.get(p, {}).get("gain-survives-causal-gate", {}).get("n", 0) > (p != PUBLISHED)]
    quoted = [(p, record) for p, record in shares
              if p == PUBLISHED or gain_settled(records, p) or record["outcome"] == "moot"]
    # the gain on each of the three scales, and on any other whose share is quoted (a share of a gain not said misleads)
    gained = (PUBLISHED, MAIN, LONG, *(p for p, _ in quoted if p not in (PUBLISHED, MAIN, LONG)))
    gains = [(p, records[p]["ega-gain"]) for p in gained if records.get(p, {}).get("ega-gain", {}).get("n")]
    if not gains:
        return None
    by = {p: whole[p] if whole and p in whole else lower_by(record, "EGA-1") for p, record in gains}
    verbs = [f"{'lowers' if by[p] > 0 else 'raises'} the loss" for p, _ in gains]
    said = "; ".join(f"{verb if i == 0 or verb != verbs[i - 1] else ''} by {abs(by[p]):.3f} ".lstrip()
                     + f"on {sure_at(where(p, record['n']), record)}" for i, ((p, record), verb) in enumerate(zip(gains, verbs)))
    answer = "; ".join(f"mostly by reading future tokens on `{p}`" if reads_the_future(records, p) else
                       f"{_settled_word(record, lower_by(record, 'EGA-1') > 0)} on `{p}`" for p, record in gains
                       if p in (PUBLISHED, MAIN, LONG))  # the answer's three scales; another's gain is in the text
    if not answer:  # no gain on the answer's three scales: no answer (another scale's gain alone answers nothing)
        return None
    text = (f"**Does the energy gate help? {answer[0].upper() + answer[1:]}.** Added to a model with a learned "
            f"position table, {'on the whole validation split ' if whole else ''}it {said}")
    if quoted:  # the paper's protocol from its first seed on ("one seed" says its certainty), the CPU scales from two
        said_there = "; ".join(causal_caveats(stored, "EGA-1-CAUSAL")) if stored is not None else ""
        kept = "; ".join(_kept(record, where(p, record["n"])) + (f" ({said_there})" if p == PUBLISHED and said_there else "")
                         for p, record in quoted)
        text += (f". The published gate reads future tokens, which a language model must not; of its gain, a gate "
                 f"that sees only the past keeps {kept}")
    return text + " ({ref}`stress-causal-gate`)."


def _kept(record: dict, scale: str) -> str:
    """"88% on `cpu-short`, 3 seeds (not settled: ...)": the share of the gate's gain a causal gate keeps."""
    if record["outcome"] == "moot":
        return f"nothing on {scale}, where the published gate gains nothing"
    return f"{percent(record['ours'])} on {sure_at(scale, record)}"


#: Each causal gate with the model it is set against at the paper's protocol: their seeds test it.
CAUSAL_PAIRS = {"EGA-1-CAUSAL": ("EGA-1", "EGA-1-CAUSAL"), "EGA-MORLET-CAUSAL": ("EGA-MORLET-CAUSAL", "BASE-DOT")}


def causal_caveats(stored: Mapping[str, list[dict]], causal: str, name_seeds: bool = True) -> list[str]:
    """["EGA-1-CAUSAL trained in float32 on cpu, EGA-1 in bf16 on cuda", "seeds 1 and 2 of EGA-1 and EGA-1-CAUSAL
    would test it"]: what a number of the causal gate ``causal`` at the paper's protocol is read with, each where
    it applies: the devices' arithmetic against the model of :data:`CAUSAL_PAIRS` it is set against and, with
    ``name_seeds``, the planned seeds that would test it."""
    pair = CAUSAL_PAIRS[causal]
    other = next(variant for variant in pair if variant != causal)
    arithmetic = devices.against(stored.get(PUBLISHED, []), causal, other)
    return [part for part in (arithmetic, would_test(stored, pair) if name_seeds else "") if part]


def would_test(stored: Mapping[str, list[dict]], variants: tuple[str, ...]) -> str:
    """"seeds 1 and 2 of EGA-1 and EGA-1-CAUSAL would test it": the planned seeds of ``variants`` at the paper's
    protocol that are not stored, each model with its own, while fewer than two seeds have them all (a test needs a
    spread); "" otherwise."""
    runs = {(run["variant"], run["seed"]) for run in stored.get(PUBLISHED, [])}
    if len({seed for _, seed in runs if all((v, seed) in runs for v in variants)}) > 1:
        return ""
    lacking: dict[tuple[int, ...], list[str]] = {}  # the same seeds missing: one phrase for their models
    for variant in variants:
        seeds = tuple(seed for v, seed in missing_runs(stored, PUBLISHED, (variant,)))
        if seeds:
            lacking.setdefault(seeds, []).append(variant)
    if not lacking:
        return ""
    return " and ".join(f"{seeds_words(seeds)} of {' and '.join(names)}" for seeds, names in lacking.items()) + " would test it"


def seeds_count(n: int) -> str:
    """"one seed", "3 seeds": how many seeds a number stands on (:func:`seeds_words` names them)."""
    return "one seed" if n == 1 else f"{n} seeds"


def seeds_words(seeds: Sequence[int]) -> str:
    """"seed 0", "seeds 1 and 2", "seeds 0, 1 and 2"."""
    names = [str(seed) for seed in seeds]
    return f"seed {names[0]}" if len(names) == 1 else f"seeds {', '.join(names[:-1])} and {names[-1]}"


def causal_mope_gain(stored: Mapping[str, list[dict]]) -> estimates.Estimate:
    """MoPE with a gate that cannot see the future (EGA-MORLET-CAUSAL) against the learned table at the paper's
    protocol: L(BASE-DOT) − L(EGA-MORLET-CAUSAL) seed by seed on the whole validation split, as the headline's caveat
    in the claims document quotes it (a measurement of ours beside the claim, no verdict of its own)."""
    return estimates.improvement(stored.get(PUBLISHED, []), "EGA-MORLET-CAUSAL", key="val_loss_full")


def causal_mope_answer(gain: estimates.Estimate) -> str:
    """"With a gate that cannot see the future, MoPE's loss is still lower (one seed only)": where MoPE with a causal
    gate stands against the learned table at the paper's protocol, in its seeds, as a count (no verdict)."""
    lower = sum(value > 0 for value in gain.values.values())
    if gain.n == 1:
        return (f"With a gate that cannot see the future, MoPE's loss is {'still' if lower else 'not'} lower "
                f"({PLAIN_WORDS['indicative']}).")
    counted = (f"still lower in each of its {gain.n} seeds" if lower == gain.n else
               f"not lower in any of its {gain.n} seeds" if not lower else f"lower in {lower} of its {gain.n} seeds")
    return f"With a gate that cannot see the future, MoPE's loss is {counted}."


def how_sure(record: dict) -> str:
    """" (settled)", " (not settled: ...)", or nothing for one seed (the scale's "one seed" already says it)."""
    return "" if record["n"] == 1 else f" ({certainty(record)})"


def sure_at(scale: str, record: dict) -> str:
    """A scale as :func:`where` names it, then :func:`how_sure`: inside its parentheses where the first naming of a
    scale opened some ("`cpu-short` (4 layers, ...; 3 seeds; settled)", not "...; 3 seeds) (settled)")."""
    if record["n"] == 1 or not scale.endswith(")"):
        return scale + how_sure(record)
    return f"{scale[:-1]}; {certainty(record)})"


def paper_scale(records: Records, where=where, stored: Mapping[str, list[dict]] | None = None) -> str | None:
    """Question 3: the paper's headline at its own protocol beside the CPU scales; with ``stored`` (the runs by
    preset), in how many of its seeds MoPE with the energy gate has the lower loss there, and where MoPE with a gate
    that cannot see the future stands. A "yes" names the published gate's reading of future tokens where the
    headline's record says it (its caveat), and, until a causal gate is stored there, that it is not known whether
    a gate that cannot see the future keeps the gain."""
    headline = records.get(PUBLISHED, {}).get("ega-mope-gain")
    if not headline or not headline["n"]:
        return None
    cfg = get_preset(PUBLISHED)
    gain = lower_by(headline, "EGA-MORLET")
    leaks = measures.reads_future(headline.get("caveat"))  # the published gate's, as the record says
    yes = "yes, with the published gate, which reads future tokens" if leaks else "yes"
    answer = ("Not known yet" if headline["n"] == 1 else yes[0].upper() + yes[1:] if headline["outcome"] == "confirmed"
              else "No" if headline["outcome"] == "refuted" else
              f"In direction, {yes if headline['direction'] == 'confirmed' else 'no'}; its size is "
              f"{PLAIN_WORDS['undecided']} yet" if size_open(headline) else "Not settled")
    seeds = "" if stored is None or headline["n"] == 1 else seeds_lower(stored.get(PUBLISHED, []))
    causal = causal_mope_gain(stored or {})
    if causal.n:
        answer += ". " + causal_mope_answer(causal)[:-1]
    text = (f"**Does the paper's headline hold at its own scale? {answer}.** There ({cfg.n_layer} layers, width "
            f"{cfg.n_embd}, "
            f"{cfg.steps * cfg.batch_size * cfg.block_size / 1e6:.0f}M characters read in training; "
            f"{where(PUBLISHED, headline['n'])}) "
            f"MoPE with the energy gate has a loss {below_or_above(gain)} the learned "
            f"table's{seeds} (the paper: {headline['paper']:.3f} below"
            + (")" if size_open(headline) else f"; {certainty(headline)})"))
    if causal.n:
        caveats = "".join(f"; {caveat}" for caveat in causal_caveats(stored or {}, "EGA-MORLET-CAUSAL"))
        text += (f"; with a gate that sees only the past (EGA-MORLET-CAUSAL), {below_or_above(causal.mean)} on the "
                 f"whole validation split ({seeds_count(causal.n)}{caveats})")
    elif leaks:
        text += ("; whether a gate that cannot see the future keeps that gain there is not known yet "
                 "({ref}`book-unknowns`)")
    cpu = [(p, records[p]["ega-mope-gain"]) for p in (LONG, MAIN) if records.get(p, {}).get("ega-mope-gain", {}).get("n")]
    if cpu:
        scales = "a CPU scale" if len(cpu) == 1 else "two CPU scales"
        text += f"; on {scales}, MoPE with the published gate is " + "; ".join(
            f"{below_or_above(lower_by(r, 'EGA-MORLET'))} on "
            f"{where(p, r['n'])} ({certainty(r)})" for p, r in cpu)
    return text + " ({ref}`repro-table-2`)."


def seeds_lower(runs: Sequence[dict], model: str = "EGA-MORLET", reference: str = "BASE-DOT") -> str:
    """", lower in each of its 3 seeds" or ", lower in 2 of its 3 seeds": the seeds in which ``model``'s final
    random-batch validation loss (the headline's) is below ``reference``'s, among the seeds both have."""
    gains = estimates.improvement(runs, model, reference).values
    if len(gains) < 2:
        return ""
    lower = sum(gain > 0 for gain in gains.values())
    return f", lower in each of its {len(gains)} seeds" if lower == len(gains) else f", lower in {lower} of its {len(gains)} seeds"


def missing_runs(stored: Mapping[str, list[dict]], preset: str = PUBLISHED,
                 variants: tuple[str, ...] = ("BASE-DOT", "EGA-MORLET")) -> list[tuple[str, int]]:
    """The runs of ``variants`` the plan trains on ``preset`` that are not stored: (variant, seed)."""
    planned = plan.planned_seeds(preset) or {}
    have = {(r["variant"], r["seed"]) for r in stored.get(preset, [])}
    return [(v, s) for v in variants for s in planned.get(v, ()) if (v, s) not in have]


def cpu_hours(rehearsal: Mapping | None = None) -> str | None:
    """E.g. "14 hours of steps on one core of an Intel Xeon (the learned table's and MoPE's runs, measured side by
    side)": a run of the paper's protocol at the seconds a step the stored CPU rehearsal measured with two runs side
    by side, one core each (:func:`mope.evidence.devices.load_rehearsal`, the slower of its models), on the CPU it
    names; None where none is stored."""
    found = rehearsal or devices.load_rehearsal() or {}
    timing = found.get("side_by_side")
    if not timing:
        return None
    cpu = device_name((found.get("side_by_side_provenance") or {}).get("device") or "")
    return (f"{get_preset(PUBLISHED).steps * max(timing.values()) / 3600:.0f} hours of steps on one core of "
            f"{'an ' + cpu if cpu else 'a CPU'} (the learned table's and MoPE's runs, measured side by side)")


def what_would_settle_it(records: Records, stored: Mapping[str, list[dict]]) -> str | None:
    """Question 4: the runs that would settle the headline at the paper's scale, and what they cost (the stored
    GPU runs' wall time): the planned runs not yet stored, else, while the headline is not settled, the seeds its
    verdict says would settle it; None once nothing is missing and the headline is settled (or 50 seeds would
    not settle it)."""
    missing = missing_runs(stored)
    headline = records.get(PUBLISHED, {}).get("ega-mope-gain")
    on_gpu = [r for r in stored.get(PUBLISHED, [])
              if r["variant"] in ("BASE-DOT", "EGA-MORLET") and device_kind(r["provenance"]["device"]) == "cuda"]
    gpus = " or ".join(sorted({device_name(r["provenance"]["device"]) or "GPU" for r in on_gpu}))
    minutes = max((r["provenance"]["wall_time_s"] / 60 for r in on_gpu), default=None)
    costs = [f"about {minutes:.0f} minutes a run on one {gpus}" if minutes is not None else "a GPU", cpu_hours()]
    cost = " or ".join(filter(None, costs))
    if missing:
        seeds = sorted({s for _, s in missing})
        return (f"**What would settle it?** Seeds {' and '.join(map(str, seeds))} of the learned table and of MoPE "
                f"with the energy gate there ({len(missing)} runs; {cost}: `bash scripts/gpu_suite.sh`) "
                "({ref}`repro-table-2`).")
    if not headline or headline["outcome"] != "undecided" or not headline["seeds_needed"]:
        return None
    more = headline["seeds_needed"] - headline["n"]
    first = max(r["seed"] for r in stored.get(PUBLISHED, [])) + 1
    what = "its size" if size_open(headline) else "it"
    return (f"**What would settle it?** If the effect is what we measured, {more} more seeds of both models there, "
            f"{headline['seeds_needed']} in all, would settle {what} ({2 * more} runs; {cost}: `python -m mope suite --preset "
            f"{PUBLISHED} --variants BASE-DOT EGA-MORLET --seeds {' '.join(map(str, range(first, first + more)))}`) "
            "({ref}`repro-table-2`).")


def instead(records: Records, where=where) -> str | None:
    """Question 5: what the runs favour instead of MoPE (RoPE, where the claims document settles that it beats MoPE
    and sin/cos, with where it stands against the learned table in that document's words), and the subword result
    a practitioner most needs. A verdict of the claims document only: no ranking of the book's own."""
    found = records.get(MAIN, {})
    parts = []
    beaten = [(name, record) for name, key in (("MoPE", "rope-beats-mope"), ("sin/cos", "rope-beats-sincos"))
              if (record := found.get(key)) and record["n"] > 1 and record["outcome"] == "confirmed"]
    if beaten:
        text = (f"rotary positions (RoPE), added to the learned table as published (PE-ROPE), have a lower loss than "
                f"{' and '.join(name for name, _ in beaten)} on "
                f"{where(MAIN, min(r['n'] for _, r in beaten))}: " + " and ".join(
                    f"{lower_by(r, 'PE-ROPE'):.3f} below {name}'s" for name, r in beaten) + " (settled)")
        base = found.get("rope-matches-base")
        if base and base["n"] > 1 and (by := lower_by(base, "PE-ROPE")) is not None:
            judged = (PLAIN_WORDS[base["outcome"]] if base["outcome"] in ("not_judged", *SETTLED) else certainty(base))
            text += (f"; {below_or_above(by)} the learned table's alone (whether it nearly matches the table, as the paper "
                     f"says: {judged})")
        parts.append(text)
    nope = records.get(BPE, {}).get("mope-beats-nope")
    if nope and nope["n"]:
        gap = lower_by(nope, "PE-MORLET")
        parts.append(f"on subword tokens MoPE's loss is {below_or_above(gap, ' nats a token')} "
                     f"that of a model with no positions at all ({where(BPE, nope['n'])}, {certainty(nope)})")
    if not parts:
        return None
    return "**What to use instead?** " + "; ".join(parts)[0].upper() + "; ".join(parts)[1:] + " ({ref}`open-subword`)."


def scope(stored: Mapping[str, list[dict]]) -> str:
    """What the evidence covers and what no run here can say, in one paragraph: the stored runs, the largest
    model among them, the data."""
    runs = [run for preset_runs in stored.values() for run in preset_runs]
    if not runs:
        return "**What this stands on.** No training run is stored yet: `python -m mope suite --preset cpu` trains them."
    largest = max(runs, key=lambda run: run["num_parameters"])
    model = largest["config"]["model"]
    # counted as each chapter counts its own ("N runs stored of M planned"): the plan's runs and any stored beside them
    planned = sum(len({(v, s) for v, seeds in (plan.planned_seeds(p) or {}).items() for s in seeds}
                      | {(r["variant"], r["seed"]) for r in preset_runs}) for p, preset_runs in stored.items())
    return (f"**What this stands on.** {len(runs)} training runs stored of {planned} planned, every model on every scale "
            f"together, of models of at most "
            f"{largest['num_parameters'] / 1e6:.1f}M parameters ({model['n_layer']} layers, width {model['n_embd']}), "
            f"on TinyShakespeare ({TRAINING_CHARACTERS / 1e6:.1f}M characters of training text; once by subword tokens). "
            "No run here says how MoPE or the gate behave in larger models, longer training or other data "
            "({doc}`reproducibility`).")


def bottom_line(documents: Mapping[str, list[dict]], stored: Mapping[str, list[dict]]) -> list[str]:
    """The bottom line's sentences (MyST Markdown), from {preset: claims records} and {preset: stored runs}."""
    records = records_by_preset(documents)
    named = NamedOnce()
    sentences = [mope_against_the_usual(records, named), gate(records, named, whole_gains(stored), stored),
                 paper_scale(records, named, stored),
                 what_would_settle_it(records, stored), instead(records, named)]
    return [sentence for sentence in sentences if sentence]
