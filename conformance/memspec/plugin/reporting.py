"""The run's records and reports, kept by the controlling process (never an xdist
worker): the adapter line first, one record per case, the reports and the summary last."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings as hypothesis_settings

from memspec.exceptions import MemspecError
from memspec.plugin.collection import deselection_line
from memspec.plugin.expectations_writer import stale_entries, write_run_expectations
from memspec.plugin.preflight import adapter_problem
from memspec.plugin.run_state import RunState
from memspec.plugin.verdicts import verdict_of
from memspec.reports.report import (
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
from memspec.run.scratch import SETTLE_S, LateChange, settle
from memspec.wire.adapters import DEFAULT_MAX_REPLY_BYTES

__all__ = ["LATE_CHANGES", "Reporting", "build_report", "run_settings"]

LATE_CHANGES = "memspec_late_changes"
"""The key of a worker's late changes in its ``workeroutput``."""


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
            state.claims = claims_of(handshake)
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
            signature=verdict.signature,
            values=verdict.values,
        )

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """An xdist worker's late changes (``memspec.run.scratch``) reach the records."""
        output = getattr(node, "workeroutput", None) or {}
        for case_id, changes in output.get(LATE_CHANGES, []):
            self._late(LateChange(str(case_id), tuple(str(line) for line in changes)))

    def _late(self, late: LateChange) -> None:
        """The case whose tree changed after its last reply fails, saying how."""
        state = self.state
        lines = [
            "after its last reply, the adapter changed the case's tree (the tree is read "
            f"again {SETTLE_S} s after the case):",
            *(f"  {line}" for line in late.changes[:10]),
        ]
        record = state.records.get(late.case_id)
        if record is None:
            state.problems.append(f"{late.case_id}: " + " ".join(lines))
            return
        signature = record.signature or (record.outcome,)
        values = record.values + ("",) * (len(signature) - len(record.values))
        state.records[late.case_id] = dataclasses.replace(
            record,
            outcome="failed",
            message="\n".join([record.message, *lines]).strip("\n"),
            signature=(*signature, "after the case: tree changed"),
            values=(*values, ""),
        )

    @pytest.hookimpl(wrapper=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> Iterator[None]:
        state = self.state
        for late in settle():
            self._late(late)
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
        report = build_report(state)
        written = self._write(report)
        if state.write_expectations_path and not state.broken and not state.interrupted:
            write_run_expectations(state)
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
        # pytest's closing line counts them without saying why.
        deselected = deselection_line(
            state.config, len(terminalreporter.stats.get("deselected", ()))
        )
        if deselected:
            terminalreporter.write_line(deselected)


def build_report(state: RunState) -> Report:
    return Report(
        implementation=state.implementation or UNKNOWN_IMPLEMENTATION,
        info=run_info(state.adapter_spec, shard=str(state.shard or "")),
        records=sorted(state.records.values(), key=lambda r: r.id),
        problems=list(state.problems),
        broken=state.broken,
        interrupted=bool(state.interrupted),
        claims=state.claims,
        label=state.label,
        settings=run_settings(state),
    )


def run_settings(state: RunState) -> dict[str, Any]:
    """What the run was asked for, each as it took effect (a default written out), for
    the report header."""
    owner = state.tree_owner
    return {
        "hypothesis_profile": hypothesis_settings.get_current_profile_name(),
        "timeout_s": state.timeout_s,
        "start_timeout_s": state.start_timeout_s,
        "max_reply_bytes": state.max_reply_bytes or DEFAULT_MAX_REPLY_BYTES,
        "tree_owner": f"{owner[0]}:{owner[1]}" if owner else None,
        "selection": _selection(state),
        **observer_settings(state),
    }


def observer_settings(state: RunState) -> dict[str, str]:
    """Whether the run observed the adapter's system calls, and which verdicts are
    statistical (decided by sampling in rounds, not by observation) and why."""
    off = state.observer_off()
    if off is None:
        return {
            "observer": "strace",
            "statistical": "none: the observer decides crash points, concurrency, readers "
            "and races",
        }
    return {
        "observer": "none",
        "statistical": "concurrency, readers and race cases are sampled in rounds; crash "
        f"points need the adapter's fault-injection (no observer: {off})",
    }


def _selection(state: RunState) -> dict[str, Any]:
    """The options that chose the cases, those given only."""
    selection = {
        "profiles": sorted(state.profiles),
        "cases": sorted(state.case_ids),
        "ops": sorted(state.ops),
        "keyword": getattr(state.config.option, "keyword", "") or "",
    }
    return {key: value for key, value in selection.items() if value}
