"""The one way the harness makes a folder for an adapter to work in: a case's tree, or
the scratch folder of a property or a snapshot.

The folder is a fresh temporary directory (symlinks in its path resolved). It holds
what the caller puts in it, is handed to the ``--tree-owner`` user before the adapter
sees it, so that modes bind the adapter as they bind an owner, and is removed afterwards
whatever modes the adapter left behind, without following any link. An adapter that put
something else in the folder's place, or left anything in its working directory
(``memspec.wire.working_directory``), fails the case.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from memspec.exceptions import CaseFailure
from memspec.run.trees import hand_over, read_tree, remove_tree, replaced_root, tree_changes
from memspec.wire.adapters import Adapter
from memspec.wire.working_directory import made_working_directory

__all__ = ["open_folders", "scratch_folder", "stray_changes"]

_OPEN: list[Path] = []


def open_folders() -> list[Path]:
    """The scratch folders in use now, innermost last."""
    return list(_OPEN)


def stray_changes() -> list[str]:
    """What appeared in the adapters' working directory since it was last emptied, one
    line per path, and it emptied again."""
    folder = made_working_directory()
    if folder is None:
        return []
    changes = tree_changes({}, read_tree(folder))
    if changes:
        for name in os.listdir(folder):
            remove_tree(folder / name)
    return changes


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
        finally:
            _OPEN.remove(folder)
        replaced = replaced_root(folder)
        if replaced is not None:
            raise CaseFailure(f"the adapter replaced the folder of the case with {replaced}")
    finally:
        stray = stray_changes()  # read and emptied whatever ended the case
        remove_tree(folder)
    if stray:
        raise CaseFailure(
            "the adapter changed its working directory (a relative path resolved "
            "where it was started)\n" + "\n".join(f"  {line}" for line in stray[:10])
        )
