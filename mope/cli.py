"""The command line: train one model, run a suite of them, print Table 2 from the stored results.

    python -m mope train EGA-1 --preset cpu --seed 0
    python -m mope suite --preset cpu --seeds 0 1 2 [--variants BASE-DOT EGA-1] [--jobs 2]
    python -m mope table --preset cpu

Results go to ``results/`` (or ``--results-dir`` / ``$MOPE_RESULTS_DIR``), checkpoints to the
gitignored ``checkpoints/`` (or ``$MOPE_CHECKPOINT_DIR``). ``suite`` skips what is stored with the
current configuration. Under ``torchrun --nproc_per_node=N -m mope train ...`` a run is data-parallel.
"""
from __future__ import annotations

import argparse
import os

import torch

from mope.presets import PRESETS, get_preset
from mope.results import ensure_results, load_results, summary_table
from mope.variants import TABLE_2, VARIANTS


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", choices=list(PRESETS), default="cpu", help="training preset (default: cpu)")
    parser.add_argument("--results-dir", help="results root (default: $MOPE_RESULTS_DIR or the repository's results/)")


def _add_training(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", help="TinyShakespeare input.txt or a directory holding it (default: $MOPE_DATA_DIR, cache, download)")
    parser.add_argument("--compile", action="store_true", help="torch.compile the model (speed only; results unchanged)")
    parser.add_argument("--autocast", choices=["bf16", "fp16"],
                        help="CUDA autocast dtype (default: the preset's, bf16; fp16 adds a gradient scaler, as published)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mope", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    train = commands.add_parser("train", help="train one variant with one seed and store its result")
    train.add_argument("variant", choices=list(VARIANTS), metavar="VARIANT",
                       help=f"one of: {', '.join(VARIANTS)}")
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--threads", type=int, help="torch CPU threads for this run")
    train.add_argument("--device", help="torch device (default: cuda if available, else cpu)")
    train.add_argument("--steps", type=int,
                       help="a shortened run (rehearsals, timing): this many iterations, warm-up and "
                            "evaluation scaled to fit; its configuration hash differs from the preset's")
    _add_common(train)
    _add_training(train)

    suite = commands.add_parser("suite", help="train every (variant, seed) not yet stored")
    suite.add_argument("--seeds", type=int, nargs="+", default=[0])
    suite.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=TABLE_2, metavar="VARIANT",
                       help=f"default: the six of Table 2; any of: {', '.join(VARIANTS)}")
    suite.add_argument("--jobs", type=int, default=1, help="independent runs in parallel processes")
    _add_common(suite)
    _add_training(suite)

    table = commands.add_parser("table", help="print Table 2 (paper vs. ours) from the stored results")
    _add_common(table)
    return parser


def _cell(stats: dict) -> str:
    if stats["mean"] is None:
        return "-"
    spread = f" ± {stats['sd']:.4f}" if stats["sd"] is not None else ""
    return f"{stats['mean']:.4f}{spread} (n={stats['n']})"


def format_table(rows: list[dict]) -> str:
    header = ("variant", "paper val", "ours val (random batches)", "ours - paper", "ours whole val")
    lines = [header]
    for row in rows:
        ours, paper = row["val_loss"]["mean"], row["paper_val"]
        lines.append((
            row["variant"], f"{paper:.4f}" if paper is not None else "-", _cell(row["val_loss"]),
            f"{ours - paper:+.4f}" if paper is not None and ours is not None else "-", _cell(row["val_loss_full"]),
        ))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in lines]
    text.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(text)


def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    preset = get_preset(args.preset)
    if getattr(args, "compile", False):
        preset = preset.replace(compile=True)
    if getattr(args, "autocast", None):
        preset = preset.replace(autocast=args.autocast)

    if getattr(args, "steps", None) is not None:
        try:
            preset = preset.shortened(args.steps)
        except ValueError as error:
            parser.error(str(error))

    if args.command == "train":
        from mope.training import train

        if args.threads:
            torch.set_num_threads(args.threads)
        result = train(args.variant, preset, args.seed, results_root=args.results_dir, data_path=args.data,
                       device=args.device, progress=not args.no_progress)
        final = result["final"]
        if os.environ.get("RANK", "0") == "0":  # under torchrun every rank returns the result
            print(f"{args.variant} seed {args.seed}: val {final['val_loss']:.4f}, whole val {final['val_loss_full']:.4f}")
    elif args.command == "suite":
        if args.jobs < 1:
            parser.error(f"--jobs must be a positive integer, got {args.jobs}")
        ensure_results(preset, args.variants, args.seeds, jobs=args.jobs, root=args.results_dir,
                       data_path=args.data, progress=not args.no_progress)
        print(format_table(summary_table(load_results(preset, args.results_dir))))
    else:
        results = load_results(preset, args.results_dir)
        if not results:
            parser.error(f"no stored results for preset {preset.name!r}; run `python -m mope suite --preset {preset.name}`")
        print(format_table(summary_table(results)))
