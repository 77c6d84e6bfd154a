"""memspec adapter (profile memories) for anthropic's BetaAsyncLocalFilesystemMemoryTool.

An in-process adapter:
``memspec run --adapter python:anthropic_python_async_adapter:Adapter`` with this folder and
``implementations/anthropic-python`` on ``PYTHONPATH``. The protocol side is the sync
adapter's; only the tool differs: the async tool's commands are awaited, on one event loop
per connection, as the SDK's async tool runner awaits them.
"""

from __future__ import annotations

import asyncio
from typing import Any

from anthropic.tools import BetaAsyncLocalFilesystemMemoryTool
from anthropic_python_adapter import Adapter as SyncAdapter


class Adapter(SyncAdapter):
    """One instance per connection, with its event loop."""

    name = "anthropic-python-async"
    tool_class = BetaAsyncLocalFilesystemMemoryTool

    def __init__(self) -> None:
        super().__init__()
        self._loop = asyncio.new_event_loop()

    def run(self, tool: Any, given: dict[str, Any]) -> Any:
        return self._loop.run_until_complete(tool.call(given))

    def clear_all(self, tool: Any) -> Any:
        return self._loop.run_until_complete(tool.clear_all_memory())
