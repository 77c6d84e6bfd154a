"""A fixture tree can hold hard links, and a write through one is caught.

``{"hardlink": "<path>"}`` makes another name for a file of the tree. A case whose file is
a hard link to a file outside the memory (``hard-linked/<name>``) expects the rewrite to
replace the link: an implementation that opens the file and writes into it changes the
outside file too, and leaves the two names one file.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from unserialised import in_place

from memspec.corpus.case_paths import case_path_problems
from memspec.corpus.cases import Case, case_from_json, load_cases
from memspec.exceptions import CaseFailure
from memspec.run.runner import run_case
from memspec.run.trees import compare_tree, materialise, read_tree
from memspec.wire.adapters import Adapter

HARD_LINKED = [
    case for case in load_cases() if any("hardlink" in spec for spec in case.tree.values())
]


def test_a_tree_makes_the_link_and_a_comparison_tells_one_file_from_two(tmp_path: Path) -> None:
    materialise({"a/f.txt": {"text": "x"}, "b/g.txt": {"hardlink": "a/f.txt"}}, tmp_path)
    assert os.stat(tmp_path / "a/f.txt").st_ino == os.stat(tmp_path / "b/g.txt").st_ino
    tree = read_tree(tmp_path)
    root = str(tmp_path)
    assert (
        compare_tree({"a/f.txt": {"text": "x"}, "b/g.txt": {"hardlink": "a/f.txt"}}, tree, root)
        == []
    )
    assert compare_tree({"a/f.txt": {"text": "x"}, "b/g.txt": {"text": "x"}}, tree, root) == [
        "a/f.txt: hard link to b/g.txt, expected a file of its own",
        "b/g.txt: hard link to a/f.txt, expected a file of its own",
    ]
    (tmp_path / "b/g.txt").unlink()
    (tmp_path / "b/g.txt").write_text("x")
    assert compare_tree(
        {"a/f.txt": {"text": "x"}, "b/g.txt": {"hardlink": "a/f.txt"}}, read_tree(tmp_path), root
    ) == ["b/g.txt: hard link to a/f.txt expected, found a file of its own"]


@pytest.mark.parametrize(
    ("named", "problem"),
    [
        ("../x", "leads outside ${ROOT}"),
        ("a/../../x", "leads outside ${ROOT}"),
        ("nothing.txt", "names no file of the tree"),
        ("d", "names no file of the tree"),
    ],
)
def test_a_hard_link_out_of_the_root_or_to_no_file_is_refused(named: str, problem: str) -> None:
    case = case_from_json(
        {
            "id": "demo/harness/hard-link",
            "description": "d",
            "requirements": ["DEMO-ECHO-001"],
            "tree": {"d": {"dir": True}, "f.txt": {"text": "x"}, "g.txt": {"hardlink": named}},
            "op": "demo.echo",
            "args": {"value": "x"},
            "expect": {"result": "x"},
        }
    )
    assert any(problem in line for line in case_path_problems(case, {})), case_path_problems(
        case, {}
    )


def test_every_profile_that_rewrites_files_has_a_hard_linked_case() -> None:
    assert {case.profile for case in HARD_LINKED} == {
        "automemory",
        "factstore",
        "hermes",
        "memdir",
        "memories",
        "memorytool",
    }


@pytest.mark.parametrize("case", HARD_LINKED, ids=lambda case: case.id)
def test_memref_replaces_the_link(case: Case) -> None:
    adapter = Adapter("reference")
    try:
        run_case(case, adapter)
    finally:
        adapter.close()


@pytest.mark.parametrize(
    "case",
    [c for c in HARD_LINKED if c.profile in ("memories", "memorytool", "hermes")],
    ids=lambda case: case.id,
)
def test_a_memory_tool_writing_in_place_is_caught_writing_through_the_link(case: Case) -> None:
    adapter = Adapter("reference")
    try:
        with in_place(), pytest.raises(CaseFailure) as caught:
            run_case(case, adapter)
    finally:
        adapter.close()
    message = str(caught.value)
    assert "hard-linked/" in message and "hard link to" in message
