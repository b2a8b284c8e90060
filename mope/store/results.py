"""The results store: one JSON file per (preset, variant, seed), with its configuration and provenance.

``results/{preset}/{variant}/seed{S}.json`` under ``$MOPE_RESULTS_DIR``, else under ``results/`` of the
source checkout the package runs from (a clone, or an editable install of one), else, for a package
installed into site-packages, under ``results/`` of the current directory (:func:`default_home`). A run is filed under the name of its configuration: a registered preset's
(:mod:`mope.store.presets`) or a custom one's own (a shortened run is ``{preset}-steps{N}``).

Every reader (``table``, ``suite``, ``claims``, the book) goes through :func:`scan`, which validates
each file against the schema and against its path, and sorts it into one of three piles:

* **current**: valid, and its configuration hash is the one the code computes today;
* **stale**: valid, but made with another configuration (or before a change of the code that moves
  its numbers, see ``NUMERIC_REVISIONS``), or, for the book's evidence (``EVIDENCE_PRESETS``), from a
  working tree with uncommitted changes (``provenance.git_dirty``: no commit holds the code that made
  it): never shown, retrained by ``suite``;
* **invalid**: damaged (unreadable, not JSON, not valid against schema 1, :mod:`mope.store.result_schema`,
  whatever the exception: "damaged: <reason>") or filed under another variant, seed or preset: named with its
  reason, never shown, set aside and retrained by ``suite`` and ``train``.

Only files named ``seed<N>.json`` count; anything else in the folders (a backup, a set-aside file) is
ignored. What a reader leaves out is named by :func:`skipped` / :func:`report_skipped` (one line per
file), or ``scan(...).notices()``; ``Scan.skipped_records()`` gives it as JSON-ready records.

A file is valid when it validates against schema 1 (:mod:`mope.store.result_schema`) and, if its hash is current,
stores the configuration that hash says (:func:`stored_configuration_problem`: a known admissibility mode, the
tokenizer and vocabulary size it was trained with), else it is invalid. A reader opens only regular files (a
symbolic link or a FIFO is "damaged: not a regular file (...)", see :mod:`mope.store.files`), none larger than
``MAX_RESULT_BYTES``.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import mope
from mope.errors import UserError, one_line, shorten, shown
from mope.model.config import GPTConfig
from mope.model.variants import VARIANTS, variant_config
from mope.store.files import IrregularFile, atomic_write, read_regular_file, set_aside
from mope.store.presets import EVIDENCE_PRESETS, FORMER_NAMES, PRESETS, TrainConfig
from mope.store.result_schema import cached_schema_problem, schema_problem

ENV_RESULTS_DIR = "MOPE_RESULTS_DIR"
REPO_ROOT = Path(mope.__file__).resolve().parents[1]  # the source checkout, if the package runs from one
RESULT_FILE = re.compile(r"seed(0|[1-9][0-9]*)\.json")
# The largest results file a reader opens: a stored run is 15-60 KB (a paper-scale one, 5,001 steps, under
# 100 KB); anything far beyond is not a run, and reading it whole would take seconds and gigabytes.
MAX_RESULT_BYTES = 4 * 2**20

# Changes of the code that move a model's numbers without changing its configuration. Each one enters
# the hash of the models it touches, so their earlier runs turn stale instead of being reused.
NUMERIC_REVISIONS: tuple[tuple[str, object], ...] = (
    ("MoPE's initial log omega, log sigma computed in float32 as released",
     lambda model: model.absolute == "morlet"),
    ("EGA's renormalisation floor max(sum_k A_ik g_k, 1e-8) in every mode, as released",
     lambda model: model.gate == "ega"),
)



def in_source_checkout(root: Path = REPO_ROOT) -> bool:
    """Whether the package runs from a source checkout (its ``pyproject.toml`` beside ``mope/``), not
    from an installed copy in site-packages."""
    return (root / "pyproject.toml").is_file() and (root / "mope" / "__init__.py").is_file()


def default_home() -> Path:
    """The folder that holds ``results/`` and ``checkpoints/`` by default: the source checkout the
    package runs from, else (an installed package, whose folder is site-packages) the current directory."""
    return REPO_ROOT if in_source_checkout() else Path.cwd()


def results_root(root: str | os.PathLike | None = None) -> Path:
    """``root`` if given, else ``$MOPE_RESULTS_DIR``, else ``results/`` of :func:`default_home`."""
    if root is not None:
        return Path(root)
    return Path(os.environ.get(ENV_RESULTS_DIR) or default_home() / "results")


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
    """The configuration hash a run is stored with: the first 16 hex digits of the SHA-256 of the JSON
    (keys sorted) of ``{"model": every GPTConfig field, "train": TrainConfig.hashed_fields(), "revisions":
    the numbers (from 1) of the NUMERIC_REVISIONS that apply}``, "revisions" left out when none does."""
    hashed = {"model": model_cfg.to_dict(), "train": train_cfg.hashed_fields()}
    revisions = [i + 1 for i, (_, applies) in enumerate(NUMERIC_REVISIONS) if applies(model_cfg)]
    if revisions:  # absent for untouched models, so that their earlier hashes stay valid
        hashed["revisions"] = revisions
    return hashlib.sha256(json.dumps(hashed, sort_keys=True).encode()).hexdigest()[:16]


def expected_hashes(preset: str | TrainConfig, variant: str) -> set[str]:
    """The hashes a current run of ``variant`` may carry: today's configuration under the preset's
    name, and under each earlier name of the preset (``FORMER_NAMES``)."""
    cfg = PRESETS[preset] if isinstance(preset, str) else preset
    model = variant_config(variant, cfg.shape())
    names = (cfg.name, *FORMER_NAMES.get(cfg.name, ()))
    return {config_hash(model, cfg.replace(name=name)) for name in names}


def expected_hash(preset: str | TrainConfig, variant: str) -> str:
    """The hash of today's configuration of ``variant`` under the preset (its name today), which a new run carries."""
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



class InvalidResult(UserError):
    """A result that does not validate was refused: nothing was stored."""


def write_result(result: dict, root=None) -> Path:
    """Store ``result`` atomically: readers never see a half-written file. A result that does not
    validate (``RESULT_SCHEMA``: a NaN loss, a missing field) is refused, never stored; a write that
    fails (a full disk) is one message naming the file and the remedy."""
    text = json.dumps(result, indent=1) + "\n"
    problem = schema_problem(json.loads(text))  # what a reader will see, tuples turned into lists
    if problem is not None:
        raise InvalidResult(f"the result of {result.get('variant')} seed {result.get('seed')} is not valid ({problem}); "
                            "nothing was stored")
    path = result_path(result["preset"], result["variant"], result["seed"], root)
    try:
        atomic_write(path, lambda file: file.write(text.encode()))
    except OSError as error:
        full = error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
        raise UserError(
            f"cannot write result {shown(path)} ({one_line(error)}); "
            + ("the disk is full: free space there" if full else "make that folder writable")
            + f" (or point --results-dir / ${ENV_RESULTS_DIR} at another folder) and run the same command again: "
            "the run's last checkpoint is kept, so it only evaluates and stores the result") from error
    return path



def read_result(path: Path) -> tuple[dict | None, str | None]:
    """(data, None) for a readable file that validates against ``RESULT_SCHEMA``, else (None, "damaged: why").

    Any failure to read, parse or validate, whatever the exception (a deeply nested file raises
    RecursionError, a 5,000-digit number ValueError), is a reason, never a crash. Only a regular file
    is opened (a symbolic link is not followed, a FIFO never opened: it would block the reader for
    good), and none larger than ``MAX_RESULT_BYTES``.
    """
    try:
        text = read_regular_file(path, MAX_RESULT_BYTES, "any run").decode("utf-8")
    except IrregularFile as error:
        return None, f"damaged: {error}"
    except (OSError, UnicodeDecodeError) as error:
        return None, f"damaged: unreadable ({one_line(error)})"
    except Exception as error:  # noqa: BLE001 (whatever it is, the file is named, not the reader crashed)
        return None, f"damaged: unreadable ({one_line(error)})"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return None, f"damaged: not valid JSON ({shorten(str(error), 120)})"
    except Exception as error:  # noqa: BLE001 (RecursionError, ValueError for huge integers, MemoryError)
        return None, f"damaged: not valid JSON ({one_line(error)})"
    problem = cached_schema_problem(text, data)
    if problem is not None:
        return None, f"damaged: {problem}"
    return data, None


@dataclass(frozen=True)
class Rejected:
    """A stored file that no reader shows: ``kind`` "stale" or "invalid", and why."""

    path: Path
    reason: str
    kind: str = "invalid"

    def line(self, root: Path) -> str:
        try:
            where = self.path.relative_to(root)
        except ValueError:
            where = self.path
        return f"{shown(where)}: {shown(self.reason)}"


@dataclass
class Scan:
    """The files of one preset sorted into current, stale and invalid runs."""

    root: Path
    current: list[dict] = field(default_factory=list)
    stale: list[Rejected] = field(default_factory=list)
    invalid: list[Rejected] = field(default_factory=list)

    @property
    def skipped(self) -> list[Rejected]:
        """Every file not shown, stale ones first."""
        return [*self.stale, *self.invalid]

    def notices(self) -> list[str]:
        """One line per file not shown: "stale (not shown): cpu/EGA-1/seed1.json: <reason>"."""
        return [f"{r.kind} (not shown): {r.line(self.root)}" for r in self.skipped]

    def skipped_records(self) -> list[dict]:
        """The files not shown as JSON-ready records: path (relative to the store), kind, reason."""
        return [{"path": r.line(self.root).removesuffix(f": {shown(r.reason)}"), "kind": r.kind, "reason": r.reason}
                for r in self.skipped]


def check_file(path: Path, cfg: TrainConfig | None) -> tuple[dict | None, str | None, bool]:
    """(result, reason, stale): a valid current result, or why not (``stale`` for a valid but outdated one).

    ``cfg`` is the registered preset the folder belongs to, or None for a custom configuration's
    folder, whose runs are checked against the configuration they store. Never raises for what the
    file holds: a file that cannot be read or validated is "damaged: <reason>".
    """
    match = RESULT_FILE.fullmatch(path.name)
    if match is None:
        return None, "not a seed<N>.json file", False
    data, reason = read_result(path)
    if data is None:
        return None, reason, False
    try:
        return _check_filing(path, data, int(match.group(1)), cfg)
    except Exception as error:  # noqa: BLE001 (a reader is never crashed by what a file holds)
        return None, f"damaged: cannot be checked ({one_line(error)})", False


def _check_filing(path: Path, data: dict, seed: int, cfg: TrainConfig | None) -> tuple[dict | None, str | None, bool]:
    variant, folder_preset = path.parent.name, path.parent.parent.name
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
        return None, f"configuration {data['config_hash']}, current is {expected_hash(cfg, variant)}", True
    problem = stored_configuration_problem(data)
    if problem is not None:
        return None, f"damaged: {problem}", False
    if folder_preset in EVIDENCE_PRESETS and data["provenance"].get("git_dirty"):
        return None, "made from uncommitted code (git_dirty); rerun it from a clean checkout", True
    return data, None, False


def stored_configuration_problem(data: dict) -> str | None:
    """Why the configuration a result stores is not the one its ``config_hash`` says, or None: it must be
    one the model and the protocol accept (a known admissibility mode, gate, tokenizer ...), and hash
    (:func:`config_hash`) to the stored hash. A current hash then vouches for every stored field, the
    tokenizer's and the vocabulary size included: an edited field is caught, not read by a page."""
    stored = data["config"]
    try:
        model = GPTConfig(**stored["model"])
    except (TypeError, ValueError) as error:  # ConfigError is a ValueError; TypeError: a field the model lacks
        return shorten(f"config.model is not a configuration the model accepts ({error})")
    try:
        train = TrainConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in stored["train"].items()})
    except (TypeError, ValueError) as error:
        return shorten(f"config.train is not a configuration the protocol accepts ({error})")
    recomputed = config_hash(model, train)
    if recomputed == data["config_hash"]:
        return None
    variant_model = variant_config(data["variant"], train.shape()).to_dict()
    edited = [f"config.model.{key} is {value!r}, {data['variant']}'s is {variant_model[key]!r}"
              for key, value in model.to_dict().items() if variant_model[key] != value]
    return shorten(f"its stored configuration hashes to {recomputed}, not to its config_hash {data['config_hash']} "
                    f"({'; '.join(edited) if edited else 'edited after the run was stored?'})", 240)


def set_aside_if_unusable(path: Path, cfg: TrainConfig | None, doing: str) -> bool:
    """If ``path`` exists but holds no current run (stale, misfiled, damaged, even a folder), move it
    aside with a one-line notice on stderr (never delete it) and return True; False when nothing was
    there or it holds a current run. ``doing`` ends the notice ("training again")."""
    if not os.path.lexists(path):
        return False
    data, reason, stale = check_file(path, cfg)
    if data is not None:
        return False
    moved = set_aside(path)
    kind = "stale" if stale else "invalid"
    print(f"notice: {kind} {shown(path)} ({shown(reason)}): moved to {shown(moved.name)}, {doing}", file=sys.stderr)
    return True


def folder_config(preset: str | TrainConfig) -> TrainConfig | None:
    """The configuration a folder's runs are checked against: a registered preset's, or the given one
    (None for an unregistered name: each run is then checked against the configuration it stores)."""
    return preset if isinstance(preset, TrainConfig) else PRESETS.get(preset)


def scan(preset: str | TrainConfig, root=None, variants=None) -> Scan:
    """Every ``seed<N>.json`` of a preset, validated (see the module docstring)."""
    name, cfg = preset_name(preset), folder_config(preset)
    found = Scan(results_root(root))
    order = {v: i for i, v in enumerate(VARIANTS)}
    linked: set[Path] = set()
    preset_folder = results_root(root) / name
    folders = sorted(p for p in preset_folder.glob("*") if p.is_dir() and not p.is_symlink())
    for folder in ([preset_folder] if preset_folder.is_dir() else []) + folders:  # glob passes them over in silence
        if (folder == preset_folder or variants is None or folder.name in variants) and not os.access(
                folder, os.R_OK | os.X_OK):
            found.invalid.append(Rejected(folder, "a folder this user may not read (permission denied): its runs "
                                                  "are not read", "invalid"))
    for path in sorted((results_root(root) / name).glob("*/seed*.json")):
        if variants is not None and path.parent.name not in variants:
            continue
        if not RESULT_FILE.fullmatch(path.name):
            continue  # backups, set-aside and temporary files do not count
        if path.parent.is_symlink():  # a linked folder: its runs may belong anywhere; named, never followed
            if path.parent not in linked:
                linked.add(path.parent)
                found.invalid.append(Rejected(path.parent, "a linked folder (a symbolic link): not followed; copy "
                                                           "its runs into the store instead", "invalid"))
            continue
        data, reason, stale = check_file(path, cfg)
        if data is not None:
            found.current.append(data)
        else:
            (found.stale if stale else found.invalid).append(Rejected(path, reason, "stale" if stale else "invalid"))
    found.current.sort(key=lambda r: (order.get(r["variant"], len(order)), r["variant"], r["seed"]))
    return found


def load_results(preset: str | TrainConfig, root=None) -> list[dict]:
    """The current, valid runs of a preset, in variant-registry order then by seed (what it leaves out:
    :func:`skipped`)."""
    return scan(preset, root).current


def skipped(preset: str | TrainConfig, root=None, variants=None) -> list[Rejected]:
    """The files of a preset that :func:`load_results` leaves out (stale, misfiled or damaged), each
    with its ``kind`` and ``reason``; ``Rejected.line(results_root(root))`` is the one line to show."""
    return scan(preset, root, variants).skipped


def report_skipped(preset: str | TrainConfig, root=None, variants=None, file=None) -> list[Rejected]:
    """Name on stderr (or ``file``), one line per file, what :func:`load_results` leaves out; return them."""
    found = scan(preset, root, variants)
    for notice in found.notices():
        print(f"notice: {notice}", file=file if file is not None else sys.stderr)
    return found.skipped


def load_result(preset: str | TrainConfig, variant: str, seed: int, root=None) -> dict | None:
    """The run of (variant, seed) if it is stored, valid and current; else None."""
    path = result_path(preset, variant, seed, root)
    return check_file(path, folder_config(preset))[0] if os.path.lexists(path) else None


def device_kind(description: str) -> str:
    """"cpu", "cuda", "mps": the kind of device a stored description names ("cuda: NVIDIA H200" -> "cuda"), the part
    before its colon; "unrecorded" for an empty description."""
    return str(description or "").partition(":")[0].strip() or "unrecorded"


def device_name(description: str) -> str:
    """"Intel Xeon" from a stored description ("cpu: Intel(R) Xeon(R) Processor, 2 threads"; "NVIDIA H200" from
    "cuda: NVIDIA H200"): the hardware as a sentence names it, with no trademark signs, no "Processor", and none of
    the characters markup is made of (a stored string is never read as markup); "" for an empty description."""
    name = str(description or "").partition(": ")[2] or str(description or "")
    name = re.sub(r"\((R|TM)\)|\bProcessor\b", "", name.split(",")[0])
    return " ".join(re.sub(r"[^\w .-]", "", name).split())
