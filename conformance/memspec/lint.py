"""Checks over the fixture corpus and the spec pages, each problem one line."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from memspec._data import fixtures_dir, spec_dir
from memspec._model_text import expected_leaks
from memspec._profiles import profile_of_op, profile_of_requirement
from memspec._race import race_problems
from memspec.cases import Case, case_from_json, fixture_files, schema_errors
from memspec.requirements import load_requirements
from memspec.suite.registry import RegisteredCase, registered_cases

__all__ = ["lint", "spec_ops"]

_OP_ROW = re.compile(r"^\|\s*`([a-z]+\.[a-z_]+)`\s*\|")
_CASE_ID = re.compile(r"\b([a-z0-9]+(?:/[a-z0-9][a-z0-9-]*){2,})\b")
DIVERGENCES_PAGE = "divergences.md"


def spec_ops(root: Path | None = None) -> set[str]:
    """Every op named in the first column of a table in the spec pages."""
    base = root or spec_dir()
    found: set[str] = set()
    for page in base.glob("*.md"):
        for line in page.read_text(encoding="utf-8").splitlines():
            match = _OP_ROW.match(line)
            if match:
                found.add(match.group(1))
    return found


def _needs(case: Case) -> list[str]:
    """Capabilities the case's own fields imply, each of which it must list in requires."""
    needed = []
    if any("git" in action for action in case.setup):
        needed.append("git")
    if any(step.concurrent for step in case.steps):
        needed.append("concurrency")
    if any(step.crash_points for step in case.steps):
        needed.append("fault-injection")
    return needed


def _case_problems(case: Case, where: str) -> list[str]:
    problems = [
        f"{where}: uses {need} but does not list it in requires"
        for need in _needs(case)
        if need not in case.requires
    ]
    for index, step in enumerate(case.steps, 1):
        if step.crash_points and step.expect.tree is None:
            problems.append(f"{where}: step {index} has crash_points but no expected tree")
        if step.expect.results is not None and step.concurrent is None:
            problems.append(f"{where}: step {index} expects results but is not concurrent")
        if (
            step.concurrent is not None
            and step.expect.results is not None
            and len(step.expect.results) != step.concurrent.workers * step.concurrent.repeat
        ):
            problems.append(
                f"{where}: step {index} expects {len(step.expect.results)} "
                "results, not workers × repeat"
            )
        for expected in (step.expect, *(step.expect.any_of or ())):
            if expected.has_result and expected_leaks(step.op, expected.result):
                problems.append(f"{where}: step {index} expects a host path in model text")
    return problems + race_problems(case, where)


def lint(
    fixtures: Path | None = None, spec: Path | None = None, profiles: list[str] | None = None
) -> list[str]:
    """All problems found; an empty list means the corpus is clean."""
    fixtures_root = fixtures or fixtures_dir()
    spec_root = spec or spec_dir()
    problems: list[str] = []
    requirements = load_requirements(spec_root)
    for requirement_id, count in Counter(r.id for r in requirements).items():
        if count > 1:
            problems.append(f"spec: requirement {requirement_id} is defined {count} times")
    known = {r.id for r in requirements}
    ops = spec_ops(spec_root)
    seen: dict[str, Path] = {}
    diverging: set[str] = set()
    files = fixture_files(fixtures_root)
    if not files:
        problems.append(f"{fixtures_root}: no fixture files found")
    for path in files:
        where = path.relative_to(fixtures_root).as_posix()
        if profiles and where.split("/", 1)[0] not in profiles:
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            problems.append(f"{where}: not readable JSON: {exc}")
            continue
        errors = schema_errors(data)
        if errors:
            problems.extend(f"{where}: schema: {error}" for error in errors[:5])
            continue
        case = case_from_json(data, path)
        expected_id = path.relative_to(fixtures_root).with_suffix("").as_posix()
        if case.id != expected_id:
            problems.append(f"{where}: id {case.id!r} does not match the path {expected_id!r}")
        if case.id in seen:
            problems.append(f"{where}: duplicate id {case.id!r} (also {seen[case.id]})")
        seen[case.id] = path
        if case.divergence:
            diverging.add(case.id)
        problems.extend(_case_problems(case, where))
        for requirement_id in case.requirements:
            if requirement_id not in known:
                problems.append(f"{where}: unknown requirement id {requirement_id}")
            elif profile_of_requirement(requirement_id) != case.profile:
                problems.append(
                    f"{where}: requirement {requirement_id} is not of profile {case.profile!r}"
                )
        for step in case.steps:
            if profile_of_op(step.op) != case.profile:
                problems.append(f"{where}: op {step.op!r} is not of profile {case.profile!r}")
            elif step.op not in ops:
                problems.append(f"{where}: op {step.op!r} is not in any spec operations table")
    named = _named_on_divergences_page(spec_root)
    registered = registered_cases()
    problems.extend(_divergence_problems(named, seen, diverging, registered))
    problems.extend(_registered_problems(named or set(), known, registered))
    return problems


def _named_on_divergences_page(spec_root: Path) -> set[str] | None:
    """Every case id the divergences page names; None when there is no such page."""
    page = spec_root / DIVERGENCES_PAGE
    return set(_CASE_ID.findall(page.read_text(encoding="utf-8"))) if page.is_file() else None


def _registered_problems(
    named: set[str], known: set[str], registered: list[RegisteredCase]
) -> list[str]:
    """Suite tests: known requirements, and the divergences page names each that
    reaches a divergence."""
    problems = []
    specified = {profile_of_requirement(requirement_id) for requirement_id in known}
    for entry in registered:
        if entry.profile not in specified:
            continue
        for requirement_id in entry.requirements:
            if requirement_id not in known:
                problems.append(f"suite {entry.id}: unknown requirement id {requirement_id}")
        if entry.divergences and entry.id not in named:
            problems.append(
                f"suite {entry.id}: reaches {', '.join(entry.divergences)} but "
                f"spec/{DIVERGENCES_PAGE} does not name it"
            )
    return problems


def _divergence_problems(
    named: set[str] | None,
    cases: dict[str, Path],
    diverging: set[str],
    registered: list[RegisteredCase],
) -> list[str]:
    """Every case id named on the divergences page exists, and every case with a
    ``divergence`` field is named there. ``named`` is None when the page is missing."""
    if named is None:
        return [f"spec: {DIVERGENCES_PAGE} is missing"] if diverging else []
    of_cases = {case_id.split("/", 1)[0] for case_id in cases}
    fixture_ids = {
        case_id
        for case_id in named
        if case_id.split("/", 1)[0] in of_cases and not case_id.endswith("/crash-points")
    } - {entry.id for entry in registered}
    problems = [
        f"spec/{DIVERGENCES_PAGE}: names {case_id!r}, which is no case"
        for case_id in sorted(fixture_ids - set(cases))
    ]
    problems += [
        f"{case_id}: has a divergence field but spec/{DIVERGENCES_PAGE} does not name it"
        for case_id in sorted(diverging - fixture_ids)
    ]
    return problems
