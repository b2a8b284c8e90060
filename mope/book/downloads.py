"""The book's downloads, written from the results store when the book is built: every stored run as
one CSV table (one row a run) and the claims of each preset as the JSON of ``python -m mope claims
--json``.

The CSV has a run's identity (the preset it is filed under today, variant, seed, configuration hash), its
provenance (commit, device, torch, wall time, throughput, number of processes), its size (parameters)
and every final loss it stored (``final``: the random-batch validation loss the paper calls Val, the
whole validation split at 1×, 2× and 4× the training context as ``val_loss_full_by_context.1x`` ...,
and the whole split with causal gate statistics where there is one); a number a run did not store is an
empty cell. What each column means, with its unit, is :func:`column_meaning` (the reproducibility page
shows it beside the link, :func:`column_dictionary`).

A stored string never reaches a spreadsheet as a formula or as two lines: a cell of text that starts
with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is written with a leading ``'`` (the usual
guard against formula injection), and a control character anywhere in it as its escape
(:func:`mope.errors.shown`). The reproducibility page links the files (:func:`write_downloads`).
"""
from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from pathlib import Path

from mope.book.markdown_tables import plain_markdown_table
from mope.book.run_records import stored_code
from mope.errors import shown
from mope.evidence.claims_json import claims_document
from mope.store.files import atomic_write

#: The name of the download that holds every stored run.
RUNS_CSV = "mope-runs.csv"
IDENTITY = ("preset", "variant", "seed", "config_hash")
PROVENANCE = ("git_commit", "device", "torch", "python", "world_size", "started", "finished", "wall_time_s",
              "tokens_per_s")
#: The first characters that make a spreadsheet read a cell as a formula (or, tab and carriage return,
#: move it to another cell).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
LOSS_UNIT = "nats per character (per token on `cpu-bpe`, whose runs train on subword tokens)"
#: What each column of the CSV holds (``final.val_loss_full_by_context.<N>x``: :func:`column_meaning`).
COLUMNS: dict[str, str] = {
    "preset": "the preset the run belongs to (a sweep run: its candidate's name)",
    "variant": "the model (the book's chapter 1 lists them)",
    "seed": "the training seed",
    "config_hash": "the hash of the run's configuration (model and protocol)",
    "git_commit": "the commit of the code that trained it (a run resumed from another commit or on other "
                  "hardware: the last; the reproducibility page gives each stretch of its steps)",
    "device": "the hardware it trained on (a run resumed elsewhere: the last)",
    "torch": "the version of torch",
    "python": "the version of Python",
    "world_size": "the number of processes that trained it together (1: one process)",
    "started": "when training started (ISO 8601, with the offset from UTC)",
    "finished": "when the result was stored (ISO 8601, with the offset from UTC)",
    "wall_time_s": "the wall time of the run, in seconds",
    "tokens_per_s": "training tokens per second of wall time",
    "num_parameters": "the number of trained parameters",
    "final.val_loss": f"the paper's Val: the validation loss on random batches at the last step, in {LOSS_UNIT}",
    "final.train_loss": f"the training loss on random batches at the last step, in {LOSS_UNIT}",
    "final.val_loss_full": f"the validation loss over the whole validation split at the training context, in "
                           f"{LOSS_UNIT}: the loss the book's verdicts use (less noisy than `final.val_loss`)",
    "final.val_loss_full_causal_stats": "`final.val_loss_full` of the same weights with the energy gate's statistics "
                                        "taken over each prefix (empty for a model whose gate is causal or absent)",
    "final.val_loss_full_by_context": "always empty: a run that stored no losses at other contexts (where a run "
                                      "stored them, they are the columns final.val_loss_full_by_context.<N>x)",
    "final.extrapolation_note": "why a loss at a longer context is empty (a learned position table's rows end at "
                                "the training context)",
}
EMPTY_CELL = ("an empty cell: the run stored no such number (an older run that did not record it, a model without "
              "an energy gate, or a learned position table that has no rows beyond the training context)")


def column_meaning(column: str) -> str:
    """What ``column`` of the CSV holds, with its unit. A field a writer added later to a run's open ``final``
    section, which no one has described here yet, gets a generic description naming it (never an error that
    stops the book)."""
    context = re.fullmatch(r"final\.val_loss_full_by_context\.([1-9][0-9]*)x", column)
    if context:
        times = context.group(1)
        return (f"the loss over the whole validation split in windows of {times}× the training context, in "
                f"{LOSS_UNIT} (empty where a learned position table has no rows that far)")
    if column in COLUMNS:
        return COLUMNS[column]
    if column.startswith("final."):
        return (f"{stored_code(column.removeprefix('final.'))} as a run stored it at its last step (a field a later "
                "version of the training loop added; not described here yet, and read by no verdict)")
    raise KeyError(f"no description of the column {column!r}")


def column_dictionary(columns: Iterable[str]) -> str:
    """A Markdown table: each column and what it holds; the line under it says what an empty cell means. A column
    is named by a stored key (a field a writer added to ``final``), so it is shown as text wherever it goes
    (:func:`~mope.book.run_records.stored_code`: code only for a plain name; a ``|`` escaped by the table)."""
    table = plain_markdown_table(["column", "what it holds"],
                                 [[stored_code(column), column_meaning(column)] for column in columns])
    return f"{table}\n\nIn every column, {EMPTY_CELL}."


def csv_text(value: str) -> str:
    """A stored string as a cell that stays text in a spreadsheet: control characters escaped, and a
    leading ``'`` where it would start a formula (:data:`FORMULA_STARTS`), also behind leading spaces or in its
    full-width form (＝, ＋, －, ＠: spreadsheets read those as formulas too)."""
    text = shown(value)
    first = unicodedata.normalize("NFKC", value.lstrip(" \u3000\u00a0"))[:1]
    return "'" + text if value.startswith(FORMULA_STARTS) or first in FORMULA_STARTS else text


def claims_file(preset: str) -> str:
    """The name of the claims download of ``preset``."""
    return f"mope-claims-{preset}.json"


def _flat(values: Mapping, prefix: str = "") -> dict:
    """``values`` with nested dictionaries spelled out as ``outer.inner`` keys."""
    flat = {}
    for key, value in values.items():
        if isinstance(value, Mapping):
            flat.update(_flat(value, f"{prefix}{key}."))
        elif value is None or isinstance(value, (int, float, str)):
            flat[f"{prefix}{key}"] = value
    return flat


def run_row(run: Mapping, preset: str) -> dict:
    """One run as a flat row: identity, provenance, number of parameters, then every final loss. ``preset``
    is the name the run is filed under today: a run stored before its preset was renamed carries the
    former name (``mope.store.presets.FORMER_NAMES``), which another preset may have taken since."""
    provenance = run.get("provenance", {})
    row = {"preset": preset, **{key: run[key] for key in IDENTITY if key != "preset"}}
    row.update({key: provenance.get(key) for key in PROVENANCE})
    row["num_parameters"] = run.get("num_parameters")
    row.update({f"final.{key}": value for key, value in _flat(run.get("final", {})).items()})
    return row


def _cell(value) -> object:
    if value is None:
        return ""
    return csv_text(value) if isinstance(value, str) else value


def runs_csv(runs_by_preset: Mapping[str, Iterable[Mapping]]) -> str:
    """Every run of ``runs_by_preset`` ({the name its runs are filed under: runs}) as one CSV table (header
    first; the union of the runs' final losses as columns, in the order first met; an empty cell where a
    run stored none; stored text as :func:`csv_text` writes it)."""
    rows = [run_row(run, preset) for preset, runs in runs_by_preset.items() for run in runs]
    columns: list[str] = []
    for row in rows:
        columns += [key for key in row if key not in columns]
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, restval="", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({key: _cell(value) for key, value in row.items()})
    return out.getvalue()


def csv_columns(text: str) -> list[str]:
    """The columns of a CSV written by :func:`runs_csv` (its header)."""
    return next(csv.reader(io.StringIO(text)), [])


def write_downloads(folder: str | Path, runs_by_preset: Mapping[str, list[dict]],
                    claims_presets: Iterable[str]) -> list[Path]:
    """Write :data:`RUNS_CSV` (every run of ``runs_by_preset``, {the name its runs are filed under: runs},
    preset by preset) and one claims JSON per
    preset of ``claims_presets`` (:func:`mope.evidence.claims_json.claims_document`, from the store) into
    ``folder``; the paths written, the CSV first."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = [folder / RUNS_CSV]
    _write_atomically(written[0], runs_csv(runs_by_preset))
    for preset in claims_presets:
        path = folder / claims_file(preset)
        _write_atomically(path, json.dumps(claims_document(preset), indent=1, ensure_ascii=False, allow_nan=False) + "\n")
        written.append(path)
    return written


def _write_atomically(path: Path, text: str) -> None:
    """``text`` into ``path`` whole or not at all (a full disk leaves the former file, never a truncated one)."""
    atomic_write(path, lambda file: file.write(text.encode("utf-8")))
