"""memref's ``memories`` tool with two failures whose observations hold what the host's
file systems decide: ``HostShaped`` heads a directory's listing ``Here are`` (the sizes
of directories in it are the file system's), and answers a create of a name that is no
UTF-8 with the ``UnicodeEncodeError`` that opening it raised (its positions count the
characters of the case's absolute path)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memref.serve import Implementation


class HostShaped(Implementation):
    def handle(self, message: Any) -> dict[str, Any]:
        args = message.get("args") or {}
        given = args.get("input") or {}
        path = given.get("path")
        if (
            message.get("op") == "memories.call"
            and given.get("command") == "create"
            and isinstance(path, str)
            and any("\ud800" <= char <= "\udfff" for char in path)
        ):
            try:
                with open(Path(args["base"]) / path.lstrip("/"), "w", encoding="utf-8"):
                    pass
            except UnicodeEncodeError as exc:
                content = f"Error: {exc!r}"
                return {"id": message.get("id"), "result": {"content": content, "is_error": True}}
        reply = super().handle(message)
        result = reply.get("result")
        if isinstance(result, dict) and isinstance(result.get("content"), str):
            result["content"] = result["content"].replace("Here're the files", "Here are the files")
        return reply
