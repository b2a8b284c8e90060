"""What a reader of the whole book trips over (issue 30): each error a reader found, the clutter, the
phone, the citation, the downloads and the measured times. The sources are always checked; the built
pages (``_build/html``) where the book has been built."""
from __future__ import annotations

import csv
import importlib.util
import io
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import jupytext
import numpy as np
import pytest
import yaml

from mope.book import downloads, markdown_tables, run_times, tables
from mope.evidence import claims, measures
from synthetic_runs import run

ROOT = Path(__file__).resolve().parents[1]
BUILT = ROOT / "_build" / "html"
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.md"))
READING = [ROOT / "book" / "intro.md", *CHAPTERS]
needs_build = pytest.mark.skipif(not (BUILT / "book" / "intro.html").is_file(), reason="the book is not built")
needs_chromium = pytest.mark.skipif(
    not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")), reason="no Chromium")


def front_matter(page: Path) -> dict:
    return yaml.safe_load(page.read_text().split("---\n")[1])


def code_cells(page: Path) -> list:
    return [cell for cell in jupytext.read(page).cells if cell.cell_type == "code"]


def text_of(html: str) -> str:
    """The text of a page (scripts and styles left out), entities decoded."""
    class Text(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.parts, self.skip = [], 0

        def handle_starttag(self, tag, attrs):
            self.skip += tag in ("script", "style")

        def handle_endtag(self, tag):
            self.skip -= tag in ("script", "style") and self.skip > 0

        def handle_data(self, data):
            if not self.skip:
                self.parts.append(data)

    parser = Text()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())


def built(name: str) -> str:
    return (BUILT / name).read_text(encoding="utf-8")


# --- errors a reader found ------------------------------------------------------------------------------

def test_every_page_that_displays_markdown_renders_it_as_myst():
    """The explorer showed a raw {ref} role: its outputs were read as CommonMark, where roles are text."""
    displaying = [page for page in [*READING, *(ROOT / "book").glob("*.md")] if "kernelspec" in page.read_text()[:2000]
                  and any("Markdown(" in cell.source for cell in code_cells(page))]
    assert {page.name for page in READING if "Markdown(" in page.read_text()} <= {page.name for page in displaying}
    assert (ROOT / "book" / "intro.md") in displaying  # the bottom line is computed Markdown
    for page in displaying:
        assert front_matter(page).get("mystnb", {}).get("render_markdown_format") == "myst", page.name


@needs_build
def test_no_page_shows_a_raw_role():
    for page in BUILT.rglob("*.html"):
        if "_static" in page.parts or "_sources" in page.parts:
            continue
        assert not RAW_ROLE.search(text_of(page.read_text(encoding="utf-8"))), page


#: A MyST role as a reader would see it unresolved, alone or with its target (in a code span or not).
RAW_ROLE = re.compile(r"\{(ref|doc|numref|cite|cite:t|cite:p|eval|download|py:[a-z]+)\}")


def test_no_docstring_the_api_page_shows_writes_a_myst_role():
    """Issue 46: the API page showed ``{ref}`` and ``{eval}`` (in code spans, yet read as raw roles); autodoc
    does not resolve MyST roles, so a docstring never writes one."""
    import inspect
    import pkgutil

    import mope

    for module in pkgutil.walk_packages(mope.__path__, "mope."):
        source = importlib.import_module(module.name)
        members = [member for _, member in inspect.getmembers(source) if getattr(member, "__module__", None) == module.name]
        members += [m for c in members if inspect.isclass(c) for m in vars(c).values() if callable(m)]
        for member in (source, *members):
            assert not RAW_ROLE.search(inspect.getdoc(member) or ""), (module.name, getattr(member, "__name__", ""))


def test_the_0119_claim_cites_where_the_paper_states_it():
    """+0.119 is in §1 (contributions), §6.2 and §9 of the paper; its abstract has no number."""
    assert claims.get_claim("ega-mope-gain").section == "§1, §6.2, §9"
    assert not any("Abstract" in claim.section for claim in claims.CLAIMS)


def test_the_nope_claim_is_said_to_be_ours_and_why_it_is_tested():
    text = (ROOT / "notebooks" / "06_stress_tests.md").read_text()
    section = text[text.index("(stress-mope-vs-nope)="):text.index("(stress-extrapolation)=")]
    assert "This claim is ours, not the paper's" in section and "We test it because" in section
    assert claims.get_claim("mope-beats-nope").quote.startswith("(implicit")


def test_table_3_gives_the_95_percent_radius_chapter_1_derives():
    """Chapter 1: the lag envelope is a Gaussian of sd √2σ, so its 95 % radius is 1.96·√2·σ ≈ 2.77σ, not 2σ."""
    assert tables.RADIUS_95 == pytest.approx(2.772, abs=1e-3)
    assert "2.77σ" in tables.TABLE_3_HEADER[-1] and "2σ" not in tables.TABLE_3_HEADER[-1]
    (row,) = tables.quartile_rows(np.array([1.0]), np.array([2.0]), groups=1)
    assert row[-1] == "±5.5–5.5"
    shown = tables.table_3({"ours": (np.full(8, 2.5), np.full(8, 2.0)), "not run here": None})
    assert "±9.4–12.5" in shown  # the paper's first quartile, σ 3.40–4.50, at 2.77σ
    assert "The paper's last column is 2σ" in shown and "Not run: not run here." in shown
    assert "**not run here**" not in shown and "—" not in shown


def bibliography() -> dict[str, dict]:
    from pybtex.database import parse_file

    return parse_file(str(ROOT / "book" / "references.bib")).entries


def test_no_two_references_render_alike_and_the_zeris_letters_follow_the_paper():
    entries = bibliography()
    labels = [(entry.persons["author"][0].last_names[0], entry.fields["year"]) for entry in entries.values()]
    assert len(labels) == len(set(labels)), sorted(labels)
    years = {key: entry.fields["year"] for key, entry in entries.items() if key.startswith("zeris")}
    # the paper's reference list: [1] Zeris 2026a, arXiv 2605.21842; [2] Zeris 2026b, arXiv 2605.26355
    assert entries["zeris2026ega"].fields["eprint"] == "2605.21842" and years["zeris2026ega"] == "2026a"
    assert entries["zeris2026complementary"].fields["eprint"] == "2605.26355"
    assert years["zeris2026complementary"] == "2026b"
    assert {years["zeris2026mope"], years["zeris2026code"]} == {"2026c", "2026d"}


def test_every_reference_is_cited():
    sources = "\n".join(page.read_text() for page in [*(ROOT / "book").glob("*.md"), *CHAPTERS])
    cited = {key for group in re.findall(r"\{cite(?::[tp])?\}`([^`]+)`", sources) for key in group.split(",")}
    assert set(bibliography()) <= cited, set(bibliography()) - cited


def test_the_ngram_levels_are_said_to_be_counted_on_train_and_scored_on_validation():
    text = (ROOT / "notebooks" / "04_reproduction.md").read_text()
    assert "nats/char (validation \"" not in text
    assert "counted on the \"\n                 \"training split, scored on the validation split" in text


def test_figure_5_3_caption_names_its_preset():
    text = (ROOT / "notebooks" / "05_learned_parameters.md").read_text()
    caption = text[text.index(":name: fig-learned-boundary"):].split("```")[0]
    assert "preset named in the text" not in caption and "{eval}`BOUNDARY_NAME`" in caption


# --- clutter --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.name)
def test_no_chapter_opens_with_cells_that_show_nothing(chapter):
    """The Colab set-up and the parameters cell print nothing: left out of the page (they still run)."""
    setup, parameters = code_cells(chapter)[:2]
    assert "google.colab" in setup.source and "remove-cell" in setup.metadata["tags"]
    assert "parameters" in parameters.metadata["tags"] and "remove-cell" in parameters.metadata["tags"]


def empty_toggles(html: str) -> list[str]:
    """The cells of a built page before its first section that show nothing but a "Show code cell source"
    toggle: input hidden (hide-input), no output."""
    opening = html.split('<article class="bd-article"', 1)[-1].split("<h2", 1)[0]
    cells = opening.split('<div class="cell ')[1:]  # each cell up to the next (cell_input, cell_output inside)
    return [cell[:60] for cell in cells if "tag_hide-input" in cell.split(">", 1)[0] and "cell_output" not in cell]


@needs_build
def test_no_chapter_opens_with_an_empty_code_toggle():
    for page in [BUILT / "book" / "intro.html", *(BUILT / "notebooks").glob("0*.html")]:
        assert not empty_toggles(page.read_text(encoding="utf-8")), page.name


class Tables(HTMLParser):
    """Every <table> of a page as (its tab's label or None, header, rows of cell texts)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.tab, self.in_label, self.current, self.cell = [], None, False, None, None

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if tag == "label" and "sd-tab-label" in classes:
            self.in_label, self.tab = True, ""
        elif tag == "table":
            self.current = {"tab": self.tab, "rows": []}
        elif tag == "tr" and self.current is not None:
            self.current["rows"].append([])
        elif tag in ("td", "th") and self.current is not None:
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "label":
            self.in_label = False
        elif tag in ("td", "th") and self.cell is not None and self.current is not None:
            self.current["rows"][-1].append(" ".join(self.cell.split()))
            self.cell = None
        elif tag == "table" and self.current is not None:
            self.tables.append(self.current)
            self.current = None

    def handle_data(self, data):
        if self.in_label:
            self.tab += data.strip()
        if self.cell is not None:
            self.cell += data


def uninformative_columns(rows: list[list[str]]) -> list[str]:
    """The header of every column (beyond the first, which names the rows) whose body cells are all dashes,
    or all one word, in a table of at least two body rows."""
    header, body = rows[0], [row for row in rows[1:] if len(row) == len(rows[0])]
    if len(body) < 2:
        return []
    found = []
    for index, name in enumerate(header[1:], start=1):
        cells = {row[index] for row in body}
        if cells <= {"—", "-", ""} or (len(cells) == 1 and re.fullmatch(r"[A-Za-z ]+", next(iter(cells)))):
            found.append(f"{name!r}: {sorted(cells)}")
    return found


def test_the_finder_of_uninformative_columns():
    assert uninformative_columns([["model", "cpu", "paper"], ["A", "1.2", "—"], ["B", "1.3", "—"]]) == ["'paper': ['—']"]
    assert uninformative_columns([["model", "stage"], ["A", "below bigram"], ["B", "below bigram"]]) == [
        "'stage': ['below bigram']"]
    assert uninformative_columns([["model", "cpu"], ["A", "1.2"], ["B", "—"]]) == []


@needs_build
def test_no_built_table_has_a_column_of_dashes_or_of_one_word():
    found = []
    for page in [BUILT / "book" / "intro.html", *(BUILT / "notebooks").glob("0*.html"), *(BUILT / "book").glob("*.html")]:
        parser = Tables()
        parser.feed(page.read_text(encoding="utf-8"))
        for table in parser.tables:
            if table["rows"]:
                found += [f"{page.name} (tab {table['tab']}): {column}" for column in uninformative_columns(table["rows"])]
    assert not found, "\n".join(found)


@needs_build
def test_the_dash_note_is_said_once():
    pages = {*(BUILT / "notebooks").glob("0*.html"), *(BUILT / "book").glob("*.html")}  # the introduction among them, once
    count = sum(text_of(page.read_text(encoding="utf-8")).count("A dash") for page in pages)
    assert count <= 1, count


# --- the phone and the length -----------------------------------------------------------------------------

_spec = importlib.util.spec_from_file_location("phone_tables", ROOT / "book" / "_ext" / "phone_tables.py")
phone_tables = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(phone_tables)


def load_checker():
    spec = importlib.util.spec_from_file_location("check_book_html", ROOT / "scripts" / "check_book_html.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CLAIMS_PAGE = """<html><head><title>Claims</title><meta name="viewport" content="width=device-width">{styles}</head>
<body><main><article class="bd-article" style="max-width: 100%">
<div class="pst-scrollable-table-container" style="overflow-x: auto"><table>
<thead><tr><th>claim</th><th>paper</th><th>ours</th><th>verdict</th></tr></thead>
<tbody><tr><td style="min-width: 260px">PE-MORLET beats PE-SINCOS by 0.080, a claim of some length</td>
<td style="min-width: 60px">0.080</td><td style="min-width: 120px">+0.054 ± 0.020 (n = 3)</td>
<td>refuted: smaller</td></tr></tbody></table></div>
</article></main></body></html>"""


def failing_bare_passing_styled(page: str, problem: str, folder, capsys) -> None:
    """``page`` without the book's stylesheet and script fails the check with ``problem``; marked as the build marks
    its tables (book/_ext/phone_tables.py) and with them, it passes."""
    checker = load_checker()
    bare = folder / "bare"
    bare.mkdir()
    (bare / "index.html").write_text(page.format(styles=""))
    assert checker.main([str(bare)]) == 1
    assert problem in capsys.readouterr().out
    styled = folder / "styled"
    (styled / "_static").mkdir(parents=True)
    for name in ("book.css", "book.js"):
        shutil.copy(ROOT / "_static" / name, styled / "_static" / name)
    (styled / "index.html").write_text(phone_tables.mark_tables(page.format(
        styles='<link rel="stylesheet" href="_static/book.css"><script src="_static/book.js"></script>')))
    assert checker.main([str(styled)]) == 0, capsys.readouterr().out


@needs_chromium
def test_at_400_px_every_verdict_is_on_the_screen(tmp_path, capsys):
    """A claims table wider than a phone: without the book's stylesheet and script its verdicts lie
    behind a sideways scroll (the check fails); with them it is stacked and every verdict is on the screen."""
    failing_bare_passing_styled(CLAIMS_PAGE, "verdict off the screen at 400 px: 'refuted: smaller", tmp_path, capsys)


STANDINGS_PAGE = CLAIMS_PAGE.replace(
    "<th>claim</th><th>paper</th><th>ours</th><th>verdict</th>",
    "<th>claim</th><th>standing</th><th>paper</th><th>cpu-long</th><th>cpu</th><th>cpu-short</th>").replace(
    '<td style="min-width: 60px">0.080</td><td style="min-width: 120px">+0.054 ± 0.020 (n = 3)</td>\n'
    '<td>refuted: smaller</td>',
    '<td style="min-width: 120px">depends on the scale</td><td style="min-width: 90px">indicative</td>'
    '<td style="min-width: 90px">refuted</td><td style="min-width: 90px">confirmed</td>'
    '<td style="min-width: 90px">undecided far right</td>')


@needs_chromium
def test_at_400_px_every_cell_of_the_claims_across_presets_is_on_the_screen(tmp_path, capsys):
    """Issue 46: the claims across every preset (no "verdict" column: a column a preset) put a quarter of
    their cells beyond a phone's right edge; the book's stylesheet and script stack it like the others."""
    failing_bare_passing_styled(STANDINGS_PAGE, "verdict off the screen at 400 px: 'undecided far right", tmp_path,
                                capsys)


@needs_chromium
def test_the_column_keeps_its_width_when_the_page_grows_taller_than_the_window(tmp_path, capsys):
    """A browser draws a page's first lines before the rest has arrived, while the page is still shorter than the window:
    its scroll bar appeared once the page grew taller, the column lost its width and every line drawn rewrapped (chapter 1
    at 400 px: layout shift 0.166 in CI). The book's stylesheet reserves the bar's room from the first paint."""
    page = ('<html><head><title>Tall</title><meta name="viewport" content="width=device-width">{styles}</head>'
            '<body><main><article class="bd-article"><p>A page taller than its window.</p>'
            '<div style="height: 3000px"></div></article></main></body></html>')
    failing_bare_passing_styled(
        page, "the page narrows once it is taller than the window (its scroll bar appears) at 400 px: ", tmp_path, capsys)


@needs_chromium
def test_the_height_is_measured_after_the_page_has_settled(tmp_path, capsys):
    """A figure drawn by a script after the load event (as Bokeh draws) counts in the page's height."""
    checker = load_checker()
    site = tmp_path / "late"
    site.mkdir()
    (site / "index.html").write_text(
        '<html><head><title>Late</title><style>html { scrollbar-gutter: stable; }</style></head><body><main><article class="bd-article"><p>text</p>'
        '<div id="late"></div></article></main><script>window.addEventListener("load", () => setTimeout('
        '() => { document.getElementById("late").style.height = "5000px"; }, 1000));</script></body></html>')
    assert checker.main([str(site)]) == 0
    assert re.search(r"^height index\.html +5,\d{3} px$", capsys.readouterr().out, flags=re.M)


# --- the citation, the downloads, the times ---------------------------------------------------------------

def test_the_introduction_ends_with_the_citation_block():
    text = (ROOT / "book" / "intro.md").read_text()
    last = text[text.rindex("\n## "):]
    assert last.startswith("\n## Cite this book") and "citation.book_bibtex" in last and "citation.paper_bibtex" in last
    from mope.book import citation

    entry = citation.book_bibtex()
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert entry.startswith("@misc{") and config["repository"]["url"] in entry and config["title"] in entry
    paper = citation.paper_bibtex()
    assert "2606.01258" in paper and re.search(r"year\s*=\s*\{2026\}", paper)  # the paper's year, no letter


def test_the_downloads_hold_every_run_and_the_claims_of_each_preset(tmp_path, monkeypatch):
    runs = {"cpu": [run("BASE-DOT", 0, 1.6, by_context={"1x": 1.61, "2x": None, "4x": None}), run("EGA-1", 1, 1.5)],
            "paper": [run("PE-ROPE", 0, 1.46, preset="paper")]}
    table = list(csv.DictReader(io.StringIO(downloads.runs_csv(runs))))
    assert [(row["preset"], row["variant"], row["seed"]) for row in table] == [
        ("cpu", "BASE-DOT", "0"), ("cpu", "EGA-1", "1"), ("paper", "PE-ROPE", "0")]
    assert table[0]["final.val_loss"] == "1.6" and table[0]["final.val_loss_full_by_context.1x"] == "1.61"
    assert table[0]["final.val_loss_full_by_context.2x"] == "" and table[1]["final.val_loss_full_by_context.1x"] == ""
    assert table[0]["wall_time_s"] == "600.0" and table[0]["git_commit"] == "0123456789abcdef"
    monkeypatch.setattr(downloads, "claims_document", lambda preset: {"preset": preset, "claims": []})
    written = downloads.write_downloads(tmp_path, runs, ["cpu", "paper"])
    assert [path.name for path in written] == ["mope-runs.csv", "mope-claims-cpu.json", "mope-claims-paper.json"]
    assert json.loads(written[2].read_text())["preset"] == "paper"


def test_the_runs_csv_files_each_stored_run_under_its_preset_today_once():
    """Four cpu-short runs carry their preset's former name, cpu, in their files (FORMER_NAMES): the CSV
    labelled them cpu (103 cpu and 31 cpu-short rows, and keys such as (cpu, BASE-DOT, 1) twice)."""
    from mope.book.chapter_runs import RECORDED_PRESETS
    from mope.store import results

    runs = {preset: results.load_results(preset) for preset in RECORDED_PRESETS}
    table = list(csv.DictReader(io.StringIO(downloads.runs_csv(runs))))
    for preset, preset_runs in runs.items():
        assert sum(row["preset"] == preset for row in table) == len(preset_runs), preset
    keys = [(row["preset"], row["variant"], row["seed"]) for row in table]
    assert len(keys) == len(set(keys))
    former = [run for run in runs["cpu-short"] if run["preset"] == "cpu"]  # stored under the former name
    assert former and runs["cpu"]  # the case the test is about is in the store


def test_every_column_of_the_runs_csv_is_described_beside_the_download():
    from mope.book.chapter_runs import RECORDED_PRESETS
    from mope.store import results

    text = downloads.runs_csv({preset: results.load_results(preset) for preset in RECORDED_PRESETS})
    columns = downloads.csv_columns(text)
    dictionary = downloads.column_dictionary(columns)
    assert len(columns) >= 20 and all(f"| `{column}` | " in dictionary for column in columns)
    assert "nats per character" in downloads.column_meaning("final.val_loss_full_by_context.4x")
    assert "empty cell" in dictionary and "random batches" in downloads.column_meaning("final.val_loss")
    with pytest.raises(KeyError):
        downloads.column_meaning("provenance_of_nothing")  # a column the CSV's own code adds is described first
    page = (ROOT / "book" / "reproducibility.md").read_text()
    assert page.index("downloads.column_dictionary(") > page.index("downloads.write_downloads(")


def test_a_field_a_later_writer_adds_to_a_runs_final_section_is_described_and_the_page_still_builds(store, tmp_path):
    """Issue 57: the schema leaves `final` open, every key becomes a column, and a column no one described stopped
    the reproducibility page. The page's own steps (write the downloads, then the dictionary of their columns)
    now go through, the new column described by name."""
    from mope.store import results
    from mope.store.presets import get_preset

    smoke = get_preset("smoke")
    stored = run("NOPE", 0, 2.0, preset=smoke)
    stored["final"]["val_loss_full_ema"] = 1.5
    path = results.result_path(smoke, "NOPE", 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(stored))
    runs = {"smoke": results.load_results("smoke")}
    assert runs["smoke"], "the run with a new field in `final` is valid and current"
    written = downloads.write_downloads(tmp_path, runs, [])
    columns = downloads.csv_columns(written[0].read_text())
    dictionary = downloads.column_dictionary(columns)
    assert "final.val_loss_full_ema" in columns
    assert "| `final.val_loss_full_ema` | `val_loss_full_ema` as a run stored it at its last step" in dictionary


def test_a_formula_behind_spaces_or_in_full_width_stays_text():
    """Issue 57: a leading space or a full-width ＝ before a formula passed the CSV's guard."""
    for value in (" =1+1", "\u3000=SUM(A1)", "＝HYPERLINK(\"x\")", "＋1", "－1", "＠A1"):
        assert downloads.csv_text(value).startswith("'"), value
    assert downloads.csv_text("cpu: AMD EPYC") == "cpu: AMD EPYC"


INJECTED = ['=HYPERLINK("http://x","y")', "<img src=x onerror=alert(1)>", "first line\nsecond line", "-2+3",
            "@SUM(A1)", "\tcell", "cpu\rAMD"]


def test_no_stored_string_becomes_a_formula_a_second_row_or_markup(store):
    """A stored device or folder name that reads as a formula, a tag or two lines stays text in the runs
    CSV, the explorer and the list of files not shown."""
    from mope.book import bokeh_page, explorer, run_records
    from mope.store import results
    from mope.store.presets import get_preset

    smoke = get_preset("smoke")
    for seed, device in enumerate(INJECTED):
        stored = run("NOPE", seed, 2.0, preset=smoke)
        stored["provenance"]["device"] = device
        path = results.result_path(smoke, "NOPE", seed)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(stored))
    for folder in ('=HYPERLINK("x","y")', *INJECTED[1:3]):  # a folder's name holds no "/"
        path = store[0] / "smoke" / folder / "seed0.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(run("NOPE", 0, 2.0, preset=smoke)))

    found = results.scan("smoke")
    assert sorted(run_["provenance"]["device"] for run_ in found.current) == sorted(
        device for device in INJECTED if device.isprintable())  # the three with a control character: invalid
    for table in (downloads.runs_csv({"smoke": found.current}),
                  downloads.runs_csv({"smoke": [run("NOPE", seed, 2.0, preset=smoke) | {"provenance": {"device": device}}
                                                for seed, device in enumerate(INJECTED)]})):  # not through the store
        rows = list(csv.reader(io.StringIO(table)))
        assert len(rows) == 1 + len(found.current) or len(rows) == 1 + len(INJECTED)
        assert {len(row) for row in rows} == {len(rows[0])}
        cells = [cell for row in rows[1:] for cell in row]
        assert not [cell for cell in cells if cell[:1] in ("=", "+", "-", "@", "\t", "\r")]
        assert not [cell for cell in cells if "\n" in cell or "\r" in cell]
        assert '\'=HYPERLINK("http://x","y")' in cells and "'-2+3" in cells
    not_shown = run_records.not_shown_table(["smoke"])
    assert len([row for row in not_shown.splitlines() if row.startswith("| `smoke` |")]) == 3 + 3
    assert not re.search(r"(?<!\\)<img", not_shown) and "\\<img src=x onerror=alert(1)\\>" in not_shown  # Markdown text
    runs = {"smoke": found.current}
    for html in (bokeh_page.embed(explorer.explorer(explorer.all_points(runs))),
                 bokeh_page.embed(explorer.loss_curves(runs, "smoke"))):
        assert "<img" not in html and "HYPERLINK" not in html


@needs_build
def test_the_reproducibility_page_links_the_downloads_built_with_the_book():
    html = built("book/reproducibility.html")
    links = re.findall(r'href="(\.\./_downloads/[^"]+)"', html)
    names = sorted(link.rsplit("/", 1)[-1] for link in links)
    from mope.book.chapter_runs import BOOK_PRESETS

    assert set(BOOK_PRESETS) == {"cpu", "cpu-long", "cpu-long-4x", "cpu-short", "paper", "cpu-bpe"}
    assert names == sorted(["mope-runs.csv", *(downloads.claims_file(p) for p in BOOK_PRESETS)])
    for link in links:
        assert (BUILT / "book" / link).resolve().is_file(), link
    rows = list(csv.DictReader((BUILT / "book" / next(l for l in links if l.endswith(".csv"))).resolve().open()))
    from mope.store import results

    assert len(rows) >= sum(len(results.load_results(p)) for p in BOOK_PRESETS)


def test_times_are_read_from_measurements():
    assert [run_times.duration(s) for s in (45, 600, 9000)] == ["45 s", "10 min", "2.5 h"]
    assert run_times.chapter_name("notebooks/04_reproduction", "How close?") == "Chapter 4: How close?"
    assert run_times.chapter_name("notebooks/own_model", "MoPE in your model") == "MoPE in your model"  # no "Chapter ow"
    six = ("BASE-DOT", "PE-SINCOS", "PE-ROPE", "PE-MORLET", "EGA-1", "EGA-MORLET")
    paper_runs = [run(v, 0, 1.4, preset="paper") for v in six]
    for k, r in enumerate(paper_runs):
        r["provenance"]["wall_time_s"] = 240.0 + 10 * k  # all started together (the fixtures' times overlap)
    rows = run_times.time_table([("Chapter 1: Maths", 30.0), ("Chapter 2: not run", None)], {"paper": paper_runs}, 2)
    assert rows[0][:2] == ["Chapter 1: Maths", "30 s"] and "2 CPU cores" in rows[0][2]
    assert not any(row[0].startswith("Chapter 2") for row in rows)
    assert rows[1][:2] == ["`paper`: one model", "4 min (median; 4 min–5 min)"]  # 265 s; 240–290 s
    (seed,) = [row for row in rows if "one seed" in row[0]]
    assert seed[1] == "5 min" and "side by side" in seed[2]  # the longest of six that ran together
    assert run_times.seed_row("paper", paper_runs[:5]) == []  # a seed without all six is not timed
    (everything,) = [row for row in rows if "all 6 stored runs" in row[0]]
    assert everything[1] == "10 min (26 min of runs)"  # the six ran 06:00–06:10 together; 1,590 s in all
    later = run("NOPE", 0, 1.5, preset="paper")
    later["provenance"].update(started="2026-11-30T07:00:00+00:00", finished="2026-11-30T07:05:00+00:00")
    assert run_times.busy_seconds([*paper_runs, later]) == 900  # 10 min, an idle hour, 5 min
    # a run of the same preset on a CPU (hours, where the GPU's took minutes) is timed apart, its kind named
    for r in paper_runs:
        r["provenance"]["device"] = "cuda: NVIDIA H200"
    cpu_run = run("EGA-MORLET-CAUSAL", 0, 1.5, preset="paper")
    cpu_run["provenance"].update(device="cpu: AMD EPYC, 2 threads", wall_time_s=72842.0)
    mixed = run_times.preset_rows("paper", [*paper_runs, cpu_run])
    assert [row[:2] for row in mixed] == [["`paper` on a CPU: one model", "20.2 h"],
                                          ["`paper` on a GPU: one model", "4 min (median; 4 min–5 min)"],
                                          ["`paper` on a GPU: all 6 stored runs", "10 min (26 min of runs)"]]
    assert mixed[0][2] == "the wall time of its one stored run (cpu: AMD EPYC, 2 threads)"


def test_the_how_to_run_page_shows_the_measured_times():
    text = (ROOT / "book" / "how_to_run.md").read_text()
    assert "```{run-times}" in text and "quarter of an hour" not in text and "4–6 minutes" not in text
    assert "run_times: book/_ext" in (ROOT / "_config.yml").read_text()


@needs_build
def test_the_built_how_to_run_page_has_a_time_for_every_chapter():
    page = text_of(built("book/how_to_run.html"))
    for number in range(1, 7):
        assert re.search(rf"Chapter {number}: .{{3,80}}? \d+ (s|min)", page), number
    assert re.search(r"paper ?: one seed of Table 2's six models \d+ (s|min)", page)


def label_boxes(fig):
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    return [[text.get_window_extent(renderer) for text in ax.texts if text.get_text().startswith("b=")] for ax in fig.axes]


@pytest.mark.parametrize("pairs", ["initial", "paper"])
def test_figure_1s_position_labels_do_not_collide(pairs):
    """Figure 2.6 (Figure 1 redrawn at initialisation, at the chapter's size): "b=0" and "b=2" overlapped."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mope.book.plots import plot_spirals
    from mope.evidence import paper
    from mope.model.positional.morlet import initial_morlet_parameters

    omega, sigma = (t.numpy() for t in initial_morlet_parameters(128))
    chosen = ([(f"pair {i}", float(omega[i]), float(sigma[i])) for i in (0, 64, 127)] if pairs == "initial"
              else [(f"pair {i}", w, s) for i, (w, s) in paper.REPORTED_PAIRS.items()])
    fig, axes = plt.subplots(1, 3, figsize=(4.9, 2.3), constrained_layout=True)
    plot_spirals(chosen, axes=axes)
    for boxes in label_boxes(fig):
        assert len(boxes) == 2  # b=0 and b=1: where the spiral starts and which way it turns
        assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
        assert all(fig.bbox.x0 <= box.x0 and box.x1 <= fig.bbox.x1 for box in boxes)  # none cut at the edge
    plt.close(fig)


def test_a_table_leaves_out_the_columns_that_say_nothing_and_names_them():
    text = tables.markdown_table(["model", "preset", "cpu", "paper"],
                                 [["A", "`cpu`", "1.2", "—"], ["B", "`cpu`", "1.3", "—"]])
    assert text.splitlines()[0] == "| model | cpu |"
    assert "Left out, as nothing is there (not run, or not reported by the paper): paper." in text
    assert "In every row: preset: `cpu`." in text
    one_row = tables.markdown_table(["model", "cpu"], [["A", "1.2"]])
    assert one_row.splitlines()[0] == "| model | cpu |" and "In every row" not in one_row
    assert markdown_tables.says_nothing("| model | paper |\n|---|---|\n| A | — |\n| B | not run |\n")
    assert not markdown_tables.says_nothing("| model | paper |\n|---|---|\n| A | 1.2 |\n") and not markdown_tables.says_nothing("text")


@pytest.mark.usefixtures("families_of_the_runs")
def test_a_section_states_each_verdict_in_one_line_and_only_where_judged():
    from mope.book import chapter_runs

    found = {"cpu": claims.judge_all("cpu", causal_runs()), "paper": claims.judge_all("paper", [])}
    text, statistics = chapter_runs.section_verdicts(found, ["stress-causal-gate"]).split("\n\n:::{dropdown}")
    (line,) = [line for line in text.splitlines() if line.startswith("* ")]
    assert line.startswith("* EGA's gain is salience") and "**fails**" in line and "whole-validation gain" in line
    # the share reads the whole split where the page's other numbers are Val: said beside it (chapter 4 quoted one gap
    # twice, -0.105 in Val and -0.104 unnamed)
    assert re.search(r"; ours -?\d+% ± \d+% \(n=\d\) on the whole validation split", line), line
    assert statistics.count("\n* EGA's gain is salience") == 1 and "(`cpu`): refuted: below 50%; p = " in statistics
    assert text.startswith("On `cpu` (none of these runs is stored in `paper`):\n")  # one preset: no tabs
    assert "tab-item" not in text and "|" not in text  # no table restating the introduction's row
    assert chapter_runs.section_verdicts({"paper": found["paper"]}, ["stress-causal-gate"]) == (
        "None of these claims has runs yet.")
    fewer = claims.judge_all("cpu-short", [r for r in causal_runs() if r["seed"] != 2])
    both = chapter_runs.section_verdicts({"cpu": found["cpu"], "cpu-short": fewer, "paper": found["paper"]},
                                         ["stress-causal-gate"])
    assert both.count(":::{tab-item}") == 2
    assert both.split("\n\n:::{dropdown}")[0].endswith(chapter_runs.empty_presets_line(["paper"]))
    # a claim that compares two presets is judged alike on both: its line is said once, under both names
    alike = chapter_runs.section_verdicts({"cpu": found["cpu"], "cpu-long": found["cpu"], "paper": found["paper"]},
                                          ["stress-causal-gate"])
    assert alike.startswith("On `cpu` and `cpu-long` (none of these runs is stored in `paper`):\n")
    alike, statistics = alike.split("\n\n:::{dropdown}")
    assert alike.count("* EGA's gain is salience") == 1 and "tab-item" not in alike
    assert "salience: it survives a gate that cannot see the future (`cpu` and `cpu-long`): refuted" in statistics


def test_a_preset_with_nothing_run_gets_no_tab():
    from mope.book import chapter_runs

    def render(runs):
        ((preset, preset_runs),) = runs.items()
        return tables.markdown_table(["model", preset], [["A", "1.2" if preset_runs else "—"], ["B", "—"]])

    text = chapter_runs.preset_tabs(render, {"cpu": [1], "paper": []})
    assert "| A | 1.2 |" in text and "tab-item" not in text  # one table left: no tabs
    assert text.endswith("No tab for `paper`: none of these runs is stored there.")
    text = chapter_runs.preset_tabs(render, {"cpu": [1], "cpu-long": [1], "paper": []})
    assert ":::{tab-item} `cpu-long`" in text and "`paper`" not in text.split("::::")[1]
    assert text.endswith("No tab for `paper`: none of these runs is stored there.")


def causal_runs():
    """Three seeds whose causal gate keeps a different share of the published gain in each."""
    out = []
    for seed, (published, causal) in enumerate([(0.127, 0.0087), (0.107, -0.0138), (0.127, -0.0023)]):
        out += [run("BASE-DOT", seed, 1.6, full=1.6), run("EGA-1", seed, 1.5, full=1.6 - published),
                run("EGA-1-CAUSAL", seed, 1.6, full=1.6 - causal)]
    return out + [run("EGA-1", 3, 1.5, full=1.48), run("BASE-DOT", 3, 1.6, full=1.6)]  # a seed with no causal run


def test_the_share_that_survives_is_the_quotient_of_the_gains_shown_beside_it():
    """"−3%" stood beside a published gain of +0.118 and a causal one of −0.002, whose quotient is −2%."""
    verdict = claims.verdict_of(claims.judge_all("cpu", causal_runs()), "gain-survives-causal-gate")
    numbers = [float(x) for x in re.findall(r"[+-]\d\.\d{3}", verdict.caveat)]
    assert "whole-validation gain on the 3 seeds of both" in verdict.caveat and len(numbers) == 2
    shown = np.mean([0.127, 0.107, 0.127]), np.mean([0.0087, -0.0138, -0.0023])
    assert numbers == [pytest.approx(shown[0], abs=5e-4), pytest.approx(shown[1], abs=5e-4)]
    assert verdict.estimate.mean == pytest.approx(shown[1] / shown[0])
    assert f"{verdict.estimate.mean:.0%}" == f"{numbers[1] / numbers[0]:.0%}"


def test_each_gain_of_ega_1_is_named_by_its_loss():
    from mope.evidence import findings

    found = {"cpu": claims.judge_all("cpu", causal_runs())}
    assert "(`cpu`), EGA-1 improves on BASE-DOT by +0.100 in Val (4 seeds)" in findings.causal_gate(found)
    assert claims.verdict_of(found["cpu"], "gain-survives-causal-gate").caveat.startswith("whole-validation gain")
    assert "whole-validation gain over" in tables.causal_gate_table({"cpu": causal_runs()}).splitlines()[0]


def test_the_sentences_a_reader_stumbled_on():
    import inspect

    from mope.evidence import findings

    source = re.sub(r'"\s*\n\s*f?"', "", inspect.getsource(findings.learned_parameters_sentence))  # joined f-strings
    assert "says training pushes every pair onto that bound" in source  # it had no verb
    encodings = (ROOT / "notebooks" / "02_encodings.md").read_text()
    assert "This is not the share of\n  pairs on the bound that the introduction gives: that one is another model's" in encodings


def test_a_fresh_reading_of_the_introduction_parses_and_names_the_causal_gate_on_mope():
    """Issue 46, items 3 and 5, on the stored runs as the introduction reads them: none of the sentences a reader
    could not parse, each term defined before the findings use it, and the causal gate's share of EGA-MORLET's
    gain over PE-MORLET on `cpu-long` said with its seeds."""
    from mope.book import chapter_runs
    from mope.evidence import findings
    from mope.store import results

    runs = {preset: results.load_results(preset) for preset in chapter_runs.presets_shown("cpu")}
    found = {preset: claims.judge_all(preset, preset_runs) for preset, preset_runs in runs.items()}
    text = findings.WORDS + "\n" + findings.findings_markdown(found, runs)
    for stumbled in ("that the quarter context decides too", "Trained 501 steps instead", "the two also differ in that",
                     "random-batch Val", "σ's way to the data"):
        assert stumbled not in text, stumbled
    for sentence in re.split(r"(?<=[.:;])\s", text):  # one seed count for a sentence, or one per number
        if re.search(r"\d+ seeds \(`cpu`\)", sentence):
            assert not re.search(r"\(\d+ seeds[;)]", sentence), sentence
    for term in ("indicative", "moot", "Val"):  # defined (in italics) before the first finding uses the word
        assert text.index(f"*{term}*") <= text.index(term) + 1 and f"*{term}*" in findings.WORDS, term
    assert text.index("(whole-window statistics)") < text.index("whole-window statistics") + 1
    assert measures.causal_share(runs["cpu-long"], "EGA-MORLET", "EGA-MORLET-CAUSAL", "PE-MORLET").n  # stored
    said = findings.mope_gate_share(runs)
    assert said in text and "of EGA-MORLET's gain over PE-MORLET" in said and " seeds" in said


# --- stale text (issue 46, item 4) ---------------------------------------------------------------------

ISSUE = re.compile(r"\b[Ii]ssues? #?\d+")


def test_no_page_source_or_docstring_refers_to_an_issue():
    """A reader of the book has no issue tracker: no page, and no docstring the API page shows, says "issue N"."""
    import inspect
    import pkgutil

    import mope

    for page in [*READING, *(ROOT / "book").glob("*.md")]:
        assert not ISSUE.search(page.read_text()), page.name
    for module in pkgutil.walk_packages(mope.__path__, "mope."):
        source = importlib.import_module(module.name)
        docs = [inspect.getdoc(source) or ""] + [inspect.getdoc(member) or "" for _, member in inspect.getmembers(source)
                                                 if getattr(member, "__module__", None) == module.name]
        assert not any(ISSUE.search(doc) for doc in docs), module.name


@needs_build
def test_no_built_page_refers_to_an_issue():
    for page in BUILT.rglob("*.html"):
        if "_static" in page.parts or "_sources" in page.parts:
            continue
        assert not ISSUE.search(text_of(page.read_text(encoding="utf-8"))), page


def test_the_how_to_run_table_names_every_preset_and_the_budget_page_counts_the_chapters_presets():
    from mope.book import chapter_runs
    from mope.store.presets import PRESETS

    how_to_run = (ROOT / "book" / "how_to_run.md").read_text()
    for preset in PRESETS:
        assert re.search(rf"^\| `{re.escape(preset)}`( \(default\))? \|", how_to_run, flags=re.M), preset
    assert "the The" not in how_to_run and "is the {doc}`api` page" not in how_to_run  # api's title is "The package"
    budget = (ROOT / "book" / "training_budget.md").read_text()
    shown = ("cpu", *chapter_runs.CHAPTER_PRESETS)
    assert "The chapters show four presets" in budget and len(set(shown)) == 4
    for preset in PRESETS:
        if preset != "smoke":
            assert f"`{preset}`" in budget, preset


def test_the_learned_table_gpt_is_nanogpt_and_char_rnn_is_the_data_set():
    intro = (ROOT / "book" / "intro.md").read_text()
    assert "learned-table\nGPT {cite}`karpathy2022nanogpt`" in intro and "karpathy2015charrnn" not in intro
    bib = (ROOT / "book" / "references.bib").read_text()
    assert "@misc{karpathy2022nanogpt" in bib and "nanoGPT" in bib


def test_the_models_speak_in_the_books_symbols():
    """ASCII "omega*sigma", "log omega", "35x" beside ωσ, log ω, 35× elsewhere; "NoPE" beside the model NOPE."""
    import mope

    ascii_maths = re.compile(r"omega\s*\*\s*sigma|log (omega|sigma)|\b\d+x\b|>=")
    for name, variant in mope.VARIANTS.items():
        assert not ascii_maths.search(variant.description), (name, variant.description)
    for page in [*READING, *(ROOT / "book").glob("*.md")]:
        assert "NoPE" not in page.read_text(), page.name


def test_the_environment_table_has_no_row_for_an_index_name():
    page = (ROOT / "book" / "reproducibility.md").read_text()
    section = page[page.index("## The environment that built this page"):]
    assert "set_index(" not in section.split("```\n", 2)[1] and "markdown_table([" in section


FIGURE_PAGE = """<html><head><title>Figure</title><meta name="viewport" content="width=device-width">
<style>figure {{ margin: 1em 0; }}</style>{styles}</head><body><main><article class="bd-article"><p>text</p><figure id="figure"><img src="_images/figure.png" alt="a figure" {size}>
<figcaption>A figure</figcaption></figure></article></main></body></html>"""


@needs_chromium
def test_at_400_px_no_figure_is_wider_than_its_column_its_text_below_9_pt_or_drawn_at_one_pixel_a_css_pixel(
        tmp_path, capsys):
    """Issue 53: every figure was about 660 px wide in a box that scrolled sideways at 400 px (Fig. 6.1 lost what
    follows the changed token). A figure as wide as the book's were fails the browser check: without the book's
    stylesheet it is wider than its column, with it it is shrunk, its 9 pt text to about 5 pt. Issue 73: one drawn
    at 1 pixel a CSS pixel (soft on a phone's screen) fails, and so does one whose PNG does not record its text. One
    drawn at the book's width (mope.book.figure_style.COLUMN_WIDTH) by mope.book.figure_png, at twice its pixels and
    sized by its page as web_pages sizes it, fits the column of a phone."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mope.book import figure_png, figure_style

    checker = load_checker()
    styles = '<link rel="stylesheet" href="_static/book.css">'
    for name, width, linked, book_png, expected in (
            ("wide", 6.6, "", True, "figure wider than its column at 400 px: figure.png ("),
            ("shrunk", 6.6, styles, True, "pt at 400 px, below 9 pt: figure.png"),
            ("one pixel", figure_style.COLUMN_WIDTH, styles, False, "figure not drawn at 2x at 1280 px: figure.png"),
            ("unrecorded", figure_style.COLUMN_WIDTH, styles, False, "a figure that does not record its text"),
            ("book", figure_style.COLUMN_WIDTH, styles, True, None)):
        site = tmp_path / name.replace(" ", "-")
        (site / "_static").mkdir(parents=True)
        (site / "_images").mkdir()
        shutil.copy(ROOT / "_static" / "book.css", site / "_static" / "book.css")
        with figure_style.book_style():
            fig, ax = plt.subplots(figsize=(width, 2.0), constrained_layout=True)
            ax.set_xlabel("9 pt")
        if book_png:
            data, shown = figure_png.png(fig)
        else:
            buffer = io.BytesIO()
            fig.savefig(buffer, format="png", dpi=figure_style.DPI, bbox_inches="tight")
            data, shown = buffer.getvalue(), None
        plt.close(fig)
        (site / "_images" / "figure.png").write_bytes(data)
        size = f'width="{shown["width"]}" height="{shown["height"]}"' if shown else ""
        (site / "index.html").write_text(FIGURE_PAGE.format(styles=linked, size=size))
        status, out = checker.main([str(site)]), capsys.readouterr().out
        if expected:
            assert status == 1 and expected in out, (name, out)
        else:
            assert status == 0, out


@needs_build
def test_every_figure_of_the_introduction_and_the_chapters_reads_at_9_pt_on_a_phone_and_has_twice_its_pixels():
    """Issue 53: each figure is drawn for a phone's column. Its text is set at 9 pt or more (the book's style),
    so it reads at 9 pt wherever the image, shrunk to the 353 px column, keeps at least 96/100 of its size:
    no image of a reading page is shown wider than that; the browser check measures the column itself. Issue 73:
    each has twice the pixels of the width its <img> gives it."""
    import struct

    from mope.book import figure_style

    widest = figure_style.PHONE_COLUMN_PX * figure_style.DPI / 96 * 9 / figure_style.SMALLEST_FONT_PT  # 367 px
    seen = 0
    for page in [BUILT / "book" / "intro.html", *sorted((BUILT / "notebooks").glob("*.html"))]:
        for tag in re.findall(r'<img[^>]+src="[^"]*_images/[^"]+\.png"[^>]*>', page.read_text(encoding="utf-8")):
            source, shown = re.search(r'src="([^"]+)"', tag)[1], int(re.search(r'width="(\d+)"', tag)[1])
            pixels = struct.unpack(">I", (page.parent / source).read_bytes()[16:20])[0]
            # the pixel an odd width loses in halving: the browser check's tolerance too
            assert shown <= widest and pixels >= figure_style.PIXEL_DENSITY * shown - 1, (page.name, source, shown, pixels)
            seen += 1
    assert seen >= 20


# --- search (issue 46, item 6) -------------------------------------------------------------------------

def load_book_search():
    spec = importlib.util.spec_from_file_location("book_search", ROOT / "book" / "_ext" / "book_search.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_search_indexes_a_decimal_number_whole_and_the_book_uses_that_search():
    """Sphinx split 0.119 into 0 and 119, and its query skips terms of digits alone: no number was found."""
    search = load_book_search()
    words = search.BookSearch({}).split("EGA-MORLET improves on BASE-DOT by +0.119 (n=8); mope.evidence, 3,001 steps")
    assert "0.119" in words and "0" not in words and "119" not in words
    assert {"mope", "evidence", "3", "001", "EGA", "MORLET"} <= set(words)
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["sphinx"]["local_extensions"]["book_search"] == "book/_ext"


@needs_chromium
def test_the_search_query_keeps_the_number_and_the_api_page_ranks_below_the_chapters():
    from selenium import webdriver

    search = load_book_search()
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu"):
        options.add_argument(argument)
    browser = webdriver.Chrome(options=options)
    try:
        browser.get("about:blank")
        terms = browser.execute_script(search.SPLIT_QUERY + "return splitQuery('gain +0.119 of mope.evidence, Holm');")
        scores = browser.execute_script(search.SCORER.read_text() + """
            return [Scorer.score(["book/api", "API", "", "", 41, "api.html"]),
                    Scorer.score(["notebooks/04_reproduction", "Reproduction", "", "", 5, "x.html"]),
                    Scorer.title, Scorer.term, Scorer.objPrio[0]];""")
    finally:
        browser.quit()
    assert terms == ["gain", "0.119", "of", "mope", "evidence", "Holm"]
    assert scores[0] < scores[1] == 5 and scores[2:] == [15, 5, 15]  # Sphinx's defaults kept


@needs_build
@needs_chromium
def test_a_page_shows_one_search_control_wide_and_narrow():
    """Issue 46: two search boxes on every page (the sidebar's field and the header's magnifier)."""
    from selenium import webdriver

    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--force-device-scale-factor=1"):
        options.add_argument(argument)
    browser = webdriver.Chrome(options=options)
    visible = {}
    try:
        for width in (1280, 400):
            browser.set_window_size(width, 900)
            browser.get((BUILT / "book" / "intro.html").as_uri())
            visible[width] = browser.execute_script(
                "return Array.from(document.querySelectorAll('.search-button-field, button.search-button'))"
                ".filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && "
                "r.right > 0 && r.left < window.innerWidth && getComputedStyle(e).visibility !== 'hidden'; }).length;")
    finally:
        browser.quit()
    assert visible == {1280: 1, 400: 1}


@needs_build
def test_every_adjusted_p_a_page_shows_is_the_claims_documents():
    """Issue 54: a page shows the claims document's verdicts, never those of the runs it happens to load: every
    "p = …, … after Holm's correction over N tests" on a built page is one of the document's records, on some preset
    the book shows, with that adjusted p and that family size."""
    from mope.store.presets import STANDING_PRESETS

    records = {(f"{r['p_adjusted']:.3g}", r["family_size"]) for preset in STANDING_PRESETS
               for r in claims.claim_records(preset) if r["p_adjusted"] is not None}
    shown = 0
    for page in [BUILT / "book" / "intro.html", *(BUILT / "notebooks").glob("0*.html"), *(BUILT / "book").glob("*.html")]:
        for adjusted, size in re.findall(r"([0-9.e−-]+) after Holm['’]s correction over (\d+) tests", text_of(page.read_text())):
            shown += 1
            assert (adjusted.replace("−", "-"), int(size)) in records, (page.name, adjusted, size)
    assert shown


@needs_build
def test_the_introduction_opens_with_the_bottom_line_above_its_first_figure():
    """Issue 53: the first screen has a sentence. The bottom line's five questions stand, in order, before the first
    figure of the built introduction, and its text is the one bottom_line computes from the claims document."""
    from mope.evidence import bottom_line
    from mope.store import results
    from mope.store.presets import STANDING_PRESETS

    html = built("book/intro.html")
    first_figure = html.index('src="../_images/')  # the page's first figure (the Colab logo of the header comes before)
    headline = ("Does the paper&#8217;s headline hold" if "&#8217;" in html else
                "Does the paper’s headline hold" if "paper’s headline" in html else "Does the paper's headline hold")
    asked = ["Does MoPE beat the usual position encodings?", "Does the energy gate help?", headline,
             "What would settle it?", "What to use instead?"]
    documents = {p: claims.claim_records(p) for p in STANDING_PRESETS}
    if bottom_line.what_would_settle_it(bottom_line.records_by_preset(documents),
                                        {p: results.load_results(p) for p in STANDING_PRESETS}) is None:
        asked.remove("What would settle it?")
    questions = [html.find(q) for q in asked]
    assert -1 not in questions and questions == sorted(questions) and questions[-1] < first_figure
    sentences = bottom_line.bottom_line({p: claims.claim_records(p) for p in STANDING_PRESETS},
                                        {p: results.load_results(p) for p in STANDING_PRESETS})
    page = "".join(text_of(html).replace("’", "'").split())  # the page's words, spaces aside (tags split them)
    for sentence in sentences:
        plain = re.sub(r"\{ref\}`[^`]+`", "", sentence).replace("**", "").replace("`", "")
        assert "".join(plain.split(" (")[0].split()) in page


@needs_build
@pytest.mark.parametrize("chapter", [f"notebooks/{p.stem}" for p in sorted((ROOT / "notebooks").glob("0[0-9]_*.md"))
                                     if "explorer" not in p.stem]  # the explorer opens with the instrument itself
                         + ["book/training_budget", "book/reproducibility"])
def test_every_chapter_opens_with_what_it_found_before_anything_else(chapter):
    """A page opens with what it found: the first paragraph of every chapter (and of the training budget's and the
    reproducibility page), above its first section, figure and dropdown, starts with a bold answer and links to
    where the page shows it."""
    html = built(f"{chapter}.html")
    article = html[html.index('class="bd-article"'):]
    first = re.search(r"<p>(.*?)</p>", article, flags=re.S)
    assert first is not None, chapter
    stops = [article.find(marker) for marker in ("<h2", "<details", "<figure", "<img", "<table")]
    stops = [stop for stop in stops if stop != -1]
    assert first.start() < min(stops), chapter  # nothing but the answer before it
    assert first.group(1).lstrip().startswith("<strong>"), chapter
    assert 'class="reference internal"' in first.group(0), chapter  # its evidence, one click away


@needs_build
def test_no_image_is_described_by_its_path_and_every_page_has_a_description():
    """Issue 55: all 26 result figures had their own file path as alt text, and no page a meta description."""
    spec = importlib.util.spec_from_file_location("page_meta", ROOT / "book" / "_ext" / "page_meta.py")
    page_meta = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(page_meta)
    pages = [page for page in BUILT.rglob("*.html") if "_static" not in page.parts and "_sources" not in page.parts
             and page.name not in ("search.html", "genindex.html") and page.relative_to(BUILT).parts != ("index.html",)]  # a redirect
    images = 0
    for page in pages:
        html = page.read_text(encoding="utf-8")
        for tag in re.findall(r"<img\b[^>]*>", html):
            alt, src = re.search(r'alt="([^"]*)"', tag), re.search(r'src="([^"]*)"', tag)
            assert alt and not page_meta.is_path(alt.group(1), src.group(1) if src else ""), (page.name, tag[:160])
            images += 1
        assert re.search(r'<meta name="description" content="[^"]{40,}"', html), page.name
    assert images >= 26


@needs_build
def test_no_page_shows_markdown_its_code_did_not_render():
    """A sentence computed in code and put on the page as plain text (an {eval} role) showed its Markdown as written:
    "At `paper` (3 seeds), EGA-MORLET starts behind..." in chapter 4. Outside code and preformatted blocks, no page's
    text has a backtick or a word opened by a pair of asterisks (an API signature's "** kwargs" or "2**32" is none)."""
    pages = [page for page in BUILT.rglob("*.html") if "_static" not in page.parts and "_sources" not in page.parts]
    assert len(pages) > 10
    for page in pages:
        html = re.sub(r"<(pre|code|kbd)\b.*?</\1>", " ", page.read_text(encoding="utf-8"), flags=re.S)
        text = text_of(html)
        raw = r"`|(?:^|\s)\*\*[A-Za-z]"
        assert not re.search(raw, text), (page.name, re.findall(f".{{0,60}}(?:{raw}).{{0,60}}", text)[:3])


@needs_build
def test_no_page_writes_an_inline_script_twice():
    """Issue 55: sphinx-thebe's configuration was written twice on every page (`const THEBE_JS_URL` declared twice:
    a JavaScript error), as was the toggle buttons' selector."""
    for page in [BUILT / "book" / "intro.html", *(BUILT / "notebooks").glob("0*.html")]:
        inline = re.findall(r"<script>(.*?)</script>", page.read_text(encoding="utf-8"), flags=re.S)
        assert len(inline) == len(set(inline)), page.name


@needs_build
def test_every_page_names_its_favicon():
    """Issue 55: no favicon (a failed request on every page, Lighthouse's best practices)."""
    assert (BUILT / "_static" / "favicon.svg").is_file()
    for page in [BUILT / "book" / "intro.html", *(BUILT / "notebooks").glob("0*.html")]:
        assert re.search(r'<link rel="icon" href="[^"]*favicon\.svg"', page.read_text(encoding="utf-8")), page.name
