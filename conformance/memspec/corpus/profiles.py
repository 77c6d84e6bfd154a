"""The one place that knows which profiles exist: the folders of ``fixtures/``.

A profile ``p`` is the folder ``fixtures/p/``; its requirement ids start with ``P-`` and
its case ids and ops with ``p/`` and ``p.``. The pseudo-profile ``protocol`` holds the
suite's checks of the adapter protocol itself.
"""

from __future__ import annotations

import functools

from memspec.corpus.data import fixtures_dir

__all__ = [
    "PROTOCOL",
    "known_profiles",
    "profile_of_case",
    "profile_of_op",
    "profile_of_requirement",
    "selectable_profiles",
]

PROTOCOL = "protocol"


@functools.cache
def known_profiles() -> tuple[str, ...]:
    """Every profile with fixtures, sorted."""
    root = fixtures_dir()
    return tuple(
        sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
    )


def selectable_profiles() -> tuple[str, ...]:
    """What ``--profile`` accepts: every profile, and ``protocol``."""
    return (*known_profiles(), PROTOCOL)


def profile_of_case(case_id: str) -> str:
    return case_id.split("/", 1)[0]


def profile_of_op(op: str) -> str:
    return op.split(".", 1)[0]


def profile_of_requirement(requirement_id: str) -> str:
    return requirement_id.split("-", 1)[0].lower()
