"""What reads a report shows all that the report says.

The header carries the settings the run took effect with, and ``merge-reports`` joins
only shards that share them. A run whose footer lists problems (a stale expectation
entry) failed whatever its cases did: its badges are not green, ``diff`` fails on it and
the matrix marks its column. A footer that miscounts by outcome and shards of different
splits are each refused with a message that says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browser import Browser
from conftest import expected_failure, fake_cmd
from hand_reports import demo_environment, memspec, merge, rewrite, usage_error
from test_matrix_browser import _Dom, dump_dom

from memspec.reports.matrix import matrix_data, write_matrix
from memspec.reports.merge import load_run
from memspec.reports.report import read_report
from memspec.wire.adapters import (
    DEFAULT_MAX_REPLY_BYTES,
    DEFAULT_START_TIMEOUT_S,
    DEFAULT_TIMEOUT_S,
)
from memspec.wire.protocol import report_line_errors

Reports = dict[str, Path]
STALE_ENTRY = "demo/echo/gone"
PROBLEM = f"expectations: entry {STALE_ENTRY!r} matches no case"


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Reports:
    """Real demo reports of a port that passes everything: a clean run, the same with an
    expectations file whose one entry names no case, the two shards of one run, shard 2/2
    of another run (``dev`` Hypothesis profile, ``--timeout 1``), and shard 2/3."""
    where = tmp_path_factory.mktemp("consumers")
    stale = where / "stale.toml"
    stale.write_text(
        expected_failure(STALE_ENTRY, "fixed long ago", ("step 1: result", {"result": "x"})),
        encoding="utf-8",
    )
    made: Reports = {}

    def run(name: str, status: int, *args: str) -> None:
        made[name] = where / f"{name}.jsonl"
        result = memspec(
            "run",
            "--adapter",
            fake_cmd("good"),
            *args,
            "--report",
            str(made[name]),
            env=demo_environment(),
            cwd=where,
        )
        assert result.returncode == status, result.stdout + result.stderr

    run("clean", 0)
    run("with-problems", 1, "--expectations", str(stale))
    run("shard1", 0, "--shard", "1/2")
    run("shard2", 0, "--shard", "2/2")
    run("shard2-dev", 0, "--shard", "2/2", "--hypothesis-profile", "dev", "--timeout", "1")
    run("shard2of3", 0, "--shard", "2/3")
    return made


def _header(report: Path) -> dict[str, Any]:
    header: dict[str, Any] = read_report(report)[0]
    return header


def _with_settings(source: Path, target: Path, settings: dict[str, Any] | None) -> Path:
    """``source`` with the header's settings replaced, or removed when None."""

    def change(line: dict[str, Any]) -> dict[str, Any]:
        if line["type"] != "header":
            return line
        kept = {key: value for key, value in line.items() if key != "settings"}
        return kept if settings is None else {**kept, "settings": settings}

    return rewrite(source, target, change)


# --- The header carries the run's settings, and merge-reports compares them --------------

OBSERVED = {
    "observer": "strace",
    "statistical": "none: the observer decides crash points, concurrency, readers and races",
}


def test_the_header_carries_the_settings_the_run_took_effect_with(
    reports: Reports, tmp_path: Path
) -> None:
    assert _header(reports["clean"])["settings"] == {
        "hypothesis_profile": "memspec-ci",
        "timeout_s": DEFAULT_TIMEOUT_S,
        "start_timeout_s": DEFAULT_START_TIMEOUT_S,
        "max_reply_bytes": DEFAULT_MAX_REPLY_BYTES,
        "tree_owner": None,
        "selection": {},
        **OBSERVED,
    }
    report = tmp_path / "chosen.jsonl"
    result = memspec(
        "run",
        "--adapter",
        fake_cmd("good"),
        "--hypothesis-profile",
        "dev",
        "--timeout",
        "2.5",
        "--start-timeout",
        "7",
        "--max-reply-bytes",
        "4096",
        "--profile",
        "demo",
        "-k",
        "plain",
        "--report",
        str(report),
        env=demo_environment(),
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    header = _header(report)
    assert header["settings"] == {
        "hypothesis_profile": "memspec-dev",
        "timeout_s": 2.5,
        "start_timeout_s": 7.0,
        "max_reply_bytes": 4096,
        "tree_owner": None,
        "selection": {"profiles": ["demo"], "keyword": "plain"},
        **OBSERVED,
    }
    assert report_line_errors(header) == []


def test_merge_refuses_shards_run_with_other_settings_naming_each(
    reports: Reports, tmp_path: Path
) -> None:
    out = tmp_path / "merged.jsonl"
    line = usage_error(
        merge([reports["shard1"], reports["shard2-dev"]], out, env=demo_environment(), cwd=tmp_path)
    )
    assert line.startswith(f"memspec: error: {reports['shard2-dev']}: ")
    assert 'Hypothesis profile (--hypothesis-profile) "memspec-dev" differs from ' in line
    assert f'{reports["shard1"]}\'s "memspec-ci"' in line
    assert f"timeout (--timeout) 1.0 differs from {reports['shard1']}'s 10.0" in line
    assert line.endswith("these are not shards of one run")
    assert not out.exists()
    joined = merge(
        [reports["shard1"], reports["shard2"]], out, env=demo_environment(), cwd=tmp_path
    )
    assert joined.returncode == 0, joined.stderr
    assert _header(out)["settings"] == _header(reports["shard1"])["settings"]


@pytest.mark.parametrize(
    ("setting", "value", "named"),
    [
        ("start_timeout_s", 5.0, "start timeout (--start-timeout) 5.0 differs"),
        ("max_reply_bytes", 4096, "--max-reply-bytes 4096 differs"),
        ("tree_owner", "65534:65534", '--tree-owner "65534:65534" differs'),
        ("selection", {"ops": ["demo.echo"]}, 'selection (--profile, --case, --op, -k) {"ops"'),
        ("retries", 3, "setting retries 3 differs from "),
    ],
)
def test_merge_names_the_one_setting_that_differs(
    reports: Reports, setting: str, value: Any, named: str, tmp_path: Path
) -> None:
    settings = {**_header(reports["shard2"])["settings"], setting: value}
    other = _with_settings(reports["shard2"], tmp_path / "other.jsonl", settings)
    out = tmp_path / "merged.jsonl"
    line = usage_error(merge([reports["shard1"], other], out, env=demo_environment(), cwd=tmp_path))
    assert named in line
    assert line.count(" differs from ") == 1
    assert not out.exists()


def test_reports_without_settings_are_read_and_merged_as_before(
    reports: Reports, tmp_path: Path
) -> None:
    older = [
        _with_settings(reports[name], tmp_path / f"older-{name}.jsonl", None)
        for name in ("shard1", "shard2")
    ]
    assert report_line_errors(_header(older[0])) == []
    out = tmp_path / "merged.jsonl"
    joined = merge(older, out, env=demo_environment(), cwd=tmp_path)
    assert joined.returncode == 0, joined.stderr
    assert load_run(out).outcomes() == load_run(reports["clean"]).outcomes()
    line = usage_error(
        merge([reports["shard1"], older[1]], out, env=demo_environment(), cwd=tmp_path)
    )
    assert "Hypothesis profile (--hypothesis-profile) (not recorded) differs from " in line


# --- Messages that say what is wrong --------------------------------------------------------


def test_shards_of_different_splits_are_named_so_not_an_overlap(
    reports: Reports, tmp_path: Path
) -> None:
    half, third = load_run(reports["shard1"]), load_run(reports["shard2of3"])
    assert set(half.outcomes()) & set(third.outcomes()), "the two shards share no case"
    out = tmp_path / "merged.jsonl"
    line = usage_error(
        merge([reports["shard1"], reports["shard2of3"]], out, env=demo_environment(), cwd=tmp_path)
    )
    assert "shards of different splits" in line
    assert f"{reports['shard1']} is shard 1/2, {reports['shard2of3']} is shard 2/3" in line
    assert "overlap" not in line


def test_a_footer_counting_the_cases_by_other_outcomes_names_the_outcomes(
    reports: Reports, tmp_path: Path
) -> None:
    lines = read_report(reports["clean"])
    first_case = next(number for number, line in enumerate(lines) if line["type"] == "case")
    lines[first_case] = {**lines[first_case], "outcome": "failed"}
    edited = tmp_path / "edited.jsonl"
    edited.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    passed = lines[-1]["counts"]["passed"]
    line = usage_error(
        memspec(
            "badge", str(edited), "-o", str(tmp_path / "b"), env=demo_environment(), cwd=tmp_path
        )
    )
    assert (
        f"the footer counts {passed} passed and 0 failed; "
        f"the report holds {passed - 1} passed and 1 failed"
    ) in line
    assert "cases, the report holds" not in line


# --- Every consumer shows the problems the footer lists -------------------------------------


def test_the_run_with_a_stale_entry_lists_the_problem(reports: Reports) -> None:
    footer = read_report(reports["with-problems"])[-1]
    assert footer["problems"] == [PROBLEM]
    assert footer["counts"] == read_report(reports["clean"])[-1]["counts"]


def _badges(report: Path, tmp_path: Path) -> dict[str, dict[str, Any]]:
    out = tmp_path / f"badges-{report.stem}"
    result = memspec("badge", str(report), "-o", str(out), env=demo_environment(), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return {path.name: json.loads(path.read_text(encoding="utf-8")) for path in out.iterdir()}


def test_every_badge_of_a_run_with_problems_counts_them_and_none_is_green(
    reports: Reports, tmp_path: Path
) -> None:
    clean = _badges(reports["clean"], tmp_path)
    troubled = _badges(reports["with-problems"], tmp_path)
    assert set(troubled) == set(clean) >= {"memspec.json", "memspec-demo.json"}
    for name, document in troubled.items():
        assert document["message"] == f"{clean[name]['message']}, problems: 1"
        assert document["color"] == "red"
        assert clean[name]["color"] == "brightgreen"


def test_diff_reports_the_new_runs_problems_and_fails_as_on_a_regression(
    reports: Reports, tmp_path: Path
) -> None:
    env = demo_environment()
    old, new = str(reports["clean"]), str(reports["with-problems"])
    plain = memspec("diff", old, new, env=env, cwd=tmp_path)
    assert plain.returncode == 1, plain.stdout + plain.stderr
    assert f"Problems of the new run (its footer) (1):\n  {PROBLEM}\n" in plain.stdout
    assert plain.stdout.splitlines()[-1] == (
        "0 regressions, 1 problem, 0 newly passing, 0 added, 0 removed"
    )
    markdown = memspec("diff", "--markdown", old, new, env=env, cwd=tmp_path)
    assert markdown.returncode == 1, markdown.stdout + markdown.stderr
    assert f"### Problems of the new run (its footer) (1)\n\n- {PROBLEM}\n" in markdown.stdout
    fixed = memspec("diff", new, old, env=env, cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "Problems" not in fixed.stdout


def test_the_matrix_marks_the_column_of_a_run_with_problems(reports: Reports) -> None:
    data = matrix_data([load_run(reports[name]) for name in ("clean", "with-problems")])
    assert [impl["problems"] for impl in data["implementations"]] == [[], [PROBLEM]]


def test_the_matrix_page_shows_the_mark_and_the_problems(
    reports: Reports, tmp_path: Path, browser: Browser
) -> None:
    """In headless Chromium, as ``test_matrix_browser`` renders the page."""
    runs = [load_run(reports[name]) for name in ("clean", "with-problems")]
    page = write_matrix(runs, tmp_path / "matrix", labels=["clean", "stale"])
    # Marked in the column's header, and again in the list of an opened area.
    for query, shown in (("", 1), ("?open=demo/echo", 2)):
        dom = _Dom(dump_dom(browser, page, query))
        headers = {
            int(node.attrs["data-impl"]): node
            for node in dom.root.all("th")
            if "data-impl" in node.attrs
        }
        assert headers[0].attrs["data-problems"] == "0"
        assert headers[1].attrs["data-problems"] == "1"
        assert PROBLEM in headers[1].attrs["title"]
        marks = [node for node in dom.root.all("span") if node.has_class("mark")]
        assert [(mark.text, mark.attrs.get("title")) for mark in marks] == [
            ("problems: 1", PROBLEM)
        ] * shown


def _with_a_harness_fault(reports: Reports, tmp_path: Path) -> tuple[Path, str]:
    """The clean run with its first passing case turned into a fault of the harness."""
    records = [r for r in read_report(reports["clean"]) if r.get("type") == "case"]
    case = next(str(r["id"]) for r in records if r["outcome"] == "passed")

    def fault(line: dict[str, Any]) -> dict[str, Any]:
        if line.get("id") == case:
            message = f"harness fault in {case}, not counted against the implementation"
            return {**line, "outcome": "error", "signature": ["harness fault"], "message": message}
        if line["type"] == "footer":
            counts = dict(line["counts"])
            counts["passed"] -= 1
            counts["error"] = counts.get("error", 0) + 1
            return {**line, "counts": counts}
        return line

    return rewrite(reports["clean"], tmp_path / "faulted.jsonl", fault), case


def test_a_harness_fault_is_left_out_of_the_badge_count_and_named(
    reports: Reports, tmp_path: Path
) -> None:
    faulted, _ = _with_a_harness_fault(reports, tmp_path)
    clean = _badges(reports["clean"], tmp_path)["memspec.json"]["message"]
    passed, total = map(int, clean.split("/"))
    document = _badges(faulted, tmp_path)["memspec.json"]
    assert document["message"] == f"{passed - 1}/{total - 1}, harness faults: 1"
    assert document["color"] == "brightgreen"


def test_diff_never_counts_a_harness_fault_as_a_regression_but_fails_on_it(
    reports: Reports, tmp_path: Path
) -> None:
    faulted, case = _with_a_harness_fault(reports, tmp_path)
    result = memspec(
        "diff", str(reports["clean"]), str(faulted), env=demo_environment(), cwd=tmp_path
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Regressions" not in result.stdout
    assert (
        f"Harness faults of the new run (memspec's, not the implementation's) (1):\n  {case}"
        in result.stdout
    )
    assert result.stdout.splitlines()[-1] == (
        "0 regressions, 1 harness fault, 0 newly passing, 0 added, 0 removed"
    )
