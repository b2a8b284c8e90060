r"""What the book found, in six plain sentences: the introduction's first screen.

Each sentence is built from the verdicts of :mod:`mope.evidence.claims` (and, for the first, from how far our
runs at the published protocol lie from Table 2), so it changes when the runs change; its wording is
chosen by the verdicts' outcomes, and its numbers are theirs. Each ends with a link to its evidence.
"""
from __future__ import annotations

from collections.abc import Mapping

from mope.evidence import claims, paper
from mope.evidence.claims import Findings, Verdict
from mope.evidence.estimates import distance_to_paper, paired

MAIN, PUBLISHED = "cpu", "paper"


def _verdict(findings: Mapping[str, Findings], preset: str, key: str) -> Verdict | None:
    return claims.verdict_of(findings[preset], key) if preset in findings else None


def _percent(share: float) -> str:
    """"91%", never "-0%"."""
    return f"{share:.0%}".replace("-0%", "0%")


def _n(verdict: Verdict) -> str:
    return f"n = {verdict.estimate.n} seed{'s' if verdict.estimate.n > 1 else ''}"


def reproduction(runs: Mapping[str, list[dict]]) -> str:
    """How far our runs of the published protocol lie from Table 2."""
    distances = distance_to_paper(runs.get(PUBLISHED, []))
    if not distances:
        return ("Our code has not yet been run at the paper's own protocol, so nothing here checks its "
                "numbers at its scale ({ref}`repro-against-paper`).")
    gaps = {name: distance.mean for name, distance in distances.items()}
    furthest = max(gaps, key=lambda name: abs(gaps[name]))
    within = sum(abs(gap) <= paper.RUN_TO_RUN for gap in gaps.values())
    seeds = min(distance.n for distance in distances.values())
    models = "all six models" if len(gaps) == len(paper.TABLE_2_VAL) else f"{len(gaps)} of the six models"
    return (f"**Our code gives the paper's numbers.** Trained as published ({seeds} seed{'s' if seeds > 1 else ''} "
            f"each), {models} of Table 2 land within {abs(gaps[furthest]):.3f} nats of the paper's losses, "
            f"{within} of them within its own run-to-run noise of {paper.RUN_TO_RUN} ({{ref}}`repro-against-paper`).")


def causal_gate(findings: Mapping[str, Findings]) -> str | None:
    """Whether EGA's gain needs statistics from future tokens."""
    survives = _verdict(findings, MAIN, "gain-survives-causal-gate")
    gain = _verdict(findings, MAIN, "ega-gain")
    if survives is None or not survives.estimate.n or gain is None or not gain.estimate.n:
        return None
    share = _percent(survives.estimate.mean)
    kept = (f"it loses all of that gain (keeps {share}, {_n(survives)})" if survives.estimate.mean <= 0
            else f"it keeps {share} of that gain ({_n(survives)})")
    lead = {"refuted": "**EGA's gain needs the future.**",
            "confirmed": "**EGA's gain survives a causal gate.**"}.get(survives.outcome, "**Whether EGA's gain needs the future is open.**")
    return (f"{lead} EGA-1 improves on BASE-DOT by {gain.estimate.mean:+.3f} on `{MAIN}` (random-batch Val), but its gate reads "
            f"statistics of the whole window, future tokens included; retrained with a gate that cannot see the "
            f"future {kept}: the paper's salience explanation is "
            f"*{survives.text}* ({{ref}}`stress-causal-gate`).")


def sincos_scale(findings: Mapping[str, Findings], runs: Mapping[str, list[dict]]) -> str | None:
    """Whether MoPE beats sin/cos through locality or through the scale of sin/cos."""
    beats = _verdict(findings, MAIN, "mope-beats-sincos")
    locality = _verdict(findings, MAIN, "locality-not-scale")
    if beats is None or locality is None or not locality.estimate.n or not beats.estimate.n:
        return None
    if locality.outcome == "refuted":
        lead = "**MoPE's advantage over sin/cos is the scale of sin/cos.**"
        then = f"then beats MoPE by {-locality.estimate.mean:.3f}"
    elif locality.outcome == "confirmed":
        lead = "**MoPE beats sin/cos through locality.**"
        then = f"still trails MoPE by {locality.estimate.mean:.3f}"
    else:
        lead = "**Whether MoPE beats sin/cos through locality is open.**"
        then = f"then differs from MoPE by {locality.estimate.mean:+.3f}"
    rescaling = paired(runs.get(MAIN, []), "PE-SINCOS", "PE-SINCOS-SCALED")
    gains = f" gains {rescaling.mean:+.3f} over the published one and" if rescaling.n else ""
    return (f"{lead} MoPE beats the published sin/cos by {beats.estimate.mean:+.3f} on `{MAIN}`, but the "
            f"published sin/cos vectors are far larger than the token embeddings they are added to; scaled down "
            f"to them, sin/cos{gains} {then} ({_n(locality)}; Gaussian locality as the explanation: "
            f"*{locality.text}*, {{ref}}`repro-sincos-scale`).")


def learned_parameters(findings: Mapping[str, Findings]) -> str | None:
    """Whether the learned ω, σ are the data's or weight decay's."""
    sigma = _verdict(findings, MAIN, "sigma-set-by-data")
    every = _verdict(findings, MAIN, "every-pair-pushed")
    if sigma is None or not sigma.estimate.n:
        return None
    lead = {"refuted": "**MoPE's learned ω, σ are mostly weight decay's.**",
            "confirmed": "**MoPE's learned ω, σ are the data's.**"}.get(sigma.outcome, "**Who sets MoPE's ω, σ is open.**")
    pairs = ""
    if every is not None and every.estimate.n:
        share = "every pair" if every.outcome == "confirmed" else f"{_percent(every.estimate.mean)} of the pairs"
        pairs = (f"; with weight decay switched off, the data push {share} onto the bound ωσ = 5, where the paper "
                 f"says every pair lies (*{every.text}*)")
    return (f"{lead} Of σ's way from its initial value, the data account for {_percent(sigma.estimate.mean)} and weight "
            f"decay with no data at all for the rest ({_n(sigma)}; *{sigma.text}*){pairs} "
            "({ref}`learned-table-3`, {ref}`learned-boundary`).")


def mope_alone(findings: Mapping[str, Findings]) -> str | None:
    """Where MoPE alone stands against the learned table, RoPE and no positions at all."""
    below = _verdict(findings, MAIN, "mope-below-base")
    rope = _verdict(findings, MAIN, "rope-beats-mope")
    nope = _verdict(findings, MAIN, "mope-beats-nope")
    if below is None or not below.estimate.n:
        return None
    parts = [f"worse than the learned table by {below.estimate.mean:+.3f} (*{below.text}*)"]
    if rope is not None and rope.estimate.n:
        parts.append(f"worse than RoPE by {rope.estimate.mean:+.3f} (*{rope.text}*)")
    if nope is not None and nope.estimate.n:
        parts.append(f"better than no positional encoding at all by {nope.estimate.mean:+.3f} (*{nope.text}*)")
    trails = below.outcome == "confirmed" and rope is not None and rope.outcome == "confirmed"
    lead = "**MoPE alone trails the learned table and RoPE.**" if trails else "**MoPE alone, against the others.**"
    return (f"{lead} On `{MAIN}` it is " + ", ".join(parts)
            + " ({ref}`repro-table-2`, {ref}`stress-mope-vs-nope`).")


def headline(findings: Mapping[str, Findings]) -> str | None:
    """The paper's headline: EGA-MORLET +0.119, best overall."""
    gain = _verdict(findings, MAIN, "ega-mope-gain")
    best = _verdict(findings, MAIN, "ega-mope-best")
    if gain is None or not gain.estimate.n:
        return None
    claimed = claims.get_claim("ega-mope-gain").paper
    text = (f"**The headline +{claimed:.3f} of EGA-MORLET over BASE-DOT is *{gain.word}* on `{MAIN}`**: "
            f"{gain.estimate.format(signed=True)}, *{gain.text}*")
    if best is not None and best.estimate.n:
        text += f"; EGA-MORLET against EGA-1: {best.estimate.format(signed=True)}, *{best.text}*"
    published = _verdict(findings, PUBLISHED, "ega-mope-gain")
    if published is not None and published.estimate.n:
        text += (f". At the paper's protocol {_n(published)} gives {published.estimate.mean:+.3f}: "
                 f"*{published.text}*")
    return text + " ({ref}`repro-table-2`)."


def findings_sentences(findings: Mapping[str, Findings], runs: Mapping[str, list[dict]]) -> list[str]:
    """The findings of the book, most important first; a sentence whose runs are missing is left out."""
    sentences = [reproduction(runs), causal_gate(findings), sincos_scale(findings, runs), learned_parameters(findings),
                 mope_alone(findings), headline(findings)]
    return [sentence for sentence in sentences if sentence]


def findings_markdown(findings: Mapping[str, Findings], runs: Mapping[str, list[dict]]) -> str:
    """The findings as a numbered list (MyST Markdown)."""
    return "\n".join(f"{i}. {sentence}" for i, sentence in enumerate(findings_sentences(findings, runs), 1))
