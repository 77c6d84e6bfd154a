"""A Hypothesis strategy for awkward memory trees, and a builder that makes them real."""

from __future__ import annotations

import contextlib
import os

from hypothesis import strategies as st

NAMES = [
    "EVVA.md",
    "memory",
    "MEMORY.md",
    "a.md",
    "b.md",
    ".md",
    "x.md",
    "sub",
    "UP.MD",
    "\udcff.md",
]
KINDS = ["file", "dir", "symlink", "dangling", "loop", "fifo", "unreadable", "empty", "binary"]


@st.composite
def hostile_trees(draw: st.DrawFn) -> list[tuple[str, str, bytes]]:
    """Entries ``(relative path, kind, content)``, parents before children."""
    paths = draw(
        st.lists(
            st.lists(st.sampled_from(NAMES), min_size=1, max_size=3).map("/".join),
            max_size=12,
            unique=True,
        )
    )
    entries = []
    for path in sorted(paths, key=lambda p: p.count("/")):
        kind = draw(st.sampled_from(KINDS))
        content = draw(
            st.one_of(
                st.binary(max_size=200),
                st.sampled_from([b"---\ntype: user\ndescription: d\n---\nbody", b"\xff\xfe---"]),
            )
        )
        entries.append((path, kind, content))
    return entries


def build_tree(root: str, entries: list[tuple[str, str, bytes]]) -> None:
    """Create what can be created; a path whose parent is not a directory is skipped."""
    for relative, kind, content in entries:
        path = os.path.join(root, relative)
        parent = os.path.dirname(path)
        if not os.path.isdir(parent) or os.path.lexists(path):
            with contextlib.suppress(OSError):
                os.makedirs(parent, exist_ok=True)
            if not os.path.isdir(parent) or os.path.lexists(path):
                continue
        if kind == "dir":
            os.mkdir(path)
        elif kind == "symlink":
            os.symlink(os.path.join(root, "a.md"), path)
        elif kind == "dangling":
            os.symlink(os.path.join(root, "nowhere"), path)
        elif kind == "loop":
            os.symlink(path, path)
        elif kind == "fifo":
            os.mkfifo(path)
        else:
            data = b"" if kind == "empty" else content
            if kind == "binary":
                data = bytes(range(256)) + content
            with open(path, "wb") as handle:
                handle.write(data)
            if kind == "unreadable":
                os.chmod(path, 0)
