"""The tracer: ``strace`` attached to an adapter's processes for one request, following
every process and thread they start, writing each mutating call it sees, and failing or
killing the one asked for.

It attaches for the request and detaches after the reply, so that ``when=K`` counts from
the request's start: the ordinals of a call are those ``trace.parse_calls`` gives it.
strace counts ``when`` in every thread it traces, each on its own: a fault is injected
with the tracer attached to the one process that made the call (and what it starts), so
that a wrapper's own writes to its child, counted alike, are left alone.
"""

from __future__ import annotations

import contextlib
import functools
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from memspec.observe.trace import MUTATING, Call, parse_calls

__all__ = [
    "DELAYS",
    "Fault",
    "ObserverFault",
    "Tracing",
    "attached",
    "delayed",
    "threads",
    "unavailable_reason",
]

DELAY_WINDOW_S = 0.25
"""How long a step is slowed: the workers of a concurrent step start together, and a
reader starts before the step, so that their races happen at its start."""
DELAY_US = 3000
"""How long a delayed call waits: long beside a loop of a few system calls (a writer's
read, a reader's open), short beside a request."""
_RENAMES = ("rename", "renameat", "renameat2", "link", "linkat")
_WRITES = ("openat", "creat", "write", "pwrite64", "writev", "ftruncate")
DELAYS = (
    f"--inject={','.join(_RENAMES)}:delay_enter={DELAY_US}",
    f"--inject={','.join(_WRITES)}:delay_exit={DELAY_US}",
)
"""Where a lost update or a torn reading happens: a writer that read a file waits before
its rename puts its copy in place (another writer reads the same old state meanwhile); a
writer waits after an open that may create or truncate a file and after a write of its
content (a reader sees it empty or half written). Only these calls are traced then."""

HOLD_US = 2_000_000
"""How long a held call waits at most: the harness releases it long before."""
_ATTACH_TIMEOUT_S = 10.0
_DETACH_GRACE_S = 1.0
"""How long strace may take to detach before it is killed. It can wait for ever on a
process in ``vfork`` whose child is stopped for strace itself (a ``git`` a slowed step
starts); once strace is killed, the kernel lets every process it traced go on."""
_SLOWED_GRACE_S = 0.1
"""The same for a slowed step, whose trace is not read: it is not worth a wait."""
_DETACH_TIMEOUT_S = 10.0
_REAPED_WITHIN_S = 0.05


class ObserverFault(Exception):
    """The tracer could not attach, or ended without a trace."""


@dataclass(frozen=True)
class Fault:
    """What the tracer does to one call: ``error`` (it fails with EIO and has no effect),
    ``kill`` (it has no effect, and the process is killed by SIGKILL) or ``hold`` (the
    process waits before making it until the tracer detaches, ``HOLD_US`` at most)."""

    call: Call
    model: str = "error"
    paths: tuple[str, ...] = ()
    """When given, strace counts (and traces) only the calls naming one of these paths
    (``-P``), and ``ordinal`` counts those alone."""
    ordinal: int = 0

    def options(self) -> list[str]:
        action = {
            "error": "error=EIO",
            "kill": "error=EIO:signal=KILL",
            "hold": f"delay_enter={HOLD_US}",
        }[self.model]
        when = self.ordinal or self.call.ordinal
        pinned = [word for path in self.paths for word in ("-P", path)]
        return [f"--inject={self.call.name}:{action}:when={when}", *pinned]


@dataclass
class Tracing:
    """What one traced request did; filled in when the tracer has detached."""

    calls: list[Call] = field(default_factory=list)
    owners: dict[int, int] = field(default_factory=dict)
    """The process of each thread that was there when the tracer attached."""
    detach: Callable[[], None] = lambda: None
    """Detach the tracer now, before the block ends (a call it holds then goes on)."""
    output: Path | None = None
    """The file the tracer writes, a line as each call enters (while the block runs)."""

    def entered(self) -> list[Call]:
        """The calls entered so far: the last may be held by the tracer, not yet made."""
        if self.output is None:
            return []
        try:
            return parse_calls(self.output.read_text("utf-8", "replace"))
        except OSError:
            return []


@functools.cache
def unavailable_reason() -> str | None:
    """Why the tracer cannot run on this host, or None when it can: it must be Linux,
    ``strace`` must be on PATH, and it must be allowed to attach to a child of ours."""
    if not sys.platform.startswith("linux"):
        return f"the observer needs Linux (this is {sys.platform})"
    if shutil.which("strace") is None:
        return "strace is not installed"
    child = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        with contextlib.suppress(ObserverFault), attached((child.pid,), None):
            return None
        return "strace may not attach to a process here (ptrace is refused)"
    finally:
        child.kill()
        child.wait()


@contextlib.contextmanager
def delayed(pids: tuple[int, ...], seconds: float = DELAY_WINDOW_S) -> Iterator[None]:
    """The processes ``pids`` slowed where races happen (``DELAYS``) for the first
    ``seconds`` of the block: the tracer then detaches, so that the rest of a long step
    runs at full speed (each system call of a traced process stops for the tracer). The
    threads they start meanwhile are slowed too (a pool's worker that had ended, started
    anew for the step), and so is what they start."""
    with attached(pids, None, DELAYS, grace_s=_SLOWED_GRACE_S) as tracing:
        timer = threading.Timer(seconds, _detached_quietly, (tracing,))
        timer.start()
        try:
            yield
        finally:
            timer.cancel()


def _detached_quietly(tracing: Tracing) -> None:
    """``tracing.detach()`` from a timer: a tracer that will not end is the block's to
    report, when it ends."""
    with contextlib.suppress(ObserverFault):
        tracing.detach()


def threads(pid: int) -> tuple[int, ...]:
    """The threads of the process ``pid``."""
    return tuple(int(task) for task in _tasks(pid))


def _tasks(pid: int) -> list[str]:
    try:
        return os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []


def _traced_by(pid: int, task: str, tracer: int) -> bool:
    try:
        with open(f"/proc/{pid}/task/{task}/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("TracerPid:"):
                    return int(line.split()[1]) == tracer
    except OSError:
        return True  # the thread is gone: nothing left to wait for
    return False


def _wait_attached(
    tracer: subprocess.Popen[bytes], pids: tuple[int, ...], said: Path, follow: bool = True
) -> None:
    """Wait until the tracer holds every thread of ``pids`` (``follow``), or each of the
    threads ``pids`` alone, and has said so (in the file ``said``, its standard error).

    A thread is the tracer's from the moment it is seized, but its calls are traced only
    once the tracer has also interrupted it: on a loaded machine the tracer may lose the
    processor between the two, and a request sent then would run untraced. The tracer
    says a process is attached after both."""
    deadline = time.monotonic() + _ATTACH_TIMEOUT_S
    tasks = [(pid, task) for pid in pids for task in (_tasks(pid) if follow else [str(pid)])]
    while not (
        all(_traced_by(pid, task, tracer.pid) for pid, task in tasks)
        and _attached_said(said) >= len(pids)
    ):
        if tracer.poll() is not None:
            raise ObserverFault(f"strace exited at once (status {tracer.returncode})")
        if time.monotonic() > deadline:
            raise ObserverFault(f"strace did not attach within {_ATTACH_TIMEOUT_S:g} s")
        time.sleep(0.0005)


def _attached_said(said: Path) -> int:
    try:
        return said.read_text("utf-8", "replace").count(" attached")
    except OSError:
        return 0


def _interrupt(tracer: subprocess.Popen[bytes]) -> None:
    if tracer.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            tracer.send_signal(signal.SIGINT)


def _detach(tracer: subprocess.Popen[bytes], grace_s: float = _DETACH_GRACE_S) -> None:
    """Ask strace to detach, and kill it when it has not within ``grace_s``."""
    _interrupt(tracer)
    if _ended(tracer, grace_s):
        return
    tracer.kill()
    if not _ended(tracer, _DETACH_TIMEOUT_S):
        raise ObserverFault("strace did not end when killed")


def _ended(tracer: subprocess.Popen[bytes], timeout_s: float) -> bool:
    """Whether ``tracer`` ended within ``timeout_s`` (then it is reaped). Woken by the
    tracer's end where a pidfd can be had (Linux 5.3), instead of polling for it."""
    deadline = time.monotonic() + timeout_s
    try:
        pidfd = os.pidfd_open(tracer.pid) if tracer.returncode is None else -1
    except (AttributeError, OSError):  # no pidfd here, or reaped by another thread
        pidfd = -1
    if pidfd >= 0:
        try:
            select.select([pidfd], [], [], timeout_s)
        finally:
            os.close(pidfd)
    # Another thread may be reaping it (a slowed step's timer detaches as the step ends):
    # Popen.wait then waits for that thread, so it is given a moment even past the end.
    try:
        tracer.wait(timeout=max(deadline - time.monotonic(), 0.0) + _REAPED_WITHIN_S)
    except subprocess.TimeoutExpired:
        return False
    return True


@contextlib.contextmanager
def attached(
    pids: tuple[int, ...],
    fault: Fault | None,
    extra: tuple[str, ...] = (),
    follow: bool = True,
    traced: tuple[str, ...] = MUTATING,
    grace_s: float = _DETACH_GRACE_S,
) -> Iterator[Tracing]:
    """Trace the calls ``traced`` of the processes ``pids`` (and, when ``follow``, of
    every thread and process they start) inside the block, failing or killing the call
    ``fault`` names (and injecting what ``extra`` asks); the calls seen are in the yielded
    ``Tracing`` once the block has ended (``Tracing.output`` holds them as they come).
    Without ``follow``, ``pids`` are threads, each traced alone. strace that has not
    detached ``grace_s`` after it was asked is killed."""
    tracing = Tracing(owners={int(task): pid for pid in pids for task in _tasks(pid)})
    with tempfile.TemporaryDirectory(prefix="memspec-trace-") as folder:
        output = Path(folder) / "trace"
        tracing.output = output
        said = Path(folder) / "said"
        # Not -q: the tracer's word that it attached is what the block waits for.
        argv = ["strace", *(["-f"] if follow else []), "-y", "-s", "0", "-o", str(output)]
        if extra == DELAYS:
            traced = (*_RENAMES, *_WRITES)
        argv += ["-e", "trace=" + ",".join(f"?{name}" for name in traced)]
        if fault is not None:
            argv += fault.options()
        argv += extra
        for pid in pids:
            argv += ["-p", str(pid)]
        with said.open("wb") as stderr:
            tracer = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr
            )
        tracing.detach = functools.partial(_detach, tracer, grace_s)
        try:
            _wait_attached(tracer, pids, said, follow)
            yield tracing
        finally:
            _detach(tracer, grace_s)
        tracing.calls = parse_calls(output.read_text("utf-8", "replace"))
