"""A run that cannot end silently: ``memspec run`` and ``memspec smoke`` work in a child
process, and this one only waits for it.

An in-process adapter (``python:``) runs in the harness's own process, so it can end it:
``os._exit(0)`` would stop the run with exit status 0 and no report, and CI would go
green; a thread it started and never stopped would keep the process alive after the
reports are written. So the command runs in a forked child that, once the command
returns, says so through a pipe, runs the exit handlers (which remove the run's
temporary folders and end its adapters) and exits at once, whatever threads are left.
A child that ends without saying so ended early: one line, exit status 3.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import traceback
from collections.abc import Callable

__all__ = ["run_guarded"]

_ENDED_EARLY = 3


def run_guarded(command: Callable[[], int]) -> int:
    """``command()``'s exit status, run in a child process (where ``fork`` exists)."""
    if not hasattr(os, "fork"):
        return command()
    finished, told = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(finished)
        _finish(command, told)
    os.close(told)
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: os.kill(child, signum))
    try:
        status = _wait(child)
    finally:
        signal.signal(signal.SIGTERM, previous)
    said = os.read(finished, 1)
    os.close(finished)
    if said:
        return said[0]
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


def _wait(child: int) -> int:
    while True:
        try:
            return os.waitpid(child, 0)[1]
        except InterruptedError:
            continue
        except KeyboardInterrupt:  # the child, in the same process group, got it too
            continue


def _status(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"
