"""memspec in a port's CI: adopting the suite with written expectations, diffing runs,
sharding and merging, the GitHub step summary, and badges."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, HERE, Runner, fake_cmd, outcomes
from hand_reports import rewrite, write_lines

from memspec.exceptions import UsageError
from memspec.reports.report import read_report
from memspec.reports.shard import parse_shard

DEMO_BANGS = {"demo/echo/bang-one", "demo/echo/bang-two"}


def _run(memspec_cli: Runner, env: dict[str, str], *args: str) -> Any:
    return memspec_cli("run", *args, env=env)


def _usage_error(result: Any) -> str:
    """The one line a usage error prints; fails unless it is exactly that."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memspec: error: "), result.stderr
    return str(lines[0])


# --- --write-expectations ------------------------------------------------------------------


def test_written_expectations_adopt_the_suite_and_ratchet(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    written = tmp_path / "expected.toml"
    first = _run(
        memspec_cli, demo_env, "--adapter", fake_cmd("wrong"), "--write-expectations", str(written)
    )
    assert first.returncode == 1
    entries = tomllib.loads(written.read_text(encoding="utf-8"))["expected_failure"]
    assert {entry["case"] for entry in entries} == DEMO_BANGS
    assert all(entry["reason"] for entry in entries)

    # The same port with the written file: the run passes, the failures are xfailed.
    report = tmp_path / "r.jsonl"
    again = _run(
        memspec_cli,
        demo_env,
        "--adapter",
        fake_cmd("wrong"),
        "--expectations",
        str(written),
        "--report",
        str(report),
    )
    assert again.returncode == 0, again.stdout
    assert {
        case for case, outcome in outcomes(report).items() if outcome == "xfailed"
    } == DEMO_BANGS

    # A port that fixed the cases: the file is strict, so the run fails until the entries
    # go; writing again from this run drops them.
    ratchet = tmp_path / "ratchet.toml"
    fixed = _run(
        memspec_cli,
        demo_env,
        "--adapter",
        fake_cmd("good"),
        "--expectations",
        str(written),
        "--report",
        str(report),
        "--write-expectations",
        str(ratchet),
    )
    assert fixed.returncode == 1
    assert {
        case for case, outcome in outcomes(report).items() if outcome == "xpassed"
    } == DEMO_BANGS
    assert tomllib.loads(ratchet.read_text(encoding="utf-8")) == {}
    clean = _run(
        memspec_cli, demo_env, "--adapter", fake_cmd("good"), "--expectations", str(ratchet)
    )
    assert clean.returncode == 0, clean.stdout


def test_written_expectations_keep_the_reasons_of_cases_still_failing(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    given = tmp_path / "given.toml"
    given.write_text(
        '[[expected_failure]]\ncase = "demo/echo/bang-one"\n'
        'reason = "answers \\"wrong\\" (issue 7)"\n',
        encoding="utf-8",
    )
    written = tmp_path / "written.toml"
    result = _run(
        memspec_cli,
        demo_env,
        "--adapter",
        fake_cmd("wrong"),
        "--expectations",
        str(given),
        "--write-expectations",
        str(written),
    )
    assert result.returncode == 1  # bang-two fails and is not listed yet
    entries = {
        entry["case"]: entry["reason"]
        for entry in tomllib.loads(written.read_text(encoding="utf-8"))["expected_failure"]
    }
    assert entries["demo/echo/bang-one"] == 'answers "wrong" (issue 7)'
    assert set(entries) == DEMO_BANGS


def test_write_expectations_to_a_missing_directory_is_refused(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    result = _run(
        memspec_cli, demo_env, "--write-expectations", str(tmp_path / "no" / "such" / "e.toml")
    )
    assert "no directory" in _usage_error(result)


# --- diff ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Reports of the demo profile from a correct and a wrong adapter (made once)."""
    where = tmp_path_factory.mktemp("runs")
    env = dict(os.environ)
    env.update(
        MEMSPEC_FIXTURES=str(DATA / "fixtures"),
        MEMSPEC_SPEC=str(DATA / "spec"),
        PYTHONPATH=os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")])),
    )
    env.pop("PYTEST_ADDOPTS", None)
    good, wrong = where / "good.jsonl", where / "wrong.jsonl"
    for mode, path in (("good", good), ("wrong", wrong)):
        subprocess.run(
            [
                sys.executable,
                "-m",
                "memspec",
                "run",
                "--adapter",
                fake_cmd(mode),
                "--report",
                str(path),
            ],
            cwd=where,
            env=env,
            capture_output=True,
            check=False,
            timeout=300,
        )
    return good, wrong


def test_diff_finds_regressions_and_fixes(
    two_runs: tuple[Path, Path], memspec_cli: Runner, tmp_path: Path
) -> None:
    good, wrong = two_runs
    worse = memspec_cli("diff", str(good), str(wrong))
    assert worse.returncode == 1, worse.stdout
    assert "Regressions (newly failing, or no longer run) (2):" in worse.stdout
    assert "demo/echo/bang-one: passed -> failed" in worse.stdout
    assert worse.stdout.strip().endswith("2 regressions, 0 newly passing, 0 added, 0 removed")

    better = memspec_cli("diff", str(wrong), str(good))
    assert better.returncode == 0, better.stdout
    assert "Newly passing (2):" in better.stdout

    same = memspec_cli("diff", str(good), str(good))
    assert same.returncode == 0 and "0 regressions" in same.stdout

    markdown = memspec_cli("diff", "--markdown", str(good), str(wrong))
    assert "### Regressions (newly failing, or no longer run) (2)" in markdown.stdout
    assert "- `demo/echo/bang-one`: passed -> failed" in markdown.stdout


def test_diff_names_each_run_by_implementation_and_label(
    two_runs: tuple[Path, Path], memspec_cli: Runner, tmp_path: Path
) -> None:
    good, wrong = two_runs

    def labelled(source: Path, label: str) -> Path:
        return rewrite(
            source,
            tmp_path / f"{label}.jsonl",
            lambda line: {**line, "label": label} if line["type"] == "header" else line,
        )

    old, new = labelled(good, "main"), labelled(wrong, "pr-42")
    result = memspec_cli("diff", "--markdown", str(old), str(new))
    assert result.stdout.startswith("## memspec diff: fake-good 0 · main → fake-wrong 0 · pr-42\n")


def test_diff_counts_removed_passing_cases_as_regressions(
    two_runs: tuple[Path, Path], memspec_cli: Runner, tmp_path: Path
) -> None:
    good, wrong = two_runs
    kept = [
        line
        for line in read_report(good)
        if line.get("id") not in ("demo/echo/plain", "demo/echo/bang-one")
    ]
    fewer = write_lines(tmp_path / "fewer.jsonl", kept)
    result = memspec_cli("diff", str(good), str(fewer))
    assert result.returncode == 1
    assert "Regressions (passing cases removed) (2):" in result.stdout
    # A failing case that goes is not a regression; a new case is reported as added.
    gone_failing = [line for line in read_report(wrong) if line.get("id") != "demo/echo/bang-two"]
    write_lines(tmp_path / "gone.jsonl", gone_failing)
    result = memspec_cli("diff", str(wrong), str(tmp_path / "gone.jsonl"))
    assert result.returncode == 0 and "Removed (1):" in result.stdout
    result = memspec_cli("diff", str(tmp_path / "gone.jsonl"), str(wrong))
    assert result.returncode == 0 and "Added (1):" in result.stdout


def test_diff_refuses_bad_input(
    two_runs: tuple[Path, Path], memspec_cli: Runner, tmp_path: Path
) -> None:
    good, _ = two_runs
    assert "no such report" in _usage_error(
        memspec_cli("diff", str(good), str(tmp_path / "missing.jsonl"))
    )
    (tmp_path / "junk.jsonl").write_text("not json\n", encoding="utf-8")
    assert "not JSON" in _usage_error(memspec_cli("diff", str(good), str(tmp_path / "junk.jsonl")))
    (tmp_path / "headless.jsonl").write_text('{"type": "case"}\n', encoding="utf-8")
    assert "not a memspec report" in _usage_error(
        memspec_cli("diff", str(good), str(tmp_path / "headless.jsonl"))
    )
    other = rewrite(
        good,
        tmp_path / "other-suite.jsonl",
        lambda line: {**line, "suite_version": "9.9.9"} if line["type"] == "header" else line,
    )
    assert "--across-suites" in _usage_error(memspec_cli("diff", str(good), str(other)))
    assert memspec_cli("diff", "--across-suites", str(good), str(other)).returncode == 0
    assert _usage_error(memspec_cli("diff", str(good)))


# --- --shard and merge-reports -------------------------------------------------------------


def test_shards_are_balanced_disjoint_and_complete() -> None:
    ids = [f"p/area/case-{n}" for n in range(103)]
    shards = [parse_shard(f"{k}/4").select(ids) for k in range(1, 5)]
    assert sorted(len(s) for s in shards) == [25, 26, 26, 26]
    assert set().union(*shards) == set(ids)
    assert sum(len(s) for s in shards) == len(ids)
    assert parse_shard("2/4").select(reversed(ids)) == shards[1]  # order does not matter
    for bad in ("3/2", "0/2", "1/0", "a/b", "1", "1/2/3", "-1/2", ""):
        with pytest.raises(UsageError):
            parse_shard(bad)


def test_merged_shards_equal_one_full_run(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    full = tmp_path / "full.jsonl"
    _run(memspec_cli, demo_env, "--adapter", fake_cmd("wrong"), "--report", str(full))
    shards = []
    for k in (1, 2, 3):
        shard = tmp_path / f"shard{k}.jsonl"
        result = _run(
            memspec_cli,
            demo_env,
            "--adapter",
            fake_cmd("wrong"),
            "--shard",
            f"{k}/3",
            "--report",
            str(shard),
        )
        assert result.returncode in (0, 1), result.stderr
        assert read_report(shard)[0]["run_info"]["shard"] == f"{k}/3"
        shards.append(shard)
    sizes = [len([r for r in read_report(s) if r["type"] == "case"]) for s in shards]
    assert max(sizes) - min(sizes) <= 1 and min(sizes) > 0
    merged = tmp_path / "all.jsonl"
    result = memspec_cli("merge-reports", *map(str, shards), "-o", str(merged))
    assert result.returncode == 0, result.stderr

    def cases(path: Path) -> dict[str, str]:
        return {r["id"]: r["outcome"] for r in read_report(path) if r["type"] == "case"}

    assert cases(merged) == cases(full)
    lines = read_report(merged)
    assert lines[-1]["counts"] == read_report(full)[-1]["counts"]
    assert "shard" not in lines[0]["run_info"]
    assert lines[0]["run_info"]["merged_from"] == ["1/3", "2/3", "3/3"]
    assert memspec_cli("diff", str(full), str(merged)).returncode == 0


def test_merge_refuses_reports_that_are_not_shards_of_one_run(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    _run(
        memspec_cli, demo_env, "--adapter", fake_cmd("good"), "--shard", "1/2", "--report", str(one)
    )
    _run(
        memspec_cli,
        demo_env,
        "--adapter",
        fake_cmd("wrong"),
        "--shard",
        "2/2",
        "--report",
        str(two),
    )
    out = str(tmp_path / "out.jsonl")
    assert "implementation" in _usage_error(
        memspec_cli("merge-reports", str(one), str(two), "-o", out)
    )
    assert "shards must not overlap" in _usage_error(
        memspec_cli("merge-reports", str(one), str(one), "-o", out)
    )
    assert "2/2 missing" in _usage_error(memspec_cli("merge-reports", str(one), "-o", out))
    other = rewrite(
        one,
        tmp_path / "other.jsonl",
        lambda line: {**line, "suite_version": "9.9.9"} if line["type"] == "header" else line,
    )
    assert "suite version" in _usage_error(
        memspec_cli("merge-reports", str(one), str(other), "-o", out)
    )
    assert "no such report" in _usage_error(
        memspec_cli("merge-reports", str(one), str(tmp_path / "nope.jsonl"), "-o", out)
    )
    assert "overwrite" in _usage_error(memspec_cli("merge-reports", str(one), "-o", str(one)))
    assert not Path(out).exists()


@pytest.mark.parametrize("spec", ["3/2", "0/3", "x/y", "2"])
def test_run_refuses_a_bad_shard_spec(
    demo_env: dict[str, str], memspec_cli: Runner, spec: str
) -> None:
    assert "--shard" in _usage_error(_run(memspec_cli, demo_env, "--shard", spec))


# --- GitHub step summary -------------------------------------------------------------------


def test_summary_is_appended_to_the_github_step_summary(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    summary = tmp_path / "step-summary.md"
    summary.write_text("# Earlier step\n\n", encoding="utf-8")
    env = {**demo_env, "GITHUB_STEP_SUMMARY": str(summary)}
    result = _run(memspec_cli, env, "--adapter", fake_cmd("wrong"))
    assert result.returncode == 1
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("# Earlier step\n\n# memspec ")
    assert "| demo | 4 | 2 | 0 | 0 | 0 | 0 | 6 |" in text
    assert "`demo/echo/bang-one` (failed)" in text


# --- badge ---------------------------------------------------------------------------------


def test_badges_per_profile_and_overall(
    two_runs: tuple[Path, Path], memspec_cli: Runner, tmp_path: Path
) -> None:
    good, wrong = two_runs
    out = tmp_path / "badges"
    result = memspec_cli("badge", str(wrong), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "memspec-demo.json",
        "memspec-protocol.json",
        "memspec.json",
    ]
    demo = json.loads((out / "memspec-demo.json").read_text(encoding="utf-8"))
    assert demo == {
        "schemaVersion": 1,
        "label": "memspec demo",
        "message": "4/6",
        "color": "yellow",
    }
    overall = json.loads((out / "memspec.json").read_text(encoding="utf-8"))
    cases = [r for r in read_report(wrong) if r["type"] == "case"]
    run = [r for r in cases if r["outcome"] != "skipped"]
    passed = sum(r["outcome"] == "passed" for r in run)
    assert overall["message"] == f"{passed}/{len(run)}"
    memspec_cli("badge", str(good), "-o", str(out))
    assert (
        json.loads((out / "memspec-demo.json").read_text(encoding="utf-8"))["color"]
        == "brightgreen"
    )


def test_badge_refuses_bad_input(
    two_runs: tuple[Path, Path], memspec_cli: Runner, tmp_path: Path
) -> None:
    good, _ = two_runs
    assert "no such report" in _usage_error(
        memspec_cli("badge", str(tmp_path / "none.jsonl"), "-o", str(tmp_path / "b"))
    )
    assert "not a directory" in _usage_error(memspec_cli("badge", str(good), "-o", str(good)))
