"""mope.evidence.paper: the paper's numbers agree with one another as the paper prints them."""
import pytest

from mope.evidence import paper
from mope.model.variants import TABLE_2


def test_table_2_covers_the_six_models_and_its_deltas_are_its_vals():
    assert list(paper.TABLE_2_VAL) == TABLE_2 == list(paper.TABLE_2_ENCODING)
    for name, delta in paper.TABLE_2_DELTA.items():
        assert delta == pytest.approx(paper.TABLE_2_VAL["BASE-DOT"] - paper.TABLE_2_VAL[name], abs=6e-4), name


def test_table_4_repeats_table_2_and_its_derived_rows_add_up():
    rows = {component: (val, delta, variant) for component, val, delta, variant in paper.TABLE_4}
    for component, (val, delta, variant) in rows.items():
        if variant is not None:
            assert val == paper.TABLE_2_VAL[variant] and delta == paper.TABLE_2_DELTA.get(variant)
    gate, mope_alone = rows["EGA-1 only"][1], rows["MoPE only"][1]
    assert rows["Sum (expected if independent)"][1] == pytest.approx(gate + mope_alone)
    assert rows["Interaction benefit excess"][1] == pytest.approx(rows["EGA-MORLET (actual)"][1] - gate - mope_alone)


def test_the_reported_pairs_are_table_3s_range_ends():
    (_, omega_first, sigma_first, _, _), _, (_, omega_third, sigma_third, _, _), (_, omega_last, sigma_last, _, _) = \
        paper.TABLE_3
    assert paper.REPORTED_PAIRS[0] == (omega_first[0], sigma_first[1])  # the lowest ω, the largest σ
    assert paper.REPORTED_PAIRS[127] == (omega_last[1], sigma_last[0])  # the highest ω, the smallest σ
    omega64, sigma64 = paper.REPORTED_PAIRS[64]  # Figure 1's caption: Table 3's 2.54 rounded to 2.5
    assert omega64 == omega_third[0] and round(sigma_third[1], 1) == sigma64


def test_the_noise_and_the_match_margin_follow_from_the_two_runs_of_ega_1():
    assert paper.RUN_TO_RUN == pytest.approx(abs(paper.TABLE_2_VAL["EGA-1"] - paper.EGA_1_IN_FIRST_PAPER), abs=5e-4)
    assert paper.MATCH_MARGIN == pytest.approx(1.96 * paper.RUN_TO_RUN, abs=0.005)
    assert paper.gap("BASE-DOT", "PE-MORLET") == pytest.approx(0.0318)


#: The paper's displayed equations numbered by counting each displayed line from the introduction's (1) on (its
#: text as we have it prints no numbers): the count under which its own "Eq. 17" is the factorisation of §4 (its
#: "Eq. 29", the learned centre of §7, falls at 24 in it, and is cited by section).
#: What each number holds, in words a citation of it must use on its line or the two beside it.
EQUATIONS = {"2–3": r"sin|PE\(b", "4": r"RoPE|Rotary|\\theta", "6–7": r"MoPE|Morlet|envelope|\\cos\(\\omega",
             "9–10": r"Delta b|uncertainty", "17": r"C_\\mathrm\{MoPE\}|C\(b|kernel|factori[sz]"}


def test_every_citation_of_a_numbered_equation_names_what_that_number_holds():
    from pathlib import Path
    import re

    root = Path(paper.__file__).resolve().parents[2]
    sources = [*root.glob("mope/**/*.py"), *root.glob("book/*.md"), *root.glob("notebooks/*.md")]
    cited = []
    for path in sources:
        lines = path.read_text().splitlines()
        cited += [(path.name, number, "\n".join(lines[max(i - 1, 0):i + 2])) for i, line in enumerate(lines)
                  for number in re.findall(r"(?<!\")\bEqs?\.\s*(\d+(?:\s*[–-]\s*\d+)?)", line)]  # "Eq. N": the paper's words
    assert {number for _, number, _ in cited} >= {"2–3", "4", "6–7", "9–10", "17"}
    for name, number, context in cited:
        assert number in EQUATIONS, f"{name}: Eq. {number} is not one of the paper's numbers cited: {context}"
        assert re.search(EQUATIONS[number], context), f"{name}: Eq. {number} holds {EQUATIONS[number]}: {context}"
