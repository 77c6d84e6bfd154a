"""In-process fakes of a toy ``demo`` profile that touch files: for the harness's own
set-up, concurrency and crash-point machinery."""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path
from typing import Any, ClassVar

from fakes import start_reply


class FileOps:
    """Correct: atomic ``demo.put``, locked ``demo.append``, ``demo.listdir``; counts its
    filesystem mutations and fails the one a request names. ``demo.put_two`` puts two
    files one after the other, so it is not all or nothing."""

    name = "file-ops"
    capabilities = ("concurrency", "fault-injection", "git")

    def __init__(self) -> None:
        self._count = 0
        self._fail_at: int | None = None

    def _mutation(self) -> None:
        self._count += 1
        if self._count == self._fail_at:
            raise OSError(errno.EIO, "injected")

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        op, request_id, args = message["op"], message["id"], message.get("args", {})
        if op == "start":
            return start_reply(
                request_id,
                self.name,
                ["demo"],
                self.capabilities,
                version="0",
                protocol="1.1.0",
            )
        if op == "stop":
            return {"id": request_id, "result": None}
        fault = message.get("fault")
        self._count, self._fail_at = 0, fault["fail_mutation"] if fault else None
        try:
            reply: dict[str, Any] = {"id": request_id, "result": self.run(op, args)}
        except OSError as exc:
            reply = {"id": request_id, "error": {"kind": "io", "message": str(exc)}}
        except KeyError:
            reply = {"id": request_id, "error": {"kind": "unknown-op", "message": op}}
        if fault:
            reply["mutations"] = self._count
        return reply

    def run(self, op: str, args: dict[str, Any]) -> Any:
        if op == "demo.constants":
            return {}
        if op == "demo.listdir":
            return sorted(os.listdir(args["path"]))
        if op == "demo.put":
            return self.put(args["path"], args["text"])
        if op == "demo.append":
            return self.append(args["path"], args["line"])
        if op == "demo.put_two":  # two atomic writes, not one transaction
            self.put(os.path.join(args["dir"], "a.md"), args["text"])
            return self.put(os.path.join(args["dir"], "b.md"), args["text"])
        raise KeyError(op)

    def put(self, path: str, text: str) -> str:
        temporary = path + ".tmp"
        try:
            self._mutation()
            with open(temporary, "w", encoding="utf-8") as handle:
                self._mutation()
                handle.write(text)
            self._mutation()
            os.replace(temporary, path)
        except OSError:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise
        return "ok"

    def append(self, path: str, line: str) -> str:
        with open(path + ".lock", "a", encoding="utf-8") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self._mutation()
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(line + "\n")
        return "ok"


class AppendsTwiceAfterAFault(FileOps):
    """Flawed: ``demo.put`` appends, so a rerun after a failure duplicates the text."""

    name = "appends"

    def put(self, path: str, text: str) -> str:
        self._mutation()
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text)
        self._mutation()
        return "ok"


class Unlocked(FileOps):
    """Flawed: ``demo.append`` reads, then writes the whole file back without a lock."""

    name = "unlocked"

    def append(self, path: str, line: str) -> str:
        old = Path(path).read_text(encoding="utf-8") if os.path.exists(path) else ""
        os.sched_yield()
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(old + line + "\n")
        return "ok"


class LosesALineInItsThirdTree(FileOps):
    """Flawed, but rarely seen: ``demo.append`` keeps every line in the first two trees
    it is handed and drops one in the third, as a lost update that only some
    interleavings bring about would."""

    name = "loses-a-line-late"
    trees: ClassVar[set[str]] = set()

    def append(self, path: str, line: str) -> str:
        trees = LosesALineInItsThirdTree.trees
        trees.add(os.path.dirname(path))
        if len(trees) == 3 and line.startswith("w0-"):
            return "ok"
        return super().append(path, line)
