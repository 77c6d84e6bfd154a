"""``memspec explain ID``: a requirement with its sentence, context and cases; or a case."""

from __future__ import annotations

import re
import textwrap

from memspec._coverage import requirement_coverage
from memspec._data import spec_dir
from memspec._op_schemas import op_schema, signature
from memspec.cases import crash_points_id, load_cases
from memspec.exceptions import UsageError
from memspec.suite.registry import RegisteredCase, registered_cases

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


def _registered(entry: RegisteredCase) -> list[str]:
    """A suite test: what it checks, what it draws its inputs from, which divergences of
    the seed it can reach."""
    lines = [
        f"{entry.id} ({entry.kind} test in memspec.suite): {entry.description}",
        f"requirements: {', '.join(entry.requirements)}",
    ]
    if not entry.counts_as_coverage:
        lines.append("does not count as coverage (regression check)")
    if " ".join(entry.invariant.split()) != entry.description:
        lines += ["", "Checks:"] + ["  " + line for line in entry.invariant.splitlines()]
    if entry.inputs:
        lines += ["", "Inputs drawn from:"]
        lines += ["  " + _input_line(item) for item in entry.inputs]
    rows = _divergence_rows()
    lines += [
        "",
        "Divergences it can reach:" if entry.divergences else "Divergences it can reach: none",
    ]
    for name in entry.divergences:
        lines.append(f"  {name}: {rows.get(name, '(not on spec/divergences.md)')}")
    return lines


_STRATEGY_CALL = re.compile(r"^[a-z_]+: ([a-z_]+)\(")


def _input_line(item: str) -> str:
    """``name: strategy``, with the summary of a memspec strategy when it is one."""
    from memspec import strategies

    line = textwrap.shorten(item, 300, placeholder=" ...")
    call = _STRATEGY_CALL.match(item)
    function = getattr(strategies, call[1], None) if call else None
    summary = (getattr(function, "__doc__", None) or "").strip().split("\n\n")[0]
    return line + (f" — {' '.join(summary.split())}" if summary else "")


_SECTION = re.compile(r"^## `([a-z0-9]+)`")
_ROW = re.compile(r"^\|\s*`?([A-Za-z0-9-]+)`?\s*\|(.*)\|\s*$")


def _divergence_rows() -> dict[str, str]:
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
