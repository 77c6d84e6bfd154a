"""Every op answers bad arguments with invalid-args or invalid-input, never internal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memref.factstore._ops import OPS
from memref.serve import Implementation

JUNK: list[Any] = [
    None,
    0,
    -1,
    1.5,
    True,
    "",
    "rel",
    "\x00",
    "/",
    [],
    {},
    ["x"],
    {"a": 1},
    {"base64": "!!"},
    "\udcff",
]
KEYS = [
    "name",
    "type",
    "text",
    "content",
    "id",
    "memory",
    "mems",
    "global_dir",
    "project_dir",
    "config_dir",
    "workspace",
    "now",
    "env",
    "cwd",
    "dir",
    "path",
    "sessions_dir",
    "legacy",
]


@pytest.mark.parametrize("op", sorted(OPS))
def test_junk_never_internal(op: str, tmp_path: Path) -> None:
    implementation = Implementation()
    for key in KEYS:
        for value in JUNK:
            args: dict[str, Any] = {
                "global_dir": str(tmp_path / "g"),
                "project_dir": str(tmp_path / "p"),
                "config_dir": str(tmp_path / "c"),
                "workspace": "/memspec-absent/ws",
                "now": "2026-01-01T00:00:00Z",
                key: value,
            }
            reply = implementation.handle({"id": 1, "op": op, "args": args})
            if "error" in reply:
                assert reply["error"]["kind"] != "internal", (op, key, value, reply)


def test_hostile_memories_never_internal(tmp_path: Path) -> None:
    implementation = Implementation()
    for memory in [
        {"name": "a"},
        {"name": "a", "type": "user", "description": "\x00"},
        {"name": "a", "type": "user", "description": "d", "durable": 1},
        {"name": "a", "type": "user", "description": "d", "body": 5},
        {"name": "../x", "type": "user", "description": "d", "durable": True},
    ]:
        reply = implementation.handle(
            {
                "id": 1,
                "op": "factstore.write",
                "args": {
                    "global_dir": str(tmp_path),
                    "project_dir": str(tmp_path),
                    "memory": memory,
                },
            }
        )
        assert "error" in reply and reply["error"]["kind"] in ("invalid-args", "invalid-input")
