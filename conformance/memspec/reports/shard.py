"""``--shard K/N``: a deterministic, balanced slice of the selected cases.

Case ids are ordered by a stable hash (SHA-256, so the order is the same on every machine
and Python version) and the K-th shard takes every N-th id from position K-1. Shard sizes
differ by at most one, and the N shards together hold each selected case exactly once.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from memspec.exceptions import UsageError

__all__ = ["Shard", "parse_shard"]

_SPEC = re.compile(r"^([0-9]+)/([0-9]+)$")


class Shard:
    def __init__(self, index: int, count: int) -> None:
        self.index = index
        self.count = count

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def select(self, case_ids: Iterable[str]) -> set[str]:
        """The ids among ``case_ids`` that belong to this shard."""
        ordered = sorted(set(case_ids), key=lambda case_id: (_digest(case_id), case_id))
        return set(ordered[self.index - 1 :: self.count])


def _digest(case_id: str) -> str:
    return hashlib.sha256(case_id.encode("utf-8", "surrogatepass")).hexdigest()


def parse_shard(text: str) -> Shard:
    """``K/N`` with whole numbers 1 <= K <= N; anything else is a usage error saying what
    is valid."""
    match = _SPEC.match(text.strip())
    if not match:
        raise UsageError(
            f"--shard {text!r}: expected K/N, two whole numbers with 1 <= K <= N, "
            "such as 1/4 (shard 1 of 4)"
        )
    index, count = int(match[1]), int(match[2])
    if count < 1:
        raise UsageError(
            f"--shard {text!r}: N, the number of shards, must be at least 1; K runs from "
            "1 to N, such as 1/4"
        )
    if not 1 <= index <= count:
        choices = f"1/{count} or 2/{count}" if count == 2 else f"1/{count} to {count}/{count}"
        if count == 1:
            choices = "1/1"
        raise UsageError(f"--shard {text!r}: K must be from 1 to {count} ({choices})")
    return Shard(index, count)
