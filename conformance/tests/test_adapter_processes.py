"""A ``cmd:`` adapter whose leader exits is reported at once, with its exit status and
stderr, and its process group and session are ended: no adapter process outlives memspec."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import FAKE, fake_cmd

from memspec.exceptions import AdapterCrashed
from memspec.wire.adapters import Adapter


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rpartition(b")")[2].split()[0] != b"Z"
    except OSError:
        return False


def _gone_soon(pid: int) -> bool:
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _alive(pid)


def test_a_leader_that_exits_leaving_a_child_is_reported_at_once_and_the_child_ended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pids = tmp_path / "pids"
    monkeypatch.setenv("MEMSPEC_FAKE_PIDS", str(pids))
    adapter = Adapter(fake_cmd("orphan"), timeout_s=30)
    try:
        adapter.handshake  # noqa: B018
        started = time.monotonic()
        with pytest.raises(AdapterCrashed) as crashed:
            adapter.call("demo.echo", {"value": "!go"})
        assert time.monotonic() - started < 10  # not the 30 s of the timeout
        assert "exit code 7" in str(crashed.value)
        assert "the leader leaves its child behind" in str(crashed.value)
        (child,) = map(int, pids.read_text().split())
        assert _gone_soon(child)
    finally:
        adapter.close()


def test_no_process_of_an_adapter_outlives_memspec(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from memspec.wire.adapters import Adapter;"
        f"a = Adapter({f'cmd:{sys.executable} {FAKE} orphan'!r}, timeout_s=30); a.handshake;"
        "import os, time, threading;"
        # The leader leaves its child and the harness exits without closing the adapter.
        "threading.Thread(target=lambda: a.call('demo.echo', {'value': '!go'}), daemon=True)"
        ".start(); time.sleep(0.5 if os.path.exists(sys.argv[2]) else 3)"
    )
    environment = {**os.environ, "MEMSPEC_FAKE_PIDS": str(pids)}
    subprocess.run(
        [sys.executable, "-c", script, str(Path(__file__).parent), str(pids)],
        env=environment,
        check=True,
        timeout=60,
    )
    (child,) = map(int, pids.read_text().split())
    assert _gone_soon(child)


def test_an_adapter_starts_in_an_empty_working_directory_and_what_it_writes_there_fails_the_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memspec.corpus.cases import case_from_json
    from memspec.exceptions import CaseFailure
    from memspec.run.runner import run_case

    monkeypatch.chdir(tmp_path)  # where memspec was started

    def echo(value: str) -> Any:
        return case_from_json(
            {
                "id": "demo/harness/relative",
                "description": "d",
                "requirements": ["DEMO-ECHO-001"],
                "op": "demo.echo",
                "args": {"value": value},
                "expect": {"result": value},
            }
        )

    adapter = Adapter(fake_cmd("relative"), timeout_s=30)
    try:
        with pytest.raises(CaseFailure, match="changed what lies outside") as caught:
            run_case(echo("!x"), adapter)
        assert "home/MEMORY.md: created" in str(caught.value)
        run_case(echo("plain"), adapter)  # the directory was emptied for the next case
    finally:
        adapter.close()
    assert os.listdir(tmp_path) == []


def test_an_in_process_adapter_answers_in_the_same_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memspec.wire.adapters import InProcessConnection
    from memspec.wire.working_directory import working_directory

    class WhereAmI:
        def handle(self, message: dict[str, object]) -> dict[str, object]:
            return {"id": message["id"], "result": os.getcwd()}

    monkeypatch.chdir(tmp_path)
    reply = InProcessConnection(WhereAmI(), "w").request({"id": 1, "op": "x"}, 1)
    assert reply["result"] == str(working_directory()) != str(tmp_path)
    assert os.getcwd() == str(tmp_path)


def test_relative_paths_of_a_cmd_command_line_are_anchored_where_memspec_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memspec.wire.adapters import anchored

    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "my-adapter").write_text("")
    (tmp_path / "adapter.js").write_text("")
    monkeypatch.chdir(tmp_path)
    assert anchored(["./bin/my-adapter", "--flag", "adapter.js", "absent.js", "/abs"]) == [
        str(tmp_path / "bin" / "my-adapter"),
        "--flag",
        str(tmp_path / "adapter.js"),
        "absent.js",
        "/abs",
    ]
    assert anchored(["node", "adapter.js"]) == ["node", str(tmp_path / "adapter.js")]
    # The whole path: a relative script runs although the adapter starts elsewhere.
    (tmp_path / "fake_adapter.py").write_text(Path(FAKE).read_text())
    adapter = Adapter(f"cmd:{sys.executable} fake_adapter.py", timeout_s=30)
    try:
        assert adapter.handshake.profiles
    finally:
        adapter.close()
