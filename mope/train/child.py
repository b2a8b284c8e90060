"""A run started by a suite (``suite --jobs N``): it stops when the suite that started it dies.

The suite (:mod:`mope.train.suite`) names itself in its child runs' environment (``MOPE_SUITE_PID``);
each child, at start-up (``python -m mope``, before torch loads, which is why this module imports
nothing heavy), asks the kernel to send it SIGTERM when the suite dies, even by SIGKILL (Linux
``PR_SET_PDEATHSIG``), so that no run outlives the suite that started it; its last checkpoint lets a
later suite resume it.
"""
import os
import signal

SUITE_PID = "MOPE_SUITE_PID"  # set by mope.train.suite for the runs it starts
_PR_SET_PDEATHSIG = 1


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
