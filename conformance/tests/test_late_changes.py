"""A change an adapter makes to a case's tree after its last reply fails that case,
whatever made it: a thread, a process the adapter left behind, a timer signal. A run
ends without waiting for such a change only when nothing of the adapter can act before
the harness speaks to it again (``memspec.wire.processes.still_running``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import HERE, Runner, fakes_env

from memspec.reports.report import read_report

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="processes are seen through Linux's /proc"
)

CASE = "memories/create/new"
LATE = "after the case: tree changed"


@pytest.mark.parametrize(
    ("arrangement", "answer"),
    [
        ("nothing", "quiet"),
        ("reads-its-requests", "quiet"),
        ("waits-for-its-child", "quiet"),
        ("zombie", "quiet"),
        ("thread", "1 thread(s) started during the run still run"),
        ("orphan", "is not waiting for the harness"),
        ("sleeps", "is not waiting for the harness"),
        ("reads-elsewhere", "reads what the harness does not write"),
        ("two-threads", "runs more than one thread"),
        ("alarm", "may wake up on a timer"),
    ],
)
def test_what_could_still_act_is_seen(arrangement: str, answer: str) -> None:
    probe = subprocess.run(
        [sys.executable, str(HERE / "quiet_probe.py"), arrangement],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert probe.returncode == 0, probe.stderr
    assert answer in probe.stdout, probe.stdout


@pytest.mark.parametrize(
    "adapter",
    [
        "python:late_fakes:LateThread",
        *(
            f"cmd:{sys.executable} -m memspec.observe.served late_fakes {name}"
            for name in ("LateThread", "LateOrphan", "LateAlarm")
        ),
    ],
    ids=["thread-in-process", "thread", "orphan", "alarm"],
)
def test_a_change_after_the_last_reply_fails_the_case(
    adapter: str, memspec_cli: Runner, tmp_path: Path
) -> None:
    report = tmp_path / "report.jsonl"
    result = memspec_cli(
        "run", "--adapter", adapter, "--case", CASE, "--report", str(report), env=fakes_env()
    )
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr
    (record,) = [r for r in read_report(report) if r["type"] == "case"]
    assert record["outcome"] == "failed"
    assert LATE in record["signature"], record
    assert "notes.txt: mtime_ns, content changed" in record["message"], record["message"]
