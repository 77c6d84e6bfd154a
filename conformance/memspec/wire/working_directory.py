"""The run's folder, and the empty working directory every adapter of a run starts in.

Each process of a run makes one folder of its own in ``TMPDIR`` (``run_folder``): every
case's tree and scratch folder is made inside it, and so is the adapters' working
directory. The run folder itself belongs to the harness and only it writes there, so an
adapter handed a tree (``--tree-owner``) can neither put something else in the place of
its tree or of its working directory, nor write beside them; an adapter that runs as
the harness's own user can, and whatever appears, changes or goes there during a case
fails the case (``memspec.run.scratch``).

An adapter that resolves a relative path writes below its working directory. Were that
memspec's own (where the user started it), a case could pass while the adapter wrote into
the user's checkout. So ``cmd:`` adapters are started in the run's working directory,
and in-process adapters (``python:``, the reference) are answered with it as the
process's working directory. Whatever appears there during a case is a change that no
expectation allows.
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
    "WORKING_DIRECTORY_NAME",
    "answering_in_it",
    "made_working_directory",
    "run_folder",
    "working_directory",
]

WORKING_DIRECTORY_NAME = "adapters-cwd"
_RUN: list[Path] = []
_LOCK = threading.Lock()
_inside = 0
_left: list[str] = []


def run_folder() -> Path:
    """This process's folder of the run (made on first use, removed at exit): readable
    by every user, so that an adapter running as another reaches its trees, and
    writable by the harness alone."""
    with _LOCK:
        if not _RUN:
            folder = Path(tempfile.mkdtemp(prefix="memspec-run-")).resolve()
            os.chmod(folder, 0o755)
            os.mkdir(folder / WORKING_DIRECTORY_NAME, 0o700)
            _RUN.append(folder)
            # Cases empty it as they end; rmtree never follows a link.
            atexit.register(shutil.rmtree, folder, True)
        return _RUN[0]


def working_directory() -> Path:
    """The run's working directory for adapters (made on first use, removed at exit)."""
    return run_folder() / WORKING_DIRECTORY_NAME


def made_working_directory() -> Path | None:
    """The run's working directory if one was made, without making it."""
    with _LOCK:
        return _RUN[0] / WORKING_DIRECTORY_NAME if _RUN else None


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
