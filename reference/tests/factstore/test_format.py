"""The fact file format: quoting, serialising, parsing, renaming."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memref.factstore import (
    FactFormatError,
    Memory,
    go_quote,
    go_unquote,
    parse_fact,
    rename_fact_header,
    serialize,
)


def test_probe_quote() -> None:
    text = 'cuando "x" ñ \u00a0 tab\there é\x01 \u2028 `bt` C:\\x'
    assert go_quote(text) == '"cuando \\"x\\" ñ \\u00a0 tab\\there é\\x01 \\u2028 `bt` C:\\\\x"'


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        ('"when literal \\\\n is gone"', "when literal \\n is gone"),
        ('"C:\\temp"', "C:\temp"),
        ("'when issue #84 is closed'", None),
        ("`raw`", "raw"),
        ("'c'", "c"),
        ('"a\\u00e9\\x41"', "aéA"),
        ('""', ""),
        ('"\\ud800"', None),
        ('"\\xff"', "\udcff"),
        ("`a\rb`", "ab"),
    ],
)
def test_unquote_vectors(raw: str, want: str | None) -> None:
    assert go_unquote(raw) == want


def test_serialize_probe() -> None:
    memory = Memory("foo", "a hook: with colon", "feedback", "", True, "line1\nline2")
    assert serialize(memory) == (
        "---\nname: foo\ndescription: a hook: with colon\ntype: feedback\n---\n\nline1\nline2\n"
    )


def test_parse_crlf_quotes_unknown_type() -> None:
    memory = parse_fact(
        '---\r\nname: x\r\ndescription: "a: b"\r\ntype: bogus\r\n---\r\n\r\nbody\r\n'
    )
    assert (memory.description, memory.type, memory.body) == ("a: b", "project", "body")


@pytest.mark.parametrize("content", ["no frontmatter", "---\nname: x\nunterminated", "", "---"])
def test_parse_errors(content: str) -> None:
    with pytest.raises(FactFormatError):
        parse_fact(content)


def test_rename_keeps_crlf_and_custom_keys() -> None:
    data = b"---\r\nname: a\r\nx-custom: k\r\n---\r\nb\r\n"
    assert rename_fact_header(data, "a-2") == b"---\r\nname: a-2\r\nx-custom: k\r\n---\r\nb\r\n"
    for unchanged in (b"no header", b"---\ndescription: d\n---\n", b"---\nname: a\n"):
        assert rename_fact_header(unchanged, "z") == unchanged


conditions = st.text(min_size=1, max_size=40).filter(
    lambda s: "\r" not in s and "\n" not in s and s.strip() != "" and "\x85" not in s
)


@settings(max_examples=300, deadline=None)
@given(when=conditions)
def test_quote_round_trips(when: str) -> None:
    assert go_unquote(go_quote(when)) == when


@settings(max_examples=300, deadline=None)
@given(
    when=conditions | st.just(""),
    body=st.text(max_size=60).map(lambda s: s.replace("\r", "").strip("\n")),
    description=st.from_regex(r"[a-zA-Z0-9][a-zA-Z0-9 :,.]{0,30}[a-zA-Z0-9]", fullmatch=True),
)
def test_serialize_parse_round_trip(when: str, body: str, description: str) -> None:
    memory = Memory("x", description, "reference", when, when == "", body)
    back = parse_fact(serialize(memory))
    assert (back.description, back.type, back.invalidate_when, back.durable, back.body) == (
        description,
        "reference",
        when,
        when == "",
        body,
    )


@pytest.mark.parametrize(
    ("data", "name", "want"),
    [
        (b"---\nname: a\nname: b\n---\n", "b-2", b"---\nname: b-2\nname: b\n---\n"),
        (b"--- \nname: a\n---\n", "y", b"--- \nname: a\n---\n"),
        (b"\xef\xbb\xbf---\nname: a\n---\n", "y", b"\xef\xbb\xbf---\nname: a\n---\n"),
        (b"---\nname: x\r\n---\n", "y", b"---\nname: y\n---\n"),
        (
            b"---\r\nname: a\ndescription: d\ntype: project\r\n---\n\r\nbody",
            "y",
            b"---\r\nname: y\ndescription: d\ntype: project\r\n---\n\r\nbody",
        ),
        (b"---\r\n\nname: a\r\n---\r\n", "y", b"---\r\n\nname: y\r\n---\r\n"),
    ],
)
def test_rename_follows_moa_and_keeps_the_lines_a_crlf_line_holds(
    data: bytes, name: str, want: bytes
) -> None:
    assert rename_fact_header(data, name) == want
