"""The fixed names and limits of the turnlog profile (ogcode ``internal/memfile`` v1)."""

from __future__ import annotations

from typing import Any

__all__ = [
    "DB_FILE",
    "DEFAULT_SLUG",
    "DEFAULT_TAG",
    "EMPTY_BODY_ERROR",
    "ENV_VAR",
    "MAX_COLLISION_SUFFIX",
    "MAX_FILE_SIZE",
    "MAX_SYMBOLS",
    "OFF_VALUES",
    "SLUG_MAX",
    "STATE_DIR",
    "SUB_DIR",
    "TABLE",
    "TAG_LEN",
    "as_dict",
]

STATE_DIR = ".ogcode"
SUB_DIR = "memory"
ENV_VAR = "OGCODE_TURN_MEMORY"
OFF_VALUES = ("0", "false", "no", "off")
TAG_LEN = 8
DEFAULT_TAG = "session"
SLUG_MAX = 50
DEFAULT_SLUG = "turn"
MAX_COLLISION_SUFFIX = 999
MAX_FILE_SIZE = 2 << 20
MAX_SYMBOLS = 400
TABLE = "memory_turn_index"
DB_FILE = "turnlog.db"
EMPTY_BODY_ERROR = "memfile: empty summary body"


def as_dict() -> dict[str, Any]:
    return {
        "state_dir": STATE_DIR,
        "sub_dir": SUB_DIR,
        "env_var": ENV_VAR,
        "off_values": list(OFF_VALUES),
        "session_tag_len": TAG_LEN,
        "default_session_tag": DEFAULT_TAG,
        "slug_max": SLUG_MAX,
        "default_slug": DEFAULT_SLUG,
        "max_collision_suffix": MAX_COLLISION_SUFFIX,
        "outline_max_file_size": MAX_FILE_SIZE,
        "outline_max_symbols": MAX_SYMBOLS,
        "table": TABLE,
        "db_file": DB_FILE,
        "empty_body_error": EMPTY_BODY_ERROR,
    }
