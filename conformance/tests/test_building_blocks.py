"""The small pieces the harness is built from: comparisons, trees, requirements, lint."""

from __future__ import annotations

import doctest
import json
import os
from importlib.metadata import version
from pathlib import Path

import pytest

import memspec.corpus.compare
from memspec.corpus.compare import json_equal, text_bytes, text_matches_pattern
from memspec.corpus.requirements import parse_requirements
from memspec.corpus.tokens import substitute
from memspec.run.trees import compare_tree, materialise, read_tree, remove_tree


def test_compare_doctests() -> None:
    assert doctest.testmod(memspec.corpus.compare).failed == 0


@pytest.mark.parametrize(
    ("expected", "actual", "equal"),
    [
        ({"a": [1, {"b": None}]}, {"a": [1, {"b": None}]}, True),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, True),
        ([1, 2], [2, 1], False),
        (1, 1.0, False),
        (True, 1, False),
        (0, False, False),
        (None, {}, False),
        ("é", {"base64": "w6k="}, True),
        ({"base64": "w6k="}, "é", True),
        ({"base64": "/w=="}, "\ufffd", False),
        ("x", {"base64": "not base64!"}, False),
        ({"k": "v"}, {"k": "v", "extra": 1}, False),
    ],
)
def test_json_equal_is_strict_but_ignores_key_order(
    expected: object, actual: object, equal: bool
) -> None:
    assert json_equal(expected, actual) is equal


def test_text_bytes_rejects_non_text() -> None:
    assert text_bytes(3) is None and text_bytes({"base64": 1}) is None
    assert text_bytes({"base64": "", "extra": 1}) is None


def test_text_pattern_needs_a_full_match_of_valid_utf8() -> None:
    assert text_matches_pattern("a+", b"aaa")
    assert not text_matches_pattern("a+", b"aaab")
    assert not text_matches_pattern(".*", b"\xff")


def test_substitute_reaches_every_string() -> None:
    assert substitute({"a": ["${ROOT}/x", 1, {"b": "${ROOT}"}]}, "/r") == {
        "a": ["/r/x", 1, {"b": "/r"}]
    }


def test_tree_round_trip_and_comparison(tmp_path: Path) -> None:
    tree = {
        "a/b.md": {"text": "hi", "mtime": "2026-05-01T12:00:00.5Z", "mode": "0640"},
        "bin": {"base64": "/wA=", "size": 5},
        "empty": {"dir": True},
        "link": {"symlink": "${ROOT}/a/b.md"},
        "pipe": {"fifo": True},
    }
    materialise(tree, tmp_path)
    found = read_tree(tmp_path)
    assert found["a/b.md"].mode == 0o640
    assert found["a/b.md"].mtime_ns == 1_777_636_800_500_000_000
    assert found["bin"].content == b"\xff\x00\x00\x00\x00"
    assert os.readlink(tmp_path / "link") == f"{tmp_path}/a/b.md"
    assert compare_tree(tree, found, str(tmp_path)) == []
    changed = {**tree, "a/b.md": {"text": "bye"}, "new": {"file": True}}
    del changed["pipe"]
    problems = compare_tree(changed, found, str(tmp_path))
    assert problems == [
        'a/b.md: content differs\n  expected: "bye"\n  actual:   "hi"',
        "new: missing",
        "pipe: unexpected fifo",
    ]
    assert compare_tree({**tree, "bin": {"text_pattern": "[0-9]+"}}, found, str(tmp_path))
    remove_tree(tmp_path)
    assert not tmp_path.exists()


def test_a_socket_is_made_at_a_path_longer_than_an_af_unix_address(tmp_path: Path) -> None:
    deep = "d" * 60 + "/" + "e" * 60 + "/s.sock"
    materialise({deep: {"socket": True}}, tmp_path)
    assert len(str(tmp_path / deep)) > 108
    assert read_tree(tmp_path)[deep].kind == "socket"


def test_remove_tree_undoes_missing_permissions(tmp_path: Path) -> None:
    root = tmp_path / "case"
    materialise({"locked/inner/x.md": {"text": "x"}, "locked": {"dir": True, "mode": "0000"}}, root)
    remove_tree(root)
    assert not root.exists()


def test_requirements_skip_fenced_examples_and_join_continuations() -> None:
    page = "\n".join(
        [
            "# Title",
            "## Area",
            "```",
            "- **X-Y-001** (MUST): an example, not a rule",
            "```",
            "- **X-Y-002** (MUST NOT): first line",
            "  second line",
            "",
            "- **X-Y-003** (MAY): optional",
        ]
    )
    found = parse_requirements(page, "x.md")
    assert [(r.id, r.level, r.text, r.section) for r in found] == [
        ("X-Y-002", "MUST NOT", "first line second line", "Area"),
        ("X-Y-003", "MAY", "optional", "Area"),
    ]
    assert found[0].mandatory and not found[1].mandatory


def test_case_schema_accepts_every_shipped_fixture() -> None:
    from memspec.corpus.cases import fixture_files, schema_errors
    from memspec.corpus.data import fixtures_dir

    files = fixture_files(fixtures_dir())
    assert len(files) > 700
    for path in files:
        assert schema_errors(json.loads(path.read_text(encoding="utf-8"))) == [], path


def test_memref_error_kinds_are_the_protocols() -> None:
    from memref.errors import ERROR_KINDS as reference_kinds
    from memspec.wire.protocol import ERROR_KINDS as protocol_kinds

    assert reference_kinds == protocol_kinds


def test_memref_speaks_the_suites_protocol_version_and_shares_its_distribution_version() -> None:
    import memref
    import memspec

    assert memref.PROTOCOL_VERSION == memspec.PROTOCOL_VERSION
    assert memref.__version__ == memspec.__version__ == version("memspec")
