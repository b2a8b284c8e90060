"""What issue 19 asks of the pages: the package's own code on them, one place for each argument, a
"What this chapter found" at the end of every chapter, the training budget on a page of its own, the
explorer first on its page; and the helpers that put code, tabs and findings on a page (mope.book.chapter_runs).

Where the book has been built (``_build/html``), the built pages are checked too; the sources always."""
from __future__ import annotations

import inspect
import os
import re
from pathlib import Path

import jupytext
import pytest
import yaml

from mope.train import loop as training
from mope.evidence import claims, standings
from mope.book import chapter_runs, explorer
from mope.model.energy_gate import CausalEnergyGate, FutureReadingEnergyGate
from mope.model.positional.morlet import MorletPositions, project_admissible
from synthetic_runs import run

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
BUILT = ROOT / "_build" / "html"
CHAPTERS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.md"))


def markdown_of(page: Path) -> str:
    """The Markdown cells of a jupytext page, joined (code cells left out)."""
    return "\n\n".join(cell.source for cell in jupytext.read(page).cells if cell.cell_type == "markdown")


def included(page: Path) -> set[tuple[str, str]]:
    """The (file, object) pairs a page shows with ``literalinclude`` and ``:pyobject:``."""
    text = page.read_text()
    return set(re.findall(r"```\{literalinclude\} /(\S+)\n:pyobject: (\S+)", text))


# --- the code on the page ----------------------------------------------------------------------------

def test_the_encodings_and_gate_chapters_include_the_packages_own_classes():
    encodings, stress = NOTEBOOKS / "02_encodings.md", NOTEBOOKS / "06_stress_tests.md"
    shown = included(encodings)
    for wanted in (("mope/model/positional/morlet.py", "MorletPositions"), ("mope/model/energy_gate.py", "FutureReadingEnergyGate"),
                   ("mope/model/energy_gate.py", "CausalEnergyGate")):
        assert wanted in shown, wanted
    assert {("mope/model/energy_gate.py", "FutureReadingEnergyGate.standardised"),
            ("mope/model/energy_gate.py", "CausalEnergyGate.standardised")} <= included(stress)
    assert ("mope/model/positional/morlet.py", "project_admissible") in included(NOTEBOOKS / "01_mathematics.md")
    for page in (encodings, stress, NOTEBOOKS / "01_mathematics.md", NOTEBOOKS / "04_reproduction.md"):
        for path, name in included(page):
            assert (ROOT / path).is_file(), (page.name, path)


@pytest.mark.skipif(not (BUILT / "notebooks" / "02_encodings.html").is_file(), reason="the book is not built")
def test_the_built_pages_show_the_source_of_the_model_and_the_gates():
    def text_of(name):
        html = (BUILT / "notebooks" / name).read_text()
        return re.sub(r"<[^>]+>", "", html).replace("&quot;", '"').replace("&gt;", ">").replace("&lt;", "<")

    encodings, stress = text_of("02_encodings.html"), text_of("06_stress_tests.html")
    for obj in (MorletPositions, FutureReadingEnergyGate, CausalEnergyGate):
        source = inspect.getsource(obj)
        first, last = source.splitlines()[0], source.rstrip().splitlines()[-1].strip()
        assert first in encodings and last in encodings, obj.__name__
    for obj in (FutureReadingEnergyGate.standardised, CausalEnergyGate.standardised):
        assert inspect.getsource(obj).splitlines()[0].strip() in stress
    assert inspect.getsource(project_admissible).splitlines()[0] in text_of("01_mathematics.html")
    assert "scaler.step(optimizer)" in text_of("04_reproduction.html")


@pytest.mark.skipif(not (BUILT / "notebooks" / "06_stress_tests.html").is_file(), reason="the book is not built")
def test_the_stress_tests_say_what_a_causal_gate_on_mope_keeps_at_the_papers_context_and_at_its_protocol():
    """Chapter 6's table has a `paper` row once EGA-MORLET-CAUSAL is stored there; the paragraph under it says the
    share of EGA-MORLET's gain the causal gate keeps on `cpu-long` and, from its seeds, on `paper` too."""
    from mope.evidence import findings
    from mope.store import results

    html = (BUILT / "notebooks" / "06_stress_tests.html").read_text()
    text = " ".join(re.sub(r"<[^>]+>", "", html).replace("&#8217;", "'").replace("’", "'").split())
    said = [findings.mope_gate_share({p: results.load_results(p)}, p) for p in ("cpu-long", "paper")]
    for share in filter(None, said):
        assert share[3:].replace("’", "'").replace("`", "") in text, share  # "On ..." opens the paragraph, "on ..." follows it; code marks become tags
    assert any(said)


@pytest.mark.skipif(not (BUILT / "notebooks" / "01_mathematics.html").is_file(), reason="the book is not built")
def test_the_mathematics_says_what_share_of_the_pairs_the_data_press_onto_the_bound_from_the_claims_document():
    """Chapter 1's summary: weight decay alone puts every pair on ωσ = 5, so only the control with no decay can say
    what the data do; its share of pairs on the bound is the claims document's, with its seeds and preset."""
    from mope.evidence import verdicts

    html = (BUILT / "notebooks" / "01_mathematics.html").read_text()
    text = " ".join(re.sub(r"<[^>]+>", "", html).split())
    preset = os.environ.get("MOPE_PRESET", "cpu")  # the chapter's preset, as its first cell reads it
    record = next(r for r in claims.claim_records(preset) if r["key"] == "every-pair-pushed")
    assert record["n"] >= 2  # PE-MORLET-NODECAY is stored there
    said = (f"with no decay, the data press {verdicts.pairs_percent(record['ours'])} of the pairs onto it "
            f"(PE-MORLET-NODECAY, {record['n']} seeds of {preset})")
    assert said in text


def test_source_lines_quotes_a_passage_of_the_package_and_fails_when_it_moved():
    loop = chapter_runs.source_lines(training._train, "for step in range(start, cfg.steps):", "optimizer.zero_grad(")
    assert loop.startswith("for step in range(start, cfg.steps):") and loop.rstrip().endswith(")")
    assert loop in inspect.cleandoc(inspect.getsource(training._train)) or "scaler.step(optimizer)" in loop
    with pytest.raises(ValueError, match="the page must follow the code"):
        chapter_runs.source_lines(training._train, "no such line", "optimizer.zero_grad(")
    assert chapter_runs.code_block("x = 1", "*caption*") == "*caption*\n\n```python\nx = 1\n```"


# --- one place for each argument -----------------------------------------------------------------------

def test_the_claims_table_and_the_verdict_rule_are_not_in_the_stress_tests():
    source = (NOTEBOOKS / "06_stress_tests.md").read_text()
    for gone in ("claims.claims_tabs(", "claims_tables.claims_tabs(", "claims.VOCABULARY", "verdicts.VOCABULARY", "claims.RULE", "single_seed_contrasts", "(stress-verdicts)="):
        assert gone not in source, gone
    # it links to them instead, in the dropdown that ends it
    assert "chapter_runs.found_dropdown(" in source
    ending = chapter_runs.found_dropdown({}, ["stress-causal-gate"])
    assert "{ref}`intro-claims`" in ending and "{ref}`intro-vocabulary`" in ending


def test_chapters_show_the_main_preset_and_paper_and_cpu_short_lives_on_the_budget_page():
    assert "cpu-short" not in chapter_runs.CHAPTER_PRESETS and "paper" in chapter_runs.CHAPTER_PRESETS
    assert "cpu-long" in chapter_runs.CHAPTER_PRESETS  # the paper's context, wherever the chapters read cpu
    for page in CHAPTERS:
        assert "chapter_runs.load_runs(PRESET, MODELS, SEEDS)" in page.read_text() or "load_runs" not in page.read_text()
        assert "load_sweep" not in page.read_text(), f"{page.name}: the sweep is on the training-budget page"
    budget = (ROOT / "book" / "training_budget.md").read_text()
    assert "(repro-cpu-preset)=" in budget and "budget_changes" in budget and "load_sweep" in budget
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    back_matter = next(part for part in toc["parts"] if part["caption"] == "Back matter")
    assert {"file": "book/training_budget"} in back_matter["chapters"]


def test_the_decay_only_argument_is_made_in_the_mathematics_and_only_linked_elsewhere():
    """The derivation (decoupled decay multiplies log ω, log σ by f) is made once, in chapter 1."""
    derivation = r"f=\prod_s(1-\mathrm{lr}_s\lambda)"
    assert derivation in (NOTEBOOKS / "01_mathematics.md").read_text()
    for page in CHAPTERS[1:]:
        assert derivation not in page.read_text(), page.name
    assert "{ref}`math-weight-decay`" in (NOTEBOOKS / "05_learned_parameters.md").read_text()


# --- every chapter ends with what it found -------------------------------------------------------------

@pytest.mark.parametrize("page", [p for p in CHAPTERS if "explorer" not in p.name], ids=lambda p: p.name)
def test_every_chapter_ends_with_what_it_found_computed(page):
    text = page.read_text()
    headings = re.findall(r"^## (.+)$", text, flags=re.M)
    assert headings[-1] == "What this chapter found", page.name
    found = text[text.rindex("## What this chapter found"):]
    code = re.findall(r"```\{code-cell\}.*?\n```", found, flags=re.S)
    assert code or "{eval}" in found, f"{page.name}: what the chapter found is computed"
    without_code = re.sub(r"```\{code-cell\}.*?\n```", "", found, flags=re.S)
    prose = "\n".join(line for line in without_code.splitlines()[1:]
                      if not line.startswith((":", "|", "<!--")))  # tables in a dropdown: statements, no numbers
    prose = re.sub(r"\{eval\}`\w+`|\{[\w:]+\}`[^`]*`|\$[^$]*\$", "", prose)  # computed values, links, maths
    # names, not results: "Eq. 17", "Figure 1", "seed 0", and the paper's own words in quotation marks
    prose = re.sub(r"(Eq\.|Equation|Figures?|Tables?|seed|pairs?|§)\s*\d+(\s*(and|,)\s*\d+)*|\"[^\"]*\"|“[^”]*”", "",
                   prose)
    typed = re.findall(r"(?<![\w.§-])\d+(?:\.\d+)?(?!\w)", prose)
    assert not typed, f"{page.name}: numbers typed into its findings: {typed}"


def test_found_lines_group_the_claims_of_a_section_by_their_standing_across_scales(store):
    runs = [run(name, seed, value + 0.01 * seed) for seed in range(3)
            for name, value in (("BASE-DOT", 1.50), ("PE-MORLET", 1.60), ("PE-ROPE", 1.49), ("PE-SINCOS", 1.70))]
    # at the longer context PE-ROPE falls behind BASE-DOT: "PE-ROPE beats PE-MORLET" holds on both, the
    # near-equality with BASE-DOT is judged on neither
    longer = [run(name, seed, value + 0.01 * seed, preset="cpu-long") for seed in range(3)
              for name, value in (("BASE-DOT", 1.50), ("PE-MORLET", 1.60), ("PE-ROPE", 1.58))]
    findings = {"cpu": claims.judge_all("cpu", runs, longer=longer), "cpu-long": claims.judge_all("cpu-long", longer, shorter=runs)}
    text = chapter_runs.found_lines(findings, ["repro-table-2"])
    found = standings.standings(findings)
    shown = [c for c in claims.CLAIMS if c.shown_in == "repro-table-2"]
    for claim in shown:
        line = next(row for row in text.splitlines() if f"`{claim.words} <repro-table-2>`" in row)
        assert line.startswith(f"* **{found[claim.key].phrase}** (") or line.startswith(
            f"* **{found[claim.key].phrase}**: ")  # one bullet a standing: the presets named once, or per claim
        assert text.count(f"* **{found[claim.key].phrase}**") == 1
    assert len(shown) == text.count("<repro-table-2>`")
    lines = text.splitlines()
    beats = next(c for c in shown if c.key == "rope-beats-mope")
    rope = next(c for c in shown if c.key == "rope-matches-base")
    # decided on both presets: at every scale; PE-SINCOS is not run at the longer context: where decided
    (holds,) = [line for line in lines if line.startswith("* **holds at every scale that decides it** (`cpu-long` and `cpu`): ")]
    assert f"`{beats.words} <repro-table-2>`" in holds
    sincos = next(c for c in shown if c.key == "rope-beats-sincos")
    (where,) = [line for line in lines if line.startswith("* **holds where decided** (`cpu`): ")]
    assert f"`{sincos.words} <repro-table-2>`" in where
    # the near-equality, off the paper's protocol: never judged, whichever way PE-ROPE moves
    assert any(line.startswith("* **cannot be tested at these scales** (cannot be tested on `cpu-long` and `cpu`): ")
               and f"`{rope.words} <repro-table-2>`" in line for line in lines)
    assert "* **not tested** (no run yet): " in text and "EGA-1 improves on BASE-DOT by 0.092 <repro-table-2>`" in text
    assert "No claim" in chapter_runs.found_lines({}, ["repro-table-2"])
    dropdown = chapter_runs.found_dropdown(findings, ["repro-table-2"])  # how a chapter ends: the lines, one click away
    assert dropdown.startswith(":::{dropdown} The chapter's claims") and dropdown.endswith("\n\n" + text + "\n:::")
    assert "{ref}`intro-vocabulary`" in dropdown and "{ref}`intro-claims`" in dropdown


def test_a_size_claim_decided_on_its_direction_alone_is_not_said_to_hold(monkeypatch):
    """A chapter's findings once put "PE-MORLET beats PE-SINCOS by 0.080" under "holds where decided", where every
    scale that decides it judged its direction only (the size is judged at the paper's protocol alone): it stands
    apart, under "direction holds where decided", as the introduction's table says it, after the claims that hold."""
    where = standings.Standing(standings.HOLDS_WHERE_DECIDED, holds=("cpu",))
    sign = standings.Standing(standings.HOLDS_WHERE_DECIDED, holds=("cpu-long", "cpu"), direction_only=True)
    monkeypatch.setattr(standings, "standings", lambda findings: {
        claim.key: sign if claim.key in ("mope-beats-sincos", "ega-gain") else where for claim in claims.CLAIMS})
    lines = chapter_runs.found_lines({"cpu": []}, ["repro-table-2"]).splitlines()
    assert [line.split("** ")[0] for line in lines] == ["* **holds where decided", "* **direction holds where decided"]
    assert lines[1] == ("* **direction holds where decided** (`cpu-long` and `cpu`): {ref}`PE-MORLET beats PE-SINCOS by "
                        "0.080 <repro-table-2>`; {ref}`EGA-1 improves on BASE-DOT by 0.092 <repro-table-2>`.")
    assert "PE-MORLET beats PE-SINCOS" not in lines[0] and "PE-ROPE beats PE-SINCOS" in lines[0]


def test_the_presets_behind_a_standing_say_where_it_is_decided_then_undecided_then_one_seed_then_moot():
    Standing = standings.Standing
    assert Standing(standings.HOLDS_WHERE_DECIDED, holds=("cpu-long", "cpu"), undecided=("cpu-short",),
                    single=("paper",), toward=("paper",)).behind == (
        "`cpu-long` and `cpu`; not settled on `cpu-short`; `paper`: one seed, the claim's way")
    assert Standing(standings.DEPENDS, holds=("cpu",), fails=("cpu-long", "cpu-short")).behind == (
        "holds on `cpu`; fails on `cpu-long` and `cpu-short`")
    assert Standing(standings.INDICATIVE, single=("cpu",), against=("cpu",)).behind == "`cpu`: one seed, against the claim"
    assert Standing(standings.DEPENDS, holds=("cpu-short",), fails=("cpu",), moot=("cpu-long",)).behind == (
        "holds on `cpu-short`; fails on `cpu`; nothing to explain on `cpu-long`")
    assert Standing(standings.NOT_JUDGED, not_judged=("cpu",)).behind == "cannot be tested on `cpu`"
    assert Standing(standings.NOT_TESTED).behind == "no run yet"


def test_preset_tabs_put_each_preset_in_a_tab_and_one_preset_plainly():
    render = lambda runs: "|".join(f"{preset}:{len(r)}" for preset, r in runs.items())  # noqa: E731
    assert chapter_runs.preset_tabs(render, {"cpu": [1, 2]}) == "cpu:2"
    tabs = chapter_runs.preset_tabs(render, {"cpu": [1, 2], "paper": [3]})
    assert tabs.splitlines() == ["::::{tab-set}", ":::{tab-item} `cpu`", "cpu:2", ":::",
                                 ":::{tab-item} `paper`", "paper:1", ":::", "::::"]


def test_preset_tabs_leave_out_a_preset_that_holds_none_of_the_tables_runs_and_name_it():
    def render(runs):  # a table of BASE-DOT's losses: a dash where a preset has none
        return "|".join(f"{preset}:" + (",".join(str(r["val"]) for r in rows if r["variant"] == "BASE-DOT") or "—")
                        for preset, rows in runs.items())
    runs = {"cpu": [{"variant": "BASE-DOT", "val": 1}], "cpu-long": [{"variant": "NOPE", "val": 2}],
            "paper": [{"variant": "BASE-DOT", "val": 3}]}
    tabs = chapter_runs.preset_tabs(render, runs)
    assert tabs.count(":::{tab-item}") == 2 and "paper:3" in tabs and "cpu-long:" not in tabs
    assert tabs.endswith(chapter_runs.empty_presets_line(["cpu-long"]))
    assert chapter_runs.preset_tabs(render, {"cpu": [], "paper": []}) == (  # the main preset always shows
        "cpu:—\n\n" + chapter_runs.empty_presets_line(["paper"]))
    for page in CHAPTERS:
        text = page.read_text()
        assert "missing_line(" not in text or "runs_lines(" in text, page.name



def test_every_tabbed_table_of_a_chapter_is_drawn_from_the_runs_it_is_handed():
    """preset_tabs tells a preset without runs by rendering it with none: a render that reads the chapter's
    runs from elsewhere (Table 3 once did, and lost its cpu-long and paper tabs) looks empty everywhere."""
    for page in CHAPTERS:
        for body in re.findall(r"preset_tabs\(lambda runs: (.*?), RUNS\)", page.read_text(), re.S):
            assert "runs" in body.replace("next(iter(runs))", ""), (page.name, body)

# --- the explorer page ---------------------------------------------------------------------------------

def test_the_explorer_comes_first_on_its_page_with_things_to_try_beside_the_sliders():
    page = (NOTEBOOKS / "03_explorer.md").read_text()
    first_section = page.index("\n## ")
    assert page.index("HTML(BOKEHJS + EXPLORER)") < first_section, "the explorer before any section"
    for moved in ("## Why Bokeh", "## Page weight", "scripts/check_explorer.py"):
        assert moved not in page, moved
    reproducibility = (ROOT / "book" / "reproducibility.md").read_text()
    assert "(reproducibility-explorer)=" in reproducibility and "scripts/check_explorer.py" in reproducibility
    layout = explorer.explorer(explorer.all_points({}))
    top = layout.children[0]
    sliders, tips = top.children
    assert tips.name == "tips" and "Things to try" in tips.text
    assert {child.name for child in sliders.children} >= {"omega", "sigma", "position", "centre", "jump"}


def test_the_things_to_try_are_computed_from_the_package():
    from mope.evidence.paper import REPORTED_PAIRS
    from mope.model.positional.morlet import initial_morlet_parameters

    text = explorer.things_to_try()
    omega127, sigma127 = REPORTED_PAIRS[127]
    assert f"ω = {omega127}, σ = {sigma127}" in text
    sigma0 = float(initial_morlet_parameters(128)[1][0])
    assert f"σ = {sigma0:g}" in text


def executed_names_before_each_markdown_cell(page: Path) -> list[tuple[str, set[str]]]:
    """(each Markdown cell's text, the names bound by the code cells the build has run when it reaches it) of a page:
    with inline execution myst-nb runs the code cells up to each cell it renders, and renders none tagged
    remove-cell, so such a cell has run only once a later code cell has."""
    import ast

    bound: set[str] = set()
    waiting: set[str] = set()  # bound by remove-cell cells not yet run
    cells = []
    for cell in jupytext.read(page).cells:
        if cell.cell_type == "markdown":
            cells.append((cell.source, set(bound)))
            continue
        tree = ast.parse("\n".join(line for line in cell.source.splitlines() if not line.startswith(("%", "!"))))
        names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
        names |= {alias.asname or alias.name.split(".")[0] for node in ast.walk(tree)
                  if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
        if {"remove-cell", "remove_cell"} & set(cell.metadata.get("tags", [])):
            waiting |= names
        else:
            bound |= waiting | names
            waiting = set()
    return cells


@pytest.mark.parametrize("page", sorted([*NOTEBOOKS.glob("*.md"), *(ROOT / "book").glob("*.md")]), ids=lambda p: p.name)
def test_every_value_a_pages_text_evaluates_is_bound_by_a_cell_the_build_runs_above_it(page):
    """The reproducibility page's {eval} of a value bound in a cell tagged remove-cell failed the book's -W build after
    ten minutes: myst-nb had not run that cell (it runs one only with a later code cell). Each {eval} names a value
    that a code cell the build has run binds above it."""
    if "code-cell" not in page.read_text(encoding="utf-8"):
        return  # a page without code: nothing is evaluated
    for text, bound in executed_names_before_each_markdown_cell(page):
        for name in re.findall(r"\{eval(?::figure)?\}[`\s]+([A-Za-z_][A-Za-z0-9_]*)", text):  # a role or a figure
            assert name in bound, f"{page.name}: {{eval}}`{name}` is bound by no cell the build runs above it"


def test_the_counts_the_models_and_budget_pages_write_in_words_are_the_registrys_and_the_sweeps():
    """"seventeen models ... eleven controls" and "Four candidates" are typed as words: held here to the registry
    of models and to the sweep's candidates, so that a model or a candidate added makes this fail, not the page
    lie."""
    import mope
    from mope.store.presets import CPU_SWEEP

    words = {4: "four", 6: "six", 11: "eleven", 17: "seventeen"}
    models = " ".join((ROOT / "book" / "variants.md").read_text().split())
    controls = len(mope.VARIANTS) - len(mope.TABLE_2)
    assert (f"The book trains {words[len(mope.VARIANTS)]} models: the {words[len(mope.TABLE_2)]} of the paper's "
            f"Table 2, as the released code runs them ({{doc}}`released_code`), and {words[controls]} controls") in models
    budget = " ".join((ROOT / "book" / "training_budget.md").read_text().split())
    candidates = words[len(CPU_SWEEP)]
    assert f"{candidates.capitalize()} candidates of the same token budget" in budget
    assert f"The table gives all {candidates} at that step" in budget
    assert f"under {candidates} candidates of the same token" in budget


def test_the_sweep_runs_the_budget_page_calls_reruns_equal_their_first_runs_which_only_a_changed_tree_set_aside():
    """"The three T128 runs stored are reruns from committed code, equal bit for bit to their first runs, which were
    marked as made from a changed tree": each one's first stored version (git history) is marked dirty, made at the
    commit of the chosen T64 run (stored clean), and holds the same losses as the rerun stored now."""
    import json

    from history import git_output
    from mope.store import results
    from mope.store.presets import CPU_SWEEP, sweep_choice

    budget = " ".join((ROOT / "book" / "training_budget.md").read_text().split())
    reruns = [c for c in CPU_SWEEP if c.block_size == 128]
    assert len(reruns) == 3 and "The three T128 runs stored are reruns from committed code, equal bit for bit" in budget
    chosen = chapter_runs.load_sweep()[sweep_choice()]["provenance"]
    assert chosen["git_dirty"] is False
    for candidate in reruns:
        path = results.result_path(candidate, "BASE-DOT", 0, results.sweep_root()).relative_to(ROOT)
        stored = json.loads((ROOT / path).read_text())
        added = git_output("log", "--diff-filter=A", "--format=%H", "--", str(path)).split()[-1]  # its first version
        first = json.loads(git_output("show", f"{added}:{path}"))
        assert stored["provenance"]["git_dirty"] is False and first["provenance"]["git_dirty"] is True, candidate.name
        assert first["provenance"]["git_commit"] == chosen["git_commit"] != stored["provenance"]["git_commit"]
        assert all(first[key] == stored[key] for key in ("history", "train_curve", "final")), candidate.name


def test_the_token_budgets_counts_in_words_are_its_plans_and_its_claims():
    """Chapter 4 writes "four of the six models" and "Its three rules" of `cpu-long-4x` in words: held here to the
    plan of its runs and to the claims measured across the two token budgets."""
    import mope
    from mope.store import plan

    words = {3: "three", 4: "four", 6: "six"}
    page = " ".join((NOTEBOOKS / "04_reproduction.md").read_text().split())
    models = plan.planned_seeds("cpu-long-4x")
    assert set(models) <= set(mope.TABLE_2)
    assert (f"`cpu-long-4x`, trained for the token budget's rules on {words[len(models)]} of the "
            f"{words[len(mope.TABLE_2)]} models") in page
    rules = [claim.key for claim in claims.CLAIMS if claim.across_budgets]
    assert f"Its {words[len(rules)]} rules were committed before its first run" in page
