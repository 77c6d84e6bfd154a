"""In-process fakes of the toy ``demo`` profile for the case forms held locks, readers
beside writers and crash points of an op that is not idempotent."""

from __future__ import annotations

import errno
import fcntl
import os
import secrets
import time
from typing import Any

from file_fakes import FileOps


class FormOps(FileOps):
    """Correct: ``demo.put`` writes atomically through a temporary file of its own;
    ``demo.locked_put`` does so under an exclusive flock of ``lock``; ``demo.add_file``
    claims the first free name ``<stem>``, ``<stem>-2``, ... with link(2) from a complete
    temporary file."""

    name = "form-ops"

    def run(self, op: str, args: dict[str, Any]) -> Any:
        if op == "demo.locked_put":
            return self.locked_put(args["path"], args["text"], args["lock"])
        if op == "demo.add_file":
            return self.add_file(args["stem"], args["text"])
        return super().run(op, args)

    def put(self, path: str, text: str) -> str:
        # A temporary name of its own, so that concurrent writers never share one.
        temporary = f"{path}.{secrets.token_hex(6)}.tmp"
        try:
            self._write_new(temporary, text)
            self._mutation()
            os.replace(temporary, path)
        finally:
            _discard(temporary)
        return "ok"

    def _write_new(self, path: str, text: str) -> None:
        self._mutation()
        with open(path, "x", encoding="utf-8") as handle:
            self._mutation()
            handle.write(text)

    def locked_put(self, path: str, text: str, lock: str) -> str:
        fd = os.open(lock, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            return self.put(path, text)
        finally:
            os.close(fd)

    def add_file(self, stem: str, text: str) -> str:
        temporary = stem + ".tmp"
        try:
            self._write_new(temporary, text)
            for number in range(1, 100):
                final = stem if number == 1 else f"{stem}-{number}"
                self._mutation()
                try:
                    os.link(temporary, final)
                except FileExistsError:
                    continue
                return final
            raise OSError(errno.EEXIST, "no free name")
        finally:
            _discard(temporary)


def _discard(path: str) -> None:
    if os.path.exists(path):
        os.unlink(path)


class IgnoresTheLock(FormOps):
    """Flawed: ``demo.locked_put`` writes without taking the lock."""

    name = "ignores-the-lock"

    def locked_put(self, path: str, text: str, lock: str) -> str:
        return self.put(path, text)


class WritesInPlace(FormOps):
    """Flawed: ``demo.put`` truncates the file and then writes it, as os.WriteFile does."""

    name = "writes-in-place"

    def put(self, path: str, text: str) -> str:
        with open(path, "w", encoding="utf-8") as handle:
            handle.flush()
            time.sleep(0.001)
            handle.write(text)
        return "ok"


class CreatesUnderTheFinalName(FormOps):
    """Flawed: ``demo.add_file`` creates the final name first and then writes into it."""

    name = "creates-under-the-final-name"

    def add_file(self, stem: str, text: str) -> str:
        for number in range(1, 100):
            final = stem if number == 1 else f"{stem}-{number}"
            self._mutation()
            try:
                handle = open(final, "x", encoding="utf-8")  # noqa: SIM115
            except FileExistsError:
                continue
            with handle:
                self._mutation()
                handle.write(text)
            return final
        raise OSError(errno.EEXIST, "no free name")
