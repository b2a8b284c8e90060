"""``python -m mope``: the command line of :mod:`mope.cli`, with a clean start and a clean exit.

Ctrl-C while the command starts (from the first line of the package, ``mope/__init__.py``, which imports
nothing; torch takes seconds to import) or while it shuts down (torch's exit handlers) ends the process
with one line and exit code 130, never a traceback; in between,
:func:`mope.cli.main` handles it (an interrupted run resumes from its last checkpoint).

A run started by ``suite --jobs N`` stops when the suite dies (:mod:`mope.train.child`).
"""
import signal

from mope import _end_interrupted as _interrupted  # set from the package's first line
from mope.train.child import stop_with_suite  # light: no torch


def main() -> None:
    ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # e.g. started with `&` by a script: keep it so
    if not ignored:
        signal.signal(signal.SIGINT, _interrupted)  # start-up: the imports below take seconds
    stop_with_suite()
    from mope.cli import main as cli_main

    if not ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        cli_main()
    finally:
        if not ignored:
            signal.signal(signal.SIGINT, _interrupted)  # shut-down: the exit handlers of torch and others


if __name__ == "__main__":
    main()
