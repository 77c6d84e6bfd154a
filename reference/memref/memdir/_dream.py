"""The consolidation ("dream") lock, the session count, and the gate that fires a dream.

The lock is ``<memory_dir>/.consolidate-lock``: its modification time is the
time of the last consolidation and its body the holder's PID.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass

from memref import _gopath
from memref._atomic import write_atomic
from memref._faults import mutation
from memref._gostr import decode, trim_space
from memref._time import NS_PER_HOUR
from memref.errors import OpError
from memref.memdir._constants import (
    DREAM_DEFAULT_MIN_HOURS,
    DREAM_DEFAULT_MIN_SESSIONS,
    DREAM_LOCK_FILE,
    DREAM_SCAN_THROTTLE_NS,
    DREAM_STALE_AFTER_NS,
)
from memref.memdir._fileio import (
    NotRegularFile,
    PathError,
    open_for_read,
    os_errno,
    read_at_most,
)
from memref.memdir._goclock import (
    ZERO_TIME_NS,
    go_hours,
    go_sub,
    is_zero,
    now_or_clock,
    wrap_int64,
)
from memref.memdir._paths import mkdir_all

__all__ = [
    "Acquired",
    "GateDecision",
    "count_touched_since",
    "gate_open",
    "read_last_consolidated_at",
    "rollback",
    "try_acquire",
]

_SESSIONS_DIR = "sessions"
_SESSION_SUFFIX = ".json"


def _lock_path(memory_dir: str) -> str:
    return _gopath.join(memory_dir, DREAM_LOCK_FILE)


def read_last_consolidated_at(memory_dir: str) -> int | None:
    """The lock's modification time (following links); ``None`` if there is none."""
    if not memory_dir:
        return None
    try:
        return os.stat(_lock_path(memory_dir)).st_mtime_ns
    except (OSError, ValueError):
        return None


@dataclass(frozen=True)
class Acquired:
    """The result of ``try_acquire``: the lock's earlier time (``None``: no lock) and success."""

    prior: int | None
    ok: bool


def _chtimes_ns(instant: int) -> int | None:
    # Go's Chtimes leaves a zero time untouched and passes others as wrapped int64 ns.
    return None if is_zero(instant) else wrap_int64(instant)


def _set_times(path: str, instant: int) -> None:
    # The entry's own times: a symlink's target outside the memory dir is never touched.
    value = _chtimes_ns(instant)
    if value is not None:
        with contextlib.suppress(OSError, ValueError, OverflowError, NotImplementedError):
            mutation("utime")
            os.utime(path, ns=(value, value), follow_symlinks=False)


def _write_lock(path: str, body: bytes, instant: int) -> bool:
    """Replace the lock, the body and the time together, by renaming a new file over its
    name in the memory directory. A symlink there is replaced, never followed, so nothing
    outside the memory directory is written; any other existing lock must open for
    writing, as evva's in-place write needs (a directory, a read-only file or a FIFO
    does not, and stays)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    except (OSError, ValueError):
        return False
    if info is not None and not stat.S_ISLNK(info.st_mode):
        try:
            probe = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
        except (OSError, ValueError):
            return False
        os.close(probe)
    try:
        write_atomic(path, body, mode=0o644, mtime_ns=_chtimes_ns(instant))
    except (OSError, ValueError, OverflowError):
        return False
    return True


def try_acquire(memory_dir: str, now: int | None = None, pid: int | None = None) -> Acquired:
    """Claim the lock unless it was stamped less than an hour before ``now``.

    A lock time in the future counts as fresh. On success the body is the PID
    (no newline) and the time is ``now``; ``prior`` is the time it had before.
    """
    if not memory_dir:
        return Acquired(None, False)
    now = now_or_clock(now)
    body = str(os.getpid() if pid is None else pid)
    path = _lock_path(memory_dir)
    prior = read_last_consolidated_at(memory_dir)
    if prior is not None and now - prior < DREAM_STALE_AFTER_NS:
        return Acquired(prior, False)
    if mkdir_all(memory_dir) is not None:
        return Acquired(prior, False)
    if not _write_lock(path, body.encode(), now):
        return Acquired(prior, False)
    try:
        fd = open_for_read(path, allow_dir=False)
        try:
            content = read_at_most(fd, 1 << 16)
        finally:
            os.close(fd)
    except (OSError, ValueError, NotRegularFile):
        return Acquired(prior, False)
    return Acquired(prior, trim_space(decode(content)) == body)


def rollback(memory_dir: str, prior: int | None) -> None:
    """Undo an acquire: remove the lock when there was none, else empty it and restore
    its time to ``prior``. Failures are ignored."""
    if not memory_dir:
        return
    path = _lock_path(memory_dir)
    if prior is None or is_zero(prior):
        _remove(path)
        return
    if not _write_lock(path, b"", prior):
        _set_times(path, prior)


def _remove(path: str) -> None:
    # Go's os.Remove: unlink, and failing that rmdir (an empty directory goes too).
    try:
        mutation("unlink")
        os.unlink(path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError, ValueError):
            mutation("rmdir")
            os.rmdir(path)


def _read_dir_error(root: str, exc: BaseException) -> OpError:
    error = PathError("open", root, os_errno(exc))
    return OpError(error.kind, f"session: read sessions root {root}: {error}")


def count_touched_since(app_home: str, since: int | None, exclude_id: str) -> int:
    """Session files ``<app_home>/sessions/<slug>/<id>.json`` modified after ``since``.

    Only real directories one level down are searched; ``<exclude_id>.json`` is
    not counted; modification times are the entries' own (links not followed),
    and with ``since`` of ``None`` every file counts. A missing sessions directory
    is 0; any other failure to read it raises ``OpError``.
    """
    if not app_home:
        return 0
    root = _gopath.join(app_home, _SESSIONS_DIR)
    try:
        with os.scandir(root) as iterator:
            slugs = [entry for entry in iterator if _is_real_dir(entry)]
    except (OSError, ValueError) as exc:
        if os_errno(exc) == errno.ENOENT:
            return 0
        raise _read_dir_error(root, exc) from exc
    exclude = exclude_id + _SESSION_SUFFIX if exclude_id else None
    count = 0
    for slug in slugs:
        try:
            with os.scandir(_gopath.join(root, slug.name)) as iterator:
                files = list(iterator)
        except (OSError, ValueError):
            continue
        for file in files:
            name = file.name
            if _is_real_dir(file) or _extension(name) != _SESSION_SUFFIX or name == exclude:
                continue
            try:
                mtime = file.stat(follow_symlinks=False).st_mtime_ns
            except OSError:
                continue
            if since is None or is_zero(since) or mtime > since:
                count += 1
    return count


def _is_real_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _extension(name: str) -> str:
    # Go's filepath.Ext: from the last dot of the final element.
    dot = name.rfind(".")
    return name[dot:] if dot >= 0 else ""


@dataclass(frozen=True)
class GateDecision:
    """The outcome of ``gate_open``.

    ``new_scan_at`` is the scan-throttle cursor to keep (``None``: Go's zero time);
    ``error`` is set when counting sessions failed.
    """

    fire: bool
    prior: int | None
    sessions: int
    reason: str
    new_scan_at: int | None
    error: OpError | None = None


def gate_open(
    *,
    enabled: bool,
    min_hours: int,
    min_sessions: int,
    app_home: str,
    memory_dir: str,
    current_session_id: str,
    now: int | None = None,
    last_scan_at: int | None = None,
    pid: int | None = None,
) -> GateDecision:
    """Decide whether a dream fires, checking the cheapest conditions first:
    enabled, memory directory, time since the last dream, scan throttle, session
    count, and last the lock, which a firing gate holds on return."""
    now = now_or_clock(now)
    scan_at = None if is_zero(last_scan_at) else last_scan_at
    if not enabled:
        return GateDecision(False, None, 0, "disabled", scan_at)
    if not memory_dir:
        return GateDecision(False, None, 0, "no memory dir", scan_at)
    last = read_last_consolidated_at(memory_dir)
    hours = min_hours if min_hours > 0 else DREAM_DEFAULT_MIN_HOURS
    if last is not None and now - last < hours * NS_PER_HOUR:
        return GateDecision(False, None, 0, "time-gate not reached", scan_at)
    if scan_at is not None and now - scan_at < DREAM_SCAN_THROTTLE_NS:
        return GateDecision(False, None, 0, "scan-throttled", scan_at)
    scan_at = None if is_zero(now) else now
    sessions_needed = min_sessions if min_sessions > 0 else DREAM_DEFAULT_MIN_SESSIONS
    try:
        count = count_touched_since(app_home, last, current_session_id)
    except OpError as exc:
        return GateDecision(False, None, 0, "session-scan error", scan_at, exc)
    if count < sessions_needed:
        reason = f"session-gate ({count}/{sessions_needed})"
        return GateDecision(False, None, count, reason, scan_at)
    acquired = try_acquire(memory_dir, now, pid)
    if not acquired.ok:
        return GateDecision(False, None, count, "lock held", scan_at)
    # Without a lock evva measures from Go's zero time, and the Duration saturates.
    since_last = go_sub(now, ZERO_TIME_NS if last is None else last)
    reason = f"fire — {count} sessions, {go_hours(since_last):.0f}h since last"
    return GateDecision(True, acquired.prior, count, reason, scan_at)
