"""Filesystem primitives with Go's error texts, reporting every mutation first."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import stat
from collections.abc import Iterator

from memref._atomic import write_all_and_sync
from memref._faults import mutation
from memref._gostr import errno_text
from memref.errors import OpError, kind_for_errno

__all__ = [
    "NotRegular",
    "exists",
    "flocked",
    "go_rename",
    "is_dir",
    "kind_of",
    "list_dir",
    "mkdir_all",
    "op_error",
    "path_error",
    "read_dir_names",
    "read_regular",
    "sync_directory",
    "write_file_atomic",
]


class NotRegular(OSError):
    """A path that is neither a regular file nor a directory (a FIFO, a socket, a device)."""


def kind_of(exc: OSError) -> str:
    return "invalid-input" if exc.errno == errno.ENAMETOOLONG else kind_for_errno(exc.errno)


def path_error(op: str, path: str, exc: OSError) -> str:
    """Go's *PathError text: ``<op> <path>: <reason>``."""
    if isinstance(exc, NotRegular):
        return f"{op} {path}: not a regular file"
    return f"{op} {path}: {errno_text(exc.errno)}"


def op_error(prefix: str, message: str, exc: OSError) -> OpError:
    return OpError(kind_of(exc), f"{prefix}{message}")


def exists(path: str) -> bool:
    try:
        os.stat(path)
    except (OSError, ValueError):
        return False
    return True


def is_dir(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


class ReadError(Exception):
    """A failed read, carrying Go's message and the underlying error."""

    def __init__(self, message: str, cause: OSError) -> None:
        super().__init__(message)
        self.message = message
        self.cause = cause


def read_regular(path: str) -> bytes:
    """os.ReadFile, except that a FIFO or device is refused instead of blocking.

    Raises ReadError with Go's text (``open <p>: ...`` or ``read <p>: ...``)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise ReadError(path_error("open", path, exc), exc) from exc
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            is_dir_error = OSError(errno.EISDIR, "is a directory")
            raise ReadError(path_error("read", path, is_dir_error), is_dir_error)
        if not stat.S_ISREG(info.st_mode):
            irregular = NotRegular(errno.EINVAL, "not a regular file")
            raise ReadError(path_error("read", path, irregular), irregular)
        chunks = []
        while True:
            try:
                chunk = os.read(fd, 1 << 20)
            except OSError as exc:
                raise ReadError(path_error("read", path, exc), exc) from exc
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def list_dir(path: str) -> list[tuple[str, int]]:
    """Entries of a directory as (name, lstat mode); [] when it cannot be listed."""
    found: list[tuple[str, int]] = []
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                try:
                    mode = entry.stat(follow_symlinks=False).st_mode
                except OSError:
                    continue
                found.append((entry.name, mode))
    except (OSError, ValueError):
        return []
    return found


def mkdir_all(path: str, mode: int = 0o700) -> None:
    """Go's os.MkdirAll; raises OSError carrying ``filename`` = the path that failed."""
    try:
        info = os.stat(path)
    except OSError:
        pass
    else:
        if stat.S_ISDIR(info.st_mode):
            return
        raise OSError(errno.ENOTDIR, "not a directory", path)
    parent = os.path.dirname(path.rstrip("/"))
    if parent and parent != path:
        mkdir_all(parent, mode)
    try:
        mutation("mkdir")
        os.mkdir(path, mode)
    except OSError as exc:
        if is_dir(path):
            return
        raise OSError(exc.errno, exc.strerror, path) from exc


def mkdir_message(exc: OSError) -> str:
    return path_error("mkdir", str(exc.filename), exc)


class SaveError(Exception):
    """writeFileAtomic failure: ``stage`` is ``writing`` or ``saving``."""

    def __init__(self, stage: str, message: str, cause: OSError) -> None:
        super().__init__(message)
        self.stage = stage
        self.message = message
        self.cause = cause


def write_file_atomic(path: str, data: bytes, *, sync_dir: bool = True) -> None:
    """moa's writeFileAtomic: temp file beside ``path``, 0600, fsync, rename, fsync dir.

    A caller writing many files into one directory may pass ``sync_dir=False`` and call
    ``sync_directory`` once afterwards, before anything that depends on them."""
    directory, base = os.path.split(path)
    temporary = os.path.join(directory, f".{base}.{secrets.randbelow(10**9)}.tmp")
    try:
        mutation("create")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise SaveError("writing", path_error("open", temporary, exc), exc) from exc
    try:
        try:
            mutation("chmod")
            os.fchmod(fd, 0o600)
            write_all_and_sync(fd, data)
        finally:
            os.close(fd)
    except OSError as exc:
        _discard(temporary)
        raise SaveError("writing", path_error("write", temporary, exc), exc) from exc
    try:
        go_rename(temporary, path)
    except OSError as exc:
        _discard(temporary)
        message = f"rename {temporary} {path}: {errno_text(exc.errno)}"
        raise SaveError("saving", message, exc) from exc
    except BaseException:
        _discard(temporary)
        raise
    if sync_dir:
        sync_directory(directory)


def go_rename(old: str, new: str) -> None:
    """Go's os.Rename: onto an existing directory it fails with EEXIST ("file exists"),
    where rename(2) would say EISDIR."""
    try:
        if stat.S_ISDIR(os.lstat(new).st_mode):
            raise OSError(errno.EEXIST, "file exists")
    except FileNotFoundError:
        pass
    mutation("rename")
    os.rename(old, new)


def read_dir_names(path: str) -> list[str] | None:
    """os.ReadDir's names, or None when ``path`` does not exist; raises OSError (with
    Go's ``open <p>: ...`` text in ``strerror``) for anything else, a file included."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OSError(exc.errno, path_error("open", path, exc)) from exc
    try:
        return os.listdir(fd)
    finally:
        os.close(fd)


def sync_directory(directory: str) -> None:
    """Flush a directory so renames into it are durable; an fsync error is ignored."""
    try:
        dir_fd = os.open(directory or ".", os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        raise SaveError("saving", path_error("open", directory, exc), exc) from exc
    try:
        with contextlib.suppress(OSError):
            os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _discard(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


@contextlib.contextmanager
def flocked(path: str) -> Iterator[None]:
    """An exclusive flock on ``path`` (created 0600 when missing, never deleted)."""
    if not os.path.lexists(path):
        mutation("create lock")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
