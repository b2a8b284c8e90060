"""The runs a chapter shows: its main preset first, beside it the published protocol when it has runs,
and one line per preset naming what of the training plan is not run yet; each claim's standing across
the scales; and the package's own code, quoted on the page.

The book's presets are ``cpu`` (the trained protocol, the main numbers), ``cpu-long`` (``cpu`` at the
paper's context of 256), ``cpu-short`` (the first, shorter protocol, shown for how the verdicts depend on
the training budget) and ``paper`` (the published protocol, once its GPU runs are stored). The chapters
show ``cpu``, ``cpu-long`` and ``paper`` (:data:`CHAPTER_PRESETS`), each table leaving out a preset that
holds none of its runs; ``cpu-short`` has a page of its own, the training budget, and the introduction's
claims table a tab. Only the current runs of :mod:`mope.store.results` are read; nothing is
trained here except in the ``smoke`` preset, whose toy runs the tests make on the spot.
"""
from __future__ import annotations

import inspect
import textwrap
from collections.abc import Mapping, Sequence

from mope.evidence.estimates import gap_by_tokens
from mope.store import plan, results
from mope.store.presets import CPU_SWEEP, TOKENIZATION_PAIRS, TrainConfig, get_preset

BOOK_PRESETS = ("cpu", "cpu-long", "cpu-long-4x", "cpu-short", "paper", "cpu-bpe")
#: Every preset whose runs some page shows: the book's, and any subword twin that chapter 7 reads beside
#: ``cpu`` (its claims are judged on ``cpu``). The reproducibility page and the measured times list them all.
RECORDED_PRESETS = tuple(dict.fromkeys((*BOOK_PRESETS, *TOKENIZATION_PAIRS.values())))
CHAPTER_PRESETS = ("cpu", "cpu-long", "cpu-long-4x", "paper")  # beside the main preset, a chapter shows these (cpu-short: the budget page)
TRAINED_ON_THE_SPOT = "smoke"


def describe(preset: str) -> str:
    """"L4 H4 d128 T64, batch 32, 3,001 steps at lr 0.002": a preset's shape and protocol in one line (with
    its tokens and the loss's unit where it trains on subword tokens)."""
    cfg = get_preset(preset)
    tokens = f", {cfg.tokenizer} subword tokens (losses in nats a token)" if cfg.tokenizer else ""
    return (f"L{cfg.n_layer} H{cfg.n_head} d{cfg.n_embd} T{cfg.block_size}, batch {cfg.batch_size}, "
            f"{cfg.steps:,} steps at lr {cfg.lr:g}{tokens}")


def seeds_by_model(preset: str, runs: Sequence[dict], variants: Sequence[str]) -> str:
    """"On `cpu`, 8 seeds each of BASE-DOT, EGA-1; 5 seeds of NOPE; one seed of ALIBI, which shows a direction
    only; not run: ...": how many seeds of each of ``variants`` ``runs`` (the runs of ``preset``) hold, so that
    a page listing the models says which rest on one seed."""
    counts = {name: len({r["seed"] for r in runs if r["variant"] == name}) for name in variants}
    groups: dict[int, list[str]] = {}
    for name, count in counts.items():
        groups.setdefault(count, []).append(name)
    parts = []
    for count in sorted(groups, reverse=True):
        names = ", ".join(groups[count])
        if count == 0:
            parts.append(f"not run: {names}")
        elif count == 1:
            parts.append(f"one seed of {names}, which {'shows' if len(groups[count]) == 1 else 'show'} a direction "
                         "only (no verdict)")
        else:
            parts.append(f"{count} seeds {'each of' if len(groups[count]) > 1 else 'of'} {names}")
    return f"On `{preset}`, " + "; ".join(parts) + "."


def presets_shown(main: str, presets: Sequence[str] = BOOK_PRESETS) -> list[str]:
    """``main``, then the other ``presets`` that hold current runs (none beside ``smoke``)."""
    if main not in BOOK_PRESETS:
        return [main]
    return [main, *(p for p in presets if p != main and results.load_results(p))]


def load_runs(main: str, variants: Sequence[str], seeds: Sequence[int] | None = None,
              presets: Sequence[str] = CHAPTER_PRESETS) -> dict[str, list[dict]]:
    """{preset: its current runs of ``variants`` and ``seeds`` (None: every stored seed, as the claims
    table of the introduction reads them)} for :func:`presets_shown` of ``main`` among ``presets`` (a
    chapter's: ``cpu`` and ``paper``; ``smoke``: the missing runs of ``seeds`` are trained first)."""
    if main == TRAINED_ON_THE_SPOT:
        if seeds is None:
            raise ValueError(f"preset {main!r} trains its runs on the spot: name the seeds")
        from mope.train.suite import ensure_results

        ensure_results(main, list(variants), list(seeds), progress=False)
    return {preset: [r for r in results.load_results(preset)
                     if r["variant"] in variants and (seeds is None or r["seed"] in seeds)]
            for preset in presets_shown(main, presets)}


def reproduction_found(by_preset: Mapping[str, list], runs: Mapping[str, list[dict]]) -> str:
    """What chapter 4 found, first (MyST Markdown): the published protocol against Table 2 where it has runs, then
    the headline at the paper's scale with where MoPE with a gate that cannot see the future stands there. That
    gate (EGA-MORLET-CAUSAL) is no model of the chapter's tables, so the headline reads every stored run of the
    presets shown (``runs`` holds only the chapter's models), as the introduction's does."""
    from mope.evidence import bottom_line, findings

    stored = {preset: results.load_results(preset) for preset in runs}
    found = [findings.reproduction(by_preset, runs) if "paper" in runs else None,
             bottom_line.paper_scale(bottom_line.page_records(by_preset, by_preset), stored=stored)]
    return "\n\n".join(filter(None, found))


def step_shape(cfg: TrainConfig) -> str:
    """"T64 × B32": how the tokens of one training step are cut (context × sequences)."""
    return f"T{cfg.block_size} × B{cfg.batch_size}"


def load_sweep(root=None) -> dict[TrainConfig, dict | None]:
    """{candidate of ``CPU_SWEEP``: its current BASE-DOT seed-0 run, or None when none is stored}."""
    return {candidate: results.load_result(candidate, "BASE-DOT", 0, results.sweep_root(root))
            for candidate in CPU_SWEEP}


def seed_list(seeds: Sequence[int]) -> str:
    """"0–2" for consecutive seeds, "0, 2" otherwise."""
    seeds = sorted(seeds)
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}–{seeds[-1]}"
    return ", ".join(map(str, seeds))


def expected_seeds(preset: str, runs: Sequence[dict], variants: Sequence[str],
                   seeds: Sequence[int] | None = None) -> dict[str, tuple[int, ...]]:
    """{variant: the seeds of it that ``preset`` should hold}: ``seeds`` where the reader names them;
    otherwise those the training scripts plan (:func:`mope.store.plan.planned_seeds`) with any stored beside
    them, so that a run nobody plans is never counted as missing; for a preset that no script trains
    (``smoke``), every seed that any of ``variants`` has."""
    have: dict[str, set[int]] = {}
    for r in runs:
        have.setdefault(r["variant"], set()).add(r["seed"])
    planned = None if seeds is not None else plan.planned_seeds(preset)
    if planned is None:
        every = seeds if seeds is not None else {seed for v in variants for seed in have.get(v, ())}
        return {variant: tuple(sorted(every)) for variant in variants}
    return {variant: tuple(sorted({*planned.get(variant, ()), *have.get(variant, ())})) for variant in variants}


def stored_and_missing(preset: str, runs: Sequence[dict], variants: Sequence[str], seeds: Sequence[int] | None = None
                       ) -> tuple[int, int, dict[tuple[int, ...], list[str]]]:
    """(runs stored, runs expected, {seeds not run yet: the variants that lack them}) of the (variant, seed)
    runs a chapter reads, the expected ones of :func:`expected_seeds`."""
    have = {(r["variant"], r["seed"]) for r in runs}
    expected = expected_seeds(preset, runs, variants, seeds)
    lacking: dict[tuple[int, ...], list[str]] = {}
    for variant in variants:
        absent = tuple(seed for seed in expected[variant] if (variant, seed) not in have)
        if absent:
            lacking.setdefault(absent, []).append(variant)
    total = sum(len(s) for s in expected.values())
    return total - sum(len(absent) * len(names) for absent, names in lacking.items()), total, lacking


def missing_line(preset: str, runs: Sequence[dict], variants: Sequence[str], seeds: Sequence[int] | None = None) -> str:
    """One sentence: how many of the expected (variant, seed) runs ``preset`` holds (:func:`expected_seeds`),
    which are not run yet (models grouped by the seeds they lack), and how many stored files are stale (made
    before a change of the code, or from uncommitted code) or invalid, and so not shown."""
    stored, total, lacking = stored_and_missing(preset, runs, variants, seeds)
    line = f"`{preset}`: {stored} runs stored of {total} planned" if total else f"`{preset}`: none of these runs planned"
    if lacking:
        line += "; not run yet: " + "; ".join(
            f"seed{'s' if len(absent) > 1 else ''} {seed_list(absent)} of {', '.join(names)}"
            for absent, names in lacking.items())
    found = results.scan(preset, variants=variants)
    for count, kind in ((len(found.stale), "stale (older or uncommitted code)"), (len(found.invalid), "invalid")):
        if count:
            line += f"; {count} {kind} file{'s' if count > 1 else ''} not shown"
    return line + "."


def runs_lines(runs: dict[str, list[dict]], variants: Sequence[str], seeds: Sequence[int] | None = None,
               also: Mapping[str, tuple[list[dict], Sequence[str]]] | None = None) -> str:
    """A chapter's account of the runs it reads, as a dropdown (MyST Markdown) whose title counts them per
    preset and whose body has :func:`missing_line` for each (``also``: {preset: (its runs, the variants read
    there)} beside ``runs``, e.g. a subword twin); a table without a tab for some preset names it under
    the table, :func:`preset_tabs`."""
    read = {preset: (preset_runs, variants) for preset, preset_runs in runs.items()} | dict(also or {})
    counts = []
    for preset, (preset_runs, names) in read.items():
        stored, total, _ = stored_and_missing(preset, preset_runs, names, seeds)
        counts.append(f"`{preset}` {stored} stored of {total} planned" if total else f"`{preset}` none planned")
    return (f":::{{dropdown}} The runs of this chapter's models: {', '.join(counts)}\n"
            + "\n".join(f"- {missing_line(preset, preset_runs, names, seeds)}"
                         for preset, (preset_runs, names) in read.items()) + "\n:::")


def source_lines(obj, first: str, last: str) -> str:
    """The lines of ``obj``'s source (:func:`inspect.getsource`, the package's own code) from the first
    line containing ``first`` through the next containing ``last``, dedented: a passage the book shows.
    Raises ``ValueError`` when either is not found, so that a page never shows a passage that moved."""
    lines = inspect.getsource(obj).splitlines()
    start = next((i for i, line in enumerate(lines) if first in line), None)
    end = None if start is None else next((i for i in range(start, len(lines)) if last in lines[i]), None)
    if start is None or end is None:
        raise ValueError(f"{obj.__qualname__}: no passage from {first!r} to {last!r}; the page must follow the code")
    return textwrap.dedent("\n".join(lines[start:end + 1]))


def code_block(text: str, caption: str = "") -> str:
    """``text`` as a fenced Python block of MyST Markdown, under an optional caption line."""
    return (f"{caption}\n\n" if caption else "") + f"```python\n{text}\n```"


def found_lines(findings: dict[str, list], shown_in: Sequence[str]) -> str:
    """A chapter's "what this chapter found": the claims whose evidence lies in the sections ``shown_in``,
    grouped by their standing across every scale trained (:func:`mope.evidence.standings.standings`, one bullet
    per standing, each claim linked to its section with the presets behind its standing, named once where
    all its claims share them; a size claim decided on its direction alone stands apart, "direction holds where
    decided", as the introduction's table says it). The standing is
    the introduction's: the chapter's ``findings`` and, for a book preset the chapter does not show
    (``cpu-short``), its stored runs. The verdicts in full stand beside the evidence in each section."""
    from mope.evidence import claims, standings as across

    every = dict(findings)
    if set(findings) <= set(BOOK_PRESETS):
        every |= {preset: claims.judge_all(preset) for preset in BOOK_PRESETS if preset not in findings}
    standings = across.standings(every)
    grouped: dict[str, dict[str, list[str]]] = {}  # a standing: {the presets behind it: its claims}
    for claim in claims.CLAIMS:
        if claim.shown_in in shown_in:
            standing = standings[claim.key]
            grouped.setdefault(standing.phrase, {}).setdefault(standing.behind, []).append(
                f"{{ref}}`{claim.words} <{claim.shown_in}>`")  # "direction holds ...": a size judged on its sign
    if set(grouped) <= {"not tested"}:
        return "* No claim of these sections has runs yet."

    def bullet(words: str) -> str:
        if len(grouped[words]) == 1:
            ((where, named),) = grouped[words].items()
            return f"* **{words}** ({where}): " + "; ".join(named) + "."
        return f"* **{words}**: " + "; ".join(f"{claim} ({where})" for where, named in grouped[words].items()
                                              for claim in named) + "."
    return "\n".join(bullet(phrase) for words in across.STANDINGS for phrase in (words, f"direction {words}")
                     if phrase in grouped)


def found_dropdown(findings: dict[str, list], shown_in: Sequence[str]) -> str:
    """The dropdown that ends a chapter: its claims by their standing (:func:`found_lines`), after the line that
    says where each verdict and the words of the verdicts stand."""
    return (":::{dropdown} The chapter's claims, by their standing across every scale we trained\n"
            "Each verdict stands beside its evidence above, in the words of {ref}`intro-vocabulary`, and all of them "
            "across the scales in {ref}`intro-claims`.\n\n" + found_lines(findings, shown_in) + "\n:::")


def preset_tabs(render, runs: dict[str, list[dict]]) -> str:
    """``render({preset: runs})`` once per preset, each in a tab of sphinx-design's tab-set (MyST
    Markdown; the first preset's tab open): a table of several presets, read one preset at a time. The
    first preset always shows; another whose runs change nothing in the table (it renders as it would with
    no runs, or as nothing but dashes) gets no tab, and a line under the tabs names it."""
    from mope.book.markdown_tables import says_nothing

    first, *others = runs
    rendered = {preset: render({preset: runs[preset]}) for preset in runs}
    empty = [preset for preset in others
             if says_nothing(rendered[preset]) or rendered[preset] == render({preset: []})]
    shown = {preset: text for preset, text in rendered.items() if preset not in empty}
    if len(shown) == 1:
        return rendered[first] + ("\n\n" + empty_presets_line(empty) if empty else "")
    blocks = ["::::{tab-set}"]
    for preset, text in shown.items():
        blocks += [f":::{{tab-item}} `{preset}`", text, ":::"]
    blocks.append("::::")
    if empty:
        blocks.append("\n" + empty_presets_line(empty))
    return "\n".join(blocks)


def empty_presets_line(presets: Sequence[str]) -> str:
    """The line that names the presets left without a tab, since nothing shown there was run."""
    names = ", ".join(f"`{preset}`" for preset in presets)
    return f"No tab for {names}: none of these runs is stored there."


#: Beside an estimate that reads the whole validation split, where the page's other numbers are Val (random batches).
WHOLE_SPLIT = " on the whole validation split"


def section_verdicts(findings: dict[str, list], shown_in: Sequence[str]) -> str:
    """The verdicts of the claims whose evidence is in the sections ``shown_in``, one line per claim (its
    verdict, then our estimate) in a tab per preset where some of them were judged (the others named below
    the tabs), or under "On `preset` (…):" where one preset judged them (the others named there): the words
    of :mod:`mope.evidence.claims`, as the introduction's claims table gives them with the paper's number and
    what a control says. Presets whose lines agree, as those of a claim that compares two presets do, share
    one tab. The chapter links the verdicts' words once, not each section."""
    from mope.book.claims_tables import plain_caveat, statistics_dropdown, verdict_markdown
    from mope.evidence import claims

    judged = {preset: [(claim, verdict) for claim, verdict in preset_findings if claim.shown_in in shown_in]
              for preset, preset_findings in findings.items()}
    judged = {preset: found for preset, found in judged.items() if any(v.outcome != "not_run" for _, v in found)}
    if not judged:
        return "None of these claims has runs yet."

    def lines(preset, found):
        def where(claim):  # a claim read on a twin beside the preset says so: "(§7; on `cpu-bpe` beside `cpu`)"
            beside = claim.read_beside([preset])
            return f"{claim.tag}; on {beside}" if beside else claim.tag
        return [f"* {claim.words} ({where(claim)}): {verdict_markdown(verdict)}; ours "
                f"{claims.estimate_text(claim, verdict)}{WHOLE_SPLIT if claim.loss == 'val_loss_full' else ''}"
                + "".join(f"; {said}" for said in [plain_caveat(verdict.caveat)] if said) for claim, verdict in found]

    empty = [preset for preset in findings if preset not in judged]
    groups: dict[tuple[str, ...], list[str]] = {}  # presets whose lines agree (claims that span presets) share one
    for preset, found in judged.items():
        groups.setdefault(tuple(lines(preset, found)), []).append(preset)
    # one line a claim and preset group (presets whose lines agree share their verdicts), after the verdicts
    statistics = "\n\n" + statistics_dropdown({claims.presets_named(presets): judged[presets[0]]
                                               for presets in groups.values()}, what="these claims")
    if len(groups) == 1:
        ((shared, presets),) = groups.items()
        elsewhere = f" (none of these runs is stored in {', '.join(f'`{p}`' for p in empty)})" if empty else ""
        return "\n".join([f"On {claims.presets_named(presets)}{elsewhere}:\n", *shared]) + statistics
    blocks = ["::::{tab-set}"]
    for shared, presets in groups.items():
        blocks += [f":::{{tab-item}} {' · '.join(f'`{p}`' for p in presets)}", *shared, ":::"]
    blocks.append("::::")
    return "\n".join(blocks) + ("\n\n" + empty_presets_line(empty) if empty else "") + statistics


def verdicts_on_tokens(characters: str, character_findings: list, tokens: str, token_findings: list) -> str:
    """A dropdown of the paper's claims that the subword preset ``tokens`` judges (the comparisons its four
    models make), each line as :func:`section_verdicts` gives it; its title counts the claims that keep their
    verdict on ``characters`` and names those that change (None judged: "")."""
    from mope.evidence import claims

    judged = [(claim, verdict) for claim, verdict in token_findings if verdict.outcome != "not_run"]
    if not judged:
        return ""
    changed = [claim.words for claim, verdict in judged
               if claims.verdict_of(character_findings, claim.key).outcome != verdict.outcome]
    title = (f"The paper's claims on these tokens (`{tokens}`, losses in nats a token, their ratios to the paper's per "
             f"character): {len(judged) - len(changed)} of {len(judged)} keep "
             f"their verdict on `{characters}`" + (f"; {len(changed)} change{'s' if len(changed) == 1 else ''}: "
                                                   + "; ".join(changed) if changed else ""))
    body = section_verdicts({tokens: judged}, [claim.shown_in for claim, _ in judged])
    return f"::::{{dropdown}} {title}\n{body}\n::::"  # four colons: the body ends with the statistics' dropdown


def mean_gaps(curve: Mapping[int, Sequence[float]]) -> dict[int, float]:
    """{tokens seen: the gap averaged over the seeds evaluated there} of a :func:`gap_by_tokens` curve."""
    return {tokens: sum(gaps) / len(gaps) for tokens, gaps in curve.items()}


def gaps_at_equal_tokens(by_preset: Mapping[str, Sequence[dict]], reference: str = "paper",
                         variant: str = "EGA-MORLET", baseline: str = "BASE-DOT") -> str:
    """Each preset's gap L(``baseline``) − L(``variant``) at the end of its training beside ``reference``'s at
    its last evaluation with no more tokens seen (random-batch validation, as the token-budget figure draws
    them); where ``reference``'s gap turns is :func:`gap_crossing`'s. "" when ``reference`` has no runs."""
    ref = mean_gaps(gap_by_tokens(by_preset.get(reference, []), variant, baseline))
    if not ref:
        return ""
    lines = []
    for preset, runs in by_preset.items():
        if preset == reference:
            continue
        ours = mean_gaps(gap_by_tokens(runs, variant, baseline))
        if not ours:
            continue
        end = max(ours)
        seeds = len({r["seed"] for r in runs if r["variant"] == variant})
        earlier = [tokens for tokens in ref if tokens <= end]
        beside = (f"`{reference}` had {ref[max(earlier)]:+.3f} at {max(earlier) / 1e6:.1f}M" if earlier else
                  f"`{reference}`'s first evaluation comes later, {min(ref) / 1e6:.1f}M tokens ({ref[min(ref)]:+.3f})")
        lines.append(f"`{preset}` ends at {end / 1e6:.1f}M tokens with {ours[end]:+.3f} "
                     f"({f'mean of {seeds} seeds' if seeds > 1 else 'one seed'}); {beside}")
    return (f"L({baseline}) − L({variant}) at equal tokens seen (random validation batches, as drawn): "
            + "; ".join(lines) + ". Where `" + reference + "`'s gap turns: above the figure.")


def gap_crossing(by_preset: Mapping[str, Sequence[dict]], reference: str = "paper", variant: str = "EGA-MORLET",
                 baseline: str = "BASE-DOT") -> str:
    """In plain words, from where along the tokens seen every seed of ``reference`` has its gap L(``baseline``) −
    L(``variant``) above 0 at every later evaluation (not where the mean crosses, which some seeds may not have),
    how many seeds end above it, and whether the other presets' budgets end before that point (random-batch
    validation, as the token-budget figure draws it). "" without runs."""
    curve = gap_by_tokens(by_preset.get(reference, []), variant, baseline)
    if not curve:
        return ""
    tokens = sorted(curve)
    end, seeds = tokens[-1], len(curve[tokens[-1]])
    ahead = sum(gap > 0 for gap in curve[end])
    from_on = next((t for i, t in enumerate(tokens) if all(gap > 0 for u in tokens[i:] for gap in curve[u])), None)
    who = f"At `{reference}` ({seeds} seed{'s' if seeds > 1 else ''}), {variant} "
    at_end = f"{ahead} of {seeds} seeds ahead at the end, {end / 1e6:.0f}M tokens" if seeds > 1 else \
        f"at the end, {end / 1e6:.0f}M tokens"
    every = "in every seed " if seeds > 1 else ""
    if from_on is None:
        return who + f"is not ahead of {baseline} {every}at the end ({at_end})."
    if from_on == tokens[0]:
        return who + f"is ahead of {baseline} {every}at every evaluation ({at_end})."
    text = (who + f"starts behind {baseline} and is ahead of it {every}from {from_on / 1e6:.0f}M tokens seen on "
            f"({at_end}).")
    budgets = [max(gaps) for preset, runs in by_preset.items() if preset != reference
               for gaps in [gap_by_tokens(runs, variant, baseline)] if gaps]
    if budgets and max(budgets) < from_on:
        text += (f" Every other budget here ends by {max(budgets) / 1e6:.1f}M tokens, before that point: "
                 "it can show whether the gap moves towards 0, not the crossing.")
    return text
