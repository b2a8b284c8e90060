"""How long running the book takes, from measured times only: each chapter's execution time as the
book build measured it, and the wall times the stored runs recorded (a model of a preset, the whole
suite of a preset, one seed of ``paper`` on its GPU).

The how-to-run page shows :func:`time_table`; the Sphinx extension ``book/_ext/run_times.py`` hands it
the chapters' execution times of the build that is writing the page.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from statistics import median

from mope.book.run_records import most_at_once
from mope.model.variants import TABLE_2
from mope.store.results import device_kind


def chapter_name(docname: str, title: str) -> str:
    """"Chapter 4: How close to the paper?" for ``notebooks/04_reproduction``; a page without a number in its name
    (``notebooks/own_model``) by its title alone."""
    number = docname.split("/")[-1][:2]
    return f"Chapter {int(number)}: {title}" if number.isdigit() else title


def duration(seconds: float) -> str:
    """``seconds`` as a reader reads a duration: seconds under two minutes, minutes under two hours, else hours."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _walls(runs: Sequence[dict]) -> list[float]:
    return [r["provenance"]["wall_time_s"] for r in runs if r["provenance"].get("wall_time_s") is not None]


def _devices(runs: Sequence[dict]) -> str:
    return ", ".join(sorted({str(r["provenance"].get("device")) for r in runs}))


#: How a page names the kind of device a stored run names first ("cuda: NVIDIA H200" -> "a GPU").
DEVICE_KINDS = {"cpu": "a CPU", "cuda": "a GPU", "mps": "an Apple GPU"}


def _kind(run: dict) -> str:
    return device_kind(run["provenance"].get("device"))


def preset_rows(preset: str, runs: Sequence[dict]) -> list[list[str]]:
    """Two rows for ``preset``'s stored runs: one model (median and range of the runs' wall times) and all
    of them (their sum, and that sum divided by the most runs that trained at once); none without runs. A preset
    whose runs trained on more than one kind of device (``paper``: a GPU's minutes, a CPU's hours) has the two
    rows for each kind, named ("`paper` on a GPU"): one median of minutes and hours would describe neither."""
    kinds = sorted({_kind(r) for r in runs})
    if len(kinds) > 1:
        return [row for kind in kinds for row in _rows(f"`{preset}` on {DEVICE_KINDS.get(kind, kind)}",
                                                        [r for r in runs if _kind(r) == kind])]
    return _rows(f"`{preset}`", runs)


def _rows(name: str, runs: Sequence[dict]) -> list[list[str]]:
    walls = _walls(runs)
    if not walls:
        return []
    at_once = max(most_at_once(runs), 1)
    where = f"{_devices(runs)}; up to {at_once} run{'s' if at_once > 1 else ''} side by side"
    several = len(walls) > 1
    rows = [[f"{name}: one model", f"{duration(median(walls))} (median; {duration(min(walls))}–{duration(max(walls))})"
             if several else duration(walls[0]),
             f"the wall time of each of its {len(walls)} stored runs ({where})" if several else
             f"the wall time of its one stored run ({_devices(runs)})"]]
    if not several:
        return rows
    total, busy = sum(walls), busy_seconds(runs)
    if busy is None:
        rows.append([f"{name}: all {len(walls)} stored runs", duration(total), "the sum of their wall times"])
    else:
        rows.append([f"{name}: all {len(walls)} stored runs", f"{duration(busy)} ({duration(total)} of runs)",
                     "the time during which at least one of them was training (from their start and end times); "
                     "in brackets, the sum of their wall times"])
    return rows


def busy_seconds(runs: Sequence[dict]) -> float | None:
    """The seconds during which at least one of ``runs`` was training (the union of their start–end
    intervals); None unless every run recorded both times."""
    spans = sorted((datetime.fromisoformat(p["started"]), datetime.fromisoformat(p["finished"]))
                   for p in (run["provenance"] for run in runs) if p.get("started") and p.get("finished"))
    if not spans or len(spans) < len(runs):
        return None
    busy, (start, end) = 0.0, spans[0]
    for next_start, next_end in spans[1:]:
        if next_start > end:
            busy += (end - start).total_seconds()
            start, end = next_start, next_end
        else:
            end = max(end, next_end)
    return busy + (end - start).total_seconds()


def seed_row(preset: str, runs: Sequence[dict], seed: int = 0, variants: Sequence[str] = TABLE_2) -> list[list[str]]:
    """One row: the six models of Table 2 of one seed of ``preset``, trained side by side (the longest of
    their wall times when they all ran at once, else their sum); none unless all six are stored."""
    chosen = [r for r in runs if r["seed"] == seed and r["variant"] in variants]
    walls = _walls(chosen)
    if len(walls) < len(variants):
        return []
    together = most_at_once(chosen) == len(chosen)
    time = max(walls) if together else sum(walls)
    how = (f"the longest wall time of the {len(chosen)} runs, which trained side by side" if together
           else f"the sum of the {len(chosen)} runs' wall times")
    return [[f"`{preset}`: one seed of Table 2's six models", duration(time), f"{how} ({_devices(chosen)})"]]


def time_table(chapters: Sequence[tuple[str, float | None]], runs: Mapping[str, Sequence[dict]], cores: int
               ) -> list[list[str]]:
    """The rows of the how-to-run page's table (what, how long, measured how): each chapter by its
    execution time in this build (``chapters``: title and seconds, None where it was not executed),
    then :func:`preset_rows` for each preset of ``runs`` and :func:`seed_row` for ``paper``."""
    rows = [[title, duration(seconds), f"executed by this build of the book, on {cores} CPU cores"]
            for title, seconds in chapters if seconds is not None]
    for preset, preset_runs in runs.items():
        rows += preset_rows(preset, preset_runs)
        if preset == "paper":
            rows += seed_row(preset, preset_runs)
    return rows
