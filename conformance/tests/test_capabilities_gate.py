"""A case asks for a capability only when its own check needs it: an adapter that claims
none runs the root-deletion and sibling-escape cases, and one that empties its store on
a delete of the root is caught there (one that turns tabs into spaces, by a file holding
tabs); lint lists a requirement nothing of a case uses."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from memspec.cli.requires_lint import op_capabilities, unused_requires
from memspec.corpus.cases import Case, case_from_json, load_cases, schema_errors
from memspec.corpus.data import spec_dir
from memspec.exceptions import CaseFailure
from memspec.run.runner import not_claimed_reason, run_case
from memspec.wire.adapters import Adapter

ROOT_DELETION = [
    f"memories/delete/root-{spelling}"
    for spelling in ("plain", "slash", "dot", "double-slash", "dir-dotdot")
]
SIBLING_ESCAPES = [
    f"memories/paths/backup-dotdot-{verb}"
    for verb in ("view", "create", "str-replace", "insert", "delete", "rename-from", "rename-to")
]


def _cases(ids: list[str]) -> list[Case]:
    by_id = {case.id: case for case in load_cases(profiles=["memories"])}
    return [by_id[case_id] for case_id in ids]


@pytest.fixture
def fake(in_process: Callable[[str], Adapter]) -> Callable[[str], Adapter]:
    return lambda name: in_process(f"memories_fakes:{name}")


def test_an_adapter_claiming_no_capability_runs_root_deletion_and_sibling_escapes(
    fake: Callable[[str], Adapter],
) -> None:
    adapter = fake("InMemoryStore")
    assert not adapter.handshake.capabilities
    for case in _cases(ROOT_DELETION + SIBLING_ESCAPES):
        assert not_claimed_reason(case, adapter) is None, case.id
        run_case(case, adapter)


@pytest.mark.parametrize("case_id", ROOT_DELETION)
def test_a_store_emptied_by_a_delete_of_the_root_is_caught(
    fake: Callable[[str], Adapter], case_id: str
) -> None:
    (case,) = _cases([case_id])
    adapter = fake("EmptiesOnRootDelete")
    assert not_claimed_reason(case, adapter) is None
    with pytest.raises(CaseFailure, match=r"base/memories/a\.txt"):
        run_case(case, adapter)


def test_a_store_that_turns_tabs_into_spaces_is_caught_by_its_tree(
    fake: Callable[[str], Adapter],
) -> None:
    (case,) = _cases(["memories/files/tabs-kept-by-str-replace"])
    with pytest.raises(CaseFailure) as keeps:
        run_case(case, fake("InMemoryStore"))
    assert not [check for check in keeps.value.signature if "tree" in check]  # wording only
    with pytest.raises(CaseFailure) as expands:
        run_case(case, fake("TabsToSpaces"))
    trees = [check for check in expands.value.signature if "tree" in check]
    assert len(trees) == 1 and trees[0].startswith("step 1: tree base/memories/t.txt content")


def test_every_root_deletion_case_has_a_twin_with_links_and_a_fifo() -> None:
    twins = _cases([f"{case_id}-with-links-and-fifo" for case_id in ROOT_DELETION])
    for plain, twin in zip(_cases(ROOT_DELETION), twins, strict=True):
        assert plain.requires == ()
        assert set(twin.requires) == {"fifos", "symlinks"}
        assert plain.steps[0].expect.result == twin.steps[0].expect.result


def _case(**fields: Any) -> Case:
    data = {"id": "demo/harness/x", "description": "d", "requirements": ["DEMO-ECHO-001"], **fields}
    assert schema_errors(data) == []
    return case_from_json(data)


_STEP = {"op": "demo.listdir", "args": {"path": "${ROOT}"}, "expect": {"result": []}}


@pytest.mark.parametrize(
    ("requires", "tree", "step", "unused"),
    [
        (["symlinks"], {"a": {"text": "a"}}, _STEP, ["symlinks"]),
        (["symlinks"], {"l": {"symlink": "a"}}, _STEP, []),
        (
            ["symlinks"],
            {},
            {**_STEP, "expect": {"result": [], "tree": {"l": {"symlink": "a"}}}},
            [],
        ),
        (["fifos"], {"l": {"symlink": "a"}}, _STEP, ["fifos"]),
        (["fifos"], {"f": {"fifo": True}}, _STEP, []),
        (["fifos"], {"s": {"socket": True}}, _STEP, []),
        (["git"], {}, _STEP, ["git"]),
        (["concurrency"], {}, _STEP, ["concurrency"]),
        (["concurrency"], {}, {**_STEP, "concurrent": {"workers": 2}}, []),
        (
            ["fault-injection"],
            {"a": {"text": "a"}},
            {**_STEP, "crash_points": True, "expect": {"result": [], "tree": {}}},
            ["fault-injection"],
        ),
        (["threads"], {}, _STEP, ["threads"]),
        (["symlinks"], {"d": {"dir": True}}, {**_STEP, "race": {"swap": "d", "outside": "o"}}, []),
    ],
)
def test_lint_lists_a_requirement_no_entry_of_the_case_uses(
    requires: list[str], tree: dict[str, Any], step: dict[str, Any], unused: list[str]
) -> None:
    subject = _case(requires=requires, tree=tree, steps=[step])
    problems = unused_requires(subject, {})
    assert [problem.split()[1].rstrip(",") for problem in problems] == unused


def test_an_op_that_needs_threads_uses_the_capability() -> None:
    needed = op_capabilities(spec_dir())
    assert needed["turnlog.manager_script"] == {"threads"}
    step = {"op": "turnlog.manager_script", "args": {}, "expect": {"result": {}}}
    subject = _case(requires=["threads"], steps=[step])
    assert unused_requires(subject, needed) == []


def test_no_case_of_the_corpus_requires_what_it_does_not_use() -> None:
    needed = op_capabilities(spec_dir())
    unused = [(case.id, unused_requires(case, needed)) for case in load_cases()]
    assert [(case_id, problems) for case_id, problems in unused if problems] == []
