"""Failure messages a porter can read: each text escaped once and evenly, and a text that
misses its pattern shown by the line that misses; a failing property told by its call,
the reply it required and the reply it got, as JSON; an op's signature without a
dangling dash; deselected cases explained; each op of a skeleton linked to the section
that defines it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import Runner, failed_property, fake_cmd

from memspec.cli.new_adapter import profile_ops, slug
from memspec.corpus.data import spec_dir
from memspec.corpus.op_schemas import described, ops_with_schemas, signature
from memspec.corpus.profiles import known_profiles
from memspec.exceptions import CaseFailure
from memspec.judge.messages import abridge, describe_difference
from memspec.plugin.collection import suite_case_ids
from memspec.suite._support import expect_equal


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


def test_a_reply_whose_text_is_json_is_shown_decoded_member_by_member() -> None:
    """A reply {"text": "<JSON>"} is compared as the JSON it holds: each member that
    differs is named by its pointer and shown once escaped, never as escaped JSON."""
    error = "No entry matched 'x'. Check current_entries below and retry with the exact text."
    expected = {
        "text": json.dumps(
            {"success": False, "error": error, "current_entries": ["a", "b"]},
            ensure_ascii=False,
        )
    }
    actual = {
        "text": json.dumps(
            {"success": False, "error": error.replace("_", " "), "current_entries": ["a"]},
            ensure_ascii=False,
        )
        + " "
    }
    lines = describe_difference(expected, actual)
    assert lines[0] == "  at /text: a JSON text, shown decoded"
    assert "  /error:" in lines
    assert f'    expected: "{error}"' in lines
    assert "  /current_entries: expected 2 items, actual 1" in lines
    assert not any('\\"' in line or '{\\"' in line for line in lines), lines
    missing = describe_difference(
        {"text": '{"success": true, "usage": "1/2"}'}, {"text": '{"success": true, "note": "n"}'}
    )
    assert missing[1:] == [
        '  /usage: missing; expected "1/2"',
        '  /note: not expected; actual "n"',
    ]
    reordered = describe_difference(
        {"text": '{"error": "e", "success": false}'}, {"text": '{"success": false, "error": "e"}'}
    )
    assert "the same JSON, written differently" in reordered[1]
    assert reordered[2] == '  expected: …{"error": "e", "success": false}…'


def _script(n: int) -> list[dict[str, Any]]:
    return [
        {"op": "call", "input": {"action": "add", "content": f"entry {i} " + "x" * 60}}
        for i in range(n)
    ]


def test_long_arguments_are_cut_inside_items_never_across_them() -> None:
    args = {"home": "${ROOT}/home", "script": _script(8)}
    shown = abridge(args, 300)
    assert len(shown) <= 320, shown
    # Each item shown is whole but for its own text, cut inside; the items that do not fit
    # are counted, never run together.
    texts = re.findall(r'\{"input": \{"action": "add", "content": "entry (\d) [^"]*"\}, ', shown)
    assert texts == ["0", "1", "7"], shown
    assert ', … 5 more …, {"input": ' in shown and shown.endswith('"op": "call"}]}')
    roomy = abridge(args, 2000)
    assert re.findall(r'"content": "entry (\d)', roomy) == [str(i) for i in range(8)]
    many = abridge(list(range(400)), 160)
    assert many.startswith("[0, 1, 2, ") and many.endswith(", … 364 more …, 399]")


def test_a_script_result_names_the_event_that_differs() -> None:
    events = [{"turn": 2}, {"session": 2}] + [{"text": f"event {i} " + "y" * 40} for i in range(6)]
    other = [dict(event) for event in events]
    other[5] = {"text": "event 3 " + "y" * 39 + "z"}
    lines = describe_difference({"events": events}, {"events": other})
    assert lines[0] == "  at /events/5/text (item 6 of 8):"
    assert not any("offset" in line and "line 1" in line for line in lines[:1])
    shorter = describe_difference({"events": events}, {"events": events[:5] + events[6:]})
    assert shorter[:2] == ["  at /events:", "  expected 8 items, actual 7; the first 5 agree"]


def test_a_schema_without_a_description_gets_no_dangling_dash() -> None:
    lines = signature("memories.call")
    assert "result: {content, is_error}" in lines
    for op in ops_with_schemas():
        for line in signature(op):
            assert not line.rstrip().endswith("—"), (op, line)
    assert described("result: text", {}) == "result: text"
    assert described("result: text", {"description": "Why."}) == "result: text — Why."


def _deselected(stdout: str) -> dict[str, int]:
    """memspec's line that says why cases were left out, as counts by reason."""
    explained = [line for line in stdout.splitlines() if line.startswith("deselected: ")]
    assert len(explained) == 1, stdout
    found = re.findall(r"(\d+) ([^,]+)", explained[0].removeprefix("deselected: "))
    return {reason: int(number) for number, reason in found}


def _ran(stdout: str) -> int:
    """How many cases pytest's closing line says were run."""
    closing = stdout.strip().splitlines()[-1]
    counts = re.findall(r"(\d+) (passed|failed|skipped|xfailed|xpassed|error)", closing)
    return sum(int(number) for number, _ in counts)


@pytest.mark.parametrize(
    ("args", "reasons"),
    [
        (("--profile", "demo"), ["cases of other profiles (--profile demo)"]),
        (
            ("--profile", "demo", "-k", "plain or list"),
            ["cases of other profiles (--profile demo)", "cases not matching -k 'plain or list'"],
        ),
        (("--case", "demo/echo/plain"), ["cases not named by --case"]),
    ],
)
def test_deselected_cases_are_explained_in_one_line(
    args: tuple[str, ...],
    reasons: list[str],
    demo_env: dict[str, str],
    memspec_cli: Runner,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The line counts every case the run left out, those of whole profiles the run never
    built an item for included: with the cases run, they make up the whole suite."""
    result = memspec_cli("run", "--adapter", fake_cmd("good"), *args, env=demo_env)
    assert result.returncode == 0, result.stdout + result.stderr
    parts = _deselected(result.stdout)
    for name in ("MEMSPEC_FIXTURES", "MEMSPEC_SPEC", "MEMSPEC_OP_SCHEMAS"):
        monkeypatch.setenv(name, demo_env[name])
    left_out = sum(n for reason, n in parts.items() if not reason.endswith("empty case list"))
    assert left_out + _ran(result.stdout) == len(suite_case_ids()), parts
    for reason in reasons:
        assert any(part.endswith(reason) for part in parts), parts


def test_a_profile_run_counts_the_other_profiles_cases(memspec_cli: Runner) -> None:
    """`--profile hermes` leaves out every case of the other profiles, fixture cases and
    their crash points included, and says how many."""
    result = memspec_cli("run", "--profile", "hermes", "-k", "constants")
    assert result.returncode == 0, result.stdout + result.stderr
    others = {i for i in suite_case_ids() if not i.startswith("hermes/")}
    assert _deselected(result.stdout)["cases of other profiles (--profile hermes)"] == len(others)
    assert len(others) > 3000


_SECTION_HEADING = re.compile(r"^(#{1,2})\s+(.*?)\s*$", re.M)


def _sections(page: str) -> dict[str, str]:
    """Each heading of levels 1 and 2 by its anchor, with the text up to the next one."""
    found = list(_SECTION_HEADING.finditer(page))
    ends = [match.start() for match in found[1:]] + [len(page)]
    return {slug(match[2]): page[match.end() : end] for match, end in zip(found, ends, strict=True)}


def _begins_a_statement(text: str, op: str) -> bool:
    """Whether a paragraph, list item or requirement of ``text`` starts with ``op``."""
    paragraphs = re.split(r"\n\s*\n|\n(?=- |\d+\. )", text)
    opening = re.compile(r"^(?:- |\d+\. )?(?:\*\*[A-Z0-9-]+\*\* \([A-Z ]+\):\s*)?`" + re.escape(op))
    return any(opening.match(paragraph.strip()) for paragraph in paragraphs)


@pytest.mark.parametrize("profile", known_profiles())
def test_every_op_links_to_the_section_that_defines_it(profile: str) -> None:
    page = (spec_dir() / f"{profile}.md").read_text(encoding="utf-8")
    sections = _sections(page)
    prose = {anchor: text for anchor, text in sections.items() if anchor != "operations"}
    for op in profile_ops(profile):
        anchor = op.link.split("#", 1)[1]
        assert anchor in prose, op
        named = {a for a, text in prose.items() if f"`{op.name}`" in text or f"`{op.name}(" in text}
        assert anchor in named, op
        words = op.name.split(".", 1)[1].replace("_", "-")
        named_after = {a for a in named if a in (words, words + "s")}
        beginning = {a for a in named if _begins_a_statement(prose[a], op.name)}
        assert anchor in (named_after or beginning or named), (op, named_after, beginning)
        if not (named_after or beginning):
            assert anchor == next(a for a in prose if a in named), op


def test_ops_named_in_several_sections_link_where_they_are_defined() -> None:
    links = {op.name: op.link for profile in known_profiles() for op in profile_ops(profile)}
    assert links["memories.call"] == (
        "spec/memories.md#profile-memories-the-anthropic-api-memory-tool"
    )
    assert links["memories.session_script"] == "spec/memories.md#session"
    assert links["hermes.session_script"] == "spec/hermes.md#snapshot"
    assert links["factstore.read"] == "spec/factstore.md#read"
    assert links["memdir.load"] == "spec/memdir.md#load"
    assert links["automemory.parse_memory_file"] == "spec/automemory.md#frontmatter"


def _property_failure(fake: str, case: str, runner: Runner, report: Path) -> list[str]:
    """The lines of the message of ``case``, run against one of ``property_fakes``."""
    message = str(failed_property(fake, case, runner, report)["message"])
    for repr_only in ("assert ", "{'", "'}", "b'", 'b"', "\\\\n", "\\\\t"):
        assert repr_only not in message, message
    return message.splitlines()


def _viewed(number: str) -> str:
    """The tool result of viewing an empty /memories/0.txt, as the message shows it: the
    newline and the tab escaped once."""
    header = "Here's the content of /memories/0.txt with line numbers:"
    return f'{{"content": "{header}\\n{number}\\t", "is_error": false}}'


def test_a_failing_property_shows_its_input_the_expected_and_the_actual_reply(
    memspec_cli: Runner, tmp_path: Path
) -> None:
    case = "memories/create/property-create-then-view"
    lines = _property_failure("NarrowLineNumbers", case, memspec_cli, tmp_path / "r.jsonl")
    assert lines[0] == f"property {case} does not hold: memories.call: wrong result"
    assert lines[1] == "  op:    memories.call"
    assert lines[2].startswith('  args:  {"base": "/') and '"command": "view"' in lines[2]
    assert lines[3:6] == [
        f'  reply: {{"result": {_viewed("    1")}}}',
        f"  expected: {_viewed('     1')}",
        f"  actual:   {_viewed('    1')}",
    ]
    assert lines[6] == "  differs at /content:"
    assert lines[7].endswith("first difference at offset 61 (line 2):")
    assert lines[-1].startswith(f"  rerun: memspec run --case {case}")


def test_a_failing_differential_property_expects_the_reference_reply(
    memspec_cli: Runner, tmp_path: Path
) -> None:
    case = "turnlog/filename/property-agrees-with-reference"
    lines = _property_failure("MarkdownFilenames", case, memspec_cli, tmp_path / "r.jsonl")
    assert lines[0] == (
        f"differential {case} does not hold: turnlog.filename: wrong result (memref's expected)"
    )
    expected = next(line for line in lines if line.startswith("  expected: "))
    actual = next(line for line in lines if line.startswith("  actual:   "))
    assert expected.endswith('--turn.md"') and actual.endswith('--turn.markdown"')


def test_a_failing_assertion_of_a_property_says_what_it_requires(
    memspec_cli: Runner, tmp_path: Path
) -> None:
    case = "memories/paths/property-nothing-outside"
    lines = _property_failure("HostPathInErrors", case, memspec_cli, tmp_path / "r.jsonl")
    assert lines[0] == f"property {case} does not hold: an error reply names a host path"
    assert lines[1] == "  op:    memories.call"
    assert lines[3].startswith('  reply: {"result": {"content": "') and "/memspec-run-" in lines[3]


def _expected_equal_message(expected: Any, actual: Any, **options: Any) -> list[str]:
    with pytest.raises(CaseFailure) as failure:
        expect_equal("demo.echo", {"value": "x\n"}, expected, actual, **options)
    return str(failure.value).splitlines()


def test_expect_equal_tells_the_call_and_both_values_as_json() -> None:
    expect_equal("demo.echo", {}, {"a": [1, "é"]}, {"a": [1, {"base64": "w6k="}]})
    lines = _expected_equal_message({"ok": True, "n": 1}, {"ok": True, "n": 1.0})
    assert lines == [
        "demo.echo: wrong result",
        "  op:    demo.echo",
        '  args:  {"value": "x\\n"}',
        '  expected: {"n": 1, "ok": true}',
        '  actual:   {"n": 1.0, "ok": true}',
        "  differs at /n:",
        "    expected: 1",
        "    actual:   1.0",
    ]


def test_expect_equal_shows_files_as_text_and_points_at_the_member_that_differs() -> None:
    lines = _expected_equal_message(b"caf\xc3\xa9\n", b"\xff", what="content of /memories/a")
    assert lines[0] == "demo.echo: wrong content of /memories/a"
    assert lines[3:] == ['  expected: "caf\u00e9\\n"', '  actual:   "\\udcff"']
    long = "line\n" * 40
    nested = _expected_equal_message({"rows": [{"t": long}]}, {"rows": [{"t": long + "x"}]})
    assert nested[5:7] == ["  differs at /rows/0/t:", "    expected 200 chars, actual 201 chars; "
                           "first difference at offset 200 (line 41):"]  # fmt: skip
    listed = _expected_equal_message(["0123456789"] * 20 + ["a"], ["0123456789"] * 20)
    assert listed[5:] == [
        "  difference:",
        "    expected 21 items, actual 20; the first 20 agree",
        '    expected /20: "a"',
        "    actual /20:   (none: the list ends)",
    ]
    members = _expected_equal_message({"a": 1, "b": "x" * 200}, {"a": 1, "c": "x" * 200})
    assert members[5:] == [
        "  difference:",
        '    missing members: "b"',
        '    unexpected members: "c"',
    ]
