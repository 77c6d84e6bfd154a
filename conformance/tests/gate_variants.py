"""A ``memories`` handler with a wording drift, and variants of it that each do one thing
worse: for showing that an expectations file written from the drifting handler fails the
run of every worse variant.

Usage: ``python gate_variants.py [WORSE[,WORSE...]]``. The handler is memref with every
``content`` text prefixed ``» `` (a wording drift: most cases fail on their result, and an
expectations file lists them). Each ``WORSE`` adds one flaw:

- ``reads-outside``: a ``view`` whose path holds ``..`` answers the text of the file it
  names, resolved from the memory root without any check (it reads outside);
- ``stack-trace``: every error text carries a stack trace naming the handler's folder,
  its working directory and ``$HOME``;
- ``relative-path``: every error text carries the target's path relative to the working
  directory;
- ``fifo-wipe``: a ``create`` onto a FIFO first deletes every file of the memory root and
  writes beside the case's folder, then hangs;
- ``empties-later``: a file written successfully is emptied 0.5 s later;
- ``mode-0666``: every file a command writes is made mode 0666;
- ``writes-beside``: every ``create`` also writes a file beside the case's folder;
- ``writes-cwd``: every ``create`` also writes a file in the working directory;
- ``all``: every one of them.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

from memref.serve import Implementation

WORSE = (
    "reads-outside",
    "stack-trace",
    "relative-path",
    "fifo-wipe",
    "empties-later",
    "mode-0666",
    "writes-beside",
    "writes-cwd",
)
_WRITES = {"create", "str_replace", "insert", "rename"}


def _target(args: dict[str, Any], member: str = "path") -> Path | None:
    base, given = args.get("base"), (args.get("input") or {}).get(member)
    if not isinstance(base, str) or not isinstance(given, str):
        return None
    return Path(base) / given.lstrip("/")


class Drifting(Implementation):
    def __init__(self, worse: set[str]) -> None:
        super().__init__()
        self.worse = worse

    def handle(self, message: Any) -> dict[str, Any]:
        op, args = message.get("op"), message.get("args") or {}
        if op != "memories.call":
            reply = super().handle(message)
            if op == "start":
                reply["result"]["implementation"]["name"] = "gate-variant"
            return reply
        command = (args.get("input") or {}).get("command")
        target = _target(args)
        if "fifo-wipe" in self.worse and command == "create" and target and target.is_fifo():
            self._wipe(args)
        climbs = ".." in str((args.get("input") or {}).get("path"))
        reads = "reads-outside" in self.worse and command == "view" and climbs
        if reads and target is not None and target.is_file():
            text = target.read_text(encoding="utf-8", errors="replace")
            return {"id": message["id"], "result": {"content": text, "is_error": False}}
        reply = super().handle(message)
        result = reply.get("result")
        if not isinstance(result, dict) or not isinstance(result.get("content"), str):
            return reply
        result["content"] = "» " + result["content"]
        if result.get("is_error"):
            result["content"] += self._error_tail(target)
        elif command in _WRITES:
            self._after_write(command, args)
        return reply

    def _error_tail(self, target: Path | None) -> str:
        tail = ""
        if "stack-trace" in self.worse:
            stack = "".join(traceback.format_stack(limit=2))
            tail += f"\n{stack}cwd: {os.getcwd()}\nhome: {os.environ.get('HOME', '')}"
        if "relative-path" in self.worse and target is not None:
            tail += f" ({os.path.relpath(target, os.getcwd())})"
        return tail

    def _after_write(self, command: str, args: dict[str, Any]) -> None:
        member = "new_path" if command == "rename" else "path"
        target = _target(args, member)
        if target is None or not target.is_file():
            return
        if "mode-0666" in self.worse:
            os.chmod(target, 0o666)
        if "empties-later" in self.worse:
            threading.Timer(0.5, lambda: target.write_bytes(b"")).start()
        case_folder = Path(args["base"]).parent
        if command == "create" and "writes-beside" in self.worse:
            (case_folder.parent / f"beside-{case_folder.name}").write_text("x\n")
        if command == "create" and "writes-cwd" in self.worse:
            Path("stray.txt").write_text("x\n")

    def _wipe(self, args: dict[str, Any]) -> None:
        root = Path(args["base"]) / "memories"
        for path in sorted(root.rglob("*"), reverse=True):
            if path.is_file() and not path.is_symlink():
                path.unlink()
        case_folder = Path(args["base"]).parent
        (case_folder.parent / f"wiped-{case_folder.name}").write_text("x\n")
        time.sleep(3600)


def main() -> int:
    named = {w for w in (sys.argv[1] if len(sys.argv) > 1 else "").split(",") if w}
    worse = set(WORSE) if "all" in named else named
    handler = Drifting(worse)
    for line in sys.stdin:
        message = json.loads(line)
        reply = handler.handle(message)
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        if message.get("op") == "stop":
            return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
