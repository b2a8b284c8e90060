"""Where the book's numbers come from: every run behind them with its configuration, seed, commit,
hardware, the instruction set of its CPU kernels and wall time, and every stored file that is not
shown, with the reason.

This module owns the reproducibility page's opening (:func:`store_found`), what the machine that built it
reproduces (:func:`reference_remade`) and its tables (:func:`run_table`, :func:`preset_summary`,
:func:`not_shown_table`). Only current runs reach a chapter: the store (:mod:`mope.store.results`) counts a run
made from a working tree with uncommitted changes as stale, because no commit holds the code that made it. A
run is named by preset, variant and seed, never by a path on the machine that made it.

Results arrive by pull request, so every string a results file (or a folder's name) holds is shown
as text, never read as Markdown or HTML (:func:`stored_text`): the book must not run what a file says.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from statistics import median

from mope.store import plan, results
from mope.evidence.estimates import DASH
from mope.store.presets import TrainConfig
from mope.book.tables import markdown_table
from mope.store.results import device_kind, device_name


NOT_RECORDED = "not recorded"  # the instruction set of a run made before runs recorded it
# What can start inline markup in a table cell of MyST: HTML and entities, code, emphasis, links and
# images, roles and substitutions, math, strikethrough ("|" is markdown_table's to escape).
_MARKUP = frozenset("\\`*_[]{}<>&$~!")


def stored_text(value) -> str:
    """A stored string as Markdown that shows it as written, on one line: every character that could
    start inline markup backslash-escaped (so ``<img ...>`` is text, not a tag, and no `*`, `[`, `{` or
    `$` is markup)."""
    return "".join("\\" + ch if ch in _MARKUP else ch for ch in " ".join(str(value).split()))


def stored_code(value) -> str:
    """A stored identifier (a commit, a name) in code style when it is one, else as :func:`stored_text`."""
    text = str(value)
    return f"`{text}`" if re.fullmatch(r"[0-9A-Za-z._-]+", text) else stored_text(text)


def instruction_set(provenance: Mapping) -> str:
    """The instruction set of the CPU kernels a run used (``provenance.cpu_capability``: "AVX2",
    "AVX512", ...), beside the CPU model of its hardware column; a dash for a GPU
    run, "not recorded" for a run made before runs recorded it."""
    if "cpu_capability" not in provenance:
        return NOT_RECORDED
    return DASH if provenance["cpu_capability"] is None else stored_text(provenance["cpu_capability"])


def by_stretch(provenance: Mapping, cell) -> str:
    """A run-table cell, ``cell(provenance)``: the run's own, or, for a run resumed on another machine or
    commit (``provenance.segments``), each stretch of its steps with its cell ("`bc8ab26` (steps 0–750);
    `8e7286e` (steps 750–5,001)"), neighbouring stretches whose cells read alike joined; "not recorded"
    for a stretch that records nothing but its steps (one from before runs kept their stretches)."""
    segments = provenance.get("segments")
    if not segments:
        return cell(provenance)
    stretches: list[list] = []
    for segment in segments:
        text = cell(segment) if set(segment) - {"from_step", "to_step"} else NOT_RECORDED
        if stretches and stretches[-1][0] == text:
            stretches[-1][2] = segment["to_step"]
        else:
            stretches.append([text, segment["from_step"], segment["to_step"]])
    if len(stretches) == 1:
        return stretches[0][0]
    return "; ".join(f"{text} (steps {first:,}–{last:,})" for text, first, last in stretches)


def recorded_values(provenance: Mapping, field: str) -> set:
    """Every value of a provenance ``field`` a run computed under: its own and each stretch's."""
    return {provenance.get(field)} | {segment[field] for segment in provenance.get("segments") or () if field in segment}


def _commit(value) -> str:
    return stored_code((value or DASH)[:7])


def _minutes(seconds) -> str:
    return DASH if seconds is None else f"{seconds / 60:.1f}"


def run_table(preset: str | None, runs: Sequence[dict]) -> str:
    """One row per run of ``preset``: variant, seed, configuration hash, commit, hardware, the instruction
    set of its CPU kernels (:func:`instruction_set`) and wall time. ``preset`` None: runs of several
    configurations (the sweep), each row led by its configuration's name."""
    several = preset is None
    header = ((["configuration", "variant", "seed", "hash"] if several else ["variant", "seed", f"configuration (`{preset}`)"])
              + ["commit", "hardware", "instruction set", "wall time (min)"])
    rows = []
    for run in runs:
        p = run["provenance"]
        rows.append([*([stored_code(run["preset"])] if several else []), stored_text(run["variant"]),
                     str(run["seed"]), stored_code(run["config_hash"]),
                     by_stretch(p, lambda q: _commit(q.get("git_commit"))),
                     by_stretch(p, lambda q: stored_text(q.get("device") or DASH)),
                     by_stretch(p, instruction_set), _minutes(p.get("wall_time_s"))])
    return markdown_table(header, rows)


def store_found(runs: Mapping[str, Sequence[dict]]) -> str:
    """What the reproducibility page found, first (MyST Markdown): how many runs the pages show, whether every one
    was made from committed code, and the hours of wall time they trained on each kind of device, with its hardware
    (the device a run records for itself; a resumed run's stretches are in :func:`run_table`)."""
    shown = [run for preset_runs in runs.values() for run in preset_runs]
    if not shown:
        return "**No run is stored yet**: no page shows a trained model."
    dirty = sum(bool(run["provenance"].get("git_dirty")) for run in shown)
    hours: dict[str, float] = {}
    hardware: dict[str, set[str]] = {}
    for run in shown:
        device = str(run["provenance"].get("device") or "")
        kind = "GPU" if device_kind(device) == "cuda" else "CPU"
        hours[kind] = hours.get(kind, 0.0) + (run["provenance"].get("wall_time_s") or 0.0) / 3600
        hardware.setdefault(kind, set()).add(device_name(device) or DASH)
    spent = " and ".join(f"{hours[kind]:.{0 if hours[kind] >= 10 else 1}f} hours of wall time on {kind}s "
                         f"({', '.join(stored_text(n) for n in sorted(hardware[kind]))})" for kind in sorted(hours))
    committed = "every one made from committed code" if not dirty else f"{dirty} of them from uncommitted code"
    runs = f"{len(shown)} trained run{'s' if len(shown) > 1 else ''}"
    return (f"**The book's pages show {runs}, {committed}: {spent}.** Each stores its "
            "configuration, seed, commit, hardware and wall time, listed below ({ref}`reproducibility-runs`).")


def reference_remade(reference: dict, result: dict, tolerance: float) -> str:
    """"The tests' reference run ..., stored from an AMD EPYC with AVX512 kernels, made again on the machine that
    built this page (...): it differs by at most 4.6e-04 in a step's loss, first at step 6": what
    :func:`mope.train.reproduce.compare` found here, with the tolerance the tests hold it to."""
    from mope.train.reproduce import compare

    found = compare(result, reference)
    here = result["provenance"]
    cpu = device_name(here.get("device") or "") or DASH
    kernels = lambda capability: f", {stored_text(capability)} kernels" if capability else ""  # noqa: E731
    outcome = (f"its {found.steps} steps' losses equal the stored ones bit for bit" if found.bit_for_bit else
               f"it differs by at most {found.largest:.1e} in a step's loss, first at step {found.first_step}")
    return (f"The tests' reference run (PE-MORLET, `smoke` shortened to {found.steps} steps, seed "
            f"{reference['seed']}, {reference['threads']} thread{'s' if reference['threads'] > 1 else ''}), stored as made "
            f"on one CPU ({device_name(reference['cpu']) or DASH}{kernels(reference.get('cpu_capability'))}, torch "
            f"{stored_text(reference['torch'])}), was made again on the machine that built this page "
            f"({cpu}{kernels(here.get('cpu_capability'))}, torch {stored_text(here.get('torch') or DASH)}): "
            f"{outcome}. The tests hold it to {tolerance:g} on any CPU, and bit for bit only to the same run made "
            "again in the same test (`tests/test_throughput.py`).")


def wall_range(runs: Sequence[dict]) -> str:
    """"262–326 s" (or "141 s" where they agree to the second): the wall times of ``runs``, as the page quotes
    what a stage of the GPU suite cost; "not stored" without runs."""
    seconds = sorted(round(run["provenance"]["wall_time_s"]) for run in runs if run["provenance"].get("wall_time_s"))
    if not seconds:
        return "not stored"
    return f"{seconds[0]} s" if seconds[0] == seconds[-1] else f"{seconds[0]}–{seconds[-1]} s"


def most_at_once(runs: Sequence[dict]) -> int:
    """The largest number of ``runs`` that were training at the same moment (from their start and end times)."""
    spans = [(datetime.fromisoformat(p["started"]), datetime.fromisoformat(p["finished"]))
             for p in (run["provenance"] for run in runs) if p.get("started") and p.get("finished")]
    return max((sum(start <= moment < end for start, end in spans) for moment, _ in spans), default=0)


def preset_summary(runs: Mapping[str, Sequence[dict]]) -> str:
    """Per preset: runs, how many of the runs the training plan holds are stored
    (:func:`mope.store.plan.planned_seeds`), variants, seeds, commits, hardware, wall time a run (median and
    range), the most runs that trained at once, and the total wall time."""
    rows = []
    for preset, preset_runs in runs.items():
        planned = plan.planned_seeds(preset)
        stored = {(r["variant"], r["seed"]) for r in preset_runs}
        of_plan = (f"{sum((v, s) in stored for v, seeds in planned.items() for s in seeds)} of "
                   f"{sum(len(seeds) for seeds in planned.values())}" if planned else DASH)
        if not preset_runs:
            rows.append([f"`{preset}`", "0", of_plan, *[DASH] * 7])
            continue
        walls = [r["provenance"].get("wall_time_s") or 0.0 for r in preset_runs]
        rows.append([
            f"`{preset}`", str(len(preset_runs)), of_plan, str(len({r["variant"] for r in preset_runs})),
            ", ".join(map(str, sorted({r["seed"] for r in preset_runs}))),
            ", ".join(_commit(c) for c in sorted({(c or DASH)[:7] for r in preset_runs
                                                   for c in recorded_values(r["provenance"], "git_commit")})),
            ", ".join(stored_text(device) for device in sorted({str(d) for r in preset_runs
                                                                for d in recorded_values(r["provenance"], "device")})),
            f"{_minutes(median(walls))} ({_minutes(min(walls))}–{_minutes(max(walls))})",
            str(most_at_once(preset_runs)),
            f"{sum(walls) / 3600:.1f}",
        ])
    header = ["preset", "runs", "of the plan", "variants", "seeds", "commits", "hardware",
              "wall time a run (min): median (range)", "most at once", "wall time (h)"]
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
                if path.suffix != ".json":  # a folder (a linked or unreadable one): a variant's, or the preset's own
                    variant, seed = ("all" if path.name == preset else stored_text(path.name)), "all"
                else:
                    variant, seed = stored_text(path.parent.name), stored_text(path.stem.removeprefix("seed"))
                rows.append([stored_code(preset), variant, seed, kind, stored_text(item.reason)])
    return markdown_table(["preset", "variant", "seed", "kind", "why it is not shown"], rows) if rows else ""
