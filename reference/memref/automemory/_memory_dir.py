"""Where the memory directory is: the override, the settings, or the default under the
config directory, with the value checks that every candidate passes."""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from memref.automemory import _nodepath
from memref.automemory._project_key import project_dir_name, project_key

__all__ = [
    "SETTINGS_SOURCES",
    "KeyBase",
    "is_unsafe_dir",
    "key_base",
    "memory_dir",
    "validate_memory_path",
]

# The order in which the seed's code consults the settings (read from the program, not
# observed end to end; the spec leaves it unspecified).
SETTINGS_SOURCES = (
    "policySettings",
    "flagSettings",
    "localSettings",
    "projectSettings",
    "userSettings",
)
_DRIVE = re.compile("[A-Za-z]:")
_TRAILING_SEPARATORS = re.compile(r"[/\\]+\Z")
# Dropped from a component before the mount test compares it (U+200B and U+2060 are not).
_IGNORED = re.compile("[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]")
_SPECIAL_ROOTS = frozenset({".vol", ".file", ".nofollow", ".resolve"})


def _fold(part: str) -> str:
    return _IGNORED.sub("", part).upper().lower()


def _network_mount(path: str) -> bool:
    """A path starting with two separators or ``\\??\\``, or one whose components, walked
    in order (``.`` skipped, ``..`` dropping the last), stand at some point at a macOS
    special root, at ``/net/<host>`` or at ``/Network/Servers/<host>`` (in any case): a
    later ``..`` that leaves it again does not help."""
    if path[:2] in ("//", "/\\", "\\/", "\\\\") or path.startswith("\\??\\"):
        return True
    walked: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            del walked[-1:]
            continue
        walked.append(part)
        if len(walked) == 1 and part.lower() in _SPECIAL_ROOTS:
            return True
        if len(walked) == 2 and _fold(walked[0]) == "net":
            return True
        if len(walked) == 3 and [_fold(p) for p in walked[:2]] == ["network", "servers"]:
            return True
    return False


def is_unsafe_dir(path: str) -> bool:
    """A memory directory candidate that is refused: relative, shorter than three units,
    a bare drive, a network mount, or holding NUL."""
    return (
        not path.startswith("/")
        or len(path) < 3
        or _DRIVE.fullmatch(path) is not None
        or _network_mount(path)
        or "\x00" in path
    )


def validate_memory_path(value: str | None, expand_tilde: bool, home: str) -> str | None:
    """The candidate normalised, without trailing separators, plus ``/``, in NFC; or None."""
    if not value:
        return None
    if expand_tilde and value[:2] in ("~/", "~\\"):
        rest = _nodepath.normalize(value[2:])
        if rest in (".", "..") or rest.startswith("../"):
            return None
        value = _nodepath.join(home, value[2:])
    stripped = _TRAILING_SEPARATORS.sub("", _nodepath.normalize(value))
    if is_unsafe_dir(stripped):
        return None
    return unicodedata.normalize("NFC", stripped + "/")


@dataclass(frozen=True)
class KeyBase:
    path: str
    via: Literal["git", "project_root"]


def _read_gitdir(dot_git: str) -> str | None:
    try:
        with open(dot_git, encoding="utf-8", errors="replace") as handle:
            first = handle.readline(65536).strip()
    except (OSError, ValueError):
        return None
    return first[len("gitdir:") :].strip() if first.startswith("gitdir:") else None


def _canonical(root: str) -> str:
    """A linked worktree's main checkout; any other git root is itself."""
    dot_git = _nodepath.join(root, ".git")
    if not os.path.isfile(dot_git):
        return root
    gitdir = _read_gitdir(dot_git)
    if not gitdir:
        return root
    gitdir = _nodepath.normalize(gitdir if gitdir.startswith("/") else root + "/" + gitdir)
    gitdir = gitdir.rstrip("/") or "/"
    if _nodepath.dirname(gitdir).rsplit("/", 1)[-1] != "worktrees":
        return root
    common = _nodepath.dirname(_nodepath.dirname(gitdir))
    try:
        with open(_nodepath.join(gitdir, "commondir"), encoding="utf-8") as handle:
            named = handle.readline(65536).strip()
        if named:
            common = _nodepath.normalize(named if named.startswith("/") else gitdir + "/" + named)
    except (OSError, ValueError):
        pass
    return _nodepath.dirname(common.rstrip("/") or "/")


def key_base(project_root: str) -> KeyBase:
    """The canonical git root above ``project_root`` (walked lexically), or the root itself."""
    current = project_root
    while True:
        try:
            found = os.path.lexists(_nodepath.join(current, ".git"))
        except ValueError:
            found = False
        if found:
            return KeyBase(_canonical(current), "git")
        parent = _nodepath.dirname(current)
        if parent == current:
            return KeyBase(project_root, "project_root")
        current = parent


def memory_dir(
    project_root: str | None,
    env: Mapping[str, str],
    home: str,
    settings: Mapping[str, object] | None = None,
    diskless: bool = False,
) -> str | None:
    """The auto-memory directory, ending in ``/``; None without a project root."""
    chosen = validate_memory_path(env.get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE"), False, home)
    if chosen:
        return chosen
    for source in SETTINGS_SOURCES:
        value = (settings or {}).get(source)
        if value is not None:
            chosen = validate_memory_path(value if isinstance(value, str) else "", True, home)
            if chosen:
                return chosen
            break
    if project_root is None:
        return None
    base = key_base(project_root).path
    remote = env.get("CLAUDE_CODE_REMOTE_MEMORY_DIR")
    if remote:
        parent, key = remote, project_key(base)
    else:
        config = env.get("CLAUDE_CONFIG_DIR")
        parent = unicodedata.normalize("NFC", config if config is not None else home + "/.claude")
        key = project_dir_name(base, env, diskless)
    return unicodedata.normalize("NFC", _nodepath.join(parent, "projects", key, "memory") + "/")
