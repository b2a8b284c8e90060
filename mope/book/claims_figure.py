"""The introduction's first figure: every claim of the paper on every preset, drawn from the claim records.

:func:`plot_claims` takes the records :func:`mope.evidence.claims.claim_records` gives (the JSON of
``python -m mope claims --preset P --json``), one list per preset, and draws a grid: a row per claim, a
column per preset. In each cell our estimate (``ours``) is a marker and its 95% interval (``interval``) a
bar through it (one seed, as the ``paper`` preset has: the marker alone); a black vertical line marks the
paper's number (``paper``), a dotted grey one the value the verdict is judged against (0 for an effect, the
threshold of a mechanism). The marker's colour, shape and fill say the verdict (``outcome``), named in the legend in the
words every reading page gives a verdict in (:data:`mope.evidence.verdicts.PLAIN_WORDS`): colours of the
Okabe–Ito set (:data:`mope.book.palette.VERDICT_COLOURS`), and a shape and fill per outcome
besides, so that the verdict reads in grey as well. An outcome this module does not know (a new verdict
word) is drawn in :data:`UNKNOWN_STYLE`'s neutral grey under its own name. A claim that is not run on a
preset leaves its cell empty.

The claims' statistics are of different units (gaps in nats, shares of pairs, ωσ, σ's place in its window), so each row has its
own horizontal scale, the same in every cell of the row: it spans the row's intervals, the paper's number and
the verdict's reference, and its two ends are printed at the row's right. Nothing here computes a number;
every position is a record's.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from mope.book.figure_style import COLUMN_WIDTH, book_style
from mope.book.palette import BAND_SHADE, UNKNOWN_VERDICT, VERDICT_COLOURS
from mope.errors import ConfigError
from mope.evidence import claims, claims_json
from mope.evidence.claims import CLAIMS_BY_KEY, Findings
from mope.evidence.verdicts import PLAIN_WORDS
from mope.store.presets import STANDING_PRESETS, get_preset


class VerdictStyle(NamedTuple):
    """How a verdict is drawn: its legend label, colour, matplotlib marker and whether the marker is filled."""

    label: str
    colour: str
    marker: str
    filled: bool


#: What a decided verdict says of the paper, beside its plain word in the legend: "holds" may be bad news for MoPE
#: (a claim that MoPE is worse holds), so the colour is named by what it says of the paper, not of the model.
PAPER_SIDE = {"confirmed": "agrees with the paper", "refuted": "contradicts the paper"}


def legend_words(outcome: str) -> str:
    """The legend's words for ``outcome``: its plain word of :data:`mope.evidence.verdicts.PLAIN_WORDS`, the words
    every reading page gives a verdict in, and for a decided one what it says of the paper ("holds: agrees with
    the paper")."""
    return PLAIN_WORDS[outcome] + (f": {PAPER_SIDE[outcome]}" if outcome in PAPER_SIDE else "")


#: One style per outcome of ``OUTCOMES`` of :mod:`mope.evidence.verdicts` that is drawn ("not_run" draws nothing),
#: its legend's words :func:`legend_words`. Colours of :data:`mope.book.palette.VERDICT_COLOURS`; decided verdicts
#: filled, the others hollow; no two share a shape.
VERDICT_STYLES: dict[str, VerdictStyle] = {
    outcome: VerdictStyle(legend_words(outcome), VERDICT_COLOURS[outcome], marker, filled)
    for outcome, marker, filled in (("confirmed", "o", True), ("refuted", "s", True), ("undecided", "D", False),
                                    ("indicative", "^", False), ("moot", "v", False), ("not_judged", "p", False))}
#: An outcome not in :data:`VERDICT_STYLES` (a verdict word added since): neutral grey, its own name.
UNKNOWN_STYLE = VerdictStyle("", UNKNOWN_VERDICT, "h", False)
NOT_RUN = "not_run"
PAPER_COLOUR = "#000000"
REFERENCE_COLOUR = "#8c8c8c"

MARGIN = 0.08  # inches left and right of the grid
#: inches: the column's width less 0.05, the grid's shaded bands reaching both edges. At the column's full width
#: (365 CSS px saved) a phone's dropdown (350 px at 400) showed its 9 pt at 8.99 pt; at 360 px, 9.11.
WIDTH = COLUMN_WIDTH - 0.05
LINE = 0.155  # inches a line of text at 9 pt takes
#: inches a row of the legend takes at 9 pt: its text's height (about 1.16 × 9 pt) and the label spacing (0.25 × 9 pt);
#: a LINE a row left its last row touching the presets' names below it
LEGEND_ROW = 0.18
CELL_HEIGHT = 0.16  # inches of a claim's band its cells take, under its words
GAP = 0.08  # inches between a claim's cells and the next claim's words
LINE_CHARACTERS = 44  # characters of a claim's words on a line of the column at 9 pt
LEGEND_PAIR_CHARACTERS = 24  # the legend's labels fit two to a line up to this length
HEADING = "A row: one claim, the paper's or ours. A column: a scale we trained, the paper's own first."


def cli_records(findings: Mapping[str, Findings], presets: Sequence[str] = STANDING_PRESETS) -> dict[str, list[dict]]:
    """{preset: the claim records ``python -m mope claims --preset P --json`` prints} for each of ``presets``, in
    their order: made from its verdicts in ``findings`` where those hold them (a page that has judged them
    already), else judged on the preset's stored runs (a preset without runs: every claim not run)."""
    return {preset: claims_json.strict_claim_records(
                [claims.record(claim, verdict) for claim, verdict in findings[preset]] if preset in findings
                else claims.claim_records(preset))
            for preset in presets}


def in_the_presets_units(preset: str, records: Sequence[Mapping]) -> list[Mapping]:
    """``records`` of ``preset`` with the paper's number of a size or a near-equality, a loss in nats a character,
    in the preset's own unit: times the characters a token covers on subword tokens, so that the paper's line
    stands beside estimates in nats a token (unchanged on characters, or a preset the store does not know)."""
    try:
        per_token = get_preset(preset).characters_per_token()
    except ConfigError:
        return list(records)
    return [{**record, "paper": float(record["paper"]) * per_token}
            if per_token != 1.0 and record.get("kind") in ("size", "equivalence") and _finite(record.get("paper")) is not None
            else record for record in records]


def verdict_style(outcome: str) -> VerdictStyle:
    """The style of ``outcome``; an unknown one is :data:`UNKNOWN_STYLE`, labelled with its own words."""
    return VERDICT_STYLES.get(outcome) or UNKNOWN_STYLE._replace(label=outcome.replace("_", " "))


def reference_value(record: Mapping) -> float:
    """What the verdict of ``record`` compares its estimate with: the threshold of a mechanism claim, 0 for
    an effect (an ordering, a size or a near-equality, judged on its sign off the paper's protocol), 1 for a
    share that must be every pair."""
    claim = CLAIMS_BY_KEY.get(record.get("key"))
    if record.get("kind") == "every":
        return 1.0
    if claim is not None and record.get("kind") == "mechanism":
        return claim.threshold
    return 0.0


def _finite(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def drawn(record: Mapping) -> bool:
    """Whether ``record`` has an estimate to draw: run, with a finite mean."""
    return record.get("outcome") != NOT_RUN and _finite(record.get("ours")) is not None


def interval_of(record: Mapping) -> tuple[float, float] | None:
    """The 95% interval of ``record`` when it has one with finite ends (one seed has none)."""
    interval = record.get("interval")
    if not interval or any(_finite(bound) is None for bound in interval):
        return None
    return float(interval[0]), float(interval[1])


def row_limits(row: Sequence[Mapping]) -> tuple[float, float]:
    """The horizontal range of one claim's row (its records on every preset): every estimate, interval,
    the paper's number and the verdict's reference, with a margin on both sides."""
    values = [reference_value(row[0])]
    for record in row:
        if _finite(record.get("paper")) is not None:
            values.append(float(record["paper"]))
        if drawn(record):
            values.append(float(record["ours"]))
            values.extend(interval_of(record) or ())
    low, high = min(values), max(values)
    margin = 0.08 * (high - low) if high > low else max(abs(high), 1.0) * 0.1
    return low - margin, high + margin


def scale_text(value: float) -> str:
    """A row's end for its scale label: two significant figures, a true minus sign."""
    return f"{value:.2g}".replace("-", "−")


def claim_rows(records: Mapping[str, Sequence[Mapping]]) -> list[list[Mapping]]:
    """The records grouped by claim (by ``key``), in the order the presets list them (the first preset's
    order, then any claim only a later preset has), one record per preset, in the order of ``records``; a
    preset without the claim gets a not-run record."""
    order: list[str] = []
    by_preset: dict[str, dict[str, Mapping]] = {}
    for preset, preset_records in records.items():
        by_preset[preset] = {}
        for record in preset_records:
            by_preset[preset][record["key"]] = record
            if record["key"] not in order:
                order.append(record["key"])
    words = {key: r["claim"] for preset_records in by_preset.values() for key, r in preset_records.items()}
    kinds = {key: r.get("kind") for preset_records in by_preset.values() for key, r in preset_records.items()}
    return [[by_preset[preset].get(key) or {"key": key, "claim": words[key], "kind": kinds[key], "outcome": NOT_RUN,
                                             "ours": None, "interval": None, "paper": None, "n": 0}
             for preset in records] for key in order]


def _legend_handles(outcomes: Sequence[str]) -> list:
    """The legend's entries: each verdict drawn (the known ones in :data:`VERDICT_STYLES`' order, then any
    other), the paper's number and the reference."""
    from matplotlib.lines import Line2D

    ordered = [o for o in VERDICT_STYLES if o in outcomes] + [o for o in outcomes if o not in VERDICT_STYLES]
    handles = []
    for outcome in ordered:
        style = verdict_style(outcome)
        handles.append(Line2D([], [], marker=style.marker, ms=5.5, mew=1.3, color=style.colour,
                              mfc=style.colour if style.filled else "white", label=style.label))
    return handles + [Line2D([], [], color=PAPER_COLOUR, lw=1.3, label="the paper's number"),
                      Line2D([], [], color=REFERENCE_COLOUR, lw=0.9, ls=":", label="0, or the threshold")]


def _cell(ax, record: Mapping, limits: tuple[float, float]) -> None:
    """One claim on one preset: the reference, the paper's number, and the estimate with its interval."""
    ax.set_xlim(*limits)
    ax.set_ylim(-1, 1)
    ax.set_xticks([])
    ax.set_yticks([])
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.spines["bottom"].set_color("#c8c8c8")
    ax.set_facecolor("none")  # the band's shade shows through
    ax.axvline(reference_value(record), color=REFERENCE_COLOUR, lw=0.9, ls=":", gid="reference")
    if _finite(record.get("paper")) is not None:
        ax.axvline(float(record["paper"]), ymin=0.1, ymax=0.9, color=PAPER_COLOUR, lw=1.3, gid="paper")
    if not drawn(record):
        return
    style = verdict_style(record["outcome"])
    interval = interval_of(record)
    if interval is not None:
        ax.plot(interval, (0, 0), color=style.colour, lw=1.6, solid_capstyle="butt", gid="interval")
    ax.plot([float(record["ours"])], [0], ls="none", marker=style.marker, ms=5.5, mew=1.3, color=style.colour,
            mfc=style.colour if style.filled else "white", gid="estimate", zorder=3, clip_on=False)


def words_lines(words: str, scale: str) -> tuple[str, int]:
    """A claim's words wrapped to the column (:data:`LINE_CHARACTERS`), and the lines its band gives them: one
    more where the row's scale, set at the right of the last line, would not fit beside it."""
    import textwrap

    lines = textwrap.wrap(words, LINE_CHARACTERS, break_on_hyphens=False)  # never a model's name cut
    room = len(lines[-1]) + 3 + len(scale) <= LINE_CHARACTERS
    return "\n".join(lines), len(lines) + (0 if room else 1)


def plot_claims(records: Mapping[str, Sequence[Mapping]]):
    """The grid of claims (rows) by presets (columns) from ``records`` ({preset: its claim records}, the
    presets in the order the columns take), drawn for the column of a phone: each claim's words wrapped over
    the lines they need, its cells under them; above the grid a heading that says what a row is, the legend
    (each verdict's colour named in words) and the presets' names, staggered over two lines. Each cell is an
    axes labelled "<claim key> @ <preset>"; in it the estimate is the line with gid "estimate", its interval
    the line with gid "interval", the paper's number the line with gid "paper" and the verdict's reference
    the line with gid "reference"."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    if not records:
        raise ValueError("no presets to draw: records is empty")
    presets = list(records)
    rows = claim_rows({preset: in_the_presets_units(preset, preset_records) for preset, preset_records in records.items()})
    if not rows:
        raise ValueError(f"no claim records for the presets {', '.join(presets)}")
    outcomes = sorted({r["outcome"] for row in rows for r in row if drawn(r)})
    handles = _legend_handles(outcomes)
    limits = [row_limits(row) for row in rows]
    scales = [f"scale {scale_text(low)} to {scale_text(high)}" for low, high in limits]
    words = [words_lines(row[0]["claim"], scale) for row, scale in zip(rows, scales)]
    bands = [lines * LINE + CELL_HEIGHT + GAP for _, lines in words]
    empty = [preset for preset in presets if not any(drawn(record) for record in records[preset])]
    legend_top = 2 * LINE + 0.1 + (LINE if empty else 0)
    columns = 2 if max(len(handle.get_label()) for handle in handles) <= LEGEND_PAIR_CHARACTERS else 1
    header = legend_top + LEGEND_ROW * math.ceil(len(handles) / columns) + 0.1 + 2 * LINE + 0.05
    height = header + sum(bands)
    with book_style():
        fig = plt.figure(figsize=(WIDTH, height))
        left, right = MARGIN / WIDTH, 1 - MARGIN / WIDTH
        fig.text(left, 1 - 0.04 / height, HEADING, ha="left", va="top", wrap=True)
        if empty:
            fig.text(left, 1 - (0.04 + 2 * LINE + 0.05) / height, f"no runs yet: {', '.join(empty)}", ha="left",
                     va="top")
        fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(0, 1 - legend_top / height), ncol=columns,
                   frameon=False, handlelength=1.5, columnspacing=0.6, borderaxespad=0.2, handletextpad=0.4,
                   labelspacing=0.25)
        top = header
        cells_by_row = []
        for r, (row, band, (text, lines)) in enumerate(zip(rows, bands, words)):
            y0 = 1 - (top + lines * LINE + CELL_HEIGHT) / height
            grid = fig.add_gridspec(1, len(presets), left=left, right=right, bottom=y0,
                                    top=y0 + CELL_HEIGHT / height, wspace=0.15)
            cells = [fig.add_subplot(grid[0, c], label=f"{record['key']} @ {preset}")
                     for c, (preset, record) in enumerate(zip(presets, row))]
            for ax, record in zip(cells, row):
                _cell(ax, record, limits[r])
            if r % 2 == 0:  # every other claim shaded: its words and its cells read as one band
                fig.patches.append(Rectangle((0, 1 - (top + band - GAP / 2) / height), 1, band / height,
                                             transform=fig.transFigure, color=BAND_SHADE, zorder=-1))
            fig.text(left, 1 - (top + 0.02) / height, text, ha="left", va="top", linespacing=1.2)
            fig.text(right, 1 - (top + lines * LINE + 0.01) / height, scales[r], ha="right", va="bottom",
                     color="#555555")
            cells_by_row.append(cells)
            top += band
        for c, preset in enumerate(presets):
            box = cells_by_row[0][c].get_position()
            y = 1 - (header - 0.05 - (LINE if c % 2 == 0 else 0)) / height
            fig.text((box.x0 + box.x1) / 2, y, preset, ha="center", va="bottom", fontweight="bold")
    return fig
