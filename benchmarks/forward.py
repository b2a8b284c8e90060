"""Forward pass of every registry variant at the paper's shape: ms per batch and ratio to BASE-DOT.

Inference only (eval mode, no autograd), batch 8 x 256 by default. Variants are timed in interleaved
rounds whose order rotates, so a slow-down of a shared machine hits all alike; each ratio is the
median of the per-round ratios to BASE-DOT.

    python benchmarks/forward.py [--batch 8] [--rounds 5] [--threads 1] [--variants ...]
"""
from __future__ import annotations

import argparse
import statistics
import time

import torch

from mope import VARIANTS, GPTConfig, build_model


def forward_ms(model, idx: torch.Tensor) -> float:
    tick = time.perf_counter()
    model(idx)
    return (time.perf_counter() - tick) * 1e3


def main(argv=None) -> dict[str, tuple[float, float]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--context", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS))
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    names = ["BASE-DOT"] + [n for n in args.variants if n != "BASE-DOT"]
    shape = GPTConfig(block_size=args.context)
    models = {n: build_model(n, shape, seed=0, knowingly_non_causal=True).eval() for n in names}
    idx = torch.randint(0, shape.vocab_size, (args.batch, args.context), generator=torch.Generator().manual_seed(0))
    times: dict[str, list[float]] = {n: [] for n in names}
    with torch.inference_mode():
        for model in models.values():  # warm-up
            model(idx)
        for round_ in range(args.rounds):
            order = names[round_ % len(names):] + names[: round_ % len(names)]
            for name in order:
                times[name].append(forward_ms(models[name], idx))
    summary = {}
    print(f"forward, batch {args.batch} x {args.context}, paper shape, {torch.get_num_threads()} thread(s), "
          f"{args.rounds} rounds")
    print(f"{'variant':20s} {'ms/batch':>9s} {'ratio':>6s}")
    for name in names:
        ratio = statistics.median(t / b for t, b in zip(times[name], times["BASE-DOT"]))
        summary[name] = (statistics.median(times[name]), ratio)
        print(f"{name:20s} {summary[name][0]:9.0f} {ratio:6.2f}")
    return summary


if __name__ == "__main__":
    main()
