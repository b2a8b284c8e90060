"""Shared fixtures: the data location, throw-away results and checkpoint directories, tiny presets; each test's
matplotlib figures closed after it."""
import os
import sys
from pathlib import Path

import pytest
import torch

from mope.store.presets import get_preset

# TinyShakespeare on our machines lies in ../shared/data next to the repository; never copied into it.
os.environ.setdefault("MOPE_DATA_DIR", str(Path(__file__).resolve().parents[2] / "shared" / "data"))
# Test workers share two cores (pytest -n 2): one torch thread each, or OpenMP spin-waits dominate.
torch.set_num_threads(1)


@pytest.fixture(autouse=True)
def close_figures():
    """pyplot keeps every figure a test draws open until it is closed: a worker running many figure tests held over
    20 and matplotlib warned. Each test's are closed after it (a closed figure can still be read and saved)."""
    yield
    pyplot = sys.modules.get("matplotlib.pyplot")  # never imported here by a test that draws nothing
    if pyplot is not None:
        pyplot.close("all")


@pytest.fixture
def store(tmp_path, monkeypatch):
    """Results and checkpoints in a temporary directory, also for subprocesses (via the environment)."""
    results, checkpoints = tmp_path / "results", tmp_path / "checkpoints"
    monkeypatch.setenv("MOPE_RESULTS_DIR", str(results))
    monkeypatch.setenv("MOPE_CHECKPOINT_DIR", str(checkpoints))
    return results, checkpoints


@pytest.fixture
def tiny():
    """The smoke preset cut to a dozen steps with evaluations and checkpoints every few, under its own name."""
    return get_preset("smoke").replace(name="tiny", steps=13, warmup=2, eval_interval=4, checkpoint_interval=3, extrapolation=(2,))


@pytest.fixture
def nan_at_training_call(monkeypatch):
    """``nan_at_training_call(k)``: the k-th training forward pass of any GPT returns a NaN loss."""
    from mope.model.gpt import GPT

    forward = GPT.forward

    def poison(k: int) -> None:
        calls = []

        def poisoned(self, idx, targets=None):
            logits, loss = forward(self, idx, targets)
            if self.training:
                calls.append(1)
                if len(calls) == k:
                    loss = loss * float("nan")
            return logits, loss

        monkeypatch.setattr(GPT, "forward", poisoned)

    return poison


@pytest.fixture
def families_of_the_runs(monkeypatch):
    """No family declared in the plan: each preset's correction runs over the tests its (constructed) runs give, as
    for a reader's own configuration (:func:`mope.store.plan.family`), so that a test of a rule's words or a page's
    layout on a few made-up runs is not decided by the 20 other planned tests counted at p = 1."""
    from mope.store import plan

    monkeypatch.setattr(plan, "FAMILIES", {})


#: Why a test may be skipped on CI's machine: nothing CI lacks (it installs Chromium and builds the book before the
#: tests). Any other skip there fails the run: a test that never runs in CI guards nothing.
EXPECTED_SKIPS_IN_CI: tuple[str, ...] = ("no GPU", "needs CUDA")
_SKIPPED: list[tuple[str, str]] = []


def pytest_runtest_logreport(report):
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        _SKIPPED.append((report.nodeid, reason.removeprefix("Skipped: ")))


def pytest_sessionfinish(session, exitstatus):
    if os.environ.get("CI") != "true" or hasattr(session.config, "workerinput"):  # xdist workers report to the controller
        return
    unexpected = [(test, reason) for test, reason in _SKIPPED
                  if not any(expected in reason for expected in EXPECTED_SKIPS_IN_CI)]
    if unexpected:
        lines = "\n".join(f"  {test}: {reason}" for test, reason in unexpected)
        session.config.get_terminal_writer().line(
            f"\n{len(unexpected)} tests skipped in CI for a reason it should not have (build the book and install "
            f"Chromium first, as .ci/run does):\n{lines}", red=True)
        session.exitstatus = 1
