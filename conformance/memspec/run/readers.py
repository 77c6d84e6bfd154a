"""Readers beside a step: every state of a file they observe must be a whole one.

A step with ``"readers": {"path": P, "text_pattern": R, "threads": N}`` is run with N
harness threads reading ``${ROOT}/P`` over and over, from just before the step's first
request until its last reply. Every reading must match ``R`` in full as UTF-8 (as an
expected tree's ``text_pattern``); a missing file is a bad reading unless
``"missing": true``. This catches writers that truncate or write in place, which a
reader sees empty or cut short, even when the file ends up right.

The path is the adapter's to change, so a reader trusts nothing there: it follows no
link (a link is a bad reading, never read through), opens without blocking (a FIFO is a
bad reading, never a hang), reads a regular file only and at most ``LARGEST_READ``
bytes, and, when the adapter runs as another user (``--tree-owner``), reads only a file
that user owns, so that no byte the adapter could not read itself reaches a report.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from memspec.corpus.compare import text_matches_pattern
from memspec.corpus.step_forms import Readers
from memspec.run.trees import open_beneath, read_bounded

__all__ = ["LARGEST_READ", "Watch", "watching"]

LARGEST_READ = 1 << 20


@dataclass
class Watch:
    """What the readers saw: how many readings, and the bad ones (None: missing)."""

    readers: Readers
    reads: int = 0
    bad: list[bytes | None] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def observe(self, content: bytes | None) -> None:
        good = (
            self.readers.missing
            if content is None
            else text_matches_pattern(self.readers.text_pattern, content)
        )
        with self._lock:
            self.reads += 1
            if not good and len(self.bad) < 100:
                self.bad.append(content)

    def problem(self) -> tuple[str, list[str]] | None:
        """A headline and details when a reading was not whole; None when all were."""
        if not self.bad:
            return None
        seen = self.bad[0]
        return (
            f"a reader beside the step saw {self.readers.path} in a state that is not whole",
            [
                f"  saw:      {'(missing)' if seen is None else repr(seen[:200])}",
                f"  expected: a match of {self.readers.text_pattern!r}",
                f"  bad readings: at least {len(self.bad)} of {self.reads}",
            ],
        )


def _read(root: Path, relative: str, owner: int | None) -> bytes | None:
    try:
        fd = open_beneath(root, relative)
    except FileNotFoundError:
        return None
    except OSError as exc:  # a reading that fails otherwise is a bad one too
        if exc.errno == errno.ELOOP:
            return b"<a symbolic link: not followed>"
        return f"<cannot read: {exc.strerror}>".encode()
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return b"<not a regular file: not read>"
        if owner is not None and info.st_uid != owner:
            return b"<a file the adapter's user does not own: not read>"
        content = read_bounded(fd, LARGEST_READ)
        return b"<larger than 1 MiB: not read>" if content is None else content
    except OSError as exc:
        return f"<cannot read: {exc.strerror}>".encode()
    finally:
        os.close(fd)


@contextlib.contextmanager
def watching(
    readers: Readers | None, root: Path, owner: tuple[int, int] | None = None
) -> Iterator[Watch | None]:
    """Read the file in ``readers.threads`` threads for as long as the block runs;
    ``owner`` is the ``--tree-owner`` the adapter runs as, if any."""
    if readers is None:
        yield None
        return
    watch = Watch(readers)
    uid = owner[0] if owner is not None else None
    done = threading.Event()

    def read_until_done() -> None:
        while not done.is_set():
            watch.observe(_read(root, readers.path, uid))

    threads = [
        threading.Thread(target=read_until_done, daemon=True) for _ in range(readers.threads)
    ]
    for thread in threads:
        thread.start()
    try:
        yield watch
    finally:
        done.set()
        for thread in threads:
            thread.join()
