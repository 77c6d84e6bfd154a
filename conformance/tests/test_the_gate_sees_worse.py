"""An expected failure pins what was observed: an expectations file written from a handler
that drifts in its wording fails the run of every variant of it that does one thing
worse, and names what changed (``gate_variants.py`` says what each variant does).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from conftest import HERE, Runner

VARIANTS = HERE / "gate_variants.py"
CASES = (
    "memories/paths/backup-dotdot-view",
    "memories/paths/dotdot-view-outside",
    "memories/create/exists-fifo",
    "memories/create/new",
    "memories/create/exists-file",
    "memories/view/file-missing",
    "memories/str-replace/missing-old",
)
SELECTED = [argument for case in CASES for argument in ("--case", case)]


def _adapter(worse: str = "") -> str:
    return f"cmd:{sys.executable} {VARIANTS} {worse}".rstrip()


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    env.pop("PYTEST_ADDOPTS", None)
    return env


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The expectations file written from the drifting handler, which every case fails on
    its wording but one."""
    from conftest import run_memspec

    where = tmp_path_factory.mktemp("gate")
    path = where / "expectations.toml"
    result = run_memspec(
        "run", "--adapter", _adapter(), *SELECTED, "--write-expectations", str(path),
        "--timeout", "3", cwd=where, env=_env(),
    )  # fmt: skip
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr
    again = run_memspec(
        "run", "--adapter", _adapter(), *SELECTED, "--expectations", str(path),
        "--timeout", "3", cwd=where, env=_env(),
    )  # fmt: skip
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr
    return path


# (variant, a case it fails, what the run names of the change)
WORSE = [
    ("reads-outside", "memories/paths/dotdot-view-outside", '"content": "outside secret\\n"'),
    ("reads-outside", "memories/paths/backup-dotdot-view", '"content": "backup secret\\n"'),
    ("stack-trace", "memories/create/exists-file", "step 1: host path:"),
    ("relative-path", "memories/create/exists-file", "(../${ROOT_NAME}/base/memories/a.txt)"),
    ("fifo-wipe", "memories/create/exists-fifo", "step 1: tree base/memories/a.txt missing:"),
    (
        "fifo-wipe",
        "memories/create/exists-fifo",
        "outside the case: ../wiped-${ROOT_NAME}: created",
    ),
    ("empties-later", "memories/create/new", "base/memories/notes.txt: mtime_ns, content changed"),
    ("mode-0666", "memories/create/new", '"mode": "0666"'),
    ("writes-beside", "memories/create/new", "outside the case: ../beside-${ROOT_NAME}: created"),
    ("writes-cwd", "memories/create/new", "outside the case: stray.txt: created"),
]


@pytest.mark.parametrize(("worse", "case", "named"), WORSE, ids=[f"{w}-{c}" for w, c, _ in WORSE])
def test_a_worse_variant_fails_the_gate_and_the_run_names_what_changed(
    written: Path, memspec_cli: Runner, worse: str, case: str, named: str
) -> None:
    result = memspec_cli(
        "run", "--adapter", _adapter(worse), *SELECTED, "--expectations", str(written),
        "--timeout", "3", env=_env(),
    )  # fmt: skip
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr
    failed = result.stdout.split(f"FAILED {case}\n", 1)
    assert len(failed) == 2, result.stdout[-3000:]
    shown = failed[1].split("\nFAILED ", 1)[0].split("\nERROR ", 1)[0]
    assert named in shown, shown


def test_every_flaw_at_once_fails_the_gate(written: Path, memspec_cli: Runner) -> None:
    result = memspec_cli(
        "run", "--adapter", _adapter("all"), *SELECTED, "--expectations", str(written),
        "--timeout", "3", env=_env(),
    )  # fmt: skip
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr
    for case in ("memories/paths/dotdot-view-outside", "memories/create/new"):
        assert f"FAILED {case}" in result.stdout or f"ERROR {case}" in result.stdout
