"""Failure messages a porter can read: each text escaped once and evenly, and a text that
misses its pattern shown by the line that misses."""

from __future__ import annotations

from memspec.judge.messages import abridge, describe_difference


def test_newlines_and_tabs_are_escaped_once_inside_json() -> None:
    assert abridge({"path": "x\n"}) == '{"path": "x\\n"}'
    assert abridge({"content": "…:\n     1\tx"}) == '{"content": "…:\\n     1\\tx"}'
    assert abridge({"q": 'say "hi" \\ bye'}) == '{"q": "say \\"hi\\" \\\\ bye"}'
    assert abridge(["a\r", 1, True, None]) == '["a\\r", 1, true, null]'


def test_printable_characters_are_shown_alike_ascii_or_not() -> None:
    assert abridge("caf\u00e9 \U0001f600\n") == '"caf\u00e9 \U0001f600\\n"'
    assert abridge({"t": "caf\u00e9 \U0001f600\n"}) == '{"t": "caf\u00e9 \U0001f600\\n"}'
    assert abridge("cafe\u0301\u200b") == '"cafe\\u0301\\u200b"'


def test_a_text_missing_its_pattern_is_shown_by_the_line_that_misses() -> None:
    expected = {
        "content": {"text_pattern": "Here:\n[0-9]+K\t/memories\n[0-9]+K\t/memories/a.md"},
        "is_error": False,
    }
    actual = {"content": "Here:\n4.0K\t/memories\n4K\t/memories/a.md", "is_error": False}
    lines = describe_difference(expected, actual)
    assert lines == [
        "  at /content:",
        "  line 2 of the text does not match line 2 of the pattern:",
        '  pattern:  "[0-9]+K\\t/memories"',
        '  text:     "4.0K\\t/memories"',
    ]
    assert not any("offset" in line for line in lines)
    shorter = describe_difference({"text_pattern": "a\nb\nc"}, "a\nb")
    assert shorter[0] == "  the pattern has 3 lines, the text 2; the first 2 match"
