"""memref.memories: what reaches the model when a command fails (MEMORIES-ERR-*)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from memref.memories import execute
from memref.memories._errors import failure_for_os_error, well_formed

from .support import base_with, call


def test_unpaired_surrogates_become_the_replacement_character() -> None:
    assert well_formed("a\ud800b\udcff") == "a\ufffdb\ufffd"


def test_an_os_error_is_told_by_its_reason_never_by_its_path() -> None:
    failure = failure_for_os_error(
        OSError(errno.EACCES, "Permission denied", "/host/x"), "/memories/x"
    )
    assert failure.text == "The command failed on /memories/x: permission denied."


def test_every_input_object_gets_a_reply_without_a_host_path(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"a.txt": "a\n", "d/e.txt": "e"})
    os.symlink("loop", Path(base) / "memories" / "loop")
    values = [
        None,
        True,
        3,
        -1,
        1.5,
        "",
        "/memories",
        "/memories/a.txt",
        "/memories/loop/x",
        [1, 2],
        {},
    ]
    members = [
        "path",
        "file_text",
        "old_str",
        "new_str",
        "insert_line",
        "insert_text",
        "view_range",
        "old_path",
        "new_path",
    ]
    for command in ("view", "create", "str_replace", "insert", "delete", "rename", "undo", None):
        for member in members:
            for value in values:
                reply = execute(
                    base, {"command": command, "path": "/memories/a.txt", member: value}
                )
                assert isinstance(reply.content, str) and reply.content, (command, member, value)
                assert str(tmp_path) not in reply.content, reply


def test_the_listing_shows_bad_bytes_of_a_name_as_the_replacement_character(tmp_path: Path) -> None:
    base = base_with(tmp_path, {})
    (Path(base) / "memories" / os.fsdecode(b"\xff.txt")).write_text("x")
    assert call(base, "view", path="/memories").content.endswith("\t/memories/\ufffd.txt")
