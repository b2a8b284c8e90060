"""Where the book's numbers come from: every run behind them with its configuration, seed, commit,
dirty flag, hardware and wall time.

This module owns the reproducibility page's tables (:func:`run_table`, :func:`preset_summary`) and the
one warning the chapters print when a run they show was made from a working tree with uncommitted
changes (:func:`dirty_warning`). The book's numbers are meant to come from runs of committed code; a
"dirty" run is shown, but flagged. A run is named by preset, variant and seed, never by a path on the
machine that made it.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from mope.estimates import DASH
from mope.tables import markdown_table


def is_dirty(run: dict) -> bool:
    return bool(run["provenance"].get("git_dirty"))


def dirty_warning(runs: Sequence[dict]) -> str:
    """A sentence when some of ``runs`` are dirty, else ""."""
    dirty = [r for r in runs if is_dirty(r)]
    if not dirty:
        return ""
    return (f"**Note:** {len(dirty)} of the {len(runs)} runs shown were made from a working tree with "
            "uncommitted changes; they are flagged on the {doc}`reproducibility page </book/reproducibility>`.")


def _minutes(seconds) -> str:
    return DASH if seconds is None else f"{seconds / 60:.1f}"


def run_table(preset: str, runs: Sequence[dict]) -> str:
    """One row per run of ``preset``: variant, seed, configuration hash, commit, dirty flag, hardware and
    wall time."""
    rows = []
    for run in runs:
        p = run["provenance"]
        rows.append([run["variant"], str(run["seed"]), f"`{run['config_hash']}`",
                     f"`{(p.get('git_commit') or DASH)[:7]}`", "**yes**" if is_dirty(run) else "no",
                     str(p.get("device") or DASH), _minutes(p.get("wall_time_s"))])
    return markdown_table(["variant", "seed", f"configuration (`{preset}`)", "commit", "dirty", "hardware",
                           "wall time (min)"], rows)


def preset_summary(runs: Mapping[str, Sequence[dict]]) -> str:
    """Per preset: runs, variants, seeds, commits, dirty runs, hardware and total wall time."""
    rows = []
    for preset, preset_runs in runs.items():
        if not preset_runs:
            rows.append([f"`{preset}`", "0", DASH, DASH, DASH, DASH, DASH, DASH])
            continue
        walls = [r["provenance"].get("wall_time_s") or 0.0 for r in preset_runs]
        rows.append([
            f"`{preset}`", str(len(preset_runs)), str(len({r["variant"] for r in preset_runs})),
            ", ".join(map(str, sorted({r["seed"] for r in preset_runs}))),
            ", ".join(f"`{c}`" for c in sorted({(r["provenance"].get("git_commit") or DASH)[:7] for r in preset_runs})),
            str(sum(map(is_dirty, preset_runs))),
            ", ".join(sorted({str(r["provenance"].get("device")) for r in preset_runs})),
            f"{sum(walls) / 3600:.1f}",
        ])
    header = ["preset", "runs", "variants", "seeds", "commits", "dirty runs", "hardware", "wall time (h)"]
    return markdown_table(header, rows)
