"""Where a run makes its folders: in the temporary folder, which the report header names
(``run_info.scratch``), and which holds nothing of the run once it has ended."""

from __future__ import annotations

from pathlib import Path

from conftest import Runner, fake_cmd

from memspec.reports.report import read_report


def test_the_header_names_the_temporary_folder_and_nothing_is_left_there(
    memspec_cli: Runner, demo_env: dict[str, str], tmp_path: Path
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    demo_env["TMPDIR"] = str(scratch)
    report = tmp_path / "report.jsonl"
    result = memspec_cli(
        "run", "--adapter", fake_cmd("good"), "--report", str(report), env=demo_env
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    assert read_report(report)[0]["run_info"]["scratch"] == str(scratch)
    assert list(scratch.iterdir()) == []
