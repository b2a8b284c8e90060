"""The introduction's first figure: every claim of the paper on every preset, drawn from the claim records.

:func:`plot_claims` takes the records :func:`mope.evidence.claims.claim_records` gives (the JSON of
``python -m mope claims --preset P --json``), one list per preset, and draws a grid: a row per claim, a
column per preset. In each cell our estimate (``ours``) is a marker and its 95% interval (``interval``) a
bar through it (one seed, as the ``paper`` preset has: the marker alone); a black vertical line marks the
paper's number (``paper``), a dotted grey one the value the verdict is judged against (0 for an effect, the
threshold of a mechanism). The marker's colour, shape and fill say the verdict (``outcome``): colours of the
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

from mope.book.figures import COLUMN_WIDTH, book_style
from mope.book.palette import BAND_SHADE, UNKNOWN_VERDICT, VERDICT_COLOURS
from mope.evidence import claims, claims_json
from mope.evidence.claims import CLAIMS_BY_KEY, Findings
from mope.store.presets import STANDING_PRESETS


class VerdictStyle(NamedTuple):
    """How a verdict is drawn: its legend label, colour, matplotlib marker and whether the marker is filled."""

    label: str
    colour: str
    marker: str
    filled: bool


#: One style per outcome of ``OUTCOMES`` of :mod:`mope.evidence.verdicts` that is drawn ("not_run" draws nothing).
#: Colours of :data:`mope.book.palette.VERDICT_COLOURS`; decided verdicts filled, the others hollow; no two share a shape.
VERDICT_STYLES: dict[str, VerdictStyle] = {
    "confirmed": VerdictStyle("confirmed", VERDICT_COLOURS["confirmed"], "o", True),
    "refuted": VerdictStyle("refuted", VERDICT_COLOURS["refuted"], "s", True),
    "undecided": VerdictStyle("undecided", VERDICT_COLOURS["undecided"], "D", False),
    "indicative": VerdictStyle("one seed (indicative)", VERDICT_COLOURS["indicative"], "^", False),
    "moot": VerdictStyle("moot", VERDICT_COLOURS["moot"], "v", False),
    "not_judged": VerdictStyle("not judged at this scale", VERDICT_COLOURS["not_judged"], "p", False),
}
#: An outcome not in :data:`VERDICT_STYLES` (a verdict word added since): neutral grey, its own name.
UNKNOWN_STYLE = VerdictStyle("", UNKNOWN_VERDICT, "h", False)
NOT_RUN = "not_run"
PAPER_COLOUR = "#000000"
REFERENCE_COLOUR = "#8c8c8c"

MARGIN = 0.08  # inches left and right of the grid
BAND_HEIGHT = 0.33  # inches a claim: its words on one line, its cells under them
CELL_HEIGHT = 0.16  # inches of the band the cells take
HEADER_HEIGHT = 0.75  # inches above the grid: the legend and the presets' names
FONT = 8  # points: the claims, the presets, the legend
SMALL = 7  # points: the rows' scales


def cli_records(findings: Mapping[str, Findings], presets: Sequence[str] = STANDING_PRESETS) -> dict[str, list[dict]]:
    """{preset: the claim records ``python -m mope claims --preset P --json`` prints} for each of ``presets``, in
    their order: made from its verdicts in ``findings`` where those hold them (a page that has judged them
    already), else judged on the preset's stored runs (a preset without runs: every claim not run)."""
    return {preset: claims_json.strict_claim_records(
                [claims.record(claim, verdict) for claim, verdict in findings[preset]] if preset in findings
                else claims.claim_records(preset))
            for preset in presets}


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
                      Line2D([], [], color=REFERENCE_COLOUR, lw=0.9, ls=":", label="0, or the claim's threshold")]


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


def plot_claims(records: Mapping[str, Sequence[Mapping]]):
    """The grid of claims (rows) by presets (columns) from ``records`` ({preset: its claim records}, the
    presets in the order the columns take): each claim's words on a line of their own, its cells under
    them. Each cell is an axes labelled "<claim key> @ <preset>"; in it the estimate is the line with gid
    "estimate", its interval the line with gid "interval", the paper's number the line with gid "paper"
    and the verdict's reference the line with gid "reference"."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    if not records:
        raise ValueError("no presets to draw: records is empty")
    presets = list(records)
    rows = claim_rows(records)
    if not rows:
        raise ValueError(f"no claim records for the presets {', '.join(presets)}")
    height = HEADER_HEIGHT + BAND_HEIGHT * len(rows)
    gap = BAND_HEIGHT - CELL_HEIGHT
    with book_style():
        fig = plt.figure(figsize=(COLUMN_WIDTH, height))
        grid = fig.add_gridspec(len(rows), len(presets), left=MARGIN / COLUMN_WIDTH, right=1 - MARGIN / COLUMN_WIDTH,
                                top=1 - (HEADER_HEIGHT + gap) / height, bottom=0.04 / height,
                                wspace=0.15, hspace=gap / CELL_HEIGHT)
        outcomes = sorted({r["outcome"] for row in rows for r in row if drawn(r)})
        for r, row in enumerate(rows):
            limits = row_limits(row)
            cells = [fig.add_subplot(grid[r, c], label=f"{record['key']} @ {preset}")
                     for c, (preset, record) in enumerate(zip(presets, row))]
            for ax, record in zip(cells, row):
                _cell(ax, record, limits)
            if r % 2 == 0:  # every other claim shaded: its words and its cells read as one band
                bottom = cells[0].get_position().y0 - 0.03 / height
                fig.patches.append(Rectangle((0, bottom), 1, BAND_HEIGHT / height, transform=fig.transFigure,
                                             color=BAND_SHADE, zorder=-1))
            cells[0].text(0, 1.25, row[0]["claim"], transform=cells[0].transAxes, ha="left", va="bottom",
                          fontsize=FONT)
            cells[-1].text(1, 1.25, f"scale {scale_text(limits[0])} to {scale_text(limits[1])}",
                           transform=cells[-1].transAxes, ha="right", va="bottom", fontsize=SMALL, color="#555555")
        for c, preset in enumerate(presets):
            runs = any(drawn(record) for record in records[preset])
            fig.axes[c].text(0.5, 1.25 + gap / CELL_HEIGHT * 0.9, preset if runs else f"{preset}\n(no runs yet)",
                             transform=fig.axes[c].transAxes, ha="center", va="bottom", fontsize=FONT,
                             fontweight="bold")
        fig.legend(handles=_legend_handles(outcomes), loc="upper center", bbox_to_anchor=(0.5, 1.0), ncol=4,
                   frameon=False, fontsize=FONT, handlelength=1.8, columnspacing=1.2, borderaxespad=0.2)
    return fig
