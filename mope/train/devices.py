"""Where a run computes: the torch device it trains on (:func:`resolve_device`, named in its provenance by
:func:`describe_device` and :func:`cpu_capability`), its place in a data-parallel run under ``torchrun``
(:class:`DataParallelRank`; a run without torchrun is rank 0 of 1, ``SINGLE_PROCESS``), and what differs
between a CPU and a GPU without changing a CPU run's numbers: autocast, batches sent from pinned memory without
waiting, fused AdamW (:func:`use_fused_adamw`), sums all-reduced across the ranks; and how fast a run trained there,
as its result records it in ``provenance.throughput`` (:func:`measured_throughput`: tokens/s after the first step,
FLOPs per token, the device's dense peak where a datasheet gives one, MFU; none of it enters the hash)."""
from __future__ import annotations

import contextlib
import os
import platform
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.distributed as dist

from mope.errors import ConfigError
from mope.model.gpt import GPT
from mope.store.presets import TrainConfig

ENV_FUSED_ADAMW = "MOPE_FUSED_ADAMW"  # 1 / 0: force fused AdamW on or off (default: on CUDA only)


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
        """The place ``torchrun``'s variables give (none: rank 0 of 1); a value that is not one it could set is named."""
        def number(name: str, default: int, minimum: int) -> int:
            text = os.environ.get(name, str(default))
            try:
                value = int(text)
            except ValueError:
                value = None
            if value is None or value < minimum:
                raise ConfigError(f"${name}={text!r} is not an integer >= {minimum}; torchrun sets it (unset it to "
                                  "train in one process)")
            return value

        rank, world_size = number("RANK", 0, 0), number("WORLD_SIZE", 1, 1)
        if rank >= world_size:
            raise ConfigError(f"$RANK={rank} is not below $WORLD_SIZE={world_size}; torchrun sets both (unset them "
                              "to train in one process)")
        return cls(rank, world_size, number("LOCAL_RANK", 0, 0))


SINGLE_PROCESS = DataParallelRank()


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


def autocast(device: torch.device, cfg: TrainConfig):
    if device.type != "cuda":
        return contextlib.nullcontext()  # float32 on the CPU
    return torch.autocast("cuda", dtype=torch.bfloat16 if cfg.autocast == "bf16" else torch.float16)


def all_reduce_sum(value: torch.Tensor, parallel: DataParallelRank) -> torch.Tensor:
    if parallel.world_size > 1:
        dist.all_reduce(value)
    return value



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



def to_device(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
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


def measured_throughput(raw: GPT, cfg: TrainConfig, device: torch.device, optimizer, timed: dict,
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
