"""mope.book.tables: tables for reading — fixed decimals, a dash for what is missing, verdict word and note, presets
side by side, no provenance."""
import re

import numpy as np
import pytest

from mope.evidence import claims, paper
from mope.book import tables
from mope.store.presets import get_preset
from mope.model.variants import TABLE_2, VARIANTS
from synthetic_runs import decayed_morlet, run


def rows_of(markdown: str) -> dict[str, list[str]]:
    lines = [line for line in markdown.splitlines() if line.startswith("| ")]
    return {cells[0]: cells for cells in ([c.strip() for c in line.strip("|").split(" | ")] for line in lines[1:])}


def test_markdown_table_escapes_pipes_and_breaks_lines():
    table = tables.markdown_table(["a", "b"], [["|x|", "one\ntwo"]], "note")
    assert table.splitlines() == ["| a | b |", "|---|---|", "| \\|x\\| | one<br>two |", "", "note"]


@pytest.mark.usefixtures("families_of_the_runs")
def test_table_2_side_by_side_with_dashes_and_no_nan():
    runs = {"cpu": [run("BASE-DOT", s, 1.50 + 0.001 * s) for s in range(3)]
            + [run("EGA-1", s, 1.484 + 0.002 * s) for s in range(3)],
            "cpu-short": []}
    table = tables.table_2(runs)
    assert "nan" not in table.lower() and "None" not in table
    rows = rows_of(table)
    assert rows["BASE-DOT"][2:] == ["1.4742", "—", "L = 1.501 ± 0.001 (n=3)<br>reference"]
    ega = rows["EGA-1"]
    assert ega[3] == "+0.092" and len(ega) == 5
    # cpu-short has no runs: its column of dashes is left out, and named under the table
    assert "Left out, as nothing is there (not run, or not reported by the paper): `cpu-short`" in table
    # the verdict is the one of the paper's claim about EGA-1's gain, as the claims table shows it
    record = next(r for r in claims.claim_records("cpu", runs["cpu"]) if r["key"] == "ega-gain")
    assert record["verdict"] == ("direction confirmed: 0.16× the paper's size on `cpu` (95%: 0.14 to 0.19×), a size not "
                                 "judged at this scale")
    # a gain of a gate that reads future tokens: the verdict marked, and a paragraph under the table says why
    assert ega[4] == ("L = 1.486 ± 0.002 (n=3)<br>Δ = +0.015 ± 0.001 (n=3)<br>**holds in its direction**‡: 0.16× the "
                      "paper's size on `cpu` (95%: 0.14 to 0.19×), a size not judged at this scale")
    assert table.endswith("\n\n‡ A gain so marked needs the published gate, which reads future tokens (a language model "
                          "cannot); what a gate that sees only the past keeps of it: {ref}`stress-causal-gate`.")
    # EGA-1 worse than BASE-DOT: no gain to mark, no line under the table
    worse = {"cpu": runs["cpu"][:3] + [run("EGA-1", s, 1.52 + 0.002 * s) for s in range(3)]}
    assert "‡" not in tables.table_2(worse) and "**fails" in rows_of(tables.table_2(worse))["EGA-1"][4]
    assert "**" not in rows["PE-SINCOS"][4]  # no claim of the paper, no verdict
    assert set(rows) == {"model", *TABLE_2} - {"model"}


def test_table_4_judges_each_delta_against_the_paper_and_has_no_nan():
    values = {"BASE-DOT": 1.50, "EGA-1": 1.40, "PE-MORLET": 1.55, "EGA-MORLET": 1.38}
    runs = {"cpu": [run(v, s, x + 0.001 * s * (v == "EGA-1")) for v, x in values.items() for s in (0, 1, 2)]}
    rows = rows_of(tables.table_4(runs))
    assert [r for r in rows] == [row[0] for row in paper.TABLE_4]
    assert rows["Sum (expected if independent)"][3] == "Δ = +0.049 ± 0.001 (n=3)"  # no claim: no verdict
    excess = rows["Interaction benefit excess"][3]  # 1.40 + 1.55 - 1.50 - 1.38
    record = next(r for r in claims.claim_records("cpu", runs["cpu"]) if r["key"] == "interaction")
    assert record["verdict"].startswith("direction confirmed: ") and record["plain"].startswith("holds in its direction: ")
    assert excess.startswith("Δ = +0.071") and excess.endswith(f"**{record['plain'].replace(': ', '**: ', 1)}")
    assert "nan" not in tables.table_4(runs).lower()


def test_comparison_outcomes_name_the_better_model():
    runs = {"cpu": [run("NOPE", s, 1.60) for s in range(3)] + [run("PE-MORLET", s, 1.55 + 0.001 * s) for s in range(3)]}
    cell = rows_of(tables.comparison_table(runs, {("PE-MORLET", "NOPE"): "does MoPE beat no PE?"}))[
        "does MoPE beat no PE?"][2]
    assert cell == "+0.049 ± 0.001 (n=3)<br>PE-MORLET better"
    spread = {"cpu": [run("NOPE", s, 1.60) for s in range(3)] + [run("PE-MORLET", s, 1.60 + 0.01 * (s - 1) + 0.002)
                                                                 for s in range(3)]}
    cell = rows_of(tables.comparison_table(spread, {("PE-MORLET", "NOPE"): "q"}))["q"][2]
    assert cell.startswith("-0.002 ± 0.010 (n=3)<br>not settled (") and "seeds would" in cell
    tie = {"cpu": [run("NOPE", 0, 1.60), run("PE-MORLET", 0, 1.6002)]}  # one seed, shown as +0.000: no winner
    assert rows_of(tables.comparison_table(tie, {("PE-MORLET", "NOPE"): "q"}))["q"][2] == \
        "-0.000 (n=1)<br>one seed: no difference at this precision"


def test_boundary_table_shows_the_decay_only_reference_of_each_preset():
    runs = {"cpu-short": [run("PE-MORLET-FREE", s, 1.5, learned=decayed_morlet(64, 0.95, "none")) for s in (0, 1)]}
    table = tables.boundary_table(runs, {"cpu-short": get_preset("cpu-short")})
    free = next(line for line in table.splitlines() if "PE-MORLET-FREE" in line)
    assert "| 4.805 |" in free and free.endswith("| 100%, 100% |")  # 5^0.95 < 5^0.975: pushed below decay alone
    nodecay = next(line for line in table.splitlines() if "PE-MORLET-NODECAY" in line)
    assert "| 0 |" in nodecay and "| 5.000 |" in nodecay


def test_extrapolation_table_marks_the_learned_table_as_not_extendable():
    context = {"1x": 1.5, "2x": 1.6, "4x": 1.7}
    runs = {"cpu": [run("BASE-DOT", 0, 1.5, by_context={"1x": 1.5, "2x": None, "4x": None}),
                    run("NOPE", 0, 1.5, by_context=context), run("NOPE", 1, 1.5, by_context=context)]}
    rows = [line for line in tables.extrapolation_table(runs, ["BASE-DOT", "NOPE", "ALIBI"]).splitlines()]
    assert any("BASE-DOT" in line and "n/a" in line for line in rows)
    assert any("NOPE" in line and "| +0.100 ± 0.001 (n=2) | +0.200 ± 0.001 (n=2)<br>rises" in line for line in rows)
    assert not any("1.500" in line for line in rows)  # changes only: no whole-split level beside Table 2's (issue 72)
    assert not any("ALIBI" in line for line in rows)


def test_the_plateau_table_gives_each_models_loss_on_val_as_table_2_does():
    runs = {"cpu": [run("BASE-DOT", s, 1.50, full=1.60) for s in range(2)]}  # issue 72: one number per quantity
    table = tables.plateau_table(runs, {"unigram": 3.3, "bigram": 2.5})
    assert "1.500" in table and "1.600" not in table


def test_context_table_compares_each_model_on_the_seeds_trained_at_both_contexts():
    short = [run("BASE-DOT", s, 1.66 + 0.01 * s, full=1.66) for s in range(3)] + [run("NOPE", 0, 1.84)]
    long = [run("BASE-DOT", s, 1.86 + 0.02 * s, full=1.85, preset="cpu-long") for s in range(2)]  # Val, as Table 2
    rows = rows_of(tables.context_table(short, long, (64, 256)))
    assert list(rows) == ["BASE-DOT"]  # NOPE has no run at the longer context
    assert rows["BASE-DOT"] == ["BASE-DOT", "1.665 ± 0.007 (n=2)", "1.870 ± 0.014 (n=2)", "+0.205 ± 0.007 (n=2)"]
    assert tables.context_table(short, [], (64, 256)) == "No model is stored at both contexts yet."


def test_tokenization_table_gives_each_models_loss_per_character_at_both_tokenizations():
    characters = [run("BASE-DOT", s, 1.60, full=1.60 + 0.01 * s) for s in range(2)] + [run("PE-SINCOS", 0, 1.9)]
    tokens = [run("BASE-DOT", s, 3.5, full=3.50 + 0.02 * s, preset="cpu-bpe") for s in range(3)]
    table = tables.tokenization_table(characters, tokens, 2.5)
    rows = rows_of(table)
    assert list(rows) == ["BASE-DOT", "PE-SINCOS"]  # PE-MORLET and NOPE: stored at neither
    assert rows["BASE-DOT"] == ["BASE-DOT", "1.605 ± 0.007 (n=2)", "3.520 ± 0.020 (n=3)", "1.408 ± 0.008 (n=3)"]
    assert rows["PE-SINCOS"][2:] == [tables.DASH, tables.DASH]
    assert "a token covers 2.50 characters there" in table
    assert tables.tokenization_table([], [], 2.5) == "No model is stored at either tokenization yet."


def test_variants_tables_list_every_registered_variant_once():
    structure, purpose = tables.variants_tables()
    for table in (structure, purpose):
        assert re.findall(r"^\| \*\*([A-Z0-9-]+)\*\*", table, flags=re.M) == list(VARIANTS)
    line = {name: next(row for row in structure.splitlines() if row.startswith(f"| **{name}** |")) for name in VARIANTS}
    assert line["BASE-DOT"].endswith("| yes | 4,816,640 |")  # the released code's count
    assert "| EGA-1 (window statistics) | **no** |" in line["EGA-1"]
    assert "| MoPE (no ωσ ≥ 5 bound) |" in line["PE-MORLET-FREE"]
    assert "| **EGA-1-CAUSAL** | control | EGA-1 with prefix statistics (causal) |" in purpose


def test_causal_gate_table_shows_the_surviving_share_with_the_claims_verdict():
    runs = {"cpu": [r for s in range(3) for r in (
        run("BASE-DOT", s, 1.6, full=1.60 + 0.002 * s), run("EGA-1", s, 1.5, full=1.50 + 0.002 * s, causal_stats=2.0),
        run("EGA-1-CAUSAL", s, 1.59, full=1.59 + 0.002 * s + 0.001 * (s - 1)))]}
    line = next(row for row in tables.causal_gate_table(runs).splitlines() if row.startswith("| EGA-1 |"))
    record = next(r for r in claims.claim_records("cpu", runs["cpu"]) if r["key"] == "gain-survives-causal-gate")
    assert record["outcome"] == "refuted"
    assert line.endswith(f"| 10% ± 1%<br>**fails**: below 50% |")


def test_a_table_that_compares_runs_of_two_kinds_of_device_says_so_under_it_and_one_kind_says_nothing():
    from mope.store.presets import get_preset

    def on(device, *args, **kwargs):
        made = run(*args, preset=get_preset("paper"), **kwargs)
        made["provenance"]["device"] = device
        return made

    gpu = [on("cuda: NVIDIA H200", "BASE-DOT", 0, 1.47), on("cuda: NVIDIA H200", "EGA-1", 0, 1.38, causal_stats=1.9)]
    causal = on("cpu: Intel Xeon, 1 thread", "EGA-1-CAUSAL", 0, 1.45)
    assert "kinds of device" not in tables.causal_gate_table({"paper": gpu})
    assert "kinds of device" not in tables.table_2({"paper": gpu})
    under = tables.causal_gate_table({"paper": gpu + [causal]}).split("\n\n", 1)[1]
    assert "(EGA-1 (seed 0) and BASE-DOT (seed 0) in bf16 on cuda; EGA-1-CAUSAL (seed 0) in float32 on cpu)" in under
    assert "kinds of device" not in tables.table_2({"paper": gpu + [causal]})  # Table 2 compares no causal gate
    several = tables.table_2({"cpu": [run("BASE-DOT", 0, 1.6)], "paper": gpu + [on("cpu: AMD EPYC, 1 thread", "PE-ROPE", 0, 1.5)]})
    assert ("`paper`: These runs computed on two kinds of device (BASE-DOT (seed 0) and EGA-1 (seed 0) in bf16 on cuda; "
            "PE-ROPE (seed 0) in float32 on cpu)") in several
    assert "`cpu`: These" not in several


def test_sweep_table_marks_the_chosen_candidate_and_dashes_what_is_not_stored():
    from mope.store.presets import CPU_SWEEP, SWEEP_DECIDED_AT, sweep_choice

    chosen = sweep_choice()
    stored = run("BASE-DOT", 0, 1.7, full=1.66, history=[{"step": 1500, "val_loss": 1.773}, {"step": 3000, "val_loss": 1.70}])
    sweep = {c: (stored if c == chosen else None) for c in CPU_SWEEP}
    rows = [line for line in tables.sweep_table(sweep, chosen, SWEEP_DECIDED_AT).splitlines() if line.startswith("| T")]
    assert rows[-1] == "| T64 × B32 | 0.002 | 1.773 | 1.660 | **chosen** |"
    assert rows[0] == "| T128 × B16 | 0.001 | — | — |  |"


def test_the_sweeps_choice_is_the_cpu_preset_but_for_name_and_checkpoints():
    from mope.store.presets import sweep_choice

    chosen, cpu = sweep_choice(), get_preset("cpu")
    assert chosen.name == "sweep-cpu-T64-B32-lr2e-3"
    assert chosen.replace(name="cpu", checkpoint_interval=cpu.checkpoint_interval) == cpu


def test_table_2_distances_are_one_line_per_preset_with_its_range_and_extremes():
    val = {"BASE-DOT": 1.4742, "EGA-1": 1.3821}
    runs = {"paper": [run("BASE-DOT", 0, val["BASE-DOT"] - 0.0004, preset="paper"),
                      run("EGA-1", 0, val["EGA-1"] + 0.0150, preset="paper")],
            "cpu": [run("BASE-DOT", s, 1.65 + 0.01 * s) for s in range(3)],
            "cpu-short": []}
    lines = tables.table_2_distances(runs).splitlines()
    assert lines == [
        "* `paper` (2 of 6 models, n = 1 seed): ours − paper from -0.0004 to +0.0150 nats (the paper gives four "
        "decimals); closest BASE-DOT (-0.0004), furthest EGA-1 (+0.0150).",
        "* `cpu` (1 of 6 models, n = 3 seeds): ours − paper from +0.1858 to +0.1858 nats (the paper gives four "
        "decimals); closest BASE-DOT (+0.1858), furthest BASE-DOT (+0.1858).",
    ]
    assert tables.table_2_distances({"cpu-short": []}) == ""


def test_distance_to_table_3_is_the_worst_quartile_end_and_needs_the_papers_128_pairs():
    omega = np.concatenate([np.linspace(o[0], o[1], 32) for _, o, _, _, _ in paper.TABLE_3])
    sigma = np.concatenate([np.linspace(s[0], s[1], 32) for _, _, s, _, _ in paper.TABLE_3])
    assert tables.distance_to_table_3(omega, sigma) == pytest.approx((0.0, 0.0), abs=1e-12)
    sigma[-1] += 0.05  # the last quartile's largest sigma, 1.92 -> 1.97
    omega[0] -= 0.01
    assert tables.distance_to_table_3(omega, sigma) == pytest.approx((0.01, 0.05))
    assert tables.distance_to_table_3(omega[:64], sigma[:64]) is None
