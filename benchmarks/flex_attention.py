"""The gated models' evaluation forward, dense against flex attention (no T x T bias): tokens/s and their ratio.

The paper's shape (L6 H8 d256 T256) at batch 16 on the CPU, eval mode, no autograd (torch 2.13 has no flex backward
on a CPU). Each model is built once; its dense forward and its flex forward (``GPT.use_flex_attention``, compiled by
default) are timed in interleaved rounds after an untimed warm-up that compiles the kernel; tokens/s is the median
over rounds and the ratio flex/dense the median of the per-round ratios. The largest difference of the logits is
printed beside them (tests/test_flex_attention.py checks the equality on small shapes).

    python benchmarks/flex_attention.py [--variants EGA-MORLET-CAUSAL EGA-MORLET] [--batch 16] [--rounds 5] [--threads 1]
"""
from __future__ import annotations

import argparse
import statistics
import time

import torch

from mope import GPTConfig, build_model

GATED = ("EGA-MORLET-CAUSAL", "EGA-MORLET", "EGA-1-CAUSAL", "EGA-1")


def seconds(model, idx: torch.Tensor, mode: str | None) -> float:
    model.use_flex_attention(mode)
    tick = time.perf_counter()
    model(idx)
    return time.perf_counter() - tick


def main(argv=None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", nargs="+", choices=GATED, default=list(GATED[:2]))
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--context", type=int, default=256)
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--mode", choices=("compiled", "eager"), default="compiled")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    shape = GPTConfig(block_size=args.context, n_layer=args.layers, n_head=args.heads, n_embd=args.width)
    idx = torch.randint(0, shape.vocab_size, (args.batch, args.context), generator=torch.Generator().manual_seed(0))
    tokens = args.batch * args.context
    results: dict[str, dict[str, float]] = {}
    with torch.inference_mode():
        for name in args.variants:
            model = build_model(name, shape, seed=0, knowingly_non_causal=True).eval()
            started = time.perf_counter()
            fused = model.use_flex_attention(args.mode)(idx)[0]  # warm-up: compiles the kernel
            compile_s = time.perf_counter() - started
            dense = model.use_flex_attention(None)(idx)[0]
            times: dict[str, list[float]] = {"dense": [], "flex": []}
            for round_ in range(args.rounds):
                order = (("dense", None), ("flex", args.mode))
                for label, mode in (order if round_ % 2 == 0 else order[::-1]):
                    times[label].append(seconds(model, idx, mode))
            results[name] = {"dense_tokens_per_s": tokens / statistics.median(times["dense"]),
                             "flex_tokens_per_s": tokens / statistics.median(times["flex"]),
                             "ratio": statistics.median(d / f for d, f in zip(times["dense"], times["flex"])),
                             "max_difference": (fused - dense).abs().max().item(), "warm_up_s": compile_s}
    print(f"evaluation forward, L{args.layers} H{args.heads} d{args.width}, batch {args.batch} x {args.context}, "
          f"{torch.get_num_threads()} thread(s), flex {args.mode}, median of {args.rounds} interleaved rounds")
    print(f"{'variant':20s} {'dense tok/s':>12s} {'flex tok/s':>11s} {'flex speed-up':>14s} {'max |diff|':>11s} "
          f"{'warm-up s':>10s}")
    for name, row in results.items():
        print(f"{name:20s} {row['dense_tokens_per_s']:12,.0f} {row['flex_tokens_per_s']:11,.0f} {row['ratio']:14.2f} "
              f"{row['max_difference']:11.1e} {row['warm_up_s']:10.1f}")
    return results


if __name__ == "__main__":
    main()
