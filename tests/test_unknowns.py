"""The page "What the book does not know yet" (book/unknowns.md): the missing runs of the paper's plan, what each
would decide and why it is missing, and the runs in progress beside the stored curves, marked in progress with no
verdict. Every number it shows is computed from the store, the plan, the claims document and the records of runs in
progress; these tests hold each to its source."""
from __future__ import annotations

import re
from pathlib import Path

import matplotlib.pyplot as plt
import pytest
import yaml

from mope.book import unknowns
from mope.book.figure_style import COLUMN_WIDTH
from mope.evidence import bottom_line, claims, devices, measures
from mope.store import in_progress, plan, results
from mope.store.presets import get_preset
from mope.train.loop import CURVE_EVERY
from synthetic_runs import run

ROOT = Path(__file__).resolve().parents[1]
PAPER = get_preset("paper")


def paper_run(variant, seed, val, history=None, device="cuda: NVIDIA H200"):
    stored = run(variant, seed, val, preset="paper", history=history)
    stored["provenance"]["device"] = device
    return stored


def evaluations(values, every=500):
    return [{"step": i * every, "lr": 0.0, "train_loss": v, "val_loss": v} for i, v in enumerate(values)]


def progress_record(step=1250, values=(4.2, 2.3, 1.9), seconds=4.8, device="cpu: AMD EPYC, 2 threads"):
    """A valid record of EGA-MORLET-CAUSAL seed 0 of `paper` in progress, as `python -m mope progress` writes one."""
    record = {
        "schema": 1, "kind": "in_progress", "preset": "paper", "variant": "EGA-MORLET-CAUSAL", "seed": 0,
        "config_hash": results.expected_hash("paper", "EGA-MORLET-CAUSAL"), "step": step, "steps": PAPER.steps,
        "evaluations": [{"step": e["step"], "train_loss": e["train_loss"], "val_loss": e["val_loss"]}
                        for e in evaluations(values)],
        "train_curve": [[s, 2.0] for s in range(0, step, CURVE_EVERY)],
        "timing": {"seconds_per_step": seconds, "train_time_s": seconds * step, "wall_time_s": 1.2 * seconds * step,
                   "measured_over": f"the checkpoint's training time over its {step:,} steps, in 1 stretch"},
        "started": "2026-12-06T05:40:00+00:00",
        "segments": [{"from_step": 0, "to_step": step, "git_commit": "97c41458ad4996404093efa6f8e88bd19e821d0f",
                      "git_dirty": False, "device": device, "cpu_capability": "AVX512", "threads": 2, "torch": "2.13.0"}],
        "checkpoint_saved": "2026-12-06T07:20:00+00:00", "written": "2026-12-06T07:21:00+00:00",
    }
    assert in_progress.record_problem(record) is None
    return record


@pytest.fixture
def headline_runs():
    """`paper` with Table 2's seed 0 and the headline's three seeds: the causal gates and the rest not stored."""
    runs = [paper_run(v, 0, 1.45) for v in ("PE-SINCOS", "PE-ROPE", "PE-MORLET", "EGA-1", "NOPE", "PE-SINCOS-SCALED")]
    runs += [paper_run("BASE-DOT", s, 1.47 + s / 100, evaluations((4.2, 2.0, 1.8 + s / 100))) for s in (0, 1, 2)]
    runs += [paper_run("EGA-MORLET", s, 1.36 + s / 100, evaluations((4.2, 2.1, 1.9 + s / 100))) for s in (0, 1, 2)]
    return runs


def records_of(runs):
    return {claim.key: claims.record(claim, verdict) for claim, verdict in claims.preset_findings("paper", runs)}


def test_the_missing_runs_are_the_plans_less_the_stored_ones_the_causal_gates_first(headline_runs):
    gaps = unknowns.missing(headline_runs)
    planned = plan.planned_seeds("paper")
    assert list(gaps)[:2] == ["EGA-MORLET-CAUSAL", "EGA-1-CAUSAL"]
    assert gaps["EGA-MORLET-CAUSAL"] == list(planned["EGA-MORLET-CAUSAL"]) and "BASE-DOT" not in gaps
    assert gaps["EGA-1"] == [s for s in planned["EGA-1"] if s != 0]
    assert unknowns.missing([*headline_runs, *(paper_run(v, s, 1.4) for v, seeds in gaps.items() for s in seeds)]) == {}


def test_the_opening_names_the_causal_gates_what_they_decide_and_why_they_are_missing(headline_runs):
    records = records_of(headline_runs)
    text = unknowns.answer(records, headline_runs, [])
    gain = sum(r["final"]["val_loss"] for r in headline_runs if r["variant"] == "BASE-DOT") / 3 \
        - sum(r["final"]["val_loss"] for r in headline_runs if r["variant"] == "EGA-MORLET") / 3
    assert text.startswith("**The book does not know yet whether the paper's headline survives a gate that cannot see")
    assert f"MoPE's loss is {gain:.3f} below the learned table's there (`paper`, 3 seeds" in text
    assert "EGA-MORLET-CAUSAL, seeds 0, 1 and 2: " + unknowns.QUESTIONS["EGA-MORLET-CAUSAL"] in text
    assert "EGA-1-CAUSAL, seeds 0, 1 and 2: " + unknowns.QUESTIONS["EGA-1-CAUSAL"] in text
    assert f"“{claims.get_claim('gain-survives-causal-gate').words}” (now: not run)" in text
    assert "trained the stages `table2-seed0`, `headline-seeds12` of `scripts/gpu_suite.sh`, not `causal-seed0`" in text
    # with no run in training, the rehearsal's pace is a floor: its models' steps cost less than a causal gate's
    assert f"a run takes more than {bottom_line.cpu_hours()}," in text
    assert "No record of a causal gate in training is stored." in text


def test_the_opening_says_how_far_the_run_in_training_has_come(headline_runs):
    record = progress_record(step=1250, seconds=4.8)
    text = unknowns.answer(records_of(headline_runs), headline_runs, [record])
    hours = (PAPER.steps - 1250) * 4.8 / 3600
    assert (f"In training now: EGA-MORLET-CAUSAL seed 0, step 1,250 of {PAPER.steps:,} (about {hours:.0f} hours of "
            "steps left; below, in progress, no verdict).") in text
    # a causal gate's run costs what the run in training measures, not the rehearsal's cheaper models
    segment = record["segments"][-1]
    where = f"{segment['threads']} thread{'s' if segment['threads'] > 1 else ''} on {segment['device'].split(': ')[1].split(',')[0]}"
    assert (f"a run takes about {PAPER.steps * 4.8 / 3600:.0f} hours on a CPU, at the 4.8 s a step the run in training "
            f"(EGA-MORLET-CAUSAL, {where}) has averaged, longer than a working session") in text
    assert bottom_line.cpu_hours() not in text  # the model and where it computes, named
    one = {**record, "segments": [{**segment, "threads": 1, "device": "cpu: Intel(R) Xeon(R) Processor, 1 thread"}]}
    assert "(EGA-MORLET-CAUSAL, 1 thread on Intel Xeon) has averaged" in unknowns.cpu_cost(one)


def test_with_no_run_in_training_a_causal_gate_stored_from_a_cpu_gives_the_hours_a_run_takes(headline_runs):
    """A causal gate's whole run, once one is stored from a CPU, says what a run costs there better than the
    rehearsal's cheaper models: its wall time, its threads and its CPU; a run stored from a GPU says nothing of it."""
    cpu_run = paper_run("EGA-MORLET-CAUSAL", 0, 1.50, device="cpu: AMD EPYC, 2 threads")
    cpu_run["provenance"].update(wall_time_s=72842.3, threads=2)
    text = unknowns.answer(records_of(headline_runs + [cpu_run]), headline_runs + [cpu_run], [])
    assert ("without one a run takes about 20 hours on a CPU, as EGA-MORLET-CAUSAL seed 0 did (2 threads on AMD "
            "EPYC), longer than a working session") in text
    gpu_run = paper_run("EGA-MORLET-CAUSAL", 0, 1.50)
    gpu_run["provenance"].update(wall_time_s=400.0)
    assert unknowns.cpu_cost(None, headline_runs + [gpu_run]) == unknowns.cpu_cost(None, headline_runs)
    assert "as EGA-MORLET-CAUSAL" not in unknowns.cpu_cost(None, headline_runs + [gpu_run])
    # a run resumed on a CPU after a GPU's stretch: its wall time is not a CPU's
    both = paper_run("EGA-MORLET-CAUSAL", 0, 1.50, device="cpu: AMD EPYC, 2 threads")
    both["provenance"].update(wall_time_s=9000.0, segments=[
        {"from_step": 0, "to_step": 4000, "device": "cuda: NVIDIA H200"},
        {"from_step": 4000, "to_step": 5001, "device": "cpu: AMD EPYC, 2 threads"}])
    assert unknowns.cpu_cost(None, headline_runs + [both]) == unknowns.cpu_cost(None, headline_runs)
    # the run in training, where there is one, still sets the pace
    assert "has averaged" in unknowns.cpu_cost(progress_record(), [cpu_run])


def test_once_a_seed_of_the_causal_gates_is_stored_the_opening_says_what_it_finds_and_that_one_seed_cannot_test(
        headline_runs):
    """Issue 71: seed 0 of each causal gate trained on the CPU: the opening gives what they find (the share EGA-1's
    causal gate keeps, MoPE with it against the learned table), that one seed is too few to test, the seeds missing,
    and the GPU stages that would train them (a stage the CPU trained is not counted as GPU time)."""
    runs = headline_runs + [paper_run("EGA-1-CAUSAL", 0, 1.42, device="cpu: AMD EPYC, 2 threads"),
                            paper_run("EGA-MORLET-CAUSAL", 0, 1.40, device="cpu: AMD EPYC, 2 threads")]
    text = unknowns.answer(records_of(runs), runs, [])
    share = (1.47 - 1.42) / (1.47 - 1.45)
    assert text.startswith("**At the paper's scale, the book has a gate that cannot see the future on one seed "
                           "only, too few to test.** There (`paper`: ")
    assert (f"retrained with a gate that sees only the past (whole validation split), EGA-1 keeps {share:.0%} of its gain "
            "over BASE-DOT (+0.050 against +0.020, one seed only: above 50%, the claim's way; EGA-1-CAUSAL trained in "
            "float32 on cpu, EGA-1 in float32 on cuda); MoPE with that gate (EGA-MORLET-CAUSAL) has a loss 0.070 below "
            "the learned table's (BASE-DOT; one seed only; EGA-MORLET-CAUSAL trained in float32 on cpu, BASE-DOT in "
            "float32 on cuda).") in text  # a GPU's runs beside a CPU's, each model named with its device
    assert "Missing: EGA-MORLET-CAUSAL, seeds 1 and 2: " in text and "EGA-1-CAUSAL, seeds 1 and 2: " in text
    assert ("trained the stages `table2-seed0`, `headline-seeds12` of `scripts/gpu_suite.sh`, not `causal-seeds12`, "
            "the first that trains one of them;") in text


def test_once_the_causal_gates_are_stored_the_opening_says_so(headline_runs):
    runs = headline_runs + [paper_run(v, s, 1.4) for v in unknowns.CAUSAL for s in (0, 1, 2)]
    assert unknowns.answer(records_of(runs), runs, []).startswith("**Every causal gate the plan trains")


def test_each_missing_model_lists_the_open_claims_of_the_papers_family_that_name_it(headline_runs):
    records = records_of(headline_runs)
    listed = unknowns.missing_list(records, headline_runs)
    pe_morlet = next(line for line in listed.splitlines() if line.startswith("- **PE-MORLET**"))
    assert "“PE-ROPE beats PE-MORLET” (now: one seed only" in pe_morlet
    assert "grows with the context" not in pe_morlet  # a claim across two scales is judged on its own
    assert "Planned for a GPU (stages `table2-seed1`, `table2-seed2` of `scripts/gpu_suite.sh`)." in pe_morlet
    nodecay = next(line for line in listed.splitlines() if line.startswith("- **PE-MORLET-NODECAY**"))
    assert "“The optimizer pushes every pair onto ωσ = 5” (now: not run)" in nodecay  # a count: no family holds it
    assert "EGA-1-CAUSAL** (" not in listed and unknowns.names_model("EGA-1-CAUSAL's gain", "EGA-1") is False


def test_a_run_in_progress_is_shown_with_its_step_evaluations_and_seconds_a_step_its_device_as_text(headline_runs):
    record = progress_record(values=(4.2, 2.3, 1.95), device="cpu: <img src=x> *AMD*, 2 threads")
    text = unknowns.progress_lines([record], headline_runs)
    base = sum(1.8 + s / 100 for s in (0, 1, 2)) / 3
    mope = sum(1.9 + s / 100 for s in (0, 1, 2)) / 3
    assert text.startswith(f"- **EGA-MORLET-CAUSAL seed 0** (in progress, no verdict): step 1,250 of {PAPER.steps:,}, "
                           "3 evaluations, its last evaluation, at step 1,000, a validation loss of 1.950 (at that "
                           f"step, stored: EGA-MORLET {mope:.3f}; BASE-DOT {base:.3f}, mean over seeds). 4.80 s a step: "
                           "the checkpoint's training time over its 1,250 steps, in 1 stretch.")
    assert r"on cpu: \<img src=x\> \*AMD\*, 2 threads from commit `97c4145`" in text
    assert "Record written 2026-12-06T07:21:00+00:00" in text


def test_without_a_record_the_page_says_none_is_in_progress(headline_runs):
    assert unknowns.progress_lines([], headline_runs).startswith("No run of `paper` is in progress: no record is stored")
    fig = unknowns.plot_in_progress([], headline_runs)
    assert fig.axes[0].get_title() == "no run of 'paper' in progress"
    assert {line.get_label() for line in fig.axes[0].get_lines()} == {"EGA-MORLET (stored, 3 seeds)", "BASE-DOT (stored, 3 seeds)"}
    plt.close(fig)


def test_the_figure_marks_the_run_in_progress_and_fits_the_column(headline_runs):
    record = progress_record()
    fig = unknowns.plot_in_progress([record], headline_runs)
    ax = fig.axes[0]
    assert ax.get_title() == f"EGA-MORLET-CAUSAL seed 0: in progress,\nstep 1,250 of {PAPER.steps:,}, no verdict"
    assert fig.get_size_inches()[0] == pytest.approx(COLUMN_WIDTH) and ax.get_xlim() == (0, PAPER.steps)
    lines = {line.get_label(): line for line in ax.get_lines()}
    progress = lines["EGA-MORLET-CAUSAL (in progress)"]
    assert list(progress.get_xdata()) == [500, 1000] and list(progress.get_ydata()) == [2.3, 1.9]  # step 0 left out
    assert {"EGA-MORLET (stored, 3 seeds)", "BASE-DOT (stored, 3 seeds)"} <= set(lines)
    plt.close(fig)


def test_each_causal_gate_in_progress_is_set_beside_its_published_gate_and_the_learned_table(headline_runs):
    """EGA-1-CAUSAL's curve and last evaluation beside EGA-1's and BASE-DOT's, EGA-MORLET-CAUSAL's beside
    EGA-MORLET's and BASE-DOT's: each gate against the published model it is the control of."""
    record = {**progress_record(step=1250, values=(4.2, 2.3, 1.9)), "variant": "EGA-1-CAUSAL",
              "config_hash": results.expected_hash("paper", "EGA-1-CAUSAL")}
    stored = [r for r in headline_runs if r["variant"] != "EGA-1"] + [paper_run("EGA-1", 0, 1.37, evaluations((4.2, 2.0, 1.7)))]
    fig = unknowns.plot_in_progress([record, progress_record()], stored)
    first, second = ({line.get_label() for line in ax.get_lines()} for ax in fig.axes[:2])
    assert {"EGA-1 (stored, 1 seed)", "BASE-DOT (stored, 3 seeds)", "EGA-1-CAUSAL (in progress)"} <= first
    assert not any(label.startswith("EGA-MORLET") for label in first)
    assert {"EGA-MORLET (stored, 3 seeds)", "BASE-DOT (stored, 3 seeds)", "EGA-MORLET-CAUSAL (in progress)"} <= second
    assert not any(label.startswith("EGA-1") for label in second)
    plt.close(fig)
    assert "(at that step, stored: EGA-1 1.700; BASE-DOT 1.810, mean over seeds)" in unknowns.progress_lines([record], stored)


def test_the_page_on_the_committed_store_shows_only_computed_numbers():
    """The opening on the committed store and records: every number in it is one the store, the plan, the claims
    document, the rehearsal or a record of a run in progress gives (code in backticks aside)."""
    runs = results.load_results("paper")
    records = records_of(runs)
    progress = in_progress.scan_in_progress("paper").records or [progress_record()]
    text = unknowns.answer(records, runs, progress)
    headline = records["ega-mope-gain"]
    allowed = {f"{abs(bottom_line.lower_by(headline, 'EGA-MORLET')):.3f}", str(headline["n"]),
               str(PAPER.n_layer), str(PAPER.block_size),
               f"{PAPER.steps * PAPER.batch_size * PAPER.block_size / 1e6:.1f}M",
               bottom_line.cpu_hours().split()[0], *(str(s) for seeds in unknowns.missing(runs).values() for s in seeds)}
    causal = bottom_line.causal_mope_gain({"paper": runs})  # MoPE with a past-only gate, once it is stored
    if causal.n:
        allowed.add(f"{abs(causal.mean):.3f}")
    for pair in (("EGA-MORLET-CAUSAL", "BASE-DOT"), ("EGA-1-CAUSAL", "EGA-1")):  # "float32 on cpu, EGA-1 in bf16 ..."
        allowed |= set(re.findall(r"\d+", devices.against(runs, *pair)))
    for run in runs:  # a causal gate trained on a CPU: the hours it took, its threads and seed
        if run["variant"] in unknowns.CAUSAL and run["provenance"].get("wall_time_s"):
            allowed |= {f"{run['provenance']['wall_time_s'] / 3600:.0f}", str(run["provenance"].get("threads")),
                        str(run["seed"])}
    share = records.get("gain-survives-causal-gate", {})
    if share.get("n"):  # the share EGA-1's past-only gate keeps: the record's, its two gains, its plain words' threshold
        published, retrained = measures.common_gains(runs, "EGA-1", "EGA-1-CAUSAL", "BASE-DOT")
        allowed |= {bottom_line.percent(share["ours"]).strip("%").replace("−", ""),
                    *(f"{abs(sum(g.values()) / len(g)):.3f}" for g in (published, retrained)),
                    *re.findall(r"\d+(?:\.\d+)?", share["plain"])}
    for record in progress:
        allowed |= {f"{record['step']:,}", f"{record['steps']:,}", str(record["seed"]),
                    f"{unknowns.hours_left(record):.0f}", f"{record['timing']['seconds_per_step']:.1f}",
                    f"{record['steps'] * record['timing']['seconds_per_step'] / 3600:.0f}"}
    prose = re.sub(r"`[^`]*`", "", text.replace("EGA-1", "EGA-one"))
    assert set(re.findall(r"\d(?:[\d,]*\d)?(?:\.\d+)?M?", prose)) <= allowed
    assert devices.load_rehearsal() is not None  # the hours are the rehearsal's, not "many hours"


def test_the_page_is_in_the_back_matter_and_reads_the_records_and_the_claims_document():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    back = next(part for part in toc["parts"] if part["caption"] == "Back matter")
    assert {"file": "book/unknowns"} in back["chapters"]
    assert not any({"file": "book/unknowns"} in part["chapters"] for part in toc["parts"] if part.get("numbered"))
    page = (ROOT / "book" / "unknowns.md").read_text()
    assert "(book-unknowns)=\n# What the book does not know yet" in page
    assert "in_progress.scan_in_progress(\"paper\")" in page and "claims.preset_findings(\"paper\", RUNS)" in page
    assert "{ref}`book-unknowns`" in (ROOT / "book" / "intro.md").read_text()
    assert "(open-questions)=\n# Paper's open questions\n" in (ROOT / "notebooks" / "07_open_questions.md").read_text()
