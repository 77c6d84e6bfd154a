"""memspec's cache is an absolute folder or none: ``MEMSPEC_CACHE_DIR`` moves it, and an
empty ``HOME`` or a relative ``XDG_CACHE_HOME`` never puts it at the root of the file
system or where memspec was started. What it keeps (the fixtures found valid) holds only
for the same file under the same rules."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA

from memspec.corpus import cases
from memspec.corpus.cases import cache_dir, load_cases
from memspec.corpus.op_schemas import forget_op_schemas
from memspec.exceptions import FixtureError


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


def _fixtures(base: Path, tree_key: str) -> bytes:
    """A corpus in ``base`` of one demo case whose tree holds ``tree_key``; the file's
    content."""
    source = json.loads((DATA / "fixtures/demo/echo/number.json").read_text(encoding="utf-8"))
    source["tree"] = {tree_key: {"text": "x"}}
    file = base / "demo/echo/number.json"
    file.parent.mkdir(parents=True)
    file.write_text(json.dumps(source), encoding="utf-8")
    return file.read_bytes()


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MEMSPEC_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_fixture_found_valid_is_not_checked_again_until_it_changes(
    tmp_path: Path, cache: Path
) -> None:
    _fixtures(tmp_path / "good", "inside.md")
    assert [case.id for case in load_cases(tmp_path / "good")] == ["demo/echo/number"]
    (kept,) = cache.iterdir()
    escaping = _fixtures(tmp_path / "bad", "../outside.md")
    with pytest.raises(FixtureError, match=r"key '../outside.md' is outside \$\{ROOT\}"):
        load_cases(tmp_path / "bad")
    # The cache is what spares the check: with the escaping file's digest in it, the
    # same file is taken as checked.
    kept.write_text(hashlib.sha256(escaping).hexdigest(), encoding="ascii")
    shutil.rmtree(tmp_path / "bad")
    _fixtures(tmp_path / "bad-again", "../outside.md")
    assert [case.id for case in load_cases(tmp_path / "bad-again")] == ["demo/echo/number"]


def test_the_cache_holds_for_one_set_of_rules(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another case schema, op schema or path rule is another cache file, so that a
    fixture valid under the old rules is checked under the new."""
    ops = tmp_path / "ops"
    shutil.copytree(DATA / "schemas" / "ops", ops)
    monkeypatch.setenv("MEMSPEC_OP_SCHEMAS", str(ops))
    forget_op_schemas()
    try:
        before = cases._validation_cache()
        echo = ops / "demo" / "echo.json"
        echo.write_text(echo.read_text(encoding="utf-8") + " ", encoding="utf-8")
        assert before is not None and cases._validation_cache() not in (None, before)
    finally:
        monkeypatch.undo()
        forget_op_schemas()
