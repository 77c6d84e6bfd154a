"""The forms a step may take beside its op: a lock the harness holds while the op runs
(``memspec.run.held_lock``) and readers beside it (``memspec.run.readers``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["HOLD_MS", "HeldLock", "Readers", "held_lock_of", "readers_of"]

HOLD_MS = 1000


@dataclass(frozen=True)
class HeldLock:
    """A lock file (or directory) the harness holds while a step's op runs."""

    path: str
    kind: str = "flock"
    hold_ms: int = HOLD_MS
    watch: tuple[str, ...] = ()
    """Globs, relative to the root: only these paths must stay unchanged while the lock is
    held (the whole tree when empty)."""


def held_lock_of(raw: Mapping[str, Any] | None) -> HeldLock | None:
    """The ``hold_lock`` member of a step, as a value (None when there is none)."""
    if raw is None:
        return None
    return HeldLock(
        raw["path"],
        raw.get("kind", "flock"),
        raw.get("hold_ms", HOLD_MS),
        tuple(raw.get("watch", ())),
    )


@dataclass(frozen=True)
class Readers:
    """Harness threads reading one file of the tree while a step runs."""

    path: str
    text_pattern: str
    threads: int = 1
    missing: bool = False


def readers_of(raw: Mapping[str, Any] | None) -> Readers | None:
    """The ``readers`` member of a step, as a value (None when there is none)."""
    if raw is None:
        return None
    return Readers(
        raw["path"], raw["text_pattern"], raw.get("threads", 1), raw.get("missing", False)
    )
