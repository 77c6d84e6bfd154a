"""``memspec explain ID``: a requirement with its sentence, context and cases; or a case."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

from memspec.cli.coverage import requirement_coverage
from memspec.corpus.cases import crash_points_id, load_cases
from memspec.corpus.data import spec_dir
from memspec.corpus.op_schemas import op_schema, signature
from memspec.corpus.registry import RegisteredCase, registered_cases
from memspec.corpus.requirements import Requirement
from memspec.exceptions import UsageError

__all__ = [
    "CaseLine",
    "PropertyView",
    "RequirementView",
    "divergence_rows",
    "explain",
    "input_summary",
    "property_view",
    "requirement_views",
]


@dataclass(frozen=True)
class CaseLine:
    id: str
    description: str


@dataclass(frozen=True)
class RequirementView:
    """A requirement as ``explain`` and the site show it: where it stands, the cases that
    cover it, and the suite tests that check it without counting as coverage."""

    requirement: Requirement
    cases: tuple[CaseLine, ...]
    regression_only: tuple[str, ...]

    @property
    def heading(self) -> str:
        r = self.requirement
        return f"{r.id} ({r.level}) — spec/{r.page}, § {r.section}"


@dataclass(frozen=True)
class PropertyView:
    """A suite test as ``explain`` and the site show it."""

    entry: RegisteredCase
    checks: tuple[str, ...]
    """The invariant's lines, empty when it says no more than the description."""
    inputs: tuple[tuple[str, str], ...]
    """Each drawn input as ``name: strategy``, with the strategy's summary (or "")."""
    divergences: tuple[tuple[str, str], ...]
    """Each entry it can reach, with its row of spec/divergences.md (or "")."""


def requirement_views() -> list[RequirementView]:
    """Every requirement of the spec pages with its covering cases, in page order."""
    descriptions = {case.id: case.description for case in load_cases()}
    registered = {entry.id: entry for entry in registered_cases()}
    for entry in registered.values():
        descriptions.setdefault(entry.id, entry.description)
    views = []
    for row in requirement_coverage():
        requirement = row.requirement
        others = tuple(
            entry.id
            for entry in registered.values()
            if requirement.id in entry.requirements and not entry.counts_as_coverage
        )
        cases = tuple(CaseLine(case_id, descriptions.get(case_id, "")) for case_id in row.cases)
        views.append(RequirementView(requirement, cases, others))
    return views


def property_view(entry: RegisteredCase) -> PropertyView:
    checks: tuple[str, ...] = ()
    if " ".join(entry.invariant.split()) != entry.description:
        checks = tuple(entry.invariant.splitlines())
    rows = divergence_rows()
    return PropertyView(
        entry,
        checks,
        tuple(_input_parts(item) for item in entry.inputs),
        tuple((name, rows.get(name, "")) for name in entry.divergences),
    )


def explain(target: str) -> list[str]:
    """The lines ``memspec explain`` prints for a requirement id, an op or a case id."""
    if op_schema(target) is not None:
        return signature(target)
    for view in requirement_views():
        if view.requirement.id == target:
            return _requirement_lines(view)
    for case in load_cases():
        if case.id == target and case.path is not None:
            return case.path.read_text(encoding="utf-8").splitlines()
    for entry in registered_cases():
        if entry.id == target:
            return _registered(entry)
    for case in load_cases():
        for index in range(len(case.steps)):
            if crash_points_id(case.id) == target and case.steps[index].crash_points:
                return [
                    f"{target}: every filesystem mutation of step {index + 1} of "
                    f"{case.id} failed in turn",
                    *explain(case.id),
                ]
    raise UsageError(
        f"no requirement, case or op {target!r} (an op such as memories.call has an "
        "op schema; see memspec coverage for requirement ids)"
    )


def _requirement_lines(view: RequirementView) -> list[str]:
    requirement = view.requirement
    lines = [view.heading, ""]
    lines += textwrap.wrap(requirement.text, 88, initial_indent="  ", subsequent_indent="  ")
    if requirement.context:
        lines += ["", f"From § {requirement.section}:"]
        lines += ["  " + line for line in requirement.context.splitlines()]
    lines += ["", f"{len(view.cases)} case(s) covering it:"]
    for case in view.cases:
        lines.append(f"  {case.id}" + (f": {case.description}" if case.description else ""))
    if view.regression_only:
        lines.append(
            "Also checked (regression only, not coverage): " + ", ".join(view.regression_only)
        )
    return lines


def _registered(entry: RegisteredCase) -> list[str]:
    """A suite test: what it checks, what it draws its inputs from, which divergences of
    the seed it can reach."""
    view = property_view(entry)
    lines = [
        f"{entry.id} ({entry.kind} test in memspec.suite): {entry.description}",
        f"requirements: {', '.join(entry.requirements)}",
    ]
    if not entry.counts_as_coverage:
        lines.append("does not count as coverage (regression check)")
    if view.checks:
        lines += ["", "Checks:"] + ["  " + line for line in view.checks]
    if view.inputs:
        lines += ["", "Inputs drawn from:"]
        lines += [
            "  " + line + (f" — {summary}" if summary else "") for line, summary in view.inputs
        ]
    lines += [
        "",
        "Divergences it can reach:" if view.divergences else "Divergences it can reach: none",
    ]
    for name, row in view.divergences:
        lines.append(f"  {name}: {row or '(not on spec/divergences.md)'}")
    return lines


_STRATEGY_CALL = re.compile(r"^[a-z_]+: ([a-z_]+)\(")


def _input_parts(item: str) -> tuple[str, str]:
    """``name: strategy`` (shortened), and the summary of a memspec strategy when it is one."""
    line = textwrap.shorten(item, 300, placeholder=" ...")
    return line, input_summary(item)


def input_summary(item: str) -> str:
    from memspec import strategies

    call = _STRATEGY_CALL.match(item)
    function = getattr(strategies, call[1], None) if call else None
    summary = (getattr(function, "__doc__", None) or "").strip().split("\n\n")[0]
    return " ".join(summary.split())


_SECTION = re.compile(r"^## `([a-z0-9]+)`")
_ROW = re.compile(r"^\|\s*`?([A-Za-z0-9-]+)`?\s*\|(.*)\|\s*$")


def divergence_rows() -> dict[str, str]:
    """``memdir#1`` (or ``memorytool#replace-all``) to the rest of its row in the tables of
    spec/divergences.md."""
    page = spec_dir() / "divergences.md"
    if not page.is_file():
        return {}
    rows: dict[str, str] = {}
    profile = ""
    for line in page.read_text(encoding="utf-8").splitlines():
        section = _SECTION.match(line)
        if section:
            profile = section[1]
            continue
        row = _ROW.match(line)
        if row and profile and not set(row[2]) <= {"-", "|", " "}:
            cells = [cell.strip() for cell in row[2].split("|")]
            rows.setdefault(f"{profile}#{row[1]}", " | ".join(cells))
    return rows
