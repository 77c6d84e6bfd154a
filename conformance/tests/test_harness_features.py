"""What a case can ask of the harness: git set-up, ignored paths, concurrent steps,
multiset results, lines in any order, and crash points; each shown to pass a correct
fake and to fail a flawed one."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from typing import Any

import pytest

from memspec.adapters import Adapter
from memspec.cases import Case, case_from_json, schema_errors
from memspec.exceptions import CaseFailure
from memspec.lint import _case_problems
from memspec.runner import not_claimed_reason, run_case, run_crash_points
from memspec.trees import Entry, compare_tree

GIT = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def case(**fields: Any) -> Case:
    data = {"id": "demo/harness/x", "description": "d", "requirements": ["DEMO-ECHO-001"], **fields}
    assert schema_errors(data) == []
    return case_from_json(data)


@pytest.fixture
def fake(in_process: Callable[[str], Adapter]) -> Callable[..., Adapter]:
    return lambda name="FileOps": in_process(f"file_fakes:{name}")


@GIT
def test_git_setup_builds_a_real_repository_with_a_clean_environment(
    fake: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_DIR", "/nonexistent")  # the harness's own GIT_* never leak in
    monkeypatch.setenv("GIT_AUTHOR_NAME", "someone else")
    subject = case(
        setup=[
            {"git": ["init", "-q", "repo"]},
            {"git": ["commit", "-q", "--allow-empty", "-m", "first"], "cwd": "repo"},
            {"git": ["worktree", "add", "-q", "${ROOT}/wt"], "cwd": "repo"},
        ],
        tree_ignore=["*/.git"],
        requires=["git"],
        steps=[
            {
                "op": "demo.listdir",
                "args": {"path": "${ROOT}/wt"},
                "expect": {
                    "result": [".git"],
                    "tree": {"repo": {"dir": True}, "wt": {"dir": True}},
                },
            }
        ],
    )
    run_case(subject, fake())


@GIT
def test_a_failing_git_action_is_a_fault_naming_the_command(fake: Any) -> None:
    from memspec.exceptions import CaseFault

    subject = case(
        setup=[{"git": ["checkout", "no-such-branch"]}],
        requires=["git"],
        op="demo.listdir",
        args={"path": "${ROOT}"},
        expect={"result": []},
    )
    with pytest.raises(CaseFault, match="git checkout no-such-branch"):
        run_case(subject, fake())


def test_a_case_using_git_without_requiring_it_is_a_lint_problem() -> None:
    subject = case(
        setup=[{"git": ["init"]}], op="demo.listdir", args={"path": "."}, expect={"result": []}
    )
    assert _case_problems(subject, "w") == ["w: uses git but does not list it in requires"]


def test_an_adapter_not_claiming_git_is_not_claimed(fake: Any) -> None:
    subject = case(
        setup=[{"git": ["init"]}],
        requires=["git"],
        op="demo.listdir",
        args={"path": "."},
        expect={"result": []},
    )
    adapter = fake("Unlocked")
    adapter.handshake  # noqa: B018
    object.__setattr__(
        adapter,
        "_handshake",
        adapter.handshake.__class__(adapter.handshake.implementation, "1.1.0", ("demo",), ()),
    )
    assert not_claimed_reason(subject, adapter) == "not claimed: capability git"


def _appends(workers: int, repeat: int, **expect: Any) -> Case:
    lines = [f"w{w}-i{i}" for w in range(workers) for i in range(repeat)]
    return case(
        requires=["concurrency"],
        steps=[
            {
                "op": "demo.append",
                "args": {"path": "${ROOT}/log", "line": "w${WORKER}-i${ITERATION}"},
                "concurrent": {"workers": workers, "repeat": repeat},
                "expect": {
                    **expect,
                    "tree": {"log": {"lines_any_order": lines}, "log.lock": {"text": ""}},
                },
            }
        ],
    )


def test_concurrent_appends_through_a_lock_keep_every_line(fake: Any) -> None:
    run_case(_appends(4, 25, result="ok"), fake())
    run_case(_appends(3, 2, results=["ok"] * 6), fake())


def test_a_results_multiset_that_does_not_match_fails(fake: Any) -> None:
    with pytest.raises(CaseFailure, match="1 unexpected result"):
        run_case(_appends(2, 1, results=["ok", "not ok"]), fake())


def test_an_unlocked_read_modify_write_loses_lines_and_fails(fake: Any) -> None:
    lost = 0
    for _ in range(5):
        try:
            run_case(_appends(8, 40, result="ok"), fake("Unlocked"))
        except CaseFailure as exc:
            assert "line(s) missing" in str(exc)
            lost += 1
    assert lost >= 1


def _put() -> Case:
    return case(
        requires=["fault-injection"],
        steps=[
            {
                "op": "demo.put",
                "args": {"path": "${ROOT}/fact.md", "text": "body\n"},
                "crash_points": True,
                "expect": {"result": "ok", "tree": {"fact.md": {"text": "body\n"}}},
            }
        ],
    )


def test_crash_points_count_every_mutation_of_an_atomic_writer(fake: Any) -> None:
    assert run_crash_points(_put(), fake(), 0) == 3


def test_crash_points_catch_a_writer_that_is_not_safe_to_rerun(fake: Any) -> None:
    with pytest.raises(CaseFailure, match="after failing mutation 1 and a second clean rerun"):
        run_crash_points(_put(), fake("AppendsTwiceAfterAFault"), 0)


def test_tree_ignore_and_lines_any_order_compare_as_documented() -> None:
    actual = {
        "a": Entry("file", 0o644, 0, content=b"x\ny\n"),
        "r/.git": Entry("dir", 0o755, 0),
        "r/.git/HEAD": Entry("file", 0o644, 0),
        "r": Entry("dir", 0o755, 0),
    }
    assert (
        compare_tree(
            {"a": {"lines_any_order": ["y", "x"]}, "r": {"dir": True}},
            actual,
            "/root",
            ignore=("r/.git",),
        )
        == []
    )
    assert compare_tree({"a": {"lines_any_order": ["x", "x"]}}, actual, "/root", ignore=("r",)) == [
        "a: 1 line(s) missing, e.g. 'x'",
        "a: 1 unexpected line(s), e.g. 'y'",
    ]


def test_a_concurrent_case_runs_in_fresh_trees_until_a_round_catches_the_flaw(fake: Any) -> None:
    from file_fakes import LosesALineInItsThirdTree

    from memspec.runner import CONCURRENCY_ROUNDS, concurrency_rounds

    subject = _appends(2, 2, result="ok")
    assert concurrency_rounds(subject) == CONCURRENCY_ROUNDS >= 3
    LosesALineInItsThirdTree.trees = set()
    with pytest.raises(CaseFailure, match=r"round 3: the 2 before passed"):
        run_case(subject, fake("LosesALineInItsThirdTree"))


def test_a_case_without_concurrency_or_readers_runs_once() -> None:
    from memspec.runner import concurrency_rounds

    assert concurrency_rounds(_put()) == 1
