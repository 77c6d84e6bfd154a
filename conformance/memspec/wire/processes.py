"""The host's processes as Linux's ``/proc`` shows them (none elsewhere): each one's
state and the fields after it in ``/proc/PID/stat``."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

__all__ = ["processes", "stat_fields"]


def stat_fields(pid: int | str) -> list[bytes] | None:
    """The fields of ``/proc/PID/stat`` after the command's name (state, parent, process
    group, session, ...), or None when the process is gone or cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rpartition(b")")[2].split()
    except OSError:
        return None


def processes() -> Iterator[tuple[int, list[bytes]]]:
    """Every process with its stat fields (``stat_fields``), as far as they can be read."""
    names: list[str] = []
    with contextlib.suppress(OSError):
        names = os.listdir("/proc")
    for name in names:
        if name.isdigit():
            fields = stat_fields(name)
            if fields is not None and len(fields) > 4:
                yield int(name), fields
