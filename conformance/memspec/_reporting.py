"""The run's records and reports, kept by the controlling process (never an xdist
worker): the adapter line first, one record per case, the reports and the summary last."""

from __future__ import annotations

import contextlib
import os
import signal
import types
from typing import Any

import pytest

from memspec._expectations_writer import stale_entries, write_run_expectations
from memspec._judging import verdict_of
from memspec._preflight import adapter_problem
from memspec._run_state import RunState
from memspec.report import (
    UNKNOWN_IMPLEMENTATION,
    CaseRecord,
    Report,
    render_markdown,
    render_run_end,
    run_info,
    write_reports,
)

__all__ = ["Reporting", "build_report"]


class Reporting:
    """Per-run hooks that collect case records and write the report (controller only)."""

    def __init__(self, state: RunState) -> None:
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
        if state.broken:
            self._write(build_report(state))
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

    def pytest_keyboard_interrupt(self, excinfo: Any) -> None:
        if not self.state.interrupted and isinstance(excinfo.value, KeyboardInterrupt):
            self.state.interrupted = "SIGINT"

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        state = self.state
        meta = dict(report.user_properties).get("memspec_case")
        verdict = verdict_of(report)
        if not isinstance(meta, dict) or verdict is None:
            return
        case_id = meta["id"]
        outcome, message = verdict.outcome, verdict.message
        previous = state.records.get(case_id)
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

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        state = self.state
        for signum, handler in self._previous_handlers.items():
            signal.signal(signum, handler)
        state.problems.extend(
            f"expectations: entry {case!r} matches no case"
            for case in stale_entries(state.expectations)
        )
        if state.interrupted:
            session.exitstatus = 143 if state.interrupted == "SIGTERM" else 130
        elif state.problems and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        self._write(build_report(state))
        if state.write_expectations_path and not state.broken and not state.interrupted:
            write_run_expectations(state)

    def _write(self, report: Report) -> None:
        state = self.state
        write_reports(report, state.report_path, state.junit_path, state.summary_path)
        summary_env = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary_env and report.records:
            with open(summary_env, "a", encoding="utf-8", errors="backslashreplace") as handle:
                handle.write(render_markdown(report))

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int) -> None:
        state = self.state
        if not state.records and not state.broken:
            return
        terminalreporter.write_sep("=", "memspec summary")
        report = build_report(state)
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


def build_report(state: RunState) -> Report:
    info = run_info(state.adapter_spec)
    if state.shard is not None:
        info["shard"] = str(state.shard)
    return Report(
        implementation=state.implementation or UNKNOWN_IMPLEMENTATION,
        info=info,
        records=sorted(state.records.values(), key=lambda r: r.id),
        problems=list(state.problems),
        broken=state.broken,
        interrupted=bool(state.interrupted),
    )
