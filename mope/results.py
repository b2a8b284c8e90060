"""The results store: one JSON file per (preset, variant, seed), with its configuration and provenance.

``results/{preset}/{variant}/seed{S}.json`` under the repository's ``results/`` directory (or
``$MOPE_RESULTS_DIR``). A stored result is reused only while its configuration hash matches the
current configuration of that variant and preset; otherwise it is retrained and overwritten.

Schema 1 (notebooks read these keys)::

    schema, variant, preset, seed, config {model, train}, config_hash,
    provenance {git_commit, git_dirty, torch, python, device, started, finished, wall_time_s,
                tokens_per_s, world_size},
    num_parameters, history [{step, lr, train_loss, val_loss}], train_curve [[step, loss]],
    final {val_loss, train_loss, val_loss_full, val_loss_full_by_context {1x, 2x, 4x},
           extrapolation_note, val_loss_full_causal_stats},
    learned
"""
from __future__ import annotations

import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
from tqdm import tqdm

import mope
from mope.config import GPTConfig
from mope.presets import TrainConfig, get_preset
from mope.variants import VARIANTS, variant_config

SCHEMA = 1
ENV_RESULTS_DIR = "MOPE_RESULTS_DIR"
REPO_ROOT = Path(mope.__file__).resolve().parents[1]


def results_root(root: str | os.PathLike | None = None) -> Path:
    if root is not None:
        return Path(root)
    return Path(os.environ.get(ENV_RESULTS_DIR) or REPO_ROOT / "results")


def _preset(preset: str | TrainConfig) -> TrainConfig:
    return preset if isinstance(preset, TrainConfig) else get_preset(preset)


def preset_name(preset: str | TrainConfig) -> str:
    """The name a run is filed under: a registered preset's, or a custom configuration's own."""
    return preset if isinstance(preset, str) else preset.name


def result_path(preset: str | TrainConfig, variant: str, seed: int, root=None) -> Path:
    return results_root(root) / preset_name(preset) / variant / f"seed{seed}.json"


def config_hash(model_cfg: GPTConfig, train_cfg: TrainConfig) -> str:
    text = json.dumps({"model": model_cfg.to_dict(), "train": train_cfg.identity()}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def expected_hash(preset: str | TrainConfig, variant: str) -> str:
    train_cfg = _preset(preset)
    return config_hash(variant_config(variant, train_cfg.shape()), train_cfg)


def write_result(result: dict, root=None) -> Path:
    """Store ``result`` atomically: readers never see a half-written file."""
    path = result_path(result["preset"], result["variant"], result["seed"], root)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(handle, "w") as file:
            json.dump(result, file, indent=1)
            file.write("\n")
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def load_result(preset: str | TrainConfig, variant: str, seed: int, root=None) -> dict | None:
    path = result_path(preset, variant, seed, root)
    return json.loads(path.read_text()) if path.is_file() else None


def load_results(preset: str | TrainConfig, root=None) -> list[dict]:
    """Every stored result of a preset, in variant-registry order then by seed."""
    directory = results_root(root) / _preset(preset).name
    found = [json.loads(p.read_text()) for p in directory.glob("*/seed*.json")]
    order = {name: i for i, name in enumerate(VARIANTS)}
    return sorted(found, key=lambda r: (order.get(r["variant"], len(order)), r["variant"], r["seed"]))


def is_current(result: dict, preset: str | TrainConfig) -> bool:
    """Whether a stored result was made with the current configuration of its variant under ``preset``."""
    return result.get("config_hash") == expected_hash(preset, result["variant"])


def current_result(preset: str | TrainConfig, variant: str, seed: int, root=None) -> dict | None:
    """The stored result if its configuration is the current one; None (with a notice) if stale."""
    result = load_result(preset, variant, seed, root)
    if result is None:
        return None
    if not is_current(result, preset):
        wanted = expected_hash(preset, variant)
        print(f"notice: stored {result_path(preset, variant, seed, root)} has configuration "
              f"{result.get('config_hash')}, current is {wanted}: retraining", file=sys.stderr)
        return None
    return result


def _run_command(preset: TrainConfig, variant: str, seed: int, root, threads: int, data_path) -> list[str]:
    command = [sys.executable, "-m", "mope", "train", variant, "--preset", preset.name, "--seed", str(seed),
               "--results-dir", str(results_root(root)), "--threads", str(threads), "--autocast", preset.autocast, "--no-progress"]
    if preset.compile:
        command.append("--compile")
    if data_path is not None:
        command += ["--data", str(data_path)]
    return command


def _train_in_subprocesses(preset: TrainConfig, runs: list[tuple[str, int]], jobs: int, root, data_path,
                           bar: tqdm) -> None:
    """Run each (variant, seed) as its own process, ``jobs`` at a time, GPUs assigned round-robin."""
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    threads = max(1, (os.cpu_count() or 1) // jobs)
    pending = list(runs)
    running: dict[int, tuple[subprocess.Popen, tuple[str, int], Path]] = {}  # slot -> process
    failures = []
    try:
        while pending or running:
            for slot in range(jobs):
                if slot in running or not pending:
                    continue
                variant, seed = pending.pop(0)
                env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
                if gpus:  # one GPU per slot; several slots share a GPU when there are fewer GPUs
                    env["CUDA_VISIBLE_DEVICES"] = str(slot % gpus)
                log = Path(tempfile.mkstemp(prefix=f"mope-{variant}-seed{seed}-", suffix=".log")[1])
                with log.open("w") as out:
                    process = subprocess.Popen(_run_command(preset, variant, seed, root, threads, data_path),
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
                log.unlink(missing_ok=True)
    finally:  # interrupted: stop the runs started here (their checkpoints let a later suite resume them)
        for process, _, log in running.values():
            process.terminate()
            process.wait()
            log.unlink(missing_ok=True)
    if failures:
        raise RuntimeError("training runs failed:\n" + "\n".join(failures))


def ensure_results(preset: str | TrainConfig, variants, seeds, jobs: int = 1, root=None,
                   data_path=None, progress: bool = True) -> list[dict]:
    """Results of every (variant, seed): the stored ones whose configuration matches, the rest trained."""
    from mope.training import train

    preset = _preset(preset)
    if jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs}")
    launchable = preset.replace(compile=False, autocast="bf16")  # what the command line can set
    if jobs > 1 and launchable != get_preset(preset.name).replace(compile=False, autocast="bf16"):
        raise ValueError(f"parallel jobs re-read preset {preset.name!r} by name, but this one is modified; "
                         "run a modified preset with jobs=1")
    runs = [(v, s) for v in variants for s in seeds]
    missing = [(v, s) for v, s in runs if current_result(preset, v, s, root) is None]
    with tqdm(total=len(runs), initial=len(runs) - len(missing), desc=f"suite {preset.name}",
              unit="run", disable=not progress) as bar:
        if jobs == 1:
            for variant, seed in missing:
                bar.set_postfix_str(f"{variant} seed {seed}")
                train(variant, preset, seed, results_root=root, data_path=data_path, progress=progress)
                bar.update(1)
        else:
            _train_in_subprocesses(preset, missing, jobs, root, data_path, bar)
    return [load_result(preset, v, s, root) for v, s in runs]


def _stats(values: list[float]) -> dict:
    return {"mean": statistics.fmean(values) if values else None,
            "sd": statistics.stdev(values) if len(values) > 1 else None,
            "n": len(values)}


def summary_table(results: list[dict]) -> list[dict]:
    """Per variant: mean, sample sd (None for n = 1) and n of ``val_loss`` and ``val_loss_full``."""
    by_variant: dict[str, list[dict]] = {}
    for result in results:
        by_variant.setdefault(result["variant"], []).append(result)
    rows = []
    for variant, group in by_variant.items():
        known = VARIANTS.get(variant)
        rows.append({
            "variant": variant,
            "paper_val": known.paper_val if known else None,
            "val_loss": _stats([r["final"]["val_loss"] for r in group]),
            "val_loss_full": _stats([r["final"]["val_loss_full"] for r in group]),
        })
    return rows
