"""Case forms added for every profile: filled files, held locks, readers beside writers,
and crash points of an op that is not idempotent; each shown to pass a correct fake and
to fail a flawed one."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memspec.corpus.cases import Case, case_from_json, schema_errors
from memspec.exceptions import CaseFailure, CaseFault
from memspec.run.runner import run_case, run_crash_points
from memspec.run.trees import compare_tree, materialise, read_tree
from memspec.wire.adapters import Adapter


def test_a_filled_file_has_its_size_and_no_zero_byte(tmp_path: Path) -> None:
    tree = {"f.md": {"text": "# H\n", "size": 10, "fill": "x"}, "g": {"text": "a", "size": 3}}
    materialise(tree, tmp_path)
    assert (tmp_path / "f.md").read_bytes() == b"# H\nxxxxxx"
    assert (tmp_path / "g").read_bytes() == b"a\0\0"
    assert compare_tree(tree, read_tree(tmp_path), str(tmp_path)) == []
    (tmp_path / "f.md").write_bytes(b"# H\nxxxxx\0")
    assert compare_tree(tree, read_tree(tmp_path), str(tmp_path)) != []


def test_fill_needs_a_size_and_one_ascii_character() -> None:
    base = {"id": "demo/harness/x", "description": "d", "requirements": ["DEMO-ECHO-001"]}
    base |= {"op": "demo.echo", "args": {}, "expect": {"result": None}}
    assert schema_errors({**base, "tree": {"f": {"text": "", "size": 2, "fill": "x"}}}) == []
    assert schema_errors({**base, "tree": {"f": {"text": "", "fill": "x"}}}) != []
    assert schema_errors({**base, "tree": {"f": {"text": "", "size": 2, "fill": "xy"}}}) != []
    assert schema_errors({**base, "tree": {"f": {"text": "", "size": 2, "fill": "\u00e9"}}}) != []


def case(**fields: Any) -> Case:
    data = {"id": "demo/harness/x", "description": "d", "requirements": ["DEMO-ECHO-001"], **fields}
    assert schema_errors(data) == []
    return case_from_json(data)


@pytest.fixture
def fake() -> Iterator[Callable[[str], Adapter]]:
    adapters: list[Adapter] = []

    def make(name: str = "FormOps") -> Adapter:
        adapters.append(Adapter(f"python:form_fakes:{name}"))
        return adapters[-1]

    yield make
    for adapter in adapters:
        adapter.close()


def _held(path: str = "lock", **hold: Any) -> Case:
    return case(
        tree={"lock": {"text": ""}},
        steps=[
            {
                "op": "demo.locked_put",
                "args": {"path": "${ROOT}/fact.md", "text": "body\n", "lock": "${ROOT}/lock"},
                "hold_lock": {"path": path, "hold_ms": 200, **hold},
                "expect": {
                    "result": "ok",
                    "tree": {"lock": {"text": ""}, "fact.md": {"text": "body\n"}},
                },
            }
        ],
    )


def test_a_writer_that_waits_for_a_held_lock_passes(fake: Callable[[str], Adapter]) -> None:
    run_case(_held(), fake("FormOps"))
    run_case(_held("l*"), fake("FormOps"))


def test_a_writer_that_ignores_a_held_lock_fails(fake: Callable[[str], Adapter]) -> None:
    with pytest.raises(CaseFailure, match=r"wrote while the harness held lock \(flock\)"):
        run_case(_held(), fake("IgnoresTheLock"))


def test_a_held_lock_that_watches_some_paths_ignores_writes_elsewhere(
    fake: Callable[[str], Adapter],
) -> None:
    run_case(_held(watch=["other", "sub/*"]), fake("IgnoresTheLock"))
    with pytest.raises(CaseFailure, match=r"fact\.md: created"):
        run_case(_held(watch=["fact*"]), fake("IgnoresTheLock"))


def test_a_held_lock_must_name_exactly_one_entry(fake: Callable[[str], Adapter]) -> None:
    with pytest.raises(CaseFault, match="names 0 entries"):
        run_case(_held("no-such-lock"), fake("FormOps"))


def test_a_held_lock_step_cannot_be_concurrent() -> None:
    data = _held_json_with(concurrent={"workers": 2})
    assert schema_errors(data) != []


def _held_json_with(**extra: Any) -> dict[str, Any]:
    step = {
        "op": "demo.locked_put",
        "args": {},
        "hold_lock": {"path": "lock"},
        "expect": {"result": "ok"},
        **extra,
    }
    return {"id": "demo/harness/x", "description": "d", "requirements": ["DEMO-ECHO-001"]} | {
        "steps": [step]
    }


def _rewrites(missing: bool = False) -> Case:
    return case(
        tree={} if missing else {"fact.md": {"text": "w0-i0\n"}},
        requires=["concurrency"],
        steps=[
            {
                "op": "demo.put",
                "args": {"path": "${ROOT}/fact.md", "text": "w${WORKER}-i${ITERATION}\n"},
                "concurrent": {"workers": 4, "repeat": 40},
                "readers": {
                    "path": "fact.md",
                    "text_pattern": "w[0-3]-i[0-9]+\n",
                    "threads": 2,
                    "missing": missing,
                },
                "expect": {"result": "ok", "tree": {"fact.md": {"text_pattern": "w[0-3]-i39\n"}}},
            }
        ],
    )


def test_readers_beside_atomic_writers_see_only_whole_files(
    fake: Callable[[str], Adapter],
) -> None:
    """Decided in one round, with the writers slowed where a reader would see a torn
    file (the rounds of an unobserved run: test_races_decided_in_one_round.py)."""
    run_case(_rewrites(), fake("FormOps"), observed=True)
    run_case(_rewrites(missing=True), fake("FormOps"), observed=True)


def test_readers_beside_writers_in_place_see_empty_files(fake: Callable[[str], Adapter]) -> None:
    with pytest.raises(CaseFailure, match=r"a reader beside the step saw fact.md") as failure:
        run_case(_rewrites(), fake("WritesInPlace"))
    assert "saw:      b''" in str(failure.value)


def test_a_reader_that_finds_no_file_fails_unless_missing_is_allowed(
    fake: Callable[[str], Adapter],
) -> None:
    subject = case(
        steps=[
            {
                "op": "demo.listdir",
                "args": {"path": "${ROOT}"},
                "readers": {"path": "absent", "text_pattern": ""},
                "expect": {"result": []},
            }
        ]
    )
    with pytest.raises(CaseFailure, match=r"saw:      \(missing\)"):
        run_case(subject, fake("FormOps"))


def _adds_a_file(crash_points: Any) -> Case:
    return case(
        requires=["fault-injection"],
        steps=[
            {
                "op": "demo.add_file",
                "args": {"stem": "${ROOT}/f.md", "text": "body\n"},
                "crash_points": crash_points,
                "expect": {"result": "${ROOT}/f.md", "tree": {"f.md": {"text": "body\n"}}},
            }
        ],
    )


def test_crash_points_of_an_op_that_is_not_idempotent_rerun_it_once(
    fake: Callable[[str], Adapter],
) -> None:
    assert run_crash_points(_adds_a_file({"idempotent": False}), fake("FormOps"), 0) == 3
    with pytest.raises(CaseFailure, match="a second clean rerun, the tree differs"):
        run_crash_points(_adds_a_file(True), fake("FormOps"), 0)


def test_crash_points_catch_a_file_created_under_its_final_name(
    fake: Callable[[str], Adapter],
) -> None:
    with pytest.raises(CaseFailure, match="right after failing mutation 2, the state is neither"):
        run_crash_points(_adds_a_file({"idempotent": False}), fake("CreatesUnderTheFinalName"), 0)
    # Not checked right after the fault, the empty file is still caught by the rerun.
    resumable = {"idempotent": False, "all_or_nothing": False}
    with pytest.raises(CaseFailure, match="after failing mutation 2 and a clean rerun") as failure:
        run_crash_points(_adds_a_file(resumable), fake("CreatesUnderTheFinalName"), 0)
    assert "f.md-2" in str(failure.value)
