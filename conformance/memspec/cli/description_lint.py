"""A case's description and its expectations agree, where that can be checked: a case
that allows any reply pins no wording, one that says a file or tree is unchanged checks
a tree, and one that says a call is refused expects a refusal."""

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

_REFUSED = re.compile(r"(?<!never )(?<!not )\b(?:is|are) refused\b", re.IGNORECASE)
_REFUSING_MEMBERS = {"is_error": True, "success": False, "ok": False, "allowed": False}
_REFUSING_TEXT = re.compile(r'success\\*"\s*:\s*false')


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


def _says_no(value: Any) -> bool:
    """Whether an expected result holds a refusal: a member such as ``is_error: true`` or
    ``success: false``, or a text (or pattern) spelling ``"success": false``."""
    if isinstance(value, str):
        return bool(_REFUSING_TEXT.search(value))
    if isinstance(value, dict):
        if any(value.get(key, not no) is no for key, no in _REFUSING_MEMBERS.items()):
            return True
        return any(_says_no(child) for child in value.values())
    if isinstance(value, list):
        return any(_says_no(child) for child in value)
    return False


def _refuses(case: Case) -> bool:
    return any(
        expected.error_kind is not None or (expected.has_result and _says_no(expected.result))
        for step in case.steps
        for expected in _expectations(step.expect)
    )


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
    if _REFUSED.search(case.description) and not _refuses(case):
        problems.append("says a call is refused, but no step expects a refusal")
    return problems
