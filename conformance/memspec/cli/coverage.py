"""Which cases cover which requirement."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memspec.corpus.cases import load_cases
from memspec.corpus.registry import registered_cases
from memspec.corpus.requirements import Requirement, load_requirements

__all__ = ["CoverageRow", "requirement_coverage"]


@dataclass(frozen=True)
class CoverageRow:
    requirement: Requirement
    cases: tuple[str, ...]

    @property
    def missing(self) -> bool:
        return self.requirement.mandatory and not self.cases


def requirement_coverage(profiles: Sequence[str] = ()) -> list[CoverageRow]:
    covering: dict[str, list[str]] = {}
    fixture_profiles = [p for p in profiles if p != "protocol"]
    for case in (
        load_cases(profiles=fixture_profiles or None) if fixture_profiles or not profiles else []
    ):
        for requirement_id in case.requirements:
            covering.setdefault(requirement_id, []).append(case.id)
    for entry in registered_cases():
        if not entry.counts_as_coverage:
            continue
        for requirement_id in entry.requirements:
            covering.setdefault(requirement_id, []).append(entry.id)
    rows = []
    for requirement in load_requirements():
        if profiles and requirement.profile not in profiles:
            continue
        rows.append(CoverageRow(requirement, tuple(sorted(covering.get(requirement.id, ())))))
    return rows
