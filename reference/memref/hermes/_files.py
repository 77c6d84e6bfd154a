"""Writing the files: the memory directory, atomic replacement, drift backups
(spec/hermes.md, "Files")."""

from __future__ import annotations

import os
import stat

from memref._atomic import write_atomic
from memref._faults import mutation

__all__ = [
    "StoreUnavailable",
    "ensure_memory_dir",
    "secure_memory_dir",
    "write_backup",
    "write_file",
]

DIR_MODE = 0o700
FILE_MODE = 0o600
BACKUP_MODE = 0o644


class StoreUnavailable(Exception):
    """The memory directory cannot be made or used."""


def ensure_memory_dir(home: str, directory: str) -> None:
    """Create the home and the memory directory when missing; raises StoreUnavailable."""
    for path in (home, directory):
        try:
            info = os.stat(path)
        except FileNotFoundError:
            info = None
        except OSError as exc:
            raise StoreUnavailable(str(exc.strerror)) from exc
        if info is not None:
            if not stat.S_ISDIR(info.st_mode):
                raise StoreUnavailable("not a directory")
            continue
        try:
            mutation("mkdir")
            os.makedirs(path, exist_ok=True)
        except OSError as exc:
            raise StoreUnavailable(str(exc.strerror)) from exc


def secure_memory_dir(directory: str) -> None:
    """Give the memory directory mode 0700 (FILES-003); raises OSError."""
    if stat.S_IMODE(os.stat(directory).st_mode) != DIR_MODE:
        mutation("chmod")
        os.chmod(directory, DIR_MODE)


def write_file(path: str, text: str) -> None:
    """Replace the file at ``path`` (through a symlink) atomically, mode 0600; raises OSError."""
    real = os.path.realpath(path)
    write_atomic(real, text.encode("utf-8"), mode=FILE_MODE)
    if stat.S_IMODE(os.stat(real).st_mode) != FILE_MODE:
        mutation("chmod")
        os.chmod(real, FILE_MODE)


def write_backup(path: str, text: str) -> bool:
    """Write ``text`` to the backup ``path`` whole or not at all (a new file, replacing one
    of that name, mode 0644 under the umask); False when it could not be written."""
    try:
        write_atomic(path, text.encode("utf-8", "surrogateescape"), mode=BACKUP_MODE)
    except OSError:
        return False
    return True
