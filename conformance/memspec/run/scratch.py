"""The one way the harness makes a folder for an adapter to work in: a case's tree, or
the scratch folder of a property or a snapshot.

The folder is a fresh temporary directory of the run's folder
(``memspec.wire.working_directory``; symlinks in its path resolved). It holds what the
caller puts in it, is handed to the ``--tree-owner`` user before the adapter sees it, so
that modes bind the adapter as they bind an owner, and is removed afterwards whatever
modes the adapter left behind, without following any link. Every walk of a folder the
adapter can write goes through descriptors opened without following a link
(``memspec.run.trees.walk``), never through a name.

What the adapter did outside the folder is checked when it ends, whether the case
passed or failed: an adapter that put something else in the folder's place (a link, or
another directory), changed its working directory, or created anything else in the
run's folder fails the case, and these changes are added to a failure the case had
already.

A case's tree (``settle=CASE_ID``) is kept a while after the case (``SETTLE_S``) before it
is read again and removed: a change made after the last reply (a write that an adapter
left for later) is a late change of that case (``settle``), which the run reports
against it. The trees of a run's last cases are read again at its end: at once when
nothing the adapter started can act before it is spoken to again
(``memspec.wire.processes.still_running``), ``SETTLE_S`` after their case otherwise.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from memspec.exceptions import CaseFailure, CaseFault, no_answer
from memspec.run.trees import (
    Entry,
    empty_folder,
    hand_over,
    is_directory,
    open_folder,
    read_folder,
    read_tree,
    remove_entry,
    remove_tree,
    replaced_root,
    tree_changes,
)
from memspec.wire.adapters import Adapter
from memspec.wire.working_directory import (
    WORKING_NAME,
    harness_entries,
    made_working_directory,
    remake_working_directory,
    run_folder,
)

__all__ = [
    "SETTLE_S",
    "LateChange",
    "open_folders",
    "scratch_folder",
    "settle",
    "settle_in_time",
    "stray_changes",
]

SETTLE_S = 1.5
"""How long a case's tree is kept after the case, to see whether it still changes."""

_OPEN: list[Path] = []
_FULL = (errno.ENOSPC, errno.EDQUOT)
_REPLACED = "replaced the folder"


@dataclass(frozen=True)
class LateChange:
    """A case whose tree changed after its last reply, and how."""

    case_id: str
    changes: tuple[str, ...]


@dataclass
class _Settling:
    case_id: str
    folder: Path
    identity: tuple[int, int]
    tree: dict[str, Entry]
    ended: float


_SETTLING: list[_Settling] = []
_LATE: list[LateChange] = []


def open_folders() -> list[Path]:
    """The scratch folders in use now, innermost last."""
    return list(_OPEN)


def stray_changes() -> list[str]:
    """What appeared in the adapters' working directory (named relative to it), or
    beside it in the run's folder (named with ``../``), since it was last emptied, one
    line per path; and the run's folder made as it was again: the working directory
    empty, nothing beside it but the folders in use. Read and emptied through one
    descriptor of the run's folder, so that a folder swapped for a link while this runs
    is never followed."""
    folder = made_working_directory()
    if folder is None:
        return []
    keep = {p.name for p in _OPEN} | {s.folder.name for s in _SETTLING} | harness_entries()
    area = open_folder(folder.parent)
    try:
        changes: list[str] = []
        try:
            for name in sorted(set(os.listdir(area)) - keep):
                if name == WORKING_NAME and is_directory(area, name):
                    working = _open_directory(area, name)
                    try:
                        changes += tree_changes({}, read_folder(working))
                    finally:
                        os.close(working)
                else:
                    changes.append(f"../{name}: created")
        except CaseFailure:  # too deep to read: emptied all the same
            _restore(area, keep, ["(unread)"])
            raise
        return _restore(area, keep, changes)
    finally:
        os.close(area)


def _open_directory(parent: int, name: str) -> int:
    return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent)


def _restore(area: int, keep: set[str], changes: list[str]) -> list[str]:
    for name in set(os.listdir(area)) - keep:
        if name == WORKING_NAME and is_directory(area, name):
            if changes:
                working = _open_directory(area, name)
                try:
                    empty_folder(working)
                finally:
                    os.close(working)
            continue
        remove_entry(area, name)
    if not is_directory(area, WORKING_NAME):
        changes.append(f"../{WORKING_NAME}: removed or replaced")
        remake_working_directory(area)
    return changes


@contextlib.contextmanager
def scratch_folder(
    adapter: Adapter,
    files: Mapping[str, bytes] | None = None,
    *,
    prefix: str = "memspec-",
    base: Path | None = None,
    fill: Callable[[Path], None] | None = None,
    settle: str | None = None,
) -> Iterator[Path]:
    """A folder holding ``files`` (relative path to content), then whatever ``fill``
    makes in it, owned by the adapter's user; removed on leaving, or, when ``settle``
    names the case, kept ``SETTLE_S`` to see whether it still changes."""
    settle_older()
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=base or run_folder())).resolve()
    identity = _identity(folder)
    kept = False
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
        except (CaseFailure, CaseFault) as failure:
            stray = _beside(folder, identity)
            kept = _keep(settle, folder, identity)
            if stray:
                raise _with_stray(failure, stray, folder) from failure
            raise
        except Exception as exc:
            # Whatever broke, a folder put in the case's place says why.
            if _replaced(folder, identity) is not None:
                raise _with_stray(None, _beside(folder, identity), folder) from exc
            raise
        else:
            stray = _beside(folder, identity)
            kept = _keep(settle, folder, identity)
            if stray:
                raise _with_stray(None, stray, folder)
        finally:
            _OPEN.remove(folder)
    finally:
        if not kept:
            remove_tree(folder)


def _identity(folder: Path) -> tuple[int, int]:
    info = os.lstat(folder)
    return info.st_dev, info.st_ino


def _replaced(folder: Path, identity: tuple[int, int]) -> str | None:
    """What stands in the place of the case's folder, when it is not the folder made."""
    replaced = replaced_root(folder)
    if replaced is None and _identity(folder) != identity:
        replaced = "another directory"
    return replaced


def _beside(folder: Path, identity: tuple[int, int]) -> list[str]:
    """What the adapter changed outside ``folder``: its place, its working directory and
    the run's folder."""
    stray = stray_changes()
    replaced = _replaced(folder, identity)
    if replaced is not None:
        stray.insert(0, f"the adapter replaced the folder of the case with {replaced}")
    return stray


def _with_stray(
    failure: CaseFailure | CaseFault | None, stray: list[str], folder: Path
) -> CaseFailure | CaseFault:
    """``failure`` (or a new CaseFailure) with what the adapter changed outside the case's
    folder added to its message and signature (the folder's random name written as
    ``${ROOT_NAME}``, so that the signature is the same in every run)."""
    stray = [line.replace(folder.name, "${ROOT_NAME}") for line in stray[:10]]
    lines = [
        "the adapter changed what lies outside the case's folder (its working directory, "
        "or the run's folder beside it)",
        *(f"  {line}" for line in stray),
    ]
    tokens = tuple(
        _REPLACED if "replaced the folder of the case" in line else f"outside the case: {line}"
        for line in stray
    )
    if failure is None:
        return CaseFailure("\n".join(lines), tokens, ("",) * len(tokens))
    signature = failure.signature or ()
    values = failure.values or ("",) * len(signature)
    if not signature and isinstance(failure, CaseFault):
        signature, values = (no_answer(failure),), ("",)
    return type(failure)(
        f"{failure}\n" + "\n".join(lines),
        (*signature, *tokens),
        (*values, *("",) * len(tokens)),
    )


def _keep(case_id: str | None, folder: Path, identity: tuple[int, int]) -> bool:
    """Keep the tree of ``case_id`` to read it again later; False when there is none, or
    when the folder is no longer the one made."""
    if case_id is None or _replaced(folder, identity) is not None:
        return False
    try:
        tree = read_tree(folder)
    except CaseFailure:
        return False
    _SETTLING.append(_Settling(case_id, folder, identity, tree, time.monotonic()))
    return True


def settle_older(age: float = SETTLE_S) -> None:
    """Read again and remove each kept tree whose case ended at least ``age`` ago; a
    tree that changed since is a late change of its case."""
    now = time.monotonic()
    for kept in [s for s in _SETTLING if now - s.ended >= age]:
        _SETTLING.remove(kept)
        replaced = (
            _replaced(kept.folder, kept.identity) if os.path.lexists(kept.folder) else "nothing"
        )
        if replaced is not None:
            changes = [f"the case's folder was replaced by {replaced}"]
        else:
            try:
                changes = tree_changes(kept.tree, read_tree(kept.folder))
            except CaseFailure as exc:
                changes = [str(exc)]
        if changes:
            _LATE.append(LateChange(kept.case_id, tuple(changes)))
        remove_tree(kept.folder)


def settle_in_time(quiet: bool = False) -> None:
    """Settle every kept tree, while the adapter still runs: at once when ``quiet`` (no
    process or thread of it can act before it is spoken to again), otherwise once the
    youngest is ``SETTLE_S`` old, so that what the adapter does after a run's last cases
    is seen."""
    if _SETTLING and not quiet:
        time.sleep(max(0.0, SETTLE_S - (time.monotonic() - _SETTLING[-1].ended)))
    settle_older(0.0)


def settle() -> list[LateChange]:
    """Settle every kept tree now, and return (and forget) the late changes found."""
    settle_older(0.0)
    found = list(_LATE)
    _LATE.clear()
    return found
