"""The right party is blamed, in one line: the harness's own faults and bad options are
never counted against the implementation, and an adapter's slow start is not a broken
one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import Runner, fake_cmd

from memspec.reports.report import read_report


def _usage_error(result: Any) -> str:
    returncode, stderr = result.returncode, str(result.stderr)
    assert returncode == 2, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memspec: error: "), stderr
    return lines[0]


def test_the_start_handshake_has_its_own_timeout(
    demo_env: dict[str, str], memspec_cli: Runner
) -> None:
    slow = memspec_cli("run", "--adapter", fake_cmd("slow-start"), "--timeout", "1", env=demo_env)
    assert slow.returncode == 0, slow.stdout + slow.stderr
    short = memspec_cli(
        "run",
        "--adapter",
        fake_cmd("slow-start"),
        "--timeout",
        "1",
        "--start-timeout",
        "0.5",
        env=demo_env,
    )
    assert short.returncode == 3
    assert "start handshake failed: no answer within 1 s" in short.stderr


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("--report", "--junit"),
        ("--report", "--summary"),
        ("--junit", "--summary"),
        ("--report", "--write-expectations"),
        ("--report", "--expectations"),
        ("--summary", "--expectations"),
    ],
)
def test_two_outputs_on_one_file_are_refused(
    first: str, second: str, demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    same = tmp_path / "same"
    if second == "--expectations":
        same.write_text("", encoding="utf-8")
    result = memspec_cli(
        "run", "--adapter", fake_cmd("good"), first, str(same), second, str(same), env=demo_env
    )
    line = _usage_error(result)
    assert f"{first} and {second} name the same file" in line, line


def test_a_fault_of_the_harness_is_an_error_that_says_so(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    report = tmp_path / "r.jsonl"
    env = {**demo_env, "PYTEST_ADDOPTS": "-p harness_breaker"}
    result = memspec_cli(
        "run",
        "--adapter",
        fake_cmd("good"),
        "--report",
        str(report),
        "--case",
        "demo/echo/plain",
        env=env,
    )
    assert result.returncode == 1
    record = next(r for r in read_report(report) if r.get("id") == "demo/echo/plain")
    assert record["outcome"] == "error"
    assert record["signature"] == ["harness fault"]
    assert record["message"].startswith(
        "harness fault in demo/echo/plain, not counted against the implementation: "
        "FileNotFoundError: [Errno 2] No such file or directory"
    ), record["message"]
    assert "does not hold" not in record["message"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("-n", "99999999999"), "expected a whole number from 1 to 1024"),
        (("--tree-owner", "99999999999:1"), "a uid and a gid are below 4294967295"),
        (("--tree-owner", "\u00b2:1"), "expected UID:GID"),
        (("--start-timeout", "0"), "expected a positive, finite number"),
    ],
)
def test_bad_option_values_are_usage_errors(
    args: tuple[str, ...], needle: str, demo_env: dict[str, str], memspec_cli: Runner
) -> None:
    line = _usage_error(memspec_cli("run", "--adapter", fake_cmd("good"), *args, env=demo_env))
    assert needle in line, line
