"""Race points: a race step decided by the observer, in one round.

The step is sent twice, traced, with the directory ``swap`` in place: the second send's
calls that look up or use a path below ``swap`` (``observe.trace.PATH_CALLS``) are its
points (the first send may import or warm up what later sends do not). Then, for each
point k, the step is sent again with the tracer holding the k-th call before it is made;
the harness swaps the directory for the link to ``outside`` there and lets the call go
on. An implementation that checked the path and then uses it by path again is caught at
the point between the two, in every run; a sound one is done after one send per point.
Each send is judged as a send of the sampled race is (``run.race``).

A point whose call is not met in a send (a warm-up the counting sends did not show, a
thread pool handing the call to another thread) is counted again and run again, a few
times at most.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memspec.corpus.cases import Race
from memspec.exceptions import CaseFailure
from memspec.observe.strace import Fault, ObserverFault, Tracing, attached
from memspec.observe.trace import PATH_CALLS, Call, in_tree, paths
from memspec.run.race import Arena, arena, escaped_failure, exchange_or_refuse, finish_race
from memspec.wire.adapters import Adapter, Response

__all__ = ["POINT_MISSES", "run_race_points"]

POINT_MISSES = 3
"""How many times the points are counted again after a send that did not meet its
point, before the remaining points are run as counted."""
HOLD_WAIT_S = 30.0
"""How long a traced send may take: the tracer, not the adapter, slows it."""
_POLL_S = 0.0002
_HOW = "the harness swapped"


def run_race_points(
    race: Race,
    workdir: Path,
    adapter: Adapter,
    send: Callable[[int], Response],
    judge: Callable[[int, Response], None],
    fail: Callable[[str, list[str], str], CaseFailure],
    args: Any = None,
) -> int:
    """Decide the race step by its points (``send(i)`` sends it for the i-th time); raise
    CaseFailure as ``run.race.run_race`` does. Return how many sends it took."""
    exchange = exchange_or_refuse()
    made = arena(race, workdir, fail)
    swapped, link = str(made.directory), str(made.link)
    roots = tuple(dict.fromkeys([swapped, os.path.realpath(swapped)]))
    judged = _Judged(made, judge, fail)
    plan: list[Call] = []
    points = 0
    last: Call | None = None
    timeout, adapter.timeout_s = adapter.timeout_s, max(adapter.timeout_s, HOLD_WAIT_S)
    try:
        for _ in range(2):
            plan = _count(adapter, lambda: judged.take(send, judged.sent), roots)
            if judged.changes:
                break
        k, misses = 0, 0
        while not judged.changes and k < len(plan) and judged.sent < race.repeat:
            target = plan[k]
            held = _held_send(
                adapter,
                target,
                lambda: judged.take(send, judged.sent),
                lambda: exchange(link, swapped),
            )
            _put_back(made, exchange)
            points, last = points + 1, held
            met = held is not None and any(in_tree(path, roots) for path in paths(held))
            if not met and misses < POINT_MISSES and not judged.changes:
                misses += 1
                plan = _count(adapter, lambda: judged.take(send, judged.sent), roots)
                continue
            k += 1
    finally:
        adapter.timeout_s = timeout
        _put_back(made, exchange)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(made.link)
    note = f" (before each in turn of the {len(plan)} calls of a send that name a path there"
    if judged.changes and last is not None:
        note += f", at {last.spec().replace(str(workdir), '${ROOT}')}"
    note += ")"
    finish_race(made, judged.changes, judged.refused, judged.sent, _HOW, args, fail, note)
    return judged.sent


class _Judged:
    """The sends so far, each judged as it comes."""

    def __init__(
        self,
        made: Arena,
        judge: Callable[[int, Response], None],
        fail: Callable[[str, list[str], str], CaseFailure],
    ) -> None:
        self.made, self.judge, self.fail = made, judge, fail
        self.sent = 0
        self.changes: list[str] = []
        self.refused: CaseFailure | None = None

    def take(self, send: Callable[[int], Response], iteration: int) -> Response:
        reply = send(iteration)
        self.sent += 1
        self.changes = self.changes or self.made.escaped()
        if self.changes:
            return reply
        shown = self.made.shown(reply)
        if shown is not None:
            raise escaped_failure(self.made, reply, shown, self.sent, _HOW, self.fail)
        if self.refused is None:
            try:
                self.judge(iteration, reply)
            except CaseFailure as exc:
                # Every point is still run: one that escapes fails the case as escaped.
                self.refused = CaseFailure(
                    f"{exc}\n  (send {self.sent}, the harness holding a call of it)",
                    exc.signature,
                    exc.values,
                )
        return reply


def _count(adapter: Adapter, send: Callable[[], Response], roots: tuple[str, ...]) -> list[Call]:
    """The calls of one send that look up or use a path below ``roots``."""
    with _tracer(adapter, None) as tracing:
        send()
    return [call for call in tracing.calls if any(in_tree(path, roots) for path in paths(call))]


def _held_send(
    adapter: Adapter,
    target: Call,
    send: Callable[[], Response],
    swap: Callable[[], None],
) -> Call | None:
    """Send with the tracer holding ``target`` (by its name and its ordinal in its
    thread), swap while it is held, then let it go on; return the call held (None when
    the send ended without one)."""
    outcome: list[BaseException] = []

    def sending() -> None:
        try:
            send()
        except BaseException as exc:  # raised again in the caller's thread
            outcome.append(exc)

    held: Call | None = None
    with _tracer(adapter, Fault(target, "hold")) as tracing:
        sender = threading.Thread(target=sending, name="memspec-race-point", daemon=True)
        sender.start()
        while sender.is_alive():
            held = _held(tracing, target)
            if held is not None:
                swap()
                break
            time.sleep(_POLL_S)
        tracing.detach()
        sender.join()
    if outcome:
        raise outcome[0]
    return held


def _held(tracing: Tracing, target: Call) -> Call | None:
    """The call the tracer holds, once it has entered it."""
    return next(
        (
            call
            for call in tracing.entered()
            if call.name == target.name and call.ordinal == target.ordinal
        ),
        None,
    )


def _tracer(adapter: Adapter, fault: Fault | None) -> contextlib.AbstractContextManager[Tracing]:
    pids = adapter.processes()
    if not pids:
        raise ObserverFault(f"{adapter.description}: no process to observe")
    return attached(pids, fault, traced=PATH_CALLS)


def _put_back(made: Arena, exchange: Callable[[str, str], None]) -> None:
    """The directory back in its place, when the link's name holds it (and the link in
    its place, unless the send removed it)."""
    if os.path.islink(made.link) or not os.path.lexists(made.link):
        return
    if os.path.lexists(made.directory):
        exchange(str(made.link), str(made.directory))
    else:
        os.rename(made.link, made.directory)
