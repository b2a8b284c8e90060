"""mope.claims: each kind of claim is judged by its stated rule, and the claims table exists in every form."""
import json
import re
from pathlib import Path

import pytest

from mope import claims
from mope.estimates import estimate
from synthetic_runs import decayed_morlet, run

ROOT = Path(__file__).resolve().parents[1]


# --- the verdict rules on constructed estimates ----------------------------------------------------------

def test_a_size_claim_seven_times_too_large_is_not_supported():
    measured = estimate({0: 0.016, 1: 0.010, 2: 0.022})  # "+0.12 claimed, +0.016 ± 0.006 measured"
    finding = claims.verdict_size(measured, 0.119)
    assert finding.verdict == "direction holds"
    assert finding.text == "direction holds, 7.4× smaller"


def test_a_size_claim_is_supported_when_the_paper_value_lies_in_the_widened_interval():
    assert claims.verdict_size(estimate({0: 0.105, 1: 0.112, 2: 0.100}), 0.119).verdict == "supported"
    assert claims.verdict_size(estimate({0: 0.40, 1: 0.41, 2: 0.42}), 0.119).text == "direction holds, 3.4× larger"


@pytest.mark.parametrize("values, verdict", [
    ({0: -0.05, 1: -0.06, 2: -0.055}, "contradicted"),   # the other side of 0
    ({0: 0.01, 1: -0.01, 2: 0.002}, "not supported"),   # around 0, far from the paper's 0.119
    ({0: 0.2, 1: -0.1, 2: 0.05}, "not resolved"),        # around both 0 and 0.119
])
def test_size_claim_outcomes(values, verdict):
    assert claims.verdict_size(estimate(values), 0.119).verdict == verdict


def test_a_negative_size_claim_is_judged_on_its_own_side():
    assert claims.verdict_size(estimate({0: -0.030, 1: -0.034, 2: -0.032}), -0.032).verdict == "supported"
    assert claims.verdict_size(estimate({0: 0.05, 1: 0.06, 2: 0.055}), -0.032).verdict == "contradicted"


def test_one_seed_gives_no_verdict():
    one = estimate({0: 0.016})
    for finding in (claims.verdict_size(one, 0.119), claims.verdict_ordering(one),
                    claims.verdict_mechanism(one, 0.5, 1)):
        assert finding.verdict == "indicative" and finding.note.startswith("one seed")
    assert claims.verdict_size(one, 0.119).text == "indicative, one seed: 7.4× smaller"


def test_no_seed_is_not_run():
    for finding in (claims.verdict_size(estimate({}), 0.1), claims.verdict_ordering(estimate({})),
                    claims.verdict_mechanism(estimate({}), 0, 1)):
        assert finding.verdict == claims.NOT_RUN and finding.estimate.mean is None


@pytest.mark.parametrize("values, verdict", [
    ({0: 0.030, 1: 0.035, 2: 0.032}, "supported"),
    ({0: -0.030, 1: -0.035, 2: -0.032}, "contradicted"),
    ({0: 0.03, 1: -0.03}, "not resolved"),
])
def test_ordering_rule(values, verdict):
    assert claims.verdict_ordering(estimate(values)).verdict == verdict


def test_two_agreeing_seeds_are_not_more_certain_than_the_resolution():
    # identical seeds would give a zero-width interval; the spread is taken as at least 0.001
    assert claims.verdict_ordering(estimate({0: 0.0004, 1: 0.0004})).verdict == "not resolved"


def test_mechanism_rule_reads_the_threshold_from_the_claimed_side():
    above = estimate({0: 0.9, 1: 0.95, 2: 0.92}, resolution=0.01)
    assert claims.verdict_mechanism(above, 0.5, +1).verdict == "supported"
    assert claims.verdict_mechanism(above, 0.5, -1).verdict == "not supported"
    assert claims.verdict_mechanism(estimate({0: 0.4, 1: 0.6}), 0.5, +1).verdict == "not resolved"


def test_verdict_words_are_the_stated_ones():
    assert set(claims.VERDICTS) == {"supported", "direction holds", "not resolved", "not supported", "contradicted",
                                    "indicative", "not run"}
    for word in claims.VERDICTS[:-2]:
        assert f"*{word}*" in claims.RULE, f"the rule stated in the book does not define {word!r}"


# --- the claims -----------------------------------------------------------------------------------------

def test_every_claim_has_a_kind_and_a_place_in_the_book():
    labels = set()
    for page in list((ROOT / "notebooks").glob("0[3-5]_*.md")):
        labels |= set(re.findall(r"^\(([\w-]+)\)=$", page.read_text(), flags=re.M))
    for claim in claims.CLAIMS:
        assert claim.kind in claims.KINDS
        assert claim.shown_in in labels, f"{claim.words!r} links to {claim.shown_in}, which no chapter defines"
        if claim.kind == "size":
            assert claim.paper is not None


def test_claims_on_constructed_runs():
    runs = [run("BASE-DOT", s, 1.50 + 0.001 * s) for s in range(3)]
    runs += [run("EGA-MORLET", s, 1.484 + 0.001 * s + 0.003 * (s == 1)) for s in range(3)]  # ~+0.017, claimed 0.119
    runs += [run("PE-MORLET", 0, 1.53)]  # one seed
    found = {r["claim"]: r for r in claims.claim_records("cpu", runs)}
    gain = found["EGA-MORLET improves on BASE-DOT by 0.119"]
    assert gain["verdict"].startswith("direction holds") and gain["n"] == 3 and gain["paper"] == 0.119
    assert gain["ours"] == pytest.approx(0.015, abs=1e-6) and gain["sd"] == pytest.approx(0.00173, abs=1e-5)
    assert found["PE-MORLET is worse than BASE-DOT"]["verdict"].startswith("indicative, one seed")
    assert found["EGA-1 improves on BASE-DOT by 0.092"]["verdict"] == "not run"


def test_mechanism_claims_read_learned_parameters_against_decay_alone():
    from mope.analysis import decay_factor

    f = decay_factor("cpu")
    runs = [run("PE-MORLET-FREE", s, 1.5, learned=decayed_morlet(64, f * 0.98, "none")) for s in range(2)]
    runs += [run("PE-MORLET-NODECAY", s, 1.5, learned=decayed_morlet(64, 1.0)) for s in range(2)]
    found = {r["claim"]: r for r in claims.claim_records("cpu", runs)}
    below = found["Without the bound, the pairs would go below ωσ = 5"]
    assert below["ours"] < 0 and below["verdict"].startswith("supported")  # below what decay alone gives
    pushed = found["The optimizer pushes every pair onto ωσ = 5"]
    assert pushed["ours"] == 0 and pushed["verdict"].startswith("not supported")  # no decay: nothing presses


def test_claims_report_json_has_one_object_per_claim_with_the_named_fields(store):
    records = json.loads(claims.claims_report("smoke", as_json=True))
    assert len(records) == len(claims.CLAIMS)
    for record in records:
        assert set(record) == {"claim", "section", "kind", "paper", "ours", "sd", "n", "verdict"}
        assert record["kind"] in claims.KINDS and record["n"] == 0 and record["ours"] is None
        assert record["verdict"] == "not run"


def test_claims_report_text_is_the_table_and_its_rule(store):
    text = claims.claims_report("smoke", as_json=False)
    lines = text.splitlines()
    assert lines[0] == "The paper's claims against preset 'smoke' (0 current runs)"
    assert lines[1].split() == ["claim", "where", "paper", "ours", "(±", "sd,", "n)", "verdict"]
    assert sum("not run" in line for line in lines) == len(claims.CLAIMS)
    assert "- a size claim (\"+0.119\") is supported only when" in text and "*" not in text


def test_claims_markdown_links_each_claim_and_shows_presets_side_by_side():
    findings = {"cpu": claims.judge_all("cpu", [run("BASE-DOT", 0, 1.5), run("PE-ROPE", 0, 1.49)]),
                "cpu-short": claims.judge_all("cpu-short", [])}
    table = claims.claims_markdown(["cpu", "cpu-short"], findings)
    header, rule, *rows = table.splitlines()
    assert header == "| claim | § | paper | `cpu` | `cpu-short` |"
    assert len(rows) == len(claims.CLAIMS)
    rope = next(row for row in rows if "PE-ROPE nearly matches" in row)
    assert "{ref}`PE-ROPE nearly matches BASE-DOT (+0.011) <repro-table-2>`" in rope
    assert "**indicative**<br>+0.010 (n=1)<br>one seed: 1.1× smaller" in rope and rope.endswith("not run |")


def test_budget_changes_name_the_claims_whose_verdict_moves_between_presets():
    def ega_morlet(gain):  # EGA-MORLET better than BASE-DOT by ``gain``, three seeds
        return ([run("BASE-DOT", s, 1.50 + 0.001 * s) for s in range(3)]
                + [run("EGA-MORLET", s, 1.50 + 0.001 * s - gain + 0.002 * (s == 1)) for s in range(3)])

    findings = {"cpu-short": claims.judge_all("cpu-short", ega_morlet(0.016)),
                "cpu": claims.judge_all("cpu", ega_morlet(0.119))}
    text = claims.budget_changes(findings)
    changed = [line for line in text.splitlines() if line.startswith("* ")]
    assert changed == ["* EGA-MORLET improves on BASE-DOT by 0.119 (Abstract, §6.2): **direction holds** under `cpu-short` "
                       "(+0.015 ± 0.001 (n=3)), **supported** under `cpu` (+0.118 ± 0.001 (n=3))"]
    judged = int(re.search(r"(\d+) have a verdict under both", text).group(1))
    assert judged >= 1 and f"{len(changed)} of them changes with the budget" in text
    same = {"cpu-short": findings["cpu"], "cpu": findings["cpu"]}
    assert claims.budget_changes(same).endswith("none of these verdicts changes with the training budget.")
    two_seeds = {"cpu-short": findings["cpu-short"],
                 "cpu": claims.judge_all("cpu", [r for r in ega_morlet(0.119) if r["seed"] < 2])}
    (line,) = [line for line in claims.budget_changes(two_seeds).splitlines() if line.startswith("* EGA-MORLET improves")]
    assert line.endswith("(n=2)); not on the same number of seeds, and the interval of 2 seeds is the wider one, "
                         "which alone can change a verdict")
    one_seed = {"cpu-short": findings["cpu-short"], "cpu": claims.judge_all("cpu", ega_morlet(0.119)[::3])}
    assert "0 have a verdict under both" in claims.budget_changes(one_seed)
    assert claims.budget_changes({"cpu": findings["cpu"]}) == ""


def test_single_seed_contrasts_name_where_one_seed_of_the_published_protocol_points_away():
    def table(gain_morlet, gain_ega, seeds):  # EGA-MORLET and EGA-1 better than BASE-DOT by the gains
        return ([run("BASE-DOT", s, 1.50 + 0.001 * s) for s in seeds]
                + [run("EGA-MORLET", s, 1.50 + 0.001 * s - gain_morlet + 0.002 * (s == 1)) for s in seeds]
                + [run("EGA-1", s, 1.50 + 0.001 * s - gain_ega + 0.001 * (s == 2)) for s in seeds])

    findings = {"cpu": claims.judge_all("cpu", table(0.016, 0.095, range(3))),
                "paper": claims.judge_all("paper", table(0.112, 0.098, [0]))}
    lines = claims.single_seed_contrasts(findings).splitlines()
    assert lines == [
        "* EGA-MORLET improves on BASE-DOT by 0.119 (Abstract, §6.2): **direction holds** under `cpu` "
        "(+0.015 ± 0.001 (n=3)); one seed of `paper` gives +0.112 (n=1), nearer the paper's +0.119 than to `cpu`'s",
        "* EGA-MORLET beats EGA-1 (best overall) (§6.2): **contradicted** under `cpu` (-0.079 ± 0.002 (n=3)); "
        "one seed of `paper` gives +0.014 (n=1), the other sign",
    ]
    agreeing = {"cpu": findings["cpu"], "paper": claims.judge_all("paper", table(0.016, 0.095, [0]))}
    assert claims.single_seed_contrasts(agreeing) == ""
    # a seed nearer cpu's mean than the paper's number, and an opposite sign within the paper's noise: nothing
    halfway = {"cpu": findings["cpu"], "paper": claims.judge_all("paper", table(0.060, 0.052, [0]))}
    assert claims.single_seed_contrasts(halfway) == ""
    assert claims.single_seed_contrasts({"cpu": findings["cpu"]}) == ""
    two_seeds = {"cpu": findings["cpu"], "paper": claims.judge_all("paper", table(0.112, 0.098, [0, 1]))}
    assert claims.single_seed_contrasts(two_seeds) == ""  # two seeds: a verdict of its own, not a contrast


def test_single_seed_contrasts_include_a_mechanism_statistic_across_its_threshold():
    band = next(c for c in claims.CLAIMS if c.kind == "mechanism" and c.words.startswith("σ ∈"))
    supported = claims.Finding(estimate([0.059, 0.057, 0.062]), "supported")
    one_seed = claims.Finding(estimate([0.028]), claims.INDICATIVE)
    findings = {"cpu": [(band, supported)], "paper": [(band, one_seed)]}
    assert claims.single_seed_contrasts(findings) == (
        f"* {band.words} ({band.section}): **supported** under `cpu` (0.059 ± 0.003 (n=3)); one seed of `paper` "
        f"gives 0.028 (n=1), across its threshold {band.threshold:g}, against the paper")
    findings["paper"] = [(band, claims.Finding(estimate([0.070]), claims.INDICATIVE))]
    assert claims.single_seed_contrasts(findings) == ""
