"""The SQLite index on a real database file."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

import pytest

from memref._time import parse_rfc3339
from memref.errors import OpError
from memref.turnlog import Entry, Meta, Store, unix_milli, write

NOW = parse_rfc3339("2030-01-01T00:00:00Z")
OLD = parse_rfc3339("2026-09-08T09:00:00Z")
NEW = parse_rfc3339("2026-09-09T09:00:00Z")


def _summaries(project: Path) -> tuple[str, str]:
    old = write(
        str(project),
        Meta("sessA", "/proj", "build", "Older Turn", OLD),
        "# Older Turn\n\n## Request\nfirst\n\n## Outcome\ndone first\n",
        NOW,
    )
    new = write(
        str(project),
        Meta("sessB", "/proj", "build", "Newer Turn", NEW),
        "# Newer Turn\n\n## Request\nsecond\n",
        NOW,
    )
    return old, new


def test_seed_index_and_scoped_lists(tmp_path: Path) -> None:
    old, new = _summaries(tmp_path / "p")
    with Store(str(tmp_path / "store")) as store:
        store.index_file(old, Meta("sessA", "/proj", "", "Older Turn", OLD), NOW)
        store.index_file(new, Meta("sessB", "/proj", "", "Newer Turn", NEW), NOW)
        rows = store.list_by_project("/proj")
        assert [r.path for r in rows] == [new, old]
        assert "Request" in rows[1].outline and "Outcome" in rows[1].outline
        assert rows[1].outline == "9-10  Older Turn\n11-13    Request\n14-16    Outcome"
        assert [r.title for r in store.list_by_session("sessB")] == ["Newer Turn"]
        assert store.is_indexed(new)
        store.index_file(new, Meta("sessB", "/proj", "", "Newer Turn", NEW), NOW + 1)
        assert len(store.list_by_project("/proj")) == 2


def test_reopened_store_sees_rows(tmp_path: Path) -> None:
    with Store(str(tmp_path / "s")) as store:
        store.upsert(Entry("/a", project_id="p"), NOW)
    with Store(str(tmp_path / "s")) as store:
        assert store.list_by_project("p") == [
            Entry("/a", project_id="p", indexed_at=unix_milli(NOW))
        ]


def test_schema_mirrors_seed(tmp_path: Path) -> None:
    Store(str(tmp_path)).close()
    db = sqlite3.connect(tmp_path / "turnlog.db")
    columns = [row[1] for row in db.execute("PRAGMA table_info(memory_turn_index)")]
    indexes = {row[1] for row in db.execute("PRAGMA index_list(memory_turn_index)")}
    db.close()
    assert columns == [
        "path",
        "session_id",
        "project_id",
        "title",
        "outline",
        "created_at",
        "indexed_at",
    ]
    assert {"idx_memory_turn_project", "idx_memory_turn_session"} <= indexes


def test_purge_after_real_deletion(tmp_path: Path) -> None:
    old, new = _summaries(tmp_path / "p")
    with Store(str(tmp_path / "store")) as store:
        store.index_file(old, Meta("sessA", "/proj", "", "", OLD), NOW)
        store.index_file(new, Meta("sessB", "/proj", "", "", NEW), NOW)
        store.upsert(Entry("/gone", project_id="/other"), NOW)
        os.remove(old)
        store.purge_missing("/proj")
        assert [r.path for r in store.list_by_project("/proj")] == [new]
        assert [r.path for r in store.list_by_project("/other")] == ["/gone"]
        os.remove(new)
        store.purge_missing("/proj")
        assert store.list_by_project("/proj") == []
        assert not store.is_indexed(old)


def test_corrupt_database_is_a_clear_error(tmp_path: Path) -> None:
    old, _ = _summaries(tmp_path / "p")
    db = tmp_path / "store" / "turnlog.db"
    db.parent.mkdir()
    garbage = b"not a database\n" * 100
    db.write_bytes(garbage)
    with pytest.raises(OpError) as info:
        Store(str(db.parent))
    assert info.value.kind == "io" and info.value.message.startswith("memfile: ")
    assert "not a database" in info.value.message
    assert db.read_bytes() == garbage
    assert os.path.exists(old)


def test_rebuild_equals_incremental(tmp_path: Path) -> None:
    project = tmp_path / "p"
    written = []
    with Store(str(tmp_path / "inc")) as incremental:
        for i in range(12):
            meta = Meta(f"s{i % 3}", "/proj", "build", f"Turn {i % 4}", OLD + i * 10**9 // 3)
            path = write(str(project), meta, f"# Turn {i}\n\n## Request\nr{i}\n", NOW)
            incremental.index_file(path, meta, NOW)
            written.append((path, meta))
        expected = incremental.list_by_project("/proj")
    with Store(str(tmp_path / "rebuilt")) as rebuilt:
        for path, meta in written:
            rebuilt.index_file(path, meta, NOW + 5)
        got = rebuilt.list_by_project("/proj")
    strip = [(e.path, e.session_id, e.title, e.outline, e.created_at) for e in expected]
    assert strip == [(e.path, e.session_id, e.title, e.outline, e.created_at) for e in got]


def test_missing_and_binary_files_indexed_with_empty_outline(tmp_path: Path) -> None:
    binary = tmp_path / "b.md"
    binary.write_bytes(b"# A\x00")
    with Store(str(tmp_path / "s")) as store:
        assert store.index_file(str(tmp_path / "none.md"), Meta(), NOW).outline == ""
        assert store.index_file(str(binary), Meta(), NOW).outline == ""
        assert store.index_file(str(tmp_path), Meta(), NOW).outline == ""


def test_invalid_utf8_outline_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "u.md"
    path.write_bytes(b"# caf\xe9\n")
    with Store(str(tmp_path / "s")) as store:
        store.index_file(str(path), Meta(project_id="p"), NOW)
        (row,) = store.list_by_project("p")
    assert row.outline.encode("utf-8", "surrogateescape") == b"1-2  caf\xe9"


def test_concurrent_connections(tmp_path: Path) -> None:
    store_dir = str(tmp_path / "s")
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for i in range(10):
                with Store(store_dir) as store:
                    store.upsert(Entry(f"/w{worker}-{i}", project_id="p"), NOW)
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with Store(store_dir) as store:
        assert len(store.list_by_project("p")) == 80


def test_unix_milli_floors() -> None:
    assert unix_milli(parse_rfc3339("2026-09-09T14:30:05.999999999Z")) == 1788964205999
    assert unix_milli(parse_rfc3339("1969-12-31T23:59:59.5Z")) == -500
