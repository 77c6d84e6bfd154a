"""The memdir protocol operations, through the in-process adapter."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import pytest
from memdir_support import T0

import memref.memdir
from memref.serve import OPS, Implementation

IMPL = Implementation()


def call(op: str, **args: Any) -> dict[str, Any]:
    reply = IMPL.handle({"id": 1, "op": op, "args": args})
    json.dumps(reply, ensure_ascii=False).encode()  # every reply must serialise as UTF-8
    return reply


def result(op: str, **args: Any) -> Any:
    reply = call(op, **args)
    assert "result" in reply, reply
    return reply["result"]


def b64(data: bytes) -> dict[str, str]:
    return {"base64": base64.b64encode(data).decode()}


def test_every_op_is_registered() -> None:
    assert sorted(name for name in OPS if name.startswith("memdir.")) == sorted(
        [
            "memdir.constants",
            "memdir.parse_frontmatter",
            "memdir.parse_memory_type",
            "memdir.age_days",
            "memdir.age",
            "memdir.freshness_text",
            "memdir.freshness_note",
            "memdir.memory_dir",
            "memdir.memory_index_path",
            "memdir.ensure_memory_dir",
            "memdir.project_key",
            "memdir.is_in_memory_dir",
            "memdir.check_write_path",
            "memdir.truncate_index",
            "memdir.read_index",
            "memdir.load",
            "memdir.scan_memory_files",
            "memdir.format_manifest",
            "memdir.parse_selected",
            "memdir.find_relevant",
            "memdir.read_last_consolidated_at",
            "memdir.try_acquire",
            "memdir.rollback",
            "memdir.count_touched_since",
            "memdir.gate_open",
        ]
    )


def test_parse_frontmatter_with_base64_text() -> None:
    assert result("memdir.parse_frontmatter", content=b64(b"---\nk\xff: v\xfe\n---\nb\xfd")) == {
        "frontmatter": {"k\ufffd": b64(b"v\xfe")},
        "body": b64(b"b\xfd"),
    }
    assert result("memdir.parse_frontmatter", content="---\nA: b\n---\nc") == {
        "frontmatter": {"a": "b"},
        "body": "c",
    }


def test_parse_memory_type() -> None:
    assert result("memdir.parse_memory_type", raw="user") == {"type": "user", "ok": True}
    assert result("memdir.parse_memory_type", raw="User") == {"type": "", "ok": False}


def test_age_ops_accept_offsets_and_fractions() -> None:
    args = {"mtime": "2026-04-28T20:00:00.5+08:00", "now": "2026-05-01T12:00:00Z"}
    assert result("memdir.age_days", **args) == 2
    assert result("memdir.age", **args) == "2 days ago"
    assert result("memdir.freshness_text", **args).startswith("This memory is 2 days old.")
    assert result("memdir.freshness_note", **args).endswith("</system-reminder>\n")


def test_paths_and_keys() -> None:
    assert result("memdir.memory_dir", app_home="a/../b") == "b/memory"
    assert result("memdir.memory_index_path", app_home="") == ""
    assert result("memdir.project_key", path="C:\\Users\\..\\b", os="windows") == "C-b"
    assert result("memdir.project_key", path="C:\\Users\\..\\b", os="posix") == "C-Users-..-b"
    assert call("memdir.project_key", path="/a", os="plan9")["error"]["kind"] == "invalid-args"
    assert result("memdir.is_in_memory_dir", app_home="/h", path="x.md", cwd="/h/memory") is True
    assert result("memdir.check_write_path", memory_dir="/m", path="/m/../x") == {
        "allowed": False,
        "reason": "dotdot",
    }


def test_ensure_memory_dir(tmp_path: Path) -> None:
    assert result("memdir.ensure_memory_dir", app_home=str(tmp_path)) is None
    (tmp_path / "file").write_text("x")
    assert call("memdir.ensure_memory_dir", app_home=str(tmp_path / "file"))["error"] == {
        "kind": "not-a-directory",
        "message": f"mkdir {tmp_path}/file: not a directory",
    }


def test_index_and_load(tmp_path: Path) -> None:
    assert result("memdir.truncate_index", raw=b64(b" a\xff \n")) == {
        "body": b64(b"a\xff"),
        "warning": "",
    }
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "MEMORY.md").write_text("- [a](a.md)\n")
    assert result("memdir.read_index", app_home=str(tmp_path)) == {
        "body": "- [a](a.md)",
        "warning": "",
    }
    (tmp_path / "EVVA.md").write_bytes(b"\xff")
    assert result(
        "memdir.load", workdir=str(tmp_path), app_home=str(tmp_path), auto_memory=True
    ) == {
        "workdir_memory": b64(b"\xff"),
        "memory_index": "- [a](a.md)",
        "memory_dir": f"{tmp_path}/memory",
        "warnings": [],
    }


def test_scan_and_manifest(tmp_path: Path) -> None:
    path = tmp_path / os.fsdecode(b"\xff.md")
    path.write_text("---\ntype: user\ndescription: d\n---\n")
    os.utime(path, ns=(T0 + 5, T0 + 5))
    headers = result("memdir.scan_memory_files", dir=str(tmp_path))
    assert headers == [
        {
            "filename": b64(b"\xff.md"),
            "path": b64(os.fsencode(str(path))),
            "mtime": "2026-05-01T12:00:00.000000005Z",
            "description": "d",
            "type": "user",
        }
    ]
    assert (
        result(
            "memdir.format_manifest",
            headers=[
                {
                    "filename": "a.md",
                    "mtime": "2026-05-01T12:00:00+08:00",
                    "description": "",
                    "type": "",
                },
            ],
        )
        == "- a.md (2026-05-01T04:00:00Z)"
    )
    assert call("memdir.format_manifest", headers="x")["error"]["kind"] == "invalid-args"


def test_recall_ops(tmp_path: Path) -> None:
    assert result("memdir.parse_selected", reply="null") is None
    assert result("memdir.parse_selected", reply='{"selected_memories": []}') == []
    (tmp_path / "a.md").write_text("---\ndescription: d\n---\n")
    os.utime(tmp_path / "a.md", ns=(T0, T0))
    common = {"dir": str(tmp_path), "query": "q", "recent_tools": [], "already_surfaced": []}
    assert result("memdir.find_relevant", model=None, **common) == {
        "selected": [],
        "model_calls": [],
    }
    message = "Query: q\n\nAvailable memories:\n- a.md (2026-05-01T12:00:00Z): d"
    assert result("memdir.find_relevant", model={"error": "down"}, **common) == {
        "selected": [],
        "model_calls": [{"user": message, "max_tokens": 256}],
    }
    assert result(
        "memdir.find_relevant", model={"reply": '{"selected_memories":["a.md"]}'}, **common
    ) == {"selected": ["a.md"], "model_calls": [{"user": message, "max_tokens": 256}]}
    bad = call("memdir.find_relevant", model={"reply": "x", "error": "y"}, **common)
    assert bad["error"]["kind"] == "invalid-args"


def test_dream_ops(tmp_path: Path) -> None:
    memory = str(tmp_path / "memory")
    assert result("memdir.read_last_consolidated_at", memory_dir=memory) is None
    assert result(
        "memdir.try_acquire", memory_dir=memory, now="2026-05-01T12:00:00Z", pid=4242
    ) == {"prior": None, "ok": True}
    assert (tmp_path / "memory" / ".consolidate-lock").read_text() == "4242"
    assert result("memdir.read_last_consolidated_at", memory_dir=memory) == "2026-05-01T12:00:00Z"
    assert result("memdir.rollback", memory_dir=memory, prior="2026-04-01T00:00:00Z") is None
    assert result("memdir.read_last_consolidated_at", memory_dir=memory) == "2026-04-01T00:00:00Z"
    assert result("memdir.rollback", memory_dir=memory, prior=None) is None
    assert not (tmp_path / "memory" / ".consolidate-lock").exists()
    assert (
        result("memdir.count_touched_since", app_home=str(tmp_path), since=None, exclude_id="") == 0
    )
    decision = result(
        "memdir.gate_open",
        enabled=True,
        min_hours=24,
        min_sessions=0,
        app_home=str(tmp_path),
        memory_dir=memory,
        current_session_id="",
        now="2026-05-01T12:00:00Z",
        last_scan_at=None,
        pid=1,
    )
    assert decision == {
        "fire": False,
        "prior": None,
        "sessions": 0,
        "reason": "session-gate (0/5)",
        "new_scan_at": "2026-05-01T12:00:00Z",
    }


@pytest.mark.parametrize(
    ("op", "args"),
    [
        ("memdir.age", {"mtime": "yesterday", "now": "2026-05-01T12:00:00Z"}),
        ("memdir.memory_dir", {}),
        ("memdir.memory_dir", {"app_home": "\ud800"}),
        ("memdir.try_acquire", {"memory_dir": "/m", "now": "2026-05-01T12:00:00Z", "pid": 1 << 64}),
        ("memdir.load", {"workdir": "", "app_home": "", "auto_memory": "yes"}),
    ],
)
def test_invalid_args(op: str, args: dict[str, Any]) -> None:
    assert call(op, **args)["error"]["kind"] == "invalid-args"


def test_public_api_is_exactly_all() -> None:
    assert dir(memref.memdir) == sorted(memref.memdir.__all__)
    for name in memref.memdir.__all__:
        assert hasattr(memref.memdir, name)
