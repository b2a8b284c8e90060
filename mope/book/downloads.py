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
import math
from collections.abc import Iterable, Mapping
from pathlib import Path

from mope.evidence import claims
from mope.store import results
from mope.store.presets import TrainConfig

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
    preset of ``claims_presets`` (:func:`claims_document`, from the store) into ``folder``; the paths
    written, the CSV first."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = [folder / RUNS_CSV]
    written[0].write_text(runs_csv(run for runs in runs_by_preset.values() for run in runs), encoding="utf-8")
    for preset in claims_presets:
        path = folder / claims_file(preset)
        path.write_text(json.dumps(claims_document(preset), indent=1, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8")
        written.append(path)
    return written


def finite_only(value, where: str = "", nulled: list[str] | None = None):
    """``value`` (JSON-ready) with every NaN or infinity replaced by null, its place and value added to
    ``nulled``: what strict JSON (RFC 8259) can hold."""
    if isinstance(value, float) and not math.isfinite(value):
        if nulled is not None:
            nulled.append(f"{where or 'the value'} was {value} (not a finite number)")
        return None
    if isinstance(value, dict):
        return {key: finite_only(item, f"{where}.{key}" if where else str(key), nulled) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_only(item, f"{where}[{index}]", nulled) for index, item in enumerate(value)]
    return value


def strict_claim_records(records: list[dict]) -> list[dict]:
    """The claim records with every non-finite number made null, and, in a claim that had one, its
    reason under ``"nulled"`` (absent when nothing was)."""
    strict = []
    for record in records:
        nulled: list[str] = []
        record = finite_only(record, "", nulled)
        strict.append({**record, "nulled": nulled} if nulled else record)
    return strict


def claims_document(preset: str | TrainConfig, root=None) -> dict:
    """The claims of ``preset`` judged on its current stored runs (in the store at ``root``), as ``python -m
    mope claims --json`` prints them: preset, current_runs, claims (:func:`mope.evidence.claims.claim_records`)
    and skipped (every stored file left out, with its reason)."""
    found = results.scan(preset, root)
    name = results.preset_name(preset)
    return {"preset": name, "current_runs": len(found.current), "claims": strict_claim_records(claims.claim_records(preset)),
            "skipped": found.skipped_records()}
