"""Lint keeps cases inside their directory and in step with the divergences page; the
digest token names what only exists once a case runs."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from memspec._case_paths import OpPaths, case_path_problems, leaves_root, path_arguments
from memspec._divergences import entries_named, read_divergence_page
from memspec.cases import case_from_json, schema_errors
from memspec.lint import _divergence_problems
from memspec.suite.registry import RegisteredCase
from memspec.trees import compare_tree, materialise, read_tree, substitute

TABLE = {
    "demo.write": OpPaths(args=("dir", "items[].path"), result=("path", "[].path")),
    "demo.hash": OpPaths(),
}


def case(**fields: Any) -> Any:
    data = {"id": "demo/paths/x", "description": "d", "requirements": ["DEMO-ECHO-001"], **fields}
    assert schema_errors(data) == []
    return case_from_json(data)


@pytest.mark.parametrize(
    ("path", "outside"),
    [
        ("${ROOT}", False),
        ("${ROOT}/a/../b", False),
        ("/${ROOT}//x/", False),
        ("${ROOT}/w${WORKER}/${sha256-16:${ROOT}/ws}", False),
        ("relative/path", False),
        ("", False),
        ("/memspec-absent/p", True),
        ("${ROOT}/../elsewhere", True),
        ("${ROOT}x/y", True),
        ("/tmp/x${ROOT}", True),
        ("/", True),
    ],
)
def test_a_path_leaves_the_root_only_when_it_is_absolute_and_cleans_outside(
    path: str, outside: bool
) -> None:
    assert leaves_root(path) is outside


def test_only_declared_members_are_paths() -> None:
    subject = case(
        tree={
            "link": {"symlink": "/etc"},
            "dev": {"symlink": "/dev/null"},
            "up": {"symlink": "../.."},
            "in": {"symlink": "a/../b"},
        },
        setup=[{"git": ["worktree", "add", "/srv/wt"], "cwd": "../out"}],
        steps=[
            {
                "op": "demo.write",
                "args": {"dir": "/home/u", "items": [{"path": "${ROOT}/ok"}, {"path": "/x"}]},
                "expect": {"result": {"path": "/p"}, "tree": {"l": {"symlink": "/bin"}}},
            },
            {"op": "demo.hash", "args": {"dir": "/test/project"}, "expect": {"result": "/r"}},
        ],
    )
    assert case_path_problems(subject, TABLE) == [
        "tree: symlink link -> '/etc' leads outside ${ROOT}",
        "tree: symlink up -> '../..' leads outside ${ROOT}",
        "set-up action 1: git argument '/srv/wt' is outside ${ROOT}",
        "set-up action 1: cwd '../out' is outside ${ROOT}",
        "step 1 (demo.write): argument dir '/home/u' is outside ${ROOT}",
        "step 1 (demo.write): argument items[].path '/x' is outside ${ROOT}",
        "step 1 (demo.write): expected result path '/p' is outside ${ROOT}",
        "step 1 (demo.write): expected tree: symlink l -> '/bin' leads outside ${ROOT}",
    ]
    assert path_arguments("demo.write", {"dir": "/a", "items": [{"path": "/b"}]}, TABLE) == [
        "/a",
        "/b",
    ]
    assert path_arguments("demo.unknown", {"dir": "/a"}, TABLE) == []


def test_the_digest_token_names_paths_and_contents_known_only_when_the_case_runs(
    tmp_path: Path,
) -> None:
    root = str(tmp_path)
    digest = hashlib.sha256(f"{root}/ws".encode()).hexdigest()[:16]
    assert substitute("k/${sha256-16:${ROOT}/ws}", root) == f"k/{digest}"
    tree = {
        "cfg/${sha256-16:${ROOT}/ws}/a.md": {"text": '{"cwd": "${ROOT}/ws"}'},
        "cfg/link": {"symlink": "${ROOT}/cfg"},
        "cfg/raw": {"base64": "JHtST09UfQ=="},
    }
    materialise(tree, tmp_path)
    assert (tmp_path / "cfg" / digest / "a.md").read_text() == f'{{"cwd": "{root}/ws"}}'
    assert (tmp_path / "cfg" / "raw").read_bytes() == b"${ROOT}"
    assert compare_tree(tree, read_tree(tmp_path), root) == []
    wrong = {**tree, "cfg/${sha256-16:${ROOT}/ws}/a.md": {"text": "${ROOT}"}}
    assert compare_tree(wrong, read_tree(tmp_path), root) != []


PAGE = """# Divergences

## `demo` (the seed)

| # | area | seed | spec | clause |
|---|---|---|---|---|
| 1 | echo | a | b | loses data |
| 2 | echo | c | d | loses data |

### Echo: first
- **Cases:** demo/echo/a, demo/echo/gone,
  demo/echo/b.

### Echo: second
- **Moa:** prose naming demo/echo/c does not list it.
- **Properties that reach it:** demo/echo/property-x.

## `named` (rows are words)

| row | kind |
|---|---|
| `lost-update` | fix |

### `lost-update`: words
- **Cases:** named/x/y.
"""


def test_the_page_lists_cases_under_each_entry(tmp_path: Path) -> None:
    (tmp_path / "divergences.md").write_text(PAGE)
    page = read_divergence_page(tmp_path / "divergences.md")
    assert page.problems == []
    assert {name: sorted(entry.cases) for name, entry in page.entries.items()} == {
        "demo#1": ["demo/echo/a", "demo/echo/b", "demo/echo/gone"],
        "demo#2": ["demo/echo/property-x"],
        "named#lost-update": ["named/x/y"],
    }
    assert entries_named("demo#2: why | demo#1: because", "demo") == (["demo#2", "demo#1"], [])
    assert entries_named("lost-update: why", "named") == (["named#lost-update"], [])
    assert entries_named("evva keeps it: type=x", "demo") == ([], ["evva keeps it: type=x"])
    assert entries_named("other#1: x", "demo") == ([], ["other#1: x"])


def test_cases_and_entries_must_name_each_other_both_ways(tmp_path: Path) -> None:
    (tmp_path / "divergences.md").write_text(PAGE)
    page = read_divergence_page(tmp_path / "divergences.md")
    fixtures = {f"demo/echo/{slug}": Path(slug) for slug in ("a", "b", "c")}
    echo = {"op": "demo.echo", "args": {}, "expect": {"result": None}}
    diverging = {
        "demo/echo/a": case(id="demo/echo/a", divergence="demo#1: why", steps=[echo]),
        "demo/echo/c": case(id="demo/echo/c", divergence="demo#2: x | demo#9: y", steps=[echo]),
    }
    suite = [
        RegisteredCase("demo/echo/property-x", "d", (), "property", ("demo#2",)),
        RegisteredCase("demo/echo/property-y", "d", (), "property", ("demo#1",)),
    ]
    assert _divergence_problems(page, fixtures, diverging, suite) == [
        "demo/echo/c: names demo#2 but is not listed under it in spec/divergences.md",
        "demo/echo/c: names demo#9, which spec/divergences.md does not have",
        "demo/echo/property-y: names demo#1 but is not listed under it in spec/divergences.md",
        "spec/divergences.md: demo#1 lists demo/echo/b, which does not name it",
        "spec/divergences.md: demo#1 lists 'demo/echo/gone', which is no case",
    ]
