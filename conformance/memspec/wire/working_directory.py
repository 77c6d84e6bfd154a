"""The empty working directory every adapter of a run starts in.

An adapter that resolves a relative path writes below its working directory. Were that
memspec's own (where the user started it), a case could pass while the adapter wrote into
the user's checkout. So each run makes one empty temporary directory: ``cmd:`` adapters
are started in it, and in-process adapters (``python:``, the reference) are answered with
it as the process's working directory. Whatever appears there during a case is a change
to the case's tree that no expectation allows (``memspec.run.scratch`` checks it).
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

__all__ = ["answering_in_it", "made_working_directory", "working_directory"]

_FOLDER: list[Path] = []
_LOCK = threading.Lock()
_inside = 0
_left: list[str] = []


def working_directory() -> Path:
    """The run's working directory for adapters (made on first use, removed at exit)."""
    with _LOCK:
        if not _FOLDER:
            _FOLDER.append(Path(tempfile.mkdtemp(prefix="adapters-cwd-")).resolve())
            # The run empties it after every case; rmtree never follows a link.
            atexit.register(shutil.rmtree, _FOLDER[0], True)
        return _FOLDER[0]


def made_working_directory() -> Path | None:
    """The run's working directory if one was made, without making it."""
    with _LOCK:
        return _FOLDER[0] if _FOLDER else None


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
