"""One validator refuses fixture trees and steps that escape ``${ROOT}``, for ``lint`` and,
at load, for ``run``: a tree key ``../x``, a tree symlink to an outside folder, an
argument outside the root, a race directory outside it; and a tree key deeper or longer
than any path a tree of the harness may hold."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memspec.cli.lint import lint
from memspec.corpus.cases import load_case
from memspec.exceptions import FixtureError

CALL = {"op": "memories.call", "expect": {"result": {"content": "x", "is_error": False}}}
VIEW = {"command": "view", "path": "/memories"}
ESCAPES: dict[str, tuple[dict[str, Any], str]] = {
    "tree-key": (
        {"tree": {"../x": {"text": "pwned"}}, **CALL, "args": {"base": "${ROOT}", "input": VIEW}},
        "tree: key '../x' is outside ${ROOT}",
    ),
    "deep-tree-key": (
        {
            "tree": {"a/../../x": {"dir": True}},
            **CALL,
            "args": {"base": "${ROOT}", "input": VIEW},
        },
        "tree: key 'a/../../x' is outside ${ROOT}",
    ),
    "too-deep-tree-key": (
        {
            "tree": {"a/" * 2999 + "x": {"text": ""}},
            **CALL,
            "args": {"base": "${ROOT}", "input": VIEW},
        },
        f"tree: key {('a/' * 30)!r}... is more than 32 levels or 1024 bytes long",
    ),
    "too-long-tree-key": (
        {"tree": {"ab" * 600: {"text": ""}}, **CALL, "args": {"base": "${ROOT}", "input": VIEW}},
        f"tree: key {('ab' * 30)!r}... is more than 32 levels or 1024 bytes long",
    ),
    "tree-symlink": (
        {
            "tree": {"memories": {"symlink": "/etc"}},
            **CALL,
            "args": {"base": "${ROOT}", "input": VIEW},
        },
        "tree: symlink memories -> '/etc' leads outside ${ROOT}",
    ),
    "argument": (
        {**CALL, "args": {"base": "${ROOT}/../elsewhere", "input": VIEW}},
        "step 1 (memories.call): argument base '${ROOT}/../elsewhere' is outside ${ROOT}",
    ),
    "race": (
        {
            "requires": ["symlinks"],
            "tree": {"d": {"dir": True}},
            "steps": [
                {
                    "op": "memories.call",
                    "args": {"base": "${ROOT}", "input": VIEW},
                    "race": {"swap": "d", "outside": "../.."},
                    "expect": {"any_of": [{"result": {"content": "x", "is_error": False}}]},
                }
            ],
        },
        "step 1 (memories.call): race outside '../..' is outside ${ROOT}",
    ),
}


def _write(root: Path, slug: str, body: dict[str, Any]) -> Path:
    data = {
        "id": f"memories/escape/{slug}",
        "description": "d",
        "requirements": ["MEMORIES-PATH-001"],
        **body,
    }
    path = root / "memories" / "escape" / f"{slug}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("slug", sorted(ESCAPES))
def test_run_refuses_at_load_what_escapes_the_root(tmp_path: Path, slug: str) -> None:
    body, problem = ESCAPES[slug]
    path = _write(tmp_path, slug, body)
    with pytest.raises(FixtureError) as refused:
        load_case(path, tmp_path)
    assert str(refused.value) == f"{path}: {problem}"


def test_lint_refuses_the_same_with_the_same_words(tmp_path: Path) -> None:
    for slug, (body, _) in ESCAPES.items():
        _write(tmp_path, slug, body)
    problems = lint(fixtures=tmp_path, profiles=["memories"])
    for slug, (_, problem) in ESCAPES.items():
        assert f"memories/escape/{slug}.json: {problem}" in problems


def test_a_key_that_stays_inside_after_cleaning_is_kept(tmp_path: Path) -> None:
    body = {
        "tree": {"a/../b": {"text": "x"}, "e/d": {"symlink": "../d2"}, "d2": {"dir": True}},
        **CALL,
        "args": {"base": "${ROOT}", "input": VIEW},
    }
    load_case(_write(tmp_path, "inside", body), tmp_path)


def test_an_exported_failure_is_root_relative_carries_its_tree_and_passes_lint(
    tmp_path: Path,
) -> None:
    from memspec.plugin.export_failures import export_failure
    from memspec.run.trees import read_tree

    made = tmp_path / "made-by-a-property"
    (made / "memories").mkdir(parents=True)
    (made / "memories" / "note.txt").write_text("hello\n")
    args = {"base": str(made), "input": {"command": "view", "path": "/memories/note.txt"}}
    exported = tmp_path / "exported"
    path = export_failure(
        exported,
        "memories/view/property-x",
        ("MEMORIES-VIEW-001",),
        "memories.call",
        args,
        str(made),
        read_tree(made),
    )
    fixture = json.loads(path.read_text(encoding="utf-8"))
    assert fixture["args"]["base"] == "${ROOT}"
    assert fixture["tree"]["memories/note.txt"]["text"] == "hello\n"
    assert str(tmp_path) not in path.read_text(encoding="utf-8")
    assert "hello" in json.dumps(fixture["expect"]["result"])
    load_case(path, exported)
    problems = lint(fixtures=exported, profiles=["memories"])
    assert [p for p in problems if p.startswith("memories/view/regression-")] == []
