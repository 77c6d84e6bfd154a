"""The host's processes as Linux's ``/proc`` shows them (none elsewhere): each one's
state and the fields after it in ``/proc/PID/stat``; and whether anything this process
started could still run (``still_running``)."""

from __future__ import annotations

import contextlib
import os
import platform
import signal
import sys
from collections.abc import Iterator

__all__ = ["adopt_subreaper", "own_threads", "processes", "stat_fields", "still_running"]

_SUBREAPER: list[int] = []


def stat_fields(pid: int | str) -> list[bytes] | None:
    """The fields of ``/proc/PID/stat`` after the command's name (state, parent, process
    group, session, ...), or None when the process is gone or cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rpartition(b")")[2].split()
    except OSError:
        return None


def processes() -> Iterator[tuple[int, list[bytes]]]:
    """Every process with its stat fields (``stat_fields``), as far as they can be read."""
    names: list[str] = []
    with contextlib.suppress(OSError):
        names = os.listdir("/proc")
    for name in names:
        if name.isdigit():
            fields = stat_fields(name)
            if fields is not None and len(fields) > 4:
                yield int(name), fields


def adopt_subreaper(pid: int) -> None:
    """Name the process that the processes this one leaves behind are handed to when
    their parent ends (``memspec run``, this process's parent, is the run's child
    subreaper)."""
    _SUBREAPER[:] = [pid]


def own_threads() -> frozenset[int]:
    """The threads of this process now (Linux; empty elsewhere)."""
    with contextlib.suppress(OSError):
        return frozenset(int(task) for task in os.listdir("/proc/self/task"))
    return frozenset()


# The calls a process that can do nothing until it is spoken to, or until a process that
# waits as it does ends, is blocked in: read(2), and wait4(2) or waitid(2).
_WAITING_CALLS = {"x86_64": ("0", ("61", "247")), "aarch64": ("63", ("260", "95"))}
_TIMER_SIGNALS = (signal.SIGALRM, signal.SIGVTALRM, signal.SIGPROF, signal.SIGIO)
"""Signals a process can have sent to itself later (``alarm``, ``setitimer``, ``O_ASYNC``):
one that catches any of them may wake up on its own."""


def still_running(threads_before: frozenset[int], stdin_pipes: frozenset[int]) -> str | None:
    """Why something the adapter started could still change a file, or None when
    nothing can until the harness speaks to it: this process runs no thread that was not
    in ``threads_before`` and catches no timer signal, and every other process this one
    started or left to the run's subreaper is single-threaded, sets itself no timer, and
    is blocked either reading its standard input, one of the pipes ``stdin_pipes``
    (inode numbers) that only the harness writes to, or waiting for its children."""
    calls = _WAITING_CALLS.get(platform.machine())
    if not sys.platform.startswith("linux") or calls is None:
        return f"processes cannot be seen on {sys.platform} {platform.machine()}"
    if not _SUBREAPER:
        return "no subreaper holds what the run's processes leave behind"
    started = own_threads() - threads_before
    if started:
        return f"{len(started)} thread(s) started during the run still run"
    me, subreaper = os.getpid(), _SUBREAPER[0]
    if _sets_itself_timers(me):
        return "this process catches a timer signal"
    living = {pid: int(fields[1]) for pid, fields in processes() if fields[0] not in (b"Z", b"X")}
    ancestors = {me}
    parent = living.get(me)
    while parent is not None and parent not in ancestors and parent != subreaper:
        ancestors.add(parent)
        parent = living.get(parent)
    if parent != subreaper:
        return "the run's subreaper is not an ancestor of this process"
    children: dict[int, list[int]] = {}
    for pid, parent_pid in living.items():
        children.setdefault(parent_pid, []).append(pid)
    left = [pid for pid in children.get(subreaper, []) if pid not in ancestors]
    started_here = [*children.get(me, []), *left]
    while started_here:
        pid = started_here.pop()
        busy = _busy(pid, calls, stdin_pipes)
        if busy is not None:
            return f"process {pid} {busy}"
        started_here.extend(children.get(pid, []))
    return None


def _busy(pid: int, calls: tuple[str, tuple[str, ...]], stdin_pipes: frozenset[int]) -> str | None:
    """Why the process ``pid`` could act on its own, or None when it waits as
    ``still_running`` asks."""
    read, waits = calls
    try:
        if len(os.listdir(f"/proc/{pid}/task")) != 1:
            return "runs more than one thread"
        with open(f"/proc/{pid}/syscall", encoding="ascii") as handle:
            call = handle.read().split()
        if _sets_itself_timers(pid):
            return "may wake up on a timer"
        if call[:1] and call[0] in waits:
            return None
        if call[:2] != [read, "0x0"]:
            return "is not waiting for the harness"
        link = os.readlink(f"/proc/{pid}/fd/0")
    except (OSError, ValueError):
        return "cannot be seen"
    if not (link.startswith("pipe:[") and int(link[6:-1]) in stdin_pipes):
        return "reads what the harness does not write"
    return None


def _sets_itself_timers(pid: int) -> bool:
    """Whether the process ``pid`` has a POSIX timer, or catches a signal a timer sends."""
    with open(f"/proc/{pid}/timers", encoding="ascii") as handle:
        if handle.read().strip():
            return True
    with open(f"/proc/{pid}/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("SigCgt:"):
                caught = int(line.split()[1], 16)
                return any(caught >> (int(number) - 1) & 1 for number in _TIMER_SIGNALS)
    return True
