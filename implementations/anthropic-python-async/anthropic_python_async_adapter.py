"""memspec adapter (profile memories) for anthropic's BetaAsyncLocalFilesystemMemoryTool.

An in-process adapter:
``memspec run --adapter python:anthropic_python_async_adapter:Adapter`` with this folder and
``implementations/anthropic-python`` on ``PYTHONPATH``. The protocol side is the sync
adapter's; only the tool differs: the async tool's commands are awaited, one after another,
by the one task of an event loop that runs as long as the connection, as an application's
main task awaits them through the SDK's async tool runner.

That task outlives each command, so the worker threads that the tool's file calls go to
(anyio's, which end with the task that started them) live on between commands, as they
do in an application. A loop run to completion once per command would end them with each
command, and the next command's file calls would come from a thread not seen before.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from anthropic.tools import BetaAsyncLocalFilesystemMemoryTool
from anthropic_python_adapter import Adapter as SyncAdapter

Job = tuple[Callable[[], Awaitable[Any]], "concurrent.futures.Future[Any]"]


class Adapter(SyncAdapter):
    """One instance per connection, with its event loop in a thread of its own."""

    name = "anthropic-python-async"
    tool_class = BetaAsyncLocalFilesystemMemoryTool

    def __init__(self) -> None:
        super().__init__()
        ready = threading.Event()
        self._thread = threading.Thread(
            target=asyncio.run, args=(self._main(ready),), name="event loop", daemon=True
        )
        self._thread.start()
        ready.wait()

    async def _main(self, ready: threading.Event) -> None:
        self._loop = asyncio.get_running_loop()
        self._inbox: asyncio.Queue[Job | None] = asyncio.Queue()
        ready.set()
        while (job := await self._inbox.get()) is not None:
            start, outcome = job
            try:
                outcome.set_result(await start())
            except BaseException as exc:  # the command's own, raised again in the caller
                outcome.set_exception(exc)

    def _await(self, start: Callable[[], Awaitable[Any]]) -> Any:
        outcome: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._loop.call_soon_threadsafe(self._inbox.put_nowait, (start, outcome))
        return outcome.result()

    def run(self, tool: Any, given: dict[str, Any]) -> Any:
        return self._await(lambda: tool.call(given))

    def clear_all(self, tool: Any) -> Any:
        return self._await(tool.clear_all_memory)

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        reply: dict[str, Any] = super().handle(message)
        if message.get("op") == "stop" and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._inbox.put_nowait, None)
            self._thread.join()
        return reply
