"""The run's folder, and the empty working directory every adapter of a run starts in.

Each process of a run has one folder of its own (``run_folder``, mode 0711): every case's
tree and scratch folder is made inside it, and so is the adapters' working directory,
``cwd``. The run's folder belongs to the harness and only it writes there: an adapter
handed a tree (``--tree-owner``) reaches its folders inside but can neither list the run's
folder, nor put something else in the place of its tree or of its working directory, nor
write beside them. An adapter that runs as the harness's own user can, and whatever
appears, changes or goes there during a case fails the case (``memspec.run.scratch``).
``memspec run`` makes the folder in the process that waits for the run
(``memspec.cli.guard``), which removes it however the run ended; under pytest alone, the
first case makes it and the process removes it at exit. Either makes it in
``scratch_base``: the temporary folder the environment names, or else a file system in
memory where there is one.

An adapter that resolves a relative path writes below its working directory. Were that
memspec's own (where the user started it), a case could pass while the adapter wrote into
the user's checkout. So ``cmd:`` adapters are started in the run's working directory, and
in-process adapters (``python:``, the reference) are answered with it as the process's
working directory. Whatever appears there during a case is a change that no expectation
allows; what an adapter writes through ``../`` lands in the run's folder, where it is seen
too. The working directory is handed to the ``--tree-owner`` user.
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
    "adopt_run_folder",
    "answering_in_it",
    "harness_entries",
    "keep_as_harness_entry",
    "made_working_directory",
    "owner_of_working_directory",
    "remake_working_directory",
    "run_folder",
    "scratch_base",
    "working_directory",
]

WORKING_NAME = "cwd"
_RUN: list[Path] = []
_OWNER: list[tuple[int, int]] = []
_OWN: set[str] = set()
_LOCK = threading.Lock()
_inside = 0
_left: list[str] = []


def adopt_run_folder(folder: Path) -> None:
    """Make the run's folder in ``folder``, which the caller made (0711) and removes."""
    with _LOCK:
        if not _RUN:
            os.mkdir(folder / WORKING_NAME, 0o700)
            _RUN.append(folder)


def keep_as_harness_entry(path: str) -> None:
    """Mark ``path``, a folder the harness itself made in the run's folder (its
    Hypothesis files), as its own: never a stray change of an adapter."""
    with _LOCK:
        _OWN.add(os.path.basename(path))


def harness_entries() -> set[str]:
    with _LOCK:
        return set(_OWN)


_IN_MEMORY = Path("/dev/shm")
_ROOM_IN_MEMORY = 1 << 30
"""The free space a file system in memory must have for a run's folders to go there."""


def scratch_base() -> Path:
    """Where a run makes its folder: the temporary folder ``TMPDIR`` (or ``TEMP``,
    ``TMP``) names, when the environment names one; otherwise ``/dev/shm`` where it is a
    tmpfs with 1 GiB free that this user may write to, so that the trees of cases, which
    nothing needs to keep, cost no disk writes and no wait for the disk to sync them;
    otherwise the system's temporary folder."""
    if any(os.environ.get(name) for name in ("TMPDIR", "TEMP", "TMP")):
        return Path(tempfile.gettempdir())
    if _is_tmpfs(_IN_MEMORY) and os.access(_IN_MEMORY, os.W_OK | os.X_OK):
        with contextlib.suppress(OSError):
            room = os.statvfs(_IN_MEMORY)
            if room.f_bavail * room.f_frsize >= _ROOM_IN_MEMORY:
                return _IN_MEMORY
    return Path(tempfile.gettempdir())


def _is_tmpfs(folder: Path) -> bool:
    """Whether ``folder`` is the mount point of a tmpfs (Linux's mount table)."""
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as mounts:
            return any(
                fields[1] == str(folder) and fields[2] == "tmpfs"
                for fields in (line.split() for line in mounts)
                if len(fields) > 2
            )
    except OSError:
        return False


def run_folder() -> Path:
    """This process's folder of the run (made on first use, removed at exit)."""
    with _LOCK:
        if not _RUN:
            folder = Path(tempfile.mkdtemp(prefix="memspec-run-", dir=scratch_base())).resolve()
            os.chmod(folder, 0o711)
            os.mkdir(folder / WORKING_NAME, 0o700)
            _RUN.append(folder)
            # Cases empty it as they end; rmtree never follows a link.
            atexit.register(shutil.rmtree, folder, True)
        return _RUN[0]


def working_directory() -> Path:
    """The run's working directory for adapters (made on first use)."""
    return run_folder() / WORKING_NAME


def made_working_directory() -> Path | None:
    """The run's working directory if one was made, without making it."""
    with _LOCK:
        return _RUN[0] / WORKING_NAME if _RUN else None


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
    """Make the working directory again in the run's folder open as ``area`` (after an
    adapter removed or replaced it), handed to its owner."""
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
