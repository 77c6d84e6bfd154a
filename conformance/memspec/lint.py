"""Checks over the fixture corpus and the spec pages, each problem one line."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from memspec._data import fixtures_dir, spec_dir
from memspec.cases import case_from_json, fixture_files, schema_errors
from memspec.requirements import load_requirements

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


def lint(fixtures: Path | None = None, spec: Path | None = None) -> list[str]:
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
        for requirement_id in case.requirements:
            if requirement_id not in known:
                problems.append(f"{where}: unknown requirement id {requirement_id}")
            elif requirement_id.split("-", 1)[0].lower() != case.profile:
                problems.append(f"{where}: requirement {requirement_id} is not of profile "
                                f"{case.profile!r}")
        for step in case.steps:
            if step.op.split(".", 1)[0] != case.profile:
                problems.append(f"{where}: op {step.op!r} is not of profile {case.profile!r}")
            elif step.op not in ops:
                problems.append(f"{where}: op {step.op!r} is not in any spec operations table")
    problems.extend(_divergence_problems(spec_root, seen, diverging))
    return problems


def _divergence_problems(spec_root: Path, cases: dict[str, Path],
                         diverging: set[str]) -> list[str]:
    """Every case id named on the divergences page exists, and every case with a
    ``divergence`` field is named there."""
    page = spec_root / DIVERGENCES_PAGE
    if not page.is_file():
        return [f"spec: {DIVERGENCES_PAGE} is missing"] if diverging else []
    profiles = {case_id.split("/", 1)[0] for case_id in cases}
    named = {match for match in _CASE_ID.findall(page.read_text(encoding="utf-8"))
             if match.split("/", 1)[0] in profiles}
    problems = [f"spec/{DIVERGENCES_PAGE}: names {case_id!r}, which is no case"
                for case_id in sorted(named - set(cases))]
    problems += [f"{case_id}: has a divergence field but spec/{DIVERGENCES_PAGE} does not "
                 "name it" for case_id in sorted(diverging - named)]
    return problems
