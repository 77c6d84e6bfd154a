from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import Browser, started
from forked_cli import ForkedCli

from memspec.reports.report import read_report
from memspec.wire.adapters import Adapter
from memspec.wire.working_directory import scratch_base

# These tests start memspec in a subprocess about a hundred times; letting pytest cache
# its rewritten suite modules saves about a second a run.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
# Where no temporary folder is named, the tests' temporary files go where memspec makes a
# run's folders (a tmpfs with room when there is one, ``scratch_base``): the trees of
# thousands of cases then cost no disk writes, and memref's atomic writes no wait for
# the disk.
if not any(os.environ.get(name) for name in ("TMPDIR", "TEMP", "TMP")):
    os.environ["TMPDIR"] = str(scratch_base())
    tempfile.tempdir = None

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
FAKE = HERE / "fake_adapter.py"


# The files that take longest, longest first (their time in a whole run on two cores,
# from its JUnit report). The workers take whole files in collection order
# (pyproject.toml: ``--dist loadfile --no-loadscope-reorder``), so these start first and
# no long file is left to run alone at the end.
LONGEST_FIRST = (
    "test_reference_both_paths.py",
    "test_hostile_adapter.py",
    "test_site_browser.py",
    "test_porter_first_day.py",
    "test_no_case_touches_the_host.py",
    "test_observed_crash_points.py",
    "test_the_gate_sees_worse.py",
    "test_matrix_browser.py",
    "test_every_kind_judged_alike.py",
    "test_cli_under_stress.py",
    "test_blame.py",
    "test_ci_adoption.py",
    "test_partial_runs.py",
    "test_adapter_templates.py",
    "test_misbehaving_adapters.py",
    "test_ci_workflow.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: place for place, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


def fake_cmd(mode: str) -> str:
    return f"cmd:{sys.executable} {FAKE} {mode}"


def expected_failure(case: str, reason: str, *observed: tuple[str, Any]) -> str:
    """The TOML of one expectations entry: ``case`` failing each check with the value
    observed there (``(check, value)``), or, for a value of None, with no value (a check
    such as ``does not hold`` that observes nothing more)."""
    from memspec.corpus.expectations import Expected, dump_expectations
    from memspec.corpus.observations import Observation
    from memspec.judge.observed import Normaliser, observe

    found = tuple(
        Observation(check) if value is None else observe(check, value, Normaliser({}))
        for check, value in observed
    )
    return dump_expectations({case: Expected(reason, found)}) + "\n"


def fakes_env() -> dict[str, str]:
    """This environment, in which ``memspec`` imports the fakes of this folder
    (``python:memdir_fakes:...``) and ignores this run's ``PYTEST_ADDOPTS``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    env.pop("PYTEST_ADDOPTS", None)
    return env


def demo_environment() -> dict[str, str]:
    """An environment in which memspec reads the toy ``demo`` profile."""
    env = fakes_env()
    env["MEMSPEC_FIXTURES"] = str(DATA / "fixtures")
    env["MEMSPEC_SPEC"] = str(DATA / "spec")
    env["MEMSPEC_OP_SCHEMAS"] = str(DATA / "schemas" / "ops")
    return env


@pytest.fixture
def demo_env() -> dict[str, str]:
    """An environment in which memspec reads the toy ``demo`` profile."""
    return demo_environment()


Runner = Callable[..., subprocess.CompletedProcess[str]]


def run_memspec(
    *args: str,
    cwd: Path,
    env: dict[str, str] | None = None,
    timeout: float = 300,
    fork: bool = True,
) -> subprocess.CompletedProcess[str]:
    """``python -m memspec ARGS`` in ``cwd``, its output captured; forked from a process
    that has imported memspec, or, with ``fork=False``, in a new interpreter
    (``forked_cli``)."""
    return _FORKED_CLI.run(args, cwd, env, timeout, fork)


_FORKED_CLI = ForkedCli()


def pytest_sessionfinish() -> None:
    _FORKED_CLI.close()


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    """Headless Chromium, started once per test process (``browser``)."""
    with started(tmp_path_factory.mktemp("chromium")) as running:
        yield running


@pytest.fixture
def forked_commands() -> bool:
    """Whether ``memspec_cli`` forks its commands (``forked_cli``); a module that needs
    new interpreters overrides this fixture."""
    return True


@pytest.fixture
def memspec_cli(tmp_path: Path, forked_commands: bool) -> Runner:
    """Run ``python -m memspec`` as a user would, in a scratch directory."""

    def run(
        *args: str, env: dict[str, str] | None = None, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        return run_memspec(*args, cwd=tmp_path, env=env, timeout=timeout, fork=forked_commands)

    return run


def failed_property(fake: str, case: str, runner: Runner, report: Path) -> dict[str, Any]:
    """The record of ``case`` run against one of ``property_fakes``, which it must fail
    (not err) as a property that does not hold."""
    from memref_variants import variant_env

    result = runner(
        "run", "--adapter", f"python:property_fakes:{fake}", "--case", case,
        "--report", str(report), env=variant_env(),
    )  # fmt: skip
    assert result.returncode == 1, result.stdout[-2000:] + result.stderr
    (record,) = [r for r in read_report(report) if r.get("id") == case]
    assert (record["outcome"], record["signature"]) == ("failed", ["does not hold"]), record
    return record


def demo_records(path: Path) -> list[dict[str, Any]]:
    """The report's records of the toy profile (the suite's own tests run beside them)."""
    return [r for r in read_report(path) if r["type"] == "case" and r["id"].startswith("demo/")]


def outcomes(path: Path) -> dict[str, str]:
    return {r["id"]: r["outcome"] for r in demo_records(path)}


@pytest.fixture
def in_process() -> Iterator[Callable[[str], Adapter]]:
    """In-process adapters made from ``module:Class`` of these tests, closed afterwards."""
    adapters: list[Adapter] = []

    def make(target: str) -> Adapter:
        adapters.append(Adapter(f"python:{target}"))
        return adapters[-1]

    yield make
    for adapter in adapters:
        adapter.close()
