"""Running one case against an adapter and judging what came back."""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import fnmatch
import functools
import glob
import json
import os
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from memspec.corpus.cases import Case, Expectation, Step
from memspec.corpus.compare import MEMBER_ORDER, json_equal, member_order_differences
from memspec.corpus.expectations import INTERLEAVED
from memspec.corpus.observations import Observation
from memspec.corpus.op_schemas import op_schema
from memspec.corpus.tokens import for_worker, substitute, substitute_tree, unsubstitute
from memspec.exceptions import (
    AdapterFault,
    CaseFailure,
    CaseFault,
    HostLimitation,
    SetupError,
    no_answer,
)
from memspec.judge.messages import abridge, describe_difference
from memspec.judge.model_text import host_path_leaks, host_paths
from memspec.judge.observed import Normaliser, case_normaliser, coarse, observe
from memspec.observe.strace import ObserverFault
from memspec.run.captures import bound, captured, pins_nothing
from memspec.run.crash_faults import Injector, Point, RequestedFaults, Retry, observed_adapter
from memspec.run.held_lock import run_while_held
from memspec.run.race import judge_any, run_race, with_iteration
from memspec.run.race_points import run_race_points
from memspec.run.readers import watching
from memspec.run.scratch import scratch_folder
from memspec.run.setup import git_available, needs_git, run_setup
from memspec.run.trees import (
    Entry,
    compare_tree,
    ignored,
    materialise,
    read_tree,
    tmp_case_sensitive,
    tree_changes,
)
from memspec.run.widened import widened
from memspec.wire.adapters import Adapter, Response
from memspec.wire.working_directory import made_working_directory

__all__ = [
    "CONCURRENCY_ROUNDS",
    "CONCURRENCY_SECONDS",
    "CRASH_POINTS_AT_MOST",
    "case_ops",
    "case_tree",
    "concurrency_rounds",
    "crash_point_steps",
    "not_claimed_reason",
    "run_case",
    "run_crash_points",
]

CRASH_POINTS_AT_MOST = 256
"""How many mutations of one step the harness fails in turn (spec/protocol.md, crash
points): far more than any case's step makes, and few enough that an adapter claiming
ever more mutations ends its case in bounded time instead of holding the run."""
_CRASH_POINT_RETRIES = 5
_T = TypeVar("_T")
# A round of a fast case catches a torn or unlocked write about one time in two at worst
# (a reader beside a create of the Python SDK, benchmarks/race_catch_rate.py): 25 rounds
# miss it less than once in a million runs. The slow cases (a second a round) catch a
# vulnerable implementation in their first round, so 6 s end the rounds of any case.
CONCURRENCY_ROUNDS = 25
CONCURRENCY_SECONDS = 6.0


def not_claimed_reason(case: Case, adapter: Adapter, provided: tuple[str, ...] = ()) -> str | None:
    """Why the adapter or this host cannot take the case, or None when it can; the
    capabilities ``provided`` are the harness's own (``fault-injection`` by the observer)."""
    handshake = adapter.handshake
    if case.profile not in handshake.profiles:
        return f"not claimed: profile {case.profile!r}"
    missing = [
        need
        for need in case.requires
        if need not in handshake.capabilities and need not in provided
    ]
    if missing:
        return f"not claimed: capability {', '.join(missing)}"
    unclaimed = [op for op in case_ops(case) if not handshake.claims_op(op)]
    if unclaimed:
        return f"not claimed: op {', '.join(unclaimed)}"
    runs_as_root = (
        hasattr(os, "geteuid")
        and os.geteuid() == 0
        and (adapter.tree_owner is None or adapter.tree_owner[0] == 0)
    )
    if "non-root" in case.host and runs_as_root:
        return "host: the case needs a non-root user (mode bits do not bind root)"
    if "case-sensitive-fs" in case.host and not tmp_case_sensitive():
        return "host: the case needs a case-sensitive filesystem for its temporary directory"
    if needs_git(case.setup) and not git_available():
        return "host: git is not installed"
    return None


_UNOBSERVED = object()


def case_ops(case: Case) -> list[str]:
    """Every op the case calls: its steps' and their observing calls', in order."""
    ops = [step.op for step in case.steps]
    ops += [o.op for step in case.steps for o in step.crash_points_observe]
    return list(dict.fromkeys(ops))


@dataclass(frozen=True)
class _Failed:
    """One check of a step that failed: its name (what the signature lists), the
    headline and the lines that show its difference, and what it observed: a value
    (``observed``), or only the kind of failure (``kind``) where what it saw is not the
    same from run to run. A tree check observes one entry per path (``entries``)."""

    check: str
    headline: str
    details: list[str]
    observed: Any = _UNOBSERVED
    kind: str = ""
    entries: Mapping[str, Any] | None = None


def reply_value(response: Response) -> Any:
    """A reply as an observed value: its result, or its error's kind and message."""
    if response.is_error:
        return {"error": {"kind": response.error_kind, "message": response.error_message}}
    return {"result": response.result}


class _Context:
    """What a failure message needs to know about the case being run."""

    def __init__(self, case: Case, root: str, adapter: Adapter | None = None) -> None:
        self.case = case
        self.root = root
        self.captured: dict[str, str] = {}
        """What the steps so far captured, by name."""
        self.prefix = ""
        """Put before the check names of the signature (a crash point's number)."""
        self.last_reading: dict[str, Entry] | None = None
        """The tree as read after the last step's reply."""
        working = made_working_directory()
        self.installs = adapter.install_folders if adapter else ()
        self.host_paths = host_paths(root, str(working) if working else None, self.installs)
        """The paths of the host a text sent to the model must not hold."""
        self.widen = False
        """Whether the observer slows a step whose verdict hangs on interleaving."""

    def normaliser(self) -> Normaliser:
        case = self.case
        return case_normaliser(
            self.root,
            working_directory=made_working_directory(),
            captured=self.captured,
            installs=self.installs,
            case_data=[
                case.tree,
                [(step.args, dataclasses.asdict(step.expect)) for step in case.steps],
            ],
        )

    def where(self, step: Step, index: int) -> str:
        steps = len(self.case.steps)
        return step.op + (f" (step {index + 1} of {steps})" if steps > 1 else "")

    def fail(
        self,
        step: Step,
        index: int,
        headline: str,
        details: list[str],
        args: Mapping[str, Any],
        check: str = "result",
        *,
        observed: Any = _UNOBSERVED,
        kind: str = "",
    ) -> CaseFailure:
        failed = _Failed(check, headline, details, observed, kind)
        return self.fail_all(step, index, [failed], args)

    def lines(
        self, step: Step, index: int, failures: list[_Failed], args: Mapping[str, Any]
    ) -> list[str]:
        """The message of every check of the step that failed, each with its difference."""
        first = failures[0]
        if len(failures) == 1:
            lines = [f"{self.where(step, index)}: {first.headline}"]
        else:
            names = ", ".join(failure.check for failure in failures)
            lines = [f"{self.where(step, index)}: {len(failures)} checks fail ({names})"]
        lines.append(f"  args: {unsubstitute(abridge(dict(args), 300), self.root)}")
        if self.captured:
            lines.append(f"  captured: {abridge(self.captured, 300)}")
        for failure in failures:
            details = failure.details
            if len(failures) > 1:
                lines.append(f"  {failure.check}: {unsubstitute(failure.headline, self.root)}")
                details = ["  " + line for line in details]
            lines += [unsubstitute(line, self.root) for line in details]
        lines.append(f"  see: memspec explain {self.case.id}")
        return lines

    def observations(self, index: int, failures: list[_Failed]) -> list[Observation]:
        """What each failed check observed, in the order the message lists them."""
        normaliser = self.normaliser()
        step = self.case.steps[index]
        # Beside other writers or readers, what the tree holds afterwards is down to how
        # they interleaved, and so is which step and which file of the case shows it: a
        # check there keeps only what kind of check failed.
        interleaved = any(x is not None for x in (step.concurrent, step.readers, step.race))
        found: list[Observation] = []
        for failure in failures:
            if interleaved and (failure.check == "tree" or step.concurrent is not None):
                kind = failure.kind or ("lost or torn" if failure.check == "tree" else "")
                shown = coarse(f"{INTERLEAVED}{failure.check}", kind, normaliser)
                if shown not in found:
                    found.append(shown)
                continue
            for check, observed, kind in _checks(failure):
                name = f"step {index + 1}: {self.prefix}{check}"
                if observed is _UNOBSERVED:
                    found.append(coarse(name, kind, normaliser))
                else:
                    found.append(observe(name, observed, normaliser))
        return found

    def fail_all(
        self, step: Step, index: int, failures: list[_Failed], args: Mapping[str, Any]
    ) -> CaseFailure:
        """One failure for every check of the step that failed; the signature lists the
        checks in the same order, each with what it observed."""
        found = self.observations(index, failures)
        return CaseFailure(
            "\n".join(self.lines(step, index, failures, args)),
            signature=tuple(o.token for o in found),
            values=tuple(o.value for o in found),
        )


def _checks(failure: _Failed) -> list[tuple[str, Any, str]]:
    """The signature entries of one failed check, each with what it observed: its name,
    and for a tree one entry per path and what differs there."""
    if failure.check != "tree":
        return [(failure.check, failure.observed, failure.kind)]
    entries = failure.entries or {}
    found: list[tuple[str, Any, str]] = []
    for line in failure.details:
        text = line.strip()
        if not text or text.startswith("... and ") or line.startswith("    "):
            continue
        path, _, what = text.partition(": ")
        difference = _tree_difference(what)
        check = f"tree {path} {difference}"
        if difference == "mtime":
            found.append((check, _UNOBSERVED, ""))  # a writer's clock, not the case's
        elif difference == "missing":
            found.append((check, _UNOBSERVED, ""))
        elif difference == "hard link":
            found.append((check, what, ""))
        else:
            found.append((check, entries.get(path), ""))
    return found or [("tree", _UNOBSERVED, "")]


def _tree_difference(what: str) -> str:
    word = what.split(" ", 1)[0]
    return {
        "missing": "missing",
        "unexpected": "unexpected",
        "expected": "kind",
        "mode": "mode",
        "mtime_ns": "mtime",
        "links": "link",
        "hard": "hard link",
    }.get(word, "content")


def _reply_failures(
    context: _Context, step: Step, response: Response, expected: Expectation
) -> list[_Failed]:
    """Every check of one reply that fails: the host path in what the model reads, and
    the result or the error (kind, then message)."""
    root = context.root
    reply = reply_value(response)
    failures = []
    leaks = (
        []
        if response.is_error
        else host_path_leaks(
            step.op,
            response.result,
            root,
            context.host_paths,
            json.dumps(expected.result, ensure_ascii=False),
        )
    )
    if leaks:
        failures.append(
            _Failed(
                "host path",
                "text sent to the model holds a host path",
                [f"  text:     {abridge(leaks[0])}"],
                observed=leaks[0],
            )
        )
    if expected.error_kind is not None:
        if not response.is_error:
            failures.append(
                _Failed(
                    "result",
                    f"expected error {expected.error_kind!r}, got a result",
                    [f"  actual:   {abridge(response.result)}"],
                    observed=reply,
                )
            )
        elif response.error_kind != expected.error_kind:
            failures.append(
                _Failed(
                    "error kind",
                    f"expected error {expected.error_kind!r}, got error {response.error_kind!r}",
                    [f"  message:  {abridge(response.error_message)}"],
                    observed=reply,
                )
            )
        else:
            wanted = expected.error_message
            if wanted is not None and response.error_message != substitute(wanted, root):
                failures.append(
                    _Failed(
                        "error message",
                        "wrong error message",
                        describe_difference(substitute(wanted, root), response.error_message),
                        observed=reply,
                    )
                )
        return failures
    if response.is_error:
        failures.append(
            _Failed(
                "error kind",
                f"expected a result, got error {response.error_kind!r}",
                [
                    f"  message:  {abridge(response.error_message)}",
                    f"  expected: {abridge(substitute(expected.result, root))}",
                ],
                observed=reply,
            )
        )
        return failures
    wanted = substitute(expected.result, root)
    if not json_equal(wanted, response.result):
        failures.append(
            _Failed(
                "result",
                "wrong result",
                describe_difference(wanted, response.result),
                observed=reply,
            )
        )
        return failures
    pointers = (op_schema(step.op) or {}).get(MEMBER_ORDER, [])
    misordered = member_order_differences(wanted, response.result, pointers)
    if misordered:
        failures.append(
            _Failed(
                "member order",
                "members out of order",
                [f"  {line}" for line in misordered],
                observed=reply,
            )
        )
    return failures


def _judge(
    context: _Context,
    step: Step,
    index: int,
    response: Response,
    expected: Expectation,
    args: Mapping[str, Any],
) -> None:
    failures = _reply_failures(context, step, response, expected)
    if failures:
        raise context.fail_all(step, index, failures, args)


def _concurrent_failures(context: _Context, step: Step, responses: list[Response]) -> list[_Failed]:
    expected = step.expect
    if expected.results is None:
        failures: list[_Failed] = []
        for response in responses:
            for failure in _reply_failures(context, step, response, expected):
                if failure.check not in {f.check for f in failures}:
                    failures.append(failure)
        return failures
    errors = [r for r in responses if r.is_error]
    if errors:
        return [
            _Failed(
                "concurrent errors",
                f"{len(errors)} of {len(responses)} concurrent replies are errors",
                [f"  first: {errors[0].error_kind}: {abridge(errors[0].error_message)}"],
                kind="errors",
            )
        ]
    remaining = [substitute(item, context.root) for item in expected.results]
    unexpected = []
    for response in responses:
        match = next(
            (i for i, item in enumerate(remaining) if json_equal(item, response.result)), None
        )
        if match is None:
            unexpected.append(response.result)
        else:
            remaining.pop(match)
    if not unexpected and not remaining:
        return []
    details = []
    if unexpected:
        details.append(f"  {len(unexpected)} unexpected result(s), e.g. {abridge(unexpected[0])}")
    if remaining:
        details.append(
            f"  {len(remaining)} expected result(s) missing, e.g. {abridge(remaining[0])}"
        )
    return [
        _Failed(
            "concurrent results",
            "the concurrent replies differ from the expected multiset",
            details,
            kind="replies not allowed",
        )
    ]


@contextlib.contextmanager
def case_tree(case: Case, adapter: Adapter, base: Path | None = None) -> Iterator[Path]:
    """A fresh temporary directory holding the case's tree (and set-up), handed to the
    adapter's user."""

    def build(workdir: Path) -> None:
        materialise(case.tree, workdir)
        try:
            run_setup(case.setup, workdir)
        except SetupError as exc:
            raise CaseFault(f"set-up failed on this host: {exc}") from exc

    with scratch_folder(adapter, base=base, fill=build, settle=case.id) as workdir:
        yield workdir


def _call(
    adapter: Adapter,
    step: Step,
    args: Mapping[str, Any],
    root: str,
    fail_mutation: int | None = None,
) -> Response:
    try:
        return adapter.call(step.op, args, fail_mutation=fail_mutation)
    except AdapterFault as exc:
        raise CaseFault(f"{step.op}: adapter fault: {unsubstitute(str(exc), root)}") from exc


def _faulted(adapter: Adapter, step: Step, args: Mapping[str, Any], fault: int | None) -> Response:
    return adapter.call(step.op, args, fail_mutation=fault)


def _run_concurrent(
    adapter: Adapter, step: Step, args: Mapping[str, Any], root: str
) -> list[Response]:
    assert step.concurrent is not None
    workers, repeat = step.concurrent.workers, step.concurrent.repeat
    adapters = adapter.workers(workers)
    replies: list[list[Response]] = [[] for _ in range(workers)]
    faults: list[BaseException] = []
    try:
        for extra in adapters:  # each starts (and shakes hands) before the barrier opens
            extra.handshake  # noqa: B018
        barrier = threading.Barrier(workers)

        def work(number: int) -> None:
            try:
                barrier.wait()
                for iteration in range(repeat):
                    replies[number].append(
                        adapters[number].call(step.op, for_worker(args, number, iteration))
                    )
            except BaseException as exc:  # reported after every worker has finished
                faults.append(exc)

        threads = [threading.Thread(target=work, args=(n,), daemon=True) for n in range(workers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    except AdapterFault as exc:
        raise CaseFault(
            f"{step.op}: a concurrent worker could not start: {unsubstitute(str(exc), root)}"
        ) from exc
    if faults:
        raise CaseFault(
            f"{step.op}: concurrent worker failed: {unsubstitute(str(faults[0]), root)}"
        )
    return [reply for worker in replies for reply in worker]


def _tree_failures(
    context: _Context,
    expected: Mapping[str, Any],
    tree: Path | Mapping[str, Entry],
    headline: str,
) -> list[_Failed]:
    actual = read_tree(tree) if isinstance(tree, Path) else tree
    problems = compare_tree(expected, actual, context.root, context.case.tree_ignore)
    if not problems:
        return []
    details = [f"  {problem}" for problem in problems[:10]]
    if len(problems) > 10:
        details.append(f"  ... and {len(problems) - 10} more")
    entries = {path: entry_value(entry) for path, entry in actual.items()}
    return [_Failed("tree", headline, details, entries=entries)]


def entry_value(entry: Entry) -> dict[str, Any]:
    """A tree entry as an observed value: its kind, mode, and content or target (never
    its mtime, which a writer takes from its own clock)."""
    value: dict[str, Any] = {"kind": entry.kind, "mode": f"{entry.mode & 0o7777:04o}"}
    if entry.kind == "file":
        try:
            value["text"] = entry.content.decode("utf-8")
        except UnicodeDecodeError:
            value["base64"] = base64.b64encode(entry.content).decode("ascii")
    elif entry.kind == "symlink":
        value["target"] = entry.target
    return value


def _problem(check: str, problem: tuple[str, list[str]] | None, kind: str) -> list[_Failed]:
    return [] if problem is None else [_Failed(check, problem[0], problem[1], kind=kind)]


def _run_step(context: _Context, adapter: Adapter, workdir: Path, index: int) -> None:
    """Run one step and every check it has (the readers, a held lock, the reply, the
    tree); raise one CaseFailure listing each check that failed. When the adapter gave
    no answer, the tree is still compared, and what differs there is added to the fault."""
    step = bound(context.case.steps[index], context.captured)
    args = substitute(step.args, context.root)
    try:
        failures, responses = _step_replies(context, step, adapter, workdir, index, args)
    except CaseFault as fault:
        damage = _step_tree_failures(context, step, workdir)
        if not damage:
            raise
        found = context.observations(index, damage)
        words = no_answer(fault)
        raise CaseFault(
            "\n".join([str(fault), *context.lines(step, index, damage, args)]),
            (words, *(o.token for o in found)),
            ("", *(o.value for o in found)),
        ) from fault
    failures += _step_tree_failures(context, step, workdir)
    if failures:
        raise context.fail_all(step, index, failures, args)
    if step.race is None and step.concurrent is None:
        context.captured.update(_captured(context, step, index, responses[0], args))


def _step_replies(
    context: _Context,
    step: Step,
    adapter: Adapter,
    workdir: Path,
    index: int,
    args: Mapping[str, Any],
) -> tuple[list[_Failed], list[Response]]:
    """Send the step (beside its readers, under its held lock, from its workers, or
    under the racer) and judge the replies."""
    failures: list[_Failed] = []
    responses: list[Response] = []
    if step.race is not None:
        _run_race_step(context, step, adapter, workdir, index, args)
        return failures, responses
    with (
        watching(step.readers, workdir, adapter.tree_owner) as watch,
        _widened(context, adapter, step),
    ):
        if step.concurrent is not None:
            responses = _run_concurrent(adapter, step, args, context.root)
        elif step.hold_lock is not None:
            held = run_while_held(
                step.hold_lock,
                workdir,
                lambda: _call(adapter, step, args, context.root),
                context.case.tree_ignore,
            )
            failures += _problem("held lock", held.problem, "written while locked")
            responses = [held.response]
        else:
            responses = [_call(adapter, step, args, context.root)]
    failures += _problem("readers", watch.problem() if watch else None, "torn file")
    if step.concurrent is not None:
        failures += _concurrent_failures(context, step, responses)
    elif not pins_nothing(step):
        failures += _reply_failures(context, step, responses[0], step.expect)
    return failures, responses


def _step_tree_failures(context: _Context, step: Step, workdir: Path) -> list[_Failed]:
    """The step's tree check; its reading is kept to tell a change after the case's last
    reply (when the last step checks no tree, the late reading of the run tells it)."""
    context.last_reading = None
    if step.expect.tree is None:
        return []
    context.last_reading = read_tree(workdir)
    return _tree_failures(
        context, step.expect.tree, context.last_reading, "the tree after the step differs"
    )


def _widened(context: _Context, adapter: Adapter, step: Step) -> AbstractContextManager[None]:
    """The step's processes slowed where races happen, when the case is run observed and
    the step's verdict hangs on how threads interleave."""
    if not context.widen or (step.concurrent is None and step.readers is None):
        return contextlib.nullcontext()
    return widened(adapter, step)


def _run_race_step(
    context: _Context,
    step: Step,
    adapter: Adapter,
    workdir: Path,
    index: int,
    args: Mapping[str, Any],
) -> None:
    assert step.race is not None and step.expect.any_of is not None
    alternatives = step.expect.any_of

    def fail(headline: str, details: list[str], kind: str) -> CaseFailure:
        # Which send gives an op away, and whether by what it changed outside or by its
        # reply, is down to timing: the signature says only which kind of failure it was.
        return context.fail(step, index, headline, details, args, check="race", kind=kind)

    def send(iteration: int) -> Response:
        return _call(adapter, step, for_worker(args, 0, iteration), context.root)

    def judge(iteration: int, response: Response) -> None:
        judge_any(
            response,
            tuple(with_iteration(e, iteration) for e in alternatives),
            lambda r, e: _judge(context, step, index, r, e, for_worker(args, 0, iteration)),
            fail,
        )

    if context.widen:
        run_race_points(step.race, workdir, adapter, send, judge, fail, args)
    else:
        run_race(step.race, workdir, send, judge, fail, args)


def _captured(
    context: _Context, step: Step, index: int, response: Response, args: Mapping[str, Any]
) -> dict[str, str]:
    def fail(headline: str, details: list[str]) -> NoReturn:
        raise context.fail(
            step, index, headline, details, args, check="capture", observed=reply_value(response)
        )

    return captured(step, response, fail)


def concurrency_rounds(case: Case) -> int:
    """How many times at most a case is run in a fresh tree: ``CONCURRENCY_ROUNDS`` for
    one whose verdict hangs on how threads interleave (a concurrent step, readers beside
    a step), once for any other."""
    timed = any(step.concurrent is not None or step.readers is not None for step in case.steps)
    return CONCURRENCY_ROUNDS if timed else 1


def run_case(
    case: Case, adapter: Adapter, base: Path | None = None, *, observed: bool = False
) -> None:
    """Materialise the case's tree, run its steps, raise CaseFailure/CaseFault on a miss.

    A case with a concurrent step or readers is run again, each time in a fresh tree,
    until a round fails or the budget is spent (``concurrency_rounds`` rounds, or
    ``CONCURRENCY_SECONDS`` once a round has ended). ``observed``: such a case is run
    once, through a process the observer slows where races happen (``run.widened``), and
    a race step is decided by its points (``run.race_points``)."""
    rounds = concurrency_rounds(case)
    widen = observed and (rounds > 1 or any(step.race is not None for step in case.steps))
    if widen:
        adapter, rounds = observed_adapter(adapter), 1
    deadline = time.monotonic() + CONCURRENCY_SECONDS
    for number in range(1, rounds + 1):
        try:
            with case_tree(case, adapter, base) as workdir:
                context = _Context(case, str(workdir), adapter)
                context.widen = widen
                for index in range(len(case.steps)):
                    _run_step(context, adapter, workdir, index)
                _unchanged_since_last_reply(context, workdir)
        except ObserverFault as exc:
            raise HostLimitation(f"host: the observer failed: {exc}") from exc
        except CaseFailure as exc:
            if number == 1:
                raise
            raise CaseFailure(
                f"{exc}\n  (round {number}: the {number - 1} before passed)",
                exc.signature,
                exc.values,
            ) from exc
        if time.monotonic() >= deadline:
            return


def _unchanged_since_last_reply(context: _Context, workdir: Path) -> None:
    """The tree read once more as the case ends is the one read at its last reply."""
    if context.last_reading is None:
        return
    changes = tree_changes(context.last_reading, read_tree(workdir))
    if changes:
        raise CaseFailure(
            "after its last reply, the adapter went on changing the case's tree:\n"
            + "\n".join(f"  {unsubstitute(line, context.root)}" for line in changes[:10]),
            ("after the case: tree changed",),
            ("",),
        )


def _crash_reruns(context: _Context, step: Step, workdir: Path) -> tuple[str, ...]:
    """The clean reruns after a failed mutation: two for an idempotent step (the first
    must give the expected tree, the second change nothing); for one that is not, one,
    and none when the faulted run already left the expected tree."""
    if step.crash_points_idempotent:
        return ("a clean rerun", "a second clean rerun")
    assert step.expect.tree is not None
    done = not compare_tree(
        step.expect.tree, read_tree(workdir), context.root, context.case.tree_ignore
    )
    return () if done else ("a clean rerun",)


def _visible_tree(context: _Context, workdir: Path) -> dict[str, Entry]:
    """The tree as it stands, without what the case ignores."""
    ignore = context.case.tree_ignore
    return {k: v for k, v in read_tree(workdir).items() if not ignored(k, ignore)}


def _observe(
    context: _Context, step: Step, index: int, adapter: Adapter, args: Mapping[str, Any]
) -> list[Any]:
    """The answers of the step's observing calls (an error fails the case)."""
    answers = []
    for observation in step.crash_points_observe:
        observed = bound(Step(observation.op, observation.args, Expectation()), context.captured)
        call_args = substitute(observed.args, context.root)
        response = _call(adapter, observed, call_args, context.root)
        if response.is_error:
            raise context.fail(
                step,
                index,
                f"the observing call {observation.op} answered error {response.error_kind!r}",
                [f"  message: {abridge(response.error_message)}"],
                args,
                check="observing call",
                observed=reply_value(response),
            )
        answers.append(response.result)
    return answers


def _answers_differ(step: Step, answers: list[Any], which: str, root: str) -> list[str]:
    problems = []
    for observation, answer in zip(step.crash_points_observe, answers, strict=True):
        wanted = substitute(getattr(observation, which), root)
        if not json_equal(wanted, answer):
            problems.append(f"{observation.op}: {abridge(answer)}, {which}: {abridge(wanted)}")
    return problems


def _changed_from_before(
    before: Mapping[str, Entry],
    now: Mapping[str, Entry],
    expected: Mapping[str, Any],
    root: str,
) -> list[str]:
    """How ``now`` differs from ``before``, except for what an interrupted writer may leave
    without mixing states: a directory's own mtime (temporary entries come and go), a
    file's own mtime (written back as it was), and directories the expected tree also has
    (made on the way to a file)."""
    wanted = substitute_tree(expected, root)
    wanted_dirs = {p for p, spec in wanted.items() if spec.get("dir")} | {
        "/".join(p.split("/")[:i]) for p in wanted for i in range(1, p.count("/") + 1)
    }

    def tolerated(path: str) -> bool:
        old, new = before.get(path), now.get(path)
        if old is not None and new is not None and new.kind != "dir":
            # A file written back with what it held (a rolled-back page) is as it was.
            return replace(old, mtime_ns=new.mtime_ns) == new
        if new is None or new.kind != "dir":
            return False
        if old is None:
            return path in wanted_dirs
        return old.kind == "dir" and old.mode == new.mode

    left_out = {path for path in set(before) | set(now) if tolerated(path)}
    return tree_changes(
        {path: entry for path, entry in before.items() if path not in left_out},
        {path: entry for path, entry in now.items() if path not in left_out},
    )


def _unprepared(tree: Mapping[str, _T], prepared: tuple[str, ...]) -> dict[str, _T]:
    """``tree`` without the entries a crash point lets stand as before or as after on
    their own (each path matched by itself, never its descendants)."""
    return {
        path: entry
        for path, entry in tree.items()
        if not any(fnmatch.fnmatchcase(path, glob) for glob in prepared)
    }


def _check_before_or_after(
    context: _Context,
    step: Step,
    index: int,
    adapter: Adapter,
    before: Mapping[str, Entry],
    workdir: Path,
    args: Mapping[str, Any],
    what: str,
) -> None:
    """Right after the faulted run the state is the one before the step or the expected
    one after it, never a mix: the tree, and what the step's observing calls answer."""
    assert step.expect.tree is not None
    root = context.root
    now = _visible_tree(context, workdir)
    answers = _observe(context, step, index, adapter, args)
    prepared = step.crash_points_prepared
    expected = _unprepared(step.expect.tree, prepared)
    as_before = _changed_from_before(
        _unprepared(before, prepared), _unprepared(now, prepared), expected, root
    )
    as_before += _answers_differ(step, answers, "before", root)
    as_after = compare_tree(expected, _unprepared(now, prepared), root, context.case.tree_ignore)
    as_after += _answers_differ(step, answers, "after", root)
    if as_before and as_after:
        details = ["  compared with the state before the step:"]
        details += [f"    {p}" for p in as_before[:5]]
        details.append("  compared with the expected state after it:")
        details += [f"    {p}" for p in as_after[:5]]
        raise context.fail(
            step,
            index,
            f"right after {what}, the state is neither the one before the "
            "step nor the expected one after it",
            details,
            args,
            check="mixed state",
            observed=details,
        )


def _check_crash_point(
    context: _Context,
    step: Step,
    index: int,
    adapter: Adapter,
    tree_before: Mapping[str, Entry],
    workdir: Path,
    args: Mapping[str, Any],
    k: int,
    point: Point,
) -> None:
    """The state right after the fault, then the clean reruns and what they leave. A
    process killed at a call cannot remove what it made on the way (a temporary file):
    a path that neither the tree before the step nor the expected one has is left out."""
    expected = step.expect.tree
    assert expected is not None
    context.prefix = f"mutation {k}: "
    if point.response is None:
        debris = _debris(tree_before, _visible_tree(context, workdir), expected, context.root)
        ignore = context.case.tree_ignore + tuple(glob.escape(path) for path in debris)
        context.case = replace(context.case, tree_ignore=ignore)
    faulted = point.response
    if faulted is not None and faulted.error_kind == "internal":
        raise context.fail(
            step,
            index,
            f"{point.what} gave an internal error",
            [f"  message: {abridge(faulted.error_message)}"],
            args,
            check="internal error",
            observed=reply_value(faulted),
        )
    if step.crash_points_all_or_nothing:
        _check_before_or_after(
            context, step, index, adapter, tree_before, workdir, args, point.what
        )
    for attempt in _crash_reruns(context, step, workdir):
        again = _call(adapter, step, args, context.root)
        if again.is_error:
            raise context.fail(
                step,
                index,
                f"after {point.what}, {attempt} answered error {again.error_kind!r}",
                [f"  message: {abridge(again.error_message)}"],
                args,
                check="rerun error",
                observed=reply_value(again),
            )
        failures = _tree_failures(
            context,
            expected,
            workdir,
            f"after {point.what} and {attempt}, the tree differs from an uninterrupted run",
        )
        answers = _observe(context, step, index, adapter, args)
        differ = _answers_differ(step, answers, "after", context.root)
        if differ:
            failures.append(
                _Failed(
                    "observing call",
                    f"after {point.what} and {attempt}, an observing call "
                    "differs from an uninterrupted run",
                    [f"  {problem}" for problem in differ],
                    observed=answers,
                )
            )
        if failures:
            raise context.fail_all(step, index, failures, args)


def _debris(
    before: Mapping[str, Entry], now: Mapping[str, Entry], expected: Mapping[str, Any], root: str
) -> list[str]:
    """The paths made since ``before`` that the expected tree does not hold either (nor
    holds anything below)."""
    wanted = set(substitute_tree(expected, root))
    wanted |= {"/".join(p.split("/")[:i]) for p in wanted for i in range(1, p.count("/") + 1)}
    return [path for path in now if path not in before and path not in wanted]


def crash_point_steps(case: Case) -> list[int]:
    """Indexes of the steps of ``case`` marked ``crash_points``."""
    return [index for index, step in enumerate(case.steps) if step.crash_points]


def run_crash_points(
    case: Case,
    adapter: Adapter,
    index: int,
    base: Path | None = None,
    injector: Injector | None = None,
) -> int:
    """Fail each filesystem mutation of step ``index`` in turn; return how many there were.

    For each k: a fresh tree, the steps before ``index`` as in the case, then the step
    with its k-th mutation failing; right then the state (the tree, and the answers of
    the step's observing calls) must be the one before the step or the expected one after
    it, unless the step is marked not all-or-nothing. Then the step again without a fault
    (the tree must be the expected one) and once more (nothing may change); a step marked
    not idempotent is rerun once, and only when the faulted run did not already leave the
    expected tree. The enumeration ends at the first k beyond the request's mutations.

    ``injector`` fails the mutation: by default the adapter itself, asked by the request
    (``fault-injection``); ``ObservedFaults`` fails or kills it from outside.
    """
    step = case.steps[index]
    if step.expect.tree is None:
        raise CaseFailure(f"{case.id}: a crash_points step needs an expected tree")
    injector = injector or RequestedFaults()
    adapter = injector.adapter_for(adapter)
    k, retries, missed = 1, 0, ""
    while k <= CRASH_POINTS_AT_MOST:
        with case_tree(case, adapter, base) as workdir:
            context = _Context(case, str(workdir), adapter)
            for before in range(index):
                _run_step(context, adapter, workdir, before)
            step = bound(case.steps[index], context.captured)
            args = substitute(step.args, context.root)
            tree_before = _visible_tree(context, workdir)
            try:
                point = injector.point(k, workdir, functools.partial(_faulted, adapter, step, args))
            except Retry as retry:
                retries, missed = retries + 1, str(retry) or missed
                if retries > _CRASH_POINT_RETRIES:
                    # Which calls the request makes changes from run to run (a pool of
                    # threads, random names): the harness cannot place the point, and
                    # says so rather than judge the adapter on a guess.
                    why = missed or "its calls change from run to run"
                    raise HostLimitation(
                        f"host: the observer could not fail mutation {k} of {step.op} alone in "
                        f"{_CRASH_POINT_RETRIES} tries ({why})"
                    ) from None
                continue
            except ObserverFault as exc:
                raise HostLimitation(f"host: the observer failed: {exc}") from exc
            except AdapterFault as exc:
                fault = unsubstitute(str(exc), context.root)
                raise CaseFault(f"{step.op}: adapter fault: {fault}") from exc
            if point is None:
                if k == 1:
                    raise context.fail(
                        step,
                        index,
                        "the step made no filesystem mutation (mutations: 0)",
                        [],
                        args,
                        check="no mutation",
                    )
                return k - 1
            _check_crash_point(context, step, index, adapter, tree_before, workdir, args, k, point)
        k, retries, missed = k + 1, 0, ""
    raise CaseFailure(
        f"{case.id}: the step still attempted {CRASH_POINTS_AT_MOST} mutations or more with "
        f"mutation {CRASH_POINTS_AT_MOST} failing; the protocol bounds a step to "
        f"{CRASH_POINTS_AT_MOST} crash points",
        signature=(f"step {index + 1}: more than {CRASH_POINTS_AT_MOST} mutations",),
    )
