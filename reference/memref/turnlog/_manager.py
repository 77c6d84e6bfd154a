"""The Begin/Done/Wait barrier between background summary work and recall, per project."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

__all__ = ["Manager"]


class Manager:
    """Counts in-flight work per project; ``wait`` blocks until a project's count is 0."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._inflight: dict[str, int] = {}

    def begin(self, project: str) -> None:
        with self._lock:
            self._inflight[project] = self._inflight.get(project, 0) + 1

    def done(self, project: str) -> None:
        with self._lock:
            count = self._inflight.get(project, 0)
            if count > 0:
                count -= 1
            if count == 0:
                self._inflight.pop(project, None)
            else:
                self._inflight[project] = count
            self._changed.notify_all()

    def wait(
        self, project: str, timeout: float | None = None, on_block: Callable[[], None] | None = None
    ) -> bool:
        """Block while ``project`` has work in flight; False if ``timeout`` ran out first.

        ``on_block`` is called, with the lock held, once the caller is about to block.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while self._inflight.get(project, 0) > 0:
                if on_block is not None:
                    on_block()
                    on_block = None
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._changed.wait(remaining)
            return True

    def inflight(self, project: str) -> int:
        with self._lock:
            return self._inflight.get(project, 0)
