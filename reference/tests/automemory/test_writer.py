"""The writer's text and its atomic write."""

from __future__ import annotations

from pathlib import Path

import pytest

from memref._faults import counting
from memref.automemory import format_memory_file, slug_name, write_memory_file


def test_seed_example() -> None:
    assert format_memory_file("My Note", "d", {"type": "user"}, "\n\nbody\n") == (
        "---\nname: my-note\ndescription: d\nmetadata:\n  node_type: memory\n  type: user\n"
        "---\n\nbody\n"
    )


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("\u00dcn\u00efcode name", "n-code-name"),
        ("\u00c4BC", "bc"),
        ("\u65e5\u672c", ""),
        ("x.y", "x-y"),
        ("--x--", "--x--"),
    ],
)
def test_slugs(name: str, slug: str) -> None:
    assert slug_name(name) == slug


def test_quoting() -> None:
    text = format_memory_file(None, "it's", {"a": "123", "t": ["a", "b"], "n": None}, "")
    assert 'name: ""\ndescription: "it\'s"\n' in text
    assert '  a: "123"\n  t:\n    - a\n    - b\n---' in text and "  n:" not in text


def test_failed_write_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "m.md"
    path.write_text("old")
    with counting(fail_mutation=2), pytest.raises(OSError):
        write_memory_file(str(path), "n", "d", {}, "new")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["m.md"]


def test_what_is_written_reads_back() -> None:
    from memref.automemory import parse_memory_file

    metadata = {"tags": [], "a": "true", "b": "null", "c": "False", "d": "N"}
    parsed = parse_memory_file(format_memory_file("note", "d", metadata, "b"))
    assert parsed.metadata == {"node_type": "memory", **metadata}


def test_negative_zero_keeps_its_sign() -> None:
    text = format_memory_file("n", "d", {"z": -0.0, "o": 0.0}, "b")
    assert "  z: -0\n" in text
    assert "  o: 0\n" in text


def test_a_symlink_at_the_path_is_replaced(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("old")
    (tmp_path / "role.md").symlink_to(outside)
    write_memory_file(str(tmp_path / "role.md"), "Role", "d", {}, "b")
    assert not (tmp_path / "role.md").is_symlink()
    assert outside.read_text() == "old"
