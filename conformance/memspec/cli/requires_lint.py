"""The capabilities a case asks for that none of its own entries use: such a case is
skipped for an adapter that lacks the capability, though its check could run there."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from memspec.corpus.cases import Case, Expectation

__all__ = ["op_capabilities", "unused_requires"]

_OP_CAPABILITY = re.compile(r"^\|\s*`([a-z]+\.[a-z_]+)`\s*\|.*\(capability `([a-z-]+)`\)")


def op_capabilities(spec: Path) -> dict[str, set[str]]:
    """The capabilities each op's row of a spec operations table says it needs."""
    found: dict[str, set[str]] = {}
    for page in spec.glob("*.md"):
        for line in page.read_text(encoding="utf-8").splitlines():
            match = _OP_CAPABILITY.match(line)
            if match:
                found.setdefault(match.group(1), set()).add(match.group(2))
    return found


def _expected_trees(expect: Expectation) -> Iterator[Mapping[str, Any]]:
    if expect.tree is not None:
        yield expect.tree
    for alternative in expect.any_of or ():
        yield from _expected_trees(alternative)


def _entries(case: Case) -> Iterator[Mapping[str, Any]]:
    """Every entry of the case's tree and of the trees its steps expect."""
    yield from case.tree.values()
    for step in case.steps:
        for tree in _expected_trees(step.expect):
            yield from tree.values()


def _used(case: Case, needed_by_op: Mapping[str, set[str]]) -> set[str]:
    """The capabilities the case's own entries, set-up and steps use."""
    used: set[str] = set()
    for entry in _entries(case):
        if "symlink" in entry:
            used.add("symlinks")
        if entry.get("fifo") or entry.get("socket"):
            used.add("fifos")
    if any("git" in action for action in case.setup):
        used.add("git")
    for step in case.steps:
        if step.race is not None:
            used.add("symlinks")  # the harness swaps a directory for a link
        if step.concurrent is not None:
            used.add("concurrency")
        used |= needed_by_op.get(step.op, set())
    # fault-injection is never used by a case's own run: only its crash-points run needs
    # it, and that run checks the claim itself.
    return used


def unused_requires(case: Case, needed_by_op: Mapping[str, set[str]]) -> list[str]:
    """One problem for each capability in ``requires`` that nothing of the case uses."""
    used = _used(case, needed_by_op)
    return [
        f"requires {need}, which none of its own entries, set-up or steps uses"
        for need in case.requires
        if need not in used
    ]
