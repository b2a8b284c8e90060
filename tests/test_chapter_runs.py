"""mope.book.chapter_runs and mope.book.run_records: which runs a chapter shows, what is missing, and where they came from."""
import json
import re
from pathlib import Path

from mope.store import results
from mope.book import chapter_runs, run_records
from mope.store.presets import get_preset
from mope.store.results import write_result
from synthetic_runs import run


def test_missing_line_names_what_is_absent_in_one_sentence(store):
    runs = [run("BASE-DOT", s, 1.5) for s in range(3)] + [run("PE-MORLET", 0, 1.5)]
    line = chapter_runs.missing_line("cpu", runs, ["BASE-DOT", "PE-MORLET", "EGA-1"], [0, 1, 2])
    assert line == "`cpu`: 4 runs stored of 9 planned; not run yet: seeds 1, 2 of PE-MORLET; seeds 0–2 of EGA-1."
    runs.append(run("PE-MORLET", 1, 1.5))
    line = chapter_runs.missing_line("cpu", runs, ["BASE-DOT", "PE-MORLET", "EGA-1", "NOPE"], [0, 1, 2])
    assert line == "`cpu`: 5 runs stored of 12 planned; not run yet: seed 2 of PE-MORLET; seeds 0–2 of EGA-1, NOPE."
    assert chapter_runs.missing_line("cpu", runs, ["BASE-DOT"], [0, 1, 2]) == "`cpu`: 3 runs stored of 3 planned."


def test_presets_shown_put_the_main_one_first_and_skip_empty_ones(store):
    assert chapter_runs.presets_shown("cpu") == ["cpu"]
    assert chapter_runs.presets_shown("smoke") == ["smoke"]
    stale = run("BASE-DOT", 0, 1.5, preset="cpu-short")
    write_result(stale)  # its configuration hash is not today's: stale, so cpu-short still has no runs
    assert chapter_runs.presets_shown("cpu") == ["cpu"]
    assert chapter_runs.missing_line("cpu-short", [], ["BASE-DOT"], [0]) == (
        "`cpu-short`: 0 runs stored of 1 planned; not run yet: seed 0 of BASE-DOT; 1 stale (older or uncommitted code) file "
        "not shown.")


def test_runs_of_uncommitted_code_are_listed_as_not_shown_never_shown(store):
    dirty = run("BASE-DOT", 0, 1.5, dirty=True, preset=get_preset("cpu"))  # current in every other respect
    write_result(dirty)
    assert results.load_results("cpu") == []
    table = run_records.not_shown_table(["cpu", "cpu-short"])
    assert table.splitlines()[2] == ("| `cpu` | BASE-DOT | 0 | stale | made from uncommitted code (git\\_dirty); "
                                     "rerun it from a clean checkout |")
    assert len(table.splitlines()) == 3
    assert run_records.not_shown_table(["cpu-short"]) == ""


def test_provenance_tables_name_runs_not_machine_paths(store):
    results, _ = store
    table = run_records.run_table("cpu", [run("BASE-DOT", 0, 1.5)])
    assert "| BASE-DOT | 0 | `0123456789abcdef` | `0123456` | cpu: test, 1 thread | not recorded | 10.0 |" in table
    summary = run_records.preset_summary({"cpu": [run("BASE-DOT", 0, 1.5)], "paper": []})
    assert str(results) not in table + summary and "/" not in table.replace("</", "")
    assert "| `paper` | 0 |" in summary


def test_a_run_resumed_elsewhere_shows_where_each_stretch_of_its_steps_computed():
    resumed = run("EGA-1-CAUSAL", 0, 1.5)
    resumed["provenance"].update(git_commit="8e7286e0ffff", device="cpu: Intel Xeon, 1 thread", cpu_capability="AVX512")
    resumed["provenance"]["segments"] = [
        {"from_step": 0, "to_step": 850},  # checkpointed before runs kept their stretches
        {"from_step": 850, "to_step": 2000, "git_commit": "8e7286e0ffff", "device": "cpu: AMD EPYC, 1 thread",
         "cpu_capability": "AVX512"},
        {"from_step": 2000, "to_step": 5001, "git_commit": "8e7286e0ffff", "device": "cpu: Intel Xeon, 1 thread",
         "cpu_capability": "AVX512"}]
    row = run_records.run_table("paper", [resumed]).splitlines()[2]
    assert ("| `8e7286e` (steps 850–5,001); not recorded (steps 0–850) |" not in row
            and "| not recorded (steps 0–850); `8e7286e` (steps 850–5,001) |" in row)  # alike neighbours joined
    assert ("| not recorded (steps 0–850); cpu: AMD EPYC, 1 thread (steps 850–2,000); "
            "cpu: Intel Xeon, 1 thread (steps 2,000–5,001) |") in row
    assert "| not recorded (steps 0–850); AVX512 (steps 850–5,001) |" in row
    summary = run_records.preset_summary({"paper": [resumed, run("BASE-DOT", 0, 1.5)]}).splitlines()[2]
    assert "cpu: AMD EPYC, 1 thread, cpu: Intel Xeon, 1 thread, cpu: test, 1 thread" in summary
    assert "`0123456`, `8e7286e`" in summary
    once = run("BASE-DOT", 0, 1.5)  # never resumed elsewhere: one value a column, as before
    assert "| `0123456` | cpu: test, 1 thread | not recorded |" in run_records.run_table("paper", [once])


def test_the_summary_counts_the_stored_runs_of_the_plan(store, monkeypatch):
    from mope.store import plan

    monkeypatch.setattr(plan, "CPU_STAGES", (plan.Stage("cpu", ("BASE-DOT", "NOPE"), (0, 1)),))
    monkeypatch.setattr(plan, "GPU_STAGES", ())
    summary = run_records.preset_summary({"cpu": [run("BASE-DOT", 0, 1.5), run("ALIBI", 0, 1.5)], "paper": [],
                                          "smoke": [run("BASE-DOT", 0, 1.5, preset="smoke")]})
    rows = {line.split(" | ")[0].strip("| `"): line.split(" | ")[:3] for line in summary.splitlines()[2:]}
    assert rows["cpu"] == ["| `cpu`", "2", "1 of 4"]  # ALIBI is stored beside the plan, not in it
    assert rows["paper"] == ["| `paper`", "0", "—"] and rows["smoke"][2] == "—"  # no script trains these


def test_the_summary_gives_each_presets_wall_time_a_run_and_how_many_ran_at_once():
    def timed(seed: int, start: str, end: str, seconds: float) -> dict:
        stored = run("BASE-DOT", seed, 1.5)
        stored["provenance"].update(started=f"2026-11-30T{start}:00+00:00", finished=f"2026-11-30T{end}:00+00:00",
                                    wall_time_s=seconds)
        return stored

    side_by_side = [timed(0, "06:00", "06:10", 600.0), timed(1, "06:00", "06:14", 840.0),
                    timed(2, "06:10", "06:22", 720.0)]
    assert run_records.most_at_once(side_by_side) == 2
    assert run_records.most_at_once(side_by_side[:1] + side_by_side[2:]) == 1  # one ends as the next starts
    row = run_records.preset_summary({"cpu": side_by_side}).splitlines()[2]
    assert row.endswith("| 12.0 (10.0–14.0) | 2 | 0.6 |")


def test_the_sweep_is_read_from_its_own_store_current_runs_only(store):
    from mope.store.presets import CPU_SWEEP

    assert chapter_runs.load_sweep() == {c: None for c in CPU_SWEEP}
    candidate = CPU_SWEEP[1]
    stored = run("BASE-DOT", 0, 1.7, preset=candidate)
    write_result(stored, results.sweep_root())
    assert chapter_runs.load_sweep()[candidate]["final"]["val_loss"] == 1.7
    write_result(dict(stored, provenance=dict(stored["provenance"], git_dirty=True)), results.sweep_root())
    assert chapter_runs.load_sweep()[candidate] is None  # the sweep is evidence: clean code only


def test_the_sweeps_runs_are_named_by_their_configuration(store):
    from mope.store.presets import CPU_SWEEP

    candidate = CPU_SWEEP[0]
    stored = run("BASE-DOT", 0, 1.7, preset=candidate.name)
    table = run_records.run_table(None, [stored])
    assert table.splitlines()[0] == "| configuration | variant | seed | hash | commit | hardware | instruction set | wall time (min) |"
    assert table.splitlines()[2].startswith(f"| `{candidate.name}` | BASE-DOT | 0 | `0123456789abcdef` |")
    write_result(stored, results.sweep_root())  # its hash is not the candidate's: stale
    (row,) = run_records.not_shown_table(CPU_SWEEP, results.sweep_root()).splitlines()[2:]
    assert row.startswith(f"| `{candidate.name}` | BASE-DOT | 0 | stale | configuration 0123456789abcdef")


INJECTION = "<img src=x onerror=alert(document.cookie)>"


def render_as_the_book(markdown: str) -> str:
    """``markdown`` rendered to HTML by MyST with the book's extensions (raw HTML allowed, as in the book)."""
    import yaml
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    config = yaml.safe_load((Path(__file__).resolve().parents[1] / "_config.yml").read_text())
    extensions = set(config["parse"]["myst_enable_extensions"])
    return create_md_parser(MdParserConfig(enable_extensions=extensions), RendererHTML).render(markdown)


def test_no_stored_string_reaches_the_reproducibility_page_as_markup(store):
    """Break 6 of issue 31: provenance.device and the not-shown reasons went into display(Markdown(...))
    unescaped; results arrive by pull request, and the published book must not run what a file says."""
    results_dir, _ = store
    smoke = get_preset("smoke")
    shown = run("BASE-DOT", 0, 1.5, preset=smoke)
    shown["provenance"].update(device=INJECTION, git_commit="`<b>`*x*", cpu_capability="AVX2")
    write_result(shown)
    misfiled = run("NOPE", 0, 1.5, preset=smoke, changes={"variant": INJECTION})
    (results_dir / "smoke" / "NOPE").mkdir()
    (results_dir / "smoke" / "NOPE" / "seed0.json").write_text(json.dumps(misfiled))  # "holds a run of <img ...>"
    (results_dir / "smoke" / INJECTION).mkdir()
    (results_dir / "smoke" / INJECTION / "seed0.json").write_text("{}")  # a folder's name on the page too

    runs = {"smoke": results.load_results("smoke")}
    assert [r["provenance"]["device"] for r in runs["smoke"]] == [INJECTION]
    page = "\n\n".join([run_records.preset_summary(runs), run_records.run_table("smoke", runs["smoke"]),
                        run_records.run_table(None, runs["smoke"]), run_records.not_shown_table(["smoke"])])
    html = render_as_the_book(page)
    assert "<img" not in html and "<b>" not in html and "<em>" not in html
    # each shown as text: the device three times, in a reason and as a folder's name
    assert html.count("&lt;img src=x onerror=alert(document.cookie)&gt;") == 5


def test_each_run_names_the_instruction_set_of_its_cpu_kernels():
    made = {"AVX2": run("BASE-DOT", 0, 1.5), "none (GPU)": run("BASE-DOT", 1, 1.5), "older": run("BASE-DOT", 2, 1.5)}
    made["AVX2"]["provenance"]["cpu_capability"] = "AVX2"
    made["none (GPU)"]["provenance"]["cpu_capability"] = None
    rows = run_records.run_table("cpu", list(made.values())).splitlines()
    header = [cell.strip() for cell in rows[0].strip("|").split("|")]
    column = header.index("instruction set")
    assert [[cell.strip() for cell in row.strip("|").split("|")][column] for row in rows[2:5]] == ["AVX2", "—", "not recorded"]


def test_a_chapter_counts_the_runs_it_reads_against_the_plan_in_a_dropdown_title_and_names_those_to_come(
        store, monkeypatch):
    from mope.store import plan

    monkeypatch.setattr(plan, "CPU_STAGES", (plan.Stage("cpu", ("BASE-DOT", "PE-MORLET"), (0, 1, 2)),
                                             plan.Stage("cpu", ("ALIBI",), (0,)),
                                             plan.Stage("cpu-bpe", ("BASE-DOT", "NOPE"), (0, 1))))
    monkeypatch.setattr(plan, "GPU_STAGES", (plan.Stage("paper", ("BASE-DOT",), (0,), "first"),))
    runs = {"cpu": [run("BASE-DOT", s, 1.5) for s in range(3)] + [run("PE-MORLET", 0, 1.5), run("ALIBI", 0, 1.5),
                                                                 run("ALIBI", 4, 1.5)],
            "paper": []}
    text = chapter_runs.runs_lines(runs, ["BASE-DOT", "PE-MORLET", "ALIBI", "NOPE"],
                                   also={"cpu-bpe": ([], ["BASE-DOT", "NOPE"])})
    lines = text.splitlines()
    # issue 72: the counts are of this chapter's models, so that a chapter's count never reads as the book's
    assert lines[0] == (":::{dropdown} The runs of this chapter's models: `cpu` 6 stored of 8 planned, `paper` 0 "
                        "stored of 1 planned, `cpu-bpe` 0 stored of 4 planned")
    # ALIBI's seed 4, stored beside the plan, counts; NOPE, planned on no preset but cpu-bpe, is missing nowhere else
    assert lines[1:] == ["- `cpu`: 6 runs stored of 8 planned; not run yet: seeds 1, 2 of PE-MORLET.",
                         "- `paper`: 0 runs stored of 1 planned; not run yet: seed 0 of BASE-DOT.",
                         "- `cpu-bpe`: 0 runs stored of 4 planned; not run yet: seeds 0, 1 of BASE-DOT, NOPE.", ":::"]
    # a preset no script trains counts every seed any of its models has; a seed the reader names, that seed
    smoke = [run("BASE-DOT", 0, 1.5, preset="smoke"), run("BASE-DOT", 1, 1.5, preset="smoke"),
             run("PE-MORLET", 0, 1.5, preset="smoke")]
    assert chapter_runs.missing_line("smoke", smoke, ["BASE-DOT", "PE-MORLET"]) == (
        "`smoke`: 3 runs stored of 4 planned; not run yet: seed 1 of PE-MORLET.")
    assert chapter_runs.missing_line("cpu", runs["cpu"], ["BASE-DOT"], [0, 5]) == (
        "`cpu`: 1 runs stored of 2 planned; not run yet: seed 5 of BASE-DOT.")


def test_the_reproducibility_page_records_every_preset_a_chapter_reads_its_subword_twin_included():
    from mope.store.presets import TOKENIZATION_PAIRS

    read = {*chapter_runs.CHAPTER_PRESETS, *TOKENIZATION_PAIRS.values()}
    assert read <= set(chapter_runs.RECORDED_PRESETS)
    page = (Path(__file__).resolve().parents[1] / "book" / "reproducibility.md").read_text()
    assert "for preset in chapter_runs.RECORDED_PRESETS}" in page


def test_a_preset_on_subword_tokens_says_so_and_its_losses_unit():
    assert chapter_runs.describe("cpu") == "L4 H4 d128 T64, batch 32, 3,001 steps at lr 0.002"
    assert chapter_runs.describe("cpu-bpe") == ("L4 H4 d128 T64, batch 32, 1,201 steps at lr 0.002, bpe-1024 subword "
                                                "tokens (losses in nats a token)")


def test_the_claims_on_subword_tokens_say_which_verdicts_the_tokens_change(store):
    from mope.evidence import claims, standings

    def four_models(nope_gap, preset):  # PE-MORLET 0.13 behind BASE-DOT; NOPE nope_gap behind PE-MORLET
        return [r | {"preset": preset} for s in range(3) for r in (
            run("BASE-DOT", s, 1.60 + 0.003 * s), run("PE-MORLET", s, 1.73 + 0.001 * s),
            run("PE-SINCOS", s, 1.90 + 0.002 * s), run("NOPE", s, 1.73 + nope_gap + 0.002 * s))]
    characters = claims.judge_all("cpu", four_models(0.05, "cpu"))
    text = chapter_runs.verdicts_on_tokens("cpu", characters, "cpu-bpe", claims.judge_all("cpu-bpe", four_models(-0.05, "cpu-bpe")))
    title, *lines = text.splitlines()
    assert title == ("::::{dropdown} The paper's claims on these tokens (`cpu-bpe`, losses in nats a token, their ratios "
                     "to the paper's per character): 2 of 3 keep their verdict on `cpu`; 1 changes: MoPE carries useful "
                     "position: PE-MORLET beats NOPE")
    assert lines[0] == "On `cpu-bpe`:" and lines[-1] == "::::" and lines[-2] == ":::"  # the statistics' dropdown inside
    assert "* MoPE carries useful position: PE-MORLET beats NOPE (ours): **fails**: the other way round" in text
    assert "not run" not in text  # only what the tokens' four models decide
    same = chapter_runs.verdicts_on_tokens("cpu", characters, "cpu-bpe", claims.judge_all("cpu-bpe", four_models(0.05, "cpu-bpe")))
    assert same.splitlines()[0].endswith("3 of 3 keep their verdict on `cpu`")
    assert chapter_runs.verdicts_on_tokens("cpu", characters, "cpu-bpe", claims.judge_all("cpu-bpe", [])) == ""


def test_the_models_page_says_which_model_rests_on_one_seed():
    """Issue 46: ALiBi rests on one seed, and the page listing the models did not say so."""
    runs = ([run("BASE-DOT", s, 1.5) for s in range(3)] + [run("EGA-1", s, 1.5) for s in range(3)]
            + [run("ALIBI", 0, 1.6)])
    said = chapter_runs.seeds_by_model("cpu", runs, ["BASE-DOT", "EGA-1", "ALIBI", "NOPE"])
    assert said == ("On `cpu`, 3 seeds each of BASE-DOT, EGA-1; one seed of ALIBI, which shows a direction only "
                    "(no verdict); not run: NOPE.")
    page = (Path(__file__).resolve().parents[1] / "book" / "variants.md").read_text()
    assert 'chapter_runs.seeds_by_model("cpu", results.load_results("cpu"), list(mope.VARIANTS))' in page


def test_chapter_4_says_where_mope_with_a_causal_gate_stands_though_its_tables_leave_that_model_out(store):
    """Issue 71: chapter 4 reads only Table 2's models, yet its opening says where MoPE with a gate that cannot see
    the future stands at the paper's scale, read from every stored run as the introduction's is (the chapter once
    handed the headline its own runs, so the causal gate's answer would never have reached it)."""
    import mope
    from mope.evidence import claims

    paper = get_preset("paper")
    for seed in (0, 1, 2):
        write_result(run("BASE-DOT", seed, 1.47 + seed / 100, preset=paper))
        write_result(run("EGA-MORLET", seed, 1.36 + seed / 100, preset=paper))
    runs = chapter_runs.load_runs("paper", mope.TABLE_2, presets=("paper",))
    found = {preset: claims.preset_findings(preset, preset_runs) for preset, preset_runs in runs.items()}
    text = chapter_runs.reproduction_found(found, runs)
    assert "whether a gate that cannot see the future keeps that gain there is not known yet" in text
    assert "MoPE's loss is still lower" not in text
    write_result(run("EGA-MORLET-CAUSAL", 0, 1.40, preset=paper))
    runs = chapter_runs.load_runs("paper", mope.TABLE_2, presets=("paper",))
    assert "EGA-MORLET-CAUSAL" not in {r["variant"] for r in runs["paper"]}
    text = chapter_runs.reproduction_found(found, runs)
    assert text.startswith("**At the paper's own scale")  # the published protocol against Table 2 comes first
    assert "With a gate that cannot see the future, MoPE's loss is still lower (one seed only).**" in text
    assert "(EGA-MORLET-CAUSAL), 0.070 below on the whole validation split (one seed;" in text


def test_a_stages_wall_time_is_quoted_from_its_stored_runs():
    """The reproducibility page quotes what a stage of the GPU suite cost from the store (it once typed "262–326 s")."""
    def timed(seconds):
        return {"provenance": {"wall_time_s": seconds}}

    assert run_records.wall_range([timed(325.7), timed(261.5), timed(297.4)]) == "262–326 s"
    assert run_records.wall_range([timed(141.0), timed(141.04)]) == "141 s"
    assert run_records.wall_range([]) == run_records.wall_range([{"provenance": {}}]) == "not stored"
    page = (Path(__file__).resolve().parents[1] / "book" / "reproducibility.md").read_text()
    assert "{eval}`TABLE_2_WALL`" in page and "{eval}`CONTROLS_WALL`" in page and not re.search(r"\d+–\d+ s\b", page)


def test_the_reproducibility_page_opens_with_the_runs_it_shows_and_what_they_cost_on_each_device():
    """The page opened with what it explains, not with what it found: how many runs, all of committed code, and the
    hours of wall time on CPUs and GPUs, with each one's hardware (a stored name shown as text, never as markup)."""
    gpu = run("EGA-1", 0, 1.4, preset=get_preset("paper"))
    gpu["provenance"].update(device="cuda: NVIDIA H200", wall_time_s=1800.0)
    xeon = run("BASE-DOT", 1, 1.5)
    xeon["provenance"].update(device="cpu: Intel(R) Xeon(R) Processor, 1 thread", wall_time_s=36000.0)
    found = run_records.store_found({"cpu": [run("BASE-DOT", 0, 1.5), xeon], "paper": [gpu]})
    assert found == ("**The book's pages show 3 trained runs, every one made from committed code: 10 hours of wall "
                     "time on CPUs (Intel Xeon, test) and 0.5 hours of wall time on GPUs (NVIDIA H200).** "
                     "Each stores its configuration, seed, commit, hardware and wall time, listed below "
                     "({ref}`reproducibility-runs`).")
    odd = run("BASE-DOT", 2, 1.5)
    odd["provenance"]["device"] = "cpu: <b>*x*</b>, 1 thread"
    assert "<b>" not in run_records.store_found({"cpu": [odd]}) and "*x*" not in run_records.store_found({"cpu": [odd]})
    assert run_records.store_found({"cpu": [], "paper": []}).startswith("**No run is stored yet**")
    assert run_records.store_found({"cpu": [xeon]}).startswith("**The book's pages show 1 trained run, every one")
    page = (Path(__file__).resolve().parents[1] / "book" / "reproducibility.md").read_text()
    assert page.index("run_records.store_found(RUNS)") < page.index("Every number of")  # first, above the prose


def test_the_reproducibility_page_says_what_the_machine_that_built_it_reproduces_of_the_reference_run():
    """The page once quoted differences measured by hand on other machines; it now says what the build machine found
    when it made the tests' reference run again: bit for bit, or the largest difference and the first step that
    differs, with the machine (its stored name shown as text) and the tolerance the tests hold."""
    from mope.train import reproduce

    reference = reproduce.load_reference()
    here = {"train_curve": [list(point) for point in reference["train_curve"]],
            "provenance": {"device": "cpu: Intel(R) Xeon(R) Processor, 1 thread", "cpu_capability": "AVX2",
                           "torch": "2.13.0+cpu"}}
    same = run_records.reference_remade(reference, here, 2e-3)
    assert same.startswith("The tests' reference run (PE-MORLET, `smoke` shortened to 60 steps, seed 0, 1 thread), "
                           "stored as made on one CPU (AMD EPYC, AVX512 kernels, torch 2.13.0+cpu), was made again "
                           "on the machine that built this page (Intel Xeon, AVX2 kernels, torch "
                           "2.13.0+cpu): its 60 steps' losses equal the stored ones bit for bit. The tests hold it "
                           "to 0.002 on any CPU")
    here["train_curve"][6][1] += 4.6e-4
    here["provenance"]["device"] = "cpu: <i>x</i>, 1 thread"
    moved = run_records.reference_remade(reference, here, 2e-3)
    assert "it differs by at most 4.6e-04 in a step's loss, first at step 6." in moved and "<i>" not in moved
    assert "(ixi, AVX2 kernels" in moved  # a stored name: no character of markup left in it
    page = (Path(__file__).resolve().parents[1] / "book" / "reproducibility.md").read_text()
    assert "reproduce.remake(REFERENCE" in page and "by hand" not in page
