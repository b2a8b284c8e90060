"""Running many trainings: every (variant, seed) of a suite that the store does not hold yet.

``ensure_results`` asks the store (:func:`mope.store.results.check_file`) about each run
(:func:`set_aside_unless_current`). A current run is
reused; a stale or invalid file is set aside (renamed, never deleted) with a one-line notice, and
the run is trained again. With ``jobs > 1`` each run is its own ``python -m mope train`` process,
``jobs`` at a time, one torch thread each on the CPU (two jobs on two cores), one GPU per slot on a
multi-GPU machine.

Two suites on one store train each run once: a run holds its lock while it trains
(:func:`mope.store.files.run_lock`), and a suite that meets a locked run waits for it, then takes the
result the other stored (``train(..., unless_stored=True)``) instead of training it again.

Interruption: SIGINT (Ctrl-C) and SIGTERM stop the child processes this suite started; each child
keeps its last checkpoint, so the next suite resumes it. A child is tracked from the moment it exists:
with jobs the signals only set a flag, which the suite acts on between spawns, never inside one. A
child's output goes to an unnamed temporary file (nothing is left on disk, whatever happens), and
a child stops by itself when the suite dies, even by SIGKILL (see ``mope/__main__.py``).
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager

import torch
from tqdm import tqdm

from mope.train.child import SUITE_PID
from mope.errors import ConfigError, UserError, listed_more_than_once
from mope.store.presets import TrainConfig, command_line_preset, get_preset
from mope.store.results import folder_config, load_result, result_path, results_root, set_aside_if_unusable
from mope.train.devices import core_count
from mope.train.loop import train


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


@contextmanager
def stop_signals_deferred(stop: list):
    """Within the block, SIGINT and SIGTERM append their number to ``stop`` instead of raising: the
    caller acts on them where it knows every child it started (a signal raised inside
    ``subprocess.Popen`` would lose the child it was starting)."""
    def handler(signum, frame):
        stop.append(signum)

    try:
        previous = {signum: signal.signal(signum, handler) for signum in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread: leave the defaults
        yield
        return
    try:
        yield
    finally:
        for signum, action in previous.items():
            signal.signal(signum, action)


def set_aside_unless_current(preset: TrainConfig, variant: str, seed: int, root=None) -> bool:
    """Move a stale or invalid file of (variant, seed) (even a folder of that name) aside, with a notice;
    return True when no current run of it is stored now (it must be trained), False when one is."""
    path = result_path(preset, variant, seed, root)
    if not os.path.lexists(path):
        return True
    return set_aside_if_unusable(path, folder_config(preset), "training again")


def run_command(preset: TrainConfig, variant: str, seed: int, root, threads: int, data_path) -> list[str]:
    command = [sys.executable, "-m", "mope", "train", variant, "--preset", command_line_preset(preset).name,
               "--seed", str(seed),
               "--results-dir", str(results_root(root)), "--threads", str(threads), "--autocast", preset.autocast,
               "--no-progress", "--unless-stored"]
    if preset.compile:
        command.append("--compile")
    if preset.checkpoint_interval != command_line_preset(preset).checkpoint_interval:
        command += ["--checkpoint-interval", str(preset.checkpoint_interval)]
    if data_path is not None:
        command += ["--data", str(data_path)]
    return command


def _log_text(log, limit: int = 3000) -> str:
    log.flush()
    log.seek(0)
    return log.read().decode(errors="replace")[-limit:]


def train_in_subprocesses(preset: TrainConfig, runs: list[tuple[str, int]], jobs: int, root, data_path,
                          bar: tqdm) -> None:
    """Run each (variant, seed) as its own process, ``jobs`` at a time, GPUs assigned round-robin."""
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    threads = max(1, core_count() // jobs)
    pending = list(runs)
    running: dict[int, tuple[subprocess.Popen, tuple[str, int], object]] = {}  # slot -> (process, run, log)
    failures, stop = [], []
    try:
        with stop_signals_deferred(stop):
            while pending or running:
                for slot in range(jobs):
                    if stop:
                        break
                    if slot in running or not pending:
                        continue
                    variant, seed = pending.pop(0)
                    env = {**os.environ, "OMP_NUM_THREADS": str(threads), SUITE_PID: str(os.getpid())}
                    if gpus:  # one GPU per slot; several slots share a GPU when there are fewer GPUs
                        env["CUDA_VISIBLE_DEVICES"] = str(slot % gpus)
                    log = tempfile.TemporaryFile()  # unnamed: gone with the suite, however it ends
                    try:
                        process = subprocess.Popen(run_command(preset, variant, seed, root, threads, data_path),
                                                   env=env, stdout=log, stderr=subprocess.STDOUT)
                    except BaseException:
                        log.close()
                        raise
                    running[slot] = (process, (variant, seed), log)
                if stop:
                    signum = stop[0]
                    if signum == signal.SIGINT:
                        raise KeyboardInterrupt
                    raise Terminated(f"terminated by signal {signum}")
                time.sleep(0.2)
                for slot, (process, (variant, seed), log) in list(running.items()):
                    if process.poll() is None:
                        continue
                    del running[slot]
                    bar.update(1)
                    if process.returncode:
                        failures.append(f"{variant} seed {seed} exited with {process.returncode}:\n{_log_text(log)}")
                    log.close()
    finally:  # interrupted or done: stop the runs started here (their checkpoints let a later suite resume)
        for process, _, _ in running.values():
            process.terminate()
        for process, _, log in running.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            log.close()
    if failures:
        raise UserError("training runs failed:\n" + "\n".join(failures))


def ensure_results(preset: str | TrainConfig, variants, seeds, jobs: int = 1, root=None,
                   data_path=None, progress: bool = True) -> list[dict]:
    """Results of every (variant, seed): the stored current ones, the rest trained (and stored)."""
    preset = get_preset(preset) if isinstance(preset, str) else preset
    if jobs < 1:
        raise ConfigError(f"jobs must be a positive integer, got {jobs}")
    for kind, values in (("variant", variants), ("seed", seeds)):
        repeated = listed_more_than_once(values)
        if repeated:
            raise ConfigError(f"{kind}s listed more than once: {', '.join(repeated)}")
    if jobs > 1 and command_line_preset(preset) is None:
        raise ConfigError(f"parallel jobs re-read preset {preset.name!r} by name, but this configuration is "
                          "not a registered preset; run it with jobs=1")
    runs = [(v, s) for v in variants for s in seeds]
    missing = [(v, s) for v, s in runs if set_aside_unless_current(preset, v, s, root)]
    with tqdm(total=len(runs), initial=len(runs) - len(missing), desc=f"suite {preset.name}",
              unit="run", disable=not progress) as bar:
        if jobs == 1:
            with sigterm_raises():
                for variant, seed in missing:
                    bar.set_postfix_str(f"{variant} seed {seed}")
                    train(variant, preset, seed, results_root=root, data_path=data_path, progress=progress,
                          unless_stored=True)
                    bar.update(1)
        else:
            train_in_subprocesses(preset, missing, jobs, root, data_path, bar)
    return [load_result(preset, v, s, root) for v, s in runs]
