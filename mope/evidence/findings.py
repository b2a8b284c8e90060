r"""What the book found: the introduction's first screen.

The findings are ordered by how close their evidence is to the paper's protocol: first how far our losses lie
from the paper's on its own model, then the paper's headline at every scale (that model first),
then the rest of what the paper's own model shows (one seed of each model, each finding with its caveat),
then the CPU model at the paper's context, then the CPU model at a quarter of it (each verdict with the
claim's standing across the scales), and last a tally of each claim's standing across every scale. Each
finding names, in plain words, the model and the number of seeds it stands on (:func:`scale`, which names
the preset where it first appears), after the few words they use (:data:`WORDS`), and ends with a link to
its evidence.

Each sentence is built from the verdicts of :mod:`mope.evidence.claims`, the stored runs and, for σ under
weight decay alone, :mod:`mope.evidence.learned_parameters`, so it changes when the runs change; its
wording is chosen by the verdicts' outcomes, and its numbers are theirs.
"""
from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from mope.evidence import claims, learned_parameters, measures, open_questions, paper, paper_gate, standings as across
from mope.evidence.bottom_line import percent, seeds_count
from mope.evidence.claims import Findings
from mope.evidence.verdicts import DECIDED, Verdict
from mope.evidence.estimates import LEVEL, common_seeds, distance_to_paper, fieller_interval, final_values, paired
from mope.store.presets import BUDGET_PAIRS, STANDING_PRESETS, TRAINING_CHARACTERS, get_preset

MAIN, PUBLISHED, LONG, SHORT = "cpu", "paper", "cpu-long", "cpu-short"
FRACTIONS = {Fraction(1, 2): "half", Fraction(1, 4): "a quarter of", Fraction(1, 8): "an eighth of"}


def _verdict(findings: Mapping[str, Findings], preset: str, key: str) -> Verdict | None:
    return claims.verdict_of(findings[preset], key) if preset in findings else None


def _standing(findings: Mapping[str, Findings], key: str) -> str:
    """"holds where decided: `cpu`; not settled on `cpu-long` (leaning the claim's way)": a claim's standing across
    the presets of ``findings``, as a predicate (:func:`_predicate`)."""
    return _predicate(across.standings(findings)[key])


def _predicate(standing: across.Standing) -> str:
    """"holds where decided: `cpu`; not settled on `cpu-long` (leaning the claim's way)", "is not settled wherever
    tested: ...": a standing as what its claim does, with every preset behind it."""
    words = SINGULAR[standing.words]
    if standing.phrase != standing.words:  # a size judged on its direction alone
        words = words.replace("holds", "holds in its direction").replace("fails", "fails in its direction")
    return words + (f": {standing.behind}" if standing.behind != "no run yet" else "")


def _count(count: int, singular: str, plural: str) -> str:
    """"1 has", "2 have": a count and its verb."""
    return f"{count} {singular if count == 1 else plural}"


def _seeds_by_model(counts: Mapping[str, int]) -> str:
    """"one seed", or "3 seeds of BASE-DOT and EGA-MORLET, one seed of the other 4": the seeds of each model."""
    groups: dict[int, list[str]] = {}
    for name, n in counts.items():
        groups.setdefault(n, []).append(name)
    if len(groups) == 1:
        return seeds_count(next(iter(groups)))
    *larger, smallest = sorted(groups, reverse=True)
    return ", ".join([*(f"{seeds_count(n)} of {' and '.join(groups[n])}" for n in larger),
                      f"{seeds_count(smallest)} of the other {len(groups[smallest])}"])


def model_words(preset: str) -> str:
    """The model of ``preset`` in plain words: "the paper's own model and protocol", "a 4-layer model on subword
    tokens" or "a 4-layer model at a quarter of the paper's context" (with "trained 501 steps" when it trains
    fewer steps than ``cpu``)."""
    cfg = get_preset(preset)
    if preset == PUBLISHED:
        return "the paper's own model and protocol"
    if cfg.tokenizer:  # as many passes over the training split as its character twin, in fewer, longer tokens
        return f"a {cfg.n_layer}-layer model on subword tokens"
    shorter = f", trained {cfg.steps:,} steps" if cfg.steps < get_preset(MAIN).steps else ""
    return f"a {cfg.n_layer}-layer model at {_context_words(preset)}{shorter}"


def _context_words(preset: str) -> str:
    """"the paper's context", "a quarter of the paper's context": the context of ``preset`` against the paper's."""
    ratio = Fraction(get_preset(preset).block_size, get_preset(PUBLISHED).block_size)
    return ("the paper's context" if ratio == 1 else
            f"{FRACTIONS.get(ratio, f'{ratio.numerator}/{ratio.denominator} of')} the paper's context")


def named(preset: str) -> str:
    """The model of ``preset`` and its name, without seeds: "a 4-layer model at a quarter of the paper's context (`cpu`)"."""
    return f"{model_words(preset)} (`{preset}`)"


def scale(preset: str, seeds: int) -> str:
    """The model a finding stands on and its seeds: "a 4-layer model at a quarter of the paper's context, 8 seeds (`cpu`)"."""
    return f"{model_words(preset)}, {seeds_count(seeds)} (`{preset}`)"


#: The words the findings use, defined before them.
WORDS = (f"A *seed* is one training run from one random initialisation; over several seeds a claim gets a "
         f"{LEVEL:.0%} interval, and is *confirmed* or *refuted* where that interval decides it and the decision "
         "survives Holm's correction over the scale's many tests, *undecided* where it does not (*after the "
         "correction* where only the correction leaves it so); off the paper's protocol a size is judged on its "
         "direction alone (*direction confirmed*), and a near-equality not at all; one seed shows a direction only (*indicative*). "
         "A claim that explains a gain is *moot* where our runs show no gain to explain. *Val* is the paper's validation "
         "loss, on random batches of the validation split: every loss of a model and every gain of Table 2's claims; the "
         "*whole validation split* scores every character of it once: the claims whose test reads it (the causal gate's "
         "share, windows longer than trained, four times the tokens, subwords), each gain they judge quoted with it.")


# --- the paper's own protocol ---------------------------------------------------------------------------

def reproduction(findings: Mapping[str, Findings], runs: Mapping[str, list[dict]]) -> str:
    """How far our runs of the published protocol lie from Table 2, and where their comparisons point."""
    distances = distance_to_paper(runs.get(PUBLISHED, []))
    if not distances:
        return ("Our code has not yet been run at the paper's own protocol, so nothing here checks its "
                "numbers at its scale ({ref}`repro-against-paper`).")
    gaps = {name: distance.mean for name, distance in distances.items()}
    furthest = max(gaps, key=lambda name: abs(gaps[name]))
    within = sum(abs(gap) <= paper.RUN_TO_RUN for gap in gaps.values())
    counts = {name: distance.n for name, distance in distances.items()}
    models = "all six models" if len(gaps) == len(paper.TABLE_2_VAL) else f"{len(gaps)} of the six models"
    several = max(counts.values()) > 1  # some model has more seeds than one
    mean = " (ours a model's mean over its seeds)" if several else ""
    text = (f"**At the paper's own scale, our losses lie within {abs(gaps[furthest]):.3f} nats of Table 2's** (nats: "
            f"the loss's unit). On {model_words(PUBLISHED)}, {_seeds_by_model(counts)} (`{PUBLISHED}`), we trained "
            f"{models} of the paper's Table 2; the furthest from the paper's loss is {furthest}{mean}, and {within} of "
            f"them {'lies' if within == 1 else 'lie'} within its own run-to-run noise of {paper.RUN_TO_RUN}")
    compared = [(claim, verdict) for claim, verdict in findings.get(PUBLISHED, [])
                if claim.source == "paper" and claim.kind in ("ordering", "size", "equivalence")
                and verdict.estimate.n == 1]
    if compared:
        agree = sum(across.points_the_claims_way(claim, verdict) for claim, verdict in compared)
        text += (f"; of the {len(compared)} comparisons between models the paper makes"
                 f"{' that stand on one seed here' if several else ''}, {agree} point its way. One "
                 "seed gives a direction, not a verdict: its spread is unknown")
    return text + " ({ref}`repro-against-paper`)."


def decay_sigma(findings: Mapping[str, Findings]) -> str:
    """Where weight decay alone, with no data, puts MoPE's σ at the paper's protocol, against Table 3."""
    decayed = learned_parameters.decay_only_sigma("EGA-MORLET", PUBLISHED)
    low, high = paper.TABLE_3_SIGMA
    text = (f"**At the paper's protocol, weight decay alone puts σ where the paper reports it.** With no data at "
            f"all, the weight decay of the paper's training takes MoPE's bandwidths σ from their initial values to "
            f"[{decayed[0]:.2f}, {decayed[1]:.2f}]; the paper reports the learned σ ∈ [{low:.2f}, {high:.2f}] "
            "(Table 3) and reads it as the data's choice")
    data = _verdict(findings, PUBLISHED, "sigma-set-by-data")
    if data is not None and data.estimate.n:
        text += (f". Of the way σ moves from its initial value (in log), the data account for "
                 f"{percent(data.estimate.mean)} beyond what weight decay alone does, in our EGA-MORLET at the "
                 f"paper's protocol ({seeds_count(data.estimate.n)})")
    main = _verdict(findings, MAIN, "sigma-set-by-data")
    if main is not None and main.estimate.n > 1:
        text += (f"; on {scale(MAIN, main.estimate.n)}, {percent(main.estimate.mean)} ± "
                 f"{percent(main.estimate.spread)}: *{main.text}*")
    return text + " ({ref}`learned-table-3`)."


def causal_statistics(runs: Mapping[str, list[dict]], findings: Mapping[str, Findings] | None = None) -> str | None:
    """The published EGA models at the paper's protocol, evaluated with their gate's statistics taken over the past
    only, what that cannot separate, and what the causal gates trained there find (:func:`paper_gate.trained`)."""
    published = runs.get(PUBLISHED, [])
    base = final_values(published, "BASE-DOT", "val_loss_full")
    gates = [(gate, final_values(published, gate, "val_loss_full"),
              final_values(published, gate, "val_loss_full_causal_stats")) for gate in ("EGA-1", "EGA-MORLET")]
    # each gate on the seeds that have it both ways and BASE-DOT: its gap to BASE-DOT is seed by seed, the number
    # chapter 6's table of the causal gate gives (with the sign of a gain there)
    gates = [(gate, {s: whole[s] for s in seeds}, {s: causal[s] for s in seeds}, {s: base[s] for s in seeds})
             for gate, whole, causal in gates if (seeds := common_seeds(whole, causal, base))]
    if not gates:
        return None
    mean = lambda values: sum(values.values()) / len(values)  # noqa: E731
    # differences only: a loss level on the whole split would restate Table 2's random-batch one with another number
    moves = "; ".join(f"{gate}'s loss {'rises' if mean(causal) > mean(whole) else 'falls'} by "
                      f"{abs(mean(causal) - mean(whole)):.3f} ({seeds_count(len(whole))}), to "
                      f"{mean(causal) - mean(gated_base):+.3f} against BASE-DOT's on the same "
                      f"seed{'s' if len(whole) > 1 else ''}" for gate, whole, causal, gated_base in gates)
    trained = paper_gate.trained(published, paper_gate.share_record(findings or {}))
    separate = (f"the causal gates trained at the paper's scale separate the two: {trained}" if trained else
                "only a causal gate trained at the paper's scale would separate the two")
    rises = all(sum(causal.values()) > sum(whole.values()) for _, whole, causal, _ in gates)
    models = ("the published EGA models'" if len(gates) > 1 else f"the published {gates[0][0]}'s") if rises else \
        "not every published EGA model's"
    lead = f"{models} loss rises when {'their' if len(gates) > 1 else 'its'} gate's statistics leave out future positions"
    return (f"**At the paper's protocol, {lead}.** "
            f"The EGA gate standardises attention energies with their mean and spread over every position of the "
            f"window, future ones included (whole-window statistics). Evaluated on the whole validation split with those statistics taken over the past only, "
            f"the same weights ({model_words(PUBLISHED)}, `{PUBLISHED}`): {moves} (BASE-DOT has no gate). "
            f"This measures how much the trained model leans on whole-window "
            f"statistics, confounded with the change of the statistics themselves; {separate} ({{ref}}`stress-causal-gate`).")


# --- the CPU model at the paper's context -----------------------------------------------------------------

def context(findings: Mapping[str, Findings]) -> str | None:
    """What the CPU model at the paper's context decides, and which verdicts of the quarter context it
    changes."""
    if LONG not in findings or MAIN not in findings:
        return None
    long, main = findings[LONG], dict((claim.key, verdict) for claim, verdict in findings[MAIN])
    decided = [(claim, verdict) for claim, verdict in long if verdict.outcome in DECIDED]
    if not decided:
        return None
    seeds = max(verdict.estimate.n for _, verdict in decided)
    changed = [claim.words for claim, verdict in decided
               if main[claim.key].outcome in DECIDED and main[claim.key].outcome != verdict.outcome]
    both = sum(main[claim.key].outcome in DECIDED for claim, _ in decided)
    text = (f"**At the paper's context on CPU.** On {scale(LONG, seeds)}, {len(decided)} of the "
            f"{len(claims.CLAIMS)} claims are decided so far. {both} of them are decided at {_context_words(MAIN)} "
            f"(`{MAIN}`) too, and the longer context reverses "
            + ("none of those" if not changed else
               f"{'that one' if both == 1 else f'{len(changed)} of those'}: " + "; ".join(changed)))
    shrinks = _verdict(findings, LONG, "deficit-shrinks-with-context")
    grows = _verdict(findings, LONG, "sincos-gap-grows-with-context")
    if shrinks is not None and shrinks.estimate.n:
        text += (f". Whether MoPE's deficit against the learned position table shrinks from a context of "
                 f"{get_preset(MAIN).block_size} to {get_preset(LONG).block_size} ({seeds_count(shrinks.estimate.n)}): "
                 f"*{shrinks.text}*")
        if grows is not None and grows.estimate.n:
            text += f"; whether its advantage over sin/cos grows ({seeds_count(grows.estimate.n)}): *{grows.text}*"
    return text + " ({ref}`stress-context-length`)."


# --- the CPU model at a quarter of the paper's context ------------------------------------------------

def causal_gate(findings: Mapping[str, Findings], runs: Mapping[str, list[dict]] | None = None) -> str | None:
    """Whether EGA's gain needs statistics from future tokens, and how that changes with the training budget and the
    context; with ``runs``, EGA-1's gain on the whole split and what a causal gate keeps of the gate's gain on MoPE."""
    survives = _verdict(findings, MAIN, "gain-survives-causal-gate")
    gain = _verdict(findings, MAIN, "ega-gain")
    if survives is None or not survives.estimate.n or gain is None or not gain.estimate.n:
        return None
    share = percent(survives.estimate.mean)
    kept = f"it keeps {share}" + (f" ± {percent(survives.estimate.spread)}" if survives.estimate.n > 1 else "") + " of that gain"
    short = _verdict(findings, SHORT, "gain-survives-causal-gate")
    budget = short is not None and short.estimate.n > 1  # the other budget, said whether it decides or not
    depends = budget and survives.outcome in DECIDED and short.outcome in DECIDED and short.outcome != survives.outcome
    other_way = (budget and survives.outcome in DECIDED and short.outcome not in DECIDED
                 and (short.estimate.mean > claims.get_claim("gain-survives-causal-gate").threshold)
                 == (survives.outcome == "refuted"))
    lead = ("**Whether EGA's gain needs the future depends on the training budget.**" if depends else
            f"**On `{MAIN}` EGA's gain {'mostly needs the future' if survives.outcome == 'refuted' else 'survives a causal gate'}"
            f"; a shorter training (`{SHORT}`) points the other way, not settled.**" if other_way else
            {"refuted": "**EGA's gain mostly needs the future.**",  # the claim decides below half, not none
             "confirmed": "**EGA's gain survives a causal gate.**"}.get(survives.outcome,
                                                                       "**Whether EGA's gain needs the future is open.**"))
    whole = paired(runs[MAIN], "BASE-DOT", "EGA-1", "val_loss_full") if (runs or {}).get(MAIN) else None  # as ch. 6
    improves = f"{whole.mean:+.3f} on the whole validation split" if whole and whole.n else f"{gain.estimate.mean:+.3f} in Val"
    text = (f"{lead} On {named(MAIN)}, EGA-1 improves on BASE-DOT by {improves} "
            f"({seeds_count(gain.estimate.n)}); retrained with a gate whose statistics cover only the past "
            f"({seeds_count(survives.estimate.n)}, whole validation split), {kept}: the paper's explanation, that "
            f"the gate picks out salient content, is *{survives.text}*")
    if budget:
        short_cfg, main_cfg = get_preset(SHORT), get_preset(MAIN)
        text += (f". A {short_cfg.n_layer}-layer model at {_context_words(SHORT)} trained {short_cfg.steps:,} steps "
                 f"instead of {main_cfg.steps:,} (`{SHORT}`, {seeds_count(short.estimate.n)}) keeps "
                 f"{percent(short.estimate.mean)} ± {percent(short.estimate.spread)}: *{short.text}*")
        if short.outcome not in DECIDED:
            text += ", a direction this budget does not settle"
        elif not depends:
            text += "; the same verdict"
        elif short_cfg.block_size != main_cfg.block_size:
            text += (f". So the dependence on the future grows with training, or as the context shortens: `{SHORT}` "
                     f"also has a context of {short_cfg.block_size} against {main_cfg.block_size}, and these runs "
                     "cannot tell the two apart")
        else:
            text += ". So the dependence on the future grows with training"
    long = _verdict(findings, LONG, "gain-survives-causal-gate")
    long_gain = _verdict(findings, LONG, "ega-gain")
    if long is not None and long.outcome == "moot" and long_gain is not None:
        text += f". At the paper's context (`{LONG}`, {seeds_count(long_gain.estimate.n)}), EGA-1's share is *{long.text}*"
    on_mope = mope_gate_share(runs or {}, LONG)
    if on_mope:
        text += f". {on_mope}"
    return text + " ({ref}`stress-causal-gate`)."


def mope_gate_share(runs: Mapping[str, list[dict]], preset: str = LONG) -> str | None:
    """What a causal gate keeps of EGA-MORLET's gain over PE-MORLET on ``preset`` (the gate on MoPE, where
    EGA-1's gain over BASE-DOT may have nothing to share): the share, its interval and the two mean gains, on
    the whole validation split. A measurement of ours, not a claim of the paper's, so no verdict: the interval
    is said, and no reading of it (no claim fixed a threshold for it before its runs)."""
    preset_runs = runs.get(preset, [])
    share = measures.causal_share(preset_runs, "EGA-MORLET", "EGA-MORLET-CAUSAL", "PE-MORLET")
    if not share.n:
        return None
    published, retrained = measures.common_gains(preset_runs, "EGA-MORLET", "EGA-MORLET-CAUSAL", "PE-MORLET")
    mean = lambda values: sum(values.values()) / len(values)  # noqa: E731
    spread = f" ± {percent(share.spread)}" if share.n > 1 else ""
    bounds = fieller_interval(retrained, published) if share.n > 1 else None  # the denominator is measured too
    interval = (f"; {LEVEL:.0%} by Fieller's interval, which counts the uncertainty of both gains: "
                f"{percent(bounds[0])} to {percent(bounds[1])}" if bounds else
                "; the seeds do not bound the share" if share.n > 1 else "")
    return (f"On {named(preset)}, a causal gate on MoPE keeps {percent(share.mean)}{spread} of EGA-MORLET's "
            f"gain over PE-MORLET ({mean(retrained):+.3f} against {mean(published):+.3f} on the whole validation "
            f"split, {'one seed only' if share.n == 1 else seeds_count(share.n)}{interval})")


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
    # its own seeds: those that hold both sin/cos models, which need not be the ones of MoPE's lead over sin/cos
    gains = f" gains {rescaling.mean:+.3f} over the published one ({seeds_count(rescaling.n)}) and" if rescaling.n else ""
    return (f"{lead} On {named(MAIN)}, MoPE beats the published sin/cos by {beats.estimate.mean:+.3f} "
            f"({seeds_count(beats.estimate.n)}), but the published sin/cos vectors are far larger than the token embeddings "
            f"they are added to; scaled down to them, sin/cos{gains} {then} ({seeds_count(locality.estimate.n)}; "
            "Gaussian locality as the explanation: "
            f"*{locality.text}*; it {_standing(findings, 'locality-not-scale')}; "
            "{ref}`repro-sincos-scale`).")


def learned_parameters_sentence(findings: Mapping[str, Findings]) -> str | None:
    """Whether the learned ω, σ are the data's or weight decay's, on the CPU model."""
    every = _verdict(findings, MAIN, "every-pair-pushed")
    if every is None or not every.estimate.n:
        return None
    share = "every pair" if every.outcome == "confirmed" else f"{percent(every.estimate.mean)} of the pairs"
    lead = {"refuted": "**Not every pair is pushed onto the bound ωσ = 5 by the data.**",
            "confirmed": "**The data push every pair onto the bound ωσ = 5.**"}.get(
        every.outcome, "**Whether the data push every pair onto the bound ωσ = 5 is open.**")
    return (f"{lead} The paper bounds each MoPE wavelet's frequency ω times its bandwidth σ at ωσ ≥ 5 and says "
            f"training pushes every pair onto that bound. On {scale(MAIN, every.estimate.n)}, with weight decay "
            f"switched off for MoPE's parameters, the data push {share} there: *{every.text}*; the claim "
            f"{_standing(findings, 'every-pair-pushed')} ({{ref}}`learned-boundary`).")


def mope_alone(findings: Mapping[str, Findings]) -> str | None:
    """Where MoPE alone stands against the learned table, RoPE and no positions at all."""
    below = _verdict(findings, MAIN, "mope-below-base")
    rope = _verdict(findings, MAIN, "rope-beats-mope")
    nope = _verdict(findings, MAIN, "mope-beats-nope")
    if below is None or not below.estimate.n:
        return None
    parts = [f"worse than the learned position table (BASE-DOT) by {below.estimate.mean:+.3f} "
             f"({seeds_count(below.estimate.n)}; *{below.text}*)"]
    if rope is not None and rope.estimate.n:
        parts.append(f"worse than rotary positions (PE-ROPE) by {rope.estimate.mean:+.3f} "
                     f"({seeds_count(rope.estimate.n)}; *{rope.text}*)")
    if nope is not None and nope.estimate.n:
        parts.append(f"better than no positional encoding at all (NOPE) by {nope.estimate.mean:+.3f} "
                     f"({seeds_count(nope.estimate.n)}; *{nope.text}*)")
    trails = below.outcome == "confirmed" and rope is not None and rope.outcome == "confirmed"
    lead = "**MoPE alone trails the learned table and RoPE.**" if trails else "**MoPE alone, against the others.**"
    standing = across.standings(findings)
    against = {"mope-below-base": "BASE-DOT", "rope-beats-mope": "PE-ROPE", "mope-beats-nope": "NOPE"}
    words: dict[str, list[str]] = {}  # a standing in words, with the presets behind it: the models whose comparison has it
    for key, model in against.items():
        words.setdefault(_predicate(standing[key]), []).append(model)
    standings_said = ("; each " + next(iter(words)) if len(words) == 1 else
                      "; " + ", ".join(f"against {' and '.join(models)} it {said}" for said, models in words.items()))
    return (f"{lead} On {named(MAIN)}, it is " + ", ".join(parts) + standings_said
            + " ({ref}`repro-table-2`, {ref}`stress-mope-vs-nope`).")


def budget_words(preset: str) -> str:
    """"a context of 256 characters and 6.1 passes over the training data": the context a preset trains at and
    its token budget, as the passes its training steps make over the training split (the tokens it sees,
    steps × batch × context, over the split's 1,003,854 characters; a preset on subword tokens: its context in
    tokens, and no passes, its split counted in tokens)."""
    cfg = get_preset(preset)
    if cfg.tokenizer:
        return f"a context of {cfg.block_size} subword tokens and {cfg.steps:,} steps"
    passes = cfg.steps * cfg.batch_size * cfg.block_size / TRAINING_CHARACTERS
    return f"a context of {cfg.block_size} characters and {passes:.2g} passes over the training data"


def headline(findings: Mapping[str, Findings]) -> str | None:
    """The paper's headline, EGA-MORLET +0.119 and best overall: its standing, then its verdict at every scale trained,
    closest to the paper's protocol first; at four times the tokens the claim there on the whole split, as chapter 4's."""
    whole = {p: v for p in BUDGET_PAIRS.values() if (v := _verdict(findings, p, "ega-mope-beats-base-more-tokens"))}
    measured = [(p, v) for p in STANDING_PRESETS if (v := whole.get(p) if whole.get(p) and whole[p].estimate.n else
                                                     _verdict(findings, p, "ega-mope-gain")) and v.estimate.n]
    if not measured:
        return None
    claimed = claims.get_claim("ega-mope-gain").paper
    standing = across.standings(findings)
    held = standing["ega-mope-gain"]
    subject = "its direction" if held.phrase != held.words else "it"  # a size judged on its direction alone
    sentences = [f"**The headline, EGA-MORLET improves on BASE-DOT by +{claimed:.3f}: {subject} {SINGULAR[held.words]}** "
                 f"({held.behind}), and the scales differ in context and in token budget: "
                 + "; ".join(f"`{preset}` {budget_words(preset)}" for preset, _ in measured) + "."]
    sentences += [f"On {scale(preset, verdict.estimate.n)}: {verdict.estimate.format(signed=True)}"
                  + (" on the whole validation split" if verdict is whole.get(preset) else "") + f", *{verdict.text}*."
                  for preset, verdict in measured]
    budget = budget_sentences(findings)
    sentences += budget
    if standing["ega-mope-best"].words != "not tested":
        sentences.append(f"That EGA-MORLET is the best overall (it beats EGA-1) {_predicate(standing['ega-mope-best'])}.")
    links = "{ref}`repro-table-2`" + (", {ref}`repro-token-budget`" if budget else "")
    return " ".join(sentences)[:-1] + f" ({links})."


def budget_sentences(findings: Mapping[str, Findings]) -> list[str]:
    """Whether the token budget explains the headline's disagreement between the scales: the rule fixed before
    the runs with more tokens, that EGA-MORLET's deficit against BASE-DOT shrinks with them, with the mean deficit
    at each budget (the verdict's caveat)."""
    claim, sentences = claims.get_claim("ega-mope-deficit-shrinks-with-tokens"), []
    for fewer, more in claim.pairs.items():
        shrinks = _verdict(findings, more, claim.key)
        if shrinks is None or not shrinks.estimate.n:
            continue
        sentences.append(f"Whether the token budget explains the disagreement, by the rule fixed before `{more}`'s runs: "
                         f"{claim.words} (`{fewer}` against `{more}`, whole validation split; {shrinks.caveat}): "
                         f"*{shrinks.text}*.")
    return sentences


def open_questions_sentence(findings: Mapping[str, Findings]) -> str | None:
    """What the CPU model's runs decide of the questions the paper leaves open (§7, §9)."""
    judged = [(claim, verdict) for claim, verdict in findings.get(MAIN, []) if claim.shown_in in open_questions.SECTIONS]
    if not any(verdict.estimate.n for _, verdict in judged):
        return None
    decided = [(claim, verdict) for claim, verdict in judged if verdict.outcome in DECIDED]
    single = sum(verdict.estimate.n == 1 for _, verdict in judged)
    unrun = sum(verdict.estimate.n == 0 for _, verdict in judged)
    if decided:
        def listed(found):
            return "; ".join(f"{claim.words} ({seeds_count(verdict.estimate.n)}): *{verdict.text}*"
                             for claim, verdict in found)
        by_twins: dict[tuple[str, ...], list] = {}  # the twins a claim reads beside MAIN (none: MAIN's runs alone)
        for claim, verdict in decided:
            by_twins.setdefault(claim.twins([MAIN]), []).append((claim, verdict))
        main = f"{model_words(MAIN)} (`{MAIN}`)"
        own = by_twins.pop((), [])
        segments = [f"On {main}: {listed(own)}"] if own else []
        for twins, found in by_twins.items():
            where = f"{' and '.join(f'{model_words(t)} (`{t}`)' for t in twins)} beside {'it' if own else main}"
            segments.append(f"{'on' if segments else 'On'} {where}: {listed(found)}")
        text = "**What the paper leaves open.** " + "; ".join(segments)
        rest = len(judged) - len(decided)
        text += f". {rest} of the {len(judged)} claims on these questions are not decided yet" if rest else ""
    else:
        text = (f"**What the paper leaves open is not decided yet.** Of the {len(judged)} claims on the questions of "
                f"its §7 and §9, each with its rule fixed before the runs that decide it")
        several = len(judged) - single - unrun
        parts = [_count(single, "stands", "stand") + f" on one seed of {model_words(MAIN)} (`{MAIN}`), which shows a "
                 "direction only" if single else "",
                 _count(several, "is", "are") + " undecided on several seeds" if several else "",
                 _count(unrun, "has", "have") + " no run yet" if unrun else ""]
        text += ": " + "; ".join(part for part in parts if part)
    return text + " ({ref}`open-questions`)."


# --- across every scale -------------------------------------------------------------------------------

#: How many claims have a standing, as a sentence says it when the count is not 1.
PLURAL = {across.HOLDS_EVERYWHERE: "hold at every scale that decides them", across.HOLDS_WHERE_DECIDED: "hold where decided",
          across.FAILS_EVERYWHERE: "fail at every scale that decides them", across.FAILS_WHERE_DECIDED: "fail where decided",
          across.DEPENDS: "depend on the scale", across.UNDECIDED: "are not settled wherever tested",
          across.INDICATIVE: "have one seed only wherever tested",
          across.NOT_JUDGED: "cannot be tested at these scales (a near-equality off the paper's protocol)",
          across.NOT_TESTED: "are not tested"}
SINGULAR = {**{words: words for words in PLURAL}, across.UNDECIDED: "is not settled wherever tested",
            across.INDICATIVE: "has one seed only wherever tested",
            across.NOT_JUDGED: "cannot be tested at these scales (a near-equality off the paper's protocol)",
            across.NOT_TESTED: "is not tested"}


def tally(findings: Mapping[str, Findings]) -> str:
    """How many claims have each standing across the presets (:func:`mope.evidence.standings.standing`)."""
    counts = across.standing_tally(across.standings(findings))
    presets = [p for p in STANDING_PRESETS if p in findings]
    parts = [f"{count} {(SINGULAR if count == 1 else PLURAL)[words]}" for words, count in counts.items() if count]
    return (f"**Across every scale we trained** ({', '.join(f'`{p}`' for p in presets)}), of the "
            f"{len(claims.CLAIMS)} claims the book tests " + ", ".join(parts)
            + ". A claim holds or fails at a scale when that scale decides it, after Holm's correction over the "
            "scale's tests; \"every scale\" needs two scales that decide it and none that leaves it undecided; a size "
            "is tested against the paper's number only at the paper's protocol, elsewhere its direction, and a "
            "near-equality only there ({ref}`intro-claims`).")


def findings_sentences(findings: Mapping[str, Findings], runs: Mapping[str, list[dict]]) -> list[str]:
    """The findings of the book, closest to the paper's protocol first; a sentence whose runs are missing
    is left out."""
    sentences = [reproduction(findings, runs), headline(findings), decay_sigma(findings), causal_statistics(runs, findings),
                 context(findings), causal_gate(findings, runs), sincos_scale(findings, runs),
                 learned_parameters_sentence(findings), mope_alone(findings), open_questions_sentence(findings),
                 tally(findings)]
    return [sentence for sentence in sentences if sentence]


def findings_markdown(findings: Mapping[str, Findings], runs: Mapping[str, list[dict]]) -> str:
    """The findings as a numbered list (MyST Markdown)."""
    return "\n".join(f"{i}. {sentence}" for i, sentence in enumerate(findings_sentences(findings, runs), 1))
