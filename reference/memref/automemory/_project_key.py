"""The project key: a path turned into one directory name, over UTF-16 code units."""

from __future__ import annotations

import re
from collections.abc import Mapping

from memref.automemory._constants import KEY_MAX_UNITS
from memref.automemory._units import to_units

__all__ = ["path_hash", "project_dir_name", "project_key", "sanitize_path", "to_base36"]

_NOT_ALNUM = re.compile("[^a-zA-Z0-9]")
_OVERRIDE = re.compile("[A-Za-z0-9_-]{1,64}")
_DEVICE = re.compile("con|prn|aux|nul|com[0-9]|lpt[0-9]", re.IGNORECASE)
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def sanitize_path(path: str) -> str:
    """Every UTF-16 unit outside ``[a-zA-Z0-9]`` becomes ``-``."""
    return _NOT_ALNUM.sub("-", to_units(path))


def path_hash(path: str) -> int:
    """Java's ``String.hashCode`` of the path's UTF-16 units, as a signed 32-bit value."""
    value = 0
    for unit in to_units(path):
        value = (value * 31 + ord(unit)) & 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def to_base36(number: int) -> str:
    """A non-negative integer in base 36, lower case, no padding."""
    if number == 0:
        return "0"
    digits = []
    while number:
        number, digit = divmod(number, 36)
        digits.append(_DIGITS[digit])
    return "".join(reversed(digits))


def project_key(path: str) -> str:
    """The sanitised path, or its first 200 units, ``-`` and the hash of the whole path."""
    sanitized = sanitize_path(path)
    if len(sanitized) <= KEY_MAX_UNITS:
        return sanitized
    return sanitized[:KEY_MAX_UNITS] + "-" + to_base36(abs(path_hash(path)))


def project_dir_name(path: str, env: Mapping[str, str], diskless: bool = False) -> str:
    """The folder name below ``projects/``: a valid override, or the project key.

    ``CLAUDE_CODE_PROJECT_DIR_NAME`` counts only when ``CLAUDE_CONFIG_DIR`` is set and
    not empty, or the session is diskless.
    """
    override = env.get("CLAUDE_CODE_PROJECT_DIR_NAME")
    enabled = bool(env.get("CLAUDE_CONFIG_DIR")) or diskless
    if (
        enabled
        and override is not None
        and _OVERRIDE.fullmatch(override)
        and not _DEVICE.fullmatch(override)
    ):
        return override
    return project_key(path)
