"""``turnlog.manager_script``: drive a Manager with scripted events, waiters on real threads."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from memref.errors import OpError
from memref.turnlog._manager import Manager

__all__ = ["MAX_EVENTS", "MAX_WAITERS", "run_script"]

MAX_EVENTS = 1000
MAX_WAITERS = 64
DEFAULT_SETTLE_MS = 200
MAX_SETTLE_MS = 5000
# How long a new waiter may take to either return or block: a broken barrier, not a slow one.
_START_TIMEOUT_S = 10.0


@dataclass
class _Waiter:
    name: str
    project: str
    settled: threading.Event = field(default_factory=threading.Event)
    returned: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None


def _bad(message: str) -> OpError:
    return OpError("invalid-args", f"argument 'script': {message}")


def _parse(script: Any) -> list[tuple[str, str, str]]:
    if not isinstance(script, list):
        raise _bad("must be a list of events")
    if len(script) > MAX_EVENTS:
        raise _bad(f"at most {MAX_EVENTS} events")
    events: list[tuple[str, str, str]] = []
    names: set[str] = set()
    for index, event in enumerate(script):
        if not isinstance(event, dict):
            raise _bad(f"event {index} must be an object")
        action = event.get("do")
        if action == "check":
            if set(event) != {"do"}:
                raise _bad(f"event {index}: check takes no other member")
            events.append(("check", "", ""))
            continue
        if action not in ("begin", "done", "wait"):
            raise _bad(f"event {index}: 'do' must be begin, done, wait or check")
        project = event.get("project")
        if not isinstance(project, str):
            raise _bad(f"event {index}: 'project' must be a string")
        name = ""
        allowed = {"do", "project"}
        if action == "wait":
            allowed.add("as")
            name = event.get("as")  # type: ignore[assignment]
            if not isinstance(name, str) or not name:
                raise _bad(f"event {index}: a wait needs a non-empty 'as' name")
            if name in names:
                raise _bad(f"event {index}: waiter name {name!r} is used twice")
            names.add(name)
            if len(names) > MAX_WAITERS:
                raise _bad(f"at most {MAX_WAITERS} waiters")
        if not set(event) <= allowed:
            raise _bad(f"event {index}: unknown member {sorted(set(event) - allowed)[0]!r}")
        events.append((action, project, name))
    return events


def run_script(script: Any, settle_ms: int = DEFAULT_SETTLE_MS) -> dict[str, Any]:
    """Run the events in order; report, at each check, which waiters have returned."""
    events = _parse(script)
    if not 0 <= settle_ms <= MAX_SETTLE_MS:
        raise OpError("invalid-args", f"argument 'settle_ms' must be 0 to {MAX_SETTLE_MS}")
    manager = Manager()
    waiters: list[_Waiter] = []
    checks: list[list[str]] = []
    try:
        for action, project, name in events:
            if action == "begin":
                manager.begin(project)
            elif action == "done":
                manager.done(project)
                if manager.inflight(project) == 0:
                    # Let the released waiters return before a later begin can catch them.
                    for waiter in waiters:
                        if waiter.project == project:
                            waiter.returned.wait(_START_TIMEOUT_S)
            elif action == "wait":
                waiter = _Waiter(name, project)
                waiter.thread = threading.Thread(target=_wait, args=(manager, waiter), daemon=True)
                waiters.append(waiter)
                waiter.thread.start()
                if not waiter.settled.wait(_START_TIMEOUT_S):
                    raise OpError("internal", f"waiter {name!r} neither returned nor blocked")
            else:
                checks.append(_returned(waiters))
        blocked = sorted(w.name for w in waiters if not w.returned.is_set())
    finally:
        _release(manager, waiters)
    return {"checks": checks, "blocked_at_end": blocked}


def _wait(manager: Manager, waiter: _Waiter) -> None:
    manager.wait(waiter.project, on_block=waiter.settled.set)
    waiter.returned.set()
    waiter.settled.set()


def _returned(waiters: list[_Waiter]) -> list[str]:
    # A check need not wait out settle_ms here: each waiter has either returned or blocked
    # in Wait before the script went on, and one released by a done has returned before
    # the script went on past that done, so no waiter is on its way back at a check.
    return sorted(w.name for w in waiters if w.returned.is_set())


def _release(manager: Manager, waiters: list[_Waiter]) -> None:
    # The manager is private to this request: drain every project so no thread outlives it.
    for waiter in waiters:
        while not waiter.returned.is_set():
            manager.done(waiter.project)
            waiter.returned.wait(0.01)
        if waiter.thread is not None:
            waiter.thread.join()
