"""The splitter, the YAML subset, the retry and the fields."""

from __future__ import annotations

import math

import pytest

from memref.automemory import parse_memory_file, split_frontmatter
from memref.automemory._frontmatter import body_offset
from memref.automemory._yaml import YamlError, parse_yaml, quote_awkward_values


def test_closer_anywhere() -> None:
    assert split_frontmatter("---\ndescription: x---y\n---\nB") == ("description: x", "y\n---\nB")


@pytest.mark.parametrize(
    "text", ["----\n---\n", " ---\na\n---\n", "\n---\na\n---\n", "---\na\n", "---\na\n...\n"]
)
def test_no_block(text: str) -> None:
    assert split_frontmatter(text) == (None, text)


@pytest.mark.parametrize(
    "text",
    ["---\na: 1\n---\n\n\nbody", "\ufeff---\na\n---x", "---  \n \n---\n", "no", "---\nopen", ""],
)
def test_body_offset_agrees_with_the_splitter(text: str) -> None:
    block, body = split_frontmatter(text)
    offset = body_offset(iter([text[:3], text[3:5], text[5:]]))
    assert text[offset:] == body if block is not None else offset == 0


def test_core_schema() -> None:
    assert parse_yaml("a: yes\nb: 0x1F\nc: 0o17\nd: .inf\ne: 1_000\nf: ~") == {
        "a": "yes",
        "b": 31,
        "c": 15,
        "d": math.inf,
        "e": "1_000",
        "f": None,
    }


@pytest.mark.parametrize("document", ["name: a: b", "name: [x", "a: 1\ntext", "a: *x", "a: |"])
def test_refused(document: str) -> None:
    with pytest.raises(YamlError):
        parse_yaml(document)


def test_retry_rewrite() -> None:
    assert quote_awkward_values('description: say: "hi" #x') == ('description: "say: \\"hi\\" #x"')
    assert quote_awkward_values("\tk: [a, b]") == "  k: [a, b]"


def test_fields() -> None:
    parsed = parse_memory_file("---\ntype: user\nmetadata:\n  type: null\n  x: 1\n---\nB")
    assert parsed.type is None and parsed.metadata == {"type": None, "x": 1}
    failed = parse_memory_file("---\nname: a\njust text\n---\nB")
    assert failed.parse_failed and failed.body == "B" and failed.name is None


def test_a_bare_question_mark_fails_both_parses() -> None:
    parsed = parse_memory_file("---\nname: ?\ndescription: d\n---\nbody")
    assert parsed.parse_failed and parsed.name is None and parsed.description is None
    assert parsed.body == "body"


def test_a_sequence_at_its_key_s_indentation_ends_at_the_next_key() -> None:
    assert parse_yaml("tags:\n- a\n- 2\nname: n") == {"tags": ["a", 2], "name": "n"}
    assert parse_yaml("metadata:\n  tags:\n  - a\n  type: user\nx: 1") == {
        "metadata": {"tags": ["a"], "type": "user"},
        "x": 1,
    }
    parsed = parse_memory_file("---\ntags:\n- a\nname: n\n---\n\nbody\n")
    assert not parsed.parse_failed and parsed.name == "n" and parsed.body == "body\n"


@pytest.mark.parametrize("document", ["- a\nname: n", "tags:\n- a\n  - b", "tags:\n- a\n x: 1"])
def test_a_sequence_at_its_key_s_indentation_stays_strict(document: str) -> None:
    with pytest.raises(YamlError):
        parse_yaml(document)
