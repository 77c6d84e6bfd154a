"""memref.hermes: reading and writing the files (HERMES-STORAGE-*)."""

from __future__ import annotations

from pathlib import Path

from pyfakefs.fake_filesystem import FakeFilesystem

from memref.hermes import parse, read_text, serialise

from .support import DELIM, call, memory


def test_parse_strips_dedupes_and_drops_empty_parts() -> None:
    assert parse(" a \n\u00a7\n\n\u00a7\na\n\u00a7\n\ufeffb\u00a0") == ["a", "\ufeffb"]
    assert parse("  \n\t") == [] and parse(None) == []
    assert serialise([]) == "" and serialise(["a", "b"]) == "a" + DELIM + "b"


def test_universal_newlines(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"a\r\n\xc2\xa7\rb")
    assert read_text(str(path)).text == "a\n\u00a7\nb"


def test_invalid_utf8_cannot_be_read_and_is_not_written(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = memory(home, "")
    path.write_bytes(b"a\xff")
    answer = call(home, {"action": "add", "content": "c"})
    assert answer["success"] is False and "could not be read" in answer["error"]
    assert path.read_bytes() == b"a\xff"
    assert call(home, {"action": "add", "target": "user", "content": "u"})["success"] is True


def test_unreadable_file_is_never_replaced(nonroot_fs: FakeFilesystem) -> None:
    home = Path("/h")
    nonroot_fs.create_file(
        "/h/memories/MEMORY.md", contents="one" + DELIM + "two", st_mode=0o100200
    )
    answer = call(home, {"action": "add", "content": "new fact"})
    assert answer == {
        "success": False,
        "error": "MEMORY.md could not be read, so nothing was written. Fix the file (its "
        "permissions, or text that is not UTF-8), then retry.",
    }
    nonroot_fs.chmod("/h/memories/MEMORY.md", 0o600)
    assert Path("/h/memories/MEMORY.md").read_text() == "one" + DELIM + "two"
