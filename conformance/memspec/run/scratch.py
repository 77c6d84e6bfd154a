"""The one way the harness makes a folder for an adapter to work in: a case's tree, or
the scratch folder of a property or a snapshot.

The folder is a fresh temporary directory (symlinks in its path resolved). It holds
what the caller puts in it, is handed to the ``--tree-owner`` user before the adapter
sees it, so that modes bind the adapter as they bind an owner, and is removed afterwards
whatever modes the adapter left behind, without following any link. An adapter that put
something else in the folder's place (a link, or another directory), or left anything
in its working directory or beside it (``memspec.wire.working_directory``), fails the
case. Every walk of a folder the adapter can write goes through descriptors opened
without following a link (``memspec.run.trees.walk``), never through a name.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from memspec.exceptions import CaseFailure, CaseFault
from memspec.run.trees import (
    Entry,
    empty_folder,
    hand_over,
    open_folder,
    read_folder,
    remove_tree,
    replaced_root,
    tree_changes,
)
from memspec.wire.adapters import Adapter
from memspec.wire.working_directory import (
    WORKING_NAME,
    made_working_directory,
    remake_working_directory,
)

__all__ = ["open_folders", "scratch_folder", "stray_changes"]

_OPEN: list[Path] = []
_FULL = (errno.ENOSPC, errno.EDQUOT)


def open_folders() -> list[Path]:
    """The scratch folders in use now, innermost last."""
    return list(_OPEN)


def stray_changes() -> list[str]:
    """What appeared in the adapters' working directory, or beside it in the run's area
    (written through ``../``), since it was last emptied, one line per path; and the
    area made as it was again: the working directory empty, nothing beside it. Read and
    emptied through one descriptor of the area, so that a folder swapped for a link
    while this runs is never followed."""
    folder = made_working_directory()
    if folder is None:
        return []
    area = open_folder(folder.parent)
    try:
        try:
            changes = tree_changes({}, _strays(read_folder(area)))
        except CaseFailure:  # too deep to read: emptied all the same
            _restore(area, ["(unread)"])
            raise
        return _restore(area, changes)
    finally:
        os.close(area)


def _strays(found: Mapping[str, Entry]) -> dict[str, Entry]:
    """The entries of the area an adapter made: below its working directory (named
    relative to it) and beside it (named with ``../``)."""
    strays = {}
    for path, entry in found.items():
        if path == WORKING_NAME and entry.kind == "dir":
            continue
        inside = path.startswith(WORKING_NAME + "/")
        strays[path.removeprefix(WORKING_NAME + "/") if inside else "../" + path] = entry
    return strays


def _restore(area: int, changes: list[str]) -> list[str]:
    for name in os.listdir(area):
        if name == WORKING_NAME and _is_directory(area, name):
            if changes:
                working = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=area)
                try:
                    empty_folder(working)
                finally:
                    os.close(working)
            continue
        _remove_entry(area, name)
    if not _is_directory(area, WORKING_NAME):
        changes.append(f"../{WORKING_NAME}: removed or replaced")
        remake_working_directory(area)
    return changes


def _is_directory(area: int, name: str) -> bool:
    try:
        return stat.S_ISDIR(os.stat(name, dir_fd=area, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _remove_entry(parent: int, name: str) -> None:
    if not _is_directory(parent, name):
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=parent)
        return
    with contextlib.suppress(OSError):
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent)
        try:
            empty_folder(fd)
        finally:
            os.close(fd)
        os.rmdir(name, dir_fd=parent)


@contextlib.contextmanager
def scratch_folder(
    adapter: Adapter,
    files: Mapping[str, bytes] | None = None,
    *,
    prefix: str = "memspec-",
    base: Path | None = None,
    fill: Callable[[Path], None] | None = None,
) -> Iterator[Path]:
    """A folder holding ``files`` (relative path to content), then whatever ``fill``
    makes in it, owned by the adapter's user; removed on leaving."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=base)).resolve()
    identity = _identity(folder)
    stray: list[str] = []
    try:
        try:
            for relative, content in (files or {}).items():
                target = folder / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(content)
            if fill is not None:
                fill(folder)
        except OSError as exc:
            if exc.errno not in _FULL:
                raise
            # Only an adapter writes without bound on this disk during a run.
            raise CaseFault(
                f"cannot build the case's folder: {exc.strerror} (a disk the adapter "
                "filled, or a quota it used up)"
            ) from exc
        if adapter.tree_owner is not None:
            hand_over(folder, adapter.tree_owner)
        _OPEN.append(folder)
        try:
            yield folder
        except Exception as exc:
            # Whatever the steps found wrong, a folder put in the case's place says why.
            _refuse_replaced(folder, identity, exc)
            raise
        finally:
            _OPEN.remove(folder)
        _refuse_replaced(folder, identity, None)
    finally:
        try:
            stray = stray_changes()  # read and emptied whatever ended the case
        finally:
            remove_tree(folder)
    if stray:
        raise CaseFailure(
            "the adapter changed its working directory (a relative path resolved "
            "where it was started)\n" + "\n".join(f"  {line}" for line in stray[:10])
        )


def _identity(folder: Path) -> tuple[int, int]:
    info = os.lstat(folder)
    return info.st_dev, info.st_ino


def _refuse_replaced(folder: Path, identity: tuple[int, int], cause: Exception | None) -> None:
    replaced = replaced_root(folder)
    if replaced is None and _identity(folder) != identity:
        replaced = "another directory"
    if replaced is not None:
        raise CaseFailure(
            f"the adapter replaced the folder of the case with {replaced}",
            signature=("replaced the folder",),
        ) from cause
