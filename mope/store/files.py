"""How the store opens and writes its files (results, checkpoints, the vocabularies runs are trained on, the
book's downloads): a write is atomic (:func:`atomic_write`: a reader sees the old file or the new one, never
half of one) and the temporary files a killed writer left are cleaned (:func:`remove_stale_temporaries`); a
read opens only a regular file (:func:`read_regular_file`: a symbolic link is not followed, a FIFO never waited
on) of at most the size its kind can be; a stale or damaged file is moved aside, never deleted (:func:`set_aside`);
and while a run trains, the lock file beside its result is held (:func:`run_lock`), so that two processes sharing
one store (two suites, two clones) never train the same run at once."""
from __future__ import annotations

import contextlib
import errno
import fcntl
import glob
import os
import stat
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from mope.errors import UserError, shown

SET_ASIDE_SUFFIX = ".set-aside-"  # seed0.json.set-aside-20261130T101500Z: kept, never read again
TEMPORARY_SUFFIX = ".tmp"  # seed0.json.k3j2x_.tmp: being written (atomic_write)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: Path, write) -> None:
    """Write ``path`` through ``write(binary_file)`` into a temporary file beside it, then rename it into
    place: a reader sees the old file or the new one, never half of one.

    The file gets the permissions of any other output (0666 less the umask, usually 0644), not
    ``mkstemp``'s 0600. The temporary file is locked while it is written, so that
    :func:`remove_stale_temporaries` can tell one left by a killed writer from one being written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=TEMPORARY_SUFFIX)
    try:
        with os.fdopen(handle, "wb") as file:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX)
            write(file)
            file.flush()
            os.fchmod(file.fileno(), 0o666 & ~_umask())
            os.replace(temporary, path)  # still locked: a cleaner never takes a file being renamed
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def remove_stale_temporaries(path: Path) -> list[Path]:
    """Delete the temporary files of :func:`atomic_write` for ``path`` that no live writer holds (left
    by a writer killed with SIGKILL mid-write); return them. A file another process is writing right
    now is locked and kept."""
    removed = []
    for candidate in sorted(path.parent.glob(glob.escape(path.name) + ".*" + TEMPORARY_SUFFIX)):
        try:
            if not is_regular_file(candidate):
                continue  # a FIFO would block the open for good; a link or folder is not ours
            with open(candidate, "rb", opener=_no_follow) as file:
                fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)  # held by a live writer: BlockingIOError
                candidate.unlink()
            removed.append(candidate)
        except OSError:
            continue
    return removed


def is_regular_file(path: Path) -> bool:
    """Whether ``path`` itself (a symbolic link not followed) is a regular file: the only kind the store
    opens. A FIFO would block its reader for good, a link may point anywhere, a folder cannot be read."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _no_follow(path, flags: int) -> int:
    """``open``'s opener for files of the store: never through a symbolic link, never blocking on a FIFO."""
    return os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK)


def set_aside(path: Path) -> Path:
    """Move a stale or damaged file out of the way (never delete it); return where it went."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    target = path.with_name(path.name + SET_ASIDE_SUFFIX + stamp)
    os.replace(path, target)
    return target


class IrregularFile(OSError):
    """A file the store does not open: not a regular file, or larger than a file of its kind can be."""


def read_regular_file(path: Path, max_bytes: int, what: str) -> bytes:
    """The bytes of ``path``, opened as every file of the store is (results, and the vocabularies runs
    are trained on): only a regular file, a symbolic link not followed and a FIFO never waited on,
    and none larger than ``max_bytes`` (``what``: the largest file of its kind, for the message).
    :class:`IrregularFile` says what it is instead; any other OSError is the system's."""
    kind = _file_kind(os.lstat(path).st_mode)
    if kind is not None:
        raise IrregularFile(f"not a regular file ({kind})")
    with open(path, "rb", opener=_no_follow) as file:
        opened = os.fstat(file.fileno())
        if not stat.S_ISREG(opened.st_mode):  # replaced since the lstat above
            raise IrregularFile(f"not a regular file ({_file_kind(opened.st_mode)})")
        if opened.st_size > max_bytes:
            raise IrregularFile(f"{opened.st_size:,} bytes, larger than {what} "
                                f"(a reader opens at most {max_bytes // 2**20} MiB)")
        return file.read(max_bytes + 1)


def _file_kind(mode: int) -> str | None:
    """None for a regular file, else what it is instead."""
    if stat.S_ISREG(mode):
        return None
    for test, kind in ((stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device")):
        if test(mode):
            return kind
    return "not a file"


LOCK_SUFFIX = ".lock"  # seed0.json.lock beside the result: held while the run trains


@contextlib.contextmanager
def run_lock(result: Path, run: str):
    """Hold the lock of the run whose result is ``result``: an exclusive ``flock`` on the file ``{result}.lock``
    beside it, waited for (with a notice on stderr naming the file) while another process holds it. It lies
    with the result, so that one store means one lock whatever checkpoint folder each user names. It is taken
    on a read-only descriptor: another user of a shared store, who may read the file but not write it, locks it
    all the same. The kernel releases it when the process ends, however it ends (an exception, a signal,
    SIGKILL), so that two suites on one store never train one run at once. Once the run is over (stored, failed or
    stopped) its holder removes the file; a process that was waiting on that file finds, once it holds its lock, that the path is
    no longer the file it locked, and locks the path anew (so no two processes ever hold the run at once). What
    is at its path that is not a regular file (a folder, a FIFO, a link) is set aside first."""
    path = result.with_name(result.name + LOCK_SUFFIX)
    waited = False
    while True:
        try:  # created if absent, opened if there, in one step: whoever creates it, all open the same file
            handle = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
        except OSError as error:
            if error.errno in (errno.ELOOP, errno.EISDIR):  # a link, a folder
                _set_aside_irregular(path, None)
                continue
            raise UserError(f"cannot open the lock file {shown(path)} of {run} ({error.strerror}): make its folder "
                            "writable to you, or train into a store of your own (--results-dir)") from None
        opened = os.fstat(handle)
        if not stat.S_ISREG(opened.st_mode):  # a FIFO, a device: what was opened, never a path looked at twice
            os.close(handle)
            _set_aside_irregular(path, opened)
            continue
        try:
            if not _flock(handle, path, run, quiet=waited):
                waited = True
                continue
            try:
                yield path
            finally:  # the run is stored, failed or stopped: over, here
                _remove_lock(path)
            return
        finally:
            os.close(handle)  # releases the lock


def _set_aside_irregular(path: Path, opened: os.stat_result | None) -> None:
    """Set aside what lies at a lock's ``path`` that is not a regular file (``opened``, when it was opened), with a
    notice. It is judged by what is there now, never by a path that was looked at before: the
    lock file a holder removes as its run ends, and another creates, is never taken for one (two processes held the
    lock when a waiter saw the path vanish between two looks and set the next holder's file aside)."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISREG(found.st_mode) or opened is not None and not os.path.samestat(found, opened):
        return
    try:
        moved = set_aside(path)
    except FileNotFoundError:  # another waiter set it aside first
        return
    print(f"notice: lock file {shown(path)} was not a regular file; kept as {shown(moved.name)}", file=sys.stderr)


def _flock(handle: int, path: Path, run: str, quiet: bool) -> bool:
    """Lock ``handle`` (the file at ``path``) exclusively, waiting for another holder with a notice; False when,
    once locked, ``path`` is no longer that file (its holder removed it when the run ended: lock anew)."""
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not quiet:
                print(f"notice: another process is training {run} ({shown(path)} is locked); waiting for it "
                      "(stop that process to train here)", file=sys.stderr)
            fcntl.flock(handle, fcntl.LOCK_EX)
    except OSError as error:  # ENOLCK, EOPNOTSUPP: a file system without locks (some network mounts)
        raise UserError(f"cannot lock {shown(path)} for {run} ({error.strerror}): its file system does not "
                        "support locks; put the store on a local disk (--results-dir)") from None
    try:
        return os.path.samestat(os.fstat(handle), os.stat(path, follow_symlinks=False))
    except FileNotFoundError:
        return False


def _remove_lock(path: Path) -> None:
    """Remove a run's lock file while holding it (the run is over); where the folder is not ours to change, it
    stays, harmless."""
    with contextlib.suppress(OSError):
        os.unlink(path)
