"""The pytest plugin: options, markers, case collection, expectations and the report.

It is registered as a ``pytest11`` entry point, so it loads wherever memspec is
installed; it stays inert unless a ``--memspec-*`` option (or ini value) is given or the
suite itself (``--pyargs memspec.suite``) is collected. Its markers are prefixed
``memspec_`` and its Hypothesis profiles ``memspec-``, so they never shadow a project's own.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import pytest
from hypothesis import HealthCheck, settings

from memspec._data import fixtures_dir
from memspec._preflight import adapter_problem
from memspec._profiles import PROTOCOL, selectable_profiles
from memspec._shard import Shard, parse_shard
from memspec.adapters import DEFAULT_TIMEOUT_S, Adapter, parse_tree_owner
from memspec.cases import Case, load_cases
from memspec.exceptions import (
    AdapterBroken,
    AdapterFault,
    CaseFailure,
    CaseFault,
    HostLimitation,
    MemspecError,
    UsageError,
)
from memspec.expectations import load_expectations, write_expectations
from memspec.report import (
    UNKNOWN_IMPLEMENTATION,
    CaseRecord,
    Report,
    append_step_summary,
    claims_of,
    render_run_end,
    run_exit_status,
    run_info,
    write_reports,
)
from memspec.runner import crash_point_steps, not_claimed_reason, run_case, run_crash_points

__all__ = ["HYPOTHESIS_PROFILES", "OPTIONS", "check_writable"]

# No example database: a conformance run must not leave .hypothesis/ wherever it starts.
_COMMON: dict[str, Any] = {
    "deadline": None,
    "database": None,
    "print_blob": False,
    "suppress_health_check": [HealthCheck.too_slow],
}
HYPOTHESIS_PROFILES: dict[str, dict[str, Any]] = {
    "memspec-dev": {"max_examples": 25},
    "memspec-ci": {"max_examples": 100, "derandomize": True},
    "memspec-thorough": {"max_examples": 1000},
}
for _name, _values in HYPOTHESIS_PROFILES.items():
    settings.register_profile(_name, None, **{**_COMMON, **_values})

OPTIONS = {
    "adapter": ("string", "reference (default), python:MODULE:ATTR or 'cmd:COMMAND LINE'"),
    "profile": ("args", "run only this profile (repeatable)"),
    "case": ("args", "run only the case with this exact id (repeatable)"),
    "op": ("args", "run only the cases that call this op (repeatable)"),
    "expectations": ("string", "TOML file of expected failures by case id, each with a reason"),
    "report": ("string", "write the JSON-lines report here"),
    "junit": ("string", "write JUnit XML here"),
    "summary": ("string", "write a Markdown summary here"),
    "timeout": ("string", f"seconds an adapter may take per call (default {DEFAULT_TIMEOUT_S:g})"),
    "max_reply_bytes": ("string", "longest reply line accepted, in bytes (default 64 MiB)"),
    "tree_owner": (
        "string",
        "UID:GID the adapter runs as; each case's tree is handed to it "
        "(the harness must run as root)",
    ),
    "export_failures": (
        "string",
        "write each failing property's shrunk input here as a fixture file",
    ),
    "case_lines": ("string", "print one line per case: its outcome and its id"),
    "write_expectations": (
        "string",
        "write every failing case (and every expected failure "
        "that still fails) to this TOML expectations file",
    ),
    "shard": ("string", "run only shard K of N (K/N): a deterministic slice by case id"),
    "label": ("string", "a name for this run, kept in the report header (such as a branch)"),
}
_REPEATABLE = {"profile", "case", "op"}
_SUITE_DIR = Path(__file__).resolve().parent / "suite"

_STATE = pytest.StashKey["_State"]()
T = TypeVar("T")


def _option(config: pytest.Config, name: str) -> Any:
    value = config.getoption(f"memspec_{name}")
    if value in (None, []):
        ini = config.getini(f"memspec_{name}")
        return ini or None
    return value


def _asked_for(config: pytest.Config) -> bool:
    """Whether this run is a memspec run: an option was given, or the suite is collected."""
    if any(_option(config, name) for name in OPTIONS):
        return True
    for argument in config.args:
        if argument.split("::")[0].replace("/", ".").startswith("memspec.suite"):
            return True
        path = Path(argument.split("::")[0])
        if path.exists() and (path.resolve() == _SUITE_DIR or _SUITE_DIR in path.resolve().parents):
            return True
    return False


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"--timeout {text!r}: expected a number of seconds") from None
    if not (value > 0 and value != float("inf")):
        raise UsageError(f"--timeout {text!r}: expected a positive, finite number of seconds")
    return value


def _positive_int(text: str, name: str) -> int:
    if not text.isdigit() or int(text) <= 0:
        raise UsageError(f"{name} {text!r}: expected a positive whole number")
    return int(text)


class _State:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.adapter_spec: str = _option(config, "adapter") or "reference"
        timeout = _option(config, "timeout")
        self.timeout_s = _positive_seconds(str(timeout)) if timeout else DEFAULT_TIMEOUT_S
        limit = _option(config, "max_reply_bytes")
        self.max_reply_bytes = _positive_int(str(limit), "--max-reply-bytes") if limit else None
        owner = _option(config, "tree_owner")
        self.tree_owner = parse_tree_owner(owner) if owner else None
        self.profiles: list[str] = list(_option(config, "profile") or [])
        known = selectable_profiles()
        for profile in self.profiles:
            if profile not in known:
                raise UsageError(f"unknown profile {profile!r}; known: {', '.join(known)}")
        self.case_ids: set[str] = set(_option(config, "case") or [])
        self.ops: set[str] = set(_option(config, "op") or [])
        expectations = _option(config, "expectations")
        self.expectations: dict[str, str] = (
            load_expectations(Path(expectations)) if expectations else {}
        )
        self.export_failures = _option(config, "export_failures")
        self.records: dict[str, CaseRecord] = {}
        self.implementation: dict[str, Any] | None = None
        self.claims: dict[str, list[str]] | None = None
        self.label: str = _option(config, "label") or ""
        self.broken: str = ""
        self.interrupted: str = ""
        self.problems: list[str] = []
        self.report_path = _option(config, "report")
        self.junit_path = _option(config, "junit")
        self.summary_path = _option(config, "summary")
        self.case_lines = bool(_option(config, "case_lines"))
        self.write_expectations_path = _option(config, "write_expectations")
        shard = _option(config, "shard")
        self.shard = parse_shard(str(shard)) if shard else None
        if not _is_worker(config):
            for path in (
                self.report_path,
                self.junit_path,
                self.summary_path,
                self.write_expectations_path,
            ):
                if path:
                    check_writable(Path(path))

    def adapter(self) -> Adapter:
        return Adapter(
            self.adapter_spec, self.timeout_s, self.tree_owner, max_reply_bytes=self.max_reply_bytes
        )


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("memspec", "memspec conformance suite")
    for name, (kind, text) in OPTIONS.items():
        flag = f"--memspec-{name.replace('_', '-')}"
        if name in _REPEATABLE:
            group.addoption(flag, dest=f"memspec_{name}", action="append", default=[], help=text)
        else:
            group.addoption(flag, dest=f"memspec_{name}", help=text)
        parser.addini(f"memspec_{name}", f"default for {flag}", type=kind)  # type: ignore[arg-type]


def pytest_configure(config: pytest.Config) -> None:
    for line in (
        "memspec_profile(name): the memspec profile a case belongs to",
        "memspec_requirement(*ids): requirement ids a memspec case covers",
        "memspec_case_id(id): the stable memspec case id",
        "memspec_kind(kind): fixture, property, differential, snapshot or protocol",
    ):
        config.addinivalue_line("markers", line)
    if not _asked_for(config):
        return
    try:
        state = _State(config)
    except MemspecError as exc:
        raise pytest.UsageError(str(exc)) from exc
    if state.adapter_spec != "reference" and getattr(config.option, "update_snapshots", False):
        raise pytest.UsageError(
            "--snapshot-update is refused with --memspec-adapter "
            f"{state.adapter_spec!r}: only the reference adapter may write snapshots"
        )
    if not config.getoption("hypothesis_profile", None):
        settings.load_profile("memspec-ci")
    config.stash[_STATE] = state
    if state.shard is not None:
        config.pluginmanager.register(_Sharding(state.shard), "memspec-sharding")
    if not _is_worker(config):
        config.pluginmanager.register(_Reporting(state), "memspec-reporting")


def _state(config: pytest.Config) -> _State:
    if _STATE not in config.stash:
        raise pytest.UsageError(
            "the memspec suite runs only with the memspec plugin active "
            "(give --memspec-adapter, or collect --pyargs memspec.suite)"
        )
    return config.stash[_STATE]


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _case_marks(case: Case, kind: str = "fixture", case_id: str = "") -> list[Any]:
    return [
        pytest.mark.memspec_case_id(case_id or case.id),
        pytest.mark.memspec_profile(case.profile),
        pytest.mark.memspec_requirement(*case.requirements),
        pytest.mark.memspec_kind(kind),
    ]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    wanted = {"memspec_case", "memspec_crash_case"} & set(metafunc.fixturenames)
    if not wanted:
        return
    state = _state(metafunc.config)
    profiles = [p for p in state.profiles if p != PROTOCOL] if state.profiles else None
    try:
        cases = load_cases(profiles=profiles) if profiles != [] else []
    except MemspecError as exc:
        raise pytest.UsageError(str(exc)) from exc
    # Exact selections are applied here too, so that a run of one case does not build an
    # item for every other (the final selection is pytest_collection_modifyitems').
    if state.case_ids:
        cases = [
            c for c in cases if c.id in state.case_ids or f"{c.id}/crash-points" in state.case_ids
        ]
    if state.ops:
        cases = [c for c in cases if state.ops & {step.op for step in c.steps}]
    if "memspec_case" in wanted:
        metafunc.parametrize(
            "memspec_case",
            [pytest.param(case, id=case.id, marks=_case_marks(case)) for case in cases],
        )
    else:
        crash = [(case, index) for case in cases for index in crash_point_steps(case)]
        metafunc.parametrize(
            "memspec_crash_case",
            [
                pytest.param(
                    (case, index),
                    id=f"{case.id}/crash-points",
                    marks=_case_marks(case, "crash-points", f"{case.id}/crash-points"),
                )
                for case, index in crash
            ],
        )


def _ops_of(item: pytest.Item) -> list[str]:
    callspec = getattr(item, "callspec", None)
    params = callspec.params if callspec is not None else {}
    case = params.get("memspec_case") or (params.get("memspec_crash_case") or (None,))[0]
    return [step.op for step in case.steps] if isinstance(case, Case) else []


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    if _STATE not in config.stash:
        return
    state = _state(config)
    known = selectable_profiles()
    kept = []
    for item in items:
        marker = item.get_closest_marker("memspec_case_id")
        if marker is None:
            if not _is_empty_case_parameter(item):
                kept.append(item)
            continue
        case_id = str(marker.args[0])
        profile_marker = item.get_closest_marker("memspec_profile")
        profile = str(profile_marker.args[0]) if profile_marker else ""
        if state.profiles and profile not in state.profiles:
            continue
        if profile not in known:  # a suite test of a profile these fixtures do not have
            continue
        if state.case_ids and case_id not in state.case_ids:
            continue
        ops = _ops_of(item)
        if state.ops and not state.ops & set(ops):
            continue
        requirement_marker = item.get_closest_marker("memspec_requirement")
        kind_marker = item.get_closest_marker("memspec_kind")
        item.user_properties.append(
            (
                "memspec_case",
                {
                    "id": case_id,
                    "profile": profile,
                    "requirements": list(requirement_marker.args) if requirement_marker else [],
                    "kind": str(kind_marker.args[0]) if kind_marker else "fixture",
                    "ops": ops,
                },
            )
        )
        item.extra_keyword_matches.add(case_id)
        reason = state.expectations.get(case_id)
        if reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
        kept.append(item)
    if len(kept) != len(items):
        kept_ids = {id(item) for item in kept}
        config.hook.pytest_deselected(items=[i for i in items if id(i) not in kept_ids])
        items[:] = kept
    if state.expectations:
        selected = {str(m.args[0]) for i in items if (m := i.get_closest_marker("memspec_case_id"))}
        all_ids = selected | {c.id for c in load_cases()}
        stale = sorted(set(state.expectations) - all_ids)
        state.problems.extend(f"expectations: entry {case!r} matches no case" for case in stale)


class _Sharding:
    """Keeps one shard of the cases, after every other selection (``-k`` included)."""

    def __init__(self, shard: Shard) -> None:
        self.shard = shard

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        ids = {
            id(item): str(m.args[0])
            for item in items
            if (m := item.get_closest_marker("memspec_case_id"))
        }
        wanted = self.shard.select(ids.values())
        kept = [item for item in items if id(item) not in ids or ids[id(item)] in wanted]
        if len(kept) != len(items):
            kept_ids = {id(item) for item in kept}
            config.hook.pytest_deselected(items=[i for i in items if id(i) not in kept_ids])
            items[:] = kept


def _is_empty_case_parameter(item: pytest.Item) -> bool:
    """The placeholder pytest makes when a case parameter list comes out empty (every
    real case item carries its case id)."""
    return getattr(item, "originalname", "") in ("test_case", "test_crash_points")


def pytest_report_teststatus(
    report: pytest.TestReport, config: pytest.Config
) -> tuple[str, str, str] | None:
    """A fault (the adapter gave no proper answer) counts as an error, not a failure.

    Under ``memspec run -v`` the plugin prints one line per case itself, by case id, so
    pytest's own letters are silenced.
    """
    own_lines = _STATE in config.stash and config.stash[_STATE].case_lines
    if (
        report.when == "call"
        and report.failed
        and any(key == "memspec_fault" for key, _ in report.user_properties)
    ):
        return "error", "" if own_lines else "E", "ERROR"
    if (
        own_lines
        and any(key == "memspec_case" for key, _ in report.user_properties)
        and (report.when == "call" or report.skipped)
    ):
        category = "xfailed" if hasattr(report, "wasxfail") and report.skipped else report.outcome
        return category, "", report.outcome.upper()
    return None


@pytest.fixture(scope="session")
def memspec_adapter(request: pytest.FixtureRequest) -> Iterator[Adapter]:
    """The adapter under test, started once per session (and once per xdist worker)."""
    state = _state(request.config)
    adapter = state.adapter()
    try:
        state.implementation = dict(adapter.handshake.implementation)
    except AdapterBroken as exc:
        state.broken = str(exc)
        pytest.exit(f"adapter broken: {exc}", returncode=3)
    yield adapter
    adapter.close()


@pytest.fixture
def memspec_claims(request: pytest.FixtureRequest) -> None:
    """Skip a registered suite test whose profile the adapter does not claim."""
    marker = request.node.get_closest_marker("memspec_profile")
    if marker is None or marker.args[0] == PROTOCOL:
        return
    adapter: Adapter = request.getfixturevalue("memspec_adapter")
    if marker.args[0] not in adapter.handshake.profiles:
        pytest.skip(f"not claimed: profile {marker.args[0]!r}")


@pytest.fixture
def memspec_snapshot(request: pytest.FixtureRequest) -> Any:
    """A syrupy assertion storing JSON under ``fixtures/<profile>/_snapshots/``."""
    from syrupy.extensions.json import JSONSnapshotExtension

    marker = request.node.get_closest_marker("memspec_profile")
    profile = str(marker.args[0]) if marker else "unknown"
    directory = str(fixtures_dir() / profile / "_snapshots")

    class ProfileSnapshots(JSONSnapshotExtension):
        @classmethod
        def dirname(cls, *, test_location: Any) -> str:
            return directory

    return request.getfixturevalue("snapshot").use_extension(ProfileSnapshots)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A failing property or snapshot is told in the protocol's terms, not Python's."""
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    kind = item.get_closest_marker("memspec_kind")
    if (
        report.when != "call"
        or not report.failed
        or kind is None
        or kind.args[0] not in ("property", "differential", "snapshot", "protocol")
        or _STATE not in item.config.stash
    ):
        return
    case_id = str(item.get_closest_marker("memspec_case_id").args[0])  # type: ignore[union-attr]
    message = _property_message(case_id, str(kind.args[0]), call, item)
    report.longrepr = message
    report.user_properties.append(("memspec_message", message))
    error = call.excinfo.value if call.excinfo is not None else None
    if isinstance(error, (AdapterFault, AdapterBroken)):
        report.user_properties.append(("memspec_fault", True))


def _property_message(
    case_id: str, kind: str, call: pytest.CallInfo[None], item: pytest.Item
) -> str:
    from memspec._messages import abridge
    from memspec.suite._support import recent_calls
    from memspec.suite.registry import registered_cases

    error = call.excinfo.value if call.excinfo is not None else None
    reason = (
        str(error).strip().splitlines()[0]
        if error is not None and str(error).strip()
        else type(error).__name__
    )
    calls = recent_calls()
    if calls and calls[-1].response.error_kind == "unknown-op":
        reason = f"{calls[-1].op} answered error 'unknown-op'"
    lines = [f"{kind} {case_id} does not hold: {reason[:500]}"]
    if calls:
        last = calls[-1]
        lines += [
            f"  op:    {last.op}",
            f"  args:  {abridge(last.args, 400)}",
            f"  reply: {abridge(last.reply_json(), 400)}",
        ]
        if len(calls) > 1:
            lines.append(
                "  calls before it: "
                + "; ".join(f"{c.op} -> {abridge(c.reply_json(), 80)}" for c in calls[:-1])
            )
    entry = next((e for e in registered_cases() if e.id == case_id), None)
    if entry is not None and entry.divergences:
        lines.append(
            f"  this property reaches the recorded divergence(s) "
            f"{', '.join(entry.divergences)} (spec/divergences.md): an "
            "implementation keeping the seed's behaviour fails it there"
        )
    lines.append(f"  rerun: memspec run --case {case_id}; see memspec explain {case_id}")
    state = item.config.stash[_STATE]
    if state.export_failures and calls:
        path = _export_failure(Path(state.export_failures), case_id, entry, calls[-1])
        if path is not None:
            lines.append(f"  exported as {path}")
    return "\n".join(lines)


def _export_failure(directory: Path, case_id: str, entry: Any, last: Any) -> Path | None:
    """Write the shrunk input as an ordinary fixture, its expectation from the reference."""
    import hashlib
    import json

    from memspec.adapters import Adapter as _Adapter

    reference = _Adapter("reference")
    try:
        expected = reference.call(last.op, last.args)
    finally:
        reference.close()
    digest = hashlib.sha256(
        json.dumps([last.op, last.args], sort_keys=True).encode("utf-8", "surrogatepass")
    ).hexdigest()[:12]
    profile, area = case_id.split("/")[:2]
    slug = f"regression-{digest}"
    fixture: dict[str, Any] = {
        "id": f"{profile}/{area}/{slug}",
        "description": f"Shrunk counter-example of {case_id}.",
        "requirements": list(entry.requirements) if entry is not None else [],
        "source": f"property {case_id}, expected value from the reference",
        "op": last.op,
        "args": last.args,
        "expect": (
            {"error": {"kind": expected.error_kind}}
            if expected.is_error
            else {"result": expected.result}
        ),
    }
    target = directory / profile / area / f"{slug}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(fixture, indent=2, ensure_ascii=True) + "\n", encoding="ascii")
    return target


def _fail(request: pytest.FixtureRequest, exc: MemspecError) -> NoReturn:
    if isinstance(exc, CaseFault):
        request.node.user_properties.append(("memspec_fault", True))
    request.node.user_properties.append(("memspec_message", str(exc)))
    pytest.fail(str(exc), pytrace=False)


def _judged(
    request: pytest.FixtureRequest,
    adapter: Adapter,
    case: Case,
    work: Callable[[], T],
    *,
    needs: str = "",
) -> T:
    """Run ``work`` for ``case``: skipped when not claimed or the host cannot build it, a
    failed test for a wrong answer, an error for a fault."""
    reason = not_claimed_reason(case, adapter)
    if reason is None and needs and needs not in adapter.handshake.capabilities:
        reason = f"not claimed: capability {needs}"
    if reason:
        pytest.skip(reason)
    failure: MemspecError
    try:
        return work()
    except HostLimitation as exc:
        pytest.skip(str(exc))
    except (CaseFault, CaseFailure) as exc:
        failure = exc
    except AdapterBroken as exc:
        failure = CaseFault(f"adapter broken: {exc}")
    _fail(request, failure)


@pytest.fixture
def memspec_run(memspec_adapter: Adapter, request: pytest.FixtureRequest) -> Any:
    """Run a case through the adapter; a wrong answer fails, a fault errors."""

    def run(case: Case) -> None:
        _judged(request, memspec_adapter, case, lambda: run_case(case, memspec_adapter))

    return run


@pytest.fixture
def memspec_crash_run(memspec_adapter: Adapter, request: pytest.FixtureRequest) -> Any:
    """Enumerate the crash points of one step of a case."""

    def run(case: Case, index: int) -> None:
        points = _judged(
            request,
            memspec_adapter,
            case,
            lambda: run_crash_points(case, memspec_adapter, index),
            needs="fault-injection",
        )
        request.node.user_properties.append(("memspec_note", f"{points} crash points"))

    return run


class _Reporting:
    """Per-run hooks that collect case records and write the report (controller only)."""

    def __init__(self, state: _State) -> None:
        self.state = state
        self._previous_handlers: dict[int, Any] = {}
        self.reporter: Any = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        state = self.state
        self._catch_sigterm()
        state.broken, handshake = adapter_problem(state.adapter())
        if handshake is not None:
            state.implementation = dict(handshake.implementation)
            state.claims = claims_of(handshake)
        if state.broken:
            self._write(_build_report(state))
            pytest.exit(f"adapter broken: {state.broken}", returncode=3)
        assert handshake is not None
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        self.reporter = reporter
        if reporter is not None:
            implementation = handshake.implementation
            reporter.write_line(
                f"memspec: adapter {state.adapter_spec}: {implementation.get('name')} "
                f"{implementation.get('version')} ({implementation.get('language')}), "
                f"claims {', '.join(handshake.profiles)}"
                + (
                    f"; capabilities {', '.join(handshake.capabilities)}"
                    if handshake.capabilities
                    else ""
                )
            )

    def _catch_sigterm(self) -> None:
        def on_sigterm(signum: int, frame: types.FrameType | None) -> None:
            self.state.interrupted = "SIGTERM"
            raise KeyboardInterrupt

        with contextlib.suppress(ValueError):  # not the main thread: leave SIGTERM alone
            self._previous_handlers[signal.SIGTERM] = signal.signal(signal.SIGTERM, on_sigterm)

    @pytest.hookimpl(trylast=True)
    def pytest_keyboard_interrupt(self, excinfo: Any) -> None:
        if not self.state.interrupted and isinstance(excinfo.value, KeyboardInterrupt):
            self.state.interrupted = "SIGINT"
        # The run's end says it was interrupted; pytest's KeyboardInterrupt banner and
        # traceback would only point into the harness (and SIGTERM is no keyboard).
        if self.reporter is not None and hasattr(self.reporter, "_report_keyboardinterrupt"):
            self.reporter._keyboardinterrupt_memo = None
            self.reporter._report_keyboardinterrupt = lambda: None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        state = self.state
        meta: dict[str, Any] = {}
        note = own_message = ""
        for key, value in report.user_properties:
            if key == "memspec_case" and isinstance(value, dict):
                meta = value
            elif key == "memspec_note":
                note = str(value)
            elif key == "memspec_message":
                own_message = str(value)
        if not meta:
            return
        case_id = meta["id"]
        outcome = _outcome(report)
        previous = state.records.get(case_id)
        if report.when != "call" and outcome == "passed":
            return
        if outcome == "passed":
            message = note
        else:
            message = (
                own_message if outcome in ("failed", "error") and own_message else _message(report)
            )
        if outcome == "xfailed" and not message:
            message = str(getattr(report, "wasxfail", ""))
        if state.case_lines and (report.when == "call" or outcome != "passed"):
            reporter = self.reporter
            if reporter is not None:
                reporter.write_line(
                    f"{outcome.upper():<8} {case_id}"
                    + (
                        f"  ({message.splitlines()[0][:100]})"
                        if outcome == "skipped" and message
                        else ""
                    )
                )
        state.records[case_id] = CaseRecord(
            id=case_id,
            profile=meta.get("profile", ""),
            requirements=tuple(meta.get("requirements", ())),
            outcome=outcome,
            message=message,
            duration_s=report.duration + (previous.duration_s if previous else 0.0),
            kind=meta.get("kind", "fixture"),
            ops=tuple(meta.get("ops", ())),
        )

    @pytest.hookimpl(wrapper=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> Iterator[None]:
        state = self.state
        for signum, handler in self._previous_handlers.items():
            signal.signal(signum, handler)
        if state.interrupted:
            session.exitstatus = 143 if state.interrupted == "SIGTERM" else 130
        elif state.problems and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        report = _build_report(state)
        written = self._write(report)
        if state.write_expectations_path and not state.broken and not state.interrupted:
            _write_expectations(state)
        result = yield
        # After every other plugin (syrupy ors pytest's own status back in).
        session.exitstatus = (
            run_exit_status(report, session.exitstatus) if written else pytest.ExitCode.USAGE_ERROR
        )
        return result

    def _write(self, report: Report) -> bool:
        """Write the reports asked for; False (after one line on stderr) when one cannot be."""
        state = self.state
        warning = append_step_summary(report, os.environ)
        if warning:
            self._tell(f"memspec: warning: {warning}")
        try:
            write_reports(report, state.report_path, state.junit_path, state.summary_path)
        except MemspecError as exc:
            self._tell(f"memspec: error: {exc}")
            return False
        return True

    def _tell(self, line: str) -> None:
        """One line on stderr, past pytest's output capture."""
        capture = self.state.config.pluginmanager.getplugin("capturemanager")
        with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
            print(line, file=sys.stderr, flush=True)

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int) -> None:
        state = self.state
        if not state.records and not state.broken and state.shard is None:
            return
        terminalreporter.write_sep("=", "memspec summary")
        report = _build_report(state)
        written = [
            (name, path)
            for name, path in (
                ("report", state.report_path),
                ("junit", state.junit_path),
                ("summary", state.summary_path),
            )
            if path
        ]
        for line in render_run_end(report, written):
            terminalreporter.write_line(line, red=line.startswith(("FAILED", "ERROR", "XPASS")))


def check_writable(path: Path) -> None:
    """Refuse a report path before the run, not after it: one line, a usage error."""
    if path.is_dir():
        raise UsageError(f"cannot write {path}: it is a directory")
    parent = path.parent
    if not parent.is_dir():
        raise UsageError(f"cannot write {path}: no directory {parent}")
    existed = path.exists()
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from exc
    if not existed:
        path.unlink()


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


def _write_expectations(state: _State) -> None:
    """Every case that fails now, as an expected failure: a port adopts the suite with it.

    A case already expected to fail keeps its reason; one that passes now is left out, so
    the file shrinks as the port improves. A new entry gets a placeholder reason.
    """
    entries = {
        record.id: state.expectations.get(record.id, "")
        for record in state.records.values()
        if record.outcome in ("failed", "error", "xfailed")
    }
    implementation = state.implementation or {}
    write_expectations(
        Path(state.write_expectations_path),
        entries,
        header=(
            f"Expected failures of {implementation.get('name', 'unknown')} "
            f"{implementation.get('version', '')}, written by memspec run --write-expectations.\n"
            "Strict: a listed case that passes fails the run until its entry is removed."
        ),
    )


def _build_report(state: _State) -> Report:
    selection = {
        "profiles": sorted(state.profiles),
        "cases": sorted(state.case_ids),
        "ops": sorted(state.ops),
        "keyword": getattr(state.config.option, "keyword", "") or "",
    }
    return Report(
        implementation=state.implementation or UNKNOWN_IMPLEMENTATION,
        info=run_info(
            state.adapter_spec,
            shard=str(state.shard or ""),
            selection={key: value for key, value in selection.items() if value},
        ),
        records=sorted(state.records.values(), key=lambda r: r.id),
        problems=list(state.problems),
        broken=state.broken,
        interrupted=bool(state.interrupted),
        claims=state.claims,
        label=state.label,
    )
