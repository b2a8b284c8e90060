"""Where the book's numbers come from: every run behind them with its configuration, seed, commit,
hardware and wall time, and every stored file that is not shown, with the reason.

This module owns the reproducibility page's tables (:func:`run_table`, :func:`preset_summary`,
:func:`not_shown_table`). Only current runs reach a chapter: the store (:mod:`mope.store.results`) counts a run
made from a working tree with uncommitted changes as stale, because no commit holds the code that made
it. A run is named by preset, variant and seed, never by a path on the machine that made it.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from statistics import median

from mope.store import results
from mope.evidence.estimates import DASH
from mope.store.presets import TrainConfig
from mope.book.tables import markdown_table


def _minutes(seconds) -> str:
    return DASH if seconds is None else f"{seconds / 60:.1f}"


def run_table(preset: str | None, runs: Sequence[dict]) -> str:
    """One row per run of ``preset``: variant, seed, configuration hash, commit, hardware and wall time.
    ``preset`` None: runs of several configurations (the sweep), each row led by its configuration's name."""
    several = preset is None
    header = ((["configuration", "variant", "seed", "hash"] if several else ["variant", "seed", f"configuration (`{preset}`)"])
              + ["commit", "hardware", "wall time (min)"])
    rows = []
    for run in runs:
        p = run["provenance"]
        rows.append([*([f"`{run['preset']}`"] if several else []), run["variant"], str(run["seed"]),
                     f"`{run['config_hash']}`", f"`{(p.get('git_commit') or DASH)[:7]}`", str(p.get("device") or DASH),
                     _minutes(p.get("wall_time_s"))])
    return markdown_table(header, rows)


def most_at_once(runs: Sequence[dict]) -> int:
    """The largest number of ``runs`` that were training at the same moment (from their start and end times)."""
    spans = [(datetime.fromisoformat(p["started"]), datetime.fromisoformat(p["finished"]))
             for p in (run["provenance"] for run in runs) if p.get("started") and p.get("finished")]
    return max((sum(start <= moment < end for start, end in spans) for moment, _ in spans), default=0)


def preset_summary(runs: Mapping[str, Sequence[dict]]) -> str:
    """Per preset: runs, variants, seeds, commits, hardware, wall time a run (median and range), the most
    runs that trained at once, and the total wall time."""
    rows = []
    for preset, preset_runs in runs.items():
        if not preset_runs:
            rows.append([f"`{preset}`", "0", *[DASH] * 7])
            continue
        walls = [r["provenance"].get("wall_time_s") or 0.0 for r in preset_runs]
        rows.append([
            f"`{preset}`", str(len(preset_runs)), str(len({r["variant"] for r in preset_runs})),
            ", ".join(map(str, sorted({r["seed"] for r in preset_runs}))),
            ", ".join(f"`{c}`" for c in sorted({(r["provenance"].get("git_commit") or DASH)[:7] for r in preset_runs})),
            ", ".join(sorted({str(r["provenance"].get("device")) for r in preset_runs})),
            f"{_minutes(median(walls))} ({_minutes(min(walls))}–{_minutes(max(walls))})",
            str(most_at_once(preset_runs)),
            f"{sum(walls) / 3600:.1f}",
        ])
    header = ["preset", "runs", "variants", "seeds", "commits", "hardware", "wall time a run (min): median (range)",
              "most at once", "wall time (h)"]
    return markdown_table(header, rows)


def not_shown_table(presets: Sequence[str | TrainConfig], root=None) -> str:
    """One row per stored file of ``presets`` (in the store at ``root``) that no chapter shows (stale or
    invalid), with the reason; "" when there is none."""
    rows = []
    for preset in presets:
        found = results.scan(preset, root)
        preset = results.preset_name(preset)
        for kind, rejected in (("stale", found.stale), ("invalid", found.invalid)):
            for item in rejected:
                path = item.path
                rows.append([f"`{preset}`", path.parent.name, path.stem.removeprefix("seed"), kind, item.reason])
    return markdown_table(["preset", "variant", "seed", "kind", "why it is not shown"], rows) if rows else ""
