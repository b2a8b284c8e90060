"""The book's downloads, written from the results store when the book is built: every stored run as
one CSV table (one row a run) and the claims of each preset as the JSON of ``python -m mope claims
--json``.

The CSV has a run's identity (preset, variant, seed, configuration hash), its provenance (commit,
device, torch, wall time, throughput, number of processes), its size (parameters) and every final loss
it stored (``final``: the random-batch validation loss the paper calls Val, the whole validation split
at 1×, 2× and 4× the training context as ``val_loss_full_by_context.1x`` ..., and the whole split with
causal gate statistics where there is one); a number a run did not store is an empty cell. The
reproducibility page links the files (:func:`write_downloads`).
"""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from mope.evidence.claims_json import claims_document

#: The name of the download that holds every stored run.
RUNS_CSV = "mope-runs.csv"
IDENTITY = ("preset", "variant", "seed", "config_hash")
PROVENANCE = ("git_commit", "device", "torch", "python", "world_size", "started", "finished", "wall_time_s",
              "tokens_per_s")


def claims_file(preset: str) -> str:
    """The name of the claims download of ``preset``."""
    return f"mope-claims-{preset}.json"


def _flat(values: Mapping, prefix: str = "") -> dict:
    """``values`` with nested dictionaries spelled out as ``outer.inner`` keys; text fields are left out."""
    flat = {}
    for key, value in values.items():
        if isinstance(value, Mapping):
            flat.update(_flat(value, f"{prefix}{key}."))
        elif value is None or isinstance(value, (int, float)):
            flat[f"{prefix}{key}"] = value
    return flat


def run_row(run: Mapping) -> dict:
    """One run as a flat row: identity, provenance, number of parameters, then every final loss."""
    provenance = run.get("provenance", {})
    row = {key: run[key] for key in IDENTITY}
    row.update({key: provenance.get(key) for key in PROVENANCE})
    row["num_parameters"] = run.get("num_parameters")
    row.update({f"final.{key}": value for key, value in _flat(run.get("final", {})).items()})
    return row


def runs_csv(runs: Iterable[Mapping]) -> str:
    """Every run of ``runs`` as one CSV table (header first; the union of the runs' final losses as
    columns, in the order first met; an empty cell where a run stored none)."""
    rows = [run_row(run) for run in runs]
    columns: list[str] = []
    for row in rows:
        columns += [key for key in row if key not in columns]
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, restval="", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({key: "" if value is None else value for key, value in row.items()})
    return out.getvalue()


def write_downloads(folder: str | Path, runs_by_preset: Mapping[str, list[dict]],
                    claims_presets: Iterable[str]) -> list[Path]:
    """Write :data:`RUNS_CSV` (every run of ``runs_by_preset``, preset by preset) and one claims JSON per
    preset of ``claims_presets`` (:func:`mope.evidence.claims_json.claims_document`, from the store) into
    ``folder``; the paths written, the CSV first."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = [folder / RUNS_CSV]
    written[0].write_text(runs_csv(run for runs in runs_by_preset.values() for run in runs), encoding="utf-8")
    for preset in claims_presets:
        path = folder / claims_file(preset)
        path.write_text(json.dumps(claims_document(preset), indent=1, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8")
        written.append(path)
    return written
