"""The right party is blamed, in one line: the harness's own faults and bad options are
never counted against the implementation, and an adapter's slow start is not a broken
one."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Runner, fake_cmd


def _usage_error(result: object) -> str:
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
