"""A held lock: the harness stops holding it once a process waits for it, as the kernel's
list of locks shows, and holds it the step's whole ``hold_ms`` otherwise."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from memspec.corpus.step_forms import HeldLock
from memspec.run.held_lock import run_while_held, waited_for
from memspec.wire.adapters import Response

LOCKS = """\
1: FLOCK  ADVISORY  WRITE 27124 fe:00:2147127 0 EOF
1: -> FLOCK  ADVISORY  WRITE 27171 fe:00:2147127 0 EOF
2: POSIX  ADVISORY  WRITE 900 fe:00:55 0 EOF
"""

needs_proc_locks = pytest.mark.skipif(
    not os.path.exists("/proc/locks"), reason="host: the kernel lists no locks (not Linux)"
)


def test_a_waiter_is_read_from_the_kernels_list(tmp_path: Path) -> None:
    listed = tmp_path / "locks"
    listed.write_text(LOCKS)
    assert waited_for("fe:00:2147127", str(listed))
    assert not waited_for("fe:00:55", str(listed))  # held, but nobody waits
    assert not waited_for("fe:00:2147", str(listed))  # a whole inode, never a prefix
    assert not waited_for("fe:00:2147127", str(tmp_path / "none"))


def _writer(tmp_path: Path, *, waits: bool) -> Callable[[], Response]:
    """A process that writes ``data``, after taking the lock (waiting for it) when
    ``waits``."""
    (tmp_path / "lock").write_text("")
    (tmp_path / "data").write_text("old")
    script = f"open({str(tmp_path / 'data')!r}, 'w').write('new')\n"
    if waits:
        script = (
            "import fcntl, os\n"
            f"fd = os.open({str(tmp_path / 'lock')!r}, os.O_RDONLY)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n" + script
        )

    def call() -> Response:
        subprocess.run([sys.executable, "-c", script], check=True)
        return Response(result=0)

    return call


LOCK = HeldLock(path="lock", kind="flock", hold_ms=60_000)


@needs_proc_locks
def test_a_process_waiting_for_the_lock_ends_the_hold_early(tmp_path: Path) -> None:
    started = time.monotonic()
    held = run_while_held(LOCK, tmp_path, _writer(tmp_path, waits=True))
    assert held.changes == ()
    assert (tmp_path / "data").read_text() == "new"  # written once the lock was let go
    assert time.monotonic() - started < 30  # far from the whole minute of hold_ms


def test_a_writer_that_does_not_wait_is_caught(tmp_path: Path) -> None:
    held = run_while_held(LOCK, tmp_path, _writer(tmp_path, waits=False))
    assert held.changes
    assert "data" in held.changes[0]
