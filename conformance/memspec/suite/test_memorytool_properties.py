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

from memspec.corpus.compare import text_bytes
from memspec.corpus.registry import suite_case
from memspec.suite._support import result, scratch_folder
from memspec.wire.adapters import Adapter

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
    try:
        with open(os.path.join(directory, name), "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def _call(adapter: Adapter, directory: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    reply = result(adapter, "memorytool.call", {"dir": directory, "input": tool_input})
    assert isinstance(reply, dict) and set(reply) == {"output", "is_error"}, reply
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
        reply = _call(memspec_adapter, home, {"action": "add", "text": text})
        after = _read(home)
    assert reply == {"output": "ok (add \u2192 MEMORY.md); loads next session", "is_error": False}
    entry = b"- " + text.encode() + b"\n"
    assert after is not None and after.endswith(entry)
    kept = _trim(before or b"")
    assert after == (kept + b"\n" + entry if kept else entry)


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
        _call(memspec_adapter, home, {"action": "add", "text": unique})
        reply = _call(memspec_adapter, home, {"action": "remove", "text": "- " + unique + "\n"})
        after = _read(home)
    assert reply["is_error"] is False, reply
    kept = _trim(before)
    assert after == (kept + b"\n" if kept else b"")


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
        reply = _call(memspec_adapter, home, tool_input)
        after = _read(home, name)
        entries = sorted(os.listdir(home))
    assert reply == {"output": "not found: " + text, "is_error": True}
    assert after == before
    assert entries == ([] if before is None else [name])


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
    assert definition["name"] == "memory"
    description = definition["description"]
    assert isinstance(description, str)
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
        first = result(memspec_adapter, "memorytool.compose_soul", {"dir": home})
        events = result(
            memspec_adapter, "memorytool.session_script", {"dir": home, "script": script}
        )["events"]
        final = result(memspec_adapter, "memorytool.compose_soul", {"dir": home})
    souls = [event for item, event in zip(script, events, strict=True) if item["op"] == "soul"]
    for event in souls[:-1]:
        assert text_bytes(event["soul"]) == text_bytes(first["soul"])
        assert event["found"] == first["found"]
    assert text_bytes(souls[-1]["soul"]) == text_bytes(final["soul"])
    assert souls[-1]["found"] == final["found"]
