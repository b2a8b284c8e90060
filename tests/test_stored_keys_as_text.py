"""A stored key reaches the book as text, never as markup (issue 75): a key added to a run's ``final`` became a column
of the runs CSV whose dictionary wrote it in a code span unescaped, so a backtick ended the span and a live
``<img onerror>`` or ``<script>`` followed, and a ``|`` split the row. ``final``'s own keys are names now; a key
deeper in it, or in any other open map of a run, is shown as text wherever the reproducibility page shows it."""
from __future__ import annotations

import json
import re

import pytest
from markdown_it import MarkdownIt

from mope.book import downloads, run_records
from mope.store import results
from mope.store.presets import get_preset
from mope.store.result_schema import schema_problem
from tests.synthetic_runs import run

HOSTILE = ["`x`<img src=y onerror=alert(7)>`z`", "``<script>alert(1)</script>``", "<script>alert(2)</script>",
           "a|b", "[link](javascript:alert(3))", "*emphasis* &amp; {role}"]
SMOKE = get_preset("smoke")


@pytest.mark.parametrize("key", HOSTILE + ["1x", "val loss", "val-loss", ""])
def test_a_key_of_final_is_a_name_or_the_run_is_not_valid(key):
    stored = json.loads(json.dumps(run("NOPE", 0, 2.0, preset=SMOKE)))
    stored["final"][key] = 1.5
    assert schema_problem(stored) is not None and "final" in schema_problem(stored)
    assert schema_problem(stored, use_jsonschema=False) is not None


def hostile_run(seed: int) -> dict:
    """A valid run with every hostile key in every open map a reader might list: under a new field of ``final``, in
    provenance and its throughput, in an evaluation of its history, in what it learned."""
    stored = run("NOPE", seed, 2.0, preset=SMOKE)
    keys = {key: 1.0 for key in HOSTILE}
    stored["final"]["added_later"] = dict(keys)
    stored["provenance"].update(keys)
    stored["provenance"]["throughput"] = dict(keys)
    stored["history"][0].update(keys)
    stored["learned"] = dict(keys)
    return stored


def page_markdown(store) -> list[str]:
    """What the reproducibility page shows of the store: its summary, its tables of runs and of files not shown, and
    the dictionary of the runs CSV's columns, each built by the page's own code from the runs the store gives it."""
    for seed in (0, 1):
        path = results.result_path(SMOKE, "NOPE", seed)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(hostile_run(seed)))
    bad = results.result_path(SMOKE, "NOPE", 2)
    bad.write_text(json.dumps(run("NOPE", 2, 2.0, preset=SMOKE) | {"final": {HOSTILE[0]: 1.0}}))
    runs = {"smoke": results.load_results("smoke")}
    assert len(runs["smoke"]) == 2, "the runs with hostile keys deeper than final's own are valid"
    csv = downloads.runs_csv(runs)
    return [run_records.preset_summary(runs), run_records.run_table("smoke", runs["smoke"]),
            run_records.not_shown_table(["smoke"]), downloads.column_dictionary(downloads.csv_columns(csv))]


def test_hostile_keys_in_every_open_map_reach_the_page_as_text_in_whole_rows(store):
    pages = page_markdown(store)
    dictionary = pages[-1]
    assert all(f"final.added_later.{key}" in downloads.csv_columns(downloads.runs_csv(
        {"smoke": results.load_results("smoke")})) for key in HOSTILE)
    html = MarkdownIt("commonmark", {"html": True}).enable("table")
    for markdown in pages:
        rendered = html.render(markdown)
        tags = set(re.findall(r"<([a-z]+)", rendered))
        assert tags <= {"table", "thead", "tbody", "tr", "th", "td", "code", "p", "br"}, "live markup"
        tables = re.findall(r"<table>.*?</table>", rendered, re.S)
        assert tables, "no table rendered"
        for table in tables:
            rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)
            assert len({len(re.findall(r"<t[hd]>", row)) for row in rows}) == 1, "a row split or cut short"
    for key in HOSTILE:  # each key shown, as written
        assert html.render(dictionary).count(key.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")) >= 1
