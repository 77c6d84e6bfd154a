"""The pytest plugin: options, markers, case collection, expectations and the report.

Load it with ``-p memspec.pytest_plugin`` (it is also registered as a ``pytest11``
entry point) and collect the suite with ``--pyargs memspec.suite``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from memspec.adapters import DEFAULT_TIMEOUT_S, Adapter, parse_tree_owner
from memspec.cases import Case, load_cases
from memspec.exceptions import AdapterBroken, MemspecError
from memspec.expectations import load_expectations
from memspec.report import (
    FAILING,
    CaseRecord,
    Report,
    render_junit,
    render_markdown,
    render_table,
    run_info,
)
from memspec.runner import CaseFailure, CaseFault, not_claimed_reason, run_case

__all__ = ["PROFILES"]

PROFILES = ("memdir", "factstore", "memorytool", "turnlog")

# No example database: a conformance run must not leave .hypothesis/ wherever it is started.
settings.register_profile("dev", max_examples=25, deadline=None, database=None,
                          print_blob=True)
settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("thorough", max_examples=1000, deadline=None, database=None,
                          print_blob=True)

_STATE = pytest.StashKey["_State"]()
_LIST_AT_MOST = 50
_LINE_AT_MOST = 300


class _State:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.adapter_spec: str = _option(config, "adapter") or "reference"
        self.timeout_s = float(_option(config, "timeout") or DEFAULT_TIMEOUT_S)
        owner = _option(config, "tree_owner")
        self.tree_owner = parse_tree_owner(owner) if owner else None
        self.profiles: list[str] = list(_option(config, "profile") or [])
        expectations = _option(config, "expectations")
        self.expectations: dict[str, str] = (
            load_expectations(Path(expectations)) if expectations else {}
        )
        self.records: dict[str, CaseRecord] = {}
        self.implementation: dict[str, Any] | None = None
        self.problems: list[str] = []
        self.report_path = _option(config, "report")
        self.junit_path = _option(config, "junit")
        self.summary_path = _option(config, "summary")


def _option(config: pytest.Config, name: str) -> Any:
    value = config.getoption(f"memspec_{name}")
    if value in (None, []):
        ini = config.getini(f"memspec_{name}")
        return ini or None
    return value


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("memspec", "memspec conformance suite")
    group.addoption("--memspec-adapter", dest="memspec_adapter",
                    help="reference (default), python:MODULE:ATTR or 'cmd:COMMAND LINE'")
    group.addoption("--memspec-profile", dest="memspec_profile", action="append", default=[],
                    help="run only this profile (repeatable)")
    group.addoption("--memspec-expectations", dest="memspec_expectations",
                    help="TOML file of expected failures by case id, each with a reason")
    group.addoption("--memspec-report", dest="memspec_report", help="write the JSON-lines report")
    group.addoption("--memspec-junit", dest="memspec_junit", help="write JUnit XML")
    group.addoption("--memspec-summary", dest="memspec_summary", help="write a Markdown summary")
    group.addoption("--memspec-timeout", dest="memspec_timeout",
                    help=f"seconds an adapter may take per call (default {DEFAULT_TIMEOUT_S:g})")
    group.addoption("--memspec-tree-owner", dest="memspec_tree_owner",
                    help="UID:GID the adapter runs as; each case's tree is handed to it "
                         "(the harness must run as root)")
    for name, kind in (("adapter", "string"), ("profile", "args"), ("expectations", "string"),
                       ("report", "string"), ("junit", "string"), ("summary", "string"),
                       ("timeout", "string"), ("tree_owner", "string")):
        parser.addini(f"memspec_{name}", f"default for --memspec-{name}", type=kind)  # type: ignore[arg-type]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "profile(name): the memspec profile a case belongs to")
    config.addinivalue_line("markers", "requirement(*ids): requirement ids a case covers")
    config.addinivalue_line("markers", "case_id(id): the stable memspec case id")
    config.addinivalue_line("markers", "property: a Hypothesis property driven through the adapter")
    for profile in (*PROFILES, "protocol"):
        config.addinivalue_line("markers", f"{profile}: cases of the {profile} profile")
    try:
        state = _State(config)
    except MemspecError as exc:
        raise pytest.UsageError(str(exc)) from exc
    if state.adapter_spec != "reference" and getattr(config.option, "update_snapshots", False):
        raise pytest.UsageError(
            "--snapshot-update is refused with --memspec-adapter "
            f"{state.adapter_spec!r}: only the reference adapter may write snapshots"
        )
    config.stash[_STATE] = state
    if not _is_worker(config):
        config.pluginmanager.register(_Reporting(state), "memspec-reporting")


def _state(config: pytest.Config) -> _State:
    return config.stash[_STATE]


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _case_marks(case_id: str, profile: str, requirements: tuple[str, ...]) -> list[Any]:
    marks: list[Any] = [pytest.mark.case_id(case_id), pytest.mark.profile(profile),
                        pytest.mark.requirement(*requirements)]
    if profile in PROFILES:
        marks.append(getattr(pytest.mark, profile))
    return marks


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "memspec_case" not in metafunc.fixturenames:
        return
    state = _state(metafunc.config)
    try:
        cases = load_cases(profiles=state.profiles or None)
    except MemspecError as exc:
        raise pytest.UsageError(str(exc)) from exc
    metafunc.parametrize(
        "memspec_case",
        [pytest.param(case, id=case.id, marks=_case_marks(case.id, case.profile,
                                                          case.requirements))
         for case in cases],
    )


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    state = _state(config)
    kept = []
    for item in items:
        marker = item.get_closest_marker("case_id")
        if marker is None:
            kept.append(item)
            continue
        profile_marker = item.get_closest_marker("profile")
        profile = str(profile_marker.args[0]) if profile_marker else ""
        if state.profiles and profile not in state.profiles:
            continue
        requirement_marker = item.get_closest_marker("requirement")
        item.user_properties.append(("memspec_case", {
            "id": marker.args[0],
            "profile": profile,
            "requirements": list(requirement_marker.args) if requirement_marker else [],
        }))
        reason = state.expectations.get(marker.args[0])
        if reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
        kept.append(item)
    if len(kept) != len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in kept])
        items[:] = kept
    if state.expectations:
        known = {str(m.args[0]) for i in items if (m := i.get_closest_marker("case_id"))}
        all_ids = known | {c.id for c in load_cases()}
        stale = sorted(set(state.expectations) - all_ids)
        state.problems.extend(f"expectations: entry {case!r} matches no case" for case in stale)


@pytest.fixture(scope="session")
def memspec_adapter(request: pytest.FixtureRequest) -> Iterator[Adapter]:
    """The adapter under test, started once per session (and once per xdist worker)."""
    state = _state(request.config)
    adapter = Adapter(state.adapter_spec, state.timeout_s, state.tree_owner)
    try:
        # Started now, so that a broken adapter stops the run before the first case.
        state.implementation = dict(adapter.handshake.implementation)
    except AdapterBroken as exc:
        pytest.exit(f"adapter broken: {exc}", returncode=3)
    yield adapter
    adapter.close()


@pytest.fixture(autouse=True)
def _memspec_claims(request: pytest.FixtureRequest) -> None:
    """Skip a registered suite test whose profile the adapter does not claim."""
    marker = request.node.get_closest_marker("profile")
    if marker is None or marker.args[0] == "protocol" or "memspec_case" in request.fixturenames:
        return
    adapter: Adapter = request.getfixturevalue("memspec_adapter")
    if marker.args[0] not in adapter.handshake.profiles:
        pytest.skip(f"not claimed: profile {marker.args[0]!r}")


@pytest.fixture
def memspec_run(memspec_adapter: Adapter, request: pytest.FixtureRequest) -> Any:
    """Run a case through the adapter; a wrong answer fails, a fault errors."""

    def run(case: Case) -> None:
        reason = not_claimed_reason(case, memspec_adapter)
        if reason:
            pytest.skip(reason)
        try:
            run_case(case, memspec_adapter)
        except CaseFault as exc:
            request.node.user_properties.append(("memspec_fault", True))
            pytest.fail(str(exc), pytrace=False)
        except CaseFailure as exc:
            pytest.fail(str(exc), pytrace=False)

    return run


class _Reporting:
    """Per-run hooks that collect case records and write the report (controller only)."""

    def __init__(self, state: _State) -> None:
        self.state = state

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        state = self.state
        meta: dict[str, Any] = {}
        for key, value in report.user_properties:
            if key == "memspec_case" and isinstance(value, dict):
                meta = value
        case_id = meta.get("id") or report.nodeid
        outcome = _outcome(report)
        previous = state.records.get(case_id)
        if report.when != "call" and outcome == "passed":
            return
        message = _message(report) if outcome != "passed" else ""
        if outcome == "xfailed" and not message:
            message = str(getattr(report, "wasxfail", ""))
        state.records[case_id] = CaseRecord(
            id=case_id,
            profile=meta.get("profile", ""),
            requirements=tuple(meta.get("requirements", ())),
            outcome=outcome,
            message=message,
            duration_s=report.duration + (previous.duration_s if previous else 0.0),
        )

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        state = self.state
        if state.problems and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        wants_report = state.report_path or state.junit_path or state.summary_path
        if wants_report and state.records and state.implementation is None:
            # Under xdist the adapters ran in the workers; ask one more for its name.
            state.implementation = _implementation(state)
        report = _build_report(state)
        if state.report_path:
            report.write(Path(state.report_path))
        if state.junit_path:
            Path(state.junit_path).write_text(render_junit(report), encoding="utf-8")
        if state.summary_path:
            Path(state.summary_path).write_text(render_markdown(report), encoding="utf-8")

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int) -> None:
        state = self.state
        if not any(record.profile for record in state.records.values()):
            return
        terminalreporter.write_sep("=", "memspec summary")
        report = _build_report(state)
        terminalreporter.write_line(render_table(report))
        failing = [record for record in report.records if record.outcome in FAILING]
        for record in failing[:_LIST_AT_MOST]:
            first_line = (record.message.splitlines() or [""])[0][:_LINE_AT_MOST]
            terminalreporter.write_line(f"{record.outcome.upper()} {record.id}: {first_line}",
                                        red=True)
        if len(failing) > _LIST_AT_MOST:
            terminalreporter.write_line(f"... and {len(failing) - _LIST_AT_MOST} more")
        for problem in state.problems:
            terminalreporter.write_line(f"FAILED {problem}", red=True)


def _implementation(state: _State) -> dict[str, Any]:
    adapter = Adapter(state.adapter_spec, state.timeout_s, state.tree_owner)
    try:
        return dict(adapter.handshake.implementation)
    except AdapterBroken as exc:
        return {"name": "unknown", "version": "", "language": "", "broken": str(exc)}
    finally:
        adapter.close()


def _message(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if longrepr is None:
        return ""
    if isinstance(longrepr, tuple):
        return str(longrepr[2]).removeprefix("Skipped: ")
    if isinstance(longrepr, str):
        return longrepr
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None and not str(report.longreprtext).startswith("[XPASS"):
        message = str(crash.message)
        for prefix in ("Failed: ", "Skipped: "):
            message = message.removeprefix(prefix)
        return message
    return str(report.longreprtext)


def _outcome(report: pytest.TestReport) -> str:
    was_xfail = hasattr(report, "wasxfail")
    if report.skipped:
        return "xfailed" if was_xfail else "skipped"
    if report.when != "call":
        return "error" if report.failed else "passed"
    if report.failed:
        if str(report.longreprtext).startswith("[XPASS(strict)]"):
            return "xpassed"
        if any(key == "memspec_fault" for key, _ in report.user_properties):
            return "error"
        return "failed"
    return "xpassed" if was_xfail else "passed"


def _build_report(state: _State) -> Report:
    return Report(
        implementation=state.implementation or {"name": "unknown", "version": "",
                                                "language": ""},
        info={**run_info(), "adapter": state.adapter_spec,
              "euid": os.geteuid() if hasattr(os, "geteuid") else None},
        records=sorted(state.records.values(), key=lambda r: r.id),
        problems=list(state.problems),
    )
