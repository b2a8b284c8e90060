"""The results store: one JSON file per (preset, variant, seed), with its configuration and provenance.

``results/{preset}/{variant}/seed{S}.json`` under the repository's ``results/`` directory (or
``$MOPE_RESULTS_DIR``). A run is filed under the name of its configuration: a registered preset's
(:mod:`mope.presets`) or a custom one's own (a shortened run is ``{preset}-steps{N}``).

Every reader (``table``, ``suite``, ``claims``, the book) goes through :func:`scan`, which validates
each file against the schema and against its path, and sorts it into one of three piles:

* **current**: valid, and its configuration hash is the one the code computes today;
* **stale**: valid, but made with another configuration (or before a change of the code that moves
  its numbers, see ``NUMERIC_REVISIONS``), or, for the book's evidence (``EVIDENCE_PRESETS``), from a
  working tree with uncommitted changes (``provenance.git_dirty``: no commit holds the code that made
  it): never shown, retrained by ``suite``;
* **invalid**: unreadable, not schema 1, or filed under another variant, seed or preset: named with
  its reason, never shown, set aside and retrained by ``suite``.

Only files named ``seed<N>.json`` count; anything else in the folders (a backup, a set-aside file) is
ignored.

Schema 1 (notebooks read these keys)::

    schema, variant, preset, seed, config {model, train}, config_hash,
    provenance {git_commit, git_dirty, torch, python, device, started, finished, wall_time_s,
                tokens_per_s, world_size},
    num_parameters, history [{step, lr, train_loss, val_loss}], train_curve [[step, loss]],
    final {val_loss, train_loss, val_loss_full, val_loss_full_by_context {1x, 2x, 4x},
           extrapolation_note, val_loss_full_causal_stats},
    learned
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
import statistics
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import mope
from mope.config import GPTConfig
from mope.errors import UserError
from mope.presets import EVIDENCE_PRESETS, FORMER_NAMES, PRESETS, TrainConfig
from mope.variants import VARIANTS, variant_config

SCHEMA = 1
ENV_RESULTS_DIR = "MOPE_RESULTS_DIR"
REPO_ROOT = Path(mope.__file__).resolve().parents[1]
RESULT_FILE = re.compile(r"seed(0|[1-9][0-9]*)\.json")
SET_ASIDE_SUFFIX = ".set-aside-"  # seed0.json.set-aside-20261130T101500Z: kept, never read again

# Changes of the code that move a model's numbers without changing its configuration. Each one enters
# the hash of the models it touches, so their earlier runs turn stale instead of being reused.
NUMERIC_REVISIONS: tuple[tuple[str, object], ...] = (
    ("MoPE's initial log omega, log sigma computed in float32 as released",
     lambda model: model.absolute == "morlet"),
    ("EGA's renormalisation floor max(sum_k A_ik g_k, 1e-8) in every mode, as released",
     lambda model: model.gate == "ega"),
)


def results_root(root: str | os.PathLike | None = None) -> Path:
    if root is not None:
        return Path(root)
    return Path(os.environ.get(ENV_RESULTS_DIR) or REPO_ROOT / "results")


def sweep_root(root: str | os.PathLike | None = None) -> Path:
    """Where the stored sweep behind the ``cpu`` preset lives (``CPU_SWEEP``): a store of its own, one
    folder per candidate, so that its runs never mix with a preset's."""
    return results_root(root) / "sweeps"


def preset_name(preset: str | TrainConfig) -> str:
    """The name a run is filed under: a registered preset's, or a custom configuration's own."""
    return preset if isinstance(preset, str) else preset.name


def result_path(preset: str | TrainConfig, variant: str, seed: int, root=None) -> Path:
    return results_root(root) / preset_name(preset) / variant / f"seed{seed}.json"


def config_hash(model_cfg: GPTConfig, train_cfg: TrainConfig) -> str:
    identity = {"model": model_cfg.to_dict(), "train": train_cfg.identity()}
    revisions = [i + 1 for i, (_, applies) in enumerate(NUMERIC_REVISIONS) if applies(model_cfg)]
    if revisions:  # absent for untouched models, so that their earlier hashes stay valid
        identity["revisions"] = revisions
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]


def expected_hashes(preset: str | TrainConfig, variant: str) -> set[str]:
    """The hashes a current run of ``variant`` may carry: today's configuration under the preset's
    name, and under each earlier name of the preset (``FORMER_NAMES``)."""
    cfg = PRESETS[preset] if isinstance(preset, str) else preset
    model = variant_config(variant, cfg.shape())
    names = (cfg.name, *FORMER_NAMES.get(cfg.name, ()))
    return {config_hash(model, cfg.replace(name=name)) for name in names}


def expected_hash(preset: str | TrainConfig, variant: str) -> str:
    cfg = PRESETS[preset] if isinstance(preset, str) else preset
    return config_hash(variant_config(variant, cfg.shape()), cfg)


def check_writable(directory: Path) -> None:
    """Fail now, naming the folder, if results or checkpoints could not be written there later."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        handle, probe = tempfile.mkstemp(dir=directory, prefix=".write-probe-")
        os.close(handle)
        os.unlink(probe)
    except OSError as error:
        raise UserError(f"cannot write to {directory} ({error.strerror or error}); choose a writable folder "
                        f"(--results-dir / ${ENV_RESULTS_DIR}, or $MOPE_CHECKPOINT_DIR for checkpoints)") from None


def write_result(result: dict, root=None) -> Path:
    """Store ``result`` atomically: readers never see a half-written file."""
    path = result_path(result["preset"], result["variant"], result["seed"], root)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(handle, "w") as file:
            json.dump(result, file, indent=1)
            file.write("\n")
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def set_aside(path: Path) -> Path:
    """Move a stale or damaged file out of the way (never delete it); return where it went."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    target = path.with_name(path.name + SET_ASIDE_SUFFIX + stamp)
    os.replace(path, target)
    return target


# --- validation -------------------------------------------------------------------------------

def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def schema_problem(data) -> str | None:
    """Why ``data`` is not a schema-1 result, or None."""
    if not isinstance(data, dict):
        return f"not a JSON object but {type(data).__name__}"
    if data.get("schema") != SCHEMA:
        return f"schema {data.get('schema')!r}, expected {SCHEMA}"
    types = {"variant": str, "preset": str, "seed": int, "config_hash": str, "config": dict,
             "provenance": dict, "history": list, "final": dict}
    for key, kind in types.items():
        if key not in data:
            return f"no {key!r}"
        if not isinstance(data[key], kind) or isinstance(data[key], bool):
            return f"{key!r} is {type(data[key]).__name__}, expected {kind.__name__}"
    if not {"model", "train"} <= set(data["config"]):
        return "'config' lacks 'model' or 'train'"
    for key in ("val_loss", "val_loss_full"):
        if not _number(data["final"].get(key)):
            return f"final[{key!r}] is {data['final'].get(key)!r}, expected a finite number"
    return None


@dataclass(frozen=True)
class Rejected:
    path: Path
    reason: str

    def line(self, root: Path) -> str:
        try:
            shown = self.path.relative_to(root)
        except ValueError:
            shown = self.path
        return f"{shown}: {self.reason}"


@dataclass
class Scan:
    """The files of one preset sorted into current, stale and invalid runs."""

    root: Path
    current: list[dict] = field(default_factory=list)
    stale: list[Rejected] = field(default_factory=list)
    invalid: list[Rejected] = field(default_factory=list)

    def notices(self) -> list[str]:
        return ([f"stale (not shown): {r.line(self.root)}" for r in self.stale]
                + [f"invalid (not shown): {r.line(self.root)}" for r in self.invalid])


def check_file(path: Path, cfg: TrainConfig | None) -> tuple[dict | None, str | None, bool]:
    """(result, reason, stale): a valid current result, or why not (``stale`` for a valid but outdated one).

    ``cfg`` is the registered preset the folder belongs to, or None for a custom configuration's
    folder, whose runs are checked against the configuration they store.
    """
    match = RESULT_FILE.fullmatch(path.name)
    if match is None:
        return None, "not a seed<N>.json file", False
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError) as error:
        return None, f"unreadable ({error})", False
    except json.JSONDecodeError as error:
        return None, f"not valid JSON ({error.msg} at line {error.lineno})", False
    problem = schema_problem(data)
    if problem is not None:
        return None, problem, False
    variant, folder_preset, seed = path.parent.name, path.parent.parent.name, int(match.group(1))
    if data["variant"] != variant:
        return None, f"holds a run of {data['variant']}, filed under {variant}", False
    if data["seed"] != seed:
        return None, f"holds seed {data['seed']}, filed as seed {seed}", False
    names = (folder_preset, *FORMER_NAMES.get(folder_preset, ()))
    if data["preset"] not in names:
        return None, f"holds a run of preset {data['preset']!r}, filed under {folder_preset!r}", False
    if variant not in VARIANTS:
        return None, f"unknown variant {variant!r}", False
    if cfg is None:
        try:
            cfg = TrainConfig(**{k: tuple(v) if isinstance(v, list) else v
                                 for k, v in data["config"]["train"].items()})
        except (TypeError, ValueError) as error:
            return None, f"its stored training configuration is not valid ({error})", False
    wanted = expected_hashes(cfg, variant)
    if data["config_hash"] not in wanted:
        return None, f"configuration {data['config_hash']}, current is {sorted(wanted)[0]}", True
    if folder_preset in EVIDENCE_PRESETS and data["provenance"].get("git_dirty"):
        return None, "made from uncommitted code (git_dirty); rerun it from a clean checkout", True
    return data, None, False


def folder_config(preset: str | TrainConfig) -> TrainConfig | None:
    """The configuration a folder's runs are checked against: a registered preset's, or the given one
    (None for an unregistered name: each run is then checked against the configuration it stores)."""
    return preset if isinstance(preset, TrainConfig) else PRESETS.get(preset)


def scan(preset: str | TrainConfig, root=None, variants=None) -> Scan:
    """Every ``seed<N>.json`` of a preset, validated (see the module docstring)."""
    name, cfg = preset_name(preset), folder_config(preset)
    found = Scan(results_root(root))
    order = {v: i for i, v in enumerate(VARIANTS)}
    for path in sorted((results_root(root) / name).glob("*/seed*.json")):
        if variants is not None and path.parent.name not in variants:
            continue
        if not RESULT_FILE.fullmatch(path.name):
            continue  # backups and set-aside files do not count
        data, reason, stale = check_file(path, cfg)
        if data is not None:
            found.current.append(data)
        else:
            (found.stale if stale else found.invalid).append(Rejected(path, reason))
    found.current.sort(key=lambda r: (order.get(r["variant"], len(order)), r["variant"], r["seed"]))
    return found


def load_results(preset: str | TrainConfig, root=None) -> list[dict]:
    """The current, valid runs of a preset, in variant-registry order then by seed."""
    return scan(preset, root).current


def load_result(preset: str | TrainConfig, variant: str, seed: int, root=None) -> dict | None:
    """The run of (variant, seed) if it is stored, valid and current; else None."""
    path = result_path(preset, variant, seed, root)
    return check_file(path, folder_config(preset))[0] if path.is_file() else None


def is_current(result: dict, preset: str | TrainConfig) -> bool:
    """Whether a result dict was made with the current configuration of its variant under ``preset``."""
    return result.get("config_hash") in expected_hashes(preset, result["variant"])


def _stats(values: list[float]) -> dict:
    return {"mean": statistics.fmean(values) if values else None,
            "sd": statistics.stdev(values) if len(values) > 1 else None,
            "n": len(values)}


def summary_table(results: list[dict]) -> list[dict]:
    """Per variant: mean, sample sd (None for n = 1) and n of ``val_loss`` and ``val_loss_full``."""
    by_variant: dict[str, list[dict]] = {}
    for result in results:
        by_variant.setdefault(result["variant"], []).append(result)
    rows = []
    for variant, group in by_variant.items():
        known = VARIANTS.get(variant)
        rows.append({
            "variant": variant,
            "paper_val": known.paper_val if known else None,
            "val_loss": _stats([r["final"]["val_loss"] for r in group]),
            "val_loss_full": _stats([r["final"]["val_loss_full"] for r in group]),
        })
    return rows
