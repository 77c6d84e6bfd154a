"""memorytool.constants answers the values spec/memorytool.md states."""

from __future__ import annotations

from memref.memorytool._ops import OPS


def test_constants_are_the_spec_values() -> None:
    assert OPS["memorytool.constants"]({}) == {
        "tool_name": "memory",
        "memory_file": "MEMORY.md",
        "user_file": "USER.md",
        "bootstrap_order": [
            "AGENTS.md",
            "SOUL.md",
            "IDENTITY.md",
            "USER.md",
            "TOOLS.md",
            "HEARTBEAT.md",
            "MEMORY.md",
        ],
        "max_file_bytes": 2097152,
        "truncation_notice": "\n[truncated: exceeds 2 MB bootstrap cap]",
        "actions": ["add", "replace", "remove"],
        "targets": ["self", "user"],
    }
