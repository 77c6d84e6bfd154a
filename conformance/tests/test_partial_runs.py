"""A partial run never passes for a complete one.

A report is complete only with its footer, and every consumer (``merge-reports``,
``diff``, ``badge``, ``matrix``) refuses one without. An interrupted run, one shard and a
run in which nothing ran are marked, and every consumer shows the mark. Badges and the
matrix count what the implementation claims and name what it does not.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import fake_cmd
from hand_reports import (
    demo_environment,
    memspec,
    merge,
    rewrite,
    stopped_run,
    suite_environment,
    usage_error,
    with_footer,
    write_lines,
)

from memspec.corpus.profiles import known_profiles
from memspec.reports.matrix import matrix_data
from memspec.reports.merge import load_run
from memspec.reports.report import read_report
from memspec.wire.protocol import report_line_errors

Reports = dict[str, Path]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Reports:
    """Real demo reports: whole runs of a correct and a wrong port, the three shards of
    the wrong one's run, a shard of another selection, and a run stopped by SIGTERM."""
    where = tmp_path_factory.mktemp("partial")
    env = demo_environment()
    made: Reports = {}

    def run(name: str, *args: str) -> None:
        made[name] = where / f"{name}.jsonl"
        result = memspec("run", *args, "--report", str(made[name]), env=env, cwd=where)
        assert result.returncode in (0, 1), result.stdout + result.stderr

    run("good", "--adapter", fake_cmd("good"))
    run("wrong", "--adapter", fake_cmd("wrong"))
    for k in (1, 2, 3):
        run(f"shard{k}", "--adapter", fake_cmd("wrong"), "--shard", f"{k}/3")
    run("other-selection", "--adapter", fake_cmd("wrong"), "--shard", "2/3", "-k", "bang")
    made["interrupted"] = _interrupted_run(where, env)
    return made


def _interrupted_run(where: Path, env: dict[str, str]) -> Path:
    report = where / "interrupted.jsonl"
    assert stopped_run(report, f"partial-{os.getpid()}", env=env, cwd=where).returncode == 143
    return report


def _cut_after_lines(count: int) -> Callable[[str], str]:
    return lambda text: "".join(text.splitlines(keepends=True)[:count])


CUTS: dict[str, Callable[[str], str]] = {
    "footer dropped": lambda text: "".join(text.splitlines(keepends=True)[:-1]),
    "cut after a few lines": _cut_after_lines(4),
    "header only": _cut_after_lines(1),
    # Half way through what follows the header (which alone may be half a short report).
    "cut inside a line": lambda text: text[: (len(text) + text.index("\n")) // 2],
}


def _cut(source: Path, target: Path, how: str) -> Path:
    target.write_text(CUTS[how](source.read_text(encoding="utf-8")), encoding="utf-8")
    return target


# --- A report is complete only with its footer ---------------------------------------------


@pytest.mark.parametrize("how", sorted(CUTS))
@pytest.mark.parametrize("consumer", ["diff (old)", "diff (new)", "badge", "matrix", "merge"])
def test_a_report_without_its_footer_is_refused_by_every_consumer(
    runs: Reports, consumer: str, how: str, tmp_path: Path
) -> None:
    source = runs["shard1"] if consumer == "merge" else runs["wrong"]
    cut = _cut(source, tmp_path / "cut.jsonl", how)
    out = tmp_path / "out"
    arguments = {
        "diff (old)": ("diff", str(cut), str(runs["wrong"])),
        "diff (new)": ("diff", str(runs["wrong"]), str(cut)),
        "badge": ("badge", str(cut), "-o", str(out)),
        "matrix": ("matrix", str(cut), "-o", str(out)),
        "merge": (
            "merge-reports",
            str(cut),
            str(runs["shard2"]),
            str(runs["shard3"]),
            "-o",
            str(out),
        ),
    }[consumer]
    if consumer == "merge":
        arguments += ("-o", str(out))
    line = usage_error(memspec(*arguments, env=demo_environment(), cwd=tmp_path))
    assert f"{cut}: incomplete: " in line
    assert not out.exists()


def test_a_footer_that_miscounts_its_records_is_refused(runs: Reports, tmp_path: Path) -> None:
    lines = read_report(runs["wrong"])
    fewer = tmp_path / "fewer.jsonl"
    fewer.write_text(
        "".join(json.dumps(line) + "\n" for line in [lines[0], *lines[3:]]), encoding="utf-8"
    )
    line = usage_error(
        memspec(
            "badge", str(fewer), "-o", str(tmp_path / "b"), env=demo_environment(), cwd=tmp_path
        )
    )
    assert f"the footer counts {len(lines) - 2} cases, the report holds {len(lines) - 4}" in line


def test_lines_after_the_footer_are_refused(runs: Reports, tmp_path: Path) -> None:
    twice = tmp_path / "twice.jsonl"
    twice.write_text(runs["good"].read_text(encoding="utf-8") * 2, encoding="utf-8")
    line = usage_error(
        memspec("diff", str(runs["good"]), str(twice), env=demo_environment(), cwd=tmp_path)
    )
    assert "follows the footer" in line


# --- Interrupted runs, shards and runs in which nothing ran are marked and shown ----------


def test_partial_runs_are_marked_in_their_reports(runs: Reports) -> None:
    interrupted = read_report(runs["interrupted"])
    assert interrupted[-1]["type"] == "footer" and interrupted[-1]["interrupted"] is True
    shard = read_report(runs["shard2"])
    assert shard[0]["run_info"]["shard"] == "2/3"
    for path in runs.values():
        assert all(report_line_errors(line) == [] for line in read_report(path))
    assert load_run(runs["interrupted"]).partial == ["interrupted"]
    assert load_run(runs["shard2"]).partial == ["shard 2/3"]
    assert load_run(runs["good"]).partial == []


def _badges(report: Path, tmp_path: Path) -> dict[str, dict[str, object]]:
    out = tmp_path / f"badges-{report.stem}"
    result = memspec("badge", str(report), "-o", str(out), env=demo_environment(), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return {path.name: json.loads(path.read_text(encoding="utf-8")) for path in out.iterdir()}


@pytest.mark.parametrize(
    ("name", "mark"), [("shard1", "shard 1/3"), ("interrupted", "interrupted")]
)
def test_every_badge_of_a_partial_run_says_so_and_is_grey(
    runs: Reports, name: str, mark: str, tmp_path: Path
) -> None:
    badges = _badges(runs[name], tmp_path)
    assert {"memspec.json", "memspec-demo.json"} <= set(badges)
    for document in badges.values():
        assert str(document["message"]).startswith(f"{mark}: "), document
        assert document["color"] == "lightgrey"
    whole = _badges(runs["good"], tmp_path)["memspec-demo.json"]
    assert whole["message"] == "6/6" and whole["color"] == "brightgreen"


@pytest.mark.parametrize("partial", ["shard1", "interrupted"])
def test_diff_refuses_to_compare_a_partial_run_with_a_whole_one(
    runs: Reports, partial: str, tmp_path: Path
) -> None:
    env = demo_environment()
    for old, new in ((runs["good"], runs[partial]), (runs[partial], runs["good"])):
        line = usage_error(memspec("diff", str(old), str(new), env=env, cwd=tmp_path))
        assert ("shard 1/3" if partial == "shard1" else "interrupted") in line


def test_diff_compares_a_shard_with_the_same_shard_and_says_so(
    runs: Reports, tmp_path: Path
) -> None:
    result = memspec(
        "diff", str(runs["shard1"]), str(runs["shard1"]), env=demo_environment(), cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "new report shard1.jsonl: shard 1/3" in result.stdout
    other = memspec(
        "diff", str(runs["shard1"]), str(runs["shard2"]), env=demo_environment(), cwd=tmp_path
    )
    assert "shard 1/3" in usage_error(other) and "shard 2/3" in usage_error(other)


def test_diff_names_a_run_in_which_nothing_ran_and_counts_its_skips_as_regressions(
    runs: Reports, tmp_path: Path
) -> None:
    def skipped(line: dict[str, object]) -> dict[str, object]:
        if line["type"] == "case":
            return {**line, "outcome": "skipped", "message": "not claimed: profile 'demo'"}
        if line["type"] == "footer":
            return {**line, "nothing_ran": "every one of the selected cases was skipped"}
        return line

    idle = rewrite(runs["good"], tmp_path / "idle.jsonl", skipped)
    result = memspec("diff", str(runs["good"]), str(idle), env=demo_environment(), cwd=tmp_path)
    assert result.returncode == 1
    assert "new report idle.jsonl: nothing ran (every one of the selected cases" in result.stdout
    assert "demo/echo/plain: passed -> skipped" in result.stdout


def test_the_matrix_marks_the_column_of_a_partial_run(runs: Reports) -> None:
    data = matrix_data([load_run(runs[name]) for name in ("good", "shard1", "interrupted")])
    assert [impl["partial"] for impl in data["implementations"]] == [
        [],
        ["shard 1/3"],
        ["interrupted"],
    ]


# --- merge-reports needs all N shards of one run, each complete ---------------------------


def test_merge_refuses_a_whole_run_an_interrupted_shard_and_another_selection(
    runs: Reports, tmp_path: Path
) -> None:
    env = demo_environment()
    out = tmp_path / "merged.jsonl"

    def refused(*paths: Path) -> str:
        return usage_error(merge(paths, out, env=env, cwd=tmp_path))

    assert "not a shard's report" in refused(runs["shard1"], runs["good"], runs["shard3"])
    interrupted = with_footer(runs["shard2"], tmp_path / "stopped.jsonl", interrupted=True)
    assert "was interrupted" in refused(runs["shard1"], interrupted, runs["shard3"])
    assert "selection" in refused(runs["shard1"], runs["other-selection"], runs["shard3"])
    assert "3/3 missing" in refused(runs["shard1"], runs["shard2"])
    assert not out.exists()
    whole = merge((runs[f"shard{k}"] for k in (1, 2, 3)), out, env=env, cwd=tmp_path)
    assert whole.returncode == 0, whole.stderr
    assert load_run(out).outcomes() == load_run(runs["wrong"]).outcomes()
    assert load_run(out).partial == []


# --- Badges and the matrix count the profiles claimed and name the others -----------------


@pytest.fixture(scope="module")
def one_profile_port(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run of a port that claims memdir alone (of the suite's four profiles)."""
    where = tmp_path_factory.mktemp("claims")
    report = where / "three-ops.jsonl"
    result = memspec(
        "run",
        "--adapter",
        "python:memdir_fakes:ThreeOps",
        "-k",
        "memdir/type or turnlog/filename",
        "--report",
        str(report),
        env=suite_environment(),
        cwd=where,
    )
    assert result.returncode == 1, result.stdout[-3000:]
    return report


def test_badges_count_the_claimed_profiles_and_name_the_others(
    one_profile_port: Path, tmp_path: Path
) -> None:
    header = read_report(one_profile_port)[0]
    assert header["claims"]["profiles"] == ["memdir"]
    assert header["suite_profiles"] == sorted(known_profiles())
    others = [profile for profile in sorted(known_profiles()) if profile != "memdir"]
    badges = _badges(one_profile_port, tmp_path)
    records = [r for r in read_report(one_profile_port) if r["type"] == "case"]
    ran = [r for r in records if r["outcome"] != "skipped"]
    passed = sum(r["outcome"] == "passed" for r in ran)
    assert {r["profile"] for r in ran} == {"memdir"}
    assert badges["memspec.json"]["message"] == (
        f"{passed}/{len(ran)}, not claimed: {', '.join(others)}"
    )
    for profile in others:  # turnlog's cases are in the report
        assert badges[f"memspec-{profile}.json"]["message"] == "not claimed"


def test_a_report_without_claims_names_what_was_skipped_as_not_claimed(
    one_profile_port: Path, tmp_path: Path
) -> None:
    lines = read_report(one_profile_port)
    header = {k: v for k, v in lines[0].items() if k not in ("claims", "suite_profiles")}
    older = write_lines(tmp_path / "older.jsonl", [header, *lines[1:]])
    assert load_run(older).unclaimed_profiles() == ["turnlog"]
    assert _badges(older, tmp_path)["memspec.json"]["message"].endswith(", not claimed: turnlog")


def test_the_matrix_counts_the_claimed_profiles_and_names_the_others(
    one_profile_port: Path,
) -> None:
    (implementation,) = matrix_data([load_run(one_profile_port)])["implementations"]
    assert implementation["claimed"] == ["memdir"]
    assert implementation["unclaimed"] == [p for p in sorted(known_profiles()) if p != "memdir"]


# --- A run in which no case ran --------------------------------------------------------------

UNCLAIMED_ONLY = (
    "--profile",
    "turnlog",
    "-k",
    "turnlog/filename",
    "--adapter",
    "python:memdir_fakes:ThreeOps",
)


def test_a_run_in_which_no_case_ran_fails_in_one_line_and_the_report_says_why(
    tmp_path: Path,
) -> None:
    report = tmp_path / "r.jsonl"
    result = memspec(
        "run", *UNCLAIMED_ONLY, "--report", str(report), env=suite_environment(), cwd=tmp_path
    )
    assert result.returncode == 1, result.stdout[-2000:]
    footer = read_report(report)[-1]
    skipped = footer["counts"]["skipped"]
    assert skipped > 0 and sum(footer["counts"].values()) == skipped
    why = (
        f"every one of the {skipped} selected cases was skipped "
        f"({skipped} not claimed: profile 'turnlog')"
    )
    assert footer["nothing_ran"] == why
    assert [line for line in result.stdout.splitlines() if "nothing ran" in line] == [
        f"nothing ran: {why}"
    ]
    badge = _badges(report, tmp_path)["memspec.json"]
    assert badge["message"] == "nothing ran" and badge["color"] == "lightgrey"
    (implementation,) = matrix_data([load_run(report)])["implementations"]
    assert implementation["partial"] == ["nothing ran"]


def test_shards_in_which_nothing_ran_pass_and_their_merge_fails(tmp_path: Path) -> None:
    """A CI matrix of shards does not fail job by job when a filter leaves a shard idle;
    the merged report, in which no case ran at all, does."""
    env = suite_environment()
    shards = []
    for k in (1, 2):
        shard = tmp_path / f"s{k}.jsonl"
        result = memspec(
            "run",
            *UNCLAIMED_ONLY,
            "--shard",
            f"{k}/2",
            "--report",
            str(shard),
            env=env,
            cwd=tmp_path,
        )
        assert result.returncode == 0, result.stdout[-2000:]
        assert read_report(shard)[-1]["nothing_ran"]
        shards.append(shard)
    out = tmp_path / "merged.jsonl"
    merged = merge(shards, out, env=env, cwd=tmp_path)
    assert merged.returncode == 1
    (line,) = merged.stderr.strip().splitlines()
    assert line.startswith("memspec: nothing ran in any shard: every one of the ")
    assert line.endswith("not claimed: profile 'turnlog')")
    assert read_report(out)[-1]["nothing_ran"]
