"""Publishing: the GitHub Actions workflow that tests, builds and deploys the book, the conda
environment that must name the same dependencies as pyproject.toml, and the code behind the book, which
holds no function that nothing but a test calls."""
from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "book.yml"


def test_workflow_validates_against_the_github_actions_schema():
    """check-jsonschema ships SchemaStore's schema of workflow files: no network needed."""
    result = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(WORKFLOW)],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_workflow_tests_builds_and_deploys_the_book_on_push_to_main():
    workflow = yaml.safe_load(WORKFLOW.read_text())
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as True
    assert triggers["push"]["branches"] == ["main"]
    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]
    runs = [step.get("run", "") for step in build["steps"]]
    readme = (ROOT / "README.md").read_text()
    for command in ("make test", "make book"):
        assert command in readme, f"the README no longer documents `{command}`"
        assert any(run.strip() == command for run in runs), f"the workflow does not run `{command}`"
    assert any("scripts/check_book_html.py _build/html" in run for run in runs)
    upload = next(step for step in build["steps"] if step.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert upload["with"]["path"] == "_build/html"
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert any(step.get("uses", "").startswith("actions/deploy-pages@") for step in deploy["steps"])


def test_the_workflow_gives_the_tests_what_they_read_before_it_runs_them():
    """GitHub sets CI=true, under which a skipped test fails the run (tests/conftest.py): the whole history (the rule's
    history, the budget's commits), the browser tools in tools/web and chromedriver on PATH come before `make test`."""
    steps = yaml.safe_load(WORKFLOW.read_text())["jobs"]["build"]["steps"]
    checkout = next(step for step in steps if step.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0
    runs = [step.get("run", "") for step in steps]
    tests = next(i for i, run in enumerate(runs) if run.strip() == "make test")
    before = "\n".join(runs[:tests])
    assert "cd tools/web && npm ci" in before and 'echo "$CHROMEWEBDRIVER" >> "$GITHUB_PATH"' in before


def test_the_workflow_makes_every_check_of_the_ci_entry_point():
    """.ci/run is what CI runs here; the workflow must not skip any of its checks of the built book."""
    checks = re.findall(r"^\S*python\S* (scripts/check_\w+\.py _build/html)", (ROOT / ".ci" / "run").read_text(), re.M)
    assert {"scripts/check_book_html.py _build/html", "scripts/check_explorer.py _build/html"} <= set(checks)
    build = yaml.safe_load(WORKFLOW.read_text())["jobs"]["build"]
    runs = "\n".join(step.get("run", "") for step in build["steps"])
    missing = [check for check in checks if check not in runs]
    assert not missing, f"the workflow skips {missing}, which .ci/run runs"
    upload = next(i for i, step in enumerate(build["steps"]) if "upload-pages-artifact" in step.get("uses", ""))
    assert all(check in "\n".join(step.get("run", "") for step in build["steps"][:upload]) for check in checks)


def test_the_readme_layout_names_every_module_of_the_package_and_no_other():
    """One row per folder of the package (a layer): it names every module and subpackage there, and no other."""
    readme = (ROOT / "README.md").read_text()
    layout = readme[readme.index("## Layout"):]
    rows = [line.split("|") for line in layout.splitlines() if line.startswith("| `mope/")]
    named = {(re.match(r" `(mope/[\w/]*)`", row[1])[1].rstrip("/"), name)
             for row in rows for name in re.findall(r"`(\w+)/?`", row[2])}
    package = ROOT / "mope"
    folders = [package] + [p for p in package.iterdir() if (p / "__init__.py").is_file() and p.name != "__pycache__"]
    contents = lambda folder: {p.stem for p in folder.glob("*.py") if p.stem != "__init__"} | {
        p.name for p in folder.iterdir() if (p / "__init__.py").is_file()}
    modules = {(str(folder.relative_to(ROOT)), name) for folder in folders for name in contents(folder)
               if not (folder == package and (package / name / "__init__.py").is_file())}  # a layer has its own row
    assert modules - named == set(), f"the README's layout does not name {sorted(modules - named)}"
    assert named - modules == set(), f"the README's layout names {sorted(named - modules)}, which do not exist"


#: Where a function of the book's code may be used: the package, the pages and notebooks (their .md: the .ipynb
#: are written from them), the Sphinx extensions, the scripts, the benchmarks, the Makefile and CI; never tests/.
USERS = ("mope/**/*.py", "book/**/*.md", "book/**/*.py", "book/**/*.js", "notebooks/*.md", "notebooks/*.py",
         "scripts/**/*.py", "scripts/*.sh", "benchmarks/*.py", "Makefile", ".ci/run", ".github/workflows/*.yml",
         "_config.yml")
#: The folders whose top-level functions and classes must each have a user.
BOOKS_CODE = ("mope/book", "mope/evidence", "book/_ext")


def users_texts() -> dict[Path, str]:
    return {path: path.read_text() for pattern in USERS for path in sorted(ROOT.glob(pattern))}


def unused_definitions(texts: dict[Path, str]) -> list[str]:
    """"mope/book/plots.py: show_source" for each top-level function or class of :data:`BOOKS_CODE` whose name
    (a whole word) is nowhere in ``texts`` but in its own definition; the package's public API (``mope.__all__``,
    a module's ``__all__``) and the Sphinx extensions' ``setup`` hooks are used by others by design."""
    import mope

    said = Counter()
    for text in texts.values():
        said.update(re.findall(r"\w+", text))
    unused = []
    for folder in BOOKS_CODE:
        for module in sorted((ROOT / folder).glob("*.py")):
            tree, lines = ast.parse(texts[module]), texts[module].splitlines(keepends=True)
            public = set(mope.__all__) | {name for node in tree.body if isinstance(node, ast.Assign)
                                          and any(getattr(t, "id", "") == "__all__" for t in node.targets)
                                          for name in ast.literal_eval(node.value)}
            for node in tree.body:
                if (not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or node.name in public
                        or (folder == "book/_ext" and node.name == "setup")):
                    continue
                start = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
                own = re.findall(r"\w+", "".join(lines[start - 1:node.end_lineno])).count(node.name)
                if said[node.name] <= own:
                    unused.append(f"{module.relative_to(ROOT)}: {node.name}")
    return unused


def test_every_function_and_class_of_the_books_code_has_a_user_other_than_the_tests():
    """No dead code: a function that only tests call checks what no reader sees (claims_tables.claims_tabs was
    tested while the introduction rendered chapter_runs.claims_tabs_run)."""
    assert unused_definitions(users_texts()) == []


def test_a_function_that_only_its_own_definition_names_is_found_unused():
    texts = users_texts()
    plots = ROOT / "mope" / "book" / "plots.py"
    texts[plots] += '\n\ndef show_source(*objects):\n    """Print show_source\'s arguments."""\n    return show_source\n'
    assert unused_definitions(texts) == ["mope/book/plots.py: show_source"]


def requirement_name_and_bounds(requirement: str) -> tuple[str, str]:
    name, bounds = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)\s*(.*?)\s*", requirement).groups()
    return re.sub(r"[-_.]+", "-", name).lower(), bounds.replace(" ", "")


CONDA_NAMES = {"pytorch": "torch"}  # conda-forge's name -> the name on PyPI


def test_environment_yml_names_the_dependencies_of_pyproject():
    """Every dependency of the package and of each extra, with its bounds; an extra that names others of the
    package's own (mope[evidence,bpe]) names extras that exist."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    wanted = dict(requirement_name_and_bounds(r) for r in project["dependencies"])
    for group in extras.values():
        for requirement in group:
            own = re.fullmatch(rf"{project['name']}\[([\w,\s-]+)\]", requirement)
            if own:
                assert {name.strip() for name in own[1].split(",")} <= set(extras), requirement
            else:
                wanted.update([requirement_name_and_bounds(requirement)])

    environment = yaml.safe_load((ROOT / "environment.yml").read_text())
    conda = [d for d in environment["dependencies"] if isinstance(d, str)]
    pip = next(d["pip"] for d in environment["dependencies"] if isinstance(d, dict))
    assert "-e ." in pip, "the environment installs the package itself"
    named = {}
    for requirement in conda + [line for line in pip if not line.startswith("-")]:
        name, bounds = requirement_name_and_bounds(requirement)
        named[CONDA_NAMES.get(name, name)] = bounds
    assert named.pop("python") == ">=" + project["requires-python"].removeprefix(">=")
    named.pop("pip")
    missing = sorted(set(wanted) - set(named))
    extra = sorted(set(named) - set(wanted))
    assert not missing and not extra, f"environment.yml lacks {missing} and has {extra} that pyproject.toml does not"
    differ = {name: (named[name], wanted[name]) for name in wanted if named[name] != wanted[name]}
    assert not differ, f"version bounds differ (environment.yml, pyproject.toml): {differ}"
