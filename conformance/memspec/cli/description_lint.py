"""A case's description and its expectations agree, where that can be checked: a case
that allows any reply pins no wording, and one that says a file or tree is unchanged
checks a tree."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from memspec.corpus.cases import Case, Expectation
from memspec.corpus.compare import is_text_pattern

__all__ = ["description_problems"]

_ANY_REPLY = re.compile(r"\bany (?:reply|answer|wording)\b", re.IGNORECASE)
_UNCHANGED = re.compile(
    r"\b(?:the |its |every |each )?(?:file|files|tree|store|folder|directory)"
    r" (?:is |are |stays? |remains? )?(?:left )?unchanged\b"
    r"|\bnothing (?:outside |there |else )?(?:changes|is (?:made|written|changed))\b",
    re.IGNORECASE,
)


def _expectations(expect: Expectation) -> Iterator[Expectation]:
    yield expect
    for alternative in expect.any_of or ():
        yield from _expectations(alternative)


def _pinned_text(value: Any) -> str | None:
    """The first text of an expected value that is pinned exactly (not a pattern)."""
    if isinstance(value, str):
        return value
    if is_text_pattern(value):
        return None
    children = value.values() if isinstance(value, dict) else value
    if isinstance(value, (dict, list)):
        for child in children:
            found = _pinned_text(child)
            if found is not None:
                return found
    return None


def _pins_wording(expect: Expectation) -> bool:
    for expected in _expectations(expect):
        if expected.error_message is not None:
            return True
        if expected.has_result and _pinned_text(expected.result) is not None:
            return True
        if any(_pinned_text(result) is not None for result in expected.results or ()):
            return True
    return False


def _checks_a_tree(case: Case) -> bool:
    """Whether a step expects a tree, or races (the racer checks what lies outside)."""
    return any(
        step.race is not None
        or any(expected.tree is not None for expected in _expectations(step.expect))
        for step in case.steps
    )


def description_problems(case: Case) -> list[str]:
    """Each way the case's expectations contradict what its description says."""
    problems: list[str] = []
    if _ANY_REPLY.search(case.description):
        problems.extend(
            f"says any reply, but step {index} pins the wording of a reply"
            for index, step in enumerate(case.steps, 1)
            if _pins_wording(step.expect)
        )
    if _UNCHANGED.search(case.description) and not _checks_a_tree(case):
        problems.append("says a file or tree is unchanged, but no step expects a tree")
    return problems
