"""A run that cannot end silently: ``memspec run`` and ``memspec smoke`` work in a child
process, and this one only waits for it.

An in-process adapter (``python:``) runs in the harness's own process, so it can end it:
``os._exit(0)`` would stop the run with exit status 0 and no report, and CI would go
green; a thread it started and never stopped would keep the process alive after the
reports are written. So the command runs in a forked child that, once the command
returns, says so through a pipe, runs the exit handlers (which remove the run's
temporary folders and end its adapters) and exits at once, whatever threads are left.
A child that ends without saying so ended early: one line, exit status 3.

This process is also the run's *child subreaper* (Linux): a process the run started and
left behind, even one that double-forked into a session of its own, becomes its child
when its parent dies, and is killed once the run has ended. This catches what a
``python:`` adapter leaves, and what a ``cmd:`` adapter leaves where no PID namespace
holds it (``memspec.wire.adapters.confinement``).

Every temporary folder of the run (case trees, scratch folders, the adapters' working
directory) is made in a folder of its own that this process made and removes when the
run has ended, however it ended: a run that an adapter ended early leaves nothing
behind either.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import select
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from memspec.run.trees import remove_tree
from memspec.wire.processes import adopt_subreaper, processes
from memspec.wire.working_directory import adopt_run_folder, scratch_base

__all__ = ["run_guarded"]

_ENDED_EARLY = 3


def run_guarded(command: Callable[[], int]) -> int:
    """``command()``'s exit status, run in a child process (where ``fork`` exists)."""
    if not hasattr(os, "fork"):
        return command()
    subreaper = _become_subreaper()
    # 0711: an adapter running as another user reaches its folders inside, no more.
    folders = Path(tempfile.mkdtemp(prefix="memspec-run-", dir=scratch_base())).resolve()
    os.chmod(folders, 0o711)
    finished, told = os.pipe()
    # Blocked before the fork, so that no signal meant for the run is lost in between;
    # the child unblocks them at once, this process takes them with sigtimedwait.
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _FORWARDED)
    child = os.fork()
    if child == 0:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        os.close(finished)
        tempfile.tempdir = str(folders)
        adopt_run_folder(folders)
        if subreaper:
            adopt_subreaper(os.getppid())
        _finish(command, told)
    os.close(told)
    try:
        status = _wait(child)
        _end_strays()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        remove_tree(folders)
    # A stray that escaped the subreaper may hold the pipe open: never wait on it.
    said = os.read(finished, 1) if select.select([finished], [], [], 1)[0] else b""
    os.close(finished)
    if said:
        return said[0]
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) in _FORWARDED:
        # Stopped before it could catch the signal (at its very start): interrupted.
        print("memspec: interrupted", file=sys.stderr)
        return 128 + os.WTERMSIG(status)
    print(
        "memspec: error: the run ended before it was done (an in-process adapter ended the "
        f"process, or it was killed: {_status(status)}); no report was written",
        file=sys.stderr,
    )
    return _ENDED_EARLY


def _finish(command: Callable[[], int], told: int) -> None:
    code = 1
    try:
        code = command()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        with contextlib.suppress(BaseException):
            atexit._run_exitfuncs()
        os.write(told, bytes([code & 0xFF]))
        os._exit(code & 0xFF)


_FORWARDED = {signal.SIGINT, signal.SIGTERM}
_SI_KERNEL = 0x80
"""The si_code of a signal the terminal sent (Ctrl-C): to the whole foreground process
group, the child included, so it is not sent again."""


def _wait(child: int) -> int:
    """The child's status once it ends; each SIGTERM, and each SIGINT not from the
    terminal (a ``kill`` of this process), passed on to it meanwhile."""
    while True:
        ended = _reap(child)
        if child in ended:
            return ended[child]
        got = signal.sigtimedwait(_FORWARDED, 0.05)
        if got is not None and not (got.si_signo == signal.SIGINT and got.si_code == _SI_KERNEL):
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, got.si_signo)


_PR_SET_CHILD_SUBREAPER = 36


def _become_subreaper() -> bool:
    """Whether this process is now the child subreaper of what it starts."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    return False


def _reap(run: int = 0) -> dict[int, int]:
    """The status of each child that has ended, by pid (the run, or a stray it left).
    The ``run`` stopped by SIGSTOP, which only a process of the run itself sends (the
    terminal stops with SIGTSTP), is continued: an adapter cannot hang the run so."""
    ended = {}
    with contextlib.suppress(ChildProcessError):
        while True:
            pid, status = os.waitpid(-1, os.WNOHANG | os.WUNTRACED)
            if pid == 0:
                break
            if os.WIFSTOPPED(status):
                if pid == run and os.WSTOPSIG(status) == signal.SIGSTOP:
                    os.kill(run, signal.SIGCONT)
                continue
            ended[pid] = status
    return ended


def _end_strays() -> None:
    """Kill and reap every process left as this one's child (for at most 2 s: one that
    forks as fast as it is killed is left)."""
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        strays = _children()
        if not strays:
            return
        for pid in strays:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)
        _reap()


def _children() -> list[int]:
    me = os.getpid()
    return [pid for pid, fields in processes() if int(fields[1]) == me and fields[0] != b"Z"]


def _status(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"
