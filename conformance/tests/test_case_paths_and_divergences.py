"""Lint keeps cases inside their directory and in step with the divergences page; the
members that are paths are read from the op schemas; the digest token names what only
exists once a case runs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from referencing import Registry, Resource

from memspec.cli.lint import _divergence_problems
from memspec.cli.op_lint import schema_problems
from memspec.corpus.case_paths import (
    OpPaths,
    case_path_problems,
    leaves_root,
    path_arguments,
    path_table,
    select,
    selectors,
)
from memspec.corpus.cases import case_from_json, schema_errors
from memspec.corpus.divergences import entries_named, read_divergence_page
from memspec.corpus.op_schemas import WIRE_ID, wire_file
from memspec.corpus.registry import RegisteredCase
from memspec.corpus.tokens import substitute
from memspec.run.trees import compare_tree, materialise, read_tree

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
        ("${ROOT}/${KEY}/x", False),
        ("${KEY}/x", True),
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


WIRE = f"{WIRE_ID}#/$defs/"
DEMO_ID = "https://memspec.dev/schemas/ops/demo/walk.json"
DEMO = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": DEMO_ID,
    "$defs": {
        "args": {
            "type": "object",
            "properties": {
                "dir": {"$ref": f"{WIRE}path", "pattern": "^/"},
                "key": {"$ref": f"{WIRE}path-text"},
                "items": {"type": "array", "items": {"$ref": "#/$defs/item"}},
                "maybe": {"anyOf": [{"type": "null"}, {"$ref": f"{WIRE}path"}]},
                "roots": {"type": "object", "additionalProperties": {"$ref": f"{WIRE}path"}},
                "both": {"allOf": [{"properties": {"deep": {"$ref": f"{WIRE}path"}}}]},
                "tree": {"$ref": "#/$defs/tree"},
            },
        },
        "item": {"properties": {"path": {"$ref": f"{WIRE}path"}, "label": {"type": "string"}}},
        "tree": {
            "properties": {
                "path": {"$ref": f"{WIRE}path"},
                "children": {"items": {"$ref": "#/$defs/tree"}},
            }
        },
        "result": {
            "type": "array",
            "items": {"oneOf": [{"properties": {"path": {"$ref": f"{WIRE}result-path"}}}]},
        },
    },
}


def _demo_lookup(ref: str, base: str) -> Any:
    wire = json.loads(wire_file().read_text(encoding="utf-8"))
    registry = Registry().with_resources(
        [(DEMO_ID, Resource.from_contents(DEMO)), (WIRE_ID, Resource.from_contents(wire))]
    )
    return registry.resolver(base_uri=base).lookup(ref).contents


def test_the_members_that_are_paths_are_read_from_the_schema() -> None:
    assert selectors(DEMO["$defs"]["args"], DEMO_ID, _demo_lookup) == (
        "dir",
        "items[].path",
        "maybe",
        "roots{}",
        "both.deep",
        "tree.path",
    )
    assert selectors(DEMO["$defs"]["result"], DEMO_ID, _demo_lookup) == ("[].path",)
    args = {"dir": "/a", "items": [{"path": "/b", "label": "/l"}], "roots": {"x": "/c"}}
    assert [v for s in ("items[].path", "roots{}", "maybe") for v in select(args, s)] == [
        "/b",
        "/c",
    ]


def test_the_shipped_schemas_say_which_members_are_paths() -> None:
    table = path_table()
    assert table["turnlog.index_files"] == OpPaths(("store_dir", "items[].path"), ("[].path",))
    assert table["factstore.read"].result == ("memory.path",)
    assert table["factstore.canonicalize_path"] == OpPaths(("path", "cwd"), ("",))
    assert table["automemory.memory_dir"] == OpPaths(("project_root",), ())
    assert table["turnlog.is_indexed"] == OpPaths(("store_dir",), ())
    for computed in ("memdir.memory_dir", "memdir.is_in_memory_dir", "turnlog.memory_dir"):
        assert table[computed] == OpPaths(), computed
    assert path_arguments("turnlog.upsert", {"store_dir": "/s", "path": "/p", "title": "/t"}) == [
        "/s",
        "/p",
    ]


def test_an_argument_path_is_a_string_and_a_result_path_is_text() -> None:
    wire = json.loads(wire_file().read_text(encoding="utf-8"))["$defs"]
    assert wire["path"]["type"] == wire["path-text"]["type"] == "string"
    assert wire["result-path"]["$ref"] == "#/$defs/text"
    assert schema_problems(set()) == []


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
