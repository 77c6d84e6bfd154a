"""From what a case did to its outcome and message: passed, failed, error, skipped,
xfailed or xpassed, told in the protocol's terms (op, args, reply), never Python's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NoReturn, TypeVar

import pytest

from memspec._export_failures import export_failure
from memspec._messages import abridge
from memspec._run_state import STATE
from memspec.adapters import Adapter
from memspec.cases import Case
from memspec.exceptions import (
    AdapterBroken,
    AdapterFault,
    CaseFailure,
    CaseFault,
    HostLimitation,
    MemspecError,
)
from memspec.runner import not_claimed_reason

__all__ = ["judge_suite_report", "message_of", "outcome_of", "report_status", "run_judged"]

T = TypeVar("T")

_SUITE_KINDS = ("property", "differential", "snapshot", "protocol")


def _fail(request: pytest.FixtureRequest, exc: MemspecError) -> NoReturn:
    if isinstance(exc, CaseFault):
        request.node.user_properties.append(("memspec_fault", True))
    request.node.user_properties.append(("memspec_message", str(exc)))
    pytest.fail(str(exc), pytrace=False)


def run_judged(
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


def judge_suite_report(
    item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport
) -> None:
    """A failing property or snapshot is told in the protocol's terms, not Python's."""
    kind = item.get_closest_marker("memspec_kind")
    if (
        report.when != "call"
        or not report.failed
        or kind is None
        or kind.args[0] not in _SUITE_KINDS
        or STATE not in item.config.stash
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
    state = item.config.stash[STATE]
    if state.export_failures and calls:
        path = export_failure(
            Path(state.export_failures),
            case_id,
            entry.requirements if entry is not None else (),
            calls[-1].op,
            calls[-1].args,
        )
        lines.append(f"  exported as {path}")
    return "\n".join(lines)


def report_status(report: pytest.TestReport, own_lines: bool) -> tuple[str, str, str] | None:
    """A fault (the adapter gave no proper answer) counts as an error, not a failure.

    Under ``memspec run -v`` the plugin prints one line per case itself, by case id, so
    pytest's own letters are silenced.
    """
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


def message_of(report: pytest.TestReport) -> str:
    """The message pytest holds for a report, without its own prefixes."""
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


def outcome_of(report: pytest.TestReport) -> str:
    """The memspec outcome of one report."""
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
