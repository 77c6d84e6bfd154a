"""What a case can ask of the harness: git set-up, ignored paths, concurrent steps,
multiset results, lines in any order, and crash points; each shown to pass a correct
fake and to fail a flawed one."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memspec.cli.lint import _case_problems
from memspec.corpus.cases import Case, case_from_json, schema_errors
from memspec.exceptions import CaseFailure
from memspec.run.runner import crash_point_steps, not_claimed_reason, run_case, run_crash_points
from memspec.run.trees import Entry, compare_tree
from memspec.wire.adapters import Adapter

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


def _put_data() -> dict[str, Any]:
    return {
        "id": "demo/harness/x",
        "description": "d",
        "requirements": ["DEMO-ECHO-001"],
        "requires": ["fault-injection"],
        "steps": [
            {
                "op": "demo.put",
                "args": {"path": "${ROOT}/fact.md", "text": "body\n"},
                "crash_points": True,
                "expect": {"result": "ok", "tree": {"fact.md": {"text": "body\n"}}},
            }
        ],
    }


def _put() -> Case:
    data = _put_data()
    return case(requires=data["requires"], steps=data["steps"])


def test_crash_points_count_every_mutation_of_an_atomic_writer(fake: Any) -> None:
    assert run_crash_points(_put(), fake(), 0) == 3


def test_a_crash_points_step_runs_ordinarily_without_fault_injection(fake: Any) -> None:
    """Only the crash-points run needs the capability: the case itself does not list it,
    lint does not ask for it, and an adapter claiming nothing still runs the step."""
    subject = case_from_json({**_put_data(), "requires": []})
    adapter = fake()
    adapter.handshake  # noqa: B018
    object.__setattr__(
        adapter,
        "_handshake",
        adapter.handshake.__class__(adapter.handshake.implementation, "1.1.0", ("demo",), ()),
    )
    assert not_claimed_reason(subject, adapter) is None
    assert _case_problems(subject, "w") == []
    run_case(subject, adapter)


def test_crash_points_catch_a_writer_that_is_not_safe_to_rerun(fake: Any) -> None:
    with pytest.raises(CaseFailure, match="after failing mutation 1 and a second clean rerun"):
        run_crash_points(_put(), fake("AppendsTwiceAfterAFault"), 0)


BATCH = Path(__file__).resolve().parents[2] / "fixtures/turnlog/store"


def _batch_case() -> Case:
    path = BATCH / "index-files-batch-all-or-nothing.json"
    return case_from_json(json.loads(path.read_text(encoding="utf-8")))


def test_crash_points_check_the_state_right_after_the_fault(
    in_process: Callable[[str], Adapter],
) -> None:
    subject = _batch_case()
    index = crash_point_steps(subject)[0]
    assert run_crash_points(subject, in_process("turnlog_fakes:QuotePortFixed"), index) >= 1
    file_by_file = in_process("turnlog_fakes:IndexesFileByFile")
    run_case(subject, file_by_file)  # its uninterrupted runs are right
    with pytest.raises(
        CaseFailure,
        match=r"(?s)right after failing mutation \d+, the state is neither the one before "
        r"the step nor the expected one after it.*turnlog\.list_by_project",
    ):
        run_crash_points(subject, file_by_file, index)


def test_crash_points_catch_a_torn_tree_unless_the_step_is_not_all_or_nothing(
    fake: Any,
) -> None:
    def two_files(crash_points: Any) -> Case:
        return case(
            requires=["fault-injection"],
            steps=[
                {
                    "op": "demo.put_two",
                    "args": {"dir": "${ROOT}", "text": "x\n"},
                    "crash_points": crash_points,
                    "expect": {
                        "result": "ok",
                        "tree": {"a.md": {"text": "x\n"}, "b.md": {"text": "x\n"}},
                    },
                }
            ],
        )

    with pytest.raises(CaseFailure, match="right after failing mutation 4, the state is neither"):
        run_crash_points(two_files(True), fake(), 0)
    assert run_crash_points(two_files({"all_or_nothing": False}), fake(), 0) == 6


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


def test_a_lost_update_is_told_by_the_entries_kept_and_missing() -> None:
    """Entries joined by a separator (a hermes file) are compared as entries: a writer
    that lost two of 400 is told so by name, not as a text that differs at some offset."""
    separator = "\n\u00a7\n"
    names = [f"w{w}-i{i}" for w in range(2) for i in range(200)]
    lost = [name for name in names if name not in ("w1-i17", "w0-i103")]

    def tree(entries: list[str]) -> dict[str, Entry]:
        return {"m": Entry("file", 0o600, 0, content=separator.join(entries).encode())}

    wanted = {"m": {"entries_any_order": names, "separator": separator}}
    assert compare_tree(wanted, tree(names[::-1]), "/root") == []
    assert compare_tree(wanted, tree(lost), "/root") == [
        "m: content differs\n  398 of 400 entries kept; missing: w0-i103, w1-i17"
    ]
    assert compare_tree(wanted, tree([*names, "w0-i0"]), "/root") == [
        "m: content differs\n  400 of 400 entries kept; unexpected: w0-i0"
    ]
    same = [f"same-{i}" for i in range(50)]
    exact = {"m": {"text": separator.join(same), "separator": separator}}
    (problem,) = compare_tree(exact, tree(same[:14] + same[15:]), "/root")
    assert problem.splitlines()[1] == "  49 of 50 entries kept; missing: same-14"
    (problem,) = compare_tree(exact, tree([*same[:14], same[15], same[14], *same[16:]]), "/root")
    assert problem.splitlines()[1] == (
        '  every entry kept, in another order: entry 15 of 50 is "same-15", expected "same-14"'
    )
    assert not schema_errors(
        {"id": "x/y/z", "description": "d", "requirements": ["X-Y-001"], "op": "x.o", "args": {},
         "expect": {"result": None, "tree": wanted}}
    )  # fmt: skip


def test_a_concurrent_case_runs_in_fresh_trees_until_a_round_catches_the_flaw(fake: Any) -> None:
    from file_fakes import LosesALineInItsThirdTree

    from memspec.run.runner import CONCURRENCY_ROUNDS, concurrency_rounds

    subject = _appends(2, 2, result="ok")
    assert concurrency_rounds(subject) == CONCURRENCY_ROUNDS >= 3
    LosesALineInItsThirdTree.trees = set()
    with pytest.raises(CaseFailure, match=r"round 3: the 2 before passed"):
        run_case(subject, fake("LosesALineInItsThirdTree"))


def test_a_case_without_concurrency_or_readers_runs_once() -> None:
    from memspec.run.runner import concurrency_rounds

    assert concurrency_rounds(_put()) == 1
