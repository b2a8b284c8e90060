"""Which code made a run: the commit, and whether the files that ran differ from it.

A stored run records ``(git_commit, git_dirty)``; the book's evidence counts only when ``git_dirty`` is
false (``EVIDENCE_PRESETS`` of :mod:`mope.store.presets`, :func:`check_committed`). In a git checkout git
answers. A copy of the code without its ``.git`` folder (the working tree sent to a GPU machine)
answers from a **stamp** written in the checkout it came from: ``.source-stamp.json`` holds the commit
and the SHA-256 of every file git tracks outside ``results/``, and is written only from a clean tree
(``python -m mope stamp``). The copy is clean when every stamped file is there unchanged and no Python
file of the package or the scripts was added.
"""
from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path

from mope.errors import UserError
from mope.store.presets import EVIDENCE_PRESETS, TrainConfig
from mope.store.results import REPO_ROOT

STAMP = ".source-stamp.json"
HEX_COMMIT = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")  # a commit as git names it (SHA-1, or SHA-256)
CODE_FOLDERS = ("mope", "scripts")  # a Python file added here changes what runs


def _git(*args: str, cwd: Path = REPO_ROOT) -> str | None:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                              check=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def source_state(root: Path = REPO_ROOT) -> tuple[str, bool]:
    """(commit, dirty) of the code at ``root``; ``dirty`` is True when anything but the results store
    differs from the commit (stored runs are outputs: a finished run must not make the next one look as
    if it ran uncommitted code). Neither a git checkout nor a stamped copy: ("unknown", True)."""
    commit = _git("rev-parse", "HEAD", cwd=root)
    status = _git("status", "--porcelain", "--", ".", ":(exclude)results", cwd=root)
    if commit is not None and status is not None:
        return commit, bool(status)
    return _stamped_state(root)


def _stamped_state(root: Path) -> tuple[str, bool]:
    """The stamp's (commit, dirty); a stamp that is not what :func:`write_stamp` writes (a commit's 40 hex digits, a
    mapping of file names to SHA-256 digests) says nothing: ("unknown", True)."""
    try:
        stamp = json.loads((root / STAMP).read_text())
        commit, files = stamp["commit"], stamp["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return "unknown", True
    if not (isinstance(commit, str) and HEX_COMMIT.fullmatch(commit) and isinstance(files, dict)
            and all(isinstance(name, str) and isinstance(digest, str) for name, digest in files.items())):
        return "unknown", True
    changed = any(not (root / name).is_file() or _sha256(root / name) != digest for name, digest in files.items())
    added = any(path.relative_to(root).as_posix() not in files
                for folder in CODE_FOLDERS for path in (root / folder).rglob("*.py"))
    return commit, changed or added


def write_stamp(root: Path = REPO_ROOT) -> Path:
    """Write ``.source-stamp.json`` for a copy of this clean checkout (see the module docstring)."""
    if _git("rev-parse", "HEAD", cwd=root) is None:
        raise UserError(f"{root} is not a git checkout: a stamp can only describe a commit")
    commit, dirty = source_state(root)
    if dirty:
        raise UserError("the working tree has uncommitted changes (see `git status`): commit them first, "
                        "since a stamp describes a commit")
    names = _git("ls-files", "-z", "--", ".", ":(exclude)results", cwd=root).split("\0")
    files = {name: _sha256(root / name) for name in names if name and (root / name).is_file()}
    path = root / STAMP
    path.write_text(json.dumps({"commit": commit, "files": files}, indent=0, sort_keys=True) + "\n")
    return path


def check_committed(cfg: TrainConfig, root: Path = REPO_ROOT) -> None:
    """Refuse to start a run of the book's evidence (``EVIDENCE_PRESETS``) from uncommitted code: the
    store would count it as stale the moment it finished."""
    if cfg.name not in EVIDENCE_PRESETS:
        return
    commit, dirty = source_state(root)
    if dirty:
        where = ("this copy is neither a git checkout nor stamped (`python -m mope stamp` in the checkout it "
                 "comes from)" if commit == "unknown" else "the working tree has uncommitted changes")
        raise UserError(f"preset {cfg.name!r} stores the book's evidence, which must come from committed code, but "
                        f"{where}; run it from a clean clone or a committed checkout (`git status` shows what differs), "
                        f"or rehearse with --steps N (stored as {cfg.name}-stepsN)")
