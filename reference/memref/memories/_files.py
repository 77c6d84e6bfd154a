"""How the tool changes the filesystem: every write goes through a directory descriptor.

Files the tool creates or rewrites get mode 0600, directories it creates 0700 (the
directory's mode set exactly, whatever the umask). A new file is complete before its name
appears, and never replaces an existing one; a rewrite goes to a temporary file that is
renamed over the old one. Every change is announced to ``memref._faults.mutation`` first.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Callable

from memref._atomic import write_all_and_sync
from memref._faults import mutation
from memref.memories._constants import DIR_MODE, FILE_MODE
from memref.memories._errors import ToolFailure
from memref.memories._paths import MISSING, Target

__all__ = [
    "MAX_FILE_BYTES",
    "NotRegular",
    "TooLarge",
    "create_exclusive",
    "make_parent_dirs",
    "make_root",
    "read_regular",
    "read_text",
    "readable_directory",
    "remove",
    "remove_tree",
    "rename",
    "replace",
]

_CLOEXEC = os.O_CLOEXEC
_O_TMPFILE: int = getattr(os, "O_TMPFILE", 0)


MAX_FILE_BYTES = 16 << 20
"""The largest file the tool reads: a command on a larger one fails (MEMORIES-FILE-006)."""


class NotRegular(Exception):
    """The name is no longer a regular file when it is opened."""


class TooLarge(Exception):
    """The file holds more than MAX_FILE_BYTES."""


def readable_directory(fd: int) -> int:
    """A descriptor of the same directory that can be listed and synced."""
    return os.open(".", os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC, dir_fd=fd)


def read_regular(directory: int, name: str) -> bytes:
    """The whole of the regular file ``name``; never follows a link, never blocks. A file
    of more than MAX_FILE_BYTES raises TooLarge, having read at most one byte past it."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC, dir_fd=directory)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK, errno.ENOENT, errno.ENXIO):
            raise NotRegular from exc
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular
        if info.st_size > MAX_FILE_BYTES:
            raise TooLarge
        chunks, left = [], MAX_FILE_BYTES + 1  # the file may have grown since fstat
        while left and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        if not left:
            raise TooLarge
        return b"".join(chunks)
    finally:
        os.close(fd)


def _sync(directory: int) -> None:
    # Some filesystems cannot flush a directory; the data itself is already durable.
    with contextlib.suppress(OSError):
        fd = readable_directory(directory)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _make_directory(parent: int, name: str) -> int:
    """Create the directory ``name`` (mode 0700) and return a descriptor of it; one that
    appeared meanwhile is used as it is, as the seed does."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
    try:
        mutation("mkdir")
        os.mkdir(name, DIR_MODE, dir_fd=parent)
    except FileExistsError:
        return os.open(name, flags, dir_fd=parent)
    fd = os.open(name, flags, dir_fd=parent)
    if stat.S_IMODE(os.fstat(fd).st_mode) != DIR_MODE:  # a umask took bits away
        try:
            mutation("chmod")
            os.fchmod(fd, DIR_MODE)
        except BaseException:
            os.close(fd)
            raise
    return fd


def make_root(base: str, name: str) -> None:
    """The seed's constructor: create ``<base>/<name>`` and its missing ancestors, each 0700.

    The base is the application's configuration, so this walks it by path.
    """
    missing = []
    current = os.path.join(base, name)
    while not os.path.exists(current):
        missing.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    for path in reversed(missing):
        parent_path, leaf = os.path.split(path)
        parent_fd = os.open(parent_path or ".", os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
        try:
            os.close(_make_directory(parent_fd, leaf))
        except OSError as exc:
            # A link that leads nowhere stands there: the seed's mkdir finds it and goes on.
            if exc.errno not in (errno.ELOOP, errno.ENOTDIR) or not os.path.islink(path):
                raise
        finally:
            os.close(parent_fd)


def make_parent_dirs(target: Target) -> tuple[int, str] | None:
    """Create the missing directories above the target (0700 each), as the seed does, and
    return the directory holding its final name with that name. None when the nearest
    existing ancestor is the parent itself and it is not a directory: nothing is made, and
    the command's own step then fails."""
    found = target.parent()
    if found is not None:
        return found
    depth, known = len(target.parts), len(target.dirs)
    if target.stop_kind != MISSING:
        if depth == known + 1:
            return None
        raise OSError(errno.ENOTDIR, "Not a directory")
    for level in range(known, depth):
        if level == 0 and target.root.leads_nowhere():
            # The seed makes the directories above a new name where its resolved path
            # lies: for a root that is a link to nothing, the place the link names.
            make_root(*os.path.split(os.path.realpath(target.root.path)))
            target.dirs.append(target.root.reopen())
            continue
        parent = target.directory_at(level - 1)
        if parent is None:
            raise OSError(errno.ENOENT, "No such file or directory")
        target.dirs.append(_make_directory(parent, target.name_at(level)))
    return target.parent()


def create_exclusive(directory: int, name: str, data: bytes) -> bool:
    """Make ``name`` a new regular file holding ``data`` (mode 0600); False when the name
    exists. The name appears only once the file is complete and flushed."""
    if _O_TMPFILE:
        try:
            made = _create_unnamed(directory, name, data)
        except OSError as exc:
            if exc.errno not in (errno.EOPNOTSUPP, errno.EISDIR, errno.ENOENT, errno.EINVAL):
                raise
        else:
            _sync(directory)
            return made
    made = _create_through_temporary(directory, name, data)
    _sync(directory)
    return made


def _create_unnamed(directory: int, name: str, data: bytes) -> bool:
    mutation("create")
    fd = os.open(".", _O_TMPFILE | os.O_WRONLY | _CLOEXEC, FILE_MODE, dir_fd=directory)
    try:
        write_all_and_sync(fd, data)
        mutation("link")
        try:
            os.link(f"/proc/self/fd/{fd}", name, dst_dir_fd=directory, follow_symlinks=True)
        except FileExistsError:
            return False
    finally:
        os.close(fd)
    return True


def _temporary(directory: int, data: bytes) -> str:
    """A new hidden file in ``directory`` holding ``data``, flushed; its name."""
    name = f".tmp-{secrets.token_hex(8)}"
    mutation("create")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC
    fd = os.open(name, flags, FILE_MODE, dir_fd=directory)
    try:
        write_all_and_sync(fd, data)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=directory)
        raise
    os.close(fd)
    return name


def _publish(directory: int, data: bytes, publish: Callable[[str], None]) -> None:
    """Write ``data`` to a new hidden file, hand its name to ``publish``, and remove it if
    it is still there afterwards."""
    temporary = _temporary(directory, data)
    try:
        publish(temporary)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=directory)


def _create_through_temporary(directory: int, name: str, data: bytes) -> bool:
    def link(temporary: str) -> None:
        mutation("link")
        os.link(temporary, name, src_dir_fd=directory, dst_dir_fd=directory)

    try:
        _publish(directory, data, link)
    except FileExistsError:
        return False
    return True


def replace(directory: int, name: str, data: bytes) -> None:
    """Replace the file ``name`` with one holding ``data`` (mode 0600), atomically."""

    def rename_over(temporary: str) -> None:
        mutation("rename")
        os.rename(temporary, name, src_dir_fd=directory, dst_dir_fd=directory)

    _publish(directory, data, rename_over)
    _sync(directory)


def remove(directory: int, name: str) -> None:
    mutation("unlink")
    os.unlink(name, dir_fd=directory)


def _open_directory_below(directory: int, name: str) -> int:
    return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC, dir_fd=directory)


def _identity(fd: int) -> tuple[int, int]:
    info = os.fstat(fd)
    return info.st_dev, info.st_ino


def _empty_but_directories(fd: int) -> list[str]:
    """Remove every entry of the directory ``fd`` that is not a directory (links
    themselves, never followed); the names of the directories left, in reverse order."""
    directories = []
    for entry in os.listdir(fd):
        if stat.S_ISDIR(os.stat(entry, dir_fd=fd, follow_symlinks=False).st_mode):
            directories.append(entry)
        else:
            remove(fd, entry)
    directories.sort(reverse=True)
    return directories


def remove_tree(directory: int, name: str) -> None:
    """Delete the directory ``name`` and everything in it; links are removed, never
    followed.

    The walk is iterative and holds two descriptors at most, whatever the depth: it goes
    down into one directory at a time and comes back up through ``..``, checking that
    ``..`` is the directory it came from (a tree moved meanwhile stops the walk with
    ``ENOENT`` instead of deleting elsewhere). Its memory is the names still to visit.
    """
    current = _open_directory_below(directory, name)
    # One level per directory entered: its identity, its name in its parent, and the
    # directories in it still to delete.
    levels: list[tuple[tuple[int, int], str, list[str]]] = []
    try:
        levels.append((_identity(current), name, _empty_but_directories(current)))
        while len(levels) > 1 or levels[0][2]:
            _, own_name, pending = levels[-1]
            if pending:
                child_name = pending.pop()
                try:
                    child = _open_directory_below(current, child_name)
                except FileNotFoundError:
                    continue
                os.close(current)
                current = child
                levels.append((_identity(current), child_name, _empty_but_directories(current)))
                continue
            parent = os.open("..", os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC, dir_fd=current)
            levels.pop()
            if _identity(parent) != levels[-1][0]:
                os.close(parent)
                raise OSError(errno.ENOENT, "The directory moved while it was deleted")
            os.close(current)
            current = parent
            mutation("rmdir")
            os.rmdir(own_name, dir_fd=current)
    finally:
        os.close(current)
    mutation("rmdir")
    os.rmdir(name, dir_fd=directory)


def rename(source: tuple[int, str], destination: tuple[int, str]) -> None:
    mutation("rename")
    os.rename(source[1], destination[1], src_dir_fd=source[0], dst_dir_fd=destination[0])
    _sync(destination[0])


def read_text(target: Target, path: str) -> str:
    """The target file's content as text; a failure when it is not UTF-8 or has gone."""
    found = target.parent()
    assert found is not None
    try:
        data = read_regular(*found)
    except NotRegular:
        raise ToolFailure(
            f"The file {path} no longer exists (may have been deleted or renamed concurrently)."
        ) from None
    except TooLarge:
        raise ToolFailure(
            f"The file {path} is larger than {MAX_FILE_BYTES >> 20} MiB, the most the tool reads."
        ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolFailure(f"The file {path} is not valid UTF-8 text.") from None
