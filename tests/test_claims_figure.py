"""The introduction's figure of the claims (mope.book.claims_figure): every point, interval and mark it draws
is read back from the matplotlib artists and compared with the claim records it was given; every claim and
every preset has its place; each verdict is told apart by colour and by shape, an unknown one drawn neutral."""
import itertools
import math

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

from mope.book import claims_figure  # noqa: E402
from mope.evidence import claims, claims_json, verdicts  # noqa: E402
from mope.store.presets import STANDING_PRESETS, get_preset  # noqa: E402

OUTCOMES = ("confirmed", "refuted", "undecided", "indicative", "moot", "not_run",
            "undecided_after_correction")  # the last: a verdict word this figure does not know


def constructed_records() -> dict[str, list[dict]]:
    """Records for every claim on every standing preset, as claim_records gives them: the paper's preset one
    seed (no interval), cpu-long-4x not run, the others each claim in one outcome of OUTCOMES in turn, with
    distinct numbers; one record's interval holds a NaN bound (drawn as a point alone)."""
    records = {}
    for p, preset in enumerate(STANDING_PRESETS):
        records[preset] = []
        for i, claim in enumerate(claims.CLAIMS):
            outcome = ("indicative" if preset == "paper" else "not_run" if preset == "cpu-long-4x"
                       else OUTCOMES[(i + p) % len(OUTCOMES)])
            ours = None if outcome == "not_run" else 0.01 * (i + 1) * (-1) ** p + 0.003 * p
            n = 0 if outcome == "not_run" else 1 if outcome == "indicative" else 3 + p
            interval = None if n < 2 else [ours - 0.02 - 0.001 * i, ours + 0.03]
            records[preset].append({"key": claim.key, "claim": claim.words, "kind": claim.kind, "paper": claim.paper,
                                    "ours": ours, "interval": interval, "outcome": outcome, "n": n})
    records["cpu"][0]["interval"] = [float("nan"), records["cpu"][0]["ours"]]
    return records


@pytest.fixture(scope="module")
def drawn():
    records = constructed_records()
    fig = claims_figure.plot_claims(records)
    yield records, fig, {ax.get_label(): ax for ax in fig.axes}
    import matplotlib.pyplot as plt

    plt.close(fig)


def lines(ax, gid: str):
    return [line for line in ax.get_lines() if line.get_gid() == gid]


def test_every_claim_and_every_preset_has_its_place(drawn):
    records, fig, cells = drawn
    assert set(cells) == {f"{claim.key} @ {preset}" for claim in claims.CLAIMS for preset in STANDING_PRESETS}
    texts = [" ".join(text.get_text().split("\n")) for text in fig.texts]
    for claim in claims.CLAIMS:
        assert texts.count(claim.words) == 1, claim.words
    for preset in STANDING_PRESETS:
        assert texts.count(preset) == 1, preset
    assert "no runs yet: cpu-long-4x" in texts  # a preset without runs says so above the grid
    assert claims_figure.HEADING in texts


def test_the_grid_is_drawn_for_a_phones_column_its_colours_named_in_words(drawn):
    """Issue 53: the grid read at 9 pt on a 400 px screen, its legend naming what each colour says; issue 73: no
    words of a claim, scale or preset's name running into another."""
    from test_figures import check_laid_out, check_legible_on_a_phone, shown_fonts

    records, fig, cells = drawn
    check_legible_on_a_phone(fig)
    check_laid_out(fig)
    # the introduction shows it in a dropdown, 350 px wide at 400 px: at the column's full width its 9 pt read 8.99
    assert min(shown_fonts(fig, column_px=350).values()) >= 9
    legend = [text.get_text() for text in fig.legends[0].get_texts()]
    assert {"holds: agrees with the paper", "fails: contradicts the paper", "not settled"} <= set(legend)


@pytest.mark.parametrize("dpi", [100, 200, 300])
def test_the_legends_rows_leave_room_for_the_presets_names_at_any_pixel_density(drawn, dpi):
    """Issue 73: the legend's last row ("0, or the threshold") ran into the presets' names under it (one LINE
    reserved a row, where a row takes LEGEND_ROW): at 1 pixel a CSS pixel it touched "cpu-long"."""
    from mope.book import figure_png

    texts, size = figure_png.drawn_texts(drawn[1], dpi)
    assert figure_png.layout_problems(texts, size, tolerance=dpi / 100) == []


def test_the_legend_says_each_verdict_in_the_words_of_every_reading_page(drawn):
    """Issue 53: the grid's words for a verdict are the vocabulary's (mope.evidence.verdicts.PLAIN_WORDS), read
    from the legend drawn: "cannot be tested at this scale", not words of its own such as "not judged here"."""
    records, fig, cells = drawn
    assert set(claims_figure.VERDICT_STYLES) == set(verdicts.OUTCOMES) - {"not_run"}  # every outcome drawn has words
    legend = [text.get_text() for text in fig.legends[0].get_texts()]
    for outcome in sorted({r["outcome"] for rows in records.values() for r in rows} & set(verdicts.PLAIN_WORDS)
                          - {"not_run"}):
        (label,) = [text for text in legend if text.split(":")[0] == verdicts.PLAIN_WORDS[outcome]]
        assert label == verdicts.PLAIN_WORDS[outcome] + {"confirmed": ": agrees with the paper",
                                                         "refuted": ": contradicts the paper"}.get(outcome, "")
    judged = claims_figure.plot_claims({"cpu": [{**records["cpu"][0], "outcome": "not_judged"}]})
    assert "cannot be tested at this scale" in [text.get_text() for text in judged.legends[0].get_texts()]
    import matplotlib.pyplot as plt

    plt.close(judged)


def test_every_point_and_interval_is_the_records(drawn):
    records, fig, cells = drawn
    compared = 0
    for preset, preset_records in records.items():
        for record in preset_records:
            ax = cells[f"{record['key']} @ {preset}"]
            estimate, interval = lines(ax, "estimate"), lines(ax, "interval")
            if record["outcome"] == "not_run":
                assert not estimate and not interval
                continue
            assert [list(line.get_xdata()) for line in estimate] == [[record["ours"]]]
            bounds = record["interval"]
            if bounds is None or not all(math.isfinite(b) for b in bounds):
                assert not interval  # one seed, or a bound that is no number: the point alone
            else:
                assert [list(line.get_xdata()) for line in interval] == [bounds]
            low, high = ax.get_xlim()
            assert all(low <= x <= high for line in estimate + interval for x in line.get_xdata())
            compared += 1
    assert compared == sum(r["outcome"] != "not_run" for rs in records.values() for r in rs) > 100


def test_the_papers_number_and_the_verdicts_reference_are_marked_in_every_cell(drawn):
    """The paper's number is a loss a character: on subword tokens (`cpu-bpe`) a size or a near-equality is drawn
    in the cell's unit, a loss a token, the paper's times the characters a token covers."""
    records, fig, cells = drawn
    for preset, preset_records in records.items():
        per_token = get_preset(preset).characters_per_token()
        for record in preset_records:
            ax = cells[f"{record['key']} @ {preset}"]
            paper = [line.get_xdata()[0] for line in lines(ax, "paper")]
            in_its_unit = per_token if record["kind"] in ("size", "equivalence") else 1.0
            assert paper == ([] if record["paper"] is None else [pytest.approx(record["paper"] * in_its_unit)])
            claim = claims.get_claim(record["key"])
            reference = 1.0 if claim.kind == "every" else claim.threshold if claim.kind == "mechanism" else 0.0
            assert [line.get_xdata()[0] for line in lines(ax, "reference")] == [reference]


def test_a_subword_presets_records_take_the_papers_number_in_its_unit():
    records = constructed_records()["cpu-bpe"]
    per_token = get_preset("cpu-bpe").characters_per_token()
    assert per_token > 2  # a token covers more than two characters: drawn per character, the line would sit far off
    converted = claims_figure.in_the_presets_units("cpu-bpe", records)
    for record, shown in zip(records, converted):
        factor = per_token if record["kind"] in ("size", "equivalence") and record["paper"] is not None else 1.0
        assert shown["paper"] == (None if record["paper"] is None else pytest.approx(record["paper"] * factor))
    assert claims_figure.in_the_presets_units("cpu", records) == records  # characters: unchanged
    assert claims_figure.in_the_presets_units("no-such-preset", records) == records


def test_a_row_has_one_scale_across_its_presets(drawn):
    records, fig, cells = drawn
    for claim in claims.CLAIMS:
        limits = {cells[f"{claim.key} @ {preset}"].get_xlim() for preset in STANDING_PRESETS}
        assert len(limits) == 1, claim.key


def test_each_verdict_has_its_own_colour_and_shape_and_an_unknown_one_is_neutral(drawn):
    records, fig, cells = drawn
    seen = {}
    for preset, preset_records in records.items():
        for record in preset_records:
            for line in lines(cells[f"{record['key']} @ {preset}"], "estimate"):
                seen.setdefault(record["outcome"], set()).add((to_hex(line.get_color()), line.get_marker(),
                                                               to_hex(line.get_markerfacecolor())))
    assert set(seen) == set(OUTCOMES) - {"not_run"}
    assert all(len(styles) == 1 for styles in seen.values())  # one look per verdict, wherever it is
    looks = [next(iter(styles)) for styles in seen.values()]
    assert len({colour for colour, _, _ in looks}) == len(looks)
    assert len({marker for _, marker, _ in looks}) == len(looks)
    assert next(iter(seen["undecided_after_correction"]))[0] == claims_figure.UNKNOWN_STYLE.colour
    filled = {outcome for outcome, styles in seen.items() if next(iter(styles))[2] != "#ffffff"}
    assert filled == {"confirmed", "refuted"}  # the decided verdicts filled, the others hollow
    legend = [text.get_text() for text in fig.legends[0].get_texts()]
    assert "undecided after correction" in legend and "holds: agrees with the paper" in legend and "the paper's number" in legend


def test_the_stored_records_are_the_clis_and_are_drawn_as_it_gives_them():
    """What the introduction draws: every standing preset's records, from the verdicts the page has judged
    (here `cpu`'s) or judged on the stored runs, equal to the JSON of `python -m mope claims --preset P`."""
    records = claims_figure.cli_records({"cpu": claims.judge_all("cpu")})
    assert list(records) == list(STANDING_PRESETS)
    for preset in STANDING_PRESETS:
        assert records[preset] == claims_json.claims_document(preset)["claims"], preset
    fig = claims_figure.plot_claims(records)
    from test_figures import check_legible_on_a_phone

    check_legible_on_a_phone(fig)  # the stored verdicts' legend and words, not only the constructed ones
    cells = {ax.get_label(): ax for ax in fig.axes}
    for preset, preset_records in records.items():
        for record in preset_records:
            ax = cells[f"{record['key']} @ {preset}"]
            points = [list(line.get_xdata()) for line in lines(ax, "estimate")]
            assert points == ([] if record["outcome"] == "not_run" or record["ours"] is None else [[record["ours"]]])
            intervals = [list(line.get_xdata()) for line in lines(ax, "interval")]
            assert intervals == ([] if record["interval"] is None or not points else [record["interval"]])


def test_no_presets_is_a_clear_error():
    with pytest.raises(ValueError, match="records is empty"):
        claims_figure.plot_claims({})
    with pytest.raises(ValueError, match="no claim records for the presets cpu"):
        claims_figure.plot_claims({"cpu": []})


def test_the_introduction_opens_with_the_figure_drawn_from_the_clis_records():
    """After its title and the bottom line, the introduction shows the figure of Table 2's models on every scale
    (issue 53: the figure that answers the reader's question), then this one, drawn from every standing
    preset's CLI records: the code cells before them show no code (the Colab set-up, the cell that draws them),
    and the one that draws them is not removed (myst-nb runs a removed cell only when a later cell's output is
    asked for: the figure's directive would find no figure)."""
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "book" / "intro.md").read_text()
    body = page.split("\n# MoPE, executed\n", 1)[1]
    blocks = re.findall(r"```\{([\w:-]+)\}([^\n]*)\n(.*?)\n```", body, flags=re.S)
    before = list(itertools.takewhile(lambda block: block[0] == "code-cell", blocks))
    assert blocks[len(before)][:2] == ("eval:figure", " FIG_GAPS")
    assert blocks[len(before) + 1][:2] == ("eval:figure", " FIG_CLAIMS")
    assert all(re.search(r":tags: \[remove-(cell|input)\]", text) for _, _, text in before)
    assert body.index("```{eval:figure} FIG_CLAIMS") < body.index("We retrained the models")  # above the prose
    drawing = next(text for _, _, text in before if "FIG_CLAIMS =" in text)
    assert "claims_figure.plot_claims(claims_figure.cli_records(FINDINGS))" in drawing
    assert ":tags: [remove-input]" in drawing
