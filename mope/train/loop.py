"""Training one variant under one preset and seed, resumable and optionally data-parallel.

``train(variant, preset, seed)`` resolves the three once into a :class:`RunSpec` (the model's
configuration and its hash, passed down from there), runs the protocol of the preset (see
:mod:`mope.store.presets`), then evaluates the final model four ways and stores the result (see
:mod:`mope.store.results`):

(a) the paper's number: mean loss over ``eval_batches`` random batches per split (last eval point);
(b) the loss over the *whole* validation split in non-overlapping windows of the training context;
(c) the same at 2x and 4x the context, for models without a learned position table;
(d) for the published, non-causal EGA models, (b) with the same weights but causal gate statistics.

Determinism: the weights come from ``torch.manual_seed(seed)``, the batches from (seed, step) alone
(:mod:`mope.train.data`), dropout from the torch RNG, whose state is checkpointed. On the CPU a repeated
run, or a run killed and resumed from its checkpoint, gives the same losses bit for bit on the same
machine (CPU model, torch version and thread count); on another CPU they agree to rounding, even with the
same torch, threads and instruction set of the kernels, whose blocking and dispatch differ between CPU
models. The run's provenance keeps all four (``device`` names the CPU model and the threads, and
``cpu_capability`` the instruction set: :func:`~mope.train.devices.cpu_capability`).

Speed on a GPU, none of it changing a CPU run's numbers: the loop never waits for the device per step (the
losses stay on it and are read, with one all-reduce, only at the protocol's points: logging every
``CURVE_EVERY`` steps, evaluation, checkpoint, the end; a NaN stops the run there, before any checkpoint holds
it); batches go to CUDA from pinned memory without blocking; AdamW is fused on CUDA
(:func:`mope.train.devices.use_fused_adamw`; ``$MOPE_FUSED_ADAMW`` = 0/1 overrides); ``--compile`` (off by
default) compiles the training forward, and inductor's on-disk cache lets the runs of one suite share it. Each
result records ``provenance.throughput``: tokens/s after the first step, FLOPs per token (6N + attention), the
device's peak where known (``PEAK_FLOPS`` of :mod:`mope.train.devices`) and MFU, whether it was compiled and
fused.

Data parallel: under ``torchrun`` (``RANK``/``WORLD_SIZE`` set, read into
:class:`~mope.train.devices.DataParallelRank`) every rank takes its slice of the same global batch of
``batch_size`` rows, DistributedDataParallel averages the gradients (the mean of equal-sized rank means is the
global mean), evaluation batches are shared out and their sums all-reduced; only rank 0 writes checkpoints and
results.

Where a run computes and how fast is :mod:`mope.train.devices`; its checkpoint, and how it resumes from one,
:mod:`mope.train.checkpoints`; its lock, :func:`mope.store.files.run_lock`.
"""
from __future__ import annotations

import contextlib
import math
import os
import platform
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn.functional as F
from tqdm import tqdm

from mope.errors import ConfigError, UserError, one_line, shown
from mope.model.config import GPTConfig
from mope.model.gpt import GPT
from mope.model.positional import MorletPositions
from mope.model.variants import get_variant, variant_config
from mope.store.code_version import check_committed, source_state
from mope.store.files import is_regular_file, remove_stale_temporaries, run_lock, set_aside
from mope.store.presets import TrainConfig, check_own_name, get_preset
from mope.store.result_schema import SCHEMA
from mope.store.results import (
    InvalidResult, check_writable, config_hash, folder_config, load_result, result_path, set_aside_if_unusable, write_result,
)
from mope.train.checkpoints import (
    checkpoint_root, load_checkpoint, resume, rng_states, run_segments, save_checkpoint, set_checkpoint_aside,
)
from mope.train.data import SplitIds, derived_seed, load_dataset, locate
from mope.train.devices import (
    SINGLE_PROCESS, DataParallelRank, all_reduce_sum, autocast, cpu_capability, describe_device, measured_throughput,
    resolve_device, to_device, use_fused_adamw,
)
from mope.train.subword import hugging_face_tokenizers, load_subword_dataset

EVAL_TOKENS = 16384  # tokens per forward pass when evaluating whole splits
CURVE_EVERY = 10  # the stored train_curve keeps every 10th step's loss


MAX_SEED = 2**32  # seeds are 0 <= seed < 2**32


#: What to change when a run diverges: the same command resumes its last checkpoint and, deterministic, stops again.
DIVERGED_REMEDY = ("Run again as it is, it stops at the same step (its last checkpoint holds no NaN and is resumed): "
                   "change what it computes, with another --seed, a preset of a lower learning rate (lr) "
                   "or, on a GPU, --autocast bf16 in place of fp16")


class NonFiniteLoss(UserError, FloatingPointError):
    """The training loss became NaN or infinite; the run is stopped, never silently patched."""


@dataclass(frozen=True)
class RunSpec:
    """One run, resolved once from (variant, preset, seed) into what training it needs: the model's
    configuration and the configuration hash it is stored and checkpointed under. :func:`train` makes
    it and passes it down; nothing below rebuilds it from the variant's name."""

    variant: str
    preset: TrainConfig
    seed: int
    model: GPTConfig
    config_hash: str

    @classmethod
    def resolve(cls, variant: str, preset: str | TrainConfig, seed: int) -> "RunSpec":
        """Validate the three (an unknown variant or preset, a seed outside 0..2**32-1, a configuration
        that borrows a preset's name: :class:`~mope.errors.ConfigError`; a subword preset without the
        tokenizers library: :class:`~mope.errors.MissingExtraError`) and resolve them."""
        get_variant(variant)
        check_seed(seed)
        cfg = preset if isinstance(preset, TrainConfig) else get_preset(preset)
        check_own_name(cfg)
        if cfg.tokenizer:  # without its library (the extra "bpe") say so before any file is written
            hugging_face_tokenizers()
        model = variant_config(variant, cfg.shape())
        return cls(variant, cfg, seed, model, config_hash(model, cfg))

    def checkpoint_path(self, checkpoint_dir=None) -> Path:
        """``checkpoints/{name}/{variant}/seed{S}-{hash}.pt``: the configuration hash in the file name means
        that a run with another configuration never reads, overwrites or deletes this one's checkpoint."""
        return checkpoint_root(checkpoint_dir) / self.preset.name / self.variant / f"seed{self.seed}-{self.config_hash}.pt"

    def checkpoint_owner(self, parallel: DataParallelRank) -> dict:
        """What a checkpoint records about the run it belongs to, and what resuming it must match."""
        return {"variant": self.variant, "config_hash": self.config_hash, "seed": self.seed,
                "world_size": parallel.world_size}


def checkpoint_path(preset: str | TrainConfig, variant: str, seed: int, checkpoint_dir=None) -> Path:
    """Where the run (variant, preset, seed) keeps its checkpoint (:meth:`RunSpec.checkpoint_path`)."""
    return RunSpec.resolve(variant, preset, seed).checkpoint_path(checkpoint_dir)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def check_start_before_now(started: str, checkpoint: Path) -> None:
    """Refuse, before step 0, to resume a run whose checkpoint says it started after this machine's present: its
    result would record a finish before its start, which no reader accepts (the training would be lost at the end)."""
    start = datetime.fromisoformat(started)
    if start.utcoffset() is not None and start > datetime.now(timezone.utc):
        raise UserError(f"the checkpoint {shown(checkpoint)} says its run started at {started}, after this machine's "
                        f"clock ({_now()}): one of the two clocks is wrong. Set this machine's clock right, or delete "
                        "the checkpoint to train the run from step 0")


def check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < MAX_SEED:
        raise ConfigError(f"seed must be an integer with 0 <= seed < 2**32, got {seed!r}")
    return seed


def train(variant: str, preset: str | TrainConfig, seed: int, results_root=None, checkpoint_dir=None,
          data_path=None, device=None, progress: bool = True, on_step=None, unless_stored: bool = False) -> dict:
    """Train ``variant`` under ``preset`` with ``seed``, store and return the result (schema: mope.store.results).

    ``on_step(step)`` is called after every completed optimiser step (and after its checkpoint). The run
    holds its lock (:func:`~mope.store.files.run_lock`) from before its files are prepared until it has stored its result or
    stopped: another process asking for the same run waits for it. With ``unless_stored`` (what ``suite``
    asks) a current stored result is returned as it is, not trained again: the one another suite stored
    while this one waited, say. A data-parallel run (``torchrun``) always trains.
    """
    # everything a user can get wrong fails here, before any data is read or any step is taken
    spec = RunSpec.resolve(variant, preset, seed)
    parallel = DataParallelRank.from_environment()
    device = resolve_device(device, parallel)
    with contextlib.ExitStack() as held:
        if parallel.main:
            check_committed(spec.preset)
            stored, checkpoint = result_path(spec.preset, variant, seed, results_root), spec.checkpoint_path(checkpoint_dir)
            check_writable(stored.parent)
            check_writable(checkpoint.parent)
            held.enter_context(run_lock(stored, f"{variant} seed {seed} of {spec.preset.name}"))
            done = load_result(spec.preset, variant, seed, results_root) if unless_stored else None
            if done is not None and parallel.world_size == 1:
                print(f"notice: {variant} seed {seed} of {spec.preset.name} is stored and current; not trained again",
                      file=sys.stderr)
                return done
            locate(data_path)  # no TinyShakespeare where it is named: said before a stored file is set aside
            _prepare_files(spec.preset, stored, checkpoint)
        created_group = parallel.world_size > 1 and not dist.is_initialized()
        if created_group:
            if device.type == "cuda":
                torch.cuda.set_device(device)
            dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
        try:
            return _train(spec, results_root, checkpoint_dir, data_path, device, progress, on_step, parallel)
        finally:
            if created_group:
                dist.destroy_process_group()


def _prepare_files(cfg: TrainConfig, stored: Path, checkpoint: Path) -> None:
    """Before step 0: remove the temporary files a killed save left behind; set aside, as a damaged
    checkpoint is, anything at the checkpoint's path that is not a regular file (a folder there made
    every save, and so every rerun, fail); set a stale or damaged results file (even a folder of that
    name) aside, as ``suite`` does; say so when a current one is about to be replaced."""
    left = remove_stale_temporaries(checkpoint) + remove_stale_temporaries(stored)
    if left:
        print(f"notice: removed {len(left)} temporary file{'s' if len(left) > 1 else ''} left by an interrupted save "
              f"({', '.join(shown(p.name) for p in left[:3])}{' ...' if len(left) > 3 else ''})", file=sys.stderr)
    if os.path.lexists(checkpoint) and not is_regular_file(checkpoint):
        moved = set_aside(checkpoint)
        print(f"notice: checkpoint {shown(checkpoint)} is damaged (not a regular file); kept as {shown(moved.name)}, "
              "starting this run from step 0", file=sys.stderr)
    if not set_aside_if_unusable(stored, folder_config(cfg), "training it again") and is_regular_file(stored):
        print(f"notice: {shown(stored)} holds a current run; this run replaces it when it finishes", file=sys.stderr)


def _optimizer(raw: GPT, cfg: TrainConfig, device: torch.device) -> torch.optim.AdamW:
    fused = {"fused": True} if use_fused_adamw(device) else {}  # absent, not False: the default path as before
    return torch.optim.AdamW(raw.optimizer_groups(cfg.weight_decay), lr=cfg.lr, betas=cfg.betas, eps=cfg.eps, **fused)


def _train(spec: RunSpec, results_root, checkpoint_dir, data_path, device, progress, on_step,
           parallel: DataParallelRank) -> dict:
    started, clock = _now(), time.perf_counter()
    variant, cfg, seed, model_cfg = spec.variant, spec.preset, spec.seed, spec.model
    data = load_subword_dataset(cfg, data_path) if cfg.tokenizer else load_dataset(data_path)
    if data.vocab_size != model_cfg.vocab_size:
        raise ConfigError(f"the data have {data.vocab_size} tokens but the model's vocabulary has {model_cfg.vocab_size}; "
                          f"preset {cfg.name!r} and its tokenizer disagree")

    torch.manual_seed(seed)  # initial weights, and dropout of a single process
    raw = GPT(model_cfg, knowingly_non_causal=True).to(device)  # EGA-1, EGA-MORLET: the paper's runs
    if parallel.world_size > 1:  # each rank drops out its own rows
        torch.manual_seed(derived_seed("dropout", seed, parallel.rank))
    optimizer = _optimizer(raw, cfg, device)
    scaler = torch.amp.GradScaler("cuda", enabled=device.type == "cuda" and cfg.autocast == "fp16")

    path = spec.checkpoint_path(checkpoint_dir)
    owner = spec.checkpoint_owner(parallel)
    checkpoint = load_checkpoint(path, owner, cfg.steps, parallel)
    start, losses, history, train_time, earlier_wall = 0, [], [], 0.0, 0.0
    if checkpoint is not None:
        try:
            start, losses, history, train_time, earlier_wall, started = resume(
                checkpoint, raw, optimizer, scaler, seed, device, parallel)
        except Exception as error:  # noqa: BLE001 (weights of another shape, a mangled optimizer state)
            optimizer = _optimizer(raw, cfg, device)
            scaler = torch.amp.GradScaler("cuda", enabled=device.type == "cuda" and cfg.autocast == "fp16")
            set_checkpoint_aside(path, "damaged", f"cannot be resumed ({one_line(error)})", parallel)
        else:
            check_start_before_now(started, path)

    commit, dirty = source_state()
    segments = run_segments(checkpoint if start else None, start, {
        "git_commit": commit, "git_dirty": dirty, "device": describe_device(device),
        "cpu_capability": cpu_capability(device), "threads": torch.get_num_threads(), "torch": str(torch.__version__)})
    model = torch.compile(raw) if cfg.compile else raw
    if parallel.world_size > 1:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda" else None)
    rows = cfg.batch_size // parallel.world_size
    tokens_per_step = cfg.batch_size * cfg.block_size
    bar = tqdm(total=cfg.steps, initial=start, desc=f"{variant} seed {seed}", unit="step",
               disable=not (progress and parallel.main), leave=False)
    pending: list[torch.Tensor] = []  # the summed losses of the steps since the last read, still on the device
    timed = {"steps": 0, "seconds": 0.0, "first_step_s": None}  # this process's training steps

    def read_losses() -> None:
        """Bring the pending losses to the host (the only place the training loop waits for the device),
        stop the run at the first that is not finite. Called at the protocol's points only: logging
        (every CURVE_EVERY steps), evaluation, checkpoint, the end."""
        nonlocal train_time
        if not pending:
            return
        tick = time.perf_counter()
        summed = all_reduce_sum(torch.stack(pending), parallel).tolist()  # one collective, one wait
        train_time += time.perf_counter() - tick  # waiting for the queued steps is training time
        timed["seconds"] += time.perf_counter() - tick
        first = len(losses)
        pending.clear()
        for offset, value in enumerate(summed):
            global_loss = value / cfg.batch_size
            if not math.isfinite(global_loss):
                raise NonFiniteLoss(f"training loss is {global_loss} at step {first + offset} of {variant} "
                                    f"(preset {cfg.name}, seed {seed}); the run is stopped. {DIVERGED_REMEDY}")
            losses.append(global_loss)

    raw.train()
    for step in range(start, cfg.steps):
        lr = cfg.lr_at(step)
        for group in optimizer.param_groups:
            group["lr"] = lr
        if cfg.is_eval_step(step):
            read_losses()
            evaluated = estimate_loss(raw, data, cfg, seed, step, device, parallel)
            history.append({"step": step, "lr": lr, "train_loss": evaluated["train"], "val_loss": evaluated["val"]})
        tick = time.perf_counter()
        x, y = data.batch("train", step, seed, cfg.batch_size, cfg.block_size, parallel.rank, parallel.world_size)
        with autocast(device, cfg):
            _, loss = model(to_device(x, device), to_device(y, device))
        pending.append(loss.detach().double() * rows)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(raw.parameters(), cfg.clip)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        elapsed = time.perf_counter() - tick
        train_time += elapsed
        timed["steps"] += 1
        if timed["first_step_s"] is None:  # compilation, allocator and kernel warm-up
            timed["first_step_s"] = elapsed
        else:
            timed["seconds"] += elapsed
        bar.update(1)
        done = step + 1
        checkpoint_due = done % cfg.checkpoint_interval == 0 or done == cfg.steps  # the last one guards the evaluation
        if step % CURVE_EVERY == 0 or step == cfg.steps - 1 or checkpoint_due:
            read_losses()
            bar.set_postfix(loss=f"{losses[-1]:.4f}", tok_s=f"{tokens_per_step * len(losses) / train_time:,.0f}")
        if checkpoint_due:
            segments[-1]["to_step"] = done
            rng = rng_states(device, parallel)
            if parallel.main:
                save_checkpoint(path, {
                    "config_hash": spec.config_hash, "run": owner, "step": done, "model": raw.state_dict(),
                    "optimizer": optimizer.state_dict(), "scaler": scaler.state_dict(), "losses": losses,
                    "history": history, "rng": rng, "train_time": train_time, "started": started,
                    "wall_time": earlier_wall + time.perf_counter() - clock, "segments": segments,
                })
        if on_step is not None:
            on_step(step)
    read_losses()
    bar.close()
    throughput = measured_throughput(raw, cfg, device, optimizer, timed, tokens_per_step)

    by_context, note, causal_stats = final_losses(raw, model_cfg, data, cfg, device, parallel)

    result = {
        "schema": SCHEMA, "variant": variant, "preset": cfg.name, "seed": seed,
        "config": {"model": model_cfg.to_dict(), "train": cfg.to_dict()}, "config_hash": spec.config_hash,
        "provenance": {
            "git_commit": commit, "git_dirty": dirty,
            "torch": torch.__version__, "python": platform.python_version(), "device": describe_device(device),
            "cpu_capability": cpu_capability(device), "threads": torch.get_num_threads(),
            "started": started, "finished": _now(),
            "wall_time_s": earlier_wall + time.perf_counter() - clock,
            "tokens_per_s": tokens_per_step * len(losses) / train_time if train_time else 0.0,
            "world_size": parallel.world_size,
            "throughput": throughput,
            **({"segments": segments} if len(segments) > 1 else {}),  # resumed elsewhere: where each stretch ran
        },
        "num_parameters": raw.num_parameters(),
        "history": history,
        "train_curve": [[s, losses[s]] for s in range(cfg.steps) if s % CURVE_EVERY == 0 or s == cfg.steps - 1],
        "final": {
            "val_loss": history[-1]["val_loss"], "train_loss": history[-1]["train_loss"],
            "val_loss_full": by_context["1x"], "val_loss_full_by_context": by_context,
            "extrapolation_note": note, "val_loss_full_causal_stats": causal_stats,
        },
        "learned": learned_parameters(raw),
    }
    if parallel.main:
        try:
            write_result(result, results_root)
        except InvalidResult as refused:  # the same checkpoint would give the same result: never resumed again
            if not is_regular_file(path):
                raise
            moved = set_aside(path)
            raise InvalidResult(f"{refused}; its last checkpoint is set aside as {shown(moved.name)}, so the same "
                                "command trains the run from step 0") from refused
        path.unlink(missing_ok=True)
    return result


@torch.no_grad()
def estimate_loss(model: GPT, data: SplitIds, cfg: TrainConfig, seed: int, eval_round: int,
                  device: torch.device, parallel: DataParallelRank = SINGLE_PROCESS) -> dict[str, float]:
    """The paper's evaluation: mean loss over ``eval_batches`` batches per split, the same for every model."""
    model.eval()
    losses = {}
    for split in ("train", "val"):
        total = torch.zeros((), dtype=torch.float64, device=device)
        for index in range(parallel.rank, cfg.eval_batches, parallel.world_size):
            x, y = data.eval_batch(split, eval_round, index, seed, cfg.batch_size, cfg.block_size)
            with autocast(device, cfg):
                _, loss = model(x.to(device), y.to(device))
            total += loss.double()
        losses[split] = all_reduce_sum(total, parallel).item() / cfg.eval_batches
    model.train()
    return losses


@torch.no_grad()
def full_split_loss(model: GPT, data: SplitIds, split: str, context: int, device: torch.device,
                    cfg: TrainConfig, parallel: DataParallelRank = SINGLE_PROCESS) -> float:
    """Mean loss over every target of the split (or its first ``full_eval_tokens``), in non-overlapping windows of ``context`` tokens."""
    model.eval()
    chunks = []
    for x, y in data.full_split_windows(split, context):
        rows = max(1, EVAL_TOKENS // context)
        chunks += [(x[i:i + rows], y[i:i + rows]) for i in range(0, len(x), rows)]
    if cfg.full_eval_tokens is not None:  # smoke runs: the first windows only
        kept, tokens = [], 0
        for chunk in chunks:
            if tokens >= cfg.full_eval_tokens:
                break
            kept.append(chunk)
            tokens += chunk[1].numel()
        chunks = kept
    total = torch.zeros((), dtype=torch.float64, device=device)
    for x, y in chunks[parallel.rank::parallel.world_size]:
        with autocast(device, cfg):
            logits, _ = model(x.to(device))
        total += F.cross_entropy(logits.flatten(0, 1).float(), y.to(device).flatten(), reduction="sum").double()
    model.train()
    return all_reduce_sum(total, parallel).item() / sum(y.numel() for _, y in chunks)


def learned_parameters(model: GPT) -> dict:
    """What a run stores of its learned positional and gate parameters, as plain lists: MoPE's (ω, σ) as
    the forward uses them and as stored (exp of the logs), its centres; EGA-1's α and τ per layer;
    Morlet-RoPE's σ per layer. (The model does not know what the book reports; the run's record does.)"""
    found: dict = {}
    if isinstance(model.pos, MorletPositions):
        with torch.no_grad():
            omega, sigma = model.pos.effective()
            found["morlet"] = {
                "omega": omega.tolist(),
                "sigma": sigma.tolist(),
                "omega_raw": model.pos.log_omega.exp().tolist(),
                "sigma_raw": model.pos.log_sigma.exp().tolist(),
                "centre": model.pos.centre.tolist() if model.pos.centre is not None else None,
            }
    gates = [b.attn.gate for b in model.blocks if b.attn.gate is not None]
    if gates:
        found["ega"] = {
            "alpha": [g.alpha.tolist() for g in gates],
            "tau": [g.tau.tolist() for g in gates],
        }
    rotary_sigmas = [b.attn.positions.log_sigma.exp().tolist() for b in model.blocks
                     if hasattr(b.attn.positions, "log_sigma")]
    if rotary_sigmas:
        found["morlet_rope_sigma"] = rotary_sigmas
    return found


def final_losses(model: GPT, model_cfg: GPTConfig, data, cfg: TrainConfig, device, parallel):
    """The losses every run stores at its end, on the whole validation split: at its context and at each
    multiple of ``cfg.extrapolation`` (None where a learned table has no rows for it, with a note); and,
    for a model whose gate reads future tokens, the same weights with the gate's statistics taken over
    each prefix (None for a causal model): how much of its loss needs the future."""
    by_context, note = {"1x": full_split_loss(model, data, "val", cfg.block_size, device, cfg, parallel)}, None
    for factor in cfg.extrapolation:
        if model.max_context is None:
            by_context[f"{factor}x"] = full_split_loss(model, data, "val", factor * cfg.block_size, device, cfg,
                                                       parallel)
        else:
            by_context[f"{factor}x"] = None
            note = f"learned position table has {model.max_context} rows"
    causal_stats = None
    if not model.causal:
        with_causal_gate = GPT(model_cfg.replace(gate="ega_causal")).to(device)
        with_causal_gate.load_state_dict(model.state_dict())
        causal_stats = full_split_loss(with_causal_gate, data, "val", cfg.block_size, device, cfg, parallel)
    return by_context, note, causal_stats
