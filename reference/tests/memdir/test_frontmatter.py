"""parse_frontmatter: evva's tests and the verified vectors."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memref._gostr import decode
from memref.memdir import parse_frontmatter


def test_round_trips() -> None:
    # evva memdir_test.go TestParseFrontmatter_RoundTrips
    content = (
        "---\nname: role\ndescription: senior Go: ten years\ntype: user\n---\n\n"
        "body line 1\nbody line 2"
    )
    frontmatter, body = parse_frontmatter(content)
    assert frontmatter == {"name": "role", "description": "senior Go: ten years", "type": "user"}
    assert body == "body line 1\nbody line 2"


@pytest.mark.parametrize(
    "content",
    ["# just markdown\nno frontmatter here", "---\nname: x\nno closing fence"],
    ids=["no-frontmatter", "unterminated"],
)
def test_without_a_block_everything_is_body(content: str) -> None:
    # evva TestParseFrontmatter_NoFrontmatterIsAllBody / _UnterminatedIsAllBody
    assert parse_frontmatter(content) == ({}, content)


def test_nested_metadata_flattens() -> None:
    # evva TestParseFrontmatter_NestedMetadataFlattens
    frontmatter, body = parse_frontmatter(
        "---\nname: x\ndescription: d\nmetadata:\n  type: feedback\n---\nbody"
    )
    assert frontmatter["type"] == "feedback"
    assert "metadata" not in frontmatter
    assert body == "body"


def test_quoted_values() -> None:
    # evva TestParseFrontmatter_QuotedValues
    frontmatter, _ = parse_frontmatter("---\nname: \"quoted name\"\ndescription: 'single'\n---\n")
    assert frontmatter == {"name": "quoted name", "description": "single"}


@pytest.mark.parametrize(
    ("content", "frontmatter", "body"),
    [
        ("---", {}, "---"),
        ("---\n---", {}, ""),
        ("---\n---\n", {}, ""),
        ("---\n---\nbody", {}, "body"),
        ("---\nname: x\n---", {"name": "x"}, ""),
        ("---\ntype: user\ntype: feedback\n---\nb", {"type": "user"}, "b"),
        ("---\nName: X\nTYPE: User\n---\nb", {"name": "X", "type": "User"}, "b"),
        ("---\na: b\n---\n\n\nbody", {"a": "b"}, "\nbody"),
        (
            "---\r\nname: x\r\ntype: user\r\n---\r\n\r\nbody\r\n",
            {"name": "x", "type": "user"},
            "\r\nbody\r\n",
        ),
        ("\ufeff---\nname: x\n---\n", {}, "\ufeff---\nname: x\n---\n"),
        (" ---\nname: x\n---\n", {}, " ---\nname: x\n---\n"),
        ("----\nname: x\n---\n", {}, "----\nname: x\n---\n"),
        ("---yaml\nname: x\n---\n", {}, "---yaml\nname: x\n---\n"),
        ("--- \nname: x\n---\nb", {"name": "x"}, "b"),
        ("---\r\nname: x\n---\nb", {"name": "x"}, "b"),
        ("---\nname: x\n  ---\nb", {"name": "x"}, "b"),
        ("---\nname: x\n...\nb", {}, "---\nname: x\n...\nb"),
        ('---\nname: ""\n  name: inner\n---\n', {"name": "inner"}, ""),
    ],
)
def test_verified_vectors(content: str, frontmatter: dict[str, str], body: str) -> None:
    assert parse_frontmatter(content) == (frontmatter, body)


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        # evva keeps the first occurrence (feedback, project); its documented contract, which
        # the profile follows, is that a top-level key always wins over an indented one.
        ("metadata:\n  type: feedback\ntype: user", {"type": "user"}),
        ("\ttype: project\ntype: user", {"type": "user"}),
        ("\u3000type: project\ntype: user", {"type": "user"}),
        ("type: user\n  type: feedback", {"type": "user"}),
        ("  type: a\n  type: b", {"type": "a"}),
        ("type: a\ntype: b\n  type: c", {"type": "a"}),
        ('  type: a\ntype: ""\n  type: b', {"type": "a"}),
    ],
)
def test_top_level_wins_over_indented(block: str, expected: dict[str, str]) -> None:
    assert parse_frontmatter(f"---\n{block}\n---\nb") == (expected, "b")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('k: "a" b"', {"k": 'a" b'}),
        ('q: "', {"q": '"'}),
        ("m: \"a'", {"m": "\"a'"}),
        ('d: ""a""', {"d": '"a"'}),
        ('s: " sp "', {"s": " sp "}),
        ("# c: d", {}),
        ("- item: x", {"- item": "x"}),
        (":nokey", {}),
        ("nocolon", {}),
        ("url: http://x:80/y", {"url": "http://x:80/y"}),
        ("k2:v2", {"k2": "v2"}),
        ("my key: v", {"my key": "v"}),
        ("\tTabbed: t", {"tabbed": "t"}),
        ("key: v # comment", {"key": "v # comment"}),
        ("empty:", {}),
        ("quotes: ''", {}),
    ],
)
def test_line_vectors(line: str, expected: dict[str, str]) -> None:
    assert parse_frontmatter(f"---\n{line}\n---\n")[0] == expected


@pytest.mark.parametrize(
    ("key", "lowered"),
    [("İd", "id"), ("ΣΑΣ", "σασ"), ("KEY", "key")],
)
def test_keys_use_go_simple_lower_case(key: str, lowered: str) -> None:
    assert parse_frontmatter(f"---\n{key}: v\n---\n")[0] == {lowered: "v"}


def test_invalid_utf8_in_a_key_becomes_replacement_char_but_values_keep_bytes() -> None:
    content = decode(b"---\nk\xffy: v\xfe\n---\n")
    frontmatter, _ = parse_frontmatter(content)
    assert frontmatter == {"k\ufffdy": decode(b"v\xfe")}


def test_trim_is_go_unicode_whitespace_not_python_strip() -> None:
    # Python's str.strip() also removes \x1c-\x1f; Go's TrimSpace keeps them.
    frontmatter, _ = parse_frontmatter("---\nk: \x1cv\x1c\u00a0\n---\n")
    assert frontmatter == {"k": "\x1cv\x1c"}


@given(st.text())
def test_never_raises(content: str) -> None:
    frontmatter, body = parse_frontmatter(content)
    assert content.endswith(body)
    assert all(key and value for key, value in frontmatter.items())


@given(st.text().filter(lambda text: not text.startswith("---")))
def test_without_leading_dashes_the_body_is_unchanged(content: str) -> None:
    assert parse_frontmatter(content) == ({}, content)
