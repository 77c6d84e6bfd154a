"""Write: exact bytes, empty bodies, collisions, concurrency and injected faults."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from memref._faults import counting
from memref._time import parse_rfc3339
from memref.errors import OpError
from memref.turnlog import Meta, write
from memref.turnlog._write import candidates

T = parse_rfc3339("2026-09-09T14:30:05Z")
NOW = parse_rfc3339("2030-01-01T00:00:00Z")
META = Meta("s1", "/proj", "build", "My Turn", T)
NAME = "2026-09-09T143005Z--s1--my-turn.md"


def test_round_trip_bytes(tmp_path: Path) -> None:
    path = write(str(tmp_path), META, "# My Turn\n\n## Request\nDo the thing.\n", NOW)
    assert path == f"{tmp_path}/.ogcode/memory/{NAME}"
    assert Path(path).read_bytes() == (
        b'---\ntitle: "My Turn"\nsession_id: "s1"\nsession_type: "build"\n'
        b'project_id: "/proj"\ncreated_at: 2026-09-09T14:30:05Z\n---\n\n'
        b"# My Turn\n\n## Request\nDo the thing.\n"
    )


def test_escapes_and_body_rules(tmp_path: Path) -> None:
    meta = Meta(title='a "b" \\ c\nd\r\te', created_at=T)
    data = Path(write(str(tmp_path), meta, "\n\nx\r\n\n\n", NOW)).read_bytes()
    assert b'title: "a \\"b\\" \\\\ c d\r\te"\n' in data
    assert data.endswith(b"---\n\n\n\nx\r\n")


def test_zero_time_uses_now(tmp_path: Path) -> None:
    path = write(str(tmp_path), Meta(title="t"), "x", NOW)
    assert os.path.basename(path) == "2030-01-01T000000Z--session--t.md"
    assert b"created_at: 2030-01-01T00:00:00Z\n" in Path(path).read_bytes()


@pytest.mark.parametrize("body", ["", "  ", "\n\t\r\n", "\u00a0\u3000"])
def test_empty_body_creates_nothing(tmp_path: Path, body: str) -> None:
    with pytest.raises(OpError) as info:
        write(str(tmp_path / "proj"), META, body, NOW)
    assert (info.value.kind, info.value.message) == ("invalid-input", "memfile: empty summary body")
    assert not (tmp_path / "proj").exists()


def test_collision_suffixes(tmp_path: Path) -> None:
    paths = [os.path.basename(write(str(tmp_path), META, "x", NOW)) for _ in range(3)]
    assert paths == [NAME, NAME[:-3] + "-2.md", NAME[:-3] + "-3.md"]


def test_all_names_taken_overwrites_nothing(tmp_path: Path) -> None:
    memory = tmp_path / ".ogcode" / "memory"
    memory.mkdir(parents=True)
    for name in candidates(NAME):
        (memory / name).write_text(name)
    with pytest.raises(OpError) as info:
        write(str(tmp_path), META, "x", NOW)
    assert info.value.kind == "exists"
    assert info.value.message.startswith("memfile: write summary: ")
    assert all((memory / n).read_text() == n for n in candidates(NAME))
    assert len(os.listdir(memory)) == 999


def test_dangling_symlink_not_written_through(tmp_path: Path) -> None:
    memory = tmp_path / ".ogcode" / "memory"
    memory.mkdir(parents=True)
    os.symlink(tmp_path / "outside.md", memory / NAME)
    path = write(str(tmp_path), META, "x", NOW)
    assert path.endswith("-2.md")
    assert not (tmp_path / "outside.md").exists()


def test_threads_never_share_a_name(tmp_path: Path) -> None:
    with ThreadPoolExecutor(16) as pool:
        paths = list(pool.map(lambda i: write(str(tmp_path), META, f"body {i}", NOW), range(64)))
    assert len(set(paths)) == 64
    bodies = sorted(Path(p).read_text().rsplit("\n\n", 1)[1] for p in paths)
    assert bodies == sorted(f"body {i}\n" for i in range(64))
    assert sorted(os.listdir(tmp_path / ".ogcode" / "memory")) == sorted(
        os.path.basename(p) for p in paths
    )


def _write_many(args: tuple[str, int]) -> list[str]:
    root, worker = args
    return [write(root, META, f"w{worker} {i}", NOW) for i in range(5)]


def test_processes_never_share_a_name(tmp_path: Path) -> None:
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        results = pool.map(_write_many, [(str(tmp_path), w) for w in range(4)])
    paths = [p for chunk in results for p in chunk]
    assert len(set(paths)) == 20
    expected = {os.path.basename(p) for p in paths}
    assert expected == {NAME} | {f"{NAME[:-3]}-{n}.md" for n in range(2, 21)}
    texts = {Path(p).read_text().rsplit("\n\n", 1)[1] for p in paths}
    assert len(texts) == 20


def test_injected_faults_leave_no_partial_summary(tmp_path: Path) -> None:
    k = 1
    while True:
        root = tmp_path / f"run{k}"
        with counting(k) as counter:
            try:
                write(str(root), META, "# body\n", NOW)
                failed = False
            except OpError:
                failed = True
        memory = root / ".ogcode" / "memory"
        entries = sorted(os.listdir(memory)) if memory.is_dir() else []
        if failed:
            assert not [e for e in entries if e.endswith(".md")], (k, entries)
            assert entries == [], (k, entries)
        else:
            assert [e for e in entries if e.endswith(".md")] == [NAME]
        if counter.attempted < k:
            break
        k += 1
    assert k > 6
