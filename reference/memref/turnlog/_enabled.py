"""``TurnMemoryEnabled``: the environment gate, on unless explicitly switched off."""

from __future__ import annotations

from collections.abc import Mapping

from memref._gostr import to_lower, trim_space
from memref.turnlog._constants import ENV_VAR, OFF_VALUES

__all__ = ["turn_memory_enabled"]


def turn_memory_enabled(env: Mapping[str, str]) -> bool:
    """False only when OGCODE_TURN_MEMORY, trimmed and lower-cased, is an off token."""
    return to_lower(trim_space(env.get(ENV_VAR, ""))) not in OFF_VALUES
