"""Who fails the k-th mutation of a crash-points step: the adapter itself, asked by the
request's ``fault`` member (``fault-injection``), or the harness, by the observer.

The observer first runs the step once, traced, to list the mutating calls the request
makes in the case's tree (a counting pass, in a tree of its own), then fails the k-th of
them in a fresh tree: it attaches to the adapter's processes for the request alone, so
that the ordinal it injects at counts from the request's start, and detaches after the
reply. A call counted in one run and not met in the next (a lazy import writing a cache
the first time, a thread pool handing the write to another thread) misses: the trace
says so, and the point is counted again and run again.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from memspec.exceptions import AdapterCrashed, MemspecError
from memspec.observe.served import served_spec
from memspec.observe.strace import Fault, ObserverFault, Tracing, attached, threads
from memspec.observe.trace import Call, paths, tree_mutations
from memspec.wire.adapters import Adapter, Response

__all__ = [
    "FAULT_MODELS",
    "FaultedCall",
    "Injector",
    "ObservedFaults",
    "Point",
    "RequestedFaults",
    "Retry",
    "close_observed_adapters",
    "observed_adapter",
]

FAULT_MODELS = ("error", "kill")
"""``error``: the call fails with EIO; ``kill``: the process is killed (SIGKILL) there."""

FaultedCall = Callable[[int | None], Response]
"""The step's request, given the mutation the adapter is asked to fail (or None)."""


OBSERVED_TIMEOUT_S = 30.0


class Retry(Exception):
    """The point could not be run as planned in this tree: run it again in a fresh one."""


@dataclass(frozen=True)
class Point:
    """The faulted request: its reply (None when the process was killed), and how the
    fault is named in a failure (``failing mutation 3``, ``killing at mutation 3 (write)``)."""

    response: Response | None
    what: str


class Injector(Protocol):
    """Fails the k-th mutation of a request."""

    model: str

    def adapter_for(self, adapter: Adapter) -> Adapter:
        """The adapter the crash points of a case are run through."""
        ...

    def point(self, k: int, workdir: Path, call: FaultedCall) -> Point | None:
        """The request with its k-th mutation failed; None when it has fewer than k."""
        ...


class RequestedFaults:
    """The adapter fails the mutation itself (``fault-injection``)."""

    model = "error"

    def adapter_for(self, adapter: Adapter) -> Adapter:
        return adapter

    def point(self, k: int, workdir: Path, call: FaultedCall) -> Point | None:
        response = call(k)
        assert response.mutations is not None
        return None if response.mutations < k else Point(response, f"failing mutation {k}")


_SERVED: dict[tuple[str, tuple[int, int] | None], Adapter] = {}


def observed_adapter(adapter: Adapter) -> Adapter:
    """``adapter`` itself when it runs as a process; an in-process one served from a child
    process (one per run, kept for every case), which the observer can trace."""
    if adapter.spec.startswith("cmd:"):
        return adapter
    key = (adapter.spec, adapter.tree_owner)
    if key not in _SERVED:
        _SERVED[key] = Adapter(
            served_spec(adapter.spec),
            adapter.timeout_s,
            adapter.tree_owner,
            adapter.max_reply_bytes,
            adapter.start_timeout_s,
        )
    return _SERVED[key]


def close_observed_adapters() -> None:
    """Stop the child processes that serve in-process adapters (``observed_adapter``)."""
    while _SERVED:
        _, served = _SERVED.popitem()
        with contextlib.suppress(MemspecError):
            served.close()


class ObservedFaults:
    """The harness fails (or kills at) the mutation, through the observer."""

    def __init__(self, model: str = "error") -> None:
        self.model = model
        self._plan: list[Call] | None = None
        self._calls: list[Call] = []
        self._roots: tuple[str, ...] = ()
        self._owners: dict[int, int] = {}
        """The place, among the adapter's processes, of the process of each thread."""
        self._adapter: Adapter | None = None
        self._pinned = False
        """Whether faults name the paths of their call: strace counts ``when`` in each
        thread alone, so that a call counted in one thread (a worker thread's write)
        also fails its namesake in another (the reply's write) unless pinned to paths."""
        self._collateral = 0

    def adapter_for(self, adapter: Adapter) -> Adapter:
        self._adapter = observed_adapter(adapter)
        return self._adapter

    def point(self, k: int, workdir: Path, call: FaultedCall) -> Point | None:
        adapter = self._adapter
        assert adapter is not None
        roots = tuple(dict.fromkeys([str(workdir), os.path.realpath(workdir)]))
        if self._plan is None:
            with _observing(adapter, None) as tracing:
                call(None)
            self._plan = tree_mutations(tracing.calls, roots)
            self._calls, self._roots = tracing.calls, roots
            # Which of the adapter's processes made each call, by its place among them:
            # a process killed at a point comes back as another with the same place.
            # A thread the request started and left running (a pool's worker, started
            # at its first call) is one of its process's threads from now on.
            order = adapter.processes()
            owners = {tid: pid for pid in order for tid in threads(pid)} | tracing.owners
            self._owners = {tid: order.index(pid) for tid, pid in owners.items() if pid in order}
            raise Retry  # this tree now holds the step's result
        if k > len(self._plan):
            return None
        target = self._plan[k - 1]
        response: Response | None = None
        crashed: AdapterCrashed | None = None
        owner = self._owners.get(target.tid)
        with _observing(adapter, self._fault(target, roots), owner, target.tid) as tracing:
            try:
                response = call(None)
            except AdapterCrashed as exc:
                crashed = exc
        hit = [c for c in tree_mutations(tracing.calls, roots) if c.injected]
        # A namesake failed in another thread matters when it took the adapter down (the
        # reply's write); one in a helper process the request started is left to it.
        elsewhere = crashed is not None and any(c.injected and c not in hit for c in tracing.calls)
        # Threads of a pool doing the same call each count it: more than one may fail.
        if not hit or elsewhere:
            self._plan = None  # counted anew, then run again
            self._collateral += bool(elsewhere)
            pinned, self._pinned = self._pinned, self._collateral >= 2  # threads, not a stale count
            if elsewhere:
                raise Retry(f"a {target.name} of another thread, at the same count, failed too")
            if pinned:
                raise Retry(f"the paths of its {target.name} change from run to run")
            raise Retry(f"the {target.name} counted was not met")
        if crashed is not None and self.model != "kill":
            raise crashed
        if (response is None) != (self.model == "kill"):
            self._plan = None
            raise Retry("the process was killed elsewhere, or not at the call")
        verb = "failing" if self.model == "error" else "killing the adapter at"
        return Point(response, f"{verb} mutation {k} ({target.name})")

    def _fault(self, target: Call, roots: tuple[str, ...]) -> Fault:
        """The fault at ``target``, pinned to its paths (moved to this run's tree) when
        the counts of every thread are not enough."""
        if not self._pinned:
            return Fault(target, self.model)
        named = set(paths(target))
        index = next(i for i, c in enumerate(self._calls) if c is target)
        ordinal = sum(
            1
            for c in self._calls[: index + 1]
            if c.tid == target.tid and c.name == target.name and named & set(paths(c))
        )
        moved = tuple(sorted({_moved(path, self._roots, roots) for path in named}))
        return Fault(target, self.model, moved, ordinal)


def _moved(path: str, old: tuple[str, ...], new: tuple[str, ...]) -> str:
    """``path`` under the tree ``old`` as the same path under ``new``."""
    for before, after in zip(old, new, strict=True):
        if path == before or path.startswith(before + "/"):
            return after + path[len(before) :]
    return path


@contextlib.contextmanager
def _observing(
    adapter: Adapter, fault: Fault | None, owner: int | None = None, tid: int = 0
) -> Iterator[Tracing]:
    """The tracer on the adapter's processes and all they start, or on the threads of the
    ``owner``-th of them alone: a helper process it starts (a ``git``) then keeps its own
    calls, which strace would count alike. Of those threads, the thread ``tid`` alone when
    it is still there (a pool's worker, which lives on between requests): another thread's
    namesake call (the reply's write) is then never failed. A traced request may take
    ``OBSERVED_TIMEOUT_S``: the tracer, not the adapter, slows it."""
    pids = adapter.processes()
    if not pids:
        raise ObserverFault(f"{adapter.description}: no process to observe")
    if owner is not None and owner < len(pids):
        tids = threads(pids[owner])
        tracer = attached((tid,) if tid in tids else tids, fault, follow=False)
    else:
        tracer = attached(pids, fault)
    timeout, adapter.timeout_s = adapter.timeout_s, max(adapter.timeout_s, OBSERVED_TIMEOUT_S)
    try:
        with tracer as tracing:
            yield tracing
    finally:
        adapter.timeout_s = timeout
