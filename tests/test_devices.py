"""The paper's protocol on two devices (issue 59): each seed named with how it computed, and the CPU rehearsal of
seed 0 set against the stored GPU run at steps 500 and 1,000."""
from __future__ import annotations

import json

import pytest

from mope.evidence import devices
from mope.store.presets import get_preset
from synthetic_runs import run


def with_device(variant, seed, device, history=None):
    made = run(variant, seed, 1.5, preset=get_preset("paper"), history=history)
    made["provenance"]["device"] = device
    return made


def test_each_seed_is_named_with_the_device_and_precision_it_trained_in():
    runs = [with_device("BASE-DOT", 0, "cuda: NVIDIA H200"), with_device("EGA-MORLET", 0, "cuda: NVIDIA H200"),
            with_device("BASE-DOT", 1, "cpu: Intel Xeon, 1 thread"), with_device("BASE-DOT", 2, "cpu: Intel Xeon, 1 thread")]
    assert devices.seed_devices(runs) == "seed 0: bf16 on cuda: NVIDIA H200; seeds 1, 2: float32 on cpu: Intel Xeon, 1 thread"
    assert devices.seed_devices([]) == ""


def test_a_comparison_across_two_kinds_of_device_says_which_runs_computed_how_and_one_kind_says_nothing():
    h200, xeon, epyc = "cuda: NVIDIA H200", "cpu: Intel Xeon, 1 thread", "cpu: AMD EPYC, 1 thread"
    gpu_only = [with_device("BASE-DOT", s, h200) for s in range(3)] + [with_device("EGA-1", 0, h200)]
    assert devices.mixed_devices_note(gpu_only, ["EGA-1", "BASE-DOT"]) == ""
    two_cpus = [with_device("BASE-DOT", 0, xeon), with_device("EGA-1", 0, epyc)]  # one kind of device: rounding alike
    assert devices.mixed_devices_note(two_cpus, ["EGA-1", "BASE-DOT"]) == ""
    mixed = gpu_only + [with_device("EGA-1-CAUSAL", 0, xeon), with_device("NOPE", 0, epyc)]
    note = devices.mixed_devices_note(mixed, ["EGA-1", "EGA-1-CAUSAL", "BASE-DOT"])
    assert note.startswith("These runs computed on two kinds of device (EGA-1 (seed 0) and BASE-DOT (seeds 0, 1, 2) in "
                           "bf16 on cuda; EGA-1-CAUSAL (seed 0) in float32 on cpu): ")
    assert "NOPE" not in note  # only the models compared are named
    assert devices.mixed_devices_note(mixed, ["NOPE", "BASE-DOT"]).startswith(
        "These runs computed on two kinds of device (BASE-DOT (seeds 0, 1, 2) in bf16 on cuda; NOPE (seed 0) in float32")


def test_a_causal_gate_set_against_a_model_of_another_device_says_how_each_computed():
    """The pages' one-seed sentences at the paper's protocol ("0.035 above the learned table's (...; EGA-MORLET-CAUSAL trained
    in float32 on cpu, BASE-DOT in bf16 on cuda)") name the two arithmetics and the model set against the first; two runs of one kind of device say nothing."""
    h200, epyc = "cuda: NVIDIA H200", "cpu: AMD EPYC, 2 threads"
    runs = [with_device("BASE-DOT", s, h200) for s in range(3)] + [with_device("EGA-MORLET-CAUSAL", 0, epyc)]
    assert devices.against(runs, "EGA-MORLET-CAUSAL", "BASE-DOT") == (
        "EGA-MORLET-CAUSAL trained in float32 on cpu, BASE-DOT in bf16 on cuda")
    assert devices.against(runs, "BASE-DOT", "EGA-MORLET-CAUSAL") == "BASE-DOT trained in bf16 on cuda, EGA-MORLET-CAUSAL in float32 on cpu"
    assert devices.against(runs + [with_device("EGA-MORLET-CAUSAL", 1, h200)], "EGA-MORLET-CAUSAL", "BASE-DOT") == (
        "EGA-MORLET-CAUSAL trained in bf16 on cuda and float32 on cpu, BASE-DOT in bf16 on cuda")
    assert devices.against([with_device("EGA-1", 0, epyc), with_device("EGA-1-CAUSAL", 0, epyc)], "EGA-1-CAUSAL", "EGA-1") == ""
    assert devices.against(runs, "EGA-1-CAUSAL", "BASE-DOT") == ""  # no run of one of them: nothing to compare


def test_the_rehearsal_is_compared_at_the_steps_both_evaluated_and_the_spread_needs_two_seeds(store):
    history = [{"step": s, "lr": 1e-4, "train_loss": 2.0, "val_loss": v} for s, v in ((0, 4.3), (500, 2.14), (1000, 1.78))]
    stored = with_device("BASE-DOT", 0, "cuda: NVIDIA H200", history=history)
    rehearsal = {"history": [{"step": 500, "val_loss": 2.15}, {"step": 1000, "val_loss": 1.77}, {"step": 750, "val_loss": 1.9}]}
    rows = devices.device_comparison(rehearsal, stored)
    assert [(step, round(diff, 4)) for step, _, _, diff in rows] == [(500, 0.01), (1000, -0.01)]
    other = with_device("BASE-DOT", 1, "cpu", history=[{**h, "val_loss": h["val_loss"] + 0.02} for h in history])
    spread, seeds = devices.seed_spread([stored, other], "BASE-DOT", 500)
    assert seeds == 2 and spread == pytest.approx(0.02 / 2 ** 0.5)
    assert devices.seed_spread([stored], "BASE-DOT", 500) is None
    assert devices.load_rehearsal() is None  # none in an empty store
    path = store[0] / devices.REHEARSAL
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(rehearsal))
    assert devices.load_rehearsal() == rehearsal
    path.write_text("{not json")
    assert devices.load_rehearsal() is None  # a damaged record is no comparison, never a crash


def test_a_run_trained_again_is_set_against_the_stored_run_of_its_variant_seed_and_configuration(store, capsys):
    stored = [run("BASE-DOT", 0, 1.50, preset=get_preset("paper")), run("EGA-1", 0, 1.40, preset=get_preset("paper"))]
    again = [run("BASE-DOT", 0, 1.52, preset=get_preset("paper")), run("EGA-1", 1, 1.41, preset=get_preset("paper")),
             run("NOPE", 0, 1.60, preset=get_preset("paper"))]
    rows = devices.rerun_differences(again, stored)
    assert [(v, round(d, 6)) for v, _, _, d in rows] == [("BASE-DOT", 0.02)]  # another seed or model: no pair
    other_config = dict(again[0], config_hash="0" * 16)
    assert devices.rerun_differences([other_config], stored) == []
    folder = store[0] / devices.GPU_AGAIN
    folder.mkdir(parents=True)
    (folder / "BASE-DOT.json").write_text(json.dumps(again[0]))
    (folder / "EGA-1.json").write_text("{ damaged")
    assert devices.load_gpu_again() == [json.loads(json.dumps(again[0]))]
    assert "EGA-1.json" in capsys.readouterr().err  # named and skipped
