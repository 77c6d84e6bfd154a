"""memref served as an unprivileged user (uid 65534), for runs with ``--tree-owner``."""

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

NOBODY = "65534:65534"


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
def unprivileged_memref() -> Iterator[str]:
    """The ``cmd:`` spec of memref served as uid 65534 from a copy that user can read;
    skips the test where the host cannot do that (not root, no setpriv)."""
    python = unprivileged_python()
    if python is None:
        pytest.skip("needs root, setpriv and a Python >= 3.11 that uid 65534 can run")
    shared = Path(tempfile.mkdtemp(prefix="memspec-memref-"))
    try:
        shutil.copytree(Path(memref.__file__).parent, shared / "memref")
        for path in [shared, *shared.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        yield (
            f"cmd:setpriv --reuid=65534 --regid=65534 --clear-groups env "
            f"PYTHONPATH={shared} {python} -m memref.serve"
        )
    finally:
        shutil.rmtree(shared, ignore_errors=True)
