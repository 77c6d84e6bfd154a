"""Whether a write may go into the memory directory without asking: the seed's lexical
check, and the strict check that also follows symbolic links."""

from __future__ import annotations

import os
import re

from memref.automemory import _nodepath
from memref.automemory._constants import DENY_COMPONENTS
from memref.automemory._memory_dir import is_unsafe_dir

__all__ = ["carve_out", "carve_out_lexical", "normalise_component"]

_DENIED = frozenset(DENY_COMPONENTS)
_INVISIBLE = re.compile("[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]")
_STREAM = re.compile("[:][^\n\r\u2028\u2029]*\\Z")
_TRAILING = re.compile("[. ]+\\Z")


def normalise_component(component: str) -> str:
    """The form of a path component that is compared with the deny list."""
    folded = component.lower().replace("\u0131", "i").replace("\u017f", "s")
    bare = _TRAILING.sub("", _STREAM.sub("", _INVISIBLE.sub("", folded), count=1))
    return bare or folded


def _qualifies(directory: str) -> bool:
    return directory.endswith("/") and not is_unsafe_dir(re.sub(r"[/\\]+\Z", "", directory))


def carve_out_lexical(path: str, directory: str) -> bool:
    """The seed's check: ``path``, normalised lexically, starts with ``directory`` (which
    ends in ``/``) and no component below it is on the deny list."""
    if not _qualifies(directory):
        return False
    normal = _nodepath.normalize(path)
    if not normal.startswith(directory):
        return False
    return not any(
        normalise_component(part) in _DENIED for part in normal[len(directory) :].split("/")
    )


def _within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def carve_out(path: str, directory: str) -> bool:
    """The lexical check, and the path with its symbolic links resolved stays inside the
    directory with its own links resolved."""
    if not carve_out_lexical(path, directory):
        return False
    try:
        return _within(os.path.realpath(path), os.path.realpath(directory))
    except (OSError, ValueError):
        return False
