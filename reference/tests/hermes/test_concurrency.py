"""memref.hermes: the lock serialises writers (HERMES-CONCURRENCY-*)."""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path

from .support import call

BIG = {"memory": 10**6, "user": 10**6}


def _adds(home: str, worker: int, count: int) -> None:
    for i in range(count):
        call(Path(home), {"action": "add", "content": f"w{worker}-{i}"}, limits=BIG)


def test_two_processes_lose_nothing(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_adds, args=(str(tmp_path), w, 60)) for w in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    entries = (tmp_path / "memories/MEMORY.md").read_text().split("\n\u00a7\n")
    assert sorted(entries) == sorted(f"w{w}-{i}" for w in range(2) for i in range(60))


def test_threads_lose_nothing(tmp_path: Path) -> None:
    threads = [threading.Thread(target=_adds, args=(str(tmp_path), w, 30)) for w in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len((tmp_path / "memories/MEMORY.md").read_text().split("\n\u00a7\n")) == 90
