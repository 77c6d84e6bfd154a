"""From what a case did to its outcome and message, one way for every kind of case.

Every report of a memspec item (a fixture case, its crash points, a property, a
differential property, a snapshot, a protocol check) goes through ``judge_report``: it
decides the outcome (passed, failed, error, skipped, xfailed or xpassed) and the message,
told in the protocol's terms (op, args, reply), and attaches both to the report. pytest's
own status letters and closing line (``report_status``) and the memspec report
(``verdict_of``) read them from there, so the two always count alike.

- A wrong answer is ``failed``; no proper answer (the adapter died, hung, answered
  garbage or could not be restarted) is ``error``, wherever it happens.
- An exception that judges nothing (none of ``CaseFailure``, ``CaseFault``,
  ``HostLimitation``, and in a suite test ``assert``) is a fault of the harness: an
  ``error`` that says so and is never counted against the implementation, for every kind.
- A failing property is told in the protocol's terms: the op, its args and its reply as
  JSON, with the expected and actual values when the property compared them
  (``memspec.suite._support.expect_equal``), never Python reprs.
- A case listed as an expected failure is ``xfailed`` when it fails or errs as its entry
  says (the same signature), ``failed`` when it fails otherwise, and ``xpassed`` (which
  fails the run) when it passes.
- A failure carries its signature (``signature_of``): which checks failed, in words that
  are the same on every host and every run, so that an expectations file pins how a case
  fails and not only that it does.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pytest

from memspec.corpus.cases import Case
from memspec.corpus.observations import Observation, from_token
from memspec.exceptions import (
    AdapterBroken,
    AdapterFault,
    CaseFailure,
    CaseFault,
    HostLimitation,
    no_answer,
)
from memspec.judge.messages import abridge
from memspec.plugin.export_failures import export_failure
from memspec.plugin.run_state import STATE, RunState
from memspec.reports.report import HARNESS_FAULT
from memspec.run.calls import Call, CaseStopped, recent_calls
from memspec.run.runner import not_claimed_reason
from memspec.wire.adapters import Adapter

__all__ = [
    "Verdict",
    "judge_report",
    "report_status",
    "run_judged",
    "signature_of",
    "verdict_of",
]

T = TypeVar("T")

_OUTCOME, _MESSAGE, _NOTE = "memspec_outcome", "memspec_message", "memspec_note"
_SIGNATURE, _VALUES = "memspec_signature", "memspec_values"
_CASE_KINDS = ("fixture", "crash-points")
"""Kinds whose failures the runner words itself (CaseFailure and CaseFault)."""
_STATUS = {
    "passed": ("passed", ".", "PASSED"),
    "failed": ("failed", "F", "FAILED"),
    "error": ("error", "E", "ERROR"),
    "skipped": ("skipped", "s", "SKIPPED"),
    "xfailed": ("xfailed", "x", "XFAIL"),
    "xpassed": ("xpassed", "X", "XPASS"),
}


@dataclass(frozen=True)
class Verdict:
    outcome: str
    message: str
    signature: tuple[str, ...] = ()
    """How the case failed (empty when it did not): each failed check with what it
    observed (``memspec.corpus.observations``)."""
    values: tuple[str, ...] = ()
    """The observed value of each entry of ``signature``, abridged ("" for none)."""


def run_judged(
    adapter: Adapter,
    case: Case,
    work: Callable[[], T],
    *,
    needs: str = "",
    provided: tuple[str, ...] = (),
) -> T:
    """Run ``work`` for ``case``: skipped when not claimed (but for the capabilities the
    harness ``provided``) or when the host cannot build it; a wrong answer (CaseFailure)
    or a fault (CaseFault) goes on to ``judge_report``."""
    reason = not_claimed_reason(case, adapter, provided)
    if reason is None and needs and needs not in adapter.handshake.capabilities:
        reason = f"not claimed: capability {needs}"
    if reason:
        pytest.skip(reason)
    try:
        return work()
    except HostLimitation as exc:
        pytest.skip(str(exc))
    except AdapterBroken as exc:
        raise CaseFault(f"adapter broken: {exc}") from exc


def judge_report(item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
    """Decide the outcome and message of one report of a memspec item, and attach them."""
    marker = item.get_closest_marker("memspec_case_id")
    if marker is None or STATE not in item.config.stash:
        return
    kind_marker = item.get_closest_marker("memspec_kind")
    kind = str(kind_marker.args[0]) if kind_marker else "fixture"
    verdict = _verdict(str(marker.args[0]), kind, call, report, item.config.stash[STATE])
    if verdict is None:
        return
    report.user_properties = [
        *report.user_properties,
        (_OUTCOME, verdict.outcome),
        (_MESSAGE, verdict.message),
        (_SIGNATURE, list(verdict.signature)),
        (_VALUES, list(verdict.values)),
    ]
    if verdict.outcome in ("failed", "error"):
        report.longrepr = verdict.message


def verdict_of(report: pytest.TestReport) -> Verdict | None:
    """The verdict ``judge_report`` attached, or None for a phase that decided nothing."""
    found = dict(report.user_properties)
    outcome = found.get(_OUTCOME)
    if outcome is None:
        return None
    signature = found.get(_SIGNATURE)
    signature = signature if isinstance(signature, list) else []
    values = found.get(_VALUES)
    values = values if isinstance(values, list) else []
    return Verdict(
        str(outcome),
        str(found.get(_MESSAGE, "")),
        tuple(str(token) for token in signature),
        tuple(str(value) for value in values),
    )


def report_status(report: pytest.TestReport, own_lines: bool) -> tuple[str, str, str] | None:
    """pytest's category, letter and word for a judged report, so that its closing line
    counts what memspec counts (an adapter fault as an error, a strict unexpected pass
    as xpassed). Under ``memspec run -v`` the plugin prints one line per case itself, by
    case id, so pytest's letters are silenced."""
    verdict = verdict_of(report)
    if verdict is None:
        return None
    category, letter, word = _STATUS[verdict.outcome]
    return category, "" if own_lines else letter, word


def _verdict(
    case_id: str, kind: str, call: pytest.CallInfo[None], report: pytest.TestReport, state: RunState
) -> Verdict | None:
    expected_failure = hasattr(report, "wasxfail")
    error = call.excinfo.value if call.excinfo is not None else None
    fault = _fault_in(error)
    broken = _harness_fault(kind, error, fault) if report.when == "call" else None
    if broken is not None:
        return Verdict("error", _harness_message(case_id, broken), HARNESS_FAULT)
    if report.skipped:
        if not expected_failure:
            return Verdict("skipped", _skip_reason(report))
        message = _failure_message(case_id, kind, error, fault, None) if error else ""
        signature, values = signature_of(error), values_of(error)
        entry = state.expectations.get(case_id)
        if entry is not None and entry.signature is not None and not entry.matches(signature):
            otherwise = fails_otherwise(entry.signature, signature, values, message)
            return Verdict("failed", otherwise, signature, values)
        return Verdict("xfailed", message or str(report.wasxfail), signature, values)
    if report.when != "call":
        if not report.failed:
            return None
        broke = _fault_message(case_id, kind, fault) if fault else _pytest_message(report)
        return Verdict("error", broke, signature_of(error), values_of(error))
    if report.passed:
        if expected_failure:
            return Verdict("xpassed", _listed(str(report.wasxfail)))
        return Verdict("passed", str(dict(report.user_properties).get(_NOTE, "")))
    text = str(report.longreprtext)
    if text.startswith("[XPASS(strict)]"):
        return Verdict("xpassed", _listed(text.removeprefix("[XPASS(strict)]").strip()))
    message = _failure_message(case_id, kind, error, fault, state)
    return Verdict(
        "error" if fault is not None else "failed",
        message,
        signature_of(error),
        values_of(error),
    )


def fails_otherwise(
    expected: tuple[Observation, ...],
    actual: tuple[str, ...],
    values: tuple[str, ...],
    message: str,
) -> str:
    """The message of a listed case that fails otherwise than its entry says: each check
    whose observation changed, with the old and the new value, then the failure."""
    now = [from_token(token, value) for token, value in zip(actual, values, strict=False)]
    old_by_check = {o.check: o for o in expected}
    new_by_check = {o.check: o for o in now}
    lines = ["fails, but not as its expected failure says (the expectations file pins how)"]
    for check in dict.fromkeys([*old_by_check, *new_by_check]):
        old, new = old_by_check.get(check), new_by_check.get(check)
        if old is not None and new is not None and old.token == new.token:
            continue
        lines.append(f"  {check}:")
        lines.append(f"    listed:   {_observed(old)}")
        lines.append(f"    observed: {_observed(new)}")
    lines.append(message)
    return "\n".join(lines)


def _observed(observation: Observation | None) -> str:
    if observation is None:
        return "(this check did not fail)"
    if observation.digest:
        return f"@{observation.digest} {observation.value}"
    return f"({observation.value})" if observation.value else "(failed)"


def values_of(error: BaseException | None) -> tuple[str, ...]:
    """The observed values that go with ``signature_of(error)``."""
    if isinstance(error, (CaseFailure, CaseFault)) and error.signature:
        return error.values
    return ()


def signature_of(error: BaseException | None) -> tuple[str, ...]:
    """How a case failed, in words that do not change from host to host: the checks a
    wrong answer failed with what each observed, or what came instead of an answer
    (and the checks that failed after it)."""
    if error is None:
        return ()
    if isinstance(error, (CaseFailure, CaseFault)) and error.signature:
        return error.signature
    for cause in _causes(error):
        if isinstance(cause, CaseFault) and cause.signature:
            return cause.signature
    words = no_answer(error)
    if words != "no answer":
        return (words,)
    if _fault_in(error) is not None:
        return ("no answer",)
    calls = recent_calls()
    last = calls[-1] if calls else None
    if last is not None and last.response is not None and last.response.error_kind == "unknown-op":
        return ("unknown-op",)
    return ("does not hold",)


def _harness_fault(
    kind: str, error: BaseException | None, fault: _Fault | None
) -> BaseException | None:
    """The exception by which the harness itself broke, which never says anything about
    the implementation: one that is none of the case's verdicts, for every kind of case.
    Of the failures Hypothesis found together, one verdict makes the whole a verdict."""
    if error is None or fault is not None:
        return None
    leaves = _leaves(error)
    if any(_is_verdict(kind, leaf) for leaf in leaves):
        return None
    return leaves[0]


_OUTCOME_EXCEPTIONS = (pytest.skip.Exception, pytest.fail.Exception, pytest.xfail.Exception)
_VERDICTS = (CaseFailure, CaseFault, HostLimitation, *_OUTCOME_EXCEPTIONS)


def _is_verdict(kind: str, error: BaseException) -> bool:
    """Whether ``error`` judges the case: the runner words every verdict of a fixture
    case and its crash points itself (an ``assert`` there is a bug of the runner), while
    a suite test also states its invariants with ``assert``."""
    if isinstance(error, _VERDICTS):
        return True
    return kind not in _CASE_KINDS and isinstance(error, AssertionError)


def _leaves(error: BaseException) -> list[BaseException]:
    """``error``, or the exceptions a group holds, however deep."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


def _harness_message(case_id: str, error: BaseException) -> str:
    where = error.__traceback__
    while where is not None and where.tb_next is not None:
        where = where.tb_next
    place = (
        f" at {Path(where.tb_frame.f_code.co_filename).name}:{where.tb_lineno}"
        if where is not None
        else ""
    )
    return (
        f"harness fault in {case_id}, not counted against the implementation: "
        f"{type(error).__name__}: {str(error)[:300]}{place} (a bug of memspec: please "
        "report it with this line)\n" + _rerun(case_id)
    )


def _listed(reason: str) -> str:
    return f"passes, but is listed as an expected failure: {reason}"


@dataclass(frozen=True)
class _Fault:
    what: str
    call: Call | None


def _causes(error: BaseException) -> Iterator[BaseException]:
    """``error``, the exceptions grouped in it, and their causes, depth first."""
    seen: set[int] = set()
    pending = [error]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        if isinstance(current, BaseExceptionGroup):
            pending.extend(reversed(current.exceptions))
        pending.extend(e for e in (current.__context__, current.__cause__) if e is not None)


def _fault_in(error: BaseException | None) -> _Fault | None:
    """The fault behind ``error``, when the adapter gave no proper answer."""
    if error is None:
        return None
    for cause in _causes(error):
        if isinstance(cause, CaseStopped):
            return _Fault(cause.call.fault, cause.call)
        if isinstance(cause, CaseFault):
            return _Fault(str(cause), None)
        if isinstance(cause, AdapterBroken):
            return _Fault(f"adapter broken: {cause}", None)
        if isinstance(cause, AdapterFault):
            return _Fault(str(cause), None)
    return None


def _failure_message(
    case_id: str,
    kind: str,
    error: BaseException | None,
    fault: _Fault | None,
    state: RunState | None,
) -> str:
    """Why the case failed; ``state`` is given when a failing property's input may be
    exported (not for an expected failure)."""
    if kind in _CASE_KINDS and isinstance(error, (CaseFailure, CaseFault)):
        return str(error)
    if fault is not None:
        return _fault_message(case_id, kind, fault)
    return _does_not_hold(case_id, kind, error, state)


def _fault_message(case_id: str, kind: str, fault: _Fault) -> str:
    call = fault.call
    lines = [
        f"{kind} {case_id}: the adapter gave no answer"
        + (f" to {call.op}" if call is not None else "")
        + f": {fault.what[:1000]}"
    ]
    if call is not None:
        lines += [f"  op:    {call.op}", f"  args:  {abridge(dict(call.args), 400)}"]
    lines.append(_rerun(case_id))
    return "\n".join(lines)


def _rerun(case_id: str) -> str:
    return f"  rerun: memspec run --case {case_id}; see memspec explain {case_id}"


def _does_not_hold(
    case_id: str, kind: str, error: BaseException | None, state: RunState | None
) -> str:
    from memspec.corpus.registry import registered_cases

    failures = _leaves(error) if error is not None else []
    reason, details = _reason_and_details(_told(failures))
    calls = recent_calls()
    last = calls[-1] if calls else None
    own_call = any(line.startswith("  op:") for line in details)
    if (
        not own_call
        and last is not None
        and last.response is not None
        and last.response.error_kind == "unknown-op"
    ):
        reason = f"{last.op} answered error 'unknown-op'"
    lines = [f"{kind} {case_id} does not hold: {reason[:500]}", *details]
    if not own_call and last is not None:
        lines += [
            f"  op:    {last.op}",
            f"  args:  {abridge(dict(last.args), 400)}",
            f"  reply: {abridge(last.reply_json(), 400)}",
        ]
        if len(calls) > 1:
            lines.append("  calls before it: " + _calls_line(calls[:-1]))
    if len(failures) > 1:
        lines.append(
            f"  one of {len(failures)} distinct failures of it; the others show once it is fixed"
        )
    entry = next((e for e in registered_cases() if e.id == case_id), None)
    if entry is not None and entry.divergences:
        lines.append(
            f"  this property reaches the recorded divergence(s) "
            f"{', '.join(entry.divergences)} (spec/divergences.md): an "
            "implementation keeping the seed's behaviour fails it there"
        )
    lines.append(_rerun(case_id))
    if state is not None and state.export_failures and last is not None:
        path = export_failure(
            Path(state.export_failures),
            case_id,
            entry.requirements if entry is not None else (),
            last.op,
            dict(last.args),
            last.root,
            last.tree,
        )
        lines.append(f"  exported as {path}")
    return "\n".join(lines)


def _calls_line(calls: list[Call]) -> str:
    return "; ".join(f"{call.op} -> {abridge(call.reply_json(), 80)}" for call in calls)


def _told(failures: list[BaseException]) -> BaseException | None:
    """The failure a message tells: the last one that judges the case (Hypothesis
    replays the failures it found in turn, so the calls remembered are the last's)."""
    judging = [f for f in failures if isinstance(f, (CaseFailure, AssertionError))]
    return (judging or failures or [None])[-1]


def _reason_and_details(failure: BaseException | None) -> tuple[str, list[str]]:
    """Why ``failure`` fails the case in one line, and the lines a CaseFailure adds (the
    property's own call, expected and actual values) after it."""
    if failure is None:
        return "it fails", []
    if isinstance(failure, AssertionError):
        stated = _stated_assertion(failure)
        if stated is not None:
            return stated, []
    lines = str(failure).strip().splitlines()
    if not lines:
        return type(failure).__name__, []
    return lines[0], lines[1:] if isinstance(failure, CaseFailure) else []


def _stated_assertion(error: AssertionError) -> str | None:
    """What a failed ``assert`` of a suite test says: its message when that is a literal
    text, else its condition as written (pytest's explanation would show Python reprs of
    the values, which the message shows as JSON instead)."""
    where = error.__traceback__
    while where is not None and where.tb_next is not None:
        where = where.tb_next
    if where is None:
        return None
    line = where.tb_lineno
    for statement in _assertions_in(where.tb_frame.f_code.co_filename):
        if statement.lineno <= line <= (statement.end_lineno or statement.lineno):
            message = statement.msg
            if isinstance(message, ast.Constant) and isinstance(message.value, str):
                return message.value
            return "assert " + ast.unparse(statement.test)
    return None


@functools.lru_cache(maxsize=64)
def _assertions_in(path: str) -> tuple[ast.Assert, ...]:
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError):
        return ()
    return tuple(node for node in ast.walk(tree) if isinstance(node, ast.Assert))


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):
        return str(longrepr[2]).removeprefix("Skipped: ")
    return _pytest_message(report)


def _pytest_message(report: pytest.TestReport) -> str:
    """The message pytest holds for a report (a fixture that broke, say), without its
    own prefixes."""
    longrepr = report.longrepr
    if longrepr is None:
        return ""
    if isinstance(longrepr, str):
        return longrepr
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None:
        message = str(crash.message)
        for prefix in ("Failed: ", "Skipped: "):
            message = message.removeprefix(prefix)
        return message
    return str(report.longreprtext)
