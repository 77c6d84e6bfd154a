"""The real implementations in ``implementations/`` fail only what the spec records.

Each implementation's expectations file lists the cases it is expected to fail, and each
entry's reason names the rows of ``spec/divergences.md`` behind it: ``drift: <row>`` for a
row of a drift table (a port that answers differently from the seed), ``divergence:
<profile>#<n>`` or ``divergence: <row>`` for a fix of the spec or an adaptation. Every
named row must exist under the case's profile, and must list the case among the ones that
show it.

The reports come from ``.ci/implementations``, which installs each implementation and runs
its profile with its expectations file, as root and (a ``cmd:`` adapter) as uid 65534.
``.ci/run`` runs it before the tests and sets ``MEMSPEC_IMPLEMENTATION_REPORTS`` to the
folder of the reports; with the variable set, a missing report fails. Without it (a
developer's run of ``pytest``), the reports are looked for in
``build/implementations/reports``, where ``.ci/implementations`` writes them, and an
implementation with no report there is skipped with a ``host:`` reason that says how to
make one. The expectations files are checked either way.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from memspec.corpus.cases import load_cases
from memspec.corpus.divergences import PAGE as PAGE_NAME
from memspec.corpus.divergences import Entry, read_divergence_page
from memspec.corpus.expectations import load_expectations
from memspec.corpus.registry import registered_cases
from memspec.reports.report import read_report

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

_NAMED = re.compile(r"\b(drift|divergence): ([a-z0-9]+#\d+|[a-z0-9][a-z0-9-]*)")
_FAILING = ("failed", "error", "xpassed")


ENTRIES = read_divergence_page(REPO / "spec" / PAGE_NAME).entries


def _base_case(case_id: str) -> str:
    return case_id.removesuffix("/crash-points")


def reason_problems(case_id: str, reason: str, entries: dict[str, Entry] = ENTRIES) -> list[str]:
    """What is wrong with one expectation's reason; nothing when it names recorded rows
    that show the case."""
    named = _NAMED.findall(reason)
    if not named or not _NAMED.match(reason):
        return [f"{case_id}: the reason {reason!r} starts with no 'drift: ' or 'divergence: '"]
    profile = case_id.split("/", 1)[0]
    problems = []
    for kind, name in named:
        entry = entries.get(name if "#" in name else f"{profile}#{name}")
        if entry is None:
            problems.append(f"{case_id}: spec/divergences.md has no {profile} row {name!r}")
        elif entry.kind != kind:
            problems.append(f"{case_id}: {name!r} is a {entry.kind} row, not a {kind} row")
        elif _base_case(case_id) not in entry.cases:
            problems.append(f"{case_id}: the {profile} row {name!r} does not list this case")
    return problems


def _expectations(name: str) -> dict[str, str]:
    return {
        case: e.reason
        for case, e in load_expectations(IMPLEMENTATIONS / name / EXPECTATIONS).items()
    }


@pytest.mark.parametrize("name", NAMES)
def test_every_expected_failure_names_a_recorded_row_that_shows_it(name: str) -> None:
    known = {case.id for case in load_cases()} | {entry.id for entry in registered_cases()}
    problems = []
    for case_id, reason in _expectations(name).items():
        if _base_case(case_id) not in known:
            problems.append(f"{case_id}: no such case")
        problems += reason_problems(case_id, reason)
    assert problems == []


RUN_AS_NOBODY = {
    "anthropic-python",
    "anthropic-python-async",
    "anthropic-typescript",
    "hermes-agent",
    "toolnexus-python",
}
"""The implementations (their adapters are cmd: ones) that .ci/implementations also runs
as uid 65534, their reports in reports/nobody/."""


def _report(name: str, way: str) -> list[dict[str, Any]]:
    configured = os.environ.get(REPORTS_VARIABLE)
    path = Path(configured or DEFAULT_REPORTS) / way / f"{name}.jsonl"
    if not path.is_file():
        if configured:
            pytest.fail(f"{REPORTS_VARIABLE}={configured}: no report {way}/{path.name} there")
        pytest.skip(
            f"host: no report of {name} in {DEFAULT_REPORTS.relative_to(REPO)}; "
            "run .ci/implementations to install the implementations and make their reports"
        )
    return read_report(path)


@pytest.mark.parametrize("name", NAMES)
def test_the_reports_fail_exactly_the_expected_cases(name: str) -> None:
    """As root and as uid 65534, nothing fails unexpectedly, and between them the two
    runs fail every listed case (a case that needs a non-root user runs only in one)."""
    xfailed: set[str] = set()
    host_skipped: set[str] | None = None
    for way in ("", "nobody") if name in RUN_AS_NOBODY else ("",):
        lines = _report(name, way)
        header, records, footer = lines[0], lines[1:-1], lines[-1]
        assert header.get("type") == "header" and footer.get("type") == "footer"
        assert header["implementation"]["name"] == name
        assert not footer.get("interrupted") and not footer.get("adapter_broken"), footer
        failing = [
            f"{way or 'root'}: {r['id']}: {r['outcome']}: {r['message'][:3000]}"
            for r in records
            if r["outcome"] in _FAILING
        ]
        assert not failing, "\n".join(failing)
        xfailed |= {r["id"] for r in records if r["outcome"] == "xfailed"}
        # A case this host skips in every run (one that needs a non-root user, in an
        # in-process run, which stays root) keeps its entry for the runs that can hold it.
        skipped = {
            r["id"]
            for r in records
            if r["outcome"] == "skipped" and r.get("message", "").startswith("host:")
        }
        host_skipped = skipped if host_skipped is None else host_skipped & skipped
        profiles = {r["profile"] for r in records}
        current = {case.id for case in load_cases(profiles=profiles)}
        stale = sorted(current - {r["id"] for r in records})
        assert stale == [], (
            f"the report predates these cases: rerun .ci/implementations ({stale[:5]})"
        )
    assert xfailed == set(_expectations(name)) - (host_skipped or set())


def test_a_typescript_sdk_that_reads_outside_fails_its_own_gate() -> None:
    """The TypeScript SDK adapter with a view through ``..`` that reads outside the root
    (``conformance/tests/variants/typescript_reads_outside.js``), run with the SDK's own
    expectations file: each case it reads outside in fails, and the message shows the
    listed and the observed reply, the file's text outside among them."""
    lines = _report("anthropic-typescript-reads-outside", "variants")
    records = {r["id"]: r for r in lines[1:-1]}
    for case, secret in (
        ("memories/paths/dotdot-view-outside", "outside secret"),
        ("memories/paths/backup-dotdot-view", "backup secret"),
    ):
        record = records[case]
        assert record["outcome"] == "failed", record
        assert "listed:" in record["message"] and "observed:" in record["message"]
        assert secret in record["message"], record["message"]
    assert lines[-1]["counts"]["failed"] >= 2


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


def _entries_of(page: str, folder: Path) -> dict[str, Entry]:
    (folder / PAGE_NAME).write_text(page, encoding="utf-8")
    return read_divergence_page(folder / PAGE_NAME).entries


def test_rows_marked_drift_are_drift_rows_and_the_rest_divergences(tmp_path: Path) -> None:
    entries = _entries_of(PAGE, tmp_path)
    assert sorted(entries) == ["demo#torn", "demo#wide", "other#1"]
    assert entries["demo#wide"].kind == "drift"
    assert entries["demo#wide"].cases == {"demo/area/trim-one", "demo/area/trim-two"}
    assert entries["demo#torn"].kind == entries["other#1"].kind == "divergence"
    assert entries["other#1"].cases == {"other/area/first"}


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
    case_id: str, reason: str, problem: str | None, tmp_path: Path
) -> None:
    problems = reason_problems(case_id, reason, _entries_of(PAGE, tmp_path))
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


def test_each_implementation_is_run_once_a_missed_race_is_never_retried() -> None:
    """A race or concurrency case spends its budget in one run (``memspec.run.runner``,
    ``memspec.run.race``): a gate that retries what it missed fails by chance."""
    script = (REPO / ".ci" / "implementations").read_text(encoding="utf-8")
    run = script[script.index("\nrun() {") : script.index("\n}\n", script.index("\nrun() {"))]
    assert run.count('"$memspec" run') == 1
    assert not re.search(r"\bfor attempt\b|races_missed|again", script)
