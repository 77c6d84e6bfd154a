"""The gates CI applies to the code: ruff's linter and formatter, and mypy --strict on
both packages (configured in pyproject.toml), each at the exact version the test extra
pins."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

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
    # The whole tree: the formatter also checks the Python code blocks of Markdown pages.
    result = _run(sys.executable, "-m", "ruff", "format", "--check", ".")
    assert result.returncode == 0, result.stdout[-4000:]


def test_mypy_strict_is_clean() -> None:
    result = _run(sys.executable, "-m", "mypy")
    assert result.returncode == 0, result.stdout[-4000:]


GATES = ("ruff", "mypy", "types-jsonschema")


def _test_extra() -> dict[str, str]:
    """Each requirement of the test extra, by distribution name."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = project["optional-dependencies"]["test"]
    return {re.split(r"[ <>=!~;\[]", r, maxsplit=1)[0].lower(): r for r in requirements}


@pytest.mark.parametrize("gate", GATES)
def test_gates_are_pinned_to_the_installed_version(gate: str) -> None:
    requirement = _test_extra()[gate]
    match = re.fullmatch(rf"{re.escape(gate)}==([0-9][0-9A-Za-z.]*)", requirement)
    assert match, f"{requirement!r}: a gate is pinned to one exact version"
    assert metadata.version(gate) == match[1], "the environment does not hold the pinned version"
