"""Decoding with the causal gate: ms to give one new token's row of log g, by the cache or by the whole window.

One layer of the paper's shape (d 256, H 8), batch 1, eval mode, no autograd. For each context length T the two
routes are timed in interleaved rounds: ``CausalEnergyGate.step`` from a cache of the T - 1 keys before (O(T) per
token) and ``log_gate`` of the whole window, its last row kept (O(T^2) per token, the only route without a cache).
Each figure is the median of the rounds' medians. The tests count the work instead of timing it
(tests/test_gate_decoding.py), so that no test depends on the machine's speed.

    python benchmarks/gate_decoding.py [--lengths 256 1024 2048] [--rounds 5] [--repeats 20] [--threads 1]
"""
from __future__ import annotations

import argparse
import statistics
import time

import torch

from mope import CausalEnergyGate


def milliseconds(call, repeats: int) -> float:
    """Median ms of ``repeats`` calls."""
    times = []
    for _ in range(repeats):
        tick = time.perf_counter()
        call()
        times.append((time.perf_counter() - tick) * 1e3)
    return statistics.median(times)


def main(argv=None) -> dict[int, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[256, 1024, 2048])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--heads", type=int, default=8)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    gate = CausalEnergyGate(args.width, args.heads).eval()
    results: dict[int, dict[str, float]] = {}
    with torch.inference_mode():
        for length in args.lengths:
            normed = torch.randn(1, length, args.width)
            _, cache = gate.step(normed[:, :-1])
            routes = {"step": lambda: gate.step(normed[:, -1:], cache),
                      "window": lambda: gate.log_gate(normed)[..., -1, :]}
            rounds: dict[str, list[float]] = {name: [] for name in routes}
            for round_ in range(args.rounds):
                for name in (list(routes) if round_ % 2 == 0 else list(routes)[::-1]):
                    rounds[name].append(milliseconds(routes[name], args.repeats))
            results[length] = {name: statistics.median(times) for name, times in rounds.items()}
    print(f"one token's row of log g, d {args.width}, H {args.heads}, batch 1, {torch.get_num_threads()} thread(s), "
          f"median of {args.rounds} rounds x {args.repeats}")
    print(f"{'T':>6s} {'step ms':>9s} {'window ms':>10s} {'window/step':>12s}")
    for length, row in results.items():
        print(f"{length:6d} {row['step']:9.3f} {row['window']:10.3f} {row['window'] / row['step']:12.1f}")
    first, last = args.lengths[0], args.lengths[-1]
    if last != first:
        print(f"growth {first} -> {last} ({last / first:.0f}x the length): step "
              f"{results[last]['step'] / results[first]['step']:.1f}x, window "
              f"{results[last]['window'] / results[first]['window']:.1f}x")
    return results


if __name__ == "__main__":
    main()
