"""Strict expectations, and the report with the views rendered from it."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

from conftest import Runner, expected_failure, fake_cmd, outcomes

from memspec.reports.report import read_report
from memspec.wire.protocol import report_line_errors


def _expect(tmp_path: Path, *entries: tuple[str, str], check: str = "step 1: result") -> str:
    """Entries of cases the ``wrong`` fake fails: its reply is ``"wrong"``."""
    path = tmp_path / "expect.toml"
    path.write_text(
        "".join(
            expected_failure(case, reason, (check, {"result": "wrong"})) for case, reason in entries
        ),
        encoding="utf-8",
    )
    return str(path)


def test_listed_failures_become_xfailed_and_the_run_passes(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    expect = _expect(
        tmp_path, ("demo/echo/bang-one", "known crash #1"), ("demo/echo/bang-two", "known crash #1")
    )
    report = tmp_path / "r.jsonl"
    result = memspec_cli(
        "run",
        "--adapter",
        fake_cmd("wrong"),
        "--expectations",
        expect,
        "--report",
        str(report),
        env=demo_env,
    )
    assert result.returncode == 0, result.stdout
    seen = outcomes(report)
    assert seen["demo/echo/bang-one"] == seen["demo/echo/bang-two"] == "xfailed"


def test_an_unexpected_pass_fails_the_run(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    expect = _expect(tmp_path, ("demo/echo/plain", "thought broken"))
    report = tmp_path / "r.jsonl"
    result = memspec_cli(
        "run",
        "--adapter",
        fake_cmd("good"),
        "--expectations",
        expect,
        "--report",
        str(report),
        env=demo_env,
    )
    assert result.returncode == 1
    assert outcomes(report)["demo/echo/plain"] == "xpassed"


def test_an_entry_matching_no_case_fails_the_run(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    expect = _expect(tmp_path, ("demo/echo/gone", "stale"))
    report = tmp_path / "r.jsonl"
    result = memspec_cli(
        "run",
        "--expectations",
        expect,
        "--report",
        str(report),
        "--adapter",
        fake_cmd("good"),
        env=demo_env,
    )
    assert result.returncode == 1
    assert "entry 'demo/echo/gone' matches no case" in result.stdout
    assert read_report(report)[-1]["problems"] == [
        "expectations: entry 'demo/echo/gone' matches no case"
    ]


def test_report_junit_and_summary_agree(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    report, junit, summary = tmp_path / "r.jsonl", tmp_path / "j.xml", tmp_path / "s.md"
    result = memspec_cli(
        "run",
        "--adapter",
        fake_cmd("wrong"),
        "--report",
        str(report),
        "--junit",
        str(junit),
        "--summary",
        str(summary),
        env=demo_env,
    )
    assert result.returncode == 1
    lines = read_report(report)
    cases = [line for line in lines if line["type"] == "case"]
    assert lines[0]["type"] == "header" and lines[-1]["type"] == "footer"
    assert len(lines) == len(cases) + 2
    for line in lines:
        assert report_line_errors(line) == []
    assert lines[0]["implementation"]["name"] == "fake-wrong"
    assert lines[-1]["counts"]["failed"] == 2
    suite = ElementTree.parse(junit).getroot()
    assert suite.get("tests") == str(len(cases)) and suite.get("failures") == "2"
    failed = {
        case.get("name") for case in suite.iter("testcase") if case.find("failure") is not None
    }
    assert failed == {"demo/echo/bang-one", "demo/echo/bang-two"}
    text = summary.read_text(encoding="utf-8")
    assert "| demo | 4 | 2 | 0 | 0 | 0 | 0 | 6 |" in text
    assert "| protocol | 5 | 0 | 0 | 2 | 0 | 0 | 7 |" in text
    assert "`demo/echo/bang-one` (failed)" in text
    assert "memspec summary" in result.stdout and "FAILED demo/echo/bang-one" in result.stdout
    assert sorted(path.name for path in tmp_path.iterdir()) == ["j.xml", "r.jsonl", "s.md"]


def test_parallel_run_reports_every_case_once(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    report = tmp_path / "r.jsonl"
    result = memspec_cli(
        "run", "-n", "2", "--adapter", fake_cmd("crash"), "--report", str(report), env=demo_env
    )
    assert result.returncode == 1
    seen = outcomes(report)
    assert len(seen) == 6 and sorted(seen.values()).count("error") == 2


def test_cases_of_ops_the_adapter_does_not_list_are_not_claimed(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    """An adapter that lists its ops in the handshake: the cases of every other op are
    skipped as not claimed, and the run passes on what it claims."""
    report = tmp_path / "r.jsonl"
    result = memspec_cli(
        "run", "--adapter", fake_cmd("some-ops"), "--report", str(report), env=demo_env
    )
    assert result.returncode == 0, result.stdout[-2000:]
    records = {r["id"]: r for r in read_report(report) if r["type"] == "case"}
    echo = [r for case, r in records.items() if case.startswith("demo/echo/")]
    assert echo and all(r["outcome"] == "skipped" for r in echo)
    assert all(r["message"] == "not claimed: op demo.echo" for r in echo)
    assert records["protocol/start/ops-claimed-are-known"]["outcome"] == "passed"
