"""Paths of the memory tool: the virtual ``/memories``, and finding a path below the root.

The memory root is the directory ``<base>/memories``; the model names it ``/memories``.
A path names the root when it is ``/memories`` and an entry below it when it starts with
``/memories/``; any other path, ``/memories_backup/x`` included, is refused.

Below the root a path is resolved as the seed's ``Path.resolve()`` resolves it: empty and
``.`` segments vanish, symbolic links are followed and ``..`` is taken after them (so
``link/..`` is the parent of the link's target), and names that do not exist are kept as
they are. Two things differ. A resolution that climbs above the root on its way is refused,
even when it would come back. And the kernel never follows a link for the walk: each
component is opened from the descriptor of the directory before it, without following
links, and a link is read and interpreted here. A directory swapped for a link while a
command runs is therefore either the directory that was opened or a link that is checked;
nothing outside the root is reached through it.
"""

from __future__ import annotations

import errno
import os
import stat
from collections import deque
from dataclasses import dataclass, field

from memref.memories._constants import ROOT_DIR, VIRTUAL_ROOT
from memref.memories._errors import ToolFailure, does_not_exist

__all__ = [
    "BLOCKED",
    "DIR",
    "FIFO",
    "FILE",
    "MAX_LINKS",
    "MISSING",
    "OTHER",
    "SOCKET",
    "Root",
    "Target",
    "escape",
    "existing_file",
    "resolve",
    "virtual_segments",
]

DIR, FILE, FIFO, SOCKET, OTHER, MISSING = "dir", "file", "fifo", "socket", "other", "missing"
BLOCKED = "blocked"
"""A path below an entry that exists and is not a directory."""
LINK = "link"
MAX_LINKS = 4096
"""Links one resolution may follow in all: a bound on a hostile tree of links that lead to
one another many times over (each followed again and again) without forming a loop. The
spec leaves resolutions beyond 200 links unspecified."""

_O_PATH: int = getattr(os, "O_PATH", 0)
_CLOEXEC = os.O_CLOEXEC
_CHANGED_RETRIES = 1000


def kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return DIR
    if stat.S_ISREG(mode):
        return FILE
    if stat.S_ISLNK(mode):
        return LINK
    if stat.S_ISFIFO(mode):
        return FIFO
    if stat.S_ISSOCK(mode):
        return SOCKET
    return OTHER


def virtual_segments(path: str) -> list[str]:
    """The segments of ``path`` below ``/memories``; refuses a path outside it."""
    if path == VIRTUAL_ROOT:
        return []
    if not path.startswith(VIRTUAL_ROOT + "/"):
        raise ToolFailure(f"Path must start with /memories, got: {path}")
    if "\x00" in path:
        raise ToolFailure(f"The path {path} holds a NUL character.")
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        raise ToolFailure(f"The path {path} holds an unpaired surrogate.") from None
    return _segments(path[len(VIRTUAL_ROOT) + 1 :])


def _segments(text: str) -> list[str]:
    return [segment for segment in text.split("/") if segment not in ("", ".")]


def escape(path: str) -> ToolFailure:
    return ToolFailure(f"Path {path} would escape /memories directory")


def _open_directory(path: str) -> int:
    """A descriptor of the directory at ``path``, links followed (the base and the root are
    the application's configuration, not the model's)."""
    return os.open(path, (_O_PATH or os.O_RDONLY) | os.O_DIRECTORY | _CLOEXEC)


class Root:
    """The memory root of a base: an open descriptor of it, or what stands there instead."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.path = os.path.join(base, ROOT_DIR)
        self.base_fd: int | None = None
        self.fd: int | None = None
        self.kind = MISSING
        try:
            self.base_fd = _open_directory(base)
            self.fd = _open_directory(self.path)
            self.kind = DIR
        except FileNotFoundError:
            pass
        except NotADirectoryError:
            self.kind = _kind_following(self.path)
        self.prefixes = (
            _segments(os.path.normpath(self.path)),
            _segments(os.path.realpath(self.path)),
        )

    def leads_nowhere(self) -> bool:
        """Whether the root's path is a symbolic link whose chain ends at nothing."""
        return self.fd is None and os.path.islink(self.path) and not os.path.exists(self.path)

    def reopen(self) -> int:
        """Open the root again, links followed (after it was made); raises OSError."""
        self.fd = _open_directory(self.path)
        self.kind = DIR
        return self.fd

    def below(self, absolute: list[str]) -> list[str] | None:
        """The segments of an absolute link target below the root, or None when it is not
        below the root (as configured, or with the links on its way resolved)."""
        for prefix in self.prefixes:
            if absolute[: len(prefix)] == prefix:
                return absolute[len(prefix) :]
        return None

    def close(self) -> None:
        for fd in (self.fd, self.base_fd):
            if fd is not None:
                os.close(fd)
        self.fd = self.base_fd = None

    def __enter__(self) -> Root:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _kind_following(path: str) -> str:
    try:
        return kind_of(os.stat(path).st_mode)
    except OSError:
        return OTHER


@dataclass
class Target:
    """Where a path leads: the real names below the root and the directories on the way.

    ``dirs[i]`` is a descriptor of the directory at depth ``i`` (``dirs[0]`` the root,
    owned by the Root). When the walk met something that is not a directory at depth
    ``len(dirs)``, ``stop_kind`` says what (``missing``, ``file``, ...); deeper names are
    kept without being looked up.
    """

    path: str
    root: Root
    parts: list[str] = field(default_factory=list)
    dirs: list[int] = field(default_factory=list)
    stop_kind: str = DIR

    @property
    def is_root(self) -> bool:
        return not self.parts

    @property
    def kind(self) -> str:
        depth, known = len(self.parts), len(self.dirs)
        if depth < known:
            return DIR
        if depth == known:
            return self.stop_kind
        return MISSING if self.stop_kind == MISSING else BLOCKED

    @property
    def fd(self) -> int:
        """The directory itself (kind ``dir``)."""
        return self.dirs[len(self.parts)]

    def directory_at(self, depth: int) -> int | None:
        """The descriptor of the directory at ``depth`` (-1 is the base), if it exists."""
        if depth < 0:
            return self.root.base_fd
        return self.dirs[depth] if depth < len(self.dirs) else None

    def name_at(self, depth: int) -> str:
        return self.parts[depth - 1] if depth > 0 else ROOT_DIR

    def parent(self) -> tuple[int, str] | None:
        """The directory holding the final name and that name, when the directory exists."""
        depth = len(self.parts)
        directory = self.directory_at(depth - 1)
        return None if directory is None else (directory, self.name_at(depth))

    def descend(self, name: str) -> Target:
        """The entry ``name`` of this directory, resolved from here as the kernel resolves
        it (a new Target): a name below one that is missing or not a directory, ``..``
        included, fails with OSError instead of being kept."""
        child = Target(
            self.path,
            self.root,
            list(self.parts),
            [*self.dirs[:1], *(os.dup(fd) for fd in self.dirs[1:])],
            self.stop_kind,
        )
        try:
            child.walk(deque([name]), strict=True)
        except BaseException:
            child.close()
            raise
        return child

    def close(self) -> None:
        for fd in self.dirs[1:]:
            os.close(fd)
        del self.dirs[1:]

    def __enter__(self) -> Target:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _back_to_root(self) -> None:
        self.close()
        self.parts.clear()

    def walk(self, pending: deque[str], *, strict: bool = False) -> None:
        links = 0
        # The links whose targets are still being walked, each with the number of names
        # left after it: a link met again while its own target is being walked is a loop.
        resolving: list[tuple[tuple[int, int, str], int]] = []
        while pending:
            while resolving and len(pending) <= resolving[-1][1]:
                resolving.pop()
            name = pending.popleft()
            depth, known = len(self.parts), len(self.dirs)
            if strict and depth >= known:
                raise OSError(errno.ENOENT if self.stop_kind == MISSING else errno.ENOTDIR, name)
            if name == "..":
                if depth == 0:
                    raise escape(self.path)
                if depth < known:
                    os.close(self.dirs.pop())
                self.parts.pop()
                continue
            if depth >= known:  # below something that is not a directory: names only
                self.parts.append(name)
                continue
            kind, fd, link = _lookup(self.dirs[-1], name)
            if kind == LINK:
                links += 1
                key = _identity(self.dirs[-1], name)
                if links > MAX_LINKS or any(key == held for held, _ in resolving):
                    raise ToolFailure(
                        f"The path {self.path} has too many levels of symbolic links."
                    )
                resolving.append((key, len(pending)))
                segments = _segments(link)
                if link.startswith("/"):
                    below = self.root.below(segments)
                    if below is None:
                        raise escape(self.path)
                    self._back_to_root()
                    segments = below
                pending.extendleft(reversed(segments))
                continue
            self.parts.append(name)
            if fd is not None:
                self.dirs.append(fd)
            else:
                self.stop_kind = kind


def _identity(directory: int, name: str) -> tuple[int, int, str]:
    """A link's place: its directory (device and inode) and its name there."""
    info = os.fstat(directory)
    return info.st_dev, info.st_ino, name


def _lookup(directory: int, name: str) -> tuple[str, int | None, str]:
    """What ``name`` is in ``directory``, seen at one instant: ``(kind, fd, link)``; ``fd``
    is an open descriptor when it is a directory, ``link`` the target when it is a link."""
    if _O_PATH:
        try:
            fd = os.open(name, _O_PATH | os.O_NOFOLLOW | _CLOEXEC, dir_fd=directory)
        except FileNotFoundError:
            return MISSING, None, ""
        kind = kind_of(os.fstat(fd).st_mode)
        if kind == DIR:
            return DIR, fd, ""
        try:
            return kind, None, os.readlink("", dir_fd=fd) if kind == LINK else ""
        finally:
            os.close(fd)
    return _lookup_portably(directory, name)


def _lookup_portably(directory: int, name: str) -> tuple[str, int | None, str]:
    """Without O_PATH: open it as a directory without following links, else look at it;
    a name that changes between the two looks is looked at again."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC
    for _ in range(_CHANGED_RETRIES):
        try:
            return DIR, os.open(name, flags, dir_fd=directory), ""
        except FileNotFoundError:
            return MISSING, None, ""
        except OSError as exc:
            if exc.errno not in (errno.ENOTDIR, errno.ELOOP, errno.EMLINK):
                raise
        try:
            kind = kind_of(os.stat(name, dir_fd=directory, follow_symlinks=False).st_mode)
            if kind == LINK:
                return LINK, None, os.readlink(name, dir_fd=directory)
        except FileNotFoundError:
            return MISSING, None, ""
        except OSError as exc:
            if exc.errno != errno.EINVAL:  # no longer a link
                raise
            continue
        if kind != DIR:
            return kind, None, ""
    raise ToolFailure("The path kept changing while it was resolved.")


def resolve(root: Root, path: str) -> Target:
    """Resolve the model's ``path`` below ``root``; raises ToolFailure when it is refused."""
    segments = virtual_segments(path)
    target = Target(path, root)
    if root.fd is not None:
        target.dirs.append(root.fd)
    else:
        target.stop_kind = root.kind
    try:
        target.walk(deque(segments))
    except BaseException:
        target.close()
        raise
    return target


def existing_file(root: Root, path: str) -> Target:
    """The regular file ``path`` names; a failure when it is missing or something else."""
    target = resolve(root, path)
    kind = target.kind
    if kind == FILE:
        return target
    target.close()
    if kind in (MISSING, BLOCKED):
        raise does_not_exist(path)
    raise ToolFailure(f"The path {path} is not a file.")
