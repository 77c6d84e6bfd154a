"""Fixtures, crash points, properties, differential properties, snapshots and protocol
checks accept the same answers and report the same outcomes: text in either wire form,
strict expected failures, selections that leave other entries alone, faults as errors,
and scratch folders handed to the adapter's user."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from conftest import HERE, Runner
from memref_variants import variant_cmd, variant_env
from unprivileged import NOBODY, unprivileged_memref

from memspec.corpus.cases import load_cases
from memspec.corpus.registry import registered_cases
from memspec.reports.report import read_report

SUITE = HERE.parent / "memspec" / "suite"


def _records(report: Path) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in read_report(report) if r["type"] == "case"}


_CLOSING = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)\b")


def _closing_counts(stdout: str) -> dict[str, int]:
    """The counts of pytest's closing line ("2 failed, 93 xpassed in 3.1s")."""
    line = next(line for line in reversed(stdout.splitlines()) if re.search(r" in [0-9.]+s", line))
    return {
        ("error" if word.startswith("error") else word): int(number)
        for number, word in _CLOSING.findall(line)
    }


def _assert_pytest_agrees(stdout: str, report: Path) -> None:
    footer = read_report(report)[-1]
    assert footer["type"] == "footer"
    counted = {outcome: n for outcome, n in footer["counts"].items() if n}
    assert _closing_counts(stdout) == counted, stdout[-800:]


def _expectations(path: Path, entries: dict[str, str]) -> Path:
    path.write_text(
        "".join(
            f'[[expected_failure]]\ncase = "{case}"\nreason = "{reason}"\n\n'
            for case, reason in entries.items()
        ),
        encoding="utf-8",
    )
    return path


def _entries(path: Path) -> dict[str, str]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return {entry["case"]: entry["reason"] for entry in data.get("expected_failure", [])}


def _run_listed(
    memspec_cli: Runner, tmp_path: Path, entries: dict[str, str], *arguments: str
) -> tuple[Any, Path, Path]:
    """Run with ``entries`` as expected failures and --write-expectations: the result, the
    report and the rewritten file."""
    expectations = _expectations(tmp_path / "x.toml", entries)
    report, rewritten = tmp_path / "r.jsonl", tmp_path / "rewritten.toml"
    result = memspec_cli(
        "run",
        *arguments,
        "--expectations",
        str(expectations),
        "--write-expectations",
        str(rewritten),
        "--hypothesis-profile",
        "dev",
        "--report",
        str(report),
        env=variant_env(),
    )
    return result, report, rewritten


def _one_case_of_each_kind(profile: str) -> dict[str, str]:
    """A case id of ``profile`` for each kind: fixture, crash points and the suite's kinds."""
    cases = load_cases(profiles=[profile])
    chosen = {"fixture": next(c.id for c in cases if not c.tree and len(c.steps) == 1)}
    crash = next((c.id for c in cases if any(s.crash_points for s in c.steps)), None)
    if crash is not None:
        chosen["crash-points"] = f"{crash}/crash-points"
    for entry in registered_cases():
        if entry.profile == profile:
            chosen.setdefault(entry.kind, entry.id)
    return chosen


# --- text as a string or as base64, for every kind ----------------------------------------


def test_text_sent_as_base64_passes_every_kind_of_case(memspec_cli: Runner, tmp_path: Path) -> None:
    """An adapter sending every string as {"base64": ...} passes what memref passes: the
    fixtures, and the properties and snapshots that decode the same replies."""
    report = tmp_path / "r.jsonl"
    result = memspec_cli(
        "run",
        "--adapter",
        "python:memref_variants:Base64Text",
        "-k",
        "property or snapshot or protocol or turnlog/outline",
        "--hypothesis-profile",
        "dev",
        "--report",
        str(report),
        env=variant_env(),
    )
    records = _records(report)
    assert result.returncode == 0, [r for r in records.values() if r["outcome"] != "passed"][:3]
    assert all(
        r["outcome"] == "passed" or r["message"].startswith("host:") for r in records.values()
    )
    for case_id in (
        "turnlog/outline/property-ranges-are-flat",
        "turnlog/outline/snapshot-rendered-outlines",
    ):
        assert records[case_id]["outcome"] == "passed"
    kinds = {r["kind"] for r in records.values()}
    assert {"fixture", "property", "differential", "snapshot", "protocol"} <= kinds
    assert len([r for r in records.values() if r["kind"] == "fixture"]) >= 90


# --- strict expected failures ------------------------------------------------------------


def test_an_expected_failure_that_passes_is_xpassed_for_every_kind(
    memspec_cli: Runner, tmp_path: Path
) -> None:
    """Listed cases of every kind that pass are xpassed, fail the run, leave the rewritten
    file, and pytest's closing line counts them as memspec does."""
    chosen = {
        *_one_case_of_each_kind("factstore").items(),
        *_one_case_of_each_kind("turnlog").items(),
        ("protocol", next(e.id for e in registered_cases() if e.kind == "protocol")),
    }
    kinds = {"fixture", "crash-points", "property", "differential", "snapshot", "protocol"}
    assert {kind for kind, _ in chosen} == kinds
    ids = sorted(case_id for _, case_id in chosen)
    result, report, rewritten = _run_listed(
        memspec_cli,
        tmp_path,
        dict.fromkeys(ids, "thought broken"),
        *[argument for case_id in ids for argument in ("--case", case_id)],
    )
    assert result.returncode == 1
    records = _records(report)
    assert set(records) == set(ids)
    assert {r["outcome"] for r in records.values()} == {"xpassed"}, records
    assert all("does not hold" not in r["message"] for r in records.values())
    assert _entries(rewritten) == {}
    _assert_pytest_agrees(result.stdout, report)


def test_pytest_closing_line_agrees_with_the_report_on_a_mixed_run(
    memspec_cli: Runner, tmp_path: Path
) -> None:
    """Passed, failed, xfailed and xpassed cases of several kinds in one run: pytest's
    closing line and the report's footer give the same counts."""
    result, report, _ = _run_listed(
        memspec_cli,
        tmp_path,
        {
            "turnlog/outline/snapshot-rendered-outlines": "wrong outlines",
            "turnlog/prompt/property-structure": "thought broken",
            "turnlog/filename/snapshot-names": "thought broken",
        },
        "--adapter",
        variant_cmd("WrongOutline"),
        "-k",
        "turnlog/outline or turnlog/prompt or turnlog/filename/snapshot",
    )
    assert result.returncode == 1
    counts = read_report(report)[-1]["counts"]
    assert counts["passed"] and counts["failed"] and counts["xfailed"] and counts["xpassed"] == 2
    _assert_pytest_agrees(result.stdout, report)


# --- selections and the expectations outside them --------------------------------------


def _outside_turnlog() -> dict[str, str]:
    """Entries for cases of every kind outside turnlog, which pass against memref."""
    entries: dict[str, str] = {}
    for profile in ("factstore", "memdir"):
        for kind, case_id in _one_case_of_each_kind(profile).items():
            entries[case_id] = f"a {kind} case of {profile}"
    entries[next(e.id for e in registered_cases() if e.kind == "protocol")] = "a protocol check"
    return entries


SELECTIONS = {
    "case": ("--case", "turnlog/prompt/property-structure"),
    "op": ("--op", "turnlog.turn_memory_enabled"),
    "keyword": ("-k", "turnlog/prompt"),
    "shard": ("--profile", "turnlog", "--shard", "3/16"),
}


@pytest.mark.parametrize("selection", SELECTIONS.values(), ids=SELECTIONS.keys())
def test_a_selection_ignores_and_keeps_the_entries_outside_it(
    memspec_cli: Runner, tmp_path: Path, selection: tuple[str, ...]
) -> None:
    """Entries for cases the selection leaves out are neither judged nor called stale,
    and a rewrite keeps them as they were."""
    entries = _outside_turnlog()
    result, report, rewritten = _run_listed(memspec_cli, tmp_path, entries, *selection)
    assert result.returncode == 0, result.stdout[-2000:]
    footer = read_report(report)[-1]
    assert "problems" not in footer
    records = _records(report)
    assert records and all(case_id.startswith("turnlog/") for case_id in records)
    assert _entries(rewritten) == entries


def test_a_selected_rewrite_changes_only_the_selected_entries(
    memspec_cli: Runner, tmp_path: Path
) -> None:
    """With --case, the selected case's entry goes (it passes now); every other stays."""
    selected = "turnlog/prompt/property-structure"
    others = _outside_turnlog()
    result, _, rewritten = _run_listed(
        memspec_cli, tmp_path, {**others, selected: "thought broken"}, "--case", selected
    )
    assert result.returncode == 1
    assert _entries(rewritten) == others


# --- an adapter that dies during a property -----------------------------------------------


def test_an_adapter_dying_during_a_property_is_an_error_in_protocol_terms(
    memspec_cli: Runner, tmp_path: Path
) -> None:
    """The case is an error naming the op, its args and what happened, with no Python
    internals (no Hypothesis text, no repr of the adapter)."""
    case_id = "turnlog/enabled/property-off-tokens"
    report = tmp_path / "r.jsonl"
    result = memspec_cli(
        "run",
        "--adapter",
        variant_cmd("DiesOnce", str(tmp_path / "died")),
        "--case",
        case_id,
        "--report",
        str(report),
        env=variant_env(),
    )
    assert result.returncode == 1
    record = _records(report)[case_id]
    assert record["outcome"] == "error"
    message = record["message"]
    for wanted in ("turnlog.turn_memory_enabled", "args:", "OGCODE_TURN_MEMORY", "exit code 3"):
        assert wanted in message, message
    assert "dying on purpose" in message
    for internal in ("Hypothesis", "Adapter(", "memspec_adapter", "Traceback", ".py", "Flaky"):
        assert internal not in message, message
    _assert_pytest_agrees(result.stdout, report)


# --- --tree-owner and every scratch folder ------------------------------------------------


def test_no_suite_module_makes_a_temporary_folder_of_its_own() -> None:
    """Every folder a suite test hands an adapter comes from the harness's one scratch
    function, which gives it to the --tree-owner user."""
    for module in sorted(SUITE.glob("*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        imported = {
            name
            for node in ast.walk(tree)
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for name in (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
            )
        }
        assert "tempfile" not in imported, module.name


def test_tree_owner_gives_property_and_snapshot_folders_to_the_adapter_user(
    memspec_cli: Runner, tmp_path: Path
) -> None:
    """The README's recipe (memref as uid 65534, --tree-owner 65534:65534): every property
    and snapshot passes, their scratch folders included."""
    with unprivileged_memref() as adapter:
        report = tmp_path / "r.jsonl"
        result = memspec_cli(
            "run",
            "-k",
            "property or snapshot",
            "--tree-owner",
            NOBODY,
            "--adapter",
            adapter,
            "--hypothesis-profile",
            "dev",
            "--report",
            str(report),
        )
    records = _records(report)
    assert result.returncode == 0, [r for r in records.values() if r["outcome"] != "passed"][:3]
    assert len(records) >= 35 and {r["outcome"] for r in records.values()} == {"passed"}
    for case_id in (
        "turnlog/write/property-file-layout",
        "turnlog/store/property-list-order",
        "turnlog/outline/snapshot-rendered-outlines",
    ):
        assert records[case_id]["outcome"] == "passed"
