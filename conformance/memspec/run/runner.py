"""Running one case against an adapter and judging what came back."""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import glob
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
from memspec.corpus.op_schemas import op_schema
from memspec.corpus.tokens import for_worker, substitute, substitute_tree, unsubstitute
from memspec.exceptions import AdapterFault, CaseFailure, CaseFault, SetupError
from memspec.judge.messages import abridge, describe_difference
from memspec.judge.model_text import host_path_leaks
from memspec.observe.strace import ObserverFault
from memspec.run.captures import bound, captured, pins_nothing
from memspec.run.crash_faults import Injector, Point, RequestedFaults, Retry, observed_adapter
from memspec.run.held_lock import run_while_held
from memspec.run.race import judge_any, run_race, with_iteration
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

__all__ = [
    "CONCURRENCY_ROUNDS",
    "CONCURRENCY_SECONDS",
    "CRASH_POINTS_AT_MOST",
    "case_tree",
    "concurrency_rounds",
    "crash_point_steps",
    "not_claimed_reason",
    "run_case",
    "run_crash_points",
]

CRASH_POINTS_AT_MOST = 10_000
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


@dataclass(frozen=True)
class _Failed:
    """One check of a step that failed: its name (what the signature lists), the
    headline and the lines that show its difference."""

    check: str
    headline: str
    details: list[str]


class _Context:
    """What a failure message needs to know about the case being run."""

    def __init__(self, case: Case, root: str) -> None:
        self.case = case
        self.root = root
        self.captured: dict[str, str] = {}
        """What the steps so far captured, by name."""
        self.prefix = ""
        """Put before the check names of the signature (a crash point's number)."""
        self.widen = False
        """Whether the observer slows a step whose verdict hangs on interleaving."""

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
    ) -> CaseFailure:
        return self.fail_all(step, index, [_Failed(check, headline, details)], args)

    def fail_all(
        self, step: Step, index: int, failures: list[_Failed], args: Mapping[str, Any]
    ) -> CaseFailure:
        """One failure for every check of the step that failed, each with its difference;
        the signature lists the checks in the same order."""
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
        signature = tuple(
            f"step {index + 1}: {self.prefix}{token}"
            for failure in failures
            for token in _tokens(failure)
        )
        return CaseFailure("\n".join(lines), signature=signature)


def _tokens(failure: _Failed) -> list[str]:
    """The signature entries of one failed check: its name, and for a tree the path and
    what differs there (never a host path or a value that changes from run to run)."""
    if failure.check != "tree":
        return [failure.check]
    tokens = []
    for line in failure.details:
        text = line.strip()
        if not text or text.startswith("... and ") or line.startswith("    "):
            continue
        path, _, what = text.partition(": ")
        tokens.append(f"tree {path} {_tree_difference(what)}")
    return tokens or ["tree"]


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
    failures = []
    leaks = [] if response.is_error else host_path_leaks(step.op, response.result, root)
    if leaks:
        failures.append(
            _Failed(
                "host path",
                "text sent to the model holds a host path of the case's tree",
                [f"  text:     {abridge(leaks[0])}"],
            )
        )
    if expected.error_kind is not None:
        if not response.is_error:
            failures.append(
                _Failed(
                    "result",
                    f"expected error {expected.error_kind!r}, got a result",
                    [f"  actual:   {abridge(response.result)}"],
                )
            )
        elif response.error_kind != expected.error_kind:
            failures.append(
                _Failed(
                    "error kind",
                    f"expected error {expected.error_kind!r}, got error {response.error_kind!r}",
                    [f"  message:  {abridge(response.error_message)}"],
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
            )
        )
        return failures
    wanted = substitute(expected.result, root)
    if not json_equal(wanted, response.result):
        failures.append(
            _Failed("result", "wrong result", describe_difference(wanted, response.result))
        )
        return failures
    pointers = (op_schema(step.op) or {}).get(MEMBER_ORDER, [])
    misordered = member_order_differences(wanted, response.result, pointers)
    if misordered:
        failures.append(
            _Failed("member order", "members out of order", [f"  {line}" for line in misordered])
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

    with scratch_folder(adapter, base=base, fill=build) as workdir:
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
    context: _Context, expected: Mapping[str, Any], workdir: Path, headline: str
) -> list[_Failed]:
    problems = compare_tree(expected, read_tree(workdir), context.root, context.case.tree_ignore)
    if not problems:
        return []
    details = [f"  {problem}" for problem in problems[:10]]
    if len(problems) > 10:
        details.append(f"  ... and {len(problems) - 10} more")
    return [_Failed("tree", headline, details)]


def _problem(check: str, problem: tuple[str, list[str]] | None) -> list[_Failed]:
    return [] if problem is None else [_Failed(check, problem[0], problem[1])]


def _run_step(context: _Context, adapter: Adapter, workdir: Path, index: int) -> None:
    """Run one step and every check it has (the readers, a held lock, the reply, the
    tree); raise one CaseFailure listing each check that failed."""
    step = bound(context.case.steps[index], context.captured)
    args = substitute(step.args, context.root)
    failures: list[_Failed] = []
    if step.race is not None:
        _run_race_step(context, step, adapter, workdir, index, args)
    else:
        with watching(step.readers, workdir) as watch, _widened(context, adapter, step):
            if step.concurrent is not None:
                responses = _run_concurrent(adapter, step, args, context.root)
            elif step.hold_lock is not None:
                held = run_while_held(
                    step.hold_lock,
                    workdir,
                    lambda: _call(adapter, step, args, context.root),
                    context.case.tree_ignore,
                )
                failures += _problem("held lock", held.problem)
                responses = [held.response]
            else:
                responses = [_call(adapter, step, args, context.root)]
        failures += _problem("readers", watch.problem() if watch else None)
        if step.concurrent is not None:
            failures += _concurrent_failures(context, step, responses)
        elif not pins_nothing(step):
            failures += _reply_failures(context, step, responses[0], step.expect)
    if step.expect.tree is not None:
        failures += _tree_failures(
            context, step.expect.tree, workdir, "the tree after the step differs"
        )
    if failures:
        raise context.fail_all(step, index, failures, args)
    if step.race is None and step.concurrent is None:
        context.captured.update(_captured(context, step, index, responses[0], args))


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

    def fail(headline: str, details: list[str]) -> CaseFailure:
        # Whether a send that follows the link gives itself away by what it changed
        # outside or by its reply is down to timing: the signature says only "race".
        return context.fail(step, index, headline, details, args, check="race")

    run_race(
        step.race,
        workdir,
        lambda i: _call(adapter, step, for_worker(args, 0, i), context.root),
        lambda i, response: judge_any(
            response,
            tuple(with_iteration(e, i) for e in alternatives),
            lambda r, e: _judge(context, step, index, r, e, for_worker(args, 0, i)),
            fail,
        ),
        fail,
    )


def _captured(
    context: _Context, step: Step, index: int, response: Response, args: Mapping[str, Any]
) -> dict[str, str]:
    def fail(headline: str, details: list[str]) -> NoReturn:
        raise context.fail(step, index, headline, details, args, check="capture")

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
    once, through a process the observer slows where races happen (``run.widened``)."""
    rounds = concurrency_rounds(case)
    widen = observed and rounds > 1
    if widen:
        adapter, rounds = observed_adapter(adapter), 1
    deadline = time.monotonic() + CONCURRENCY_SECONDS
    for number in range(1, rounds + 1):
        try:
            with case_tree(case, adapter, base) as workdir:
                context = _Context(case, str(workdir))
                context.widen = widen
                for index in range(len(case.steps)):
                    _run_step(context, adapter, workdir, index)
        except ObserverFault as exc:
            raise CaseFault(f"the observer failed: {exc}") from exc
        except CaseFailure as exc:
            if number == 1:
                raise
            raise CaseFailure(
                f"{exc}\n  (round {number}: the {number - 1} before passed)", exc.signature
            ) from exc
        if time.monotonic() >= deadline:
            return


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
    k, retries = 1, 0
    while k <= CRASH_POINTS_AT_MOST:
        with case_tree(case, adapter, base) as workdir:
            context = _Context(case, str(workdir))
            for before in range(index):
                _run_step(context, adapter, workdir, before)
            step = bound(case.steps[index], context.captured)
            args = substitute(step.args, context.root)
            tree_before = _visible_tree(context, workdir)
            try:
                point = injector.point(k, workdir, functools.partial(_faulted, adapter, step, args))
            except Retry:
                retries += 1
                if retries > _CRASH_POINT_RETRIES:
                    raise CaseFault(
                        f"{step.op}: the observer could not fail mutation {k} in "
                        f"{_CRASH_POINT_RETRIES} tries (the request's calls change from run to run)"
                    ) from None
                continue
            except ObserverFault as exc:
                raise CaseFault(f"{step.op}: the observer failed: {exc}") from exc
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
        k, retries = k + 1, 0
    raise CaseFailure(f"{case.id}: more than {CRASH_POINTS_AT_MOST} mutations")
