"""The package's build backend: setuptools' own, with its wheel made reproducible (pyproject.toml:
``build-system``).

Two builds of one tree give the same wheel, byte for byte, whenever, wherever and by whomever they run.
setuptools already writes the same files in the same order with the same contents each time; what differs
is rewritten here, entry by entry, once the wheel is built: each entry's time stamp (the file's modification
time, in a clone the time of the clone) becomes ``$SOURCE_DATE_EPOCH`` where the caller sets one, else
1980-01-01, the first time a zip entry can hold; and its mode (which follows the builder's umask) becomes
0644, or 0755 for a file executable by anyone. The contents, and so the hashes in ``RECORD``, are untouched.
tests/test_wheel.py builds the wheel twice, at two times and under two umasks, and compares.
"""
from __future__ import annotations

import os
import stat
import time
import zipfile
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403 (the other hooks of PEP 517 and 660, unchanged)

ZIP_EPOCH = 315532800  # 1980-01-01T00:00:00Z, the earliest time stamp a zip entry can hold


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """setuptools' wheel, its time stamps and file modes made the same for every build (module docstring)."""
    name = _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
    normalise(Path(wheel_directory) / name)
    return name


def normalise(wheel: Path) -> None:
    """Rewrite the zip file ``wheel`` in place with fixed time stamps and modes, its entries in their order."""
    stamp = time.gmtime(max(int(os.environ.get("SOURCE_DATE_EPOCH", ZIP_EPOCH)), ZIP_EPOCH))[:6]
    rewritten = wheel.with_name(wheel.name + ".tmp")
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(rewritten, "w", zipfile.ZIP_DEFLATED) as target:
        for entry in source.infolist():
            executable = (entry.external_attr >> 16) & 0o111
            fixed = zipfile.ZipInfo(entry.filename, date_time=stamp)
            fixed.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
            fixed.compress_type = zipfile.ZIP_DEFLATED
            target.writestr(fixed, source.read(entry))
    rewritten.replace(wheel)
