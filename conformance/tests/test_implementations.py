"""The real implementations in ``implementations/`` fail only what the spec records.

Each implementation's expectations file lists the cases it is expected to fail, and each
entry's reason names the rows of ``spec/divergences.md`` behind it: ``drift: <row>`` for a
row of a drift table (a port that answers differently from the seed), ``divergence:
<profile>#<n>`` or ``divergence: <row>`` for a fix of the spec or an adaptation. Every
named row must exist under the case's profile, and must list the case among the ones that
show it.

The reports come from ``.ci/implementations``, which installs each implementation and runs
its profile with its expectations file. ``.ci/run`` runs it before the tests and sets
``MEMSPEC_IMPLEMENTATION_REPORTS`` to the folder of the reports; with the variable set, a
missing report fails. Without it (a developer's run of ``pytest``), the reports are looked
for in ``build/implementations/reports``, where ``.ci/implementations`` writes them, and an
implementation with no report there is skipped with a ``host:`` reason that says how to
make one. The expectations files are checked either way.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memspec.cases import load_cases
from memspec.expectations import load_expectations
from memspec.report import read_report
from memspec.suite.registry import registered_cases

REPO = Path(__file__).resolve().parents[2]
IMPLEMENTATIONS = REPO / "implementations"
EXPECTATIONS = "expectations.toml"
REPORTS_VARIABLE = "MEMSPEC_IMPLEMENTATION_REPORTS"
DEFAULT_REPORTS = REPO / "build" / "implementations" / "reports"
NAMES = sorted(
    path.name
    for path in IMPLEMENTATIONS.iterdir()
    if path.is_dir() and (path / EXPECTATIONS).is_file()
)

_PROFILE_HEADING = re.compile(r"^## `([a-z0-9]+)`", re.MULTILINE)
_ENTRY_HEADING = re.compile(r"^### ", re.MULTILINE)
_TABLE_ROW = re.compile(r"^\| *(`[a-z0-9-]+`|\d+) *\|([^|\n]*)\|", re.MULTILINE)
_CASE_ID = re.compile(r"\b([a-z0-9]+(?:/[a-z0-9][a-z0-9-]*){2,})\b")
_NAMED = re.compile(r"\b(drift|divergence): ([a-z0-9]+#\d+|[a-z0-9][a-z0-9-]*)")
_FAILING = ("failed", "error", "xpassed")


@dataclass(frozen=True)
class Entry:
    """One row of a profile's table on the divergences page and the cases its section lists."""

    profile: str
    name: str
    kind: str  # "drift" or "divergence"
    cases: frozenset[str]


def divergence_entries(page: str) -> dict[tuple[str, str], Entry]:
    """(profile, name) -> entry. A numbered row ``n`` is named ``<profile>#<n>``, a named row
    by its name; the k-th ``###`` section of a profile describes its k-th row."""
    entries: dict[tuple[str, str], Entry] = {}
    headings = list(_PROFILE_HEADING.finditer(page))
    for index, heading in enumerate(headings):
        profile = heading.group(1)
        end = headings[index + 1].start() if index + 1 < len(headings) else len(page)
        body = page[heading.end() : end]
        starts = [match.start() for match in _ENTRY_HEADING.finditer(body)]
        sections = [body[s:e] for s, e in zip(starts, [*starts[1:], len(body)], strict=True)]
        rows = _TABLE_ROW.findall(body[: starts[0]] if starts else body)
        assert len(rows) == len(sections), (
            f"spec/divergences.md, {profile}: {len(rows)} table rows but {len(sections)} sections"
        )
        for (first, second), section in zip(rows, sections, strict=True):
            if first.startswith("`"):
                name = first.strip("`")
                kind = "drift" if second.strip() == "drift" else "divergence"
                assert section.startswith(f"### `{name}`"), (profile, name, section[:80])
            else:
                name, kind = f"{profile}#{first}", "divergence"
            entries[profile, name] = Entry(
                profile, name, kind, frozenset(_CASE_ID.findall(section))
            )
    return entries


ENTRIES = divergence_entries((REPO / "spec" / "divergences.md").read_text(encoding="utf-8"))


def _base_case(case_id: str) -> str:
    return case_id.removesuffix("/crash-points")


def reason_problems(
    case_id: str, reason: str, entries: dict[tuple[str, str], Entry] = ENTRIES
) -> list[str]:
    """What is wrong with one expectation's reason; nothing when it names recorded rows
    that show the case."""
    named = _NAMED.findall(reason)
    if not named or not _NAMED.match(reason):
        return [f"{case_id}: the reason {reason!r} starts with no 'drift: ' or 'divergence: '"]
    profile = case_id.split("/", 1)[0]
    problems = []
    for kind, name in named:
        entry = entries.get((profile, name))
        if entry is None:
            problems.append(f"{case_id}: spec/divergences.md has no {profile} row {name!r}")
        elif entry.kind != kind:
            problems.append(f"{case_id}: {name!r} is a {entry.kind} row, not a {kind} row")
        elif _base_case(case_id) not in entry.cases:
            problems.append(f"{case_id}: the {profile} row {name!r} does not list this case")
    return problems


def _expectations(name: str) -> dict[str, str]:
    return load_expectations(IMPLEMENTATIONS / name / EXPECTATIONS)


@pytest.mark.parametrize("name", NAMES)
def test_every_expected_failure_names_a_recorded_row_that_shows_it(name: str) -> None:
    known = {case.id for case in load_cases()} | {entry.id for entry in registered_cases()}
    problems = []
    for case_id, reason in _expectations(name).items():
        if _base_case(case_id) not in known:
            problems.append(f"{case_id}: no such case")
        problems += reason_problems(case_id, reason)
    assert problems == []


def _report(name: str) -> list[dict[str, Any]]:
    configured = os.environ.get(REPORTS_VARIABLE)
    path = Path(configured or DEFAULT_REPORTS) / f"{name}.jsonl"
    if not path.is_file():
        if configured:
            pytest.fail(f"{REPORTS_VARIABLE}={configured}: no report {path.name} there")
        pytest.skip(
            f"host: no report of {name} in {DEFAULT_REPORTS.relative_to(REPO)}; "
            "run .ci/implementations to install the implementations and make their reports"
        )
    return read_report(path)


@pytest.mark.parametrize("name", NAMES)
def test_the_report_fails_exactly_the_expected_cases(name: str) -> None:
    lines = _report(name)
    header, records, footer = lines[0], lines[1:-1], lines[-1]
    assert header.get("type") == "header" and footer.get("type") == "footer"
    assert header["implementation"]["name"] == name
    assert not footer.get("interrupted") and not footer.get("adapter_broken"), footer
    failing = [
        f"{r['id']}: {r['outcome']}: {r['message'][:300]}"
        for r in records
        if r["outcome"] in _FAILING
    ]
    assert failing == []
    xfailed = {r["id"] for r in records if r["outcome"] == "xfailed"}
    assert xfailed == set(_expectations(name))
    profiles = {r["profile"] for r in records}
    current = {case.id for case in load_cases(profiles=profiles)}
    stale = sorted(current - {r["id"] for r in records})
    assert stale == [], f"the report predates these cases: rerun .ci/implementations ({stale[:5]})"


PAGE = """# Divergences

## `demo` (the seed)

| row | kind | ports | seed | spec | clause |
|---|---|---|---|---|---|
| `wide` | drift | the port trims more | trims less | trims less | port drift |
| `torn` | fix | all | writes in place | renames | corrupts a file |

### `wide`: the port trims more

- **Cases:** demo/area/trim-one, demo/area/trim-two.

### `torn`: the file is rewritten in place

- **Cases:** demo/area/crash.

## `other` (another seed)

| # | area | seed | spec | clause |
|---|---|---|---|---|
| 1 | area | a | b | documented contract |

### The first

- **Cases:** `other/area/first`.
"""


def test_the_page_is_read_row_by_row_with_the_cases_of_each() -> None:
    entries = divergence_entries(PAGE)
    assert sorted(entries) == [("demo", "torn"), ("demo", "wide"), ("other", "other#1")]
    assert entries["demo", "wide"] == Entry(
        "demo", "wide", "drift", frozenset({"demo/area/trim-one", "demo/area/trim-two"})
    )
    assert entries["demo", "torn"].kind == "divergence"
    assert entries["other", "other#1"].cases == {"other/area/first"}


@pytest.mark.parametrize(
    ("case_id", "reason", "problem"),
    [
        ("demo/area/trim-one", "drift: wide", None),
        ("demo/area/crash/crash-points", "divergence: torn", None),
        ("other/area/first", "divergence: other#1 (the seed answers a)", None),
        ("demo/area/trim-one", "drift: wide; divergence: torn", "does not list this case"),
        ("demo/area/trim-one", "trims more; drift: wide", "starts with no"),
        ("demo/area/trim-one", "failing when the suite was adopted", "starts with no"),
        ("demo/area/trim-one", "drift: narrow", "has no demo row 'narrow'"),
        ("demo/area/crash", "drift: torn", "is a divergence row, not a drift row"),
        ("demo/area/trim-two", "divergence: wide", "is a drift row, not a divergence row"),
        ("other/area/first", "divergence: other#2", "has no other row 'other#2'"),
    ],
)
def test_a_reason_names_rows_that_exist_and_show_the_case(
    case_id: str, reason: str, problem: str | None
) -> None:
    problems = reason_problems(case_id, reason, divergence_entries(PAGE))
    if problem is None:
        assert problems == []
    else:
        assert len(problems) == 1 and problem in problems[0], problems


def test_the_python_sdk_adapters_pin_the_same_packages() -> None:
    """``.ci/implementations`` installs them into one virtualenv."""
    sync, asynchronous = (
        (IMPLEMENTATIONS / name / "requirements.txt").read_text(encoding="utf-8")
        for name in ("anthropic-python", "anthropic-python-async")
    )
    assert sync == asynchronous
