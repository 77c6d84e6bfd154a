"""In-process ports of the memories profile that keep the files in memory, as some
third-party handlers do: the store is read from the root at the first call for a base,
and written back whole after each command. They claim no capability, and answer only
what the root-deletion and sibling-escape cases send."""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import Any

from fakes import start_reply

ROOT = "/memories"
_PATH_MEMBERS = ("path", "old_path", "new_path")
EDITED = "Edited."


class InMemoryStore:
    """Refuses a path that climbs out of /memories and a delete of the root; replaces a
    text in a file (its reply worded its own way)."""

    name = "in-memory-store"

    def __init__(self) -> None:
        self.stores: dict[str, dict[str, bytes]] = {}

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        op, request_id = message["op"], message["id"]
        if op == "start":
            return start_reply(request_id, self.name, ["memories"])
        if op == "stop":
            return {"id": request_id, "result": None}
        if op != "memories.call":
            return {"id": request_id, "error": {"kind": "unknown-op", "message": op}}
        base = Path(message["args"]["base"])
        store = self.stores.setdefault(str(base), _load(base / "memories"))
        content = self.command(store, message["args"]["input"])
        _flush(base / "memories", store)
        return {"id": request_id, "result": {"content": content, "is_error": content != EDITED}}

    def command(self, store: dict[str, bytes], tool_input: dict[str, Any]) -> str:
        for member in _PATH_MEMBERS:
            path = tool_input.get(member)
            if isinstance(path, str) and not _below_root(path):
                return f"Path {path} would escape /memories directory"
        path = str(tool_input.get("path"))
        if tool_input.get("command") == "delete" and _clean(path) == ROOT:
            return self.delete_root(store)
        if tool_input.get("command") == "str_replace":
            return self.str_replace(store, path, tool_input["old_str"], tool_input["new_str"])
        return f"Unsupported: {tool_input.get('command')}"

    def delete_root(self, store: dict[str, bytes]) -> str:
        return "Cannot delete the /memories directory itself"

    def str_replace(self, store: dict[str, bytes], path: str, old: str, new: str) -> str:
        key = _clean(path).removeprefix(ROOT + "/")
        text = self.read(store[key])
        store[key] = text.replace(old, new, 1).encode()
        return EDITED

    def read(self, content: bytes) -> str:
        return content.decode()


class EmptiesOnRootDelete(InMemoryStore):
    """Answers a delete of the root as refused, but empties the store first."""

    name = "empties-on-root-delete"

    def delete_root(self, store: dict[str, bytes]) -> str:
        store.clear()
        return super().delete_root(store)


class TabsToSpaces(InMemoryStore):
    """Reads a file with its tabs turned into spaces, as an editor might, and writes it
    back so."""

    name = "tabs-to-spaces"

    def read(self, content: bytes) -> str:
        return content.decode().expandtabs(4)


def _clean(path: str) -> str:
    return posixpath.normpath(path) if path.startswith("/") else path


def _below_root(path: str) -> bool:
    clean = _clean(path)
    return clean == ROOT or clean.startswith(ROOT + "/")


def _load(root: Path) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for directory, _, names in os.walk(root):
        for name in names:
            full = Path(directory, name)
            files[full.relative_to(root).as_posix()] = full.read_bytes()
    return files


def _flush(root: Path, store: dict[str, bytes]) -> None:
    """Make the root hold the store's files and nothing else."""
    for directory, subdirectories, names in os.walk(root, topdown=False):
        for name in names:
            full = Path(directory, name)
            if full.relative_to(root).as_posix() not in store:
                full.unlink()
        for name in subdirectories:
            full = Path(directory, name)
            if not any(key.startswith(full.relative_to(root).as_posix() + "/") for key in store):
                full.rmdir()
    for relative, content in store.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.is_file() or target.read_bytes() != content:
            target.write_bytes(content)
            target.chmod(0o600)
