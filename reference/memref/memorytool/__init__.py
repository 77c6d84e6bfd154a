"""The ``memorytool`` profile: toolnexus's memory tool and ComposeSoul (SPEC §7E, Go port).

File contents and the soul are ``bytes``; tool input is the JSON object a model sends.
Documented failures of the operations raise ``memref.errors.OpError``; the tool's own
failures are ``ToolResult`` values with ``is_error`` set, as in the seed.
"""

from __future__ import annotations

from memref.memorytool._actions import ToolResult, execute, next_content, target_file
from memref.memorytool._constants import (
    ACTIONS,
    BOOTSTRAP_ORDER,
    MAX_FILE_BYTES,
    MEMORY_FILE,
    TARGETS,
    TOOL_NAME,
    TRUNCATION_NOTICE,
    USER_FILE,
)
from memref.memorytool._identity import DESCRIPTION, INPUT_SCHEMA, tool_definition
from memref.memorytool._session import session_script
from memref.memorytool._soul import compose_soul, read_capped

__all__ = [
    "ACTIONS",
    "BOOTSTRAP_ORDER",
    "DESCRIPTION",
    "INPUT_SCHEMA",
    "MAX_FILE_BYTES",
    "MEMORY_FILE",
    "TARGETS",
    "TOOL_NAME",
    "TRUNCATION_NOTICE",
    "USER_FILE",
    "ToolResult",
    "compose_soul",
    "execute",
    "next_content",
    "read_capped",
    "session_script",
    "target_file",
    "tool_definition",
]
