"""The history of the verdict rules (:data:`RULES`), oldest first: each version's date, what it changed and when it
came against the runs it judges. :mod:`mope.evidence.verdicts` applies the last; the book shows, for every claim a
change moved, its verdict under each."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """One version of the verdict rules: from when it applies, and what it changed."""

    name: str
    since: str  # the date it came in
    change: str  # what it changed, in a sentence
    commit: str | None = None  # the commit that brought it in, where recorded
    when: str = ""  # when it came, against the runs it judges


#: The rules' history, oldest first; the last is the one every page applies. Each came after runs it judges
#: had landed, which is why the book shows, for every claim a change moved, its verdict under each.
RULES = (
    Rule("size against the paper's number", "2026-11", "a size or near-equality is judged against the paper's "
         "number ± 0.02 on every preset; 95% at every look, no correction applied"),
    Rule("direction off the paper's protocol", "2026-12-01", "off `paper`, a size or near-equality is judged on "
         "the direction of the paper's number only (a near-equality thus confirmed by a gap of any size)"),
    Rule("parts, corrected", "2026-12-03", "each part judged where it can be: off `paper` a size claim's direction "
         "(\"direction confirmed\"), a near-equality not at all (\"not judged at this scale\"); Holm's correction "
         "applied over each preset's tests (every verdict with a p-value); a claim looked at again after more seeds "
         "judged at Pocock's level", "46ed670",
         "after every run of `cpu`, `cpu-short`, `cpu-long` and `cpu-bpe`, 15 minutes after `cpu-long-4x`'s rules "
         "(5ea5de9) and before its first run landed"),
    Rule("one claim, one verdict", "2026-12-03", "a claim across two presets (two contexts, two token budgets) decided "
         "once, in the family of the twin with the longer context or the more tokens, and shown with that verdict on "
         "both; the other twin's family still counted it", "9ddb457",
         "9 minutes after the last seed of `cpu-long-4x`'s headline pair landed, with its verdicts seen"),
    Rule("families declared before the runs", "2026-12-04", "each preset's family is declared in the plan "
         "(`mope.store.plan.FAMILIES`): every claim the plan tests there, a planned test without runs at p = 1, a "
         "claim across two presets in its home's family alone; so a run of one claim can only make another's "
         "correction less strict (its first: a later look that moves a claim's p can move another's adjusted p either "
         "way, never its family)", "34ca57b61752107b57bf4d9854557c60ba4f0878",
         "before `paper`'s seeds 1-2 and its causal gates; after every run of the CPU presets"),
    Rule("direction and size said apart", "2026-12-06", "a size at `paper` whose size is undecided has its "
         "direction's outcome said apart (the claims document's `direction`): decided where its 95% interval lies on "
         "one side of 0 at Bonferroni's level over the preset's family, the strictest its correction can need, and "
         "said in the plain words (\"holds in direction: ...; whether the size is the paper's is not settled yet\"); "
         "no verdict moved, only the plain words of such a size", "6f763a45e1cc88695e06fce061dfb1997ed560f6",
         "after `paper`'s seeds 1-2 of the headline's pair landed (2026-12-04), their verdicts seen; before its "
         "causal gates"),
)
CURRENT_RULE = RULES[-1].name
RULE_NAMES = tuple(rule.name for rule in RULES)


def rule_at_least(rule: str, since: str) -> bool:
    """Whether ``rule`` is the rule named ``since`` or a later one (:data:`RULES`)."""
    return RULE_NAMES.index(rule) >= RULE_NAMES.index(since)
