"""The pytest plugin: the hooks, each handing its work to the module named for that job.

- ``memspec.plugin.run_state``: the options and what the run has found so far;
- ``memspec.plugin.collection``: which cases the run holds (every selection, for every kind);
- ``memspec.plugin.fixtures``: the fixtures the suite's tests use;
- ``memspec.plugin.verdicts``: from what a case did to its outcome and message;
- ``memspec.plugin.reporting``: the records and the reports (the controlling process only);
- ``memspec.plugin.expectations_writer``: ``--write-expectations``.

It is registered as a ``pytest11`` entry point, so it loads wherever memspec is
installed; it stays inert unless a ``--memspec-*`` option (or ini value) is given or the
suite itself (``--pyargs memspec.suite``) is collected. Its markers are prefixed
``memspec_`` and its Hypothesis profiles ``memspec-``, so they never shadow a project's own.
"""

from __future__ import annotations

from collections.abc import Generator

import pytest
from hypothesis import settings

from memspec.exceptions import MemspecError
from memspec.plugin.collection import Sharding, parametrize_cases, select_items
from memspec.plugin.fixtures import memspec_adapter as memspec_adapter
from memspec.plugin.fixtures import memspec_claims as memspec_claims
from memspec.plugin.fixtures import memspec_crash_run as memspec_crash_run
from memspec.plugin.fixtures import memspec_run as memspec_run
from memspec.plugin.fixtures import memspec_snapshot as memspec_snapshot
from memspec.plugin.reporting import LATE_CHANGES, Reporting
from memspec.plugin.run_state import (
    HYPOTHESIS_PROFILES,
    OPTIONS,
    STATE,
    RunState,
    add_options,
    asked_for,
    check_writable,
    is_worker,
)
from memspec.plugin.verdicts import judge_report, report_status
from memspec.run.calls import forget_calls
from memspec.run.scratch import settle

__all__ = ["HYPOTHESIS_PROFILES", "OPTIONS", "check_writable"]

_MARKERS = (
    "memspec_profile(name): the memspec profile a case belongs to",
    "memspec_requirement(*ids): requirement ids a memspec case covers",
    "memspec_case_id(id): the stable memspec case id",
    "memspec_kind(kind): fixture, property, differential, snapshot or protocol",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    for line in _MARKERS:
        config.addinivalue_line("markers", line)
    if not asked_for(config):
        return
    try:
        state = RunState(config)
    except MemspecError as exc:
        raise pytest.UsageError(str(exc)) from exc
    if state.adapter_spec != "reference" and getattr(config.option, "update_snapshots", False):
        raise pytest.UsageError(
            "--snapshot-update is refused with --memspec-adapter "
            f"{state.adapter_spec!r}: only the reference adapter may write snapshots"
        )
    if not config.getoption("hypothesis_profile", None):
        settings.load_profile("memspec-ci")
    config.stash[STATE] = state
    if state.shard is not None:
        config.pluginmanager.register(Sharding(state.shard), "memspec-sharding")
    if not is_worker(config):
        config.pluginmanager.register(Reporting(state), "memspec-reporting")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    parametrize_cases(metafunc)


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    if STATE in config.stash:
        select_items(config, config.stash[STATE], items)


def pytest_report_teststatus(
    report: pytest.TestReport, config: pytest.Config
) -> tuple[str, str, str] | None:
    own_lines = STATE in config.stash and config.stash[STATE].case_lines
    return report_status(report, own_lines)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    judge_report(item, call, report)
    return report


def pytest_runtest_setup(item: pytest.Item) -> None:
    forget_calls()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A worker settles its kept trees and hands their late changes to the controller."""
    config = session.config
    if STATE in config.stash and is_worker(config):
        workeroutput = getattr(config, "workeroutput", {})
        workeroutput[LATE_CHANGES] = [[late.case_id, list(late.changes)] for late in settle()]
