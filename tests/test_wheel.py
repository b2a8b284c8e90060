"""The light install (README: Install): the wheel, built reproducibly, installed with its dependencies and no
extras into a fresh virtual environment that holds torch and what torch needs, numpy and tqdm, nothing else;
the README's example and the command line run there, installed without a source checkout.

Offline and without downloading torch again: the fresh environment gets the distributions of this one (torch,
numpy, tqdm and what they require) as symbolic links in its site-packages, so that Python imports them and
``pip check`` reads their metadata, and the wheel is installed with ``--no-deps --no-index``.
"""
from __future__ import annotations

import hashlib
import os
import pkgutil
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import mope
from mope.errors import EXTRAS

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
CORE = {"torch", "numpy", "tqdm"}  # what the package may require without an extra (issue 56)
# What `pip install <the repository>` builds the wheel from (pyproject.toml, MANIFEST.in).
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in", "build_backend", "mope")
LEFT_OUT = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
DAY = 86400


def run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    """``command``, its output captured, with no PYTHONPATH (nothing of this checkout on the path)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"} | kwargs.pop("env", {})
    return subprocess.run(command, capture_output=True, text=True, timeout=600, env=env, **kwargs)


def test_this_environment_can_build_the_wheel_without_isolation():
    """The wheel is built offline from this environment's setuptools (--no-build-isolation): it must be one that
    pyproject.toml's build-system asks for (setuptools >= 77 reads the SPDX license)."""
    for requirement in map(Requirement, PYPROJECT["build-system"]["requires"]):
        version = metadata.version(requirement.name)
        assert requirement.specifier.contains(version), \
            f"{requirement.name} {version} is installed; building the wheel needs {requirement} (pip install '{requirement}')"


def build_wheel(folder: Path, umask: int, later: int = 0) -> Path:
    """The wheel of a copy of this tree, built in ``folder`` under ``umask``, with each file's time stamp
    ``later`` seconds after its own (a clone made another day)."""
    source = folder / "source"
    for name in SOURCES:
        origin = ROOT / name
        if origin.is_dir():
            shutil.copytree(origin, source / name, ignore=LEFT_OUT)
        else:
            source.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, source / name)
    for path in source.rglob("*"):
        if umask != 0o022 and path.is_file():  # a clone made under this umask has files writable by the group
            path.chmod(path.stat().st_mode | (0o666 & ~umask))
        os.utime(path, (path.stat().st_atime, path.stat().st_mtime + later), follow_symlinks=False)
    built = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "--quiet",
                 "--wheel-dir", str(folder / "dist"), str(source)], preexec_fn=lambda: os.umask(umask))
    assert built.returncode == 0, built.stderr
    (wheel,) = (folder / "dist").glob("mope-*.whl")
    return wheel


@pytest.fixture(scope="module")
def wheels(tmp_path_factory) -> tuple[Path, Path]:
    """Two builds of this tree: under the usual umask, and under 002 from a copy whose files are a day younger."""
    return (build_wheel(tmp_path_factory.mktemp("first"), 0o022),
            build_wheel(tmp_path_factory.mktemp("second"), 0o002, later=DAY))


def requirements(wheel: Path) -> list[Requirement]:
    with zipfile.ZipFile(wheel) as archive:
        text = archive.read(next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    return [Requirement(line.split(":", 1)[1]) for line in text.splitlines() if line.startswith("Requires-Dist:")]


def test_two_builds_of_the_wheel_are_the_same_bytes(wheels):
    first, second = (hashlib.sha256(wheel.read_bytes()).hexdigest() for wheel in wheels)
    assert first == second, "two builds of one tree (another day, another umask) gave different wheels"


def test_the_wheel_requires_torch_numpy_and_tqdm_at_most(wheels):
    always = {canonicalize_name(r.name) for r in requirements(wheels[0]) if r.marker is None
              or r.marker.evaluate({"extra": ""})}
    assert always <= CORE, f"installing the wheel without extras also pulls {sorted(always - CORE)}"


def test_each_optional_package_the_code_imports_comes_with_the_extra_its_error_names(wheels):
    """mope.errors.EXTRAS (what a missing package's error tells to install) agrees with the wheel's extras."""
    providers = metadata.packages_distributions()
    for module, extra in EXTRAS.items():
        names = {canonicalize_name(d) for d in providers[module]}
        in_extra = {canonicalize_name(r.name) for r in requirements(wheels[0])
                    if r.marker is not None and r.marker.evaluate({"extra": extra})}
        assert names & in_extra, f"{module} is not installed by the extra {extra!r} that its error names"


def test_each_package_the_book_layer_asks_for_comes_with_the_book_extra(wheels):
    """mope.book.BOOK_PACKAGES, what the book layer's error names as missing, are each installed by its extra."""
    from mope.book import BOOK_PACKAGES

    providers = metadata.packages_distributions()
    in_extra = {canonicalize_name(r.name) for r in requirements(wheels[0])
                if r.marker is not None and r.marker.evaluate({"extra": "book"})}
    for module in BOOK_PACKAGES:
        assert {canonicalize_name(d) for d in providers[module]} & in_extra, f"the extra 'book' does not install {module}"


def dependency_closure(names: set[str]) -> dict[str, metadata.Distribution]:
    """The installed distributions ``names`` and everything they require here, extras left out."""
    found: dict[str, metadata.Distribution] = {}
    waiting = list(names)
    while waiting:
        name = canonicalize_name(waiting.pop())
        if name in found:
            continue
        found[name] = metadata.distribution(name)
        waiting += [r.name for r in map(Requirement, found[name].requires or [])
                    if r.marker is None or r.marker.evaluate({"extra": ""})]
    return found


def expose(distributions: dict[str, metadata.Distribution], site_packages: Path) -> None:
    """Each distribution's top-level files and folders (its package, its .dist-info), linked into ``site_packages``."""
    for name, distribution in distributions.items():
        assert distribution.files, f"{name} records none of its files (no RECORD): cannot expose it"
        tops = {file.parts[0] for file in distribution.files} - {"..", "__pycache__"}
        for top in tops:
            link = site_packages / top
            if not link.exists():
                link.symlink_to(Path(distribution.locate_file(top)).resolve())


@pytest.fixture(scope="module")
def light(tmp_path_factory, wheels) -> Path:
    """A fresh virtual environment with torch, numpy, tqdm and what they need, and the wheel installed with no
    extras; its python."""
    venv = tmp_path_factory.mktemp("light") / "venv"
    made = run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    site_packages = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).stdout.strip())
    expose(dependency_closure(CORE), site_packages)
    installed = run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
                     "--no-cache-dir", "--quiet", str(wheels[0])])
    assert installed.returncode == 0, installed.stderr
    return python


def test_the_light_environment_is_consistent_and_holds_no_extra(light, tmp_path):
    checked = run([sys.executable, "-m", "pip", "--python", str(light), "check"])
    assert checked.returncode == 0, checked.stdout + checked.stderr
    extras = ["scipy", "jsonschema", "tokenizers", "matplotlib", "pandas"]
    probe = run([str(light), "-c", f"import importlib.util, mope; print([m for m in {extras} if importlib.util.find_spec(m)]);"
                 "print(mope.__file__)"], cwd=tmp_path)
    found, location = probe.stdout.splitlines()
    assert found == "[]", f"the fresh environment is not bare: it holds {found}"
    assert Path(location).is_relative_to(light.parent.parent), f"mope was imported from {location}, not the install"


def test_every_layer_below_the_book_imports_with_no_extra(light, tmp_path):
    """The model, the store, the training loop, the evidence and the command line import with torch, numpy and tqdm
    alone (what needs scipy or tokenizers imports it when asked: the test below); the book needs its extra."""
    script = ("import importlib, pkgutil, mope\n"
              "names = ['mope.cli', *(m.name for m in pkgutil.walk_packages(mope.__path__, 'mope.')\n"
              "                       if not m.name.startswith('mope.book'))]\n"
              "for name in names:\n"
              "    importlib.import_module(name)\n"
              "print(len(names))\n")
    ran = run([str(light), "-c", script], cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    here = [m.name for m in pkgutil.walk_packages(mope.__path__, "mope.") if not m.name.startswith("mope.book")]
    assert int(ran.stdout) == 1 + len(here), "the installed package does not hold every module of this tree"


def test_the_book_layer_without_its_extra_is_one_error_naming_the_extra(light, tmp_path):
    """Importing a module of the book layer without its extra raised "No module named 'bokeh'" (or matplotlib's) from
    deep inside it; it is the package's one-line MissingExtraError, naming the extra and how to install it."""
    ran = run([str(light), "-c", "import mope.book.explorer"], cwd=tmp_path)
    assert ran.returncode == 1
    last = ran.stderr.strip().splitlines()[-1]
    assert last.startswith("mope.errors.MissingExtraError: the book layer (mope.book) needs matplotlib, bokeh, jupytext, "
                           "which mope's extra 'book' installs: pip install \"mope[book] @ git+"), last
    assert "ModuleNotFoundError" not in ran.stderr, ran.stderr


def readme_example() -> str:
    """The Python example of the README's Install section."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Install"):]
    section = section[:section.index("\n## ", 1)]
    (code,) = re.findall(r"```python\n(.*?)```", section, re.S)
    return code


def test_the_readme_example_runs_with_no_extra(light, tmp_path):
    ran = run([str(light), "-c", readme_example()], cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip(), "the README's example prints what it computed"


def test_the_command_line_installed_without_a_checkout_says_where_it_writes_first(light, tmp_path):
    """``mope train`` from site-packages: runs go under the current directory, which it names on stderr before
    anything is written there; once the run is stored no lock file (nor checkpoint) is left."""
    mope = light.parent / "mope"
    data_dir = os.environ["MOPE_DATA_DIR"]
    reads_first = ("import os, runpy, sys\n"  # the notice must come while the folder is still empty
                   "write = sys.stderr.write\n"
                   "def checked(text):\n"
                   "    if 'without a source checkout' in text: assert not os.listdir('.'), os.listdir('.')\n"
                   "    return write(text)\n"
                   "sys.stderr.write = checked\n"
                   f"sys.argv = [{str(mope)!r}, 'train', 'EGA-1', '--preset', 'smoke', '--steps', '3', '--no-progress', '--threads', '1']\n"
                   "runpy.run_module('mope', run_name='__main__', alter_sys=True)\n")
    env = {"MOPE_DATA_DIR": data_dir, "MOPE_RESULTS_DIR": "", "MOPE_CHECKPOINT_DIR": ""}
    trained = run([str(light), "-c", reads_first], cwd=tmp_path, env=env)
    assert trained.returncode == 0, trained.stderr
    notice = next(line for line in trained.stderr.splitlines() if "without a source checkout" in line)
    for place in (tmp_path / "results", tmp_path / "checkpoints", Path(data_dir).resolve()):
        assert str(place) in notice, f"the notice does not name {place}: {notice}"
    stored = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert stored == ["results/smoke-steps3/EGA-1/seed0.json"], stored


def store_runs(results: Path) -> None:
    """Two seeds of each model of Table 2, current runs of the smoke preset: the claims judge them."""
    from mope.model.variants import TABLE_2
    from mope.store.presets import get_preset
    from mope.store.results import write_result
    from synthetic_runs import run as made_up

    for seed in (0, 1):
        for number, variant in enumerate(TABLE_2):
            write_result(made_up(variant, seed, 2.0 + number / 10 + seed / 100, preset=get_preset("smoke")), results)


@pytest.mark.parametrize("command, extra, package", [
    (["claims", "--preset", "smoke"], "evidence", "scipy"),
    (["train", "EGA-1", "--preset", "cpu-bpe", "--steps", "3"], "bpe", "tokenizers"),
])
def test_a_feature_without_its_extra_names_the_extra_to_install(light, tmp_path, command, extra, package):
    store_runs(tmp_path / "results")
    before = sorted(tmp_path.rglob("*"))
    env = {"MOPE_DATA_DIR": os.environ["MOPE_DATA_DIR"], "MOPE_RESULTS_DIR": "", "MOPE_CHECKPOINT_DIR": ""}
    ran = run([str(light.parent / "mope"), *command], cwd=tmp_path, env=env)
    url = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]
    assert ran.returncode == 1 and "Traceback" not in ran.stderr, ran.stderr
    assert f'needs {package}, which mope\'s extra {extra!r} installs: pip install "mope[{extra}] @ git+{url}"' \
        in ran.stderr, ran.stderr
    assert sorted(tmp_path.rglob("*")) == before, "it wrote files before it failed"
    assert f"results in {tmp_path / 'results'}" in ran.stderr, "it does not say where it reads"


def test_the_install_lines_name_the_repository_of_config_yml():
    """README and the book's first page give `pip install "mope @ git+<repository.url>"`; the package's metadata
    names the same address (where a missing extra's error says to install from)."""
    url = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]
    assert PYPROJECT["project"]["urls"]["Repository"] == url
    for page in (ROOT / "README.md", ROOT / "book" / "intro.md"):
        lines = re.findall(r'pip install "mope(?:\[[\w,]+\])? @ git\+([^"]+)"', page.read_text())
        assert lines and set(lines) == {url}, f"{page.name}: install lines {lines}, repository.url {url}"
