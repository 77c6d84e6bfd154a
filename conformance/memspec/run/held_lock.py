"""A step run while the harness holds a lock: nothing may be written until it lets go.

A step with ``"hold_lock": {"path": P, "kind": "flock", "hold_ms": N}`` is run like this:
the harness takes an exclusive ``flock`` on the one entry of the tree that ``P`` (a glob,
relative to the root) names, reads the tree, sends the step's op from a second thread,
waits ``N`` milliseconds, reads the tree again, and only then lets go of the lock. Any
difference between the two readings (restricted to the globs of ``watch`` when given) is
something the op wrote while another holder had the lock. The reply, once it comes, is
judged as the step's expectation says.

Where the kernel lists the locks and who waits for them (Linux's ``/proc/locks``), the
harness stops waiting as soon as a process waits for its lock, ``SETTLE_S`` later: an op
that takes the lock as it should is then seen blocked on it, and one that writes before
it would have written by then.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memspec.corpus.step_forms import HeldLock
from memspec.exceptions import CaseFault
from memspec.run.trees import read_tree, tree_changes
from memspec.wire.adapters import Response

__all__ = ["SETTLE_S", "Held", "run_while_held", "waited_for"]

SETTLE_S = 0.05
"""How long the harness still holds the lock once a process waits for it."""
_POLL_S = 0.001


def _lock_target(root: Path, pattern: str) -> Path:
    matches = sorted(root.glob(pattern))
    if len(matches) != 1:
        raise CaseFault(
            f"hold_lock: {pattern!r} names {len(matches)} entries of the tree, not exactly one"
        )
    return matches[0]


@dataclass(frozen=True)
class Held:
    """The reply of an op run while the lock was held, and what it changed meanwhile."""

    lock: HeldLock
    response: Response
    changes: tuple[str, ...]

    @property
    def problem(self) -> tuple[str, list[str]] | None:
        """A headline and details when something changed while the lock was held."""
        if not self.changes:
            return None
        return (
            f"wrote while the harness held {self.lock.path} ({self.lock.kind})",
            [f"  {change}" for change in self.changes[:10]],
        )


def run_while_held(
    lock: HeldLock, root: Path, call: Callable[[], Response], ignore: tuple[str, ...] = ()
) -> Held:
    """Run ``call`` in another thread while holding ``lock``; its reply and what changed
    in the tree before the lock was let go."""
    target = _lock_target(root, lock.path)
    try:  # the tree is the adapter's: never follow a link, never wait on a FIFO
        fd = os.open(target, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        raise CaseFault(f"hold_lock: cannot open {lock.path}: {exc.strerror}") from exc
    replies: list[Response] = []
    faults: list[BaseException] = []

    def send() -> None:
        try:
            replies.append(call())
        except BaseException as exc:  # re-raised in the harness's thread
            faults.append(exc)

    worker = threading.Thread(target=send, daemon=True)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise CaseFault(f"hold_lock: {lock.path} is already locked by someone else") from exc
        before = read_tree(root)
        worker.start()
        _wait_while_held(worker, fd, lock.hold_ms / 1000)
        changes = tree_changes(before, read_tree(root), ignore, lock.watch)
    finally:
        os.close(fd)  # closing the only descriptor lets go of the lock
    if worker.ident is not None:
        worker.join()
    if faults:
        raise faults[0]
    return Held(lock, replies[0], tuple(changes))


def _wait_while_held(worker: threading.Thread, fd: int, seconds: float) -> None:
    """Wait ``seconds``, or until the worker is done, or until a process has waited for
    the lock on ``fd`` for ``SETTLE_S``."""
    deadline = time.monotonic() + seconds
    key = _lock_key(fd)
    while worker.is_alive() and time.monotonic() < deadline:
        if waited_for(key):
            worker.join(min(SETTLE_S, max(0.0, deadline - time.monotonic())))
            return
        worker.join(_POLL_S)


def _lock_key(fd: int) -> str:
    """How ``/proc/locks`` names the file open as ``fd``: its device and inode."""
    info = os.fstat(fd)
    return f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"


def waited_for(key: str, locks: str = "/proc/locks") -> bool:
    """Whether a process waits for a lock on the file ``key`` names (False where the
    kernel does not list them)."""
    try:
        with open(locks, encoding="ascii", errors="replace") as listed:
            return any("->" in line and key in line.split() for line in listed)
    except OSError:
        return False
