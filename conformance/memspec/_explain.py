"""``memspec explain ID``: a requirement with its sentence, context and cases; or a case."""

from __future__ import annotations

import textwrap

from memspec._coverage import requirement_coverage
from memspec._op_schemas import op_schema, signature
from memspec.cases import load_cases
from memspec.exceptions import UsageError
from memspec.suite.registry import registered_cases

__all__ = ["explain"]


def explain(target: str) -> list[str]:
    """The lines ``memspec explain`` prints for a requirement id, an op or a case id."""
    if op_schema(target) is not None:
        return signature(target)
    for row in requirement_coverage():
        requirement = row.requirement
        if requirement.id != target:
            continue
        lines = [
            f"{requirement.id} ({requirement.level}) — spec/{requirement.page}, "
            f"§ {requirement.section}",
            "",
        ]
        lines += textwrap.wrap(requirement.text, 88, initial_indent="  ", subsequent_indent="  ")
        if requirement.context:
            lines += ["", f"From § {requirement.section}:"]
            lines += ["  " + line for line in requirement.context.splitlines()]
        descriptions = (
            {case.id: case.description for case in load_cases(profiles=[requirement.profile])}
            if requirement.profile != "protocol"
            else {}
        )
        registered = {entry.id: entry for entry in registered_cases()}
        lines += ["", f"{len(row.cases)} case(s) covering it:"]
        for case_id in row.cases:
            description = descriptions.get(case_id) or (
                registered[case_id].description if case_id in registered else ""
            )
            lines.append(f"  {case_id}" + (f": {description}" if description else ""))
        others = [
            entry.id
            for entry in registered.values()
            if target in entry.requirements and not entry.counts_as_coverage
        ]
        if others:
            lines.append("Also checked (regression only, not coverage): " + ", ".join(others))
        return lines
    for case in load_cases():
        if case.id == target and case.path is not None:
            return case.path.read_text(encoding="utf-8").splitlines()
    for entry in registered_cases():
        if entry.id == target:
            lines = [
                f"{entry.id} ({entry.kind} test in memspec.suite): {entry.description}",
                f"requirements: {', '.join(entry.requirements)}",
            ]
            if not entry.counts_as_coverage:
                lines.append("does not count as coverage (regression check)")
            if entry.divergences:
                lines.append(f"reaches divergence(s): {', '.join(entry.divergences)}")
            return lines
    for case in load_cases():
        for index in range(len(case.steps)):
            if f"{case.id}/crash-points" == target and case.steps[index].crash_points:
                return [
                    f"{target}: every filesystem mutation of step {index + 1} of "
                    f"{case.id} failed in turn",
                    *explain(case.id),
                ]
    raise UsageError(f"no requirement or case with id {target!r}")
