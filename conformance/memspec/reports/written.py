"""How memspec writes a file it is asked for (a report, a merged report, expectations, a
badge, the matrix page).

A regular file, or a name not yet taken, is replaced at once: the text goes to a
temporary file beside it, which is then renamed over it, so that a reader never sees
half a file. A symlink keeps its place: the file it points to is replaced. Anything
else is written through, in place: a pipe, a device, and the process's own standard
output or error (``/dev/stdout``), which gets the text where the stream is, after what
the run printed. A rename over ``/dev/stdout`` would replace the system's link, as root,
by a regular file.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["write_file"]


def write_file(path: Path, text: str, encoding: str, errors: str = "strict") -> None:
    stream = _standard_stream(path)
    if stream is not None:
        sys.stdout.flush()
        sys.stderr.flush()
        data = memoryview(text.encode(encoding, errors))
        while data:
            data = data[os.write(stream, data) :]
        return
    if path.exists() and not path.is_file():
        with open(path, "w", encoding=encoding, errors=errors) as handle:
            handle.write(text)
        return
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    temporary = target.with_name(f".{target.name}.tmp")
    temporary.write_text(text, encoding=encoding, errors=errors)
    os.replace(temporary, target)


def _standard_stream(path: Path) -> int | None:
    """1 or 2 where ``path`` is that stream of this process: written through its own
    descriptor, the text lands where the stream is, not over what follows it."""
    try:
        named = os.stat(path)
    except (OSError, ValueError):
        return None
    for fd in (1, 2):
        try:
            stream = os.fstat(fd)
        except OSError:
            continue
        if (named.st_dev, named.st_ino) == (stream.st_dev, stream.st_ino):
            return fd
    return None
