"""Properties of the memorytool profile, driven through the adapter under test.

Each states an invariant of spec/memorytool.md over generated memory files, in a scratch
home directory that the suite creates and reads itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memspec.corpus.registry import suite_case
from memspec.suite._support import (
    expect_equal,
    file_bytes,
    names_in,
    result,
    scratch_folder,
)
from memspec.wire.adapters import Adapter

OP = "memorytool.call"
S = b" \t\r\n"
# Content and texts without CR and without whitespace beyond S, where the ports drift.
_ALPHABET = st.sampled_from([*list("abcxyz -#:.\n\t"), "é", "日", "$", "\x00"])
contents = st.text(alphabet=_ALPHABET, max_size=60)
texts = st.text(alphabet=_ALPHABET, max_size=20)


@contextmanager
def _home(adapter: Adapter, content: bytes | None = None, name: str = "MEMORY.md") -> Iterator[str]:
    files = {name: content} if content is not None else {}
    with scratch_folder(adapter, files, prefix="memspec-memorytool-") as directory:
        yield str(directory)


def _read(directory: str, name: str = "MEMORY.md") -> bytes | None:
    return file_bytes(os.path.join(directory, name))


def _args(directory: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"dir": directory, "input": tool_input}


def _call(adapter: Adapter, args: dict[str, Any]) -> dict[str, Any]:
    reply = result(adapter, OP, args)
    assert isinstance(reply, dict) and set(reply) == {"output", "is_error"}, (
        "a tool result is an object of output and is_error"
    )
    return reply


def _trim(data: bytes) -> bytes:
    return data.strip(S)


@suite_case(
    "memorytool/actions/property-add-ends-with-entry",
    "MEMORYTOOL-ACT-003",
    "MEMORYTOOL-ACT-004",
    "MEMORYTOOL-ACT-011",
)
@settings(deadline=None)
@given(content=st.none() | contents, text=texts)
def test_add_ends_with_the_entry(memspec_adapter: Adapter, content: str | None, text: str) -> None:
    """After add(t) the file ends with '- t' and a newline, and what came before is the old
    file with space, tab, CR and LF trimmed from both ends."""
    before = None if content is None else content.encode()
    with _home(memspec_adapter, before) as home:
        args = _args(home, {"action": "add", "text": text})
        reply = _call(memspec_adapter, args)
        after = _read(home)
    added = {"output": "ok (add \u2192 MEMORY.md); loads next session", "is_error": False}
    expect_equal(OP, args, added, reply)
    entry = b"- " + text.encode() + b"\n"
    kept = _trim(before or b"")
    expect_equal(
        OP, args, kept + b"\n" + entry if kept else entry, after, what="content of MEMORY.md"
    )


@suite_case(
    "memorytool/actions/property-remove-restores", "MEMORYTOOL-ACT-006", "MEMORYTOOL-ACT-003"
)
@settings(deadline=None)
@given(content=contents, text=texts)
def test_remove_of_a_new_entry_restores_the_file(
    memspec_adapter: Adapter, content: str, text: str
) -> None:
    """Removing a just-added unique entry gives the old file back, modulo the add's trim:
    its ends trimmed, and one final newline when anything is left."""
    unique = "uniq-" + text
    before = content.replace("uniq", "u").encode()
    with _home(memspec_adapter, before) as home:
        _call(memspec_adapter, _args(home, {"action": "add", "text": unique}))
        remove = _args(home, {"action": "remove", "text": "- " + unique + "\n"})
        reply = _call(memspec_adapter, remove)
        after = _read(home)
    expect_equal(OP, remove, False, reply["is_error"], what="is_error")
    kept = _trim(before)
    expect_equal(OP, remove, kept + b"\n" if kept else b"", after, what="content of MEMORY.md")


@suite_case("memorytool/actions/property-miss-changes-nothing", "MEMORYTOOL-ACT-009")
@settings(deadline=None)
@given(
    content=st.none() | contents, text=texts.filter(bool), replace=st.booleans(), user=st.booleans()
)
def test_a_miss_never_changes_the_file(
    memspec_adapter: Adapter, content: str | None, text: str, replace: bool, user: bool
) -> None:
    """replace or remove of a text not in the file answers 'not found: t' and leaves the file
    byte-identical (a missing file stays missing)."""
    name = "USER.md" if user else "MEMORY.md"
    before = None if content is None else content.replace(text, "").encode()
    if before is not None and text.encode() in before:
        before = b""
    tool_input: dict[str, Any] = {
        "action": "replace" if replace else "remove",
        "text": text,
        "target": "user" if user else "self",
    }
    if replace:
        tool_input["with"] = "w"
    with _home(memspec_adapter, before, name) as home:
        args = _args(home, tool_input)
        reply = _call(memspec_adapter, args)
        after = _read(home, name)
        entries = names_in(home)
    expect_equal(OP, args, {"output": "not found: " + text, "is_error": True}, reply)
    expect_equal(OP, args, before, after, what=f"content of {name}")
    expect_equal(OP, args, [] if before is None else [name], entries, what="names in the home")


@suite_case(
    "memorytool/identity/property-description-content",
    "MEMORYTOOL-ID-005",
    "MEMORYTOOL-ID-006",
    "MEMORYTOOL-ID-001",
)
def test_description_says_next_session(memspec_adapter: Adapter) -> None:
    """The definition is named memory and its description mentions the start of the next
    session and that the current context does not change, in any case."""
    definition = result(memspec_adapter, "memorytool.tool_definition", {})
    assert isinstance(definition, dict), "a tool definition is an object"
    expect_equal("memorytool.tool_definition", {}, "memory", definition.get("name"), what="name")
    description = definition.get("description")
    assert isinstance(description, str), "the description is a text"
    assert "start of your next session" in description.lower()
    assert "do not change your current context" in description.lower()


@suite_case(
    "memorytool/session/property-frozen-snapshot", "MEMORYTOOL-SESS-001", "MEMORYTOOL-SESS-002"
)
@settings(deadline=None)
@given(soul=texts, adds=st.lists(st.tuples(st.booleans(), texts), max_size=5))
def test_the_soul_is_frozen_within_a_session(
    memspec_adapter: Adapter, soul: str, adds: list[tuple[bool, str]]
) -> None:
    """Whatever a session adds, its soul items repeat the soul composed at its start, and the
    next session's soul is compose_soul of the directory afterwards."""
    script: list[dict[str, Any]] = [{"op": "soul"}]
    for user, text in adds:
        script.append(
            {
                "op": "call",
                "input": {"action": "add", "text": text, "target": "user" if user else "self"},
            }
        )
        script.append({"op": "soul"})
    script += [{"op": "new_session"}, {"op": "soul"}]
    with _home(memspec_adapter, soul.encode(), "SOUL.md") as home:
        args = {"dir": home, "script": script}
        first = result(memspec_adapter, "memorytool.compose_soul", {"dir": home})
        answered = result(memspec_adapter, "memorytool.session_script", args)
        final = result(memspec_adapter, "memorytool.compose_soul", {"dir": home})
    assert isinstance(answered, dict) and isinstance(answered.get("events"), list), (
        "a session script answers a list of events"
    )
    events = answered["events"]
    assert len(events) == len(script), "a session script answers one event per item"
    souls = [
        _soul(event) for item, event in zip(script, events, strict=True) if item["op"] == "soul"
    ]
    expect_equal(
        "memorytool.session_script",
        args,
        [_soul(first)] * (len(souls) - 1),
        souls[:-1],
        what="souls of the first session (each as compose_soul at its start)",
    )
    expect_equal(
        "memorytool.session_script",
        args,
        _soul(final),
        souls[-1],
        what="soul of the next session (as compose_soul of the home after it)",
    )


def _soul(answer: Any) -> dict[str, Any]:
    """The soul and whether a file was found, from compose_soul or a soul event."""
    assert isinstance(answer, dict), "a soul is an object"
    return {"soul": answer.get("soul"), "found": answer.get("found")}
