"""In-process turnlog ports built on memref's answers, for pages that compare two builds
of one implementation: one misreads TURNLOG-WRITE-004, the other is the fixed build."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memref.serve import Implementation


def _quoted(title: str, newline: str) -> str:
    escaped = title.replace("\\", "\\\\").replace('"', '\\"').replace("\n", newline)
    return f'"{escaped}"'


class QuotePortFixed(Implementation):
    """A turnlog port (claims turnlog alone) whose answers are memref's."""

    def start_result(self) -> dict[str, Any]:
        return {
            **super().start_result(),
            "implementation": {"name": "quote-port", "version": "0.2.0", "language": "typescript"},
            "profiles": ["turnlog"],
        }


class QuotePort(QuotePortFixed):
    """The same port before the fix: it reads "each newline by one space + `"`" as a
    newline becoming a space and a quote, so a title holding a newline is written as
    ``"a \\"b\\" \\\\ c "d"`` where ``"a \\"b\\" \\\\ c d"`` is due."""

    def handle(self, message: Mapping[str, Any]) -> dict[str, Any]:
        reply = super().handle(message)
        args = message.get("args")
        title = args.get("title") if isinstance(args, dict) else None
        written = reply.get("result")
        if (
            message.get("op") == "turnlog.write"
            and isinstance(title, str)
            and "\n" in title
            and isinstance(written, str)
            and Path(written).is_file()
        ):
            right, wrong = (
                ("title: " + _quoted(title, newline) + "\n").encode() for newline in (" ", ' "')
            )
            Path(written).write_bytes(Path(written).read_bytes().replace(right, wrong, 1))
        return reply


class IndexesFileByFile(QuotePortFixed):
    """A store that commits a batch one file at a time: ``turnlog.index_files`` sends each
    item as its own ``turnlog.index_file``, so a fault in the second leaves the first row
    written. Its trees and its answers after a clean rerun are right."""

    def handle(self, message: Mapping[str, Any]) -> dict[str, Any]:
        args = message.get("args")
        if message.get("op") != "turnlog.index_files" or not isinstance(args, dict):
            return super().handle(message)
        fault = message.get("fault")
        fail_at = fault.get("fail_mutation") if isinstance(fault, dict) else None
        used, rows = 0, []
        for item in args.get("items", []):
            single = {"op": "turnlog.index_file", "id": message.get("id")}
            single["args"] = {"store_dir": args["store_dir"], "now": args["now"], **item}
            if isinstance(fail_at, int):
                single["fault"] = {"fail_mutation": max(fail_at - used, 1)}
            reply = super().handle(single)
            used += reply.get("mutations", 0)
            if "error" in reply or (isinstance(fail_at, int) and used >= fail_at):
                return {**reply, "mutations": used} if isinstance(fail_at, int) else reply
            rows.append(reply["result"])
        reply = {"id": message.get("id"), "result": rows}
        return {**reply, "mutations": used} if isinstance(fail_at, int) else reply
