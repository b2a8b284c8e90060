"""The claims tables of the book, as MyST Markdown: each preset's claims table and the table across scales
(in tabs), the verdicts that change with the training budget or where one seed of the published protocol
points away, the verdicts Holm's correction leaves undecided, and the rules' history.

The verdicts are :mod:`mope.evidence.claims`' (corrections applied), the standings
:mod:`mope.evidence.standings`'; this module lays them out and judges nothing.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from mope.book.markdown_tables import plain_markdown_table
from mope.evidence import claims, paper
from mope.evidence.claims import CLAIMS, CLAIMS_BY_KEY, Findings, estimate_text, paper_text, verdict_of
from mope.evidence.standings import INDICATIVE, NOT_JUDGED, NOT_TESTED, Standing, closeness, points_the_claims_way
from mope.evidence.verdict_rules import RULES, Rule
from mope.evidence.verdicts import DECIDED, PLAIN_WORDS, Verdict, threshold_words
from mope.evidence.estimates import DASH
from mope.evidence.measures import reads_future
from mope.store.presets import get_preset


def verdict_markdown(verdict: Verdict, mark: str = "") -> str:
    """A verdict on a reading page: its plain word in bold (:data:`~mope.evidence.verdicts.PLAIN_WORDS`) and
    ``mark`` (:func:`future_mark`), then what qualifies it in plain words; its statistics are in
    :func:`statistics_dropdown`."""
    if verdict.outcome == "not_run":
        return verdict.plain
    return f"**{verdict.plain_word}**{mark}" + verdict.plain.removeprefix(verdict.plain_word)


#: The mark of a verdict whose estimate is a gain the paper's way that needs the published gate, which reads future
#: tokens (its record's caveat says so): the verdict is the paper's claim as stated, of a gate no language model may
#: use. "‡": the training budget's page gives "†" another meaning.
FUTURE_MARK = "‡"
#: The line under a table with a verdict marked :data:`FUTURE_MARK`, a paragraph of its own.
FUTURE_NOTE = (f"{FUTURE_MARK} A gain so marked needs the published gate, which reads future tokens (a language model "
               "cannot); what a gate that sees only the past keeps of it: {ref}`stress-causal-gate`.")


def future_mark(key: str, verdict: Verdict) -> str:
    """:data:`FUTURE_MARK` beside ``verdict`` on the claim ``key`` where its estimate points the claim's way (a gain)
    and its caveat says that gain needs a gate that reads future tokens, else "" (a verdict against the claim, or
    with no run, has no gain to mark)."""
    if not verdict.estimate.n or not reads_future(verdict.caveat):
        return ""
    return FUTURE_MARK if points_the_claims_way(CLAIMS_BY_KEY[key], verdict) else ""


def marked_verdict(key: str, verdict: Verdict) -> str:
    """:func:`verdict_markdown` of ``verdict`` on the claim ``key``, with its :func:`future_mark`."""
    return verdict_markdown(verdict, future_mark(key, verdict))


def with_future_note(markdown: str) -> str:
    """``markdown`` (a table and the lines under it), then :data:`FUTURE_NOTE` as a paragraph of its own where a
    verdict in it carries :data:`FUTURE_MARK`."""
    return markdown + (f"\n\n{FUTURE_NOTE}" if FUTURE_MARK in markdown else "")


def cell_word(verdict: Verdict) -> str:
    """A verdict's word in a cell across the scales: its outcome's plain word, or for a size whose direction is
    settled and size not, "holds in direction" (:attr:`~mope.evidence.verdicts.Verdict.plain_word`)."""
    return verdict.plain_word if verdict.size_open else PLAIN_WORDS[verdict.outcome]


#: The names of statistics a reading page keeps one click away (in :func:`statistics_dropdown`).
STATISTICS = re.compile(r"Holm|Pocock|p\s*=|adjusted")


def plain_caveat(caveat: str | None) -> str | None:
    """What a control of ours says about a verdict, as a reading page shows it: the parts of ``caveat`` that name no
    statistic (a p-value, a correction; those are in :func:`statistics_dropdown`), or None."""
    kept = "; ".join(part for part in (caveat or "").split("; ") if not STATISTICS.search(part))
    return kept or None


def statistics_text(verdict: Verdict) -> str:
    """A verdict's statistics in a line: the rule's words and detail (the JSON's ``verdict``), the p-value of its
    test, the adjusted one and its family, and the look."""
    parts = [verdict.text]
    if verdict.caveat != plain_caveat(verdict.caveat):  # the statistic a control gives, beside the verdict's own
        parts.append(f"a control: {verdict.caveat}")
    if verdict.corrected:  # its text gives both p-values and the look already
        return "; ".join(parts)
    if verdict.p_value is not None:
        parts.append(f"p = {verdict.p_value:.3g}")
    if verdict.p_adjusted is not None:
        parts.append(f"adjusted p = {verdict.p_adjusted:.3g} (Holm, {verdict.family_size} tests of `{verdict.family}`)")
    if verdict.looks > 1:
        parts.append(f"look {verdict.looks} of {verdict.looks}")
    return "; ".join(parts)


def statistics_dropdown(findings: Findings | Mapping[str, Findings], keys: Sequence[str] | None = None,
                        what: str = "this table") -> str:
    """The statistics behind the verdicts of ``findings`` (``keys``: only these claims), one line a claim, in a
    closed dropdown (MyST Markdown): a page's verdicts in plain words, their statistics one click away. Findings of
    several presets ({preset, or presets as a sentence names them: findings}) give a line a claim and preset. ""
    when no claim has a verdict."""
    by_preset = findings if isinstance(findings, Mapping) else {"": findings}
    lines = [f"* {claim.words}" + (f" ({preset if '`' in preset else f'`{preset}`'})" if preset else "")
             + f": {statistics_text(verdict)}"
             for preset, found in by_preset.items() for claim, verdict in found
             if verdict.outcome != "not_run" and (keys is None or claim.key in keys)]
    if not lines:
        return ""
    return (f":::{{dropdown}} The statistics behind the verdicts of {what} (their rules: {{ref}}`intro-vocabulary`)\n"
            + "\n".join(lines) + "\n:::")


def claim_rows(findings: Findings, keys: Sequence[str] | None = None) -> list[list[str]]:
    """Rows claim (linked) | paper | ours | verdict, the caveat under the verdict."""
    rows = []
    for claim, verdict in findings:
        if keys is not None and claim.key not in keys:
            continue
        caveat = f"<br><small>{plain_caveat(verdict.caveat)}</small>" if plain_caveat(verdict.caveat) else ""
        ours = estimate_text(claim, verdict).replace(" ± ", "\u00a0±\u00a0").replace(" (n=", "<br>(n=")
        rows.append([f"{{ref}}`{claim.words} <{claim.shown_in}>` ({claim.tag})", paper_text(claim),
                     ours, verdict_markdown(verdict) + caveat])
    return rows


def claims_markdown(findings: Findings, keys: Sequence[str] | None = None) -> str:
    """The claims table of one preset (MyST Markdown): claim, the paper's number, ours, the verdict;
    ``keys``: only these claims."""
    return plain_markdown_table(["claim", "paper", "ours", "verdict"], claim_rows(findings, keys))


#: The standings whose claims the table across scales names in a line under it instead of a row: a row
#: of dashes and single seeds says nothing a line does not (each preset's tab gives the single seeds).
NAMED_UNDER_THE_TABLE = {
    INDICATIVE: "One seed only wherever tested (a direction, no verdict; each preset's tab gives it)",
    NOT_JUDGED: "Cannot be tested at these scales (a near-equality, judged at the paper's protocol alone)",
    NOT_TESTED: "Not tested yet (no preset holds their runs)",
}


def standing_markdown(findings: Mapping[str, Findings], standings: Mapping[str, Standing]) -> str:
    """Each claim's standing beside its verdict's word on each preset, with its seeds (MyST Markdown): the
    claims table across scales, closest to the paper's protocol first. The standing's cell gives its words
    alone: where it holds and where it fails, the preset columns beside it show. A claim with one seed wherever
    it ran, or with no run, has no row: a line under the table names it (:data:`NAMED_UNDER_THE_TABLE`); so has
    a claim that one preset alone judges on several seeds (a row of dashes and single seeds but one): a line per
    preset names it with its verdict and seeds there, on which its standing rests."""
    presets = sorted(findings, key=closeness)
    rows, named = [], {words: [] for words in NAMED_UNDER_THE_TABLE}
    alone: dict[str, list[str]] = {}  # a preset (and a twin it reads): the claims it alone judges, with their verdict
    for claim in CLAIMS:
        if standings[claim.key].words in named:
            named[standings[claim.key].words].append(claim.words)
            continue
        verdicts = {preset: verdict_of(findings[preset], claim.key) for preset in presets}
        judged = [preset for preset, verdict in verdicts.items() if verdict.estimate.n > 1]
        if len(judged) == 1 and len(presets) > 1:
            verdict = verdicts[judged[0]]
            alone.setdefault(claim.judged_where(judged), []).append(
                f"{{ref}}`{claim.words} <{claim.shown_in}>` ({cell_word(verdict)}{future_mark(claim.key, verdict)}, "
                f"{verdict.estimate.n} seeds)")
            continue
        cells = [DASH if v.outcome == "not_run" else f"{cell_word(v)}{future_mark(claim.key, v)} ({v.estimate.n})"
                 for v in verdicts.values()]
        rows.append([f"{{ref}}`{claim.words} <{claim.shown_in}>`", standings[claim.key].phrase, *cells])
    lines = [f"Judged on one preset alone (elsewhere one seed at most, in each preset's tab): "
             + "; ".join(f"on {where}: {'; '.join(claims_judged)}" for where, claims_judged in alone.items()) + "."
             ] if alone else []
    lines += [f"{NAMED_UNDER_THE_TABLE[words]}: {'; '.join(claims_named)}."
              for words, claims_named in named.items() if claims_named]
    return with_future_note("\n\n".join([plain_markdown_table(["claim", "standing", *(f"`{p}`" for p in presets)], rows),
                                          *lines]))


def claims_tabs_run(findings: Mapping[str, Findings], describe: Callable[[str], str],
                    standings: Mapping[str, Standing]) -> str:
    """The introduction's claims tabs: the claims across scales first (:func:`standing_markdown`),
    then a tab per preset holding only the claims it has runs of (a row "— | — | not run" per claim a preset never
    trained said nothing: 21 of 25 on ``cpu-bpe``), with a line counting those left out; ``describe(preset)``
    opens each tab."""
    blocks = ["::::{tab-set}", ":::{tab-item} across scales", standing_markdown(findings, standings), ":::"]
    for preset, found in findings.items():
        run = [claim.key for claim, verdict in found if verdict.outcome != "not_run"]
        left_out = len(found) - len(run)
        note = (f" {left_out} of the {len(found)} claims have no run on `{preset}` and are left out (the tab across "
                "scales gives where each is judged)." if left_out else "")
        blocks += [f":::{{tab-item}} `{preset}`", describe(preset) + note + "\n",
                   claims_markdown(found, run) if run else "", ":::"]
    return "\n".join([*blocks, "::::", "", statistics_dropdown(findings, what="these tables")])


#: How a verdict that differs between two budgets differs, as :func:`budget_changes` groups them, most telling first.
BUDGET_CHANGES = {
    "reversed": "Settled under both budgets, the other way round",
    "other way": "Settled under one budget only, its estimate pointing the other way under the other",
    "same way": "Settled under one budget only, its estimate pointing the same way under both (the other's interval "
                "is too wide to settle it)",
}


def _budget_differences(findings: dict[str, Findings], short: str, long: str) -> tuple[list, dict[str, list]]:
    """(the claims judged under both budgets as (claim, verdict under ``short``, under ``long``), {kind of
    :data:`BUDGET_CHANGES`: those of them whose outcome differs that way})."""
    judged, changed = [], {kind: [] for kind in BUDGET_CHANGES}
    for (claim, before), (_, after) in zip(findings[short], findings[long]):
        if {before.outcome, after.outcome} & {"indicative", "not_judged", "not_run"}:
            continue
        judged.append((claim, before, after))
        if before.outcome != after.outcome:
            kind = ("reversed" if before.outcome in DECIDED and after.outcome in DECIDED else "same way"
                    if points_the_claims_way(claim, before) == points_the_claims_way(claim, after) else "other way")
            changed[kind].append((claim, before, after))
    return judged, changed


def _seeds_of(verdicts: Sequence[Verdict]) -> str:
    """"3 seeds", "5–8 seeds": the seeds the verdicts stand on."""
    counts = sorted({verdict.estimate.n for verdict in verdicts})
    return f"{counts[0]}{'–' + str(counts[-1]) if len(counts) > 1 else ''} seed{'s' if counts[-1] > 1 else ''}"


def budget_found(findings: dict[str, Findings], short: str = "cpu-short", long: str = "cpu") -> str:
    """What the training budget page found, first (MyST Markdown): whether a shorter budget settles any claim the
    other way round, how many of the claims judged under both it points the other way, and how many it only
    leaves unsettled (:func:`budget_changes` lists them); "" when either preset is missing or judges nothing."""
    if short not in findings or long not in findings:
        return ""
    judged, changed = _budget_differences(findings, short, long)
    if not judged:
        return ""
    turned, other, same = (changed[kind] for kind in BUDGET_CHANGES)
    if turned:
        lead = f"**A shorter training budget settles {len(turned)} claim{'s' if len(turned) > 1 else ''} the other way round.**"
    elif other:
        lead = (f"**A shorter training budget settles no claim the other way round, but for {len(other)} "
                f"{'claim its estimate points' if len(other) == 1 else 'claims their estimates point'} the other "
                "way.**")
    else:
        lead = "**A shorter training budget turns no claim round.**"
    names = lambda group: "; ".join(f"*{claim.words}*" for claim, _, _ in group)  # noqa: E731
    parts = ([f"{len(turned)} settled the other way round ({names(turned)})"] if turned else []) + (
        [f"{len(other)} settled under one budget only and pointing the other way under the other ({names(other)})"]
        if other else []) + (
        [f"{len(same)} settled under one budget only and pointing the same way under the other, whose seeds are "
         "too few to settle them"] if same else [])
    differ = sum(map(len, changed.values()))
    fewer, more = get_preset(short), get_preset(long)
    tokens = lambda cfg: cfg.steps * cfg.batch_size * cfg.block_size  # noqa: E731
    # the budget is not all that differs: what else does is said, so the lead is read with it
    others = ([f"a context of {fewer.block_size} against {more.block_size}"] if fewer.block_size != more.block_size
              else []) + ([f"a peak learning rate of {fewer.lr:g} against {more.lr:g}"] if fewer.lr != more.lr else [])
    also = f"; also {' and '.join(others)}, so the budget is not all that differs" if others else ""
    where = (f" Of the {len(judged)} claims with a verdict under both `{short}` (1/"
             f"{tokens(more) / tokens(fewer):.0f} of `{long}`'s training tokens{also}; "
             f"{_seeds_of([before for _, before, _ in judged])}) and `{long}` "
             f"({_seeds_of([after for _, _, after in judged])}), ")
    if not differ:
        return lead + where + "none changes its verdict ({ref}`budget-changes`)."
    return lead + where + f"{differ} differ{'s' if differ == 1 else ''}: " + "; ".join(parts) + " ({ref}`budget-changes`)."


def budget_changes(findings: dict[str, Findings], short: str = "cpu-short", long: str = "cpu") -> str:
    """Which verdicts change between a shorter and a longer training budget (MyST Markdown): the claims
    judged under both (confirmed, refuted or undecided), and among them those whose outcome (not merely
    its wording) differs, each with both estimates (and a warning when the numbers of seeds differ), grouped by how
    they differ (:data:`BUDGET_CHANGES`: settled the other way round, or settled under one budget only with the
    estimate pointing the other way or the same way); "" when either preset is missing."""
    if short not in findings or long not in findings:
        return ""
    judged, changed = _budget_differences(findings, short, long)
    waiting = len(CLAIMS) - len(judged)
    head = (f"Of the {len(CLAIMS)} claims, {len(judged)} have a verdict under both `{short}` and `{long}`"
            + (f" ({waiting} still lack one: a single seed gives an indication only, or the runs are missing)"
               if waiting else ""))
    if not judged:
        return head + "."
    count = sum(map(len, changed.values()))
    if not count:
        return head + "; none of these verdicts changes with the training budget."
    groups = {kind: [f"* {claim.words} ({claim.tag}): **{before.text}** under `{short}` "
                     f"({estimate_text(claim, before)}), **{after.text}** under `{long}` "
                     f"({estimate_text(claim, after)}){'' if before.estimate.n == after.estimate.n else ' (†)'}"
                     for claim, before, after in group] for kind, group in changed.items()}
    lines = [line for group in groups.values() for line in group]
    dagger = ("\n\n(†) Not on the same number of seeds under both budgets: the interval of fewer seeds is the "
              "wider one, which alone can change a verdict." if any(line.endswith(" (†)") for line in lines) else "")
    blocks = [f"*{BUDGET_CHANGES[kind]} ({len(group)}):*\n\n" + "\n".join(group) for kind, group in groups.items() if group]
    return head + f"; {count} of them change{'s' if count == 1 else ''} with the budget:\n\n" + "\n\n".join(blocks) + dagger


def single_seed_contrasts(findings: dict[str, Findings], judged: str = "cpu", single: str = "paper",
                          noise: float = paper.RUN_TO_RUN) -> str:
    """Where a single seed of ``single`` (the published protocol) points away from ``judged``'s verdict
    (MyST Markdown), among the claims decided under ``judged`` (confirmed or refuted) and with exactly one
    seed under ``single``: an effect of the other sign larger than ``noise`` (an ordering, or a size or
    near-equality, which ``judged`` decides on its direction); for a mechanism or every claim, a statistic on
    the other side of what decides it. "" when nothing points away."""
    if judged not in findings or single not in findings:
        return ""
    lines = []
    for (claim, verdict), (_, one) in zip(findings[judged], findings[single]):
        if verdict.outcome not in ("confirmed", "refuted") or one.estimate.n != 1:
            continue
        ours, theirs = verdict.estimate.mean, one.estimate.mean
        confirmed = verdict.outcome == "confirmed"
        if claim.kind == "mechanism":
            if (claim.side * (theirs - claim.threshold) > 0) == confirmed:
                continue
            threshold = threshold_words(claim.threshold, share=not claim.signed)
            why = (f"on the paper's side of its threshold {threshold}" if not confirmed
                   else f"across its threshold {threshold}, against the paper")
        elif claim.kind == "every":
            if (theirs == 1) == confirmed:
                continue
            why = "every pair" if theirs == 1 else f"{theirs:.0%} of pairs"
        elif ours * theirs < 0 and abs(theirs) > noise:  # an ordering, or a size judged on its direction
            why = "the other sign"
        else:
            continue
        lines.append(f"* {claim.words} ({claim.tag}): **{verdict.text}** under `{judged}` "
                     f"({estimate_text(claim, verdict)}); one seed of `{single}` gives "
                     f"{estimate_text(claim, one)}, {why}")
    return "\n".join(lines)


def multiple_comparisons(findings: Mapping[str, Findings]) -> str:
    """How many tests each preset's family holds (Holm's *m*; a member without a test, for want of runs or of a gain
    to explain, counted at p = 1), the verdicts with a test it shows (claims across two presets judged in the
    other's family among them), and the verdicts decided at 95% alone that Holm's correction (and, for a claim
    looked at again, its sequential level) leaves undecided (MyST Markdown, one bullet per preset with a test),
    each with its raw and adjusted p-value."""
    lines = []
    for preset, preset_findings in findings.items():
        tested = [(claim, verdict) for claim, verdict in preset_findings if verdict.p_adjusted is not None]
        if not tested:
            continue
        own = [verdict for _, verdict in preset_findings if verdict.family in (None, preset)]  # None: one unnamed family
        size = max((verdict.family_size or 0 for verdict in own), default=0)
        untested = size - sum(verdict.p_adjusted is not None for verdict in own)
        judged_elsewhere = [verdict.family for _, verdict in tested if verdict.family not in (None, preset)]
        decided = sum(verdict.outcome in DECIDED for _, verdict in tested)
        fall = [f"{claim.words} (p = {verdict.p_value:.3g}, {verdict.p_adjusted:.3g} after correction"
                + (f"; look {verdict.looks} of {verdict.looks}" if verdict.looks > 1 else "") + ")"
                for claim, verdict in tested if verdict.corrected]
        counted = sum(verdict.outcome in DECIDED and verdict.p_value is None for _, verdict in preset_findings)
        line = (f"* `{preset}`: {size} test{'s' if size != 1 else ''} in its family"
                + (f", {untested} of them without a test (counted at p = 1)" if untested else "")
                + (f"; {len(judged_elsewhere)} more judged in the family of "
                   + " and ".join(f"`{family}`" for family in dict.fromkeys(judged_elsewhere))
                   + " (claims across two presets)" if judged_elsewhere else "")
                + f"; {len(tested)} with a test, {decided} decided after the correction"
                + (f" (and {counted} decided by a count of pairs)" if counted else ""))
        line += (f"; {len(fall)} decided at 95% alone, undecided after it: " + "; ".join(fall) + "." if fall
                 else "; none decided at 95% alone falls to it.")
        lines.append(line)
    return "\n".join(lines)


def rule_line(rule: Rule) -> str:
    """"* **2026-12-03**, *one claim, one verdict* (`9ddb457`, 9 minutes after ...): what it changed."": one rule
    of the history, with its commit and when it came against the runs it judges, where recorded."""
    when = ", ".join(filter(None, [f"`{rule.commit[:7]}`" if rule.commit else "", rule.when]))
    return f"* **{rule.since}**, *{rule.name}*" + (f" ({when})" if when else "") + f": {rule.change}."


def rule_history(findings_by_rule: Mapping[str, Mapping[str, Findings]]) -> str:
    """The rules' history (MyST Markdown): each rule with its date and what it changed, then, for every claim
    and preset whose verdict a change of rule moved, its verdict under each rule, a column a rule
    (``findings_by_rule``: {rule name: {preset: findings under it}}, in the order of
    :data:`~mope.evidence.verdict_rules.RULES`; :func:`findings_under_every_rule`). A rule that moved no verdict
    is said under the table, with the plain words it moved where it moved some (*direction and size said apart*)."""
    rules = [rule for rule in RULES if rule.name in findings_by_rule]
    lines = [rule_line(rule) for rule in rules]
    current = findings_by_rule[rules[-1].name]

    def words(rule, preset, key):
        return verdict_of(findings_by_rule[rule.name][preset], key).word

    def plain(rule, preset, key):
        return verdict_of(findings_by_rule[rule.name][preset], key).plain_word

    pairs = [(preset, claim.key) for preset in sorted(current, key=closeness) for claim, _ in current[preset]]
    # a rule that moved no verdict's word (only adjusted p) gets no column of its own: said under the table
    silent = [rule for before, rule in zip(rules, rules[1:])
              if all(words(before, p, k) == words(rule, p, k) for p, k in pairs)]
    shown = [rule for rule in rules if rule not in silent]
    rows = []
    for preset, key in pairs:
        verdicts = [verdict_of(findings_by_rule[rule.name][preset], key) for rule in shown]
        if len({verdict.word for verdict in verdicts}) > 1:
            rows.append([CLAIMS_BY_KEY[key].words, f"`{preset}`", *(f"{v.word} (n={v.estimate.n})" for v in verdicts)])
    moved = (f"{len(rows)} verdicts moved with a change of rule:\n\n"
             + plain_markdown_table(["claim", "preset", *(rule.since + (f" `{rule.commit[:7]}`" if rule.commit else "")
                                                          for rule in shown)], rows)
             if rows else "No verdict moved with a change of rule.")
    reworded = {rule.name: [f"{CLAIMS_BY_KEY[k].words} on `{p}` (*{plain(before, p, k)}* before, *{plain(rule, p, k)}*)"
                            for p, k in pairs if plain(before, p, k) != plain(rule, p, k)]
                for before, rule in zip(rules, rules[1:]) if rule in silent}
    if p_only := [rule for rule in silent if not reworded[rule.name]]:
        moved += ("\n\n" + " and ".join(f"*{rule.name}*" for rule in p_only)
                  + " moved no verdict's word on these runs, only adjusted p-values (each record's `p_adjusted`).")
    for rule in (rule for rule in silent if reworded[rule.name]):
        moved += (f"\n\n*{rule.name}* moved no verdict's word on these runs, only the plain words of "
                  + "; ".join(reworded[rule.name]) + ".")
    return "\n".join(lines) + "\n\n" + moved


def findings_under_every_rule(runs: Mapping[str, list[dict]]) -> dict[str, dict[str, Findings]]:
    """{rule name: {preset: every claim judged on ``runs[preset]`` under that rule}}, for :func:`rule_history`."""
    return {rule.name: {preset: claims.judge_all(preset, preset_runs, rule=rule.name)
                        for preset, preset_runs in runs.items()} for rule in RULES}
