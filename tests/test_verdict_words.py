"""Issue 53: every reading page gives a verdict in plain words, one a claims-document outcome, and keeps the
statistics (the test, p, the adjusted p, the look, the rules) one click away."""
import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest

from mope.book import chapter_runs, claims_tables
from mope.evidence import claims, standings, verdicts
from mope.evidence.estimates import Estimate, UnpairedDifference

ROOT = Path(__file__).resolve().parents[1]
BUILT = ROOT / "_build" / "html"
needs_build = pytest.mark.skipif(not (BUILT / "book" / "intro.html").is_file(), reason="the book is not built")
#: What a reader must not meet outside a dropdown: the statistics' names.
STATISTICS = re.compile(r"Holm|Pocock|p\s*=|adjusted")


def test_each_outcome_has_one_plain_word_and_no_two_share_one():
    assert set(verdicts.PLAIN_WORDS) == set(verdicts.OUTCOMES) == set(verdicts.PLAIN_MEANINGS)
    assert len(set(verdicts.PLAIN_WORDS.values())) == len(verdicts.OUTCOMES)
    for outcome, word in verdicts.PLAIN_WORDS.items():
        assert f"| **{word}** (`{outcome}`) | {verdicts.PLAIN_MEANINGS[outcome]} |" in verdicts.PLAIN_VOCABULARY
    assert not STATISTICS.search(verdicts.PLAIN_VOCABULARY)


def seeds(*values):
    return Estimate(dict(enumerate(values)), 0.001)


def test_a_verdict_reads_in_plain_words_and_its_statistics_stay_in_its_record():
    undecided = verdicts.verdict_ordering(seeds(0.01, -0.005, 0.02))
    assert undecided.outcome == "undecided" and undecided.seeds_needed
    assert undecided.plain == (f"not settled (about {undecided.seeds_needed} seeds if the effect is "
                               "what we measured)")
    assert claims_tables.verdict_markdown(undecided) == (f"**not settled** (about {undecided.seeds_needed} seeds "
                                                         "if the effect is what we measured)")
    hopeless = replace(undecided, seeds_needed=None)
    assert hopeless.plain == "not settled (50 seeds would not settle it)"
    unpaired = replace(undecided, estimate=UnpairedDifference({0: 0.1, 1: 0.2}, {0: 0.15, 1: 0.1}, 0.001))
    assert unpaired.plain_detail.endswith("seeds on each of the two presets if the effect is what we "
                                          "measured")
    confirmed = verdicts.verdict_ordering(seeds(0.1, 0.11, 0.12))
    assert (confirmed.plain, confirmed.word) == ("holds", "confirmed")
    refuted = verdicts.verdict_ordering(seeds(-0.1, -0.11, -0.12))
    assert refuted.plain == "fails: the other way round"
    direction = verdicts.verdict_direction(seeds(0.1, 0.11, 0.12), 0.05, "cpu")
    assert direction.plain_word == "holds in its direction" and direction.plain.startswith("holds in its direction: 2.")
    assert verdicts.verdict_ordering(seeds(0.1)).plain == "one seed only: in the claimed direction"
    # issue 72: a size whose direction is settled and whose size is not says both, never "not settled" alone
    size = replace(verdicts.verdict_size(seeds(0.09, 0.112, 0.134), 0.119), judged_on="size")
    assert (size.outcome, size.size, size.direction) == ("undecided", "undecided", "confirmed")
    assert size.plain == ("holds in direction: the paper's way in each of its 3 seeds, 0.112 against the paper's "
                          f"0.119; whether the size is the paper's is not settled yet (about {size.seeds_needed} seeds "
                          "if the effect is what we measured)")
    open_sign = replace(verdicts.verdict_size(seeds(0.2, -0.1, 0.15), 0.119), judged_on="size")
    assert open_sign.direction == "undecided" and open_sign.plain.startswith("not settled (")
    assert verdicts.verdict_not_judged(seeds(0.1, 0.2), 0.01, "cpu").plain.startswith("cannot be tested at this scale")
    assert verdicts.verdict_ordering(Estimate({}, 0.001)).plain == "not run"
    # decided at 95% alone, not after the correction: not settled, the seeds its corrected level needs, no p-value
    (_, corrected), = claims.corrections.corrected([("k", replace(confirmed, p_value=0.04))], looks={"k": 2},
                                                   family=[f"other{i}" for i in range(20)])
    assert corrected.corrected and "Holm" in corrected.text and "p = " in corrected.text
    assert corrected.plain.startswith("not settled (") and not STATISTICS.search(claims_tables.verdict_markdown(corrected))
    shown = claims_tables.statistics_dropdown([(claims.CLAIMS[0], corrected)])
    assert shown.startswith(":::{dropdown}") and "Holm" in shown and shown.endswith(":::")


def test_the_words_of_a_standing_are_the_verdicts_plain_words():
    plain = verdicts.PLAIN_WORDS
    behind = standings.Standing(standings.UNDECIDED, undecided=("cpu",), not_judged=("cpu-long",), moot=("cpu-short",))
    assert behind.behind == (f"{plain['undecided']} on `cpu`; cannot be tested on `cpu-long`; "
                             f"{plain['moot']} on `cpu-short`")
    assert standings.UNDECIDED.startswith(plain["undecided"]) and standings.INDICATIVE.startswith(plain["indicative"])


@pytest.mark.usefixtures("families_of_the_runs")
def test_every_table_and_section_of_verdicts_has_its_statistics_one_click_away():
    findings = {"cpu": claims.preset_findings("cpu")}
    tabs = claims_tables.claims_tabs_run(findings, lambda preset: "", standings.standings(findings))
    assert tabs.count(":::{dropdown} The statistics behind the verdicts of these tables") == 1
    assert tabs.index("::::\n") < tabs.index(":::{dropdown}")  # after the tabs, never inside a tab (colon fences)
    section = chapter_runs.section_verdicts(findings, ["repro-table-2"])
    table, statistics = section.split(":::{dropdown}", 1)
    assert not STATISTICS.search(table) and "p = " in statistics


def test_a_controls_caveat_keeps_its_words_on_the_page_and_its_p_value_one_click_away():
    caveat = "A − B: -0.140 at the shorter context; unpaired (Welch, n = 5+8): -0.031, p = 0.00031; NOPE: +0.193"
    assert claims_tables.plain_caveat(caveat) == "A − B: -0.140 at the shorter context; NOPE: +0.193"
    assert claims_tables.plain_caveat(None) is None and claims_tables.plain_caveat("p = 0.5") is None
    verdict = replace(verdicts.verdict_ordering(seeds(0.1, 0.11, 0.12)), caveat=caveat)
    assert f"a control: {caveat}" in claims_tables.statistics_text(verdict)
    assert caveat not in claims_tables.statistics_text(replace(verdict, caveat="A − B: -0.140"))


class Prose(HTMLParser):
    """The text of every paragraph, list item and table cell of a page's article outside a dropdown (a <details>:
    sphinx-design's dropdowns and myst-nb's collapsed cells)."""

    BLOCKS = ("p", "li", "td", "th")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.details, self.open, self.found, self.skip = 0, [], [], 0

    def handle_starttag(self, tag, attrs):
        self.details += tag == "details"
        self.skip += tag in ("script", "style")
        if tag in self.BLOCKS and not self.details:
            self.open.append([])

    def handle_endtag(self, tag):
        self.details -= tag == "details" and self.details > 0
        self.skip -= tag in ("script", "style") and self.skip > 0
        if tag in self.BLOCKS and self.open and not self.details:
            self.found.append(" ".join("".join(self.open.pop()).split()))

    def handle_data(self, data):
        if self.open and not self.details and not self.skip:
            self.open[-1].append(data)


def statistics_in_prose(html: str) -> list[str]:
    prose = Prose()
    prose.feed(html.split('<article class="bd-article"', 1)[-1].split("</article>", 1)[0])
    return [text for text in prose.found if STATISTICS.search(text)]


def test_the_finder_of_statistics_in_prose_looks_outside_dropdowns_only():
    page = ('<article class="bd-article"><p>It holds.</p><details><summary>stats</summary><p>p = 0.01, Holm</p>'
            '</details><ul><li>adjusted for <b>Pocock</b></li></ul><table><tr><td>p = 0.2</td></tr></table></article>')
    assert statistics_in_prose(page) == ["adjusted for Pocock", "p = 0.2"]


@needs_build
def test_no_reading_page_names_a_statistic_outside_a_dropdown():
    """Issue 53: the introduction and the chapters say "holds", "not settled (about N seeds would settle it)"; the
    test, its p, Holm's adjusted p and Pocock's look are one click away."""
    pages = [BUILT / "book" / "intro.html", *sorted((BUILT / "notebooks").glob("0*.html"))]
    assert len(pages) == 8
    found = {page.name: statistics_in_prose(page.read_text(encoding="utf-8")) for page in pages}
    assert not any(found.values()), {name: texts for name, texts in found.items() if texts}
