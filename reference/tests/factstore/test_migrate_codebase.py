"""The codebase migration: crash points, concurrency, hostile stores, sibling merges."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
from pathlib import Path

import pytest

from memref._faults import counting
from memref._time import parse_rfc3339
from memref.errors import OpError
from memref.factstore import (
    delete,
    list_facts,
    load_record,
    migrate_codebase,
    new_store,
    project_hash,
    scan_cwds,
)

from .support import (
    NOW,
    WS,
    fact_bytes,
    full_migrate,
    put,
    repo_with_worktree,
    seed_legacy,
    snapshot,
)


def _migrate_worker(config: str, workspace: str, base: str) -> None:
    migrate_codebase(config, workspace, NOW, {"PATH": os.environ["PATH"]}, base)


def test_every_crash_point_converges(tmp_path: Path) -> None:
    reference = tmp_path / "reference"
    seed_legacy(reference)
    full_migrate(reference, WS)
    expected = snapshot(reference)
    k = 1
    points = 0
    while True:
        config = tmp_path / f"run-{k}"
        seed_legacy(config)
        with counting(k) as counter, contextlib.suppress(OSError, OpError):
            full_migrate(config, WS)
        before_rerun = snapshot(config)
        assert all(not name.endswith(".tmp") for name in before_rerun)
        full_migrate(config, WS)
        assert snapshot(config) == expected, f"crash point {k}"
        full_migrate(config, WS)
        assert snapshot(config) == expected
        if counter.attempted < k:
            break
        points = k
        k += 1
    assert points >= 10


def test_concurrent_checkout_and_worktree(tmp_path: Path) -> None:
    repo, wt = repo_with_worktree(tmp_path)
    config = tmp_path / "cfg"
    for workspace, names in ((repo, ["a", "both"]), (wt, ["b", "both"])):
        for name in names:
            put(
                config / "projects" / project_hash(str(workspace)) / "memory" / f"{name}.md",
                fact_bytes(name, "same" if name == "both" else name),
            )
    put(
        config / "sessions" / "s" / "1.json",
        json.dumps({"id": "1", "updated": "2026-01-01T00:00:00Z", "metadata": {"cwd": str(wt)}}),
    )
    put(
        config / "sessions" / "s" / "2.json",
        json.dumps({"id": "2", "updated": "2026-01-01T00:00:00Z", "metadata": {"cwd": str(repo)}}),
    )
    context = multiprocessing.get_context("fork")
    workers = [
        context.Process(target=_migrate_worker, args=(str(config), str(w), "/"))
        for w in (repo, wt, repo, wt)
    ]
    for process in workers:
        process.start()
    for process in workers:
        process.join(60)
        assert process.exitcode == 0
    dirs = new_store(str(config), str(repo))
    assert sorted(m.name for m in list_facts(dirs)) == ["a", "b", "both"]
    record = load_record(str(Path(dirs.project_dir).parent / "memory-migration.json"))
    assert record is not None and record.complete
    assert len(record.copied) == len({e.hash for e in record.copied}) == 2


def test_sibling_newest_keeps_name(tmp_path: Path) -> None:
    repo, wt = repo_with_worktree(tmp_path)
    config = tmp_path / "cfg"
    older, newer = parse_rfc3339("2026-01-01T00:00:00Z"), parse_rfc3339("2026-02-01T00:00:00Z")
    put(
        config / "projects" / project_hash(str(wt)) / "memory" / "shared.md",
        fact_bytes("shared", "newer"),
        newer,
    )
    put(
        config / "projects" / project_hash(str(repo)) / "memory" / "shared.md",
        fact_bytes("shared", "older"),
        older,
    )
    put(config / "sessions" / "s" / "1.json", json.dumps({"id": "1", "metadata": {"cwd": str(wt)}}))
    full_migrate(config, str(repo))
    dirs = new_store(str(config), str(repo))
    by_name = {m.name: m.body for m in list_facts(dirs)}
    assert by_name == {"shared": "newer", "shared-2": "older"}
    assert b"name: shared-2\n" in Path(dirs.project_dir, "shared-2.md").read_bytes()
    full_migrate(config, str(repo))
    assert sorted(os.listdir(dirs.project_dir)) == ["shared-2.md", "shared.md"]


def test_deleted_fact_stays_deleted_when_store_grows(tmp_path: Path) -> None:
    config = tmp_path / "cfg"
    own = config / "projects" / project_hash(WS) / "memory"
    put(own / "a.md", fact_bytes("a"))
    full_migrate(config, WS)
    dirs = new_store(str(config), WS)
    delete(dirs, "a")
    put(own / "b.md", fact_bytes("b"))
    full_migrate(config, WS)
    assert [m.name for m in list_facts(dirs)] == ["b"]
    record_path = Path(dirs.project_dir).parent / "memory-migration.json"
    before = record_path.read_bytes()
    os.remove(Path(dirs.project_dir).parent / ".memory-migration.lock")
    full_migrate(config, WS)
    assert record_path.read_bytes() == before
    assert not (Path(dirs.project_dir).parent / ".memory-migration.lock").exists()


def test_hostile_sessions(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions" / "s"
    put(sessions / "big.json", b'{"id":"x","metadata":{"cwd":"/a"},"pad":"' + b"y" * (4 << 20))
    put(sessions / "bad-utf8.json", b'{"id":"x","metadata":{"cwd":"/\xff"}}')
    put(sessions / "no-id.json", b'{"metadata":{"cwd":"/b"}}')
    put(sessions / "deep.json", b'{"id":"x","metadata":' + b"[" * 100000 + b"]" * 100000 + b"}")
    os.mkfifo(sessions / "pipe.json")
    result = scan_cwds(str(tmp_path / "sessions"))
    assert result.cwds == ["/\ufffd"]
    assert result.unreadable == 3 and result.no_cwd == 0


def test_read_error_aborts_without_writing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "cfg"
    own = config / "projects" / project_hash(WS) / "memory"
    put(own / "a.md", fact_bytes("a"))
    put(own / "b.md", fact_bytes("b"))
    from memref.factstore import _files, _migrate_codebase

    real = _files.read_regular
    calls = {"n": 0}

    def flaky(path: str) -> bytes:
        if path.endswith("b.md") and "projects" in path:
            calls["n"] += 1
            raise _files.ReadError(f"open {path}: input/output error", OSError(5, "eio"))
        return real(path)

    monkeypatch.setattr(_migrate_codebase, "read_regular", flaky)
    with pytest.raises(OpError) as caught:
        migrate_codebase(str(config), WS, NOW)
    assert caught.value.message.startswith("memory: reading ")
    dirs = new_store(str(config), WS)
    assert list_facts(dirs) == []
    assert not (Path(dirs.project_dir).parent / "memory-migration.json").exists()
    monkeypatch.setattr(_migrate_codebase, "read_regular", real)
    migrate_codebase(str(config), WS, NOW)
    assert [m.name for m in list_facts(dirs)] == ["a", "b"]


def test_ledger_not_rewritten_when_unchanged(tmp_path: Path) -> None:
    config = tmp_path / "cfg"
    put(config / "projects" / project_hash(WS) / "memory" / "a.md", fact_bytes("a"))
    put(
        config / "projects" / project_hash("/memspec-absent/o") / "memory" / "x.md", fact_bytes("x")
    )
    put(config / "sessions" / "s" / "bad.json", "{")
    migrate_codebase(str(config), WS, NOW)
    ledger = config / "codebases" / "orphaned-memory.json"
    first = ledger.read_bytes()
    assert json.loads(first)["stores"][0]["path"] == str(
        config / "projects" / project_hash("/memspec-absent/o")
    )
    migrate_codebase(str(config), WS, NOW + 10**9)
    assert ledger.read_bytes() == first


def test_corrupt_session_then_fixed(tmp_path: Path) -> None:
    repo, wt = repo_with_worktree(tmp_path)
    config = tmp_path / "cfg"
    put(config / "projects" / project_hash(str(wt)) / "memory" / "w.md", fact_bytes("w"))
    session = config / "sessions" / "s" / "1.json"
    put(session, '{"id":"1","metadata":{"cwd":"' + str(wt) + '"')
    full_migrate(config, str(repo))
    dirs = new_store(str(config), str(repo))
    assert list_facts(dirs) == []
    record = load_record(str(Path(dirs.project_dir).parent / "memory-migration.json"))
    assert record is not None and not record.complete
    put(session, json.dumps({"id": "1", "metadata": {"cwd": str(wt)}}))
    full_migrate(config, str(repo))
    assert [m.name for m in list_facts(dirs)] == ["w"]
    record = load_record(str(Path(dirs.project_dir).parent / "memory-migration.json"))
    assert record is not None and record.complete


def test_scan_ties_keep_directory_order_and_a_non_string_cwd_is_no_cwd(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    same = '"updated":"2026-02-01T00:00:00Z"'
    put(sessions / "b" / "1.json", '{"id":"1",' + same + ',"metadata":{"cwd":"/a"}}')
    put(sessions / "a" / "2.json", '{"id":"2",' + same + ',"metadata":{"cwd":"/c"}}')
    put(sessions / "a" / "1.json", '{"id":"3",' + same + ',"metadata":{"cwd":"/d"}}')
    put(sessions / "a" / "3.json", '{"id":"4","metadata":{"cwd":7}}')
    result = scan_cwds(str(sessions))
    assert result.cwds == ["/d", "/c", "/a"]
    assert (result.unreadable, result.no_cwd) == (0, 1)


def test_a_file_as_the_destination_stops_the_run_when_read(tmp_path: Path) -> None:
    config = tmp_path / "cfg"
    put(config / "projects" / project_hash(WS) / "memory" / "a.md", fact_bytes("a"))
    destination = Path(new_store(str(config), WS).project_dir)
    put(destination, "a file")
    with pytest.raises(OpError) as stopped:
        migrate_codebase(str(config), WS, NOW)
    assert (stopped.value.kind, stopped.value.message) == (
        "not-a-directory",
        f"memory: reading {destination}: open {destination}: not a directory",
    )
    assert destination.read_text() == "a file"


def test_a_pending_store_is_in_the_ledger_too(tmp_path: Path) -> None:
    repo, _ = repo_with_worktree(tmp_path)
    config = tmp_path / "cfg"
    gone = str(repo / "gone-wt")
    put(config / "projects" / project_hash(gone) / "memory" / "wip.md", fact_bytes("wip"))
    put(config / "sessions" / "s" / "1.json", json.dumps({"id": "1", "metadata": {"cwd": gone}}))
    migrate_codebase(str(config), str(repo), NOW, {"PATH": os.environ["PATH"]})
    record = load_record(
        str(Path(new_store(str(config), str(repo)).project_dir).parent / "memory-migration.json")
    )
    assert record is not None and [p.hash for p in record.pending] == [project_hash(gone)]
    ledger = json.loads((config / "codebases" / "orphaned-memory.json").read_text())
    assert [(s["hash"], s["last_known_cwd"]) for s in ledger["stores"]] == [
        (project_hash(gone), gone)
    ]
