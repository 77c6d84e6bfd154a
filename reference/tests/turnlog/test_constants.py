"""turnlog.constants answers the values spec/turnlog.md states."""

from __future__ import annotations

from memref.turnlog._ops import OPS


def test_constants_are_the_spec_values() -> None:
    assert OPS["turnlog.constants"]({}) == {
        "state_dir": ".ogcode",
        "sub_dir": "memory",
        "env_var": "OGCODE_TURN_MEMORY",
        "off_values": ["0", "false", "no", "off"],
        "session_tag_len": 8,
        "default_session_tag": "session",
        "slug_max": 50,
        "default_slug": "turn",
        "max_collision_suffix": 999,
        "outline_max_file_size": 2097152,
        "outline_max_symbols": 400,
        "table": "memory_turn_index",
        "db_file": "turnlog.db",
        "empty_body_error": "memfile: empty summary body",
    }
