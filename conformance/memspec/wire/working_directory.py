"""The empty working directory every adapter of a run starts in.

An adapter that resolves a relative path writes below its working directory. Were that
memspec's own (where the user started it), a case could pass while the adapter wrote into
the user's checkout. So each run makes one empty temporary directory: ``cmd:`` adapters
are started in it, and in-process adapters (``python:``, the reference) are answered with
it as the process's working directory. Whatever appears there during a case is a change
to the case's tree that no expectation allows (``memspec.run.scratch`` checks it).

The directory is ``cwd`` inside a private folder of the run (its *area*), so that what an
adapter writes through ``../`` lands in the area too, where it is seen, and not in the
temporary directory shared with the rest of the host. The area is the harness's (mode
0711: an adapter of another user reaches its working directory but cannot write beside
it); the working directory is handed to the ``--tree-owner`` user.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "WORKING_NAME",
    "answering_in_it",
    "made_working_directory",
    "owner_of_working_directory",
    "remake_working_directory",
    "working_directory",
]

WORKING_NAME = "cwd"
_FOLDER: list[Path] = []
_OWNER: list[tuple[int, int]] = []
_LOCK = threading.Lock()
_inside = 0
_left: list[str] = []


def working_directory() -> Path:
    """The run's working directory for adapters (made on first use, removed at exit)."""
    with _LOCK:
        if not _FOLDER:
            area = Path(tempfile.mkdtemp(prefix="adapters-cwd-")).resolve()
            os.chmod(area, 0o711)
            (area / WORKING_NAME).mkdir(mode=0o700)
            _FOLDER.append(area / WORKING_NAME)
            # The run empties it after every case; rmtree never follows a link.
            atexit.register(shutil.rmtree, area, True)
        return _FOLDER[0]


def made_working_directory() -> Path | None:
    """The run's working directory if one was made, without making it."""
    with _LOCK:
        return _FOLDER[0] if _FOLDER else None


def owner_of_working_directory(owner: tuple[int, int] | None = None) -> tuple[int, int] | None:
    """Hand the working directory to ``owner`` (when given); the owner it was handed to."""
    if owner is not None:
        with contextlib.suppress(OSError):
            os.chown(working_directory(), *owner)
        with _LOCK:
            _OWNER[:] = [owner]
    with _LOCK:
        return _OWNER[0] if _OWNER else None


def remake_working_directory(area: int) -> None:
    """Make the working directory again in the area open as ``area`` (after an adapter
    removed or replaced it), handed to its owner."""
    os.mkdir(WORKING_NAME, 0o700, dir_fd=area)
    owner = owner_of_working_directory()
    if owner is not None:
        os.chown(WORKING_NAME, *owner, dir_fd=area, follow_symlinks=False)


@contextlib.contextmanager
def answering_in_it() -> Iterator[None]:
    """The process's working directory is the run's while any in-process request is
    being answered (threads of a concurrent step share it), and the user's again after."""
    global _inside
    folder = working_directory()
    with _LOCK:
        if _inside == 0:
            _left.append(os.getcwd())
            os.chdir(folder)
        _inside += 1
    try:
        yield
    finally:
        with _LOCK:
            _inside -= 1
            if _inside == 0:
                os.chdir(_left.pop())
