"""A tool that lives across commands: its root made once, changes made between commands by
another process, and ``clear_all_memory``."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from memref.memories._constants import ROOT_DIR
from memref.memories._errors import ToolFailure
from memref.memories._files import make_root, remove_tree
from memref.memories._tool import Reply, execute, reply_for

__all__ = ["clear_all", "remove_root", "session_script"]


def clear_all(base: str) -> Reply:
    """Remove the root with everything in it and make it again, empty (0700). A root that
    is a link, or not a directory, is left alone."""

    def work() -> str:
        root = os.path.join(base, ROOT_DIR)
        try:
            mode = os.lstat(root).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None:
            if not stat.S_ISDIR(mode):
                raise ToolFailure(
                    "The /memories directory is a link or not a directory; nothing was cleared."
                )
            base_fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            try:
                remove_tree(base_fd, ROOT_DIR)
            finally:
                os.close(base_fd)
        make_root(base, ROOT_DIR)
        return "All memory cleared"

    return reply_for(work, "/memories")


def remove_root(base: str) -> None:
    """What another process does with ``rm -rf <base>/memories``."""
    root = os.path.join(base, ROOT_DIR)
    if os.path.isdir(root) and not os.path.islink(root):
        shutil.rmtree(root)
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(root)


def session_script(base: str, script: Sequence[Mapping[str, Any]]) -> Iterator[Reply | None]:
    """One tool on ``base`` for the whole script: the root is made when the tool is, and
    later commands meet whatever happened to it meanwhile."""

    def construct() -> str:
        make_root(base, ROOT_DIR)
        return ""

    constructed = reply_for(construct, "/memories")
    failed = constructed if constructed.is_error else None
    for item in script:
        op = item["op"]
        if op == "call":
            yield failed or execute(base, item["input"], construct=False)
        elif op == "clear_all":
            yield failed or clear_all(base)
        else:
            remove_root(base)
            yield None
