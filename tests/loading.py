"""A script or a book extension imported from its file, as the tests of a file outside the package need it."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load(name: str, path: Path):
    """The module at ``path`` (relative to the repository's root, or absolute), imported under ``name``."""
    spec = importlib.util.spec_from_file_location(name, ROOT / path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # a dataclass or a pickle in the module looks its module up by name
    spec.loader.exec_module(module)
    return module
