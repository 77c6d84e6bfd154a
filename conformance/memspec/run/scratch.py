"""The one way the harness makes a folder for an adapter to work in: a case's tree, or
the scratch folder of a property or a snapshot.

The folder is a fresh temporary directory of the run's folder
(``memspec.wire.working_directory``; symlinks in its path resolved). It holds what the
caller puts in it, is handed to the ``--tree-owner`` user before the adapter sees it, so
that modes bind the adapter as they bind an owner, and is removed afterwards whatever
modes the adapter left behind, without following any link.

What the adapter did outside the folder is checked when it ends, whether the case
passed or failed: an adapter that put something else in the folder's place, changed its
working directory, or created, changed or removed anything else in the run's folder
fails the case, and these changes are added to a failure the case had already.

A case's tree (``settle=True``) is read once more as the case ends and then kept a
while (``SETTLE_S``) before it is read again and removed: a change made after the last
reply (a write that an adapter left for later) is a late change of that case
(``late_changes``), which the run reports against it.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from memspec.exceptions import CaseFailure, CaseFault, no_answer
from memspec.run.trees import (
    Entry,
    hand_over,
    read_tree,
    remove_tree,
    replaced_root,
    tree_changes,
)
from memspec.wire.adapters import Adapter
from memspec.wire.working_directory import (
    WORKING_DIRECTORY_NAME,
    made_working_directory,
    run_folder,
)

__all__ = [
    "SETTLE_S",
    "LateChange",
    "late_changes",
    "open_folders",
    "scratch_folder",
    "settle",
    "settle_in_time",
    "stray_changes",
]

SETTLE_S = 1.5
"""How long a case's tree is kept after the case, to see whether it still changes."""

_OPEN: list[Path] = []


@dataclass(frozen=True)
class LateChange:
    """A case whose tree changed after its last reply, and how."""

    case_id: str
    changes: tuple[str, ...]


@dataclass
class _Settling:
    case_id: str
    folder: Path
    tree: dict[str, Entry]
    ended: float


_SETTLING: list[_Settling] = []
_LATE: list[LateChange] = []


def open_folders() -> list[Path]:
    """The scratch folders in use now, innermost last."""
    return list(_OPEN)


def stray_changes() -> list[str]:
    """What appeared in the adapters' working directory, and what appeared beside the
    folders in use in the run's folder, since it was last emptied, one line per path;
    each emptied again."""
    folder = made_working_directory()
    if folder is None:
        return []
    changes = [f"{WORKING_DIRECTORY_NAME}/{line}" for line in tree_changes({}, read_tree(folder))]
    if changes:
        for name in os.listdir(folder):
            remove_tree(folder / name)
    run = folder.parent
    known = {WORKING_DIRECTORY_NAME, *(p.name for p in _OPEN), *(s.folder.name for s in _SETTLING)}
    for name in sorted(set(os.listdir(run)) - known):
        entries = tree_changes({}, read_tree(run / name)) if (run / name).is_dir() else []
        changes.append(f"{name}: created" + (f" ({len(entries)} entries)" if entries else ""))
        remove_tree(run / name)
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
    kept = False
    try:
        for relative, content in (files or {}).items():
            target = folder / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        if fill is not None:
            fill(folder)
        if adapter.tree_owner is not None:
            hand_over(folder, adapter.tree_owner)
        _OPEN.append(folder)
        try:
            yield folder
        except (CaseFailure, CaseFault) as failure:
            stray = _beside(folder)
            kept = _keep(settle, folder)
            if stray:
                raise _with_stray(failure, stray, folder) from failure
            raise
        else:
            stray = _beside(folder)
            kept = _keep(settle, folder)
            if stray:
                raise _with_stray(None, stray, folder)
        finally:
            _OPEN.remove(folder)
    finally:
        if not kept:
            remove_tree(folder)


def _keep(case_id: str | None, folder: Path) -> bool:
    """Keep the tree of ``case_id`` to read it again later; False when there is none, or
    when the folder is no longer a directory of its own."""
    if case_id is None or replaced_root(folder) is not None:
        return False
    _SETTLING.append(_Settling(case_id, folder, read_tree(folder), time.monotonic()))
    return True


def _beside(folder: Path) -> list[str]:
    """What the adapter changed outside ``folder``: its place, its working directory and
    the run's folder."""
    stray = stray_changes()
    replaced = replaced_root(folder)
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
    tokens = tuple(f"outside the case: {line}" for line in stray)
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


def settle_older(age: float = SETTLE_S) -> None:
    """Read again and remove each kept tree whose case ended at least ``age`` ago; a
    tree that changed since is a late change of its case."""
    now = time.monotonic()
    for kept in [s for s in _SETTLING if now - s.ended >= age]:
        _SETTLING.remove(kept)
        try:
            changes = tree_changes(kept.tree, read_tree(kept.folder))
        except CaseFailure as exc:
            changes = [str(exc)]
        if changes:
            _LATE.append(LateChange(kept.case_id, tuple(changes)))
        remove_tree(kept.folder)


def settle_in_time() -> None:
    """Wait until the youngest kept tree is ``SETTLE_S`` old, then settle them all: what
    the adapter does after a run's last cases is seen while it still runs."""
    if _SETTLING:
        time.sleep(max(0.0, SETTLE_S - (time.monotonic() - _SETTLING[-1].ended)))
    settle_older(0.0)


def settle() -> list[LateChange]:
    """Settle every kept tree now, and return (and forget) the late changes found."""
    settle_older(0.0)
    found = list(_LATE)
    _LATE.clear()
    return found


def late_changes() -> list[LateChange]:
    """The late changes found so far, forgotten once returned."""
    found = list(_LATE)
    _LATE.clear()
    return found
