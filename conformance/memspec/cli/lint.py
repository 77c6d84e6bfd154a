"""Checks over the fixture corpus and the spec pages, each problem one line."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from memspec.cli.description_lint import description_problems
from memspec.cli.op_lint import check_fixtures, never_omitted, schema_problems
from memspec.cli.requires_lint import op_capabilities, unused_requires
from memspec.corpus.case_paths import case_path_problems
from memspec.corpus.cases import Case, case_from_json, fixture_files, schema_errors
from memspec.corpus.data import fixtures_dir, spec_dir
from memspec.corpus.divergences import PAGE, DivergencePage, entries_named, read_divergence_page
from memspec.corpus.profiles import profile_of_op, profile_of_requirement
from memspec.corpus.registry import RegisteredCase, registered_cases
from memspec.corpus.requirements import load_requirements
from memspec.judge.model_text import expected_leaks
from memspec.run.captures import capture_problems
from memspec.run.race import race_problems

__all__ = ["lint", "spec_ops"]

_OP_ROW = re.compile(r"^\|\s*`([a-z]+\.[a-z_]+)`\s*\|")


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
    # crash_points needs no entry: only the crash-points run needs fault-injection, and it
    # checks the claim itself, so the ordinary run is for every adapter.
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
    fixtures: Path | None = None,
    spec: Path | None = None,
    profiles: list[str] | None = None,
    notes: list[str] | None = None,
) -> list[str]:
    """All problems found; an empty list means the corpus is clean. ``notes`` receives
    lines worth printing even when it is (what the op-schema check counted)."""
    fixtures_root = fixtures or fixtures_dir()
    spec_root = spec or spec_dir()
    problems: list[str] = []
    requirements = load_requirements(spec_root)
    for requirement_id, count in Counter(r.id for r in requirements).items():
        if count > 1:
            problems.append(f"spec: requirement {requirement_id} is defined {count} times")
    known = {r.id for r in requirements}
    ops = spec_ops(spec_root)
    needed_by_op = op_capabilities(spec_root)
    seen: dict[str, Path] = {}
    diverging: dict[str, Case] = {}
    files = fixture_files(fixtures_root)
    checked: list[Case] = []
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
        checked.append(case)
        if case.divergence:
            diverging[case.id] = case
        problems.extend(_case_problems(case, where))
        problems.extend(f"{where}: {problem}" for problem in unused_requires(case, needed_by_op))
        problems.extend(f"{where}: {problem}" for problem in description_problems(case))
        problems.extend(f"{where}: {problem}" for problem in case_path_problems(case))
        problems.extend(f"{where}: {problem}" for problem in capture_problems(case))
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
    schemas = check_fixtures(checked, fixtures_root)
    problems.extend(schemas.problems)
    problems.extend(never_omitted(checked, profiles))
    problems.extend(schema_problems(ops, profiles))
    if notes is not None:
        notes.append(schemas.summary())
    registered = registered_cases()
    page_path = spec_root / PAGE
    page = read_divergence_page(page_path) if page_path.is_file() else None
    problems.extend(_divergence_problems(page, seen, diverging, registered))
    problems.extend(_registered_problems(known, registered))
    return problems


def _registered_problems(known: set[str], registered: list[RegisteredCase]) -> list[str]:
    """Suite tests name known requirements."""
    problems = []
    specified = {profile_of_requirement(requirement_id) for requirement_id in known}
    for entry in registered:
        if entry.profile not in specified:
            continue
        for requirement_id in entry.requirements:
            if requirement_id not in known:
                problems.append(f"suite {entry.id}: unknown requirement id {requirement_id}")
    return problems


def _divergence_problems(
    page: DivergencePage | None,
    cases: dict[str, Path],
    diverging: dict[str, Case],
    registered: list[RegisteredCase],
) -> list[str]:
    """Each case naming a divergence is listed under that entry of the divergences page,
    and each case an entry lists exists and names it: fixture cases through their
    ``divergence`` field, suite tests through ``divergences``. ``page`` is None when
    there is no page."""
    where = f"spec/{PAGE}"
    if page is None:
        return [f"spec: {PAGE} is missing"] if diverging else []
    problems = list(page.problems)
    names: dict[str, set[str]] = {}
    for case_id, case in sorted(diverging.items()):
        named, unnamed = entries_named(case.divergence, case.profile)
        problems.extend(
            f"{case_id}: divergence {part[:60]!r} does not start with an entry "
            f"(`{case.profile}#<row>: ...`)"
            for part in unnamed
        )
        names[case_id] = set(named)
    suite = {entry.id: entry for entry in registered}
    for entry in registered:
        if entry.divergences:
            names[entry.id] = set(entry.divergences)
    of_cases = {case_id.split("/", 1)[0] for case_id in cases}
    for case_id, entries in sorted(names.items()):
        for name in sorted(entries):
            if name not in page.entries:
                problems.append(f"{case_id}: names {name}, which {where} does not have")
            elif case_id not in page.entries[name].cases:
                problems.append(f"{case_id}: names {name} but is not listed under it in {where}")
    for name, listed in sorted(page.entries.items()):
        for case_id in sorted(listed.cases):
            base = case_id.removesuffix("/crash-points")
            if base not in cases and base not in suite:
                if base.split("/", 1)[0] in of_cases:
                    problems.append(f"{where}: {name} lists {case_id!r}, which is no case")
            elif name not in names.get(base, set()):
                problems.append(f"{where}: {name} lists {case_id}, which does not name it")
    return problems
