"""No case, property or snapshot hands an adapter a place outside the run's temporary
folders: a fake that writes into every path it is given runs the whole suite, and nothing
appears outside them."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import HERE, Runner
from host_writer import JOURNAL, MARKER, inside, write_into

from memspec.reports.report import read_report
from memspec.wire.working_directory import scratch_base

# The crash-point runs repeat the requests of the ordinary run, with a fault.
SELECTION = ("-k", "not crash-points", "--hypothesis-profile", "dev")


def _entries(directory: Path) -> set[str]:
    try:
        return set(os.listdir(directory))
    except OSError:
        return set()


def _markers(directory: Path) -> Iterator[Path]:
    """The fake's markers in ``directory`` and one level below it."""
    for name in _entries(directory):
        path = directory / name
        if name.startswith(MARKER):
            yield path
        elif path.is_dir() and not path.is_symlink():
            yield from (path / inner for inner in _entries(path) if inner.startswith(MARKER))


def _remove(paths: list[str]) -> None:
    """Take back what a failing run left on the host, deepest first."""
    for path in sorted(paths, key=len, reverse=True):
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        elif os.path.lexists(path):
            os.unlink(path)


def test_the_fake_writes_what_it_is_pointed_at(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "file").write_text("kept")
    made = write_into(f"{tmp_path}/a/b")
    assert made[:2] == [tmp_path / "a", tmp_path / "a" / "b"]
    assert made[2].parent == tmp_path / "a" / "b" and made[2].name.startswith(MARKER)
    assert write_into(f"{tmp_path}/file") == [] and (tmp_path / "file").read_text() == "kept"
    assert write_into(f"{tmp_path}/x\0y") == [] and write_into("") == []
    monkeypatch.chdir(tmp_path)
    assert write_into("relative/d")[:2] == [tmp_path / "relative", tmp_path / "relative" / "d"]
    assert inside(f"/{tmp_path}/a/../b", tmp_path) and not inside(f"{tmp_path}/../b", tmp_path)


def test_no_case_touches_the_host(memspec_cli: Runner, tmp_path: Path) -> None:
    run_temporary = tmp_path / "tmp"
    run_temporary.mkdir()
    journal = tmp_path / "journal"
    journal.touch()
    # Where a stray write would land: the file-system root, the shared temporary folders
    # (the one where runs make their folders too) and the home directory. The shared ones
    # change under other processes too, so in them only what the fake made counts.
    root = Path("/")
    shared = list(dict.fromkeys([Path(tempfile.gettempdir()), scratch_base(), Path.home()]))
    root_before = _entries(root)
    env = dict(os.environ)
    env.pop("PYTEST_ADDOPTS", None)
    env.update(
        {
            "TMPDIR": str(run_temporary),
            # The harness's own validation cache, kept in the run's folder here so that
            # only what the cases hand the adapter is judged.
            "XDG_CACHE_HOME": str(run_temporary / "cache"),
            JOURNAL: str(journal),
            "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")])),
        }
    )
    report = tmp_path / "report.jsonl"
    done = memspec_cli(
        "run",
        "--adapter",
        "python:host_writer:HostWriter",
        "--report",
        str(report),
        *SELECTION,
        env=env,
        timeout=600,
    )
    created = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    outside = [path for path in created if not inside(path, run_temporary)]
    markers = [str(path) for place in (root, *shared) for path in _markers(place)]
    new_in_root = sorted(_entries(root) - root_before)
    _remove(outside + markers)
    assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr[-3000:]
    assert outside == []
    assert markers == []
    assert new_in_root == []
    ran = {
        r["id"] for r in read_report(report) if r["type"] == "case" and r["outcome"] != "skipped"
    }
    assert len(ran) > 2000
    assert {
        "factstore/write/snapshot-write-errors",
        "factstore/write/property-write-read-round-trip",
        "turnlog/store/property-list-order",
    } <= ran
    assert len(created) > 5000
