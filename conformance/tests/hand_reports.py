"""Reports edited by hand, as the tests of report consumers need them: a footer that counts
its records as a real one does, a report cut short, a one-line usage error checked."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from conftest import DATA, HERE, fake_cmd, run_memspec

from memspec.reports.report import OUTCOMES, read_report


def write_lines(target: Path, lines: list[dict[str, Any]]) -> Path:
    """A hand-made report, its footer counting its case records as a real one does."""
    counts = Counter(line["outcome"] for line in lines if line["type"] == "case")
    made = [
        {**line, "counts": {o: counts.get(o, 0) for o in OUTCOMES}}
        if line["type"] == "footer"
        else line
        for line in lines
    ]
    target.write_text("".join(json.dumps(line) + "\n" for line in made), encoding="utf-8")
    return target


def rewrite(source: Path, target: Path, change: Any) -> Path:
    """``source`` with every line passed through ``change``."""
    return write_lines(target, [change(line) for line in read_report(source)])


def with_footer(source: Path, target: Path, **members: Any) -> Path:
    return rewrite(
        source, target, lambda line: {**line, **members} if line["type"] == "footer" else line
    )


def usage_error(result: subprocess.CompletedProcess[str]) -> str:
    """The one line a usage error prints; fails unless it is exactly that."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memspec: error: "), result.stderr
    assert "Traceback" not in result.stdout
    return lines[0]


def suite_environment() -> dict[str, str]:
    """An environment for ``memspec`` on the real suite, the test fakes importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    for name in ("PYTEST_ADDOPTS", "MEMSPEC_FIXTURES", "MEMSPEC_SPEC", "GITHUB_STEP_SUMMARY"):
        env.pop(name, None)
    return env


def demo_environment() -> dict[str, str]:
    """The same, reading the toy ``demo`` profile."""
    return {
        **suite_environment(),
        "MEMSPEC_FIXTURES": str(DATA / "fixtures"),
        "MEMSPEC_SPEC": str(DATA / "spec"),
    }


def memspec(
    *args: str, env: dict[str, str], cwd: Path, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return run_memspec(*args, cwd=cwd, env=env, timeout=timeout)


def merge(
    reports: Iterable[Path], out: Path, *, env: dict[str, str], cwd: Path
) -> subprocess.CompletedProcess[str]:
    return memspec("merge-reports", *map(str, reports), "-o", str(out), env=env, cwd=cwd)


def stopped_run(
    report: Path, token: str, *, env: dict[str, str], cwd: Path, signum: int = signal.SIGTERM
) -> subprocess.CompletedProcess[str]:
    """A run against the fake ``hang`` adapter (``token`` names its process alone),
    stopped by ``signum`` once it waits in its first case, its report written to
    ``report``."""
    scratch = cwd / "tmp"
    scratch.mkdir(exist_ok=True)
    command = [sys.executable, "-m", "memspec", "run", "--adapter", f"{fake_cmd('hang')} {token}"]
    command += ["--timeout", "300", "--report", str(report)]
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env={**env, "TMPDIR": str(scratch)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    # A case's tree, in the folder of the run's temporary folders:
    while time.monotonic() < deadline and not any(scratch.glob("memspec-run-*/memspec-*")):
        time.sleep(0.1)
    time.sleep(0.5)  # past the tree's set-up, into the call that hangs
    process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=60)
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
