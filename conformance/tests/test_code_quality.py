"""The gates CI applies to the code: ruff's linter and formatter, and mypy --strict on
both packages (configured in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHECKED = ["reference", "conformance", "tools", "benchmarks"]


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=REPO, capture_output=True, text=True, timeout=600, check=False
    )


def test_ruff_check_is_clean() -> None:
    result = _run(sys.executable, "-m", "ruff", "check", *CHECKED)
    assert result.returncode == 0, result.stdout[-4000:]


def test_ruff_format_is_applied() -> None:
    result = _run(sys.executable, "-m", "ruff", "format", "--check", *CHECKED)
    assert result.returncode == 0, result.stdout[-4000:]


def test_mypy_strict_is_clean() -> None:
    result = _run(sys.executable, "-m", "mypy")
    assert result.returncode == 0, result.stdout[-4000:]
