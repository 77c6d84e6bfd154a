"""Properties of the factstore profile, driven through the adapter under test.

Each states an invariant of spec/factstore.md over generated facts, in a scratch store
that the suite creates and removes itself; the one registered ``differential`` compares
the adapter with the reference.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from hypothesis import given, settings
from hypothesis import strategies as st

from memspec.corpus.compare import text_bytes
from memspec.corpus.registry import suite_case
from memspec.suite._factstore import scratch_store
from memspec.suite._support import (
    expect_equal,
    object_with,
    reference_result,
    reply,
    result,
    text_of,
)
from memspec.wire.adapters import Adapter

_ONE_LINE: tuple[Literal["Cc", "Cs", "Zl", "Zp"], ...] = ("Cc", "Cs", "Zl", "Zp")
_NO_SURROGATE: tuple[Literal["Cs"], ...] = ("Cs",)
_NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)

names = st.from_regex(r"[a-z0-9]{1,6}(-[a-z0-9]{1,4}){0,2}", fullmatch=True)
types = st.sampled_from(["user", "feedback", "project", "reference"])
# One-line descriptions without control characters, surrounding spaces or wrapping quotes.
descriptions = st.text(
    alphabet=st.characters(blacklist_categories=_ONE_LINE),
    min_size=1,
    max_size=40,
).filter(lambda s: s.strip(_GO_SPACE) == s and not (len(s) >= 2 and s[0] == s[-1] in "\"'"))
conditions = st.text(
    alphabet=st.characters(blacklist_categories=_NO_SURROGATE, blacklist_characters="\r\n"),
    max_size=40,
)
bodies = st.text(
    alphabet=st.characters(blacklist_categories=_NO_SURROGATE, blacklist_characters="\r"),
    max_size=200,
).map(lambda s: s.strip("\n"))


@suite_case(
    "factstore/write/property-write-read-round-trip", "FACTSTORE-FMT-010", "FACTSTORE-WRITE-005"
)
@settings(deadline=None, max_examples=60)
@given(name=names, fact_type=types, description=descriptions, condition=conditions, body=bodies)
def test_write_then_read_round_trips(
    memspec_adapter: Adapter, name: str, fact_type: str, description: str, condition: str, body: str
) -> None:
    """Every fact Write accepts reads back with the same fields, in its type's scope."""
    blank = condition.strip(_GO_SPACE) == ""
    memory = {
        "name": name,
        "description": description,
        "type": fact_type,
        "invalidate_when": condition,
        "durable": blank,
        "body": body,
    }
    scope = "global" if fact_type in ("user", "feedback") else "project"
    with scratch_store(memspec_adapter) as store:
        response = reply(memspec_adapter, "factstore.write", {**store, "memory": memory})
        if response.is_error:
            assert response.error_kind == "invalid-input", response.error_message
            assert "16KB" in response.error_message
            return
        read = {**store, "id": f"{scope}/{name}"}
        back = object_with(result(memspec_adapter, "factstore.read", read), "found", "memory")
    expect_equal("factstore.read", read, True, back["found"], what="found")
    wanted = {
        "scope": scope,
        "type": fact_type,
        "name": name,
        "description": description,
        "invalidate_when": "" if blank else condition,
        "durable": blank,
        "body": body,
    }
    got = object_with(back["memory"], *wanted, what="the fact read")
    expect_equal("factstore.read", read, wanted, {key: got[key] for key in wanted})


@suite_case("factstore/format/property-quote-unquote", "FACTSTORE-FMT-004")
@settings(deadline=None)
@given(text=st.text(alphabet=st.characters(blacklist_categories=_NO_SURROGATE), max_size=40))
def test_unquote_inverts_quote(memspec_adapter: Adapter, text: str) -> None:
    """Go-unquoting a Go-quoted text gives the text back, and the quoted form is one line."""
    quoted = result(memspec_adapter, "factstore.quote", {"text": text})
    assert isinstance(quoted, str) and "\n" not in quoted and "\r" not in quoted, (
        "the quoted form is one line of text"
    )
    back = result(memspec_adapter, "factstore.unquote", {"text": quoted})
    expect_equal("factstore.unquote", {"text": quoted}, {"ok": True, "value": text}, back)


@suite_case("factstore/format/property-parse-total", "FACTSTORE-FMT-005")
@settings(deadline=None)
@given(
    content=st.text(max_size=120)
    | st.builds(
        lambda head, body: "---\n" + head + "\n---\n" + body,
        st.text(max_size=60),
        st.text(max_size=40),
    )
)
def test_parse_answers_every_text(memspec_adapter: Adapter, content: str) -> None:
    """parse_fact gives a fact or one of its two documented errors, never anything else."""
    args = {"content": content}
    response = reply(memspec_adapter, "factstore.parse_fact", args)
    if response.is_error:
        assert response.error_kind == "invalid-input", "parse_fact refuses with another kind"
        assert response.error_message in ("missing frontmatter", "unterminated frontmatter"), (
            "parse_fact refuses with an undocumented message"
        )
        return
    fact = object_with(response.result, "type", "durable", "invalidate_when")
    assert fact["type"] in ("user", "feedback", "project", "reference"), "an unknown type"
    blank = fact["invalidate_when"] == ""
    expect_equal("factstore.parse_fact", args, blank, fact["durable"], what="durable")


_HEADER_PIECES = st.sampled_from(
    ["name: a", "  name:b", "description: d", "type: user", "x: 1", "names: n", "---", ""]
)


@suite_case(
    "factstore/format/property-rename-changes-only-the-name-line",
    "FACTSTORE-FMT-011",
    divergences=("factstore#15",),
)
@settings(deadline=None)
@given(
    opening=st.sampled_from(["---\n", "---\r\n", "--- \n", "x\n"]),
    pieces=st.lists(st.tuples(_HEADER_PIECES, st.sampled_from(["\n", "\r\n"])), max_size=6),
    body=st.sampled_from(["", "body", "name: in body\n"]),
)
def test_rename_changes_only_the_name_line(
    memspec_adapter: Adapter, opening: str, pieces: list[tuple[str, str]], body: str
) -> None:
    """rename_fact_header changes at most one line (split at LF) of any file, into the new
    name line, and keeps every other line, whatever the mix of line endings."""
    content = (opening + "".join(text + ending for text, ending in pieces) + body).encode()
    renamed = text_bytes(
        result(
            memspec_adapter,
            "factstore.rename_fact_header",
            {"content": content.decode(), "name": "z-9"},
        )
    )
    assert renamed is not None, "the renamed file is not text"
    before, after = content.split(b"\n"), renamed.split(b"\n")
    assert len(after) == len(before), "the renamed file has another number of lines"
    changed = [i for i, (old, new) in enumerate(zip(before, after, strict=True)) if old != new]
    assert len(changed) <= 1, "more than one line changed"
    for index in changed:
        assert after[index] in (b"name: z-9", b"name: z-9\r"), (
            "the changed line is not the new name line"
        )


@suite_case(
    "factstore/format/property-parse-agrees-with-reference",
    "FACTSTORE-FMT-006",
    "FACTSTORE-FMT-008",
    kind="differential",
)
@settings(deadline=None)
@given(
    lines=st.lists(
        st.sampled_from(
            [
                "name: a",
                'description: "q: r"',
                "type: user",
                "type: bogus",
                'invalidate_when: "x"',
                "invalidate_when: 'y'",
                "invalidate_when: `z`",
                'invalidate_when: "a\\nb"',
                "  ---",
                "x-key: v",
                "no colon",
                ": empty key",
                "description: 'a'",
                'invalidate_when: "\\ud800"',
            ]
        ),
        max_size=8,
    ),
    body=st.text(max_size=30),
)
def test_parse_agrees_with_reference(memspec_adapter: Adapter, lines: list[str], body: str) -> None:
    """On fact-shaped texts the adapter gives exactly the reference's answer."""
    args = {"content": "---\n" + "\n".join(lines) + "\n---\n" + body}
    expected = reference_result("factstore.parse_fact", args)
    actual = result(memspec_adapter, "factstore.parse_fact", args)
    expect_equal("factstore.parse_fact", args, expected, actual, what="result (memref's expected)")


@suite_case("factstore/names/property-valid-name", "FACTSTORE-NAME-001")
@settings(deadline=None)
@given(name=st.text(alphabet="abz09-_.A\n/ ", max_size=12))
def test_valid_name_is_a_full_match(memspec_adapter: Adapter, name: str) -> None:
    """valid_name is true exactly when the whole name matches the kebab-case pattern."""
    args = {"name": name}
    got = result(memspec_adapter, "factstore.valid_name", args)
    expect_equal("factstore.valid_name", args, _NAME.fullmatch(name) is not None, got)


def _mems(draw_specs: list[tuple[str, int, int]]) -> list[dict[str, Any]]:
    return [
        {"scope": scope, "name": f"n{i}", "description": "d" * width}
        for i, (scope, width, _) in enumerate(draw_specs)
    ]


@suite_case(
    "factstore/index/property-budget", "FACTSTORE-IDX-002", "FACTSTORE-IDX-003", "FACTSTORE-IDX-005"
)
@settings(deadline=None)
@given(
    specs=st.lists(
        st.tuples(st.sampled_from(["project", "global"]), st.integers(0, 900), st.just(0)),
        max_size=60,
    )
)
def test_index_stays_within_budget(
    memspec_adapter: Adapter, specs: list[tuple[str, int, int]]
) -> None:
    """Without its note the index fits 8192 bytes, projects come first, each group keeps a
    prefix of its input order, and the note counts exactly the facts left out."""
    mems = _mems(specs)
    args = {"mems": mems}
    text = text_of(result(memspec_adapter, "factstore.format_index", args), "the index")
    lines = text.splitlines(keepends=True)
    note = [ln for ln in lines if ln.startswith("- \u2026 (")]
    shown = [ln for ln in lines if not ln.startswith("- \u2026 (")]
    assert len("".join(shown).encode()) <= 8192, "the index without its note passes 8192 bytes"
    scopes = [ln[2:].split("/", 1)[0] for ln in shown]
    ordered = sorted(scopes, key=lambda s: s != "project")
    expect_equal("factstore.format_index", args, ordered, scopes, what="scopes of the lines")
    for scope in ("project", "global"):
        wanted = [
            f"- {m['scope']}/{m['name']} \u2014 {m['description']}\n"
            for m in mems
            if m["scope"] == scope
        ]
        got = [ln for ln in shown if ln.startswith(f"- {scope}/")]
        expect_equal("factstore.format_index", args, wanted[: len(got)], got, what=f"{scope} lines")
    dropped = len(mems) - len(shown)
    more = f"- \u2026 ({dropped} more facts not shown; use the memory tool's list action"
    expected_note = [more + " to see all)\n"] if dropped else []
    expect_equal("factstore.format_index", args, expected_note, note, what="note")
