"""Running one case against an adapter and judging what came back."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NoReturn

from memspec.corpus.cases import Case, Expectation, Step
from memspec.corpus.compare import MEMBER_ORDER, json_equal, member_order_differences
from memspec.corpus.op_schemas import op_schema
from memspec.corpus.tokens import for_worker, substitute, substitute_tree, unsubstitute
from memspec.exceptions import AdapterFault, CaseFailure, CaseFault, SetupError
from memspec.judge.messages import abridge, describe_difference
from memspec.judge.model_text import host_path_leaks
from memspec.run.captures import bound, captured, pins_nothing
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
from memspec.wire.adapters import Adapter, Response

__all__ = [
    "CRASH_POINTS_AT_MOST",
    "case_tree",
    "crash_point_steps",
    "not_claimed_reason",
    "run_case",
    "run_crash_points",
]

CRASH_POINTS_AT_MOST = 10_000


def not_claimed_reason(case: Case, adapter: Adapter) -> str | None:
    """Why the adapter or this host cannot take the case, or None when it can."""
    handshake = adapter.handshake
    if case.profile not in handshake.profiles:
        return f"not claimed: profile {case.profile!r}"
    missing = [need for need in case.requires if need not in handshake.capabilities]
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


class _Context:
    """What a failure message needs to know about the case being run."""

    def __init__(self, case: Case, root: str) -> None:
        self.case = case
        self.root = root
        self.captured: dict[str, str] = {}
        """What the steps so far captured, by name."""

    def where(self, step: Step, index: int) -> str:
        steps = len(self.case.steps)
        return step.op + (f" (step {index + 1} of {steps})" if steps > 1 else "")

    def fail(
        self, step: Step, index: int, headline: str, details: list[str], args: Mapping[str, Any]
    ) -> CaseFailure:
        lines = [
            f"{self.where(step, index)}: {headline}",
            f"  args: {unsubstitute(abridge(dict(args), 300), self.root)}",
        ]
        if self.captured:
            lines.append(f"  captured: {abridge(self.captured, 300)}")
        lines += [unsubstitute(line, self.root) for line in details]
        lines.append(f"  see: memspec explain {self.case.id}")
        return CaseFailure("\n".join(lines))


def _judge(
    context: _Context,
    step: Step,
    index: int,
    response: Response,
    expected: Expectation,
    args: Mapping[str, Any],
) -> None:
    root = context.root
    leaks = [] if response.is_error else host_path_leaks(step.op, response.result, root)
    if leaks:
        raise context.fail(
            step,
            index,
            "text sent to the model holds a host path of the case's tree",
            [f"  text:     {abridge(leaks[0])}"],
            args,
        )
    if expected.error_kind is not None:
        if not response.is_error:
            raise context.fail(
                step,
                index,
                f"expected error {expected.error_kind!r}, got a result",
                [f"  actual:   {abridge(response.result)}"],
                args,
            )
        if response.error_kind != expected.error_kind:
            raise context.fail(
                step,
                index,
                f"expected error {expected.error_kind!r}, got error {response.error_kind!r}",
                [f"  message:  {abridge(response.error_message)}"],
                args,
            )
        wanted = expected.error_message
        if wanted is not None and response.error_message != substitute(wanted, root):
            raise context.fail(
                step,
                index,
                "wrong error message",
                describe_difference(substitute(wanted, root), response.error_message),
                args,
            )
        return
    if response.is_error:
        raise context.fail(
            step,
            index,
            f"expected a result, got error {response.error_kind!r}",
            [
                f"  message:  {abridge(response.error_message)}",
                f"  expected: {abridge(substitute(expected.result, root))}",
            ],
            args,
        )
    wanted = substitute(expected.result, root)
    if not json_equal(wanted, response.result):
        raise context.fail(
            step, index, "wrong result", describe_difference(wanted, response.result), args
        )
    pointers = (op_schema(step.op) or {}).get(MEMBER_ORDER, [])
    misordered = member_order_differences(wanted, response.result, pointers)
    if misordered:
        raise context.fail(
            step, index, "members out of order", [f"  {line}" for line in misordered], args
        )


def _judge_all(
    context: _Context, step: Step, index: int, responses: list[Response], args: Mapping[str, Any]
) -> None:
    expected = step.expect
    if expected.results is None:
        for response in responses:
            _judge(context, step, index, response, expected, args)
        return
    errors = [r for r in responses if r.is_error]
    if errors:
        raise context.fail(
            step,
            index,
            f"{len(errors)} of {len(responses)} concurrent replies are errors",
            [f"  first: {errors[0].error_kind}: {abridge(errors[0].error_message)}"],
            args,
        )
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
    if unexpected or remaining:
        details = []
        if unexpected:
            details.append(
                f"  {len(unexpected)} unexpected result(s), e.g. {abridge(unexpected[0])}"
            )
        if remaining:
            details.append(
                f"  {len(remaining)} expected result(s) missing, e.g. {abridge(remaining[0])}"
            )
        raise context.fail(
            step, index, "the concurrent replies differ from the expected multiset", details, args
        )


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


def _check_tree(
    context: _Context,
    step: Step,
    index: int,
    expected: Mapping[str, Any],
    workdir: Path,
    args: Mapping[str, Any],
    headline: str,
) -> None:
    problems = compare_tree(expected, read_tree(workdir), context.root, context.case.tree_ignore)
    if problems:
        details = [f"  {problem}" for problem in problems[:10]]
        if len(problems) > 10:
            details.append(f"  ... and {len(problems) - 10} more")
        raise context.fail(step, index, headline, details, args)


def _raise_problem(
    context: _Context,
    step: Step,
    index: int,
    problem: tuple[str, list[str]] | None,
    args: Mapping[str, Any],
) -> None:
    if problem is not None:
        raise context.fail(step, index, problem[0], problem[1], args)


def _run_step(context: _Context, adapter: Adapter, workdir: Path, index: int) -> None:
    step = bound(context.case.steps[index], context.captured)
    args = substitute(step.args, context.root)
    if step.race is not None:
        _run_race_step(context, step, adapter, workdir, index, args)
    else:
        with watching(step.readers, workdir) as watch:
            if step.concurrent is not None:
                responses = _run_concurrent(adapter, step, args, context.root)
            elif step.hold_lock is not None:
                held = run_while_held(
                    step.hold_lock,
                    workdir,
                    lambda: _call(adapter, step, args, context.root),
                    context.case.tree_ignore,
                )
                _raise_problem(context, step, index, held.problem, args)
                responses = [held.response]
            else:
                responses = [_call(adapter, step, args, context.root)]
        _raise_problem(context, step, index, watch.problem() if watch else None, args)
        if step.concurrent is not None:
            _judge_all(context, step, index, responses, args)
        else:
            if not pins_nothing(step):
                _judge(context, step, index, responses[0], step.expect, args)
            context.captured.update(_captured(context, step, index, responses[0], args))
    if step.expect.tree is not None:
        _check_tree(
            context, step, index, step.expect.tree, workdir, args, "the tree after the step differs"
        )


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
        return context.fail(step, index, headline, details, args)

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
        raise context.fail(step, index, headline, details, args)

    return captured(step, response, fail)


def run_case(case: Case, adapter: Adapter, base: Path | None = None) -> None:
    """Materialise the case's tree, run its steps, raise CaseFailure/CaseFault on a miss."""
    with case_tree(case, adapter, base) as workdir:
        context = _Context(case, str(workdir))
        for index in range(len(case.steps)):
            _run_step(context, adapter, workdir, index)


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
    without mixing states: a directory's own mtime (temporary entries come and go), and
    directories the expected tree also has (made on the way to a file)."""
    wanted = substitute_tree(expected, root)
    wanted_dirs = {p for p, spec in wanted.items() if spec.get("dir")} | {
        "/".join(p.split("/")[:i]) for p in wanted for i in range(1, p.count("/") + 1)
    }

    def tolerated(path: str) -> bool:
        old, new = before.get(path), now.get(path)
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


def _check_before_or_after(
    context: _Context,
    step: Step,
    index: int,
    adapter: Adapter,
    before: Mapping[str, Entry],
    workdir: Path,
    args: Mapping[str, Any],
    k: int,
) -> None:
    """Right after the faulted run the state is the one before the step or the expected
    one after it, never a mix: the tree, and what the step's observing calls answer."""
    assert step.expect.tree is not None
    root = context.root
    now = _visible_tree(context, workdir)
    answers = _observe(context, step, index, adapter, args)
    as_before = _changed_from_before(before, now, step.expect.tree, root)
    as_before += _answers_differ(step, answers, "before", root)
    as_after = compare_tree(step.expect.tree, now, root, context.case.tree_ignore)
    as_after += _answers_differ(step, answers, "after", root)
    if as_before and as_after:
        details = ["  compared with the state before the step:"]
        details += [f"    {p}" for p in as_before[:5]]
        details.append("  compared with the expected state after it:")
        details += [f"    {p}" for p in as_after[:5]]
        raise context.fail(
            step,
            index,
            f"right after failing mutation {k}, the state is neither the one before the "
            "step nor the expected one after it",
            details,
            args,
        )


def crash_point_steps(case: Case) -> list[int]:
    """Indexes of the steps of ``case`` marked ``crash_points``."""
    return [index for index, step in enumerate(case.steps) if step.crash_points]


def run_crash_points(case: Case, adapter: Adapter, index: int, base: Path | None = None) -> int:
    """Fail each filesystem mutation of step ``index`` in turn; return how many there were.

    For each k: a fresh tree, the steps before ``index`` as in the case, then the step
    with its k-th mutation failing; right then the state (the tree, and the answers of
    the step's observing calls) must be the one before the step or the expected one after
    it, unless the step is marked not all-or-nothing. Then the step again without a fault
    (the tree must be the expected one) and once more (nothing may change); a step marked
    not idempotent is rerun once, and only when the faulted run did not already leave the
    expected tree. The first reply that attempted fewer than k mutations ends the
    enumeration.
    """
    step = case.steps[index]
    if step.expect.tree is None:
        raise CaseFailure(f"{case.id}: a crash_points step needs an expected tree")
    for k in range(1, CRASH_POINTS_AT_MOST + 1):
        with case_tree(case, adapter, base) as workdir:
            context = _Context(case, str(workdir))
            for before in range(index):
                _run_step(context, adapter, workdir, before)
            step = bound(case.steps[index], context.captured)
            expected = step.expect.tree
            assert expected is not None
            args = substitute(step.args, context.root)
            tree_before = _visible_tree(context, workdir)
            faulted = _call(adapter, step, args, context.root, fail_mutation=k)
            assert faulted.mutations is not None
            if faulted.mutations < k:
                if k == 1:
                    raise context.fail(
                        step, index, "the step made no filesystem mutation (mutations: 0)", [], args
                    )
                return k - 1
            if faulted.error_kind == "internal":
                raise context.fail(
                    step,
                    index,
                    f"failing mutation {k} gave an internal error",
                    [f"  message: {abridge(faulted.error_message)}"],
                    args,
                )
            if step.crash_points_all_or_nothing:
                _check_before_or_after(context, step, index, adapter, tree_before, workdir, args, k)
            for attempt in _crash_reruns(context, step, workdir):
                again = _call(adapter, step, args, context.root)
                if again.is_error:
                    raise context.fail(
                        step,
                        index,
                        f"after failing mutation {k}, "
                        f"{attempt} answered error {again.error_kind!r}",
                        [f"  message: {abridge(again.error_message)}"],
                        args,
                    )
                _check_tree(
                    context,
                    step,
                    index,
                    expected,
                    workdir,
                    args,
                    f"after failing mutation {k} and {attempt}, the tree differs "
                    "from an uninterrupted run",
                )
                answers = _observe(context, step, index, adapter, args)
                differ = _answers_differ(step, answers, "after", context.root)
                if differ:
                    raise context.fail(
                        step,
                        index,
                        f"after failing mutation {k} and {attempt}, an observing call "
                        "differs from an uninterrupted run",
                        [f"  {problem}" for problem in differ],
                        args,
                    )
    raise CaseFailure(f"{case.id}: more than {CRASH_POINTS_AT_MOST} mutations")
