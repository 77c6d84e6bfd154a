"""Races decided in their first round: for a concurrent step or a step with readers, the
observer slows the adapter's processes (its workers' too) where a lost update or a torn
reading happens (``memspec.observe.strace.DELAYS``), for the first quarter second of the step
(its workers start together, its readers before it), so that an implementation without
its lock or its atomic write shows it at once, and a sound one is done after one round."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from memspec.corpus.cases import Step
from memspec.observe.strace import ObserverFault, delayed
from memspec.wire.adapters import Adapter

__all__ = ["widened"]


@contextlib.contextmanager
def widened(adapter: Adapter, step: Step) -> Iterator[None]:
    """The block with the adapter's processes (and its concurrent step's workers') slowed
    where races happen."""
    pids = adapter.processes()
    if step.concurrent is not None:
        for worker in adapter.workers(step.concurrent.workers):
            pids += worker.processes()
    if not pids:
        raise ObserverFault(f"{adapter.description}: no process to observe")
    with delayed(pids):
        yield
