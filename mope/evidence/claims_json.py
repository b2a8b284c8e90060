"""The claims of a preset as strict JSON (RFC 8259): what ``python -m mope claims --json`` prints and the
book offers as a download.

:func:`claims_document` judges the claims on the preset's current stored runs
(:func:`mope.evidence.claims.claim_records`) and lists every stored file it left out with its reason. JSON
has no NaN or infinity: a statistic that is not a finite number becomes null, and the claim that held it
says why under ``"nulled"`` (:func:`strict_claim_records`).
"""
from __future__ import annotations

import math

from mope.evidence import claims
from mope.store import results
from mope.store.presets import TrainConfig


def finite_only(value, where: str = "", nulled: list[str] | None = None):
    """``value`` (JSON-ready) with every NaN or infinity replaced by null, its place and value added to
    ``nulled``."""
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


def claims_document(preset: str | TrainConfig, root=None, found: results.Scan | None = None) -> dict:
    """The claims of ``preset`` judged on its current stored runs (in the store at ``root``; ``found``: its
    scan, when the caller has made it already): preset, current_runs, claims
    (:func:`mope.evidence.claims.claim_records`) and skipped (every stored file left out, with its reason)."""
    found = results.scan(preset, root) if found is None else found
    return {"preset": results.preset_name(preset), "current_runs": len(found.current),
            "claims": strict_claim_records(claims.claim_records(preset, found.current)),
            "skipped": found.skipped_records()}
