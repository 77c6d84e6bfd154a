"""An in-process fake that writes into every path a request names, for the harness's
check that no case hands an adapter a place outside the run's temporary folders.

It answers as the reference does, so that every step of every case, property and
snapshot is reached; then, for each path argument of the request (the members its op
schema types ``path``; a relative one below its working directory), it creates what is
missing, parents included, and a marker file inside when the path is a directory, as an
implementation that makes whatever it is pointed at would. Existing files are never changed. What it
creates inside the temporary folder (``tempfile.gettempdir()``, the run's) it removes
again before it replies, so that the cases are judged on the reference's answers; what it
creates anywhere else stays, for the check to find. Every created path is appended, as a
JSON string on a line of its own, to the journal named by ``MEMSPEC_HOST_WRITER_JOURNAL``.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
import uuid
from pathlib import Path
from typing import Any

from memref.serve import Implementation
from memspec.corpus.case_paths import path_arguments

MARKER = ".memspec-host-writer-"
JOURNAL = "MEMSPEC_HOST_WRITER_JOURNAL"
_LOCK = threading.Lock()


def _journal(created: list[Path]) -> None:
    if created:
        with _LOCK, open(os.environ[JOURNAL], "a", encoding="utf-8") as journal:
            journal.writelines(json.dumps(str(path)) + "\n" for path in created)


def write_into(path: str) -> list[Path]:
    """Create ``path`` (as a directory, parents included) when nothing is there, and a
    marker inside it when it is a directory; the paths created, parents first."""
    if not path or "\0" in path:
        return []
    target = Path(os.path.abspath(path))  # a relative path where the adapter runs
    missing = [p for p in (target, *target.parents) if not os.path.lexists(p)]
    created: list[Path] = []
    try:
        for directory in reversed(missing):
            directory.mkdir()
            created.append(directory)
        if target.is_dir():
            marker = target / f"{MARKER}{uuid.uuid4().hex}"
            marker.touch(exist_ok=False)
            created.append(marker)
    except (OSError, ValueError):
        pass
    return created


def inside(path: Path | str, folder: Path | str) -> bool:
    """Whether ``path`` lies in ``folder``, compared lexically (``//x`` is ``/x``)."""
    cleaned = os.path.normpath(str(path))
    base = os.path.normpath(str(folder))
    return os.path.commonpath([cleaned.replace("//", "/", 1), base]) == base


def _take_back(created: list[Path]) -> None:
    for path in reversed(created):
        with contextlib.suppress(OSError):
            if path.name.startswith(MARKER):
                path.unlink()
            else:
                path.rmdir()


class HostWriter:
    """The reference, writing into every path it is given."""

    def __init__(self) -> None:
        self._reference = Implementation()

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        reply: dict[str, Any] = self._reference.handle(message)
        if message["op"] in ("start", "stop"):
            return reply
        created = [
            made
            for path in path_arguments(message["op"], message.get("args", {}))
            for made in write_into(path)
        ]
        _journal(created)
        _take_back([path for path in created if inside(path, tempfile.gettempdir())])
        return reply
