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
``cpu_capability`` the instruction set: :func:`cpu_capability`).

Speed on a GPU, none of it changing a CPU run's numbers: the loop never waits for the
device per step (the losses stay on it and are read, with one all-reduce, only at the protocol's
points: logging every ``CURVE_EVERY`` steps, evaluation, checkpoint, the end; a NaN stops the run there,
before any checkpoint holds it); batches go to CUDA from pinned memory without blocking; AdamW is fused
on CUDA (``use_fused_adamw``; ``$MOPE_FUSED_ADAMW`` = 0/1 overrides); ``--compile`` (off by default)
compiles the training forward, and inductor's on-disk cache lets the runs of one suite share it. Each
result records ``provenance.throughput``: tokens/s after the first step, FLOPs per token (6N +
attention), the device's peak where known (``PEAK_FLOPS``) and MFU, whether it was compiled and fused.

Data parallel: under ``torchrun`` (``RANK``/``WORLD_SIZE`` set, read into :class:`DataParallelRank`)
every rank takes its slice of the same global batch of ``batch_size`` rows, DistributedDataParallel
averages the gradients (the mean of equal-sized rank means is the global mean), evaluation batches
are shared out and their sums all-reduced; only rank 0 writes checkpoints and results.
"""
from __future__ import annotations

import contextlib
import fcntl
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

from mope.train.data import SplitIds, derived_seed, load_dataset
from mope.train.subword import hugging_face_tokenizers, load_subword_dataset
from mope.errors import ConfigError, UserError, one_line, shown
from mope.model.gpt import GPT
from mope.model.positional import MorletPositions
from mope.store.presets import TrainConfig, check_own_name, get_preset
from mope.model.config import GPTConfig
from mope.store.files import atomic_write, is_regular_file, remove_stale_temporaries, set_aside
from mope.store.result_schema import SCHEMA
from mope.store.results import (
    check_writable, config_hash, default_home, folder_config, load_result, result_path, set_aside_if_unusable,
    write_result,
)
from mope.store.code_version import check_committed, source_state
from mope.model.variants import get_variant, variant_config

ENV_CHECKPOINT_DIR = "MOPE_CHECKPOINT_DIR"
ENV_FUSED_ADAMW = "MOPE_FUSED_ADAMW"  # 1 / 0: force fused AdamW on or off (default: on CUDA only)
EVAL_TOKENS = 16384  # tokens per forward pass when evaluating whole splits
CURVE_EVERY = 10  # the stored train_curve keeps every 10th step's loss


MAX_SEED = 2**32  # seeds are 0 <= seed < 2**32


class NonFiniteLoss(UserError, FloatingPointError):
    """The training loss became NaN or infinite; the run is stopped, never silently patched."""


@dataclass(frozen=True)
class DataParallelRank:
    """This process's place in a data-parallel run, as ``torchrun`` sets it: its ``rank``, the number of
    processes (``world_size``) and its device index on its machine (``local_rank``). A run without
    torchrun is rank 0 of 1."""

    rank: int = 0
    world_size: int = 1
    local_rank: int = 0

    @property
    def main(self) -> bool:
        """Rank 0: the process that writes checkpoints and results."""
        return self.rank == 0

    @classmethod
    def from_environment(cls) -> "DataParallelRank":
        return cls(int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1)),
                   int(os.environ.get("LOCAL_RANK", 0)))


SINGLE_PROCESS = DataParallelRank()


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


def checkpoint_root(checkpoint_dir=None) -> Path:
    """``checkpoint_dir`` if given, else ``$MOPE_CHECKPOINT_DIR``, else ``checkpoints/`` of
    :func:`mope.store.results.default_home` (the source checkout, or the current directory)."""
    if checkpoint_dir is not None:
        return Path(checkpoint_dir)
    return Path(os.environ.get(ENV_CHECKPOINT_DIR) or default_home() / "checkpoints")


def checkpoint_path(preset: str | TrainConfig, variant: str, seed: int, checkpoint_dir=None) -> Path:
    """Where the run (variant, preset, seed) keeps its checkpoint (:meth:`RunSpec.checkpoint_path`)."""
    return RunSpec.resolve(variant, preset, seed).checkpoint_path(checkpoint_dir)


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def core_count() -> int:
    """The CPUs this process may run on (its affinity), else the machine's."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def cpu_capability(device: torch.device) -> str | None:
    """The instruction set of the CPU kernels torch runs (e.g. "AVX2", "AVX512"), kept beside the CPU's model
    in the provenance: runs agree bit for bit only on the same machine. None on a GPU."""
    if device.type != "cpu":
        return None
    return torch.backends.cpu.get_cpu_capability()


def describe_device(device: torch.device) -> str:
    if device.type == "cuda":
        return f"cuda: {torch.cuda.get_device_name(device)}"
    threads = torch.get_num_threads()
    return f"cpu: {_cpu_name()}, {threads} thread{'s' if threads > 1 else ''}"


def _autocast(device: torch.device, cfg: TrainConfig):
    if device.type != "cuda":
        return contextlib.nullcontext()  # float32 on the CPU
    return torch.autocast("cuda", dtype=torch.bfloat16 if cfg.autocast == "bf16" else torch.float16)


def _all_reduce_sum(value: torch.Tensor, parallel: DataParallelRank) -> torch.Tensor:
    if parallel.world_size > 1:
        dist.all_reduce(value)
    return value


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
            with _autocast(device, cfg):
                _, loss = model(x.to(device), y.to(device))
            total += loss.double()
        losses[split] = _all_reduce_sum(total, parallel).item() / cfg.eval_batches
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
        with _autocast(device, cfg):
            logits, _ = model(x.to(device))
        total += F.cross_entropy(logits.flatten(0, 1).float(), y.to(device).flatten(), reduction="sum").double()
    model.train()
    return _all_reduce_sum(total, parallel).item() / sum(y.numel() for _, y in chunks)


def _rng_states(device: torch.device, parallel: DataParallelRank) -> dict:
    """Every rank's torch RNG states (dropout), gathered so that each rank resumes its own."""
    mine = {"cpu": torch.get_rng_state(), "cuda": torch.cuda.get_rng_state(device) if device.type == "cuda" else None}
    if parallel.world_size == 1:
        return {"ranks": [mine]}
    gathered = [None] * parallel.world_size
    dist.all_gather_object(gathered, mine)
    return {"ranks": gathered}


class CheckpointWriteError(UserError):
    """A checkpoint could not be written (a full disk, a folder removed): the run stops with one line."""


def _save_checkpoint(path: Path, payload: dict) -> None:
    """Write the checkpoint atomically (:func:`mope.store.files.atomic_write`). A failed write (a full disk
    makes ``torch.save`` raise RuntimeError "unexpected pos ...", not OSError) is one message."""
    try:
        atomic_write(path, lambda file: torch.save(payload, file))
    except (OSError, RuntimeError) as error:
        raise CheckpointWriteError(
            f"cannot write checkpoint {shown(path)} ({one_line(error)}); is the disk full? Free space there (or point "
            f"${ENV_CHECKPOINT_DIR} at a folder with room) and run the same command again: it resumes from "
            "the last checkpoint that was written") from error


def _checkpoint_problem(checkpoint, owner: dict, steps: int) -> tuple[str, str] | None:
    """(kind, why) when ``checkpoint`` cannot resume the run ``owner`` of ``steps`` steps, else None.
    ``kind`` is "damaged", "another run's" or "of unknown seed".

    A checkpoint written before checkpoints recorded their run (no ``"run"``) cannot say which seed made
    it (a copy of seed 1's under seed 0's name resumed silently): it is never resumed."""
    if not isinstance(checkpoint, dict) or "model" not in checkpoint or "step" not in checkpoint:
        return "damaged", "not a training checkpoint"
    if checkpoint.get("config_hash") != owner["config_hash"]:
        return "another run's", f"configuration {checkpoint.get('config_hash')}, expected {owner['config_hash']}"
    recorded = checkpoint.get("run")
    if recorded is None:
        return "of unknown seed", "written before checkpoints recorded their run, so its seed cannot be checked"
    if not isinstance(recorded, dict):
        return "damaged", "its record of the run is not a mapping"
    differ = [f"{key} {recorded.get(key)!r}, this run's is {value!r}"
              for key, value in owner.items() if recorded.get(key) != value]
    if differ:
        return "another run's", "; ".join(differ)
    step, losses = checkpoint["step"], checkpoint.get("losses")
    if isinstance(step, bool) or not isinstance(step, int) or not 1 <= step <= steps:
        return "damaged", f"step {step!r} outside 1..{steps}"
    if not isinstance(losses, list) or len(losses) != step:
        return "damaged", f"{len(losses) if isinstance(losses, list) else 'no'} losses for {step} steps"
    if not isinstance(checkpoint["model"], dict):
        return "damaged", "its weights are not a state dict"
    bad = [name for name, tensor in checkpoint["model"].items()
           if not isinstance(tensor, torch.Tensor) or tensor.is_floating_point() and not torch.isfinite(tensor).all()]
    if bad:
        return "damaged", f"non-finite weights in {', '.join(bad[:3])}{' ...' if len(bad) > 3 else ''}"
    return None


def _set_checkpoint_aside(path: Path, kind: str, problem: str, parallel: DataParallelRank) -> None:
    if parallel.world_size > 1:
        dist.barrier()  # every rank has read it before rank 0 moves it
    if parallel.main:
        moved = set_aside(path)
        print(f"notice: checkpoint {shown(path)} is {kind} ({problem}); kept as {shown(moved.name)}, "
              f"starting this run from step 0", file=sys.stderr)


def _load_checkpoint(path: Path, owner: dict, steps: int, parallel: DataParallelRank) -> dict | None:
    """The checkpoint to resume from, or None. One that cannot resume this run (unreadable or empty,
    another run's, non-finite weights) is set aside with one notice, and the run starts over. Only a
    regular file is read (:func:`_prepare_files` has set anything else aside before step 0)."""
    if not is_regular_file(path):
        return None
    try:
        checkpoint = torch.load(path, map_location="cpu", weights_only=True)
        problem = _checkpoint_problem(checkpoint, owner, steps)
    except Exception as error:  # noqa: BLE001 (torch raises many kinds for a truncated, empty or foreign file)
        checkpoint, problem = None, ("damaged", f"unreadable ({one_line(error)})")
    if problem is None:
        return checkpoint
    _set_checkpoint_aside(path, *problem, parallel)
    return None


def _restore_rng(checkpoint: dict, seed: int, step: int, device: torch.device, parallel: DataParallelRank) -> None:
    ranks = checkpoint["rng"]["ranks"]
    if len(ranks) != parallel.world_size:  # resumed on another number of ranks: fresh, but reproducible, dropout
        torch.manual_seed(derived_seed("dropout", seed, parallel.rank, step))
        return
    torch.set_rng_state(ranks[parallel.rank]["cpu"])
    if device.type == "cuda" and ranks[parallel.rank]["cuda"] is not None:
        torch.cuda.set_rng_state(ranks[parallel.rank]["cuda"], device)


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


def resolve_device(device, parallel: DataParallelRank = SINGLE_PROCESS) -> torch.device:
    """The torch device to train on; a clear error for a name torch does not know or a device not here."""
    if device is None:
        return torch.device("cuda", parallel.local_rank) if torch.cuda.is_available() else torch.device("cpu")
    try:
        resolved = torch.device(device)
    except (RuntimeError, TypeError):
        raise ConfigError(f"unknown device {device!r}; valid choices: cpu, cuda, cuda:N") from None
    if resolved.type == "cuda":
        available = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if available == 0:
            raise ConfigError(f"device {device!r} asked for, but this machine has no CUDA device; use --device cpu")
        if resolved.index is not None and resolved.index >= available:
            raise ConfigError(f"device {device!r} asked for, but this machine has CUDA devices 0..{available - 1}")
    elif resolved.type != "cpu":
        raise ConfigError(f"device {device!r} is not supported; valid choices: cpu, cuda, cuda:N")
    return resolved


def check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < MAX_SEED:
        raise ConfigError(f"seed must be an integer with 0 <= seed < 2**32, got {seed!r}")
    return seed


def train(variant: str, preset: str | TrainConfig, seed: int, results_root=None, checkpoint_dir=None,
          data_path=None, device=None, progress: bool = True, on_step=None, unless_stored: bool = False) -> dict:
    """Train ``variant`` under ``preset`` with ``seed``, store and return the result (schema: mope.store.results).

    ``on_step(step)`` is called after every completed optimiser step (and after its checkpoint). The run
    holds its lock (:func:`run_lock`) from before its files are prepared until it has stored its result or
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


LOCK_SUFFIX = ".lock"  # seed0.json.lock beside the result: held while the run trains


@contextlib.contextmanager
def run_lock(result: Path, run: str):
    """Hold the lock of the run whose result is ``result``: an exclusive ``flock`` on the file ``{result}.lock``
    beside it, waited for (with a notice on stderr naming the file) while another process holds it. It lies
    with the result, so that one store means one lock whatever checkpoint folder each user names. It is taken
    on a read-only descriptor: another user of a shared store, who may read the file but not write it, locks it
    all the same. The kernel releases it when the process ends, however it ends (an exception, a signal,
    SIGKILL), so that two suites on one store never train one run at once. Once the run is over its holder
    removes the file; a process that was waiting on that file finds, once it holds its lock, that the path is
    no longer the file it locked, and locks the path anew (so no two processes ever hold the run at once). What
    is at its path that is not a regular file (a folder, a FIFO, a link) is set aside first."""
    path = result.with_name(result.name + LOCK_SUFFIX)
    waited = False
    while True:
        if os.path.lexists(path) and not is_regular_file(path):
            moved = set_aside(path)
            print(f"notice: lock file {shown(path)} was not a regular file; kept as {shown(moved.name)}", file=sys.stderr)
        try:
            handle = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
        except OSError as error:
            raise UserError(f"cannot open the lock file {shown(path)} of {run} ({error.strerror}): make its folder "
                            "writable to you, or train into a store of your own (--results-dir)") from None
        try:
            if not _flock(handle, path, run, quiet=waited):
                waited = True
                continue
            yield path
            _remove_lock(path)
            return
        finally:
            os.close(handle)  # releases the lock


def _flock(handle: int, path: Path, run: str, quiet: bool) -> bool:
    """Lock ``handle`` (the file at ``path``) exclusively, waiting for another holder with a notice; False when,
    once locked, ``path`` is no longer that file (its holder removed it when the run ended: lock anew)."""
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not quiet:
                print(f"notice: another process is training {run} ({shown(path)} is locked); waiting for it "
                      "(stop that process to train here)", file=sys.stderr)
            fcntl.flock(handle, fcntl.LOCK_EX)
    except OSError as error:  # ENOLCK, EOPNOTSUPP: a file system without locks (some network mounts)
        raise UserError(f"cannot lock {shown(path)} for {run} ({error.strerror}): its file system does not "
                        "support locks; put the store on a local disk (--results-dir)") from None
    try:
        return os.path.samestat(os.fstat(handle), os.stat(path, follow_symlinks=False))
    except FileNotFoundError:
        return False


def _remove_lock(path: Path) -> None:
    """Remove a run's lock file while holding it (the run is over); where the folder is not ours to change, it
    stays, harmless."""
    with contextlib.suppress(OSError):
        os.unlink(path)


def use_fused_adamw(device: torch.device) -> bool:
    """Fused AdamW (one kernel for every parameter's update) on CUDA, where it is the fast path; off on
    the CPU, whose runs stay bit-identical to those already stored. ``$MOPE_FUSED_ADAMW`` = 0 or 1
    overrides (to measure a GPU run with and without it)."""
    forced = os.environ.get(ENV_FUSED_ADAMW, "").strip()
    if forced in ("0", "1"):
        return forced == "1"
    if forced:
        raise ConfigError(f"${ENV_FUSED_ADAMW}={forced!r}; use 1, 0, or leave it unset (fused on CUDA only)")
    return device.type == "cuda"


def _optimizer(raw: GPT, cfg: TrainConfig, device: torch.device) -> torch.optim.AdamW:
    fused = {"fused": True} if use_fused_adamw(device) else {}  # absent, not False: the default path as before
    return torch.optim.AdamW(raw.optimizer_groups(cfg.weight_decay), lr=cfg.lr, betas=cfg.betas, eps=cfg.eps, **fused)


def _to_device(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
    """A batch made on the CPU, sent to ``device``; on CUDA from pinned memory without waiting for it."""
    if device.type != "cuda":
        return tensor.to(device)
    return tensor.pin_memory().to(device, non_blocking=True)


# Dense tensor-core peaks from the vendors' datasheets (FLOP/s, no sparsity), by (name fragment, autocast
# dtype), most specific first; MFU is reported only for a device named here.
PEAK_FLOPS: tuple[tuple[str, str, float], ...] = (
    ("H200", "bf16", 989.4e12), ("H200", "fp16", 989.4e12),
    ("H100 PCIe", "bf16", 756.0e12), ("H100 PCIe", "fp16", 756.0e12),
    ("H100 NVL", "bf16", 835.0e12), ("H100 NVL", "fp16", 835.0e12),
    ("H100", "bf16", 989.4e12), ("H100", "fp16", 989.4e12),
    ("A100", "bf16", 312.0e12), ("A100", "fp16", 312.0e12),
    ("L40S", "bf16", 362.05e12), ("L40S", "fp16", 362.05e12),
    ("L4", "bf16", 121.0e12), ("L4", "fp16", 121.0e12),
    ("T4", "fp16", 65.0e12),
)


def peak_flops(device: torch.device, cfg: TrainConfig) -> tuple[float | None, str | None]:
    """(peak FLOP/s, where it comes from) of ``device`` at the preset's autocast dtype; (None, None) on the
    CPU (float32, no datasheet peak that means anything here) or for a GPU not in ``PEAK_FLOPS``."""
    if device.type != "cuda":
        return None, None
    name = torch.cuda.get_device_name(device)
    for fragment, dtype, flops in PEAK_FLOPS:
        if fragment in name and dtype == cfg.autocast:
            return flops, f"{name}: {fragment} {dtype} dense tensor-core peak, vendor datasheet"
    return None, None


def flops_per_token(num_parameters: int, cfg: TrainConfig) -> float:
    """Training FLOPs per token: 6N (forward and backward through every parameter) plus attention's
    12 * n_layer * n_embd * T (scores and weighted values, forward and backward; PaLM's count, as in
    nanoGPT's MFU estimate), with N every parameter of the model."""
    return 6.0 * num_parameters + 12.0 * cfg.n_layer * cfg.n_embd * cfg.block_size


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


def _resume(checkpoint: dict, raw: GPT, optimizer, scaler, seed: int, device: torch.device, parallel: DataParallelRank) -> tuple:
    """Load ``checkpoint`` into the model, optimizer, scaler and RNG; return (step, losses, history,
    train_time, wall_time, started). Raises, having changed nothing, if any part does not fit."""
    initial = {name: tensor.clone() for name, tensor in raw.state_dict().items()}
    rng = torch.get_rng_state(), torch.cuda.get_rng_state(device) if device.type == "cuda" else None
    try:
        raw.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        scaler.load_state_dict(checkpoint["scaler"])
        state = (checkpoint["step"], list(checkpoint["losses"]), list(checkpoint["history"]),
                 float(checkpoint["train_time"]), float(checkpoint["wall_time"]), str(checkpoint["started"]))
        _restore_rng(checkpoint, seed, state[0], device, parallel)
        return state
    except Exception:
        raw.load_state_dict(initial)
        torch.set_rng_state(rng[0])
        if rng[1] is not None:
            torch.cuda.set_rng_state(rng[1], device)
        raise


def _throughput(raw: GPT, cfg: TrainConfig, device: torch.device, optimizer, timed: dict,
                tokens_per_step: int) -> dict:
    """``provenance.throughput`` (optional, not part of the configuration hash): this process's tokens/s
    after its first step (compilation and warm-up, ``first_step_s``), FLOPs per token, the device's peak
    where known, and MFU = tokens/s x FLOPs per token / peak (None on the CPU or an unknown GPU). Runs
    sharing one GPU each report their own share; their sum is the GPU's."""
    steady = timed["steps"] - 1
    tokens_per_s = tokens_per_step * steady / timed["seconds"] if steady > 0 and timed["seconds"] > 0 else None
    per_token = flops_per_token(raw.num_parameters(), cfg)
    peak, source = peak_flops(device, cfg)
    return {
        "tokens_per_s": tokens_per_s, "first_step_s": timed["first_step_s"], "steps_timed": max(steady, 0),
        "flops_per_token": per_token, "peak_flops_per_s": peak, "peak_source": source,
        "mfu": tokens_per_s * per_token / peak if peak and tokens_per_s else None,
        "compiled": bool(cfg.compile), "fused_adamw": bool(optimizer.param_groups[0].get("fused")),
    }


def _train(spec: RunSpec, results_root, checkpoint_dir, data_path, device, progress, on_step,
           parallel: DataParallelRank) -> dict:
    started, clock = _now(), time.perf_counter()
    variant, cfg, seed, model_cfg = spec.variant, spec.preset, spec.seed, spec.model
    data = load_subword_dataset(cfg, data_path) if cfg.tokenizer else load_dataset(data_path)
    if data.vocab_size != model_cfg.vocab_size:
        raise ConfigError(f"the data have {data.vocab_size} tokens but the model's vocabulary has {model_cfg.vocab_size}; "
                          f"preset {cfg.name!r} and its tokenizer disagree")

    torch.manual_seed(seed)  # initial weights, and dropout of a single process
    raw = GPT(model_cfg).to(device)
    if parallel.world_size > 1:  # each rank drops out its own rows
        torch.manual_seed(derived_seed("dropout", seed, parallel.rank))
    optimizer = _optimizer(raw, cfg, device)
    scaler = torch.amp.GradScaler("cuda", enabled=device.type == "cuda" and cfg.autocast == "fp16")

    path = spec.checkpoint_path(checkpoint_dir)
    owner = spec.checkpoint_owner(parallel)
    checkpoint = _load_checkpoint(path, owner, cfg.steps, parallel)
    start, losses, history, train_time, earlier_wall = 0, [], [], 0.0, 0.0
    if checkpoint is not None:
        try:
            start, losses, history, train_time, earlier_wall, started = _resume(
                checkpoint, raw, optimizer, scaler, seed, device, parallel)
        except Exception as error:  # noqa: BLE001 (weights of another shape, a mangled optimizer state)
            optimizer = _optimizer(raw, cfg, device)
            scaler = torch.amp.GradScaler("cuda", enabled=device.type == "cuda" and cfg.autocast == "fp16")
            _set_checkpoint_aside(path, "damaged", f"cannot be resumed ({one_line(error)})", parallel)
        else:
            check_start_before_now(started, path)

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
        summed = _all_reduce_sum(torch.stack(pending), parallel).tolist()  # one collective, one wait
        train_time += time.perf_counter() - tick  # waiting for the queued steps is training time
        timed["seconds"] += time.perf_counter() - tick
        first = len(losses)
        pending.clear()
        for offset, value in enumerate(summed):
            global_loss = value / cfg.batch_size
            if not math.isfinite(global_loss):
                raise NonFiniteLoss(f"training loss is {global_loss} at step {first + offset} of {variant} "
                                    f"(preset {cfg.name}, seed {seed}); the run is stopped")
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
        with _autocast(device, cfg):
            _, loss = model(_to_device(x, device), _to_device(y, device))
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
            rng = _rng_states(device, parallel)
            if parallel.main:
                _save_checkpoint(path, {
                    "config_hash": spec.config_hash, "run": owner, "step": done, "model": raw.state_dict(),
                    "optimizer": optimizer.state_dict(), "scaler": scaler.state_dict(), "losses": losses,
                    "history": history, "rng": rng, "train_time": train_time, "started": started,
                    "wall_time": earlier_wall + time.perf_counter() - clock,
                })
        if on_step is not None:
            on_step(step)
    read_losses()
    bar.close()
    throughput = _throughput(raw, cfg, device, optimizer, timed, tokens_per_step)

    by_context, note, causal_stats = final_losses(raw, model_cfg, data, cfg, device, parallel)

    commit, dirty = source_state()
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
        write_result(result, results_root)
        path.unlink(missing_ok=True)
    return result


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
