"""The ``memories`` profile: the Anthropic API's memory tool (``memory_20250818``) on a
local filesystem, as the Python SDK's ``BetaLocalFilesystemMemoryTool`` runs it.

``execute(base, input)`` runs one command the model sent against ``<base>/memories`` and
returns the ``Reply`` the application sends back: its content and whether it is an error.
A failed command is such a reply, never an exception. The fixed names and limits are in
``memref.memories._constants`` (``as_dict()`` is the ``memories.constants`` op).
"""

from __future__ import annotations

from memref.memories._constants import MAX_LINES, ROOT_DIR, VIRTUAL_ROOT
from memref.memories._insert import inserted
from memref.memories._paths import Root, Target, resolve, virtual_segments
from memref.memories._session import clear_all, session_script
from memref.memories._str_replace import occurrence_lines, snippet
from memref.memories._tool import Reply, execute
from memref.memories._view import format_size, numbered

__all__ = [
    "MAX_LINES",
    "ROOT_DIR",
    "VIRTUAL_ROOT",
    "Reply",
    "Root",
    "Target",
    "clear_all",
    "execute",
    "format_size",
    "inserted",
    "numbered",
    "occurrence_lines",
    "resolve",
    "session_script",
    "snippet",
    "virtual_segments",
]
