"""The whole suite passes against memref, in process and through the protocol, alike.

Where the harness runs as root (as CI containers do), the run through the protocol
serves ``memspec serve-reference`` as uid 65534 and hands it every folder of the run
(``--tree-owner``): the cases that need mode bits to bind (``host: non-root``), skipped
in process, then pass for a non-root adapter too.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import Runner
from unprivileged import NOBODY, unprivileged_adapter

from memspec.reports.report import read_report
from memspec.wire.protocol import report_line_errors

_NON_ROOT = "host: the case needs a non-root user"


@dataclass(frozen=True)
class BothRuns:
    in_process: Path
    subprocess: Path
    non_root: bool
    """Whether the run through the protocol served memref as uid 65534."""


def _run(adapter: str, report: Path, cwd: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memspec",
            "run",
            "--adapter",
            adapter,
            "--report",
            str(report),
            "--hypothesis-profile",
            "ci",
            *extra,
        ],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture(scope="module")
def both_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BothRuns]:
    base = tmp_path_factory.mktemp("both")
    runs = BothRuns(base / "in-process.jsonl", base / "subprocess.jsonl", non_root=False)
    with unprivileged_adapter("memspec serve-reference") as unprivileged:
        if unprivileged is not None:
            runs = BothRuns(runs.in_process, runs.subprocess, non_root=True)
            through_protocol = _run(unprivileged, runs.subprocess, base, "--tree-owner", NOBODY)
        else:
            serve = f"cmd:{sys.executable} -m memspec serve-reference"
            through_protocol = _run(serve, runs.subprocess, base)
        # The two runs are independent: one on each core.
        # In process, every reply is also checked against its op's result schema.
        checked = "python:memspec.checked_reference:Reference"
        for run in (_run(checked, runs.in_process, base), through_protocol):
            stdout, stderr = run.communicate(timeout=900)
            assert run.returncode == 0, stdout[-4000:] + stderr[-2000:]
    yield runs


def _ids(path: Path, outcome: str, message: str = "") -> set[str]:
    return {
        r["id"]
        for r in read_report(path)
        if r["type"] == "case" and r["outcome"] == outcome and r["message"].startswith(message)
    }


def test_both_paths_pass_the_same_cases(both_runs: BothRuns) -> None:
    in_process = _ids(both_runs.in_process, "passed")
    needs_non_root = set()
    if both_runs.non_root:  # skipped in process as root, run through the protocol
        needs_non_root = _ids(both_runs.in_process, "skipped", _NON_ROOT)
    assert _ids(both_runs.subprocess, "passed") == in_process | needs_non_root
    for profile, at_least in (
        ("memdir/", 800),
        ("factstore/", 450),
        ("memorytool/", 300),
        ("turnlog/", 350),
        ("memories/", 280),
    ):
        assert len([case for case in in_process if case.startswith(profile)]) >= at_least


def test_reports_validate_and_fail_nothing(both_runs: BothRuns) -> None:
    for path in (both_runs.in_process, both_runs.subprocess):
        lines = read_report(path)
        assert lines[0]["type"] == "header" and lines[-1]["type"] == "footer"
        assert all(report_line_errors(line) == [] for line in lines)
        counts = lines[-1]["counts"]
        assert counts["failed"] == counts["error"] == counts["xpassed"] == 0
        skipped = [r for r in lines if r.get("outcome") == "skipped"]
        assert all(r["message"].startswith(("host:", "not claimed:")) for r in skipped)


def test_permission_cases_pass_for_a_non_root_adapter(both_runs: BothRuns) -> None:
    """As root, with every folder handed to uid 65534 and memref served as that user, the
    cases that need mode bits to bind run instead of being skipped, in every profile."""
    if not both_runs.non_root:
        pytest.skip("needs root, setpriv and a Python >= 3.11 that uid 65534 can run")
    needs_non_root = _ids(both_runs.in_process, "skipped", _NON_ROOT)
    assert {case.split("/")[0] for case in needs_non_root} >= {"memdir", "factstore", "turnlog"}
    assert len(needs_non_root) >= 20
    assert needs_non_root <= _ids(both_runs.subprocess, "passed")
    assert not _ids(both_runs.subprocess, "skipped", _NON_ROOT)


def test_smoke_passes_for_the_reference_over_the_protocol(memspec_cli: Runner) -> None:
    result = memspec_cli("smoke", "--adapter", f"cmd:{sys.executable} -m memspec serve-reference")
    assert result.returncode == 0, result.stdout
    assert "ok   memdir.constants answered with an object" in result.stdout
