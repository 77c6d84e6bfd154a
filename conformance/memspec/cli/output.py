"""Standard output that cannot turn a command's verdict into a traceback.

A reader that goes away (``memspec diff A B | head``) or a stream that cannot be written
(``> /dev/full``) is noticed at the first failed write; later output is dropped, and the
command still ends with its own exit status. The caller then says, in one line, why
output was lost, except for a closed pipe: a reader that stopped reading asked for that.
A character the stream's encoding cannot carry (``PYTHONIOENCODING=ascii``) is written as
its backslash escape.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from typing import Any, TextIO

__all__ = ["GuardedOutput"]


class GuardedOutput:
    """Wraps a text stream; every other attribute is the stream's own."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.failure: OSError | None = None

    @property
    def lost(self) -> str:
        """Why output was lost, when it was and the reader did not just close the pipe."""
        if self.failure is None or self.failure.errno == errno.EPIPE:
            return ""
        return self.failure.strerror or str(self.failure)

    def write(self, text: str) -> int:
        if self.failure is None:
            try:
                self._write_encodable(text)
            except OSError as exc:
                self._fail(exc)
        return len(text)

    def _write_encodable(self, text: str) -> None:
        try:
            self.stream.write(text)
        except UnicodeEncodeError:
            # A text stream encodes the whole text before writing any of it.
            encoding = getattr(self.stream, "encoding", None) or "utf-8"
            self.stream.write(text.encode(encoding, "backslashreplace").decode(encoding))

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self.failure is None:
            try:
                self.stream.flush()
            except OSError as exc:
                self._fail(exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)

    def _fail(self, exc: OSError) -> None:
        self.failure = exc
        # What the stream still buffers would fail again when the interpreter exits.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self.stream.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass
