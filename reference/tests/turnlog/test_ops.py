"""The turnlog protocol operations: bad input of every kind never gives `internal`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memref.serve import Implementation
from memref.turnlog._ops import OPS

IMPL = Implementation()
NOW = "2030-01-01T00:00:00Z"

HOSTILE: list[Any] = [
    None,
    True,
    0,
    -1,
    1 << 70,
    1.5,
    "",
    "x",
    "\x00",
    "/a\x00b",
    "\ud800",
    "../../etc",
    [],
    ["x"],
    {},
    {"base64": "!!"},
    {"base64": "AA=="},
    "9999999999-01-01T00:00:00Z",
    "2026-02-31T00:00:00Z",
    "\u202e" * 3,
]


def call(op: str, args: dict[str, Any]) -> dict[str, Any]:
    reply = IMPL.handle({"id": 1, "op": op, "args": args})
    json.dumps(reply, ensure_ascii=False).encode("utf-8", "surrogatepass")
    return reply


def good_args(root: Path) -> dict[str, dict[str, Any]]:
    store = str(root / "store")
    return {
        "turnlog.constants": {},
        "turnlog.turn_memory_enabled": {"env": {"OGCODE_TURN_MEMORY": "0"}},
        "turnlog.filename": {"created_at": NOW, "session_id": "s", "title": "t"},
        "turnlog.memory_dir": {"project_dir": "/p"},
        "turnlog.write": {
            "project_dir": str(root / "p"),
            "session_id": "s",
            "project_id": "p",
            "session_type": "b",
            "title": "t",
            "created_at": NOW,
            "body": "x",
            "now": NOW,
        },
        "turnlog.outline": {"path": str(root / "none.md")},
        "turnlog.index_file": {
            "store_dir": store,
            "path": "/x",
            "session_id": "s",
            "project_id": "p",
            "title": "t",
            "created_at": NOW,
            "now": NOW,
        },
        "turnlog.index_files": {"store_dir": store, "items": [{"path": "/x"}], "now": NOW},
        "turnlog.is_indexed": {"store_dir": store, "path": "/x"},
        "turnlog.upsert": {
            "store_dir": store,
            "path": "/x",
            "created_at": 1,
            "indexed_at": 2,
            "now": NOW,
        },
        "turnlog.list_by_project": {"store_dir": store, "project_id": "p"},
        "turnlog.list_by_session": {"store_dir": store, "session_id": "s"},
        "turnlog.purge_missing": {"store_dir": store, "project_id": "p"},
        "turnlog.summary_system_prompt": {},
        "turnlog.manager_script": {"script": [{"do": "check"}], "settle_ms": 0},
    }


def test_every_op_has_good_args(tmp_path: Path) -> None:
    table = good_args(tmp_path)
    assert set(table) == set(OPS)
    for op, args in table.items():
        assert "result" in call(op, args), op


@pytest.mark.parametrize("op", sorted(OPS))
def test_hostile_values_never_internal(tmp_path: Path, op: str) -> None:
    base = good_args(tmp_path)[op]
    for name in [*base, "items"]:
        for value in HOSTILE:
            args = dict(base)
            args[name] = value
            reply = call(op, args)
            if "error" in reply:
                assert reply["error"]["kind"] != "internal", (op, name, value, reply)
        missing = {k: v for k, v in base.items() if k != name}
        reply = call(op, missing)
        assert reply.get("error", {}).get("kind") != "internal", (op, name, reply)


@pytest.mark.parametrize("op", sorted(OPS))
def test_hostile_nested_values(tmp_path: Path, op: str) -> None:
    nested: list[Any] = [
        {"OGCODE_TURN_MEMORY": None},
        [{"path": 1}],
        [{"do": "wait"}],
        [{"path": "/x", "created_at": "bad"}],
        [None],
        {"\ud800": "x"},
    ]
    base = good_args(tmp_path)[op]
    for name in base:
        for value in nested:
            reply = call(op, {**base, name: value})
            assert reply.get("error", {}).get("kind") != "internal", (op, name, value, reply)


def test_store_dir_hostile_trees(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "dbdir" / "turnlog.db").mkdir(parents=True)
    cases = {
        str(tmp_path / "file"): "not-a-directory",
        str(tmp_path / "file" / "s"): "not-a-directory",
        str(tmp_path / "dbdir"): "is-a-directory",
    }
    for store, kind in cases.items():
        reply = call("turnlog.is_indexed", {"store_dir": store, "path": "x"})
        assert reply["error"]["kind"] == kind, (store, reply)


def test_write_project_is_file(tmp_path: Path) -> None:
    (tmp_path / "p").write_text("x")
    args = good_args(tmp_path)["turnlog.write"]
    reply = call("turnlog.write", args)
    assert reply["error"]["kind"] == "not-a-directory"
    assert reply["error"]["message"].startswith("memfile: create memory dir: ")


@pytest.mark.parametrize("op", sorted(OPS))
def test_injected_faults_never_internal(tmp_path: Path, op: str) -> None:
    for k in range(1, 12):
        root = tmp_path / str(k)
        root.mkdir()
        (root / "f.md").write_text("# A\n")
        args = good_args(root)[op]
        reply = IMPL.handle({"id": 1, "op": op, "args": args, "fault": {"fail_mutation": k}})
        assert reply.get("error", {}).get("kind") != "internal", (op, k, reply)
        if reply["mutations"] < k:
            break
