"""The whole suite passes against memref, in process and through the protocol, alike."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest
from conftest import Runner

from memspec.protocol import report_line_errors
from memspec.report import read_report


@pytest.fixture(scope="module")
def both_reports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    import subprocess

    base = tmp_path_factory.mktemp("both")
    reports = (base / "in-process.jsonl", base / "subprocess.jsonl")
    adapters = ("reference", f"cmd:{sys.executable} -m memspec serve-reference")
    # The two runs are independent: one on each core.
    runs = [
        subprocess.Popen(
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
            ],
            cwd=base,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for adapter, report in zip(adapters, reports, strict=True)
    ]
    for run in runs:
        stdout, stderr = run.communicate(timeout=900)
        assert run.returncode == 0, stdout[-4000:] + stderr[-2000:]
    return reports


def _passed(path: Path) -> set[str]:
    return {r["id"] for r in read_report(path) if r["type"] == "case" and r["outcome"] == "passed"}


def test_both_paths_pass_the_same_cases(both_reports: tuple[Path, Path]) -> None:
    in_process, subprocess_ = (_passed(path) for path in both_reports)
    assert in_process == subprocess_
    for profile, at_least in (
        ("memdir/", 800),
        ("factstore/", 450),
        ("memorytool/", 300),
        ("turnlog/", 350),
        ("memories/", 280),
    ):
        assert len([case for case in in_process if case.startswith(profile)]) >= at_least


def test_reports_validate_and_fail_nothing(both_reports: tuple[Path, Path]) -> None:
    for path in both_reports:
        lines = read_report(path)
        assert lines[0]["type"] == "header" and lines[-1]["type"] == "footer"
        assert all(report_line_errors(line) == [] for line in lines)
        counts = lines[-1]["counts"]
        assert counts["failed"] == counts["error"] == counts["xpassed"] == 0
        skipped = [r for r in lines if r.get("outcome") == "skipped"]
        assert all(r["message"].startswith(("host:", "not claimed:")) for r in skipped)


def test_smoke_passes_for_the_reference_over_the_protocol(memspec_cli: Runner) -> None:
    result = memspec_cli("smoke", "--adapter", f"cmd:{sys.executable} -m memspec serve-reference")
    assert result.returncode == 0, result.stdout
    assert "ok   memdir.constants answered with an object" in result.stdout


NOBODY = "65534:65534"


def _unprivileged_python() -> str | None:
    """A Python >= 3.11 that uid 65534 can run, when the harness runs as root."""
    import os
    import shutil
    import subprocess

    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("setpriv") is None:
        return None
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        probe = subprocess.run(
            [
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                candidate,
                "-c",
                "import sys; print(sys.version_info >= (3, 11))",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if probe.stdout.strip() == "True":
            return candidate
    return None


def test_permission_cases_pass_for_a_non_root_adapter(memspec_cli: Runner, tmp_path: Path) -> None:
    """As root, hand every tree to uid 65534 and serve memref as that user: the cases that
    need mode bits to bind (host: non-root) run instead of being skipped."""
    import shutil

    import memref

    python = _unprivileged_python()
    if python is None:
        pytest.skip("needs root, setpriv and a Python >= 3.11 that uid 65534 can run")
    shared = Path(tempfile.mkdtemp(prefix="memspec-memref-"))
    try:
        shutil.copytree(Path(memref.__file__).parent, shared / "memref")
        for path in [shared, *shared.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        adapter = (
            f"cmd:setpriv --reuid=65534 --regid=65534 --clear-groups env "
            f"PYTHONPATH={shared} {python} -m memref.serve"
        )
        report = tmp_path / "r.jsonl"
        result = memspec_cli(
            "run",
            "--profile",
            "memdir",
            "--tree-owner",
            NOBODY,
            "--adapter",
            adapter,
            "--report",
            str(report),
        )
        assert result.returncode == 0, result.stdout[-3000:]
        records = [r for r in read_report(report) if r["type"] == "case"]
        assert len(records) >= 600
        assert all(r["outcome"] == "passed" for r in records), [
            r for r in records if r["outcome"] != "passed"
        ][:3]
    finally:
        shutil.rmtree(shared, ignore_errors=True)
