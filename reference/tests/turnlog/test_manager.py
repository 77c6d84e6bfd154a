"""The barrier with real threads (the seed's TestManagerWaitBlocksUntilDone and more)."""

from __future__ import annotations

import threading
import time

from memref.turnlog import Manager
from memref.turnlog._manager_script import run_script


def _waiter(manager: Manager, project: str) -> threading.Event:
    done = threading.Event()

    def run() -> None:
        manager.wait(project)
        done.set()

    threading.Thread(target=run, daemon=True).start()
    return done


def test_wait_blocks_until_done() -> None:
    manager = Manager()
    manager.begin("proj")
    returned = _waiter(manager, "proj")
    assert not returned.wait(0.05)
    manager.done("proj")
    assert returned.wait(2)
    manager.begin("proj")
    assert _waiter(manager, "other").wait(1)
    manager.done("proj")


def test_idle_wait_returns_at_once() -> None:
    manager = Manager()
    start = time.monotonic()
    assert manager.wait("never")
    assert time.monotonic() - start < 0.5


def test_done_without_begin_never_negative() -> None:
    manager = Manager()
    manager.done("p")
    manager.done("p")
    assert manager.inflight("p") == 0
    manager.begin("p")
    assert manager.inflight("p") == 1
    assert not manager.wait("p", timeout=0.05)
    manager.done("p")
    assert manager.wait("p", timeout=1)


def test_begin_while_waiting_extends_wait() -> None:
    manager = Manager()
    manager.begin("p")
    returned = _waiter(manager, "p")
    time.sleep(0.02)
    manager.begin("p")
    manager.done("p")
    assert not returned.wait(0.1)
    manager.done("p")
    assert returned.wait(2)


def test_many_threads_balanced() -> None:
    manager = Manager()
    workers = []
    for _ in range(32):
        manager.begin("p")

        def work() -> None:
            time.sleep(0.01)
            manager.done("p")

        workers.append(threading.Thread(target=work))
    for worker in workers:
        worker.start()
    assert manager.wait("p", timeout=5)
    assert manager.inflight("p") == 0
    for worker in workers:
        worker.join()


def test_script_releases_blocked_threads() -> None:
    before = threading.active_count()
    result = run_script(
        [
            {"do": "begin", "project": "p"},
            {"do": "wait", "project": "p", "as": "w"},
            {"do": "check"},
        ],
        10,
    )
    assert result == {"checks": [[]], "blocked_at_end": ["w"]}
    assert threading.active_count() == before
