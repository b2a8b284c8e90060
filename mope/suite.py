"""Running many trainings: every (variant, seed) of a suite that the store does not hold yet.

``ensure_results`` asks the store (:func:`mope.results.check_file`) about each run. A current run is
reused; a stale or invalid file is set aside (renamed, never deleted) with a one-line notice, and
the run is trained again. With ``jobs > 1`` each run is its own ``python -m mope train`` process,
``jobs`` at a time, one torch thread each on the CPU (two jobs on two cores), one GPU per slot on a
multi-GPU machine.

Interruption: SIGINT (Ctrl-C) and SIGTERM stop the child processes this suite started and remove
their log files; each child keeps its last checkpoint, so the next suite resumes it.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import torch
from tqdm import tqdm

from mope.errors import ConfigError, UserError
from mope.presets import TrainConfig, command_line_preset, get_preset
from mope.results import check_file, folder_config, load_result, result_path, results_root, set_aside
from mope.training import train


class Terminated(KeyboardInterrupt):
    """SIGTERM, turned into an exception so that the suite's clean-up runs."""


@contextmanager
def sigterm_raises():
    """Within the block, SIGTERM raises :class:`Terminated` (in the main thread) instead of killing at once."""
    def handler(signum, frame):
        raise Terminated(f"terminated by signal {signum}")

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave the default
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def needs_training(preset: TrainConfig, variant: str, seed: int, root=None) -> bool:
    """Whether (variant, seed) must be trained; a stale or invalid file is set aside first."""
    path = result_path(preset, variant, seed, root)
    if not path.is_file():
        return True
    data, reason, stale = check_file(path, folder_config(preset))
    if data is not None:
        return False
    moved = set_aside(path)
    kind = "stale" if stale else "invalid"
    print(f"notice: {kind} {path} ({reason}): moved to {moved.name}, training again", file=sys.stderr)
    return True


def run_command(preset: TrainConfig, variant: str, seed: int, root, threads: int, data_path) -> list[str]:
    command = [sys.executable, "-m", "mope", "train", variant, "--preset", command_line_preset(preset).name,
               "--seed", str(seed),
               "--results-dir", str(results_root(root)), "--threads", str(threads), "--autocast", preset.autocast,
               "--no-progress"]
    if preset.compile:
        command.append("--compile")
    if data_path is not None:
        command += ["--data", str(data_path)]
    return command


def train_in_subprocesses(preset: TrainConfig, runs: list[tuple[str, int]], jobs: int, root, data_path,
                          bar: tqdm) -> None:
    """Run each (variant, seed) as its own process, ``jobs`` at a time, GPUs assigned round-robin."""
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    threads = max(1, (os.cpu_count() or 1) // jobs)
    pending = list(runs)
    running: dict[int, tuple[subprocess.Popen, tuple[str, int], Path]] = {}  # slot -> process
    failures = []
    logs = Path(tempfile.mkdtemp(prefix="mope-suite-logs-"))
    try:
        with sigterm_raises():
            while pending or running:
                for slot in range(jobs):
                    if slot in running or not pending:
                        continue
                    variant, seed = pending.pop(0)
                    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
                    if gpus:  # one GPU per slot; several slots share a GPU when there are fewer GPUs
                        env["CUDA_VISIBLE_DEVICES"] = str(slot % gpus)
                    log = logs / f"{variant}-seed{seed}.log"
                    with log.open("w") as out:
                        process = subprocess.Popen(run_command(preset, variant, seed, root, threads, data_path),
                                                   env=env, stdout=out, stderr=subprocess.STDOUT)
                    running[slot] = (process, (variant, seed), log)
                time.sleep(0.2)
                for slot, (process, (variant, seed), log) in list(running.items()):
                    if process.poll() is None:
                        continue
                    del running[slot]
                    bar.update(1)
                    if process.returncode:
                        failures.append(f"{variant} seed {seed} exited with {process.returncode}:\n"
                                        f"{log.read_text()[-3000:]}")
    finally:  # interrupted or done: stop the runs started here (their checkpoints let a later suite resume)
        for process, _, _ in running.values():
            process.terminate()
        for process, _, _ in running.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(logs, ignore_errors=True)
    if failures:
        raise UserError("training runs failed:\n" + "\n".join(failures))


def ensure_results(preset: str | TrainConfig, variants, seeds, jobs: int = 1, root=None,
                   data_path=None, progress: bool = True) -> list[dict]:
    """Results of every (variant, seed): the stored current ones, the rest trained (and stored)."""
    preset = get_preset(preset) if isinstance(preset, str) else preset
    if jobs < 1:
        raise ConfigError(f"jobs must be a positive integer, got {jobs}")
    for kind, values in (("variant", list(variants)), ("seed", list(seeds))):
        repeated = sorted({str(v) for v in values if values.count(v) > 1})
        if repeated:
            raise ConfigError(f"{kind}s listed more than once: {', '.join(repeated)}")
    if jobs > 1 and command_line_preset(preset) is None:
        raise ConfigError(f"parallel jobs re-read preset {preset.name!r} by name, but this configuration is "
                          "not a registered preset; run it with jobs=1")
    runs = [(v, s) for v in variants for s in seeds]
    missing = [(v, s) for v, s in runs if needs_training(preset, v, s, root)]
    with tqdm(total=len(runs), initial=len(runs) - len(missing), desc=f"suite {preset.name}",
              unit="run", disable=not progress) as bar:
        if jobs == 1:
            with sigterm_raises():
                for variant, seed in missing:
                    bar.set_postfix_str(f"{variant} seed {seed}")
                    train(variant, preset, seed, results_root=root, data_path=data_path, progress=progress)
                    bar.update(1)
        else:
            train_in_subprocesses(preset, missing, jobs, root, data_path, bar)
    return [load_result(preset, v, s, root) for v, s in runs]
