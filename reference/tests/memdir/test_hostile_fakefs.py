"""Load and Scan on generated hostile trees in a fake filesystem, as a non-root user.

Permission bits do not bind root, so entries that must be unreadable are made in
pyfakefs with ``allow_root_user=False``; a fresh fake filesystem serves each example.
"""

from __future__ import annotations

import os

from hostile_trees import build_tree, hostile_trees
from hypothesis import given, settings
from hypothesis import strategies as st
from pyfakefs.fake_filesystem_unittest import Patcher

from memref.memdir import load, scan_memory_files

ROOT = "/home/user"


def _without_undecodable(tree: list[tuple[str, str, bytes]]) -> list[tuple[str, str, bytes]]:
    # The fake filesystem keeps names as str; undecodable bytes belong to the real-disk test.
    return [entry for entry in tree if entry[0].isprintable() and entry[1] != "fifo"]


@settings(max_examples=60, deadline=None)
@given(
    tree=hostile_trees().map(_without_undecodable),
    locked=st.lists(
        st.sampled_from(
            ["", "memory", "sub", "memory/sub", "a.md", "x.md", "memory/MEMORY.md", "EVVA.md"]
        ),
        max_size=4,
    ),
)
def test_load_and_scan_never_raise_with_permission_denied_entries(
    tree: list[tuple[str, str, bytes]], locked: list[str]
) -> None:
    with Patcher(allow_root_user=False) as patcher:
        assert patcher.fs is not None
        os.makedirs(ROOT)
        build_tree(ROOT, tree)
        for relative in locked:
            path = os.path.join(ROOT, relative) if relative else ROOT
            if os.path.lexists(path) and not os.path.islink(path):
                os.chmod(path, 0)
        snapshot = load(ROOT, ROOT, True)
        headers = scan_memory_files(os.path.join(ROOT, "memory"))
        assert isinstance(snapshot.warnings, list)
        for header in headers:
            # Whatever is listed could be opened and read as the fake user.
            with open(header.path, "rb") as handle:
                handle.read(1)
