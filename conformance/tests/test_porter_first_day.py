"""What a porter meets on the first day: failures that explain themselves, reports that
never lie, a command line without sharp edges. One test (or a few) per item."""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import Runner, demo_records, fake_cmd, fakes_env, outcomes
from hand_reports import stopped_run

from memspec.cli.main import _parser
from memspec.corpus.cases import schema_errors
from memspec.judge.messages import describe_difference, visible
from memspec.reports.report import CaseRecord, read_report, unclaimed_line
from memspec.wire.protocol import report_line_errors
from memspec.wire.working_directory import scratch_base

MEMDIR_FAKE = "python:memdir_fakes:"


# 1. The to-do list


def test_the_end_of_a_run_groups_what_is_left_by_op_and_requirement(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    summary = tmp_path / "s.md"
    result = memspec_cli(
        "run", "--adapter", fake_cmd("wrong"), "--summary", str(summary), env=demo_env
    )
    assert result.returncode == 1
    assert "To do, by op:\n  wrong: demo.echo — 2 cases" in result.stdout
    assert "To do, by requirement:\n  DEMO-ECHO-001 — 2 cases" in result.stdout
    assert "| wrong: demo.echo | 2 |" in summary.read_text(encoding="utf-8")


def test_a_missing_op_is_grouped_as_unknown_op(memspec_cli: Runner) -> None:
    result = memspec_cli(
        "run",
        "--adapter",
        MEMDIR_FAKE + "ThreeOps",
        "--op",
        "memdir.project_key",
        "--op",
        "memdir.parse_memory_type",
        env=fakes_env(),
    )
    assert result.returncode == 1
    assert "unknown-op: memdir.project_key — 75 cases" in result.stdout
    assert "wrong: memdir.parse_memory_type — " in result.stdout


def test_a_case_answered_unknown_op_is_grouped_as_unknown_op_whatever_else_failed(
    memspec_cli: Runner, tmp_path: Path
) -> None:
    """A skeleton answers unknown-op to every hermes op: each failing case is listed under
    unknown-op, those whose tree differs too included, and none under wrong."""
    skeleton = tmp_path / "stub"
    assert memspec_cli("new-adapter", "--lang", "python", str(skeleton)).returncode == 0
    report = tmp_path / "r.jsonl"
    result = memspec_cli(
        "run",
        "--adapter",
        f"cmd:{sys.executable} {skeleton / 'adapter.py'}",
        "--profile",
        "hermes",
        "-k",
        "budget",
        "--report",
        str(report),
    )
    assert result.returncode == 1, result.stdout + result.stderr
    failing = [r for r in read_report(report) if r.get("outcome") == "failed"]
    with_tree = [r for r in failing if "tree: the tree after the step differs" in r["message"]]
    assert with_tree, "no case whose tree differs too"
    todo = result.stdout.split("To do, by op:\n", 1)[1].split("To do, by requirement:")[0]
    assert "wrong:" not in todo, todo
    counts = [int(n) for n in re.findall(r"unknown-op: hermes\.\w+ — (\d+) case", todo)]
    assert sum(counts) == len(failing), todo


# 2. One failure, readable


def test_a_failure_shows_op_args_expected_actual_and_the_explain_command(
    memspec_cli: Runner, tmp_path: Path
) -> None:
    report = tmp_path / "r.jsonl"
    memspec_cli(
        "run",
        "--adapter",
        MEMDIR_FAKE + "ThreeOps",
        "--profile",
        "memdir",
        "--case",
        "memdir/type/known-user",
        "--report",
        str(report),
        env=fakes_env(),
    )
    record = next(r for r in read_report(report) if r.get("id") == "memdir/type/known-user")
    assert record["outcome"] == "failed"
    lines = record["message"].splitlines()
    assert lines[0] == "memdir.parse_memory_type: wrong result"
    assert lines[1] == '  args: {"raw": "user"}'
    assert lines[2].startswith("  expected: ") and lines[3].startswith("  actual:   ")
    assert lines[-1] == "  see: memspec explain memdir/type/known-user"


def test_long_values_are_shown_as_a_diff_at_the_first_difference() -> None:
    expected = "a" * 1000 + "\nline two\n"
    actual = "a" * 1000 + "\nline 2\n"
    lines = describe_difference(expected, actual)
    assert lines[0] == (
        "  expected 1010 chars, actual 1008 chars; first difference at offset 1006 (line 2):"
    )
    assert lines[1].endswith("\\nline two\\n…") and lines[2].endswith("\\nline 2\\n…")


def test_look_alike_and_invisible_characters_are_escaped() -> None:
    assert visible("i\u0307d") == "i\\u0307d"
    assert visible("\u00e9t\u00e9") == "\u00e9t\u00e9"
    assert visible("e\u0301t") == "e\\u0301t"
    assert visible("a\u200bb\x00") == "a\\u200bb\\u0000"
    assert describe_difference("id", "i\u0307d")[1] == '  actual:   "i\\u0307d"'


def test_a_failure_prints_once_through_the_plugin(memspec_cli: Runner) -> None:
    result = memspec_cli(
        "run",
        "--adapter",
        MEMDIR_FAKE + "ThreeOps",
        "--profile",
        "memdir",
        "--case",
        "memdir/type/known-user",
        env=fakes_env(),
    )
    assert result.stdout.count("see: memspec explain memdir/type/known-user") == 1
    assert "During handling" not in result.stdout + result.stderr


# 3. Properties speak the protocol


def test_a_failing_property_shows_the_shrunk_input_as_json_and_exports_it(
    memspec_cli: Runner, tmp_path: Path
) -> None:
    report, exported = tmp_path / "r.jsonl", tmp_path / "exported"
    case_id = "memdir/age/property-age-days-floors-elapsed-days"
    result = memspec_cli(
        "run",
        "--adapter",
        MEMDIR_FAKE + "FloatDays",
        "--case",
        case_id,
        "--report",
        str(report),
        "--export-failures",
        str(exported),
        env=fakes_env(),
    )
    assert result.returncode == 1
    message = next(r for r in read_report(report) if r.get("id") == case_id)["message"]
    assert "op:    memdir.age_days" in message and "args:  {" in message
    assert "reply: {" in message and f"rerun: memspec run --case {case_id}" in message
    assert "memdir#2" in message
    for forbidden in ("reproduce_failure", "memref", "Traceback", ".py:"):
        assert forbidden not in message
    files = list(exported.rglob("*.json"))
    assert len(files) == 1
    fixture = json.loads(files[0].read_text(encoding="utf-8"))
    assert schema_errors(fixture) == [] and fixture["op"] == "memdir.age_days"
    assert isinstance(fixture["expect"]["result"], int)
    from memspec.cli.lint import lint

    exported_text = files[0].read_text(encoding="utf-8")
    assert "/tmp" not in exported_text and str(scratch_base()) not in exported_text
    problems = lint(fixtures=exported, profiles=["memdir"])
    assert [p for p in problems if p.startswith("memdir/")] == []


def test_runs_are_deterministic_by_default() -> None:
    run = next(
        a
        for a in _parser()._subparsers._group_actions[0].choices["run"]._actions  # type: ignore[union-attr]
        if a.dest == "hypothesis_profile"
    )
    assert run.default == "ci"
    from memspec.plugin.run_state import HYPOTHESIS_PROFILES

    assert HYPOTHESIS_PROFILES["memspec-ci"]["derandomize"] is True


# 4. Snapshot cases


def test_a_snapshot_case_reports_a_missing_op_with_the_reply(
    memspec_cli: Runner, tmp_path: Path
) -> None:
    report = tmp_path / "r.jsonl"
    case_id = "memdir/index/snapshot-truncation-warnings"
    memspec_cli(
        "run",
        "--adapter",
        MEMDIR_FAKE + "ThreeOps",
        "--case",
        case_id,
        "--report",
        str(report),
        env=fakes_env(),
    )
    record = next(r for r in read_report(report) if r.get("id") == case_id)
    assert record["outcome"] == "failed"
    assert "memdir.truncate_index answered error 'unknown-op'" in record["message"]
    assert "KeyError" not in record["message"]


# 5. Selecting cases


@pytest.mark.parametrize(
    ("selection", "expected"),
    [
        (
            ("-k", "property-agrees-with-reference"),
            {"memdir/frontmatter/property-agrees-with-reference"},
        ),
        (("-k", "snapshot-manifest"), {"memdir/manifest/snapshot-manifest"}),
        (
            ("--case", "memdir/type/empty", "--case", "memdir/type/team"),
            {"memdir/type/empty", "memdir/type/team"},
        ),
    ],
)
def test_cases_are_selected_by_id_whatever_their_kind(
    memspec_cli: Runner, tmp_path: Path, selection: tuple[str, ...], expected: set[str]
) -> None:
    report = tmp_path / "r.jsonl"
    result = memspec_cli("run", "--profile", "memdir", *selection, "--report", str(report))
    assert result.returncode == 0, result.stdout[-2000:]
    assert {r["id"] for r in read_report(report) if r["type"] == "case"} == expected


def test_op_selects_the_cases_that_call_it(memspec_cli: Runner, tmp_path: Path) -> None:
    report = tmp_path / "r.jsonl"
    result = memspec_cli("run", "--op", "memdir.parse_memory_type", "--report", str(report))
    assert result.returncode == 0
    records = [r for r in read_report(report) if r["type"] == "case"]
    assert len(records) >= 20 and all(r["ops"] == ["memdir.parse_memory_type"] for r in records)


# 6. The run says what it did


def test_the_run_names_the_adapter_first_and_counts_and_reports_last(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    report = tmp_path / "r.jsonl"
    result = memspec_cli(
        "run", "--adapter", fake_cmd("crash"), "--report", str(report), env=demo_env
    )
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"memspec: adapter {fake_cmd('crash')}: fake-crash 0 (python)")
    assert f"report: {report}" in lines
    counts = read_report(report)[-1]["counts"]
    assert counts["error"] >= 2 and counts["failed"] == 0
    assert f"{counts['passed']} passed, {counts['error']} error" in result.stdout
    assert f"{counts['error']} errors" in lines[-1] and "failed" not in lines[-1]


def test_verbose_lines_show_case_ids(demo_env: dict[str, str], memspec_cli: Runner) -> None:
    result = memspec_cli("run", "--adapter", fake_cmd("good"), "-v", env=demo_env)
    assert "PASSED   demo/echo/plain" in result.stdout
    assert "site-packages" not in result.stdout and "test_cases.py" not in result.stdout


def test_skips_are_grouped_by_reason(memspec_cli: Runner) -> None:
    result = memspec_cli(
        "run",
        "--adapter",
        MEMDIR_FAKE + "ThreeOpsNoSymlinks",
        "--op",
        "memdir.load",
        env=fakes_env(),
    )
    assert "Skipped: not claimed: capability symlinks — " in result.stdout


def test_the_summary_names_the_capabilities_not_claimed_in_one_line(
    memspec_cli: Runner, tmp_path: Path
) -> None:
    """A run that skips every case of a capability exits 0 and looks like a full pass,
    so the terminal and the Markdown summary say in one line what it left out."""
    summary, report = tmp_path / "s.md", tmp_path / "r.jsonl"
    result = memspec_cli(
        "run",
        "--adapter",
        MEMDIR_FAKE + "ThreeOpsNoSymlinks",
        "--op",
        "memdir.load",
        "--observer",
        "none",
        "--summary",
        str(summary),
        "--report",
        str(report),
        env=fakes_env(),
    )
    records = [r for r in read_report(report) if r.get("type") == "case"]
    skipped = [r for r in records if r["message"].startswith("not claimed: capability")]
    assert {r["message"] for r in skipped} == {
        "not claimed: capability symlinks",
        "not claimed: capability fault-injection",
    }
    line = f"the adapter did not claim fault-injection, symlinks: {len(skipped)} cases left out"
    assert line in result.stdout.splitlines()
    assert f"**{line}.**" in summary.read_text(encoding="utf-8")


def test_a_case_missing_two_capabilities_counts_once() -> None:
    def record(case_id: str, outcome: str, message: str) -> CaseRecord:
        return CaseRecord(case_id, "p", (), outcome, message, 0.0)

    records = [
        record("p/a/one", "skipped", "not claimed: capability symlinks, fifos"),
        record("p/a/two", "skipped", "not claimed: capability fault-injection"),
        record("p/a/three", "skipped", "host: the case needs a non-root user"),
        record("p/a/four", "passed", ""),
    ]
    assert unclaimed_line(records) == (
        "the adapter did not claim fault-injection, fifos, symlinks: 2 cases left out"
    )
    assert unclaimed_line(records[2:]) == ""


# 7. explain


def test_explain_prints_the_sentence_a_requirement_points_to(memspec_cli: Runner) -> None:
    result = memspec_cli("explain", "MEMDIR-IDX-008")
    assert result.returncode == 0
    assert "The warning MUST be the sentence above" in result.stdout
    assert "Only part of it was loaded." in result.stdout


# 8. Bad report paths


@pytest.mark.parametrize("option", ["--report", "--junit", "--summary"])
@pytest.mark.parametrize("where", ["missing-dir", "a-directory", "read-only"])
def test_bad_report_paths_are_refused_before_the_run(
    option: str, where: str, memspec_cli: Runner, tmp_path: Path
) -> None:
    if where == "read-only" and os.geteuid() == 0:
        target = Path("/proc/memspec-report")  # a filesystem that refuses new files
    elif where == "read-only":
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        target = locked / "r"
    elif where == "missing-dir":
        target = tmp_path / "nosuchdir" / "r"
    else:
        target = tmp_path
    started = time.monotonic()
    result = memspec_cli("run", option, str(target))
    assert result.returncode == 2
    assert result.stderr.startswith("memspec: error: cannot write ")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stdout == ""
    assert time.monotonic() - started < 60


# 9. A broken adapter


@pytest.mark.parametrize("workers", [None, "2"])
def test_a_broken_adapter_says_so_in_every_report(
    workers: str | None, demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    report, junit, summary = tmp_path / "r.jsonl", tmp_path / "r.xml", tmp_path / "s.md"
    extra = ["-n", workers] if workers else []
    result = memspec_cli(
        "run",
        "--adapter",
        fake_cmd("bad-start"),
        "--report",
        str(report),
        "--junit",
        str(junit),
        "--summary",
        str(summary),
        *extra,
        env=demo_env,
    )
    assert result.returncode == 3
    assert "_pytest" not in result.stdout + result.stderr
    assert "INTERNALERROR" not in result.stdout + result.stderr
    footer = read_report(report)[-1]
    assert "start handshake failed" in footer["adapter_broken"]
    xml = junit.read_text(encoding="utf-8")
    assert 'errors="1"' in xml and "start handshake failed" in xml
    assert "**Adapter broken:**" in summary.read_text(encoding="utf-8")


# 11. Interrupted runs


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_an_interrupted_run_writes_complete_reports_and_cleans_up(
    signum: int, code: int, demo_env: dict[str, str], tmp_path: Path
) -> None:
    report = tmp_path / "r.jsonl"
    token = f"interrupt-{os.getpid()}-{signum}"  # names this test's adapter process alone
    result = stopped_run(report, token, env=demo_env, cwd=tmp_path, signum=signum)
    assert result.returncode == code, result.stderr
    lines = read_report(report)
    assert lines[0]["type"] == "header" and lines[-1]["type"] == "footer"
    assert lines[-1]["interrupted"] is True
    assert not list((tmp_path / "tmp").glob("memspec-*"))
    hung = subprocess.run(["pgrep", "-f", token], capture_output=True, text=True, check=False)
    assert hung.stdout.strip() == ""


# 12. Large replies


def test_a_50_mb_reply_is_read_and_judged(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    report = tmp_path / "r.jsonl"
    result = memspec_cli(
        "run",
        "--adapter",
        fake_cmd("huge"),
        "--timeout",
        "30",
        "--report",
        str(report),
        env=demo_env,
    )
    assert result.returncode == 1
    records = {r["id"]: r for r in demo_records(report)}
    assert records["demo/echo/bang-one"]["outcome"] == "failed"
    assert "50000000 chars" in records["demo/echo/bang-one"]["message"]


def test_a_reply_over_the_cap_is_a_fault(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    report = tmp_path / "r.jsonl"
    memspec_cli(
        "run",
        "--adapter",
        fake_cmd("huge"),
        "--max-reply-bytes",
        "1000000",
        "--report",
        str(report),
        env=demo_env,
    )
    record = {r["id"]: r for r in demo_records(report)}["demo/echo/bang-one"]
    assert record["outcome"] == "error"
    assert "longer than 1000000 bytes (--max-reply-bytes)" in record["message"]


# 13-17. A command line without sharp edges


@pytest.mark.parametrize(
    "arguments",
    [
        ("run", "--timeout", "0"),
        ("run", "--timeout", "nan"),
        ("run", "--timeout", "-1"),
        ("run", "--timeout", "inf"),
        ("run", "-n", "0"),
        ("run", "-n", "two"),
        ("run", "--max-reply-bytes", "0"),
        ("smoke", "--timeout", "0"),
    ],
)
def test_bad_numbers_are_refused_in_one_line(
    arguments: tuple[str, ...], memspec_cli: Runner
) -> None:
    result = memspec_cli(*arguments)
    assert result.returncode == 2
    assert result.stderr.startswith("memspec: error: argument ")
    assert result.stderr.count("\n") == 1 and "memspec: error: memspec" not in result.stderr


def test_smoke_stops_after_a_failed_start(memspec_cli: Runner) -> None:
    result = memspec_cli("smoke", "--adapter", fake_cmd("bad-start"))
    assert result.returncode == 3
    assert result.stdout.splitlines()[0].startswith("FAIL start handshake")
    assert "ok   stop" not in result.stdout


def test_every_option_of_every_command_has_a_description() -> None:
    parser = _parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    undocumented = [
        f"{name} {' '.join(action.option_strings) or action.dest}"
        for name, command in subparsers.choices.items()
        for action in command._actions
        if not isinstance(action, argparse._HelpAction) and not action.help
    ]
    assert undocumented == []


def test_output_into_a_closed_pipe_exits_quietly() -> None:
    result = subprocess.run(
        f"{sys.executable} -m memspec coverage | head -1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.stdout.count("\n") == 1
    assert result.stderr == ""


@pytest.mark.parametrize("command", [("run",), ("coverage",), ("lint",)])
def test_unknown_profiles_are_refused_alike(command: tuple[str, ...], memspec_cli: Runner) -> None:
    result = memspec_cli(*command, "--profile", "memdri")
    assert result.returncode == 2
    assert result.stderr.startswith("memspec: error: unknown profile 'memdri'; known: ")


def test_protocol_is_a_selectable_profile(memspec_cli: Runner, tmp_path: Path) -> None:
    report = tmp_path / "r.jsonl"
    result = memspec_cli("run", "--profile", "protocol", "--report", str(report))
    assert result.returncode == 0
    profiles = {r["profile"] for r in read_report(report) if r["type"] == "case"}
    assert profiles == {"protocol"}


# Reports survive any text


@pytest.mark.parametrize("mode", ["hostile", "huge"])
def test_any_text_an_adapter_sends_ends_up_escaped_in_every_report(
    mode: str, demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    report, junit, summary = tmp_path / "r.jsonl", tmp_path / "r.xml", tmp_path / "s.md"
    result = memspec_cli(
        "run",
        "--adapter",
        fake_cmd(mode),
        "--timeout",
        "30",
        "--report",
        str(report),
        "--junit",
        str(junit),
        "--summary",
        str(summary),
        env=demo_env,
    )
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    lines = read_report(report)
    assert all(report_line_errors(line) == [] for line in lines)
    assert set(outcomes(report).values()) == {"passed", "failed"}
    from xml.etree import ElementTree

    suite = ElementTree.parse(junit).getroot()
    assert suite.get("failures") == "2"
    text = summary.read_text(encoding="utf-8")
    assert "demo/echo/bang-one" in text
    if mode == "hostile":
        message = {r["id"]: r for r in demo_records(report)}["demo/echo/bang-one"]["message"]
        assert "\\udcff" in message and "\\u0000" in message and "\\u001b" in message
        assert "\x00" not in junit.read_text(encoding="utf-8")


def test_a_report_can_go_to_standard_output(memspec_cli: Runner) -> None:
    result = memspec_cli("run", "--case", "memdir/type/empty", "--report", "/dev/stdout")
    assert result.returncode == 0
    # The progress dots share the stream, so a report line may follow one on its line.
    lines = [
        json.loads(line[line.index('{"type"') :])
        for line in result.stdout.splitlines()
        if '{"type"' in line
    ]
    assert [line["type"] for line in lines] == ["header", "case", "footer"]
    assert Path("/dev/stdout").is_symlink()
