"""The one-segment key a project path gets under ``<app_home>/sessions/``."""

from __future__ import annotations

from typing import Literal

from memref import _gopath

__all__ = ["project_key"]

OSFlavour = Literal["posix", "windows"]


def project_key(path: str, os: OSFlavour = "posix") -> str:
    """Clean ``path`` (Go's ``filepath.Clean`` of the given OS), drop a drive colon,
    turn every separator into ``-``, collapse runs of dashes, and trim trailing ones.
    """
    if not path:
        return ""
    key = _gopath.clean(path, windows=os == "windows")
    if len(key) >= 2 and key[1] == ":" and key[0].isascii() and key[0].isalpha():
        key = key[0] + key[2:]
    key = key.replace("\\", "/").replace("/", "-")
    while "--" in key:
        key = key.replace("--", "-")
    return key.rstrip("-")
