"""Training: identical batches for every model, bit-exact resumption, stale checkpoints, NaN stops."""
import json
import subprocess

import pytest
import torch

from interruptions import Interrupted, stop_at
from mope.train.data import CharDataset
from mope.errors import UserError
from mope.store.presets import get_preset
from mope.store.results import load_result, result_path
from mope.train.loop import NonFiniteLoss, checkpoint_path, train


def test_every_variant_sees_the_same_batches(tiny, store, monkeypatch):
    seen = []
    original_batch, original_eval = CharDataset.batch, CharDataset.eval_batch

    def spy(method):
        def recorded(self, *args, **kwargs):
            x, y = method(self, *args, **kwargs)
            seen[-1].append(x.clone())
            return x, y
        return recorded

    monkeypatch.setattr(CharDataset, "batch", spy(original_batch))
    monkeypatch.setattr(CharDataset, "eval_batch", spy(original_eval))
    short = tiny.replace(steps=5, eval_interval=4, extrapolation=())
    for variant, seed in [("BASE-DOT", 0), ("EGA-MORLET", 0), ("BASE-DOT", 1)]:
        seen.append([])
        train(variant, short, seed, progress=False)
    base, morlet, other_seed = seen
    assert len(base) >= short.steps and len(base) == len(morlet) == len(other_seed)  # every batch recorded
    assert all(torch.equal(a, b) for a, b in zip(base, morlet))
    assert not any(torch.equal(a, b) for a, b in zip(base, other_seed))


def test_resumed_run_equals_uninterrupted_run(tiny, store):
    results, checkpoints = store
    reference = train("PE-MORLET", tiny, 0, results_root=results / "reference", progress=False)
    assert torch.equal(torch.tensor(reference["train_curve"]),
                       torch.tensor(train("PE-MORLET", tiny, 0, results_root=results / "again",
                                          progress=False)["train_curve"]))

    with pytest.raises(Interrupted):  # killed during step 7: the last checkpoint holds steps 0..5
        train("PE-MORLET", tiny, 0, on_step=stop_at(7), progress=False)
    checkpoint = checkpoint_path(tiny, "PE-MORLET", 0)
    assert checkpoint.is_file() and load_result(tiny, "PE-MORLET", 0) is None
    steps = []
    resumed = train("PE-MORLET", tiny, 0, on_step=steps.append, progress=False)
    assert steps[0] == 6 and not checkpoint.exists()
    for key in ("history", "train_curve", "final", "learned", "config_hash", "num_parameters"):
        assert resumed[key] == reference[key], key
    assert json.loads(result_path(tiny, "PE-MORLET", 0).read_text())["final"] == reference["final"]


def test_a_run_resumed_under_another_checkpoint_interval_equals_the_uninterrupted_run(tiny, store):
    """The interval is a runtime setting (a long run restarted between sessions saves more often), never a number."""
    results, _ = store
    reference = train("EGA-1", tiny, 0, results_root=results / "reference", progress=False)
    with pytest.raises(Interrupted):  # checkpoints every 3 steps: killed during step 7, resumed from step 6
        train("EGA-1", tiny, 0, on_step=stop_at(7), progress=False)
    steps = []
    often = tiny.replace(checkpoint_interval=2)
    with pytest.raises(Interrupted):  # now every 2 steps: stopped after step 9, checkpointed after it (every 3: after 8)
        train("EGA-1", often, 0, on_step=lambda step: (steps.append(step), stop_at(9)(step)), progress=False)
    assert steps[0] == 6
    resumed_at = []
    resumed = train("EGA-1", tiny, 0, on_step=resumed_at.append, progress=False)
    assert resumed_at[0] == 10
    for key in ("history", "train_curve", "final", "config_hash"):
        assert resumed[key] == reference[key], key


def test_a_run_resumed_on_another_machine_records_each_stretch_of_its_steps_and_one_resumed_in_place_none(
        tiny, store, monkeypatch):
    from mope.store.result_schema import schema_problem
    from mope.train import loop

    with pytest.raises(Interrupted):  # killed during step 7: the checkpoint holds steps 0..5
        train("BASE-DOT", tiny, 0, on_step=stop_at(7), progress=False)
    here = torch.load(checkpoint_path(tiny, "BASE-DOT", 0), weights_only=True)["segments"]
    assert [(s["from_step"], s["to_step"]) for s in here] == [(0, 6)] and here[0]["device"] == loop.describe_device(
        torch.device("cpu"))
    in_place = train("BASE-DOT", tiny, 0, progress=False)
    assert "segments" not in in_place["provenance"]  # one machine, one commit: the provenance says it all

    with pytest.raises(Interrupted):
        train("EGA-1", tiny, 0, on_step=stop_at(7), progress=False)
    with monkeypatch.context() as elsewhere, pytest.raises(Interrupted):
        elsewhere.setattr(loop, "describe_device", lambda device: "cpu: another CPU, 1 thread")
        train("EGA-1", tiny, 0, on_step=stop_at(10), progress=False)  # resumed at step 6; checkpointed after step 8
    resumed = train("EGA-1", tiny, 0, progress=False)  # back on the first machine from step 9
    segments = resumed["provenance"]["segments"]
    assert [(s["from_step"], s["to_step"], s["device"] == "cpu: another CPU, 1 thread") for s in segments] == [
        (0, 6, False), (6, 9, True), (9, tiny.steps, False)]
    assert segments[-1]["device"] == resumed["provenance"]["device"]
    assert schema_problem(json.loads(result_path(tiny, "EGA-1", 0).read_text())) is None


def test_a_checkpoint_from_before_runs_kept_their_stretches_resumes_with_its_steps_not_recorded(tiny, store):
    with pytest.raises(Interrupted):
        train("PE-ROPE", tiny, 0, on_step=stop_at(7), progress=False)
    path = checkpoint_path(tiny, "PE-ROPE", 0)
    older = torch.load(path, weights_only=True)
    del older["segments"]
    torch.save(older, path)
    segments = train("PE-ROPE", tiny, 0, progress=False)["provenance"]["segments"]
    assert segments[0] == {"from_step": 0, "to_step": 6} and (segments[1]["from_step"], segments[1]["to_step"]) == (6, tiny.steps)


def test_stretches_that_do_not_cover_the_steps_one_after_another_make_a_result_invalid():
    from mope.store.result_schema import schema_problem
    from synthetic_runs import run

    stored = json.loads(json.dumps(run("BASE-DOT", 0, 1.5, preset=get_preset("paper"))))  # as a file holds it
    for ends, fine in (([(0, 850), (850, 5001)], True), ([(0, 850), (900, 5001)], False),
                       ([(0, 850), (850, 4000)], False), ([(10, 850), (850, 5001)], False), ([(0, 0), (0, 5001)], False)):
        stored["provenance"]["segments"] = [{"from_step": a, "to_step": b} for a, b in ends]
        problem = schema_problem(stored)
        assert (problem is None) == fine, (ends, problem)
        assert fine or "provenance.segments" in problem


def test_the_suite_passes_a_changed_checkpoint_interval_to_each_run_and_the_preset_stays_the_same():
    from mope.cli import build_parser
    from mope.store.presets import command_line_preset
    from mope.train.suite import run_command

    paper = get_preset("paper")
    often = paper.replace(checkpoint_interval=50)
    assert command_line_preset(often) is paper and command_line_preset(often.replace(compile=True)) is paper
    command = run_command(often, "EGA-1-CAUSAL", 0, None, 1, None)
    assert command[command.index("--checkpoint-interval") + 1] == "50" and command[command.index("--preset") + 1] == "paper"
    assert "--checkpoint-interval" not in run_command(paper, "EGA-1-CAUSAL", 0, None, 1, None)
    args = build_parser().parse_args(["train", "BASE-DOT", "--preset", "paper", "--checkpoint-interval", "50"])
    assert args.checkpoint_interval == 50
    with pytest.raises(SystemExit):
        build_parser().parse_args(["suite", "--checkpoint-interval", "0"])


def test_checkpoint_of_another_configuration_is_neither_resumed_nor_touched(tiny, store):
    with pytest.raises(Interrupted):
        train("BASE-DOT", tiny, 0, on_step=stop_at(4), progress=False)
    interrupted = checkpoint_path(tiny, "BASE-DOT", 0)
    before = interrupted.read_bytes()
    steps = []
    other = tiny.replace(lr=2e-3)
    train("BASE-DOT", other, 0, on_step=steps.append, progress=False)
    assert steps[0] == 0 and checkpoint_path(other, "BASE-DOT", 0) != interrupted
    assert interrupted.read_bytes() == before  # kept for the run it belongs to


def test_result_records_the_extrapolation_and_the_causal_statistics(tiny, store):
    short = tiny.replace(steps=3, warmup=1, eval_interval=2, extrapolation=(2, 4))
    learned = train("EGA-1", short, 0, progress=False)["final"]
    assert learned["val_loss_full_by_context"]["2x"] is None and learned["val_loss_full_by_context"]["4x"] is None
    assert learned["extrapolation_note"] == f"learned position table has {short.block_size} rows"
    assert learned["val_loss_full_causal_stats"] > 0 and learned["val_loss_full"] > 0
    rope = train("ROPE-ONLY", short, 0, progress=False)["final"]
    assert rope["val_loss_full_by_context"]["4x"] > 0 and rope["extrapolation_note"] is None
    assert rope["val_loss_full_causal_stats"] is None


def test_non_finite_loss_stops_the_run(tiny, store, nan_at_training_call):
    nan_at_training_call(4)
    with pytest.raises(NonFiniteLoss, match=r"nan at step 3 of NOPE \(preset tiny, seed 0\)") as stopped:
        train("NOPE", tiny, 0, progress=False)
    assert load_result(tiny, "NOPE", 0) is None
    # run again as it is, it diverges at the same step: the message names what to change
    assert "stops at the same step" in str(stopped.value)
    assert all(remedy in str(stopped.value) for remedy in ("--seed", "learning rate", "--autocast bf16"))


def test_unknown_variant_lists_the_valid_ones(tiny, store):
    with pytest.raises(ValueError, match="valid variants: BASE-DOT"):
        train("BASE-DOTT", tiny, 0, progress=False)


def test_paper_schedule_and_preset_errors():
    from mope.store.presets import PRESETS, get_preset

    paper = get_preset("paper")
    assert (paper.steps, paper.batch_size, paper.block_size, paper.eval_interval, paper.eval_batches) == (5001, 64, 256, 500, 50)
    assert paper.lr_at(0) == 0.0 and paper.lr_at(150) == pytest.approx(1.5e-4)
    assert paper.lr_at(300) == pytest.approx(3e-4) and paper.lr_at(2650) == pytest.approx(1.5e-4)
    assert paper.lr_at(5000) == 0.0
    for preset in PRESETS.values():  # one schedule shape for all: warm-up, then cosine to exactly 0
        assert preset.lr_at(0) == 0.0 and preset.lr_at(preset.warmup) == preset.lr
        assert preset.lr_at(preset.steps - 1) == 0.0 and preset.is_eval_step(preset.steps - 1)
    with pytest.raises(ValueError, match=f"valid presets: {', '.join(PRESETS)}"):
        get_preset("laptop")
    with pytest.raises(ValueError, match="valid choices: bf16, fp16"):
        paper.replace(autocast="fp32")


def committed_checkout(folder):
    """``folder`` as a git checkout holding one committed file, model.py (returned)."""
    folder.mkdir(exist_ok=True)
    (folder / "model.py").write_text("weights = 1\n")
    for args in (["init", "-q"], ["add", "model.py"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "code"]):
        subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True)
    return folder / "model.py"


def test_provenance_counts_code_changes_as_dirty_but_not_stored_results(tmp_path):
    from mope.store.code_version import source_state

    code = committed_checkout(tmp_path)
    (tmp_path / "results" / "cpu" / "NOPE").mkdir(parents=True)
    (tmp_path / "results" / "cpu" / "NOPE" / "seed0.json").write_text("{}")  # a run finished before this one
    commit, dirty = source_state(tmp_path)
    assert len(commit) == 40 and not dirty
    code.write_text("weights = 2\n")
    assert source_state(tmp_path)[1]


def test_a_run_of_the_books_evidence_is_refused_from_uncommitted_code(tmp_path):
    from mope.store.code_version import check_committed

    repo, plain = tmp_path / "repo", tmp_path / "plain"
    code = committed_checkout(repo)
    plain.mkdir()
    check_committed(get_preset("cpu"), repo)  # clean: no complaint
    code.write_text("weights = 2\n")
    with pytest.raises(UserError, match="preset 'cpu' stores the book's evidence.*uncommitted changes.*--steps N"):
        check_committed(get_preset("cpu"), repo)
    check_committed(get_preset("smoke"), repo)  # a toy or custom run is the user's own
    check_committed(get_preset("cpu").shortened(5), repo)
    with pytest.raises(UserError, match="neither a git checkout nor stamped"):
        check_committed(get_preset("paper"), plain)


def test_a_copy_without_git_records_the_commit_of_its_stamp_and_whether_it_changed(tmp_path):
    import shutil

    from mope.store.code_version import REPO_ROOT, STAMP, check_committed, source_state, write_stamp

    repo, copy = tmp_path / "repo", tmp_path / "copy"
    code = committed_checkout(repo)
    (repo / "mope").mkdir()
    (repo / "mope" / "model.py").write_text("layers = 4\n")
    (repo / ".gitignore").write_text(f"/{STAMP}\n")  # as in this repository:
    assert subprocess.run(["git", "check-ignore", "-q", STAMP], cwd=REPO_ROOT).returncode == 0
    subprocess.run(["git", "add", "mope", ".gitignore"], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "package"], cwd=repo, check=True)
    code.write_text("weights = 2\n")
    with pytest.raises(UserError, match="uncommitted changes"):
        write_stamp(repo)  # a stamp describes a commit, never a dirty tree
    code.write_text("weights = 1\n")
    write_stamp(repo)
    commit, dirty = source_state(repo)
    assert len(commit) == 40 and not dirty
    shutil.copytree(repo, copy, ignore=shutil.ignore_patterns(".git"))
    assert source_state(copy) == (commit, False)
    check_committed(get_preset("paper"), copy)
    (copy / "results").mkdir()
    (copy / "results" / "seed0.json").write_text("{}")  # outputs do not count
    assert source_state(copy) == (commit, False)
    (copy / "mope" / "extra.py").write_text("import os\n")  # an added module changes what runs
    assert source_state(copy) == (commit, True)
    (copy / "mope" / "extra.py").unlink()
    (copy / "mope" / "model.py").write_text("layers = 5\n")  # so does an edited one
    assert source_state(copy) == (commit, True)
    with pytest.raises(UserError, match="uncommitted changes"):
        check_committed(get_preset("paper"), copy)
    (copy / STAMP).write_text("not json")
    assert source_state(copy) == ("unknown", True)
    for forged in ({"commit": commit, "files": ["mope/model.py"]}, {"commit": [commit], "files": {}},
                   {"commit": "HEAD", "files": {}}, {"commit": commit, "files": {"mope/model.py": 1}}):
        (copy / STAMP).write_text(json.dumps(forged))  # not what write_stamp writes: says nothing of the code
        assert source_state(copy) == ("unknown", True), forged
