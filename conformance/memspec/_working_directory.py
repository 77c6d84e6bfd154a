"""The empty working directory every adapter of a run starts in.

An adapter that resolves a relative path writes below its working directory. Were that
memspec's own (where the user started it), a case could pass while the adapter wrote into
the user's checkout. So each run makes one empty temporary directory: ``cmd:`` adapters
are started in it, and in-process adapters (``python:``, the reference) are answered with
it as the process's working directory. Whatever appears there during a case is a change
to the case's tree that no expectation allows: ``stray_changes`` lists it and empties the
directory for the next case.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from memspec.trees import read_tree, remove_tree, tree_changes

__all__ = ["answering_in_it", "stray_changes", "working_directory"]

_FOLDER: list[Path] = []
_LOCK = threading.Lock()
_inside = 0
_left: list[str] = []


def working_directory() -> Path:
    """The run's working directory for adapters (made on first use, removed at exit)."""
    with _LOCK:
        if not _FOLDER:
            _FOLDER.append(Path(tempfile.mkdtemp(prefix="adapters-cwd-")).resolve())
            atexit.register(remove_tree, _FOLDER[0])
        return _FOLDER[0]


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


def stray_changes() -> list[str]:
    """What appeared in the working directory since it was last emptied, one line per
    path, and it emptied again."""
    if not _FOLDER:
        return []
    folder = _FOLDER[0]
    changes = tree_changes({}, read_tree(folder))
    if changes:
        for name in os.listdir(folder):
            remove_tree(folder / name)
    return changes
