"""The repository's git history, as the tests that check a page's or a rule's word against it read it."""
from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def git(*args: str) -> subprocess.CompletedProcess:
    """``git -C <repository> args``, its output as text (the caller reads its return code)."""
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)


def git_output(*args: str) -> str:
    """The output of ``git -C <repository> args``; a CalledProcessError where git fails."""
    done = git(*args)
    done.check_returncode()
    return done.stdout
