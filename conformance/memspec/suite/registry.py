"""Tests of the suite that are not fixture files (properties, snapshots), with their ids.

Each registers a stable case id and the requirements it covers, so that coverage,
``explain`` and the report treat it like a fixture case.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import pytest

__all__ = ["RegisteredCase", "registered_cases", "suite_case"]

_MODULES = (
    "memspec.suite.test_protocol",
    "memspec.suite.test_memdir_properties",
    "memspec.suite.test_memdir_snapshots",
)

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class RegisteredCase:
    id: str
    description: str
    requirements: tuple[str, ...]
    kind: str


_REGISTRY: dict[str, RegisteredCase] = {}


def suite_case(case_id: str, *requirements: str, kind: str = "property") -> Callable[[F], F]:
    """Give a suite test a stable case id, a profile and the requirements it covers."""
    profile = case_id.split("/", 1)[0]

    def decorate(function: F) -> F:
        paragraph = (function.__doc__ or "").strip().split("\n\n")[0]
        description = " ".join(line.strip() for line in paragraph.splitlines())
        _REGISTRY[case_id] = RegisteredCase(case_id, description, tuple(requirements), kind)
        marks = [pytest.mark.case_id(case_id), pytest.mark.profile(profile),
                 pytest.mark.requirement(*requirements), getattr(pytest.mark, profile)]
        if kind == "property":
            marks.append(pytest.mark.property)
        for mark in marks:
            function = mark(function)
        return function

    return decorate


def registered_cases() -> list[RegisteredCase]:
    for module in _MODULES:
        importlib.import_module(module)
    return sorted(_REGISTRY.values(), key=lambda entry: entry.id)
