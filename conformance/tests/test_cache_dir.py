"""memspec's cache is an absolute folder or none: ``MEMSPEC_CACHE_DIR`` moves it, and an
empty ``HOME`` or a relative ``XDG_CACHE_HOME`` never puts it at the root of the file
system or where memspec was started."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memspec.corpus.cases import cache_dir


@pytest.mark.parametrize(
    ("environment", "expected"),
    [
        (
            {"MEMSPEC_CACHE_DIR": "/var/cache/ms", "XDG_CACHE_HOME": "/x", "HOME": "/h"},
            "/var/cache/ms",
        ),
        ({"MEMSPEC_CACHE_DIR": "relative", "HOME": "/h"}, None),
        ({"MEMSPEC_CACHE_DIR": "", "HOME": "/h"}, None),
        ({"XDG_CACHE_HOME": "/x", "HOME": "/h"}, "/x/memspec"),
        ({"XDG_CACHE_HOME": "cache", "HOME": "/h"}, "/h/.cache/memspec"),
        ({"HOME": "/h"}, "/h/.cache/memspec"),
        ({"HOME": ""}, None),
        ({"HOME": "/"}, None),
        ({"XDG_CACHE_HOME": "cache", "HOME": ""}, None),
    ],
)
def test_the_cache_is_absolute_or_none(
    monkeypatch: pytest.MonkeyPatch, environment: dict[str, str], expected: str | None
) -> None:
    for name in ("MEMSPEC_CACHE_DIR", "XDG_CACHE_HOME", "HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert cache_dir() == (Path(expected) if expected else None)


def test_a_run_with_an_empty_home_and_a_relative_xdg_cache_writes_no_cache(
    tmp_path: Path,
) -> None:
    environment = {
        **os.environ,
        "HOME": "",
        "XDG_CACHE_HOME": "relative-cache",
        "PYTEST_ADDOPTS": "",
    }
    environment.pop("MEMSPEC_CACHE_DIR", None)
    done = subprocess.run(
        [sys.executable, "-m", "memspec", "run", "--case", "memories/view/empty-root"],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode in (0, 5), done.stdout[-2000:] + done.stderr[-2000:]
    assert os.listdir(tmp_path) == []
    assert not os.path.exists("/.cache/memspec")
