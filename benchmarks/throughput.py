"""Training throughput of every registry variant, as a ratio to BASE-DOT measured in the same run.

One training step = forward + backward + AdamW step (lr 3e-4, betas (0.9, 0.95), decay 0.1 on the
groups the model gives), on a fixed random batch, dropout on (train mode). After a warm-up, every
model is timed in ROUNDS: each round times every model once (the order rotates from round to round),
so that a slow-down of the shared machine hits all models alike. A model's tokens/s is the median
over rounds; its ratio to BASE-DOT is the median over rounds of the per-round ratio.

The REFERENCE is a plain nanoGPT-style GPT written here (fused QKV Linear(d, 3d), SDPA with
``is_causal=True``, learned positions, pre-LN, tied head, GELU MLP 4x): the same architecture and
parameter count as BASE-DOT, the bar BASE-DOT must meet.

Peak memory (``--memory``, paper shape, batch 64): each model's first training step runs in a fresh
subprocess; on the CPU the figure is the increase of the peak resident set size
(``ru_maxrss``) over its value just before the step (activations, gradients and AdamW state; the
weights themselves are not included); on CUDA it is ``torch.cuda.max_memory_allocated`` minus the
memory allocated before the step.

    python benchmarks/throughput.py                       # both shapes, every variant, memory
    python benchmarks/throughput.py --quick               # a short pass
    python benchmarks/throughput.py --shapes cpu --variants BASE-DOT PE-MORLET --repeats 9
    python benchmarks/throughput.py --compile --shapes cpu --variants BASE-DOT --no-reference --no-memory
"""
from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

from mope import VARIANTS, GPTConfig, build_model

REFERENCE = "REFERENCE"
BASELINE = "BASE-DOT"
COMPILED = "+compile"  # suffix of a torch.compile'd copy of a model, timed next to the eager one


# ----------------------------------------------------------------------------- shapes
def shape_of(name: str, device: str) -> tuple[GPTConfig, int]:
    """(model shape, batch size) of a named benchmark shape."""
    presets = None
    with contextlib.suppress(ImportError):
        from mope.store import presets
    if name in ("cpu", "smoke") and presets is not None and name in getattr(presets, "PRESETS", {}):
        preset = presets.PRESETS[name]
        return preset.shape(), preset.batch_size
    if name == "cpu":
        return GPTConfig(n_layer=4, n_head=4, n_embd=128, block_size=128, dropout=0.1), 32
    if name == "smoke":
        return GPTConfig(n_layer=2, n_head=2, n_embd=32, block_size=32, dropout=0.1), 8
    if name == "paper":
        return GPTConfig(dropout=0.1), (64 if device == "cuda" else 16)
    raise ValueError(f"unknown shape {name!r}; valid shapes: cpu, paper, smoke")


# ----------------------------------------------------------------------------- reference model
class ReferenceBlock(nn.Module):
    def __init__(self, c: GPTConfig):
        super().__init__()
        self.n_head, self.dropout = c.n_head, c.dropout
        self.ln_1 = nn.LayerNorm(c.n_embd)
        self.qkv = nn.Linear(c.n_embd, 3 * c.n_embd, bias=False)
        self.proj = nn.Linear(c.n_embd, c.n_embd)
        self.ln_2 = nn.LayerNorm(c.n_embd)
        self.up = nn.Linear(c.n_embd, 4 * c.n_embd)
        self.down = nn.Linear(4 * c.n_embd, c.n_embd)
        self.drop = nn.Dropout(c.dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln_1(x)).view(B, T, 3, self.n_head, C // self.n_head).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout if self.training else 0.0,
                                           is_causal=True)
        x = x + self.drop(self.proj(y.transpose(1, 2).reshape(B, T, C)))
        return x + self.drop(self.down(F.gelu(self.up(self.ln_2(x)))))


class ReferenceGPT(nn.Module):
    """nanoGPT-style GPT, same shape and parameter count as BASE-DOT."""

    def __init__(self, c: GPTConfig):
        super().__init__()
        self.tok = nn.Embedding(c.vocab_size, c.n_embd)
        self.pos = nn.Embedding(c.block_size, c.n_embd)
        self.drop = nn.Dropout(c.dropout)
        self.blocks = nn.ModuleList(ReferenceBlock(c) for _ in range(c.n_layer))
        self.ln_f = nn.LayerNorm(c.n_embd)
        self.head = nn.Linear(c.n_embd, c.vocab_size, bias=False)
        self.head.weight = self.tok.weight
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=0.02)
            if isinstance(m, nn.Linear) and m.bias is not None:
                nn.init.zeros_(m.bias)

    def forward(self, idx, targets=None):
        x = self.drop(self.tok(idx) + self.pos.weight[: idx.size(1)])
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.ln_f(x))
        loss = None if targets is None else F.cross_entropy(logits.flatten(0, 1).float(), targets.flatten())
        return logits, loss

    def optimizer_groups(self, weight_decay: float) -> list[dict]:
        return [{"params": list(self.parameters()), "weight_decay": weight_decay}]


def make_model(name: str, shape: GPTConfig) -> nn.Module:
    torch.manual_seed(0)
    return ReferenceGPT(shape) if name == REFERENCE else build_model(name, shape=shape, seed=0, knowingly_non_causal=True)


# ----------------------------------------------------------------------------- one model's training step
@dataclass
class Runner:
    name: str
    model: nn.Module
    step_fn: object
    tokens_per_step: int
    steps_per_repeat: int = 1
    compile_s: float | None = None
    samples: list[float] = field(default_factory=list)  # seconds per step, one per round


def make_runner(name: str, shape: GPTConfig, batch: int, device: str) -> Runner:
    compile_model = name.endswith(COMPILED)
    model = make_model(name.removesuffix(COMPILED), shape).to(device).train()
    optimizer = torch.optim.AdamW(model.optimizer_groups(0.1), lr=3e-4, betas=(0.9, 0.95), eps=1e-8)
    generator = torch.Generator().manual_seed(1234)
    data = torch.randint(shape.vocab_size, (batch, shape.block_size + 1), generator=generator).to(device)
    x, y = data[:, :-1].contiguous(), data[:, 1:].contiguous()
    forward = torch.compile(model) if compile_model else model
    autocast = (torch.autocast("cuda", dtype=torch.bfloat16) if device == "cuda" else contextlib.nullcontext())

    def step():
        with autocast:
            _, loss = forward(x, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    return Runner(name, model, step, batch * shape.block_size)


def sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def timed(runner: Runner, device: str, steps: int) -> float:
    sync(device)
    start = time.perf_counter()
    for _ in range(steps):
        runner.step_fn()
    sync(device)
    return (time.perf_counter() - start) / steps


def measure_shape(shape_name: str, names: list[str], args, device: str) -> dict:
    shape, batch = shape_of(shape_name, device)
    if args.batch:
        batch = args.batch
    runners = []
    for name in names:
        runner = make_runner(name, shape, batch, device)
        start = time.perf_counter()
        runner.step_fn()  # first step: allocations, AdamW state, compilation
        sync(device)
        runner.compile_s = time.perf_counter() - start
        per_step = min(timed(runner, device, 1) for _ in range(args.warmup))
        runner.steps_per_repeat = max(1, math.ceil(args.min_time / per_step))
        runners.append(runner)
        print(f"  {shape_name}: {name:<24} {1e3 * per_step:8.0f} ms/step (warm-up)", file=sys.stderr, flush=True)
    repeats = args.repeats or (3 if args.quick or shape_name == "paper" else 5)
    for round_ in range(repeats):
        shift = round_ % len(runners)
        for runner in runners[shift:] + runners[:shift]:
            runner.samples.append(timed(runner, device, runner.steps_per_repeat))
        print(f"  {shape_name}: round {round_ + 1}/{repeats} done", file=sys.stderr, flush=True)
    base = next(r for r in runners if r.name == BASELINE) if BASELINE in names else None
    rows = {}
    for runner in runners:
        tokens = [runner.tokens_per_step / s for s in runner.samples]
        row = {
            "tokens_per_s": statistics.median(tokens),
            "ms_per_step": 1e3 * statistics.median(runner.samples),
            "spread": (max(tokens) - min(tokens)) / statistics.median(tokens),
            "steps_per_repeat": runner.steps_per_repeat,
        }
        if base is not None:
            row["ratio"] = statistics.median(b / s for s, b in zip(runner.samples, base.samples))
        row["first_step_s"] = runner.compile_s
        rows[runner.name] = row
    params = {r.name: sum(p.numel() for p in r.model.parameters()) for r in runners}
    for name, count in params.items():
        rows[name]["parameters"] = count
    return {"shape": shape.to_dict(), "batch": batch, "rounds": repeats, "rows": rows}


# ----------------------------------------------------------------------------- peak memory, one subprocess per model
def memory_child(name: str, shape_name: str, batch: int, device: str, threads: int) -> dict:
    torch.set_num_threads(threads)
    shape, _ = shape_of(shape_name, device)
    runner = make_runner(name, shape, batch, device)
    if device == "cuda":
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        runner.step_fn()
        torch.cuda.synchronize()
        return {"peak_mib": (torch.cuda.max_memory_allocated() - before) / 2**20}
    # ru_maxrss survives fork + exec: a child starts with its parent's high-water mark (the parent
    # holds every timed model), so read the peak of this process's own memory map, VmHWM, reset to the
    # current RSS just before the step (writing 5 to clear_refs); ru_maxrss where /proc is missing.
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        before = peak_rss_kib()
        runner.step_fn()
        return {"peak_mib": (peak_rss_kib() - before) / 1024, "method": "VmHWM"}
    except OSError:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
        runner.step_fn()
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return {"peak_mib": (after - before) / 1024, "method": "ru_maxrss"}


def peak_rss_kib() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise OSError("no VmHWM in /proc/self/status")


def measure_memory(names: list[str], args, device: str) -> dict:
    batch = args.memory_batch
    found = {}
    for name in names:
        command = [sys.executable, os.path.abspath(__file__), "--memory-child", name, "--shapes", args.memory_shape,
                   "--memory-batch", str(batch), "--threads", str(args.threads), "--device", device]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode:
            found[name] = {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed"}
        else:
            found[name] = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"  memory {name:<20} {found[name]}", file=sys.stderr, flush=True)
    return {"shape": args.memory_shape, "batch": batch, "rows": found}


# ----------------------------------------------------------------------------- report
def machine(device: str, threads: int) -> dict:
    model_name = platform.processor()
    with contextlib.suppress(Exception):
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                model_name = line.split(":", 1)[1].strip()
    info = {"cpu": model_name, "cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
            "torch": torch.__version__, "threads": threads, "device": device,
            "date": datetime.date.today().isoformat(), "python": platform.python_version()}
    if device == "cuda":
        info["gpu"] = torch.cuda.get_device_name()
    return info


def print_table(results: dict) -> None:
    shapes = list(results["shapes"])
    names = list(dict.fromkeys(n for s in shapes for n in results["shapes"][s]["rows"]))
    memory = results.get("memory", {}).get("rows", {})
    header = f"{'model':<20}" + "".join(f"{s + ' tok/s':>14}{'ratio':>8}" for s in shapes)
    if memory:
        header += f"{'peak MiB':>10}"
    print(header)
    for name in names:
        line = f"{name:<20}"
        for s in shapes:
            row = results["shapes"][s]["rows"].get(name)
            line += (f"{row['tokens_per_s']:>14,.0f}{row.get('ratio', float('nan')):>8.3f}" if row else " " * 22)
        if memory:
            peak = memory.get(name, {}).get("peak_mib")
            line += f"{peak:>10.0f}" if peak is not None else f"{'-':>10}"
        print(line)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shapes", nargs="*", default=["cpu", "paper"], choices=["cpu", "paper", "smoke"])
    parser.add_argument("--variants", nargs="+", default=None, help="registry names (default: all); "
                        "BASE-DOT and the reference are always added")
    parser.add_argument("--repeats", type=int, default=None, help="timed rounds (default 5, 3 at the paper shape and with --quick)")
    parser.add_argument("--warmup", type=int, default=None, help="timed warm-up steps after the first (default 1)")
    parser.add_argument("--min-time", type=float, default=None,
                        help="seconds one timed repeat lasts at least (default 0.4, --quick 0.1)")
    parser.add_argument("--batch", type=int, default=None, help="override the shape's batch size")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: the cores available)")
    parser.add_argument("--device", default=None, choices=["cpu", "cuda"])
    parser.add_argument("--compile", action="store_true",
                        help="also time a torch.compile'd copy of every selected model (labelled NAME+compile)")
    parser.add_argument("--no-reference", action="store_true")
    parser.add_argument("--memory", action=argparse.BooleanOptionalAction, default=None,
                        help="peak memory per model in fresh subprocesses (default: on, off with --quick)")
    parser.add_argument("--memory-shape", default="paper", choices=["cpu", "paper", "smoke"])
    parser.add_argument("--memory-batch", type=int, default=64)
    parser.add_argument("--quick", action="store_true", help="fewer rounds, shorter repeats, no memory")
    parser.add_argument("--json", default=None, help="write the results here")
    parser.add_argument("--memory-child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if args.threads is None:
        args.threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    torch.set_num_threads(args.threads)
    if args.memory_child:
        print(json.dumps(memory_child(args.memory_child, args.shapes[0], args.memory_batch, device, args.threads)))
        return {}
    args.warmup = args.warmup or 1
    args.min_time = args.min_time if args.min_time is not None else (0.1 if args.quick else 0.4)
    if args.memory is None:
        args.memory = not args.quick

    names = list(args.variants or VARIANTS)
    for name in names:
        if name not in VARIANTS and name != REFERENCE:
            raise SystemExit(f"unknown variant {name!r}; valid variants: {', '.join(VARIANTS)}")
    names = [BASELINE] + [n for n in names if n not in (BASELINE, REFERENCE)]
    if not args.no_reference:
        names.append(REFERENCE)
    if args.compile:
        names += [name + COMPILED for name in names]

    results = {"machine": machine(device, args.threads), "compile": args.compile,
               "shapes": {}}
    started = time.perf_counter()

    def save() -> None:
        results["seconds"] = time.perf_counter() - started
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=1)

    if args.memory:  # first, while this process is small
        print(f"memory at shape {args.memory_shape}, batch {args.memory_batch} ...", file=sys.stderr, flush=True)
        results["memory"] = measure_memory([n for n in names if not n.endswith(COMPILED)], args, device)
        save()
    for shape_name in args.shapes:
        print(f"shape {shape_name}: {len(names)} models ...", file=sys.stderr, flush=True)
        results["shapes"][shape_name] = measure_shape(shape_name, names, args, device)
        save()
    m = results["machine"]
    print(f"{m['cpu']} ({m['cores']} cores), torch {m['torch']}, {m['threads']} threads, device {device}, "
          f"{m['date']}, compile={args.compile}, {results['seconds']:.0f} s")
    print_table(results)
    return results


if __name__ == "__main__":
    main()
