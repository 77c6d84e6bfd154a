"""Tests of the suite that are not fixture files (properties, snapshots, protocol checks).

Each registers a stable case id and the requirements it covers, so that coverage,
``explain`` and the report treat it like a fixture case. Modules are found by name:
every ``memspec/suite/test_*.py``.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from memspec.corpus.profiles import profile_of_case

__all__ = ["COUNTING_KINDS", "KINDS", "RegisteredCase", "registered_cases", "suite_case"]

F = TypeVar("F", bound=Callable[..., Any])

KINDS = ("property", "differential", "snapshot", "protocol")
COUNTING_KINDS = frozenset({"property", "protocol"})
"""Kinds that count as coverage of a requirement. A differential property compares an
adapter with the reference, and a snapshot is written by the reference: both find
regressions, neither shows that a requirement holds."""


@dataclass(frozen=True)
class RegisteredCase:
    id: str
    description: str
    requirements: tuple[str, ...]
    kind: str
    divergences: tuple[str, ...] = ()
    invariant: str = ""
    """The test's whole docstring: what it checks."""
    inputs: tuple[str, ...] = ()
    """``name: strategy`` for each input a property draws (its ``@given`` arguments)."""

    @property
    def profile(self) -> str:
        return profile_of_case(self.id)

    @property
    def counts_as_coverage(self) -> bool:
        return self.kind in COUNTING_KINDS


_REGISTRY: dict[str, RegisteredCase] = {}


def _drawn_inputs(function: Callable[..., Any]) -> tuple[str, ...]:
    """What a Hypothesis test draws each argument from, as ``name: strategy``."""
    handle = getattr(function, "hypothesis", None)
    given = getattr(handle, "_given_kwargs", None) or {}
    return tuple(f"{name}: {strategy!r}" for name, strategy in given.items())


def suite_case(
    case_id: str, *requirements: str, kind: str = "property", divergences: tuple[str, ...] = ()
) -> Callable[[F], F]:
    """Give a suite test a stable case id, the requirements it covers and its kind.

    ``divergences`` names the entries of spec/divergences.md whose inputs the test can
    reach: an implementation keeping the seed's behaviour fails it there, and the report
    says so.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}")

    def decorate(function: F) -> F:
        paragraph = (function.__doc__ or "").strip().split("\n\n")[0]
        description = " ".join(line.strip() for line in paragraph.splitlines())
        _REGISTRY[case_id] = RegisteredCase(
            case_id,
            description,
            tuple(requirements),
            kind,
            tuple(divergences),
            inspect.cleandoc(function.__doc__ or ""),
            _drawn_inputs(function),
        )
        marks = [
            pytest.mark.memspec_case_id(case_id),
            pytest.mark.memspec_profile(profile_of_case(case_id)),
            pytest.mark.memspec_requirement(*requirements),
            pytest.mark.memspec_kind(kind),
            pytest.mark.usefixtures("memspec_claims"),
        ]
        for mark in marks:
            function = mark(function)
        return function

    return decorate


def registered_cases() -> list[RegisteredCase]:
    for module in pkgutil.iter_modules([str(Path(__file__).resolve().parent.parent / "suite")]):
        if module.name.startswith("test_"):
            importlib.import_module(f"memspec.suite.{module.name}")
    return sorted(_REGISTRY.values(), key=lambda entry: entry.id)
