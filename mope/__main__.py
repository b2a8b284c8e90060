"""``python -m mope``: the command line of :mod:`mope.cli`, with a clean start and a clean exit.

Ctrl-C while the interpreter starts (torch takes seconds to import) or while it shuts down (torch's
exit handlers) ends the process with one line and exit code 130, never a traceback; in between,
:func:`mope.cli.main` handles it (an interrupted run resumes from its last checkpoint).

A run started by ``suite --jobs N`` (``MOPE_SUITE_PID`` in its environment) asks the kernel to send it
SIGTERM when the suite dies, even by SIGKILL (Linux ``PR_SET_PDEATHSIG``), so that no run outlives
the suite that started it; its last checkpoint lets a later suite resume it.
"""
import os
import signal

EXIT_INTERRUPTED = 130
SUITE_PID = "MOPE_SUITE_PID"  # set by mope.suite for the runs it starts
_PR_SET_PDEATHSIG = 1


def _interrupted(signum, frame) -> None:
    os.write(2, b"mope: interrupted\n")
    os._exit(EXIT_INTERRUPTED)


def stop_with_suite() -> None:
    """In a run started by a suite: be sent SIGTERM when the suite dies; exit at once if it already has."""
    suite = os.environ.pop(SUITE_PID, None)  # not inherited further
    if not suite:
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the suite's own clean-up has to do
        return
    if str(os.getppid()) != suite:  # the suite died before the request took effect
        os._exit(128 + signal.SIGTERM)


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
