"""The reference served as an unprivileged user (uid 65534), for runs with
``--tree-owner``: possible where the harness runs as root and ``setpriv`` exists."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import memref
import memspec

NOBODY = "65534:65534"
_SKIP = "needs root, setpriv and a Python >= 3.11 that uid 65534 can run"


def unprivileged_python() -> str | None:
    """A Python >= 3.11 that uid 65534 can run, when the harness runs as root."""
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


@contextmanager
def unprivileged_adapter(module: str = "memref.serve") -> Iterator[str | None]:
    """The ``cmd:`` spec of ``python -m MODULE`` run as uid 65534 from copies of memref
    and memspec that user can read (``memspec serve-reference`` needs no other package),
    or None where the host cannot do that."""
    python = unprivileged_python()
    if python is None:
        yield None
        return
    shared = Path(tempfile.mkdtemp(prefix="memspec-unprivileged-"))
    try:
        for package in (memref, memspec):
            source = Path(package.__file__ or "").parent
            shutil.copytree(
                source, shared / source.name, ignore=shutil.ignore_patterns("__pycache__")
            )
        for path in [shared, *shared.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        yield (
            f"cmd:setpriv --reuid=65534 --regid=65534 --clear-groups env "
            f"PYTHONPATH={shared} {python} -m {module}"
        )
    finally:
        shutil.rmtree(shared, ignore_errors=True)


@contextmanager
def unprivileged_memref() -> Iterator[str]:
    """As ``unprivileged_adapter``; skips the test where the host cannot."""
    with unprivileged_adapter() as adapter:
        if adapter is None:
            pytest.skip(_SKIP)
        yield adapter
