"""The command line under stress: a reader that goes away, a full disk, an unwritable step
summary, SIGTERM, typos in selections, shard specs at the edges, a file where a folder
belongs. Each ends in the command's own verdict or in one line and exit code 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import fake_cmd
from hand_reports import demo_environment, memspec, merge, stopped_run, usage_error

from memspec.corpus.registry import registered_cases
from memspec.plugin.selection import check_selection, suite_test_ids
from memspec.reports.report import CaseRecord, Report, read_report, render_run_end


@pytest.fixture(scope="module")
def good_and_wrong(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    where = tmp_path_factory.mktemp("stress")
    made = []
    for mode in ("good", "wrong"):
        report = where / f"{mode}.jsonl"
        result = memspec(
            "run",
            "--adapter",
            fake_cmd(mode),
            "--report",
            str(report),
            env=demo_environment(),
            cwd=where,
        )
        assert result.returncode in (0, 1), result.stderr
        made.append(report)
    return made[0], made[1]


def _memspec_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "memspec", *args]


# --- A reader that goes away, a stream that cannot be written ------------------------------


@pytest.mark.parametrize("attempt", range(3))
def test_diff_into_a_closed_pipe_still_exits_1_on_regressions(
    good_and_wrong: tuple[Path, Path], attempt: int, tmp_path: Path
) -> None:
    good, wrong = good_and_wrong
    process = subprocess.Popen(
        _memspec_command("diff", str(good), str(wrong)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=demo_environment(),
        cwd=tmp_path,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader is gone before a line is written
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == 1
    assert stderr == ""


def test_diff_piped_into_head_keeps_its_exit_status(
    good_and_wrong: tuple[Path, Path], tmp_path: Path
) -> None:
    good, wrong = good_and_wrong
    command = " ".join(_memspec_command("diff", str(good), str(wrong)))
    for _ in range(3):
        result = subprocess.run(
            ["bash", "-c", f"set -o pipefail; {command} | head -1"],
            capture_output=True,
            text=True,
            env=demo_environment(),
            cwd=tmp_path,
            timeout=120,
            check=False,
        )
        assert result.returncode == 1, result.stderr
        assert result.stdout.count("\n") == 1 and result.stderr == ""


@pytest.mark.parametrize(
    "command",
    [("diff", "{good}", "{wrong}"), ("coverage",), ("run", "--adapter", "{fake}"), ("lint",)],
)
def test_output_to_a_full_device_is_one_line_and_exit_2(
    good_and_wrong: tuple[Path, Path], command: tuple[str, ...], tmp_path: Path
) -> None:
    good, wrong = good_and_wrong
    filled = [part.format(good=good, wrong=wrong, fake=fake_cmd("good")) for part in command]
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            _memspec_command(*filled),
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=demo_environment(),
            cwd=tmp_path,
            timeout=300,
            check=False,
        )
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "memspec: error: cannot write the output: No space left on device"
    ]


def test_a_report_to_a_full_device_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = memspec(
        "run",
        "--adapter",
        fake_cmd("good"),
        "--report",
        "/dev/full",
        env=demo_environment(),
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "memspec: error: cannot write /dev/full: No space left on device"
    ]


# --- GITHUB_STEP_SUMMARY ----------------------------------------------------------------------


@pytest.mark.parametrize(("mode", "code"), [("good", 0), ("wrong", 1)])
def test_an_unwritable_step_summary_is_a_warning_and_the_run_keeps_its_status(
    mode: str, code: int, tmp_path: Path
) -> None:
    for unwritable in (tmp_path / "no" / "such" / "summary.md", tmp_path):
        env = {**demo_environment(), "GITHUB_STEP_SUMMARY": str(unwritable)}
        result = memspec("run", "--adapter", fake_cmd(mode), env=env, cwd=tmp_path)
        assert result.returncode == code, result.stdout[-2000:]
        assert "Traceback" not in result.stdout + result.stderr
        (line,) = result.stderr.strip().splitlines()
        assert line.startswith(
            f"memspec: warning: cannot append to GITHUB_STEP_SUMMARY {unwritable}"
        )


# --- SIGTERM ------------------------------------------------------------------------------------


def test_sigterm_prints_no_keyboard_interrupt_banner(tmp_path: Path) -> None:
    report = tmp_path / "r.jsonl"
    result = stopped_run(report, f"banner-{os.getpid()}", env=demo_environment(), cwd=tmp_path)
    assert result.returncode == 143
    for text in (result.stdout, result.stderr):
        assert "KeyboardInterrupt" not in text and "!!!!" not in text and "Traceback" not in text
    assert "interrupted: the reports hold the cases that ran, and say so" in result.stdout
    assert read_report(report)[-1]["interrupted"] is True


# --- What the end of a run points to ------------------------------------------------------------


def _many_failures() -> Report:
    records = [
        CaseRecord(f"demo/echo/case-{n:02}", "demo", ("DEMO-ECHO-001",), "failed", "wrong", 0.0)
        for n in range(30)
    ]
    return Report(
        implementation={"name": "x", "version": "1", "language": "c"}, info={}, records=records
    )


def test_see_the_report_only_when_a_report_was_asked_for() -> None:
    report = _many_failures()
    without = "\n".join(render_run_end(report, []))
    assert "… and 10 more failing cases" in without
    assert "see the report" not in without and "see " not in without.split("more failing")[1]
    assert "--report FILE lists them all" in without
    summary_only = "\n".join(render_run_end(report, [("summary", "s.md")]))
    assert "see s.md" not in summary_only and "--report FILE lists them all" in summary_only
    with_report = "\n".join(render_run_end(report, [("report", "r.jsonl")]))
    assert "(see r.jsonl, or memspec explain CASE-ID)" in with_report


# --- Selections that name nothing ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--case", "demo/echo/plian"), "--case 'demo/echo/plian': no case has this id"),
        (
            ("--case", "demo/echo/plain", "--case", "demo/echo/nope"),
            "--case 'demo/echo/nope': no case has this id",
        ),
        (("--case", "demo/echo/plain", "--profile", "protocol"), "leaves out"),
        (("--op", "demo.ecko"), "--op 'demo.ecko': no case calls this op"),
    ],
)
def test_an_unknown_case_or_op_is_named(args: tuple[str, ...], needle: str, tmp_path: Path) -> None:
    result = memspec(
        "run", "--adapter", fake_cmd("good"), *args, env=demo_environment(), cwd=tmp_path
    )
    assert needle in usage_error(result)


def test_a_typo_in_a_case_id_gets_a_suggestion(tmp_path: Path) -> None:
    result = memspec("run", "--case", "demo/echo/plian", env=demo_environment(), cwd=tmp_path)
    assert usage_error(result).endswith("(did you mean demo/echo/plain?)")


def test_the_suite_tests_ids_are_read_without_importing_them() -> None:
    assert suite_test_ids() == {entry.id for entry in registered_cases()}


def test_a_suite_test_and_a_crash_point_id_are_known_cases() -> None:
    from memspec.corpus.cases import load_cases

    crash = next(
        f"{case.id}/crash-points"
        for case in load_cases()
        if any(step.crash_points for step in case.steps)
    )
    check_selection([crash, *sorted(suite_test_ids())], [], [])  # refuses nothing


# --- --shard at the edges -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("1/0", "N, the number of shards, must be at least 1; K runs from 1 to N, such as 1/4"),
        ("-1/3", "expected K/N, two whole numbers with 1 <= K <= N, such as 1/4 (shard 1 of 4)"),
        ("0/3", "K must be from 1 to 3 (1/3 to 3/3)"),
        ("3/2", "K must be from 1 to 2 (1/2 or 2/2)"),
        ("2/1", "K must be from 1 to 1 (1/1)"),
    ],
)
@pytest.mark.parametrize("joined", [False, True])
def test_a_bad_shard_is_refused_with_what_is_valid(
    spec: str, needle: str, joined: bool, tmp_path: Path
) -> None:
    args = (f"--shard={spec}",) if joined else ("--shard", spec)
    line = usage_error(memspec("run", *args, env=demo_environment(), cwd=tmp_path))
    assert line == f"memspec: error: --shard {spec!r}: {needle}"


def test_a_shard_that_selects_no_case_is_an_empty_complete_report(tmp_path: Path) -> None:
    env = demo_environment()
    sizes = {}
    for k in (1, 2, 3):
        report = tmp_path / f"s{k}.jsonl"
        result = memspec(
            "run",
            "--adapter",
            fake_cmd("good"),
            "--case",
            "demo/echo/plain",
            "--shard",
            f"{k}/3",
            "--report",
            str(report),
            env=env,
            cwd=tmp_path,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        lines = read_report(report)
        assert [lines[0]["type"], lines[-1]["type"]] == ["header", "footer"]
        sizes[k] = len(lines) - 2
        if not sizes[k]:
            assert lines[-1]["nothing_ran"] == f"shard {k}/3 holds none of the selected cases"
            assert f"nothing ran: shard {k}/3 holds none of the selected cases" in result.stdout
    assert sorted(sizes.values()) == [0, 0, 1]
    merged = tmp_path / "all.jsonl"
    joined = merge((tmp_path / f"s{k}.jsonl" for k in (1, 2, 3)), merged, env=env, cwd=tmp_path)
    assert joined.returncode == 0, joined.stderr
    assert [r["id"] for r in read_report(merged) if r["type"] == "case"] == ["demo/echo/plain"]


def test_without_shard_a_selection_of_nothing_is_still_a_usage_error(tmp_path: Path) -> None:
    env = demo_environment()
    result = memspec(
        "run", "--adapter", fake_cmd("good"), "-k", "nothing_here", env=env, cwd=tmp_path
    )
    assert usage_error(result) == "memspec: error: no case selected"


# --- new-adapter ------------------------------------------------------------------------------


def test_new_adapter_given_a_file_says_it_is_not_a_directory(tmp_path: Path) -> None:
    file = tmp_path / "my-adapter"
    file.write_text("not a folder\n", encoding="utf-8")
    line = usage_error(
        memspec("new-adapter", "--lang", "python", str(file), env=demo_environment(), cwd=tmp_path)
    )
    assert line == f"memspec: error: {file}: exists and is not a directory; give a new or empty one"
    assert file.read_text(encoding="utf-8") == "not a folder\n"
