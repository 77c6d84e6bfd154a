"""Where a run makes its folders (``scratch_base``): in the temporary folder the
environment names, or else in a tmpfs with room, so that the trees of cases cost no disk
writes; and the report header says which."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import Runner, fake_cmd

from memspec.reports.report import read_report
from memspec.wire import working_directory
from memspec.wire.working_directory import scratch_base

_NAMES = ("TMPDIR", "TEMP", "TMP")


def _file_system(folder: Path) -> str:
    stat = shutil.which("stat")
    if stat is None:
        return ""
    found = subprocess.run([stat, "-f", "-c", "%T", str(folder)], capture_output=True, text=True)
    return found.stdout.strip()


IN_MEMORY = pytest.mark.skipif(
    _file_system(Path("/dev/shm")) != "tmpfs", reason="host: /dev/shm is not a tmpfs here"
)


@pytest.fixture
def unnamed(monkeypatch: pytest.MonkeyPatch) -> None:
    """No temporary folder named by the environment."""
    for name in _NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(tempfile, "tempdir", None)


@pytest.mark.parametrize("name", _NAMES)
def test_a_temporary_folder_the_environment_names_is_used(
    name: str, unnamed: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(name, str(tmp_path))
    assert scratch_base() == tmp_path


@IN_MEMORY
def test_otherwise_a_tmpfs_with_room_is_used(unnamed: None) -> None:
    assert scratch_base() == Path("/dev/shm")


def test_a_folder_that_is_no_tmpfs_is_not_used(
    unnamed: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(working_directory, "_IN_MEMORY", tmp_path)
    assert scratch_base() == Path(tempfile.gettempdir())


@IN_MEMORY
def test_a_tmpfs_without_room_is_not_used(unnamed: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(working_directory, "_ROOM_IN_MEMORY", 1 << 62)
    assert scratch_base() == Path(tempfile.gettempdir())


@pytest.mark.parametrize("named", [True, False], ids=["named", "unnamed"])
def test_the_header_names_the_folder_and_nothing_is_left_there(
    named: bool, memspec_cli: Runner, demo_env: dict[str, str], tmp_path: Path
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    for name in _NAMES:
        demo_env.pop(name, None)
    if named:
        demo_env["TMPDIR"] = str(scratch)
    report = tmp_path / "report.jsonl"
    result = memspec_cli(
        "run", "--adapter", fake_cmd("good"), "--report", str(report), env=demo_env
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    used = Path(read_report(report)[0]["run_info"]["scratch"])
    if named:
        assert used == scratch and list(scratch.iterdir()) == []
    elif _file_system(Path("/dev/shm")) == "tmpfs":
        assert used == Path("/dev/shm")
    else:
        assert used == Path(tempfile.gettempdir())
