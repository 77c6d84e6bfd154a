"""Properties of the memories profile, driven through the adapter under test.

Each states an invariant of spec/memories.md over generated inputs, on a scratch base that
the suite creates and reads itself (with a directory ``outside`` beside it that no command
may touch).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from memspec.corpus.compare import text_bytes
from memspec.corpus.registry import suite_case
from memspec.run.trees import Entry, read_tree, tree_changes
from memspec.suite._support import (
    expect_equal,
    file_bytes,
    file_mode,
    names_in,
    result,
    scratch_folder,
    text_of,
)
from memspec.wire.adapters import Adapter

OP = "memories.call"
OUTSIDE = "outside secret\n"
# Text without CR and without a lone surrogate; names without "/" and NUL.
_CHARS = st.sampled_from([*"abcxyz -#:.\t", "é", "日", "$", "\\", "`"])
texts = st.text(alphabet=st.one_of(_CHARS, st.just("\n")), max_size=60)
words = st.text(alphabet=_CHARS, min_size=1, max_size=12)
names = st.text(alphabet=st.sampled_from([*"abcdefXYZ_-0123456789"]), min_size=1, max_size=8)


@contextmanager
def _base(adapter: Adapter, files: dict[str, bytes] | None = None) -> Iterator[str]:
    """A scratch base with a root holding ``files``, and ``outside`` beside it."""
    placed = {f"base/memories/{name}": data for name, data in (files or {}).items()}
    placed["outside/secret.txt"] = OUTSIDE.encode("utf-8")

    def roots(top: Path) -> None:
        (top / "base" / "memories").mkdir(parents=True, exist_ok=True)

    with scratch_folder(adapter, placed, prefix="memspec-memories-", fill=roots) as top:
        yield os.path.join(top, "base")


def _snapshot(top: str) -> dict[str, Entry]:
    return read_tree(Path(top))


def _args(base: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"base": base, "input": tool_input}


def _call(adapter: Adapter, args: dict[str, Any]) -> dict[str, Any]:
    """The tool result, checked for its shape, and for an error's text: never empty,
    never naming a host path."""
    reply = result(adapter, OP, args)
    assert isinstance(reply, dict) and set(reply) == {"content", "is_error"}, (
        "a tool result is an object of content and is_error"
    )
    assert isinstance(reply["is_error"], bool), "is_error is a boolean"
    content = text_bytes(reply["content"])
    assert content is not None, "content is text"
    if reply["is_error"]:
        assert content, "an error reply with no text"
        assert os.path.dirname(args["base"]).encode() not in content, (
            "an error reply names a host path"
        )
    return reply


def _text(reply: dict[str, Any]) -> str:
    return text_of(reply["content"], "the tool result's content")


def _file(base: str, name: str) -> bytes | None:
    return file_bytes(os.path.join(base, "memories", name))


def _numbered(lines: list[str], first: int = 1) -> str:
    return "\n".join(f"{first + i:>6}\t{line}" for i, line in enumerate(lines))


@suite_case(
    "memories/create/property-create-then-view",
    "MEMORIES-CREATE-001",
    "MEMORIES-CREATE-002",
    "MEMORIES-VIEW-008",
    "MEMORIES-FILE-001",
)
@settings(deadline=None)
@given(content=texts, folder=st.none() | names, name=names)
def test_create_then_view(
    memspec_adapter: Adapter, content: str, folder: str | None, name: str
) -> None:
    """A created file holds the text's UTF-8 bytes exactly, with mode 0600, and view shows
    the text split at newlines, each line numbered."""
    relative = f"{folder}/{name}.txt" if folder else f"{name}.txt"
    with _base(memspec_adapter) as base:
        create = _args(
            base, {"command": "create", "path": "/memories/" + relative, "file_text": content}
        )
        view = _args(base, {"command": "view", "path": "/memories/" + relative})
        created = _call(memspec_adapter, create)
        shown = _call(memspec_adapter, view)
        data = _file(base, relative)
        mode = file_mode(os.path.join(base, "memories", relative))
    expect_equal(
        OP,
        create,
        {"content": f"File created successfully at: /memories/{relative}", "is_error": False},
        created,
    )
    expect_equal(OP, create, content.encode(), data, what=f"content of /memories/{relative}")
    expect_equal(OP, create, "0600", mode, what=f"mode of /memories/{relative}")
    header = f"Here's the content of /memories/{relative} with line numbers:\n"
    expect_equal(
        OP, view, {"content": header + _numbered(content.split("\n")), "is_error": False}, shown
    )


@suite_case(
    "memories/str-replace/property-unique-replacement",
    "MEMORIES-SR-001",
    "MEMORIES-SR-002",
    "MEMORIES-FILE-002",
)
@settings(deadline=None)
@given(before=texts, after=texts, new=texts)
def test_a_unique_text_is_replaced(
    memspec_adapter: Adapter, before: str, after: str, new: str
) -> None:
    """Replacing a text that occurs once gives the file with that occurrence replaced, and
    the snippet shows the new file's lines around the line where it began."""
    marker = "\u2603unique\u2603"
    content = before + marker + after
    with _base(memspec_adapter, {"f.txt": content.encode()}) as base:
        args = _args(
            base,
            {
                "command": "str_replace",
                "path": "/memories/f.txt",
                "old_str": marker,
                "new_str": new,
            },
        )
        reply = _call(memspec_adapter, args)
        data = _file(base, "f.txt")
        leftovers = names_in(os.path.join(base, "memories"))
    expected = before + new + after
    expect_equal(OP, args, expected.encode(), data, what="content of /memories/f.txt")
    expect_equal(OP, args, ["f.txt"], leftovers, what="names in /memories")
    line = before.count("\n")
    lines = expected.split("\n")
    first = max(0, line - 2)
    snippet = _numbered(lines[first : min(len(lines), line + 3)], first + 1)
    edited = (
        "The memory file has been edited. Here is the snippet showing the change "
        "(with line numbers):\n" + snippet
    )
    expect_equal(OP, args, {"content": edited, "is_error": False}, reply)


@suite_case(
    "memories/insert/property-insert-lines",
    "MEMORIES-INS-001",
    "MEMORIES-INS-002",
    divergences=("memories#insert-newline",),
)
@settings(deadline=None)
@given(content=texts, text=texts, data=st.data())
def test_insert_puts_the_text_at_the_line(
    memspec_adapter: Adapter, content: str, text: str, data: st.DataObject
) -> None:
    """insert at line i of n gives the old lines with the text (its final newlines removed)
    between line i and line i + 1, the file ending with a newline."""
    lines = content.split("\n")
    if lines[-1] == "":
        lines.pop()
    at = data.draw(st.integers(0, len(lines)), label="insert_line")
    with _base(memspec_adapter, {"f.txt": content.encode()}) as base:
        args = _args(
            base,
            {
                "command": "insert",
                "path": "/memories/f.txt",
                "insert_line": at,
                "insert_text": text,
            },
        )
        reply = _call(memspec_adapter, args)
        written = _file(base, "f.txt")
    expect_equal(
        OP, args, {"content": "The file /memories/f.txt has been edited.", "is_error": False}, reply
    )
    joined = "\n".join([*lines[:at], text.rstrip("\n"), *lines[at:]])
    expected = joined if joined.endswith("\n") else joined + "\n"
    expect_equal(OP, args, expected.encode(), written, what="content of /memories/f.txt")


def _size(size: int) -> str:
    if size == 0:
        return "0B"
    unit = min((size.bit_length() - 1) // 10, 3)
    value = Fraction(size, 1024**unit)
    if value.denominator == 1:
        return f"{value.numerator}{'BKMG'[unit]}"
    tenths = round(value * 10)  # Fraction rounds half to even
    return f"{tenths // 10}.{tenths % 10}{'BKMG'[unit]}"


@suite_case(
    "memories/view/property-listing",
    "MEMORIES-VIEW-001",
    "MEMORIES-VIEW-002",
    "MEMORIES-VIEW-003",
    "MEMORIES-VIEW-005",
    divergences=("memories#listing-header", "memories#size-ties"),
)
@settings(deadline=None)
@given(
    files=st.dictionaries(
        st.tuples(st.sampled_from(["", "d/", ".h/", "d/e/"]), names),
        st.integers(0, 3 << 20),
        max_size=8,
    )
)
def test_a_listing_shows_each_file_with_its_size(
    memspec_adapter: Adapter, files: dict[tuple[str, str], int]
) -> None:
    """Every file of the first two levels that is not hidden is listed under its path with
    its size; nothing hidden, nothing deeper; siblings by name. Directory sizes are not
    compared."""
    with _base(memspec_adapter) as base:
        root = os.path.join(base, "memories")
        for (folder, name), size in files.items():
            os.makedirs(os.path.join(root, folder), exist_ok=True)
            with open(os.path.join(root, folder, name + ".bin"), "wb") as handle:
                handle.truncate(size)
        expected = []
        for directory, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            depth = os.path.relpath(directory, root).count("/") + (directory != root)
            if depth >= 2:
                continue
            for name in filenames:
                relative = os.path.relpath(os.path.join(directory, name), root)
                size = os.path.getsize(os.path.join(directory, name))
                expected.append(f"{_size(size)}\t/memories/{relative}")
        args = _args(base, {"command": "view", "path": "/memories"})
        reply = _call(memspec_adapter, args)
    header, *lines = _text(reply).split("\n")
    expect_equal(
        OP,
        args,
        "Here're the files and directories up to 2 levels deep in /memories, "
        "excluding hidden items:",
        header,
        what="first line of the listing",
    )
    assert lines and lines[0].endswith("\t/memories"), "the listing shows /memories itself next"
    assert all("\t" in line for line in lines), "every line of a listing is a size, a tab, a path"
    shown = sorted(line for line in lines[1:] if not line.endswith("/"))
    expect_equal(OP, args, sorted(expected), shown, what="files listed")
    order = [line.split("\t", 1)[1] for line in lines[1:]]
    ordered = sorted(order, key=lambda path: path.rstrip("/").split("/"))
    expect_equal(OP, args, ordered, order, what="order of the listing")


_SEGMENTS = st.sampled_from(["a", "b", "..", ".", "", "x.txt", "%2e%2e", "..\\", "~"])


@suite_case(
    "memories/paths/property-nothing-outside",
    "MEMORIES-PATH-009",
    "MEMORIES-PATH-004",
    "MEMORIES-ERR-001",
    "MEMORIES-ERR-005",
    divergences=("memories#host-path",),
)
@settings(deadline=None)
@given(
    command=st.sampled_from(["view", "create", "str_replace", "insert", "delete", "rename"]),
    first=st.lists(_SEGMENTS, max_size=5),
    second=st.lists(_SEGMENTS, max_size=5),
)
# A directory renamed into its own subtree: the failure whose raw text names host paths.
@example(command="rename", first=["a"], second=["a", "a"])
def test_no_path_reaches_outside(
    memspec_adapter: Adapter, command: str, first: list[str], second: list[str]
) -> None:
    """Whatever path a command gets (dot-dot, empty and dot segments, literal look-alikes),
    nothing outside the root changes, and any error is a reply whose text holds no host
    path."""
    path, other = ("/memories/" + "/".join(parts) for parts in (first, second))
    tool_input: dict[str, Any] = {
        "command": command,
        "path": path,
        "file_text": "pwned\n",
        "old_str": "secret",
        "new_str": "pwned",
        "insert_line": 0,
        "insert_text": "pwned",
        "old_path": path,
        "new_path": other,
    }
    with _base(memspec_adapter, {"a/x.txt": b"inside\n", "b/x.txt": b"b\n"}) as base:
        outside = os.path.join(os.path.dirname(base), "outside")
        args = _args(base, tool_input)
        before = _snapshot(outside)
        reply = _call(memspec_adapter, args)
        after = _snapshot(outside)
    expect_equal(OP, args, [], tree_changes(before, after), what="changes outside the root")
    assert OUTSIDE.strip() not in _text(reply), "the reply shows a file outside the root"


_NOT_BELOW = st.one_of(
    st.sampled_from(["", "/", "memories", "/memorie", "/MEMORIES", "/etc/passwd", "memories/x"]),
    st.builds(lambda tail: "/memories" + tail, st.text(alphabet="_-X2b.~", min_size=1, max_size=8)),
)


@suite_case(
    "memories/paths/property-only-below-memories",
    "MEMORIES-PATH-001",
    "MEMORIES-ERR-007",
    divergences=("memories#sibling-prefix", "memories#error-prefix"),
)
@settings(deadline=None)
@given(path=_NOT_BELOW, command=st.sampled_from(["view", "create", "delete"]))
def test_a_path_not_below_memories_is_refused(
    memspec_adapter: Adapter, path: str, command: str
) -> None:
    """A path that is neither /memories nor below /memories/ (sibling prefixes included) is
    refused with the prefix text, and nothing in the root changes."""
    with _base(memspec_adapter, {"X": b"x\n", "_backup/x.txt": b"x\n"}) as base:
        args = _args(base, {"command": command, "path": path, "file_text": "x"})
        before = _snapshot(base)
        reply = _call(memspec_adapter, args)
        after = _snapshot(base)
    expect_equal(
        OP,
        args,
        {"content": f"Path must start with /memories, got: {path}", "is_error": True},
        reply,
    )
    expect_equal(OP, args, [], tree_changes(before, after), what="changes in the base")


_MEMBER_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 5),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    st.lists(st.integers(-2, 3), max_size=3),
    st.sampled_from(["/memories", "/memories/a.txt", "/memories/d", "/memories/../x"]),
)


@suite_case(
    "memories/errors/property-every-input-gets-a-reply",
    "MEMORIES-ERR-001",
    "MEMORIES-ERR-005",
    "MEMORIES-OP-003",
)
@settings(deadline=None)
@given(
    tool_input=st.dictionaries(
        st.sampled_from(
            [
                "command",
                "path",
                "view_range",
                "file_text",
                "old_str",
                "new_str",
                "insert_line",
                "insert_text",
                "old_path",
                "new_path",
                "other",
            ]
        ),
        _MEMBER_VALUES,
    ),
    command=st.none()
    | st.sampled_from(["view", "create", "str_replace", "insert", "delete", "rename", "undo_edit"]),
)
def test_every_input_gets_a_reply(
    memspec_adapter: Adapter, tool_input: dict[str, Any], command: str | None
) -> None:
    """Any tool input object, however malformed, gets a reply with content and is_error,
    never a protocol error, and nothing outside the root changes."""
    if command is not None:
        tool_input["command"] = command
    with _base(memspec_adapter, {"a.txt": b"a\nb\n", "d/e.txt": b"e\n"}) as base:
        outside = os.path.join(os.path.dirname(base), "outside")
        args = _args(base, tool_input)
        before = _snapshot(outside)
        _call(memspec_adapter, args)
        changes = tree_changes(before, _snapshot(outside))
    expect_equal(OP, args, [], changes, what="changes outside the root")


@suite_case(
    "memories/view/property-line-limit",
    "MEMORIES-VIEW-011",
    "MEMORIES-VIEW-008",
    divergences=("memories#line-limit-text", "memories#error-prefix"),
)
def test_the_line_limit(memspec_adapter: Adapter) -> None:
    """A file of 999,999 newline-terminated lines (1,000,000 lines as split) is refused with
    the line-limit text, whatever the view_range; one of 999,998 is shown, 999,999 lines
    numbered up to 999999."""
    with _base(memspec_adapter, {"big.txt": b"\n" * 999_999, "fits.txt": b"\n" * 999_998}) as base:
        whole = _args(base, {"command": "view", "path": "/memories/big.txt"})
        part = _args(base, {"command": "view", "path": "/memories/big.txt", "view_range": [1, 2]})
        fits = _args(
            base, {"command": "view", "path": "/memories/fits.txt", "view_range": [999_998, -1]}
        )
        refused = _call(memspec_adapter, whole)
        ranged = _call(memspec_adapter, part)
        shown = _call(memspec_adapter, fits)
    limit = "File /memories/big.txt exceeds maximum line limit of 999,999 lines."
    expect_equal(OP, whole, {"content": limit, "is_error": True}, refused)
    expect_equal(OP, part, {"content": limit, "is_error": True}, ranged)
    shown_lines = "Here's the content of /memories/fits.txt with line numbers:\n999998\t\n999999\t"
    expect_equal(OP, fits, {"content": shown_lines, "is_error": False}, shown)
