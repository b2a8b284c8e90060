"""The command line: train one model, run a suite of them, print Table 2 from the stored results.

    python -m mope train EGA-1 --preset cpu --seed 0
    python -m mope suite --preset cpu --seeds 0 1 2 [--variants BASE-DOT EGA-1] [--jobs 2]
    python -m mope table --preset cpu
    python -m mope claims --preset cpu [--json]
    python -m mope claims --standing [--json]   # each claim's standing across every preset with runs
    python -m mope progress [--preset paper]   # the records of the runs in progress, from their checkpoints
    python -m mope stamp          # before sending a clean checkout, without .git, to another machine

Results go to ``results/`` (or ``--results-dir`` / ``$MOPE_RESULTS_DIR``), checkpoints to the
gitignored ``checkpoints/`` (or ``$MOPE_CHECKPOINT_DIR``): both in the source checkout, or in the
current directory for a package installed without one (:func:`mope.store.results.default_home`). ``suite`` skips what is stored with the
current configuration; two suites on one store train each run once (a run holds a lock beside its
checkpoint while it trains, and a suite that meets it waits, then takes the stored result). Under ``torchrun --nproc_per_node=N -m mope train ...`` a run is data-parallel.

A mistake a user can make (a bad name or number, missing data, an unwritable folder, a device that is
not there, a full disk, a diverging run, Ctrl-C, a closed pipe) ends in one line on stderr and a
non-zero exit code: 2 for a bad argument (argparse's, or a :class:`~mope.errors.ConfigError`), 130
when interrupted, 141 for a closed pipe, 1 otherwise; ``--debug`` shows the traceback as well.
``table``, ``suite`` and ``claims`` name on stderr, one line per file, every stored file they leave
out (stale, misfiled or damaged); ``claims --json`` lists them under ``"skipped"``.
"""
from __future__ import annotations

import argparse
import json
import os
import stat
import sys
import traceback

from mope.errors import ConfigError, UserError, listed_more_than_once, shown
from mope.store.presets import AUTOCAST_DTYPES, MIN_STEPS, PRESETS, STANDING_PRESETS, get_preset, with_autocast
from mope.store.in_progress import RECORDED
from mope.store.result_schema import MAX_COUNT
from mope.store.results import ENV_RESULTS_DIR, in_source_checkout, results_root, scan
from mope.train import data
from mope.train.checkpoints import ENV_CHECKPOINT_DIR, checkpoint_root
from mope.train.devices import core_count
from mope.train.loop import MAX_SEED
from mope.model.variants import TABLE_2, VARIANTS

EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 1, 2, 130, 141


def seed_number(text: str) -> int:
    try:
        seed = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 0 <= seed < MAX_SEED:
        raise argparse.ArgumentTypeError(f"{seed} is outside 0 <= seed < 2**32")
    return seed


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a positive integer (>= 1)")
    return value


def step_count(text: str) -> int:
    value = positive_int(text)
    if value < MIN_STEPS:
        raise argparse.ArgumentTypeError(f"{value} steps is too short; a shortened run needs at least {MIN_STEPS}")
    if value > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"{value} steps could never be stored (a result holds at most {MAX_COUNT:,}); "
                                         f"choose {MIN_STEPS}..{MAX_COUNT}")
    return value


def thread_count(text: str) -> int:
    """``--threads``: 1 up to the cores this process may use (more oversubscribes them, and an absurd
    number makes OpenMP fail to create its threads or crash)."""
    value = positive_int(text)
    cores = core_count()
    if value > cores:
        raise argparse.ArgumentTypeError(f"{value} threads asked for, but this process may use {cores} "
                                         f"core{'s' if cores > 1 else ''}; choose 1..{cores}")
    return value


def clipped(text: str, limit: int = 200) -> str:
    """``text`` cut in its middle to at most ``limit`` characters (a path thousands long, quoted in an error)."""
    return text if len(text) <= limit else f"{text[:limit - 41]}…{text[-40:]}"


def path_text(text: str) -> str:
    """A path option's value: not empty (a path of '' would be read as the current directory)."""
    if text == "":
        raise argparse.ArgumentTypeError("an empty path; name a file or folder, or leave the option out for its default")
    return text


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", choices=list(PRESETS), default="cpu", help="training preset (default: cpu)")
    parser.add_argument("--results-dir", type=path_text,
                        help="results root (default: $MOPE_RESULTS_DIR, else results/ of the source checkout, or of the "
                             "current directory for an installed package)")
    _add_debug(parser)


def _add_debug(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error, not just its message")


def _add_training(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=path_text, help="TinyShakespeare input.txt or a directory holding it (default: $MOPE_DATA_DIR, cache, download)")
    parser.add_argument("--compile", action="store_true",
                        help="torch.compile the training forward (a CUDA speed-up; off by default). Compiled dropout "
                             "draws other random numbers, so a compiled run matches an uncompiled one in distribution, "
                             "not bit for bit; on the CPU compiling takes about a minute")
    parser.add_argument("--autocast", choices=AUTOCAST_DTYPES,
                        help="CUDA autocast dtype (default: the preset's, bf16; fp16 adds a gradient scaler, as published)")
    parser.add_argument("--checkpoint-interval", type=positive_int, metavar="STEPS",
                        help="steps between checkpoints (default: the preset's); it changes where an interrupted run "
                             "resumes, never its numbers, and is left out of the configuration's hash")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


class CommandLineParser(argparse.ArgumentParser):
    """argparse's parser, whose bad argument is one line on stderr (exit 2) without the usage block before it; its
    subcommands' parsers are of this class too."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = CommandLineParser(prog="mope", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    train = commands.add_parser("train", help="train one variant with one seed and store its result")
    train.add_argument("variant", choices=list(VARIANTS), metavar="VARIANT",
                       help=f"one of: {', '.join(VARIANTS)}")
    train.add_argument("--seed", type=seed_number, default=0, help="0 <= seed < 2**32 (default: 0)")
    train.add_argument("--threads", type=thread_count, help="torch CPU threads for this run (1 up to the cores available)")
    train.add_argument("--device", help="torch device (default: cuda if available, else cpu)")
    train.add_argument("--steps", type=step_count,
                       help="a shortened run (rehearsals, timing): this many iterations, warm-up and "
                            "evaluation scaled to fit, filed under its own name PRESET-stepsN so that it "
                            "never touches the preset's checkpoints or results")
    train.add_argument("--unless-stored", action="store_true",
                       help="return a current stored result of this run instead of training it again (what suite's runs do)")
    _add_common(train)
    _add_training(train)

    suite = commands.add_parser("suite", help="train every (variant, seed) not yet stored")
    suite.add_argument("--seeds", type=seed_number, nargs="+", default=[0], help="0 <= seed < 2**32")
    suite.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=TABLE_2, metavar="VARIANT",
                       help=f"default: the six of Table 2; any of: {', '.join(VARIANTS)}")
    suite.add_argument("--jobs", type=positive_int, default=1, help="independent runs in parallel processes")
    _add_common(suite)
    _add_training(suite)

    table = commands.add_parser("table", help="print Table 2 (paper vs. ours) from the stored results")
    _add_common(table)

    claims = commands.add_parser("claims", help="the paper's claims with our verdicts on the stored runs (as the book shows them)")
    claims.add_argument("--json", action="store_true",
                        help="a JSON object: preset, current_runs, claims (one object per claim, as "
                             "mope.evidence.claims.claim_records gives them) and skipped (path, kind, reason of every "
                             "stored file left out)")
    claims.add_argument("--standing", action="store_true",
                        help=f"each claim's standing across the presets {', '.join(STANDING_PRESETS)} (holds at "
                             "every scale that decides it, fails at every scale that decides it, depends on the scale, "
                             "not settled wherever tested, one seed only wherever tested, not tested) beside its verdict on each; with "
                             "--json a list of {key, claim, standing, holds_on, fails_on, by_preset}")
    claims.add_argument("--confirmed", nargs="+", metavar="KEY",
                        help="exit 0 if any of these claims is confirmed on the preset, else 1 (what the CPU suite "
                             "asks before a conditional stage); prints each claim's verdict")
    _add_common(claims)
    claims.set_defaults(preset=None)  # cpu, unless --standing, which reads every preset

    progress = commands.add_parser(
        "progress", help="write the record of every unfinished run of an evidence preset from its checkpoint "
                         "(results/in_progress/, read by no verdict) and remove the records of runs stored since")
    progress.add_argument("--preset", choices=list(PRESETS),
                          help=f"only this preset's runs (default: every evidence preset: {', '.join(RECORDED)})")
    progress.add_argument("--results-dir", type=path_text, help="results root the records go under (default: as for train)")
    progress.add_argument("--checkpoint-dir", type=path_text, help=f"where the checkpoints lie (default: ${ENV_CHECKPOINT_DIR}, else "
                                                   "checkpoints/ beside results/)")
    _add_debug(progress)

    stamp = commands.add_parser("stamp", help="write .source-stamp.json, which lets a copy of this clean checkout "
                                              "without .git (a GPU machine) record its commit")
    _add_debug(stamp)
    return parser


def _cell(estimate) -> str:
    """"mean ± sd (n=N)" of an :class:`~mope.evidence.estimates.Estimate`, four decimals; "-" without runs."""
    return estimate.format(decimals=4) if estimate.n else "-"


def format_table(runs: list[dict]) -> str:
    """Table 2 of the stored ``runs``: per variant, the paper's Val, our random-batch validation loss
    (mean ± sd over seeds, :func:`mope.evidence.estimates.summary`), ours minus the paper's, our whole-split loss."""
    from mope.evidence import estimates, paper  # no scipy needed: means and sds only

    header = ("variant", "paper val", "ours val (random batches)", "ours - paper", "ours whole val")
    lines = [header]
    for variant, losses in estimates.summary(runs).items():
        ours, published = losses["val_loss"].mean, paper.TABLE_2_VAL.get(variant)
        lines.append((
            variant, f"{published:.4f}" if published is not None else "-", _cell(losses["val_loss"]),
            f"{ours - published:+.4f}" if published is not None and ours is not None else "-",
            _cell(losses["val_loss_full"]),
        ))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in lines]
    text.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(text)


def _print_notices(found) -> None:
    for notice in found.notices():
        print(f"notice: {notice}", file=sys.stderr)


def _print_table(preset, results_dir) -> bool:
    """Table 2 from the current runs, the stale and invalid ones named below it; False if none is current."""
    found = scan(preset, results_dir)
    if found.current:
        print(format_table(found.current))
    _print_notices(found)
    return bool(found.current)


def _check_store(results_dir) -> None:
    """A reader pointed at a folder that is not there says so (it would otherwise report 'no runs'); one that is
    there is where every reader of this process looks (the claims read the store through its default root)."""
    root = results_root(results_dir)
    named = (f"--results-dir {clipped(shown(results_dir))}" if results_dir is not None else
             f"the results folder ${ENV_RESULTS_DIR}={clipped(shown(root))}" if os.environ.get(ENV_RESULTS_DIR)
             else f"the results folder {shown(root)}")
    fix = ("give the folder that holds <preset>/<variant>/seed<N>.json, or leave it out for the default results/"
           if results_dir is not None else f"point ${ENV_RESULTS_DIR} at the folder that holds "
           "<preset>/<variant>/seed<N>.json, or unset it for the default results/" if os.environ.get(ENV_RESULTS_DIR)
           else f"make it readable, or point ${ENV_RESULTS_DIR} at the folder that holds <preset>/<variant>/seed<N>.json")
    bad = ConfigError if results_dir is not None else UserError  # a bad argument, or a bad environment
    try:
        is_folder, there = stat.S_ISDIR(os.stat(root).st_mode), True
    except (FileNotFoundError, NotADirectoryError):
        is_folder, there = False, os.path.lexists(root)
    except OSError as error:  # a name too long for the file system, a loop of links
        raise bad(f"{named} cannot be opened ({error.strerror}); {fix}") from None
    if is_folder and not os.access(root, os.R_OK | os.X_OK):
        raise bad(f"{named} may not be read by this user (permission denied); {fix}")
    if is_folder:
        if results_dir:
            os.environ[ENV_RESULTS_DIR] = str(results_dir)
        return
    raise bad(f"{named} is not a folder; {fix}" if there else f"{named}: no such folder; {fix}")


def _print_claims(preset, results_dir, as_json: bool) -> None:
    """The claims of ``preset``; every stored file left out named on stderr (and, as JSON, listed)."""
    from mope.evidence.claims_json import claims_document
    from mope.evidence.claims import claims_report

    found = scan(preset, results_dir)
    if as_json:
        report = json.dumps(claims_document(preset, results_dir, found), indent=1, ensure_ascii=False, allow_nan=False)
    else:
        report = claims_report(preset.name)
    print(report)
    _print_notices(found)


def _any_confirmed(preset, keys: list[str], results_dir, as_json: bool) -> bool:
    """Print the verdict of each claim ``keys`` on ``preset`` (as JSON: the claims document's records of those
    claims, with the files left out), every stored file left out named on stderr; True if one is confirmed."""
    from mope.evidence.claims import CLAIMS_BY_KEY
    from mope.evidence.claims_json import claims_document

    unknown = [key for key in keys if key not in CLAIMS_BY_KEY]
    if unknown:
        raise ConfigError(f"unknown claim {', '.join(unknown)}; valid claims: {', '.join(CLAIMS_BY_KEY)}")
    found = scan(preset, results_dir)
    document = claims_document(preset, results_dir, found)
    records = {record["key"]: record for record in document["claims"] if record["key"] in keys}
    if as_json:
        print(json.dumps({**document, "claims": [records[key] for key in keys]}, indent=1, ensure_ascii=False,
                         allow_nan=False))
    else:
        for key in keys:
            print(f"{preset.name} {key}: {records[key]['verdict']}")
    _print_notices(found)
    return any(records[key]["outcome"] == "confirmed" for key in keys)


def _print_standing(results_dir, as_json: bool) -> None:
    """Every claim's standing across the presets (mope.evidence.standings.standing_report); every stored file
    left out named on stderr, preset by preset."""
    from mope.evidence.standings import standing_report

    print(standing_report(as_json))
    for preset in STANDING_PRESETS:
        _print_notices(scan(preset, results_dir))


def _check_autocast(args) -> None:
    """Another ``--autocast`` than the preset's changes the arithmetic of CUDA alone: a run on the CPU computes in
    float32, and would be filed under the autocast's name though nothing of it changed."""
    import torch

    from mope.train.devices import resolve_device

    on = resolve_device(args.device).type if args.command == "train" else (
        "cuda" if torch.cuda.is_available() else "cpu")
    if on != "cuda":
        raise ConfigError(f"--autocast {args.autocast} applies on CUDA only; this run would compute in float32 on the "
                          "CPU and be filed as if it had not: leave out --autocast")


def _check_repeats(args) -> None:
    for option in ("seeds", "variants", "confirmed"):
        repeated = listed_more_than_once(getattr(args, option, None) or [])
        if repeated:
            raise ConfigError(f"--{option} lists {', '.join(repeated)} more than once; give each once")


def say_where(args) -> None:
    """A package installed without its source checkout keeps its runs under the current directory: say where
    the command reads and writes, on stderr, before it writes anything, and how to choose other places."""
    if in_source_checkout() or args.command == "stamp":
        return
    places = [f"results in {shown(results_root(args.results_dir).resolve())}"]
    choices = [f"--results-dir or ${ENV_RESULTS_DIR}"]
    if args.command in ("train", "suite"):
        places += [f"checkpoints in {shown(checkpoint_root().resolve())}",
                   f"TinyShakespeare from {shown(data.source(args.data))}"]
        choices += [f"${ENV_CHECKPOINT_DIR}", f"--data or ${data.ENV_DATA_DIR}"]
    print(f"notice: mope runs without a source checkout: {', '.join(places)} (choose others with "
          f"{', '.join(choices)})", file=sys.stderr)


def run(args) -> None:
    say_where(args)
    if args.command == "stamp":
        from mope.store.code_version import write_stamp

        print(f"wrote {write_stamp().name}: a copy of this commit without .git can now record it")
        return
    if args.command == "claims" and args.standing:
        if args.preset is not None:
            raise ConfigError(f"--standing judges every preset ({', '.join(STANDING_PRESETS)}); leave out "
                              f"--preset {args.preset}, or drop --standing for that preset's claims")
        if args.confirmed:
            raise ConfigError("--standing and --confirmed answer different questions (every claim's standing; whether "
                              "one of these claims is confirmed on a preset); give one of them")
        _check_store(args.results_dir)
        _print_standing(args.results_dir, args.json)
        return
    if args.command == "progress":
        from mope.train.progress import record_progress

        if args.checkpoint_dir is not None and os.path.lexists(args.checkpoint_dir) and not os.path.isdir(
                args.checkpoint_dir):  # none there is no run in progress; a file is a mistake
            raise ConfigError(f"--checkpoint-dir {shown(args.checkpoint_dir)} is not a folder; give the folder that "
                              "holds <preset>/<variant>/seed<N>-<hash>.pt, or leave it out for the default")
        if args.results_dir is not None and os.path.lexists(args.results_dir) and not os.path.isdir(args.results_dir):
            raise ConfigError(f"--results-dir {shown(args.results_dir)} is not a folder; give the folder that holds "
                              "the stored runs, the records going under its in_progress/, or leave it out for the default")
        done = record_progress([args.preset] if args.preset else None, args.checkpoint_dir, args.results_dir)
        lines = done.lines(args.results_dir)
        print("\n".join(lines) if lines else f"no run in progress: no checkpoint of an evidence preset under "
              f"{shown(checkpoint_root(args.checkpoint_dir))}")
        return
    preset = get_preset(args.preset or "cpu")
    if getattr(args, "compile", False):
        preset = preset.replace(compile=True)
    if getattr(args, "autocast", None) not in (None, preset.autocast):  # the preset's own is what it runs anyway
        _check_autocast(args)
    preset = with_autocast(preset, getattr(args, "autocast", None))
    if getattr(args, "checkpoint_interval", None) is not None:
        preset = preset.replace(checkpoint_interval=args.checkpoint_interval)
    if getattr(args, "steps", None) is not None:
        preset = preset.shortened(args.steps)

    if args.command == "train":
        import torch

        from mope.train.devices import DataParallelRank
        from mope.train.loop import train

        if args.threads:
            torch.set_num_threads(args.threads)
        result = train(args.variant, preset, args.seed, results_root=args.results_dir, data_path=args.data,
                       device=args.device, progress=not args.no_progress, unless_stored=args.unless_stored)
        final = result["final"]
        if DataParallelRank.from_environment().main:  # under torchrun every rank returns the result
            print(f"{args.variant} seed {args.seed}: val {final['val_loss']:.4f}, whole val {final['val_loss_full']:.4f}"
                  + (f" (filed as preset {preset.name!r})" if preset.name != args.preset else ""))
    elif args.command == "suite":
        from mope.train.suite import ensure_results

        ensure_results(preset, args.variants, args.seeds, jobs=args.jobs, root=args.results_dir,
                       data_path=args.data, progress=not args.no_progress)
        _print_table(preset, args.results_dir)
    elif args.command == "claims" and args.confirmed:
        _check_store(args.results_dir)
        if not _any_confirmed(preset, args.confirmed, args.results_dir, args.json):
            sys.exit(1)
    elif args.command == "claims":
        _check_store(args.results_dir)
        _print_claims(preset, args.results_dir, args.json)
    else:
        _check_store(args.results_dir)
        if not _print_table(preset, args.results_dir):
            raise UserError(f"no current stored results for preset {preset.name!r}; "
                            f"run `python -m mope suite --preset {preset.name}`")


def main(argv: list[str] | None = None) -> None:
    debug = "--debug" in (sys.argv[1:] if argv is None else argv)
    if sys.stdout is None:  # started with standard output closed (`>&-`): Python gives None, where print says nothing
        print("mope: error: standard output is closed; give the command somewhere to write (a file, a pipe, "
              "or > /dev/null)", file=sys.stderr)
        sys.exit(EXIT_ERROR)
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        _check_repeats(args)
        run(args)
        sys.stdout.flush()
    except BrokenPipeError:  # `python -m mope table | head`: the reader left; say nothing more
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(EXIT_BROKEN_PIPE)
    except KeyboardInterrupt as interrupt:
        if debug:
            traceback.print_exc()
        print(f"mope: {str(interrupt) or 'interrupted'}; a run resumes from its last checkpoint when started again",
              file=sys.stderr)
        sys.exit(EXIT_INTERRUPTED)
    except ConfigError as error:  # a name, number or combination of arguments the package does not support
        if debug:
            traceback.print_exc()
        print(f"mope: error: {shown(error)}", file=sys.stderr)  # one line, whatever a path holds
        sys.exit(EXIT_USAGE)
    except (UserError, OSError) as error:  # OSError: a disk that filled up, a folder removed mid-run
        if debug:
            traceback.print_exc()
        print(f"mope: error: {shown(error)}", file=sys.stderr)  # one line, whatever a path holds
        sys.exit(EXIT_ERROR)
