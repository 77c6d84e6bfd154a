"""The dream lock, the session count and the gate."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest
from memdir_support import T0, at
from pyfakefs.fake_filesystem import FakeFilesystem

from memref._faults import counting
from memref._time import NS_PER_HOUR, NS_PER_SECOND
from memref.errors import OpError
from memref.memdir import (
    Acquired,
    GateDecision,
    count_touched_since,
    gate_open,
    read_last_consolidated_at,
    rollback,
    try_acquire,
)

MINUTE = 60 * NS_PER_SECOND


def lock(memory: Path) -> Path:
    return memory / ".consolidate-lock"


def stamp(path: Path, instant: int, body: str = "1") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    os.utime(path, ns=(instant, instant))


def test_read_last_consolidated_at(tmp_path: Path) -> None:
    # evva dream lock_test.go TestReadLastConsolidatedAt
    assert read_last_consolidated_at(str(tmp_path)) is None
    assert read_last_consolidated_at("") is None
    assert try_acquire(str(tmp_path), T0, 42) == Acquired(None, True)
    assert read_last_consolidated_at(str(tmp_path)) == T0


def test_acquire_writes_the_pid_without_newline(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    old = os.umask(0o022)
    try:
        assert try_acquire(str(memory), T0, 9165) == Acquired(None, True)
    finally:
        os.umask(old)
    assert lock(memory).read_bytes() == b"9165"
    assert lock(memory).stat().st_mtime_ns == T0
    assert stat.S_IMODE(lock(memory).stat().st_mode) == 0o644
    assert stat.S_IMODE(memory.stat().st_mode) == 0o755
    assert sorted(p.name for p in memory.iterdir()) == [".consolidate-lock"]


def test_blocks_when_fresh(tmp_path: Path) -> None:
    # evva dream lock_test.go TestTryAcquireBlocksWhenFresh
    assert try_acquire(str(tmp_path), T0, 1).ok
    assert try_acquire(str(tmp_path), T0, 2) == Acquired(T0, False)
    assert lock(tmp_path).read_text() == "1"


@pytest.mark.parametrize(
    ("age", "ok"),
    [
        (59 * MINUTE, False),
        (NS_PER_HOUR - 1, False),
        (NS_PER_HOUR, True),
        (61 * MINUTE, True),
        (-MINUTE, False),
    ],
)
def test_staleness(tmp_path: Path, age: int, ok: bool) -> None:
    # evva dream lock_test.go TestTryAcquireReclaimsStale, and the verified 59/61 minute cases
    stamp(lock(tmp_path), T0 - age)
    assert try_acquire(str(tmp_path), T0, 7) == Acquired(T0 - age, ok)
    assert lock(tmp_path).read_text() == ("7" if ok else "1")


def test_empty_memory_dir() -> None:
    assert try_acquire("", T0, 1) == Acquired(None, False)


def test_lock_path_is_a_directory(tmp_path: Path) -> None:
    lock(tmp_path).mkdir()
    os.utime(lock(tmp_path), ns=(T0 - 2 * NS_PER_HOUR, T0 - 2 * NS_PER_HOUR))
    assert try_acquire(str(tmp_path), T0, 1) == Acquired(T0 - 2 * NS_PER_HOUR, False)


def test_replaces_a_symlinked_lock_without_writing_its_target(tmp_path: Path) -> None:
    target = tmp_path / "target"
    stamp(target, T0 - 2 * NS_PER_HOUR)
    before = target.read_bytes(), target.stat().st_mtime_ns
    (tmp_path / "memory").mkdir()
    lock(tmp_path / "memory").symlink_to(target)
    assert try_acquire(str(tmp_path / "memory"), T0, 5) == Acquired(T0 - 2 * NS_PER_HOUR, True)
    assert not lock(tmp_path / "memory").is_symlink()
    assert lock(tmp_path / "memory").read_text() == "5"
    assert (target.read_bytes(), target.stat().st_mtime_ns) == before


def test_a_dangling_lock_creates_nothing_outside(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    lock(tmp_path / "memory").symlink_to(tmp_path / "gone")
    assert try_acquire(str(tmp_path / "memory"), T0, 5) == Acquired(None, True)
    rollback(str(tmp_path / "memory"), T0 - NS_PER_HOUR)
    assert not (tmp_path / "gone").exists()
    assert lock(tmp_path / "memory").read_bytes() == b""


def test_rollback(tmp_path: Path) -> None:
    # evva dream lock_test.go TestRollback
    assert try_acquire(str(tmp_path), T0, 1).ok
    rollback(str(tmp_path), None)
    assert not lock(tmp_path).exists()
    prior = T0 - 48 * NS_PER_HOUR
    assert try_acquire(str(tmp_path), T0, 1).ok
    rollback(str(tmp_path), prior)
    assert lock(tmp_path).read_bytes() == b""
    assert lock(tmp_path).stat().st_mtime_ns == prior


def test_rollback_ignores_failures(tmp_path: Path) -> None:
    rollback("", T0)
    rollback(str(tmp_path / "missing"), None)
    rollback(str(tmp_path / "missing"), T0)
    assert not (tmp_path / "missing").exists()


def test_rollback_removes_an_empty_directory(tmp_path: Path) -> None:
    lock(tmp_path).mkdir()
    rollback(str(tmp_path), None)
    assert not lock(tmp_path).exists()


def test_full_disk_fails_the_acquire_and_leaves_nothing(nonroot_fs: FakeFilesystem) -> None:
    nonroot_fs.create_dir("/m")
    nonroot_fs.set_disk_usage(2)
    assert try_acquire("/m", T0, 123456) == Acquired(None, False)
    assert os.listdir("/m") == []


def test_full_disk_keeps_the_old_lock(nonroot_fs: FakeFilesystem) -> None:
    nonroot_fs.create_file("/m/.consolidate-lock", contents="1")
    os.utime("/m/.consolidate-lock", ns=(T0 - 2 * NS_PER_HOUR,) * 2)
    nonroot_fs.set_disk_usage(1)
    assert try_acquire("/m", T0, 123456) == Acquired(T0 - 2 * NS_PER_HOUR, False)
    assert os.listdir("/m") == [".consolidate-lock"]
    with open("/m/.consolidate-lock") as handle:
        assert handle.read() == "1"


def test_unwritable_stale_lock_is_not_replaced(nonroot_fs: FakeFilesystem) -> None:
    nonroot_fs.create_file("/m/.consolidate-lock", contents="1", st_mode=0o100444)
    os.utime("/m/.consolidate-lock", ns=(T0 - 2 * NS_PER_HOUR,) * 2)
    assert try_acquire("/m", T0, 9).ok is False
    with open("/m/.consolidate-lock") as handle:
        assert handle.read() == "1"


def test_unwritable_memory_dir(nonroot_fs: FakeFilesystem) -> None:
    nonroot_fs.create_dir("/h", perm_bits=0o555)
    assert try_acquire("/h/memory", T0, 9) == Acquired(None, False)


def session(app: Path, relative: str, instant: int) -> None:
    stamp(app / "sessions" / relative, instant, "{}")


def test_count_touched_since(tmp_path: Path) -> None:
    # evva session store_test.go TestCountTouchedSince
    since = T0 - 24 * NS_PER_HOUR
    session(tmp_path, "-p1/s1.json", T0)
    session(tmp_path, "-p1/s2.json", since - NS_PER_HOUR)
    session(tmp_path, "-p2/s3.json", T0)
    session(tmp_path, "-p2/cur.json", T0)
    assert count_touched_since(str(tmp_path), since, "cur") == 2
    assert count_touched_since(str(tmp_path), since, "CUR") == 3


def test_a_fifo_lock_is_given_up_on_at_once(tmp_path: Path) -> None:
    os.mkfifo(lock(tmp_path))
    stale = T0 - 24 * NS_PER_HOUR
    os.utime(lock(tmp_path), ns=(stale, stale))
    assert not try_acquire(str(tmp_path), T0, 7).ok
    rollback(str(tmp_path), T0 - NS_PER_HOUR)
    info = os.lstat(lock(tmp_path))
    assert stat.S_ISFIFO(info.st_mode)
    assert info.st_mtime_ns == T0 - NS_PER_HOUR


def test_count_missing_root(tmp_path: Path) -> None:
    # evva session store_test.go TestCountTouchedSinceMissingRoot
    assert count_touched_since(str(tmp_path), None, "") == 0
    assert count_touched_since("", None, "") == 0


def test_count_rules(tmp_path: Path) -> None:
    session(tmp_path, "p/exact.json", T0)
    session(tmp_path, "p/after.json", T0 + 1)
    session(tmp_path, "p/x.JSON", T0 + 1)
    session(tmp_path, "p/x.json.bak", T0 + 1)
    session(tmp_path, "p/.json", T0 + 1)
    session(tmp_path, "top.json", T0 + 1)
    (tmp_path / "sessions" / "p" / "dir.json").mkdir()
    (tmp_path / "real").mkdir()
    session(tmp_path, "../real/linked.json", T0 + 1)
    (tmp_path / "sessions" / "slug-link").symlink_to(tmp_path / "real")
    (tmp_path / "sessions" / "p" / "link.json").symlink_to(tmp_path / "nowhere")
    os.utime(tmp_path / "sessions" / "p" / "link.json", ns=(T0 + 1, T0 + 1), follow_symlinks=False)
    assert count_touched_since(str(tmp_path), T0, "") == 3
    assert count_touched_since(str(tmp_path), None, "after") == 3


def test_count_null_since_counts_every_file(nonroot_fs: FakeFilesystem) -> None:
    # A fake filesystem, since real ones clamp such old times. (evva compares with the
    # zero time's int64 UnixNano, which wraps to 1754 and would leave the 1700 file out.)
    for name, instant in (("1800", -5_364_662_400), ("1700", -8_520_336_000)):
        nonroot_fs.create_file(f"/app/sessions/p/{name}.json")
        os.utime(f"/app/sessions/p/{name}.json", ns=(instant * NS_PER_SECOND,) * 2)
    assert count_touched_since("/app", None, "") == 2
    assert count_touched_since("/app", -6_000_000_000 * NS_PER_SECOND, "") == 1


def test_count_errors(tmp_path: Path) -> None:
    (tmp_path / "sessions").write_text("x")
    root = tmp_path / "sessions"
    with pytest.raises(OpError) as caught:
        count_touched_since(str(tmp_path), None, "")
    assert caught.value.kind == "not-a-directory"
    assert caught.value.message == (
        f"session: read sessions root {root}: open {root}: not a directory"
    )


def test_count_permission_denied(nonroot_fs: FakeFilesystem) -> None:
    nonroot_fs.create_file("/app/sessions/p/a.json")
    nonroot_fs.create_dir("/app/sessions/q")
    nonroot_fs.create_file("/app/sessions/q/b.json")
    os.chmod("/app/sessions/q", 0)
    assert count_touched_since("/app", None, "") == 1
    os.chmod("/app/sessions", 0)
    with pytest.raises(OpError) as caught:
        count_touched_since("/app", None, "")
    assert caught.value.kind == "permission-denied"
    assert caught.value.message == (
        "session: read sessions root /app/sessions: open /app/sessions: permission denied"
    )


def gate(app: Path, **overrides: object) -> GateDecision:
    arguments: dict[str, object] = {
        "enabled": True,
        "min_hours": 24,
        "min_sessions": 5,
        "app_home": str(app),
        "memory_dir": str(app / "memory"),
        "current_session_id": "cur",
        "now": T0,
        "last_scan_at": None,
        "pid": 77,
    }
    arguments.update(overrides)
    return gate_open(**arguments)  # type: ignore[arg-type]


def sessions(app: Path, count: int, instant: int = T0 - NS_PER_HOUR) -> None:
    for i in range(count):
        session(app, f"-p/s{i}.json", instant)


def test_disabled_never_fires(tmp_path: Path) -> None:
    # evva dream gate_test.go (disabled)
    sessions(tmp_path, 10)
    assert gate(tmp_path, enabled=False, last_scan_at=T0 - MINUTE) == GateDecision(
        False, None, 0, "disabled", T0 - MINUTE
    )


def test_no_memory_dir(tmp_path: Path) -> None:
    assert gate(tmp_path, memory_dir="") == GateDecision(False, None, 0, "no memory dir", None)


def test_fresh_lock_holds_the_time_gate(tmp_path: Path) -> None:
    # evva dream gate_test.go: a lock 1h old with 10 sessions does not fire
    stamp(lock(tmp_path / "memory"), T0 - NS_PER_HOUR)
    sessions(tmp_path, 10)
    assert gate(tmp_path) == GateDecision(False, None, 0, "time-gate not reached", None)


def test_too_few_sessions(tmp_path: Path) -> None:
    # evva dream gate_test.go: a lock 48h old with 3 sessions
    stamp(lock(tmp_path / "memory"), T0 - 48 * NS_PER_HOUR)
    sessions(tmp_path, 3)
    assert gate(tmp_path) == GateDecision(False, None, 3, "session-gate (3/5)", T0)


def test_scan_throttled(tmp_path: Path) -> None:
    # evva dream gate_test.go: LastScanAt one minute ago
    sessions(tmp_path, 10)
    assert gate(tmp_path, last_scan_at=T0 - MINUTE) == GateDecision(
        False, None, 0, "scan-throttled", T0 - MINUTE
    )
    assert gate(tmp_path, last_scan_at=T0 - 10 * MINUTE).fire


def test_fires_then_holds(tmp_path: Path) -> None:
    # evva dream gate_test.go: 7 sessions at 48h fire, and an immediate second gate does not
    prior = T0 - 48 * NS_PER_HOUR
    stamp(lock(tmp_path / "memory"), prior)
    sessions(tmp_path, 7)
    assert gate(tmp_path) == GateDecision(True, prior, 7, "fire — 7 sessions, 48h since last", T0)
    assert lock(tmp_path / "memory").read_text() == "77"
    assert gate(tmp_path).reason == "time-gate not reached"


def test_first_dream_counts_hours_from_go_zero_time(tmp_path: Path) -> None:
    sessions(tmp_path, 5)
    decision = gate(tmp_path)
    assert decision == GateDecision(True, None, 5, "fire — 5 sessions, 2562048h since last", T0)


def test_hours_round_half_to_even(tmp_path: Path) -> None:
    sessions(tmp_path, 5, T0)
    stamp(lock(tmp_path / "memory"), T0 - 24 * NS_PER_HOUR - NS_PER_HOUR // 2)
    assert gate(tmp_path).reason == "fire — 5 sessions, 24h since last"
    stamp(lock(tmp_path / "memory"), T0 - 25 * NS_PER_HOUR - NS_PER_HOUR // 2)
    assert gate(tmp_path, now=T0 + 2).reason == "fire — 5 sessions, 26h since last"


def test_min_hours_is_exact_beyond_go_duration(tmp_path: Path) -> None:
    # 3,000,000 h overflows Go's Duration; the profile compares exactly.
    stamp(lock(tmp_path / "memory"), T0 - 365 * 24 * NS_PER_HOUR)
    assert gate(tmp_path, min_hours=3_000_000).reason == "time-gate not reached"


def test_defaults_for_non_positive_config(tmp_path: Path) -> None:
    stamp(lock(tmp_path / "memory"), T0 - 23 * NS_PER_HOUR)
    assert gate(tmp_path, min_hours=0).reason == "time-gate not reached"
    assert gate(tmp_path, min_hours=1, min_sessions=-3).reason == "session-gate (0/5)"


def test_lock_held(tmp_path: Path) -> None:
    sessions(tmp_path, 5)
    stamp(lock(tmp_path / "memory"), T0 + NS_PER_HOUR)
    assert gate(tmp_path, min_hours=1).reason == "time-gate not reached"
    lock(tmp_path / "memory").unlink()
    lock(tmp_path / "memory").mkdir()
    os.utime(lock(tmp_path / "memory"), ns=(T0 - 2 * NS_PER_HOUR,) * 2)
    assert gate(tmp_path, min_hours=1) == GateDecision(False, None, 5, "lock held", T0)


def test_session_scan_error(tmp_path: Path) -> None:
    (tmp_path / "sessions").write_text("x")
    decision = gate(tmp_path)
    assert decision.reason == "session-scan error"
    assert decision.new_scan_at == T0
    assert decision.error is not None
    assert decision.error.kind == "not-a-directory"


@pytest.mark.parametrize(
    ("mtime", "since", "expected"),
    [
        # Outside Go's UnixNano range (1678-2262) the instants are still compared exactly.
        ("2026-05-01T00:00:00Z", "1600-01-01T00:00:00Z", 1),
        ("2026-05-01T00:00:00Z", "2300-01-01T00:00:00Z", 0),
        ("2300-01-01T00:00:00Z", "2026-05-01T00:00:00Z", 1),
        ("2300-01-01T00:00:00Z", None, 1),
    ],
)
def test_count_compares_instants_at_any_date(
    tmp_path: Path, mtime: str, since: str | None, expected: int
) -> None:
    session = tmp_path / "sessions" / "-p" / "s.json"
    session.parent.mkdir(parents=True)
    session.write_text("{}")
    os.utime(session, ns=(at(mtime), at(mtime)))
    if os.stat(session).st_mtime_ns != at(mtime):
        pytest.skip("the filesystem cannot store this time")
    assert count_touched_since(str(tmp_path), None if since is None else at(since), "") == expected


def test_count_null_since_counts_a_session_from_1700() -> None:
    # evva's zero time wraps to 1754, so it misses this file; tmpfs can store 1700.
    shm = Path("/dev/shm")
    if not shm.is_dir():
        pytest.skip("no tmpfs at /dev/shm")
    with tempfile.TemporaryDirectory(dir=shm) as home:
        session = Path(home) / "sessions" / "-p" / "old.json"
        session.parent.mkdir(parents=True)
        session.write_text("{}")
        old = at("1700-01-01T00:00:00Z")
        os.utime(session, ns=(old, old))
        if os.stat(session).st_mtime_ns != old:
            pytest.skip("the filesystem cannot store 1700")
        assert count_touched_since(home, None, "") == 1
        assert count_touched_since(home, at("1699-12-31T23:59:59Z"), "") == 1


def test_every_change_of_the_lock_is_announced_and_can_fail(tmp_path: Path) -> None:
    memory_dir = str(tmp_path / "app" / "memory")
    with counting() as counter:
        assert try_acquire(memory_dir, T0, 7).ok
    # two directories, then the temporary lock: create, write, fsync, utime, rename
    assert counter.attempted == 7
    for k in range(1, counter.attempted + 1):
        shutil.rmtree(tmp_path / "app", ignore_errors=True)
        with counting(k):
            assert not try_acquire(memory_dir, T0, 7).ok
        lock = tmp_path / "app" / "memory" / ".consolidate-lock"
        assert not lock.exists(), k
    assert try_acquire(memory_dir, T0, 7).ok
    with counting(1) as counter:
        rollback(memory_dir, None)
    assert counter.attempted == 2  # the unlink failed, then Go's os.Remove tries rmdir
    assert os.path.exists(os.path.join(memory_dir, ".consolidate-lock"))
    with counting(2) as counter:
        rollback(memory_dir, T0 - NS_PER_HOUR)  # the new empty body is never written
    assert os.stat(os.path.join(memory_dir, ".consolidate-lock")).st_size == 1
