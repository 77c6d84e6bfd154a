"""What ``memspec.wire.processes.still_running`` says of one arrangement of processes,
made as ``memspec run`` makes its own: this process is the child subreaper, its child is
the run, which starts what the arrangement names and then asks.

Usage: ``python quiet_probe.py ARRANGEMENT``; prints the answer, or ``quiet``.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time

from memspec.wire.processes import adopt_subreaper, own_threads, still_running

_READS_STDIN = "import sys; sys.stdout.write('r'); sys.stdout.flush(); sys.stdin.read()"
_PYTHON_CHILDREN = {
    "reads-its-requests": _READS_STDIN,
    "reads-elsewhere": _READS_STDIN,
    "sleeps": "import sys, time; sys.stdout.write('r'); sys.stdout.flush(); time.sleep(60)",
    "two-threads": (
        "import sys, threading, time; threading.Thread(target=time.sleep, args=(60,),"
        " daemon=True).start(); " + _READS_STDIN
    ),
    "alarm": "import signal; signal.signal(signal.SIGALRM, print); " + _READS_STDIN,
    "waits-for-its-child": (
        "import subprocess, sys; subprocess.run([sys.executable, '-c', " + repr(_READS_STDIN) + "])"
    ),
}


def _blocked(pid: int) -> None:
    """Wait until the process ``pid`` (or its child) is blocked in a call."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/syscall", encoding="ascii") as handle:
                if not handle.read().startswith("running"):
                    return
        except OSError:
            return
        time.sleep(0.01)


def _arrange(name: str) -> tuple[frozenset[int], list[object]]:
    """Start what ``name`` asks; the pipes the harness would write to, and what must stay
    referenced meanwhile."""
    kept: list[object] = []
    if name == "nothing":
        return frozenset(), kept
    if name == "thread":
        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
        return frozenset(), kept
    if name == "zombie":
        child = subprocess.Popen([sys.executable, "-c", "pass"])
        while _state(child.pid) != "Z":
            time.sleep(0.01)
        kept.append(child)
        return frozenset(), kept
    if name == "orphan":
        leaves = "import os, time\nif os.fork() == 0:\n    os.setsid(); time.sleep(60)"
        subprocess.run([sys.executable, "-c", leaves], check=True)
        return frozenset(), kept
    child = subprocess.Popen(
        [sys.executable, "-c", _PYTHON_CHILDREN[name]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    kept.append(child)
    assert child.stdout is not None and child.stdin is not None
    child.stdout.read(1)
    waiting = [child.pid]
    if name == "waits-for-its-child":
        time.sleep(0.2)
        waiting = [int(pid) for pid in _children(child.pid)] + waiting
    for pid in waiting:
        _blocked(pid)
    time.sleep(0.05)
    pipe = os.fstat(child.stdin.fileno()).st_ino
    return (frozenset() if name == "reads-elsewhere" else frozenset({pipe})), kept


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
        return handle.read().rpartition(")")[2].split()[0]


def _children(pid: int) -> list[str]:
    with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as handle:
        return handle.read().split()


def main(name: str) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    read, write = os.pipe()
    run = os.fork()
    if run == 0:
        os.close(read)
        adopt_subreaper(os.getppid())
        before = own_threads()
        pipes, _kept = _arrange(name)
        answer = still_running(before, pipes) or "quiet"
        os.write(write, answer.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        print(answer.read().decode())
    os.waitpid(run, 0)
    _end_what_was_left()
    return 0


def _end_what_was_left() -> None:
    """Kill and reap what the run left to this process, its subreaper."""
    me = os.getpid()
    while left := [int(pid) for pid in _children(me)]:
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        for pid in left:
            os.waitpid(pid, 0)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
