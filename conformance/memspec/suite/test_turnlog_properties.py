"""Properties of the turnlog profile, driven through the adapter under test.

Each states an invariant the spec implies; the one registered ``differential`` compares
the adapter with the reference and does not count as coverage.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memspec.corpus.registry import suite_case
from memspec.suite._support import (
    expect_equal,
    file_bytes,
    reference_result,
    result,
    scratch_folder,
    text_of,
)
from memspec.wire.adapters import Adapter
from memspec.wire.instants import format_instant, parse_instant

NAME = re.compile(
    r"[0-9]{4,}-[0-9]{2}-[0-9]{2}T[0-9]{6}Z--[A-Za-z0-9]{1,8}--"
    r"[a-z0-9](?:[a-z0-9-]{0,48}[a-z0-9])?\.md"
)
RANGE_LINE = re.compile(r"([0-9]+)(?:-([0-9]+))?  ((?:  )*)(.*)", re.DOTALL)
NS = 1_000_000_000
YEAR_1000 = parse_instant("1000-01-01T00:00:00Z")
YEAR_9999 = parse_instant("9999-12-31T23:59:59.999999999Z")
GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000"
)
NOW = "2030-01-01T00:00:00Z"

titles = st.text(max_size=80)
session_ids = st.text(max_size=40)
years_1000_9999 = st.integers(min_value=YEAR_1000, max_value=YEAR_9999)


@contextmanager
def _scratch(adapter: Adapter, files: dict[str, bytes] | None = None) -> Iterator[str]:
    with scratch_folder(adapter, files, prefix="memspec-turnlog-") as directory:
        yield str(directory)


def _filename_args(ns: int, session_id: str, title: str) -> dict[str, Any]:
    return {"created_at": format_instant(ns), "session_id": session_id, "title": title}


def _filename(adapter: Adapter, args: dict[str, Any]) -> str:
    name = result(adapter, "turnlog.filename", args)
    assert isinstance(name, str), "a file name is UTF-8 text"
    return name


@suite_case(
    "turnlog/filename/property-grammar",
    "TURNLOG-NAME-007",
    "TURNLOG-NAME-003",
    "TURNLOG-NAME-005",
    "TURNLOG-NAME-006",
)
@settings(deadline=None)
@given(ns=years_1000_9999, session_id=session_ids, title=titles)
def test_filename_matches_grammar(
    memspec_adapter: Adapter, ns: int, session_id: str, title: str
) -> None:
    """Every file name matches the documented grammar, and its tag is the first 8 ASCII
    letters and digits of the session id."""
    args = _filename_args(ns, session_id, title)
    name = _filename(memspec_adapter, args)
    assert NAME.fullmatch(name), "the file name does not match the grammar"
    kept = "".join(c for c in session_id if c.isascii() and c.isalnum())[:8] or "session"
    expect_equal("turnlog.filename", args, kept, name.split("--")[1], what="tag of the file name")


@suite_case("turnlog/filename/property-chronological", "TURNLOG-NAME-007", "TURNLOG-NAME-001")
@settings(deadline=None)
@given(first=years_1000_9999, second=years_1000_9999, session_id=session_ids, title=titles)
def test_filenames_sort_chronologically(
    memspec_adapter: Adapter, first: int, second: int, session_id: str, title: str
) -> None:
    """With the same session and title, names sort like their instants truncated to seconds."""
    a = _filename(memspec_adapter, _filename_args(first, session_id, title))
    b = _filename(memspec_adapter, _filename_args(second, session_id, title))
    sa, sb = first // NS, second // NS
    assert (a < b) == (sa < sb) and (a == b) == (sa == sb), (
        "the two names do not sort like their instants truncated to seconds"
    )


@suite_case(
    "turnlog/filename/property-agrees-with-reference",
    "TURNLOG-NAME-004",
    "TURNLOG-NAME-005",
    kind="differential",
)
@settings(deadline=None)
@given(
    ns=st.integers(min_value=parse_instant("0001-01-01T00:00:00Z"), max_value=YEAR_9999),
    session_id=session_ids,
    title=titles,
)
def test_filename_agrees_with_reference(
    memspec_adapter: Adapter, ns: int, session_id: str, title: str
) -> None:
    """On any instant, session id and title, the adapter gives memref's file name."""
    args = _filename_args(ns, session_id, title)
    expected = reference_result("turnlog.filename", args)
    actual = result(memspec_adapter, "turnlog.filename", args)
    expect_equal("turnlog.filename", args, expected, actual, what="result (memref's expected)")


@suite_case("turnlog/enabled/property-off-tokens", "TURNLOG-ENV-002", "TURNLOG-ENV-003")
@settings(deadline=None)
@given(
    value=st.one_of(
        st.text(max_size=12),
        st.sampled_from(["0", "false", "no", "off"]).flatmap(
            lambda token: st.tuples(
                st.text(alphabet=GO_SPACE, max_size=3),
                st.just(token),
                st.text(alphabet=GO_SPACE, max_size=3),
            ).map(lambda parts: "".join(parts))
        ),
    )
)
def test_gate_is_off_exactly_for_off_tokens(memspec_adapter: Adapter, value: str) -> None:
    """The gate is off exactly when the trimmed, lower-cased value is an off token."""
    args = {"env": {"OGCODE_TURN_MEMORY": value}}
    enabled = result(memspec_adapter, "turnlog.turn_memory_enabled", args)
    wanted = value.strip(GO_SPACE).lower() not in ("0", "false", "no", "off")
    expect_equal("turnlog.turn_memory_enabled", args, wanted, enabled)


@suite_case(
    "turnlog/write/property-file-layout",
    "TURNLOG-WRITE-004",
    "TURNLOG-WRITE-006",
    "TURNLOG-WRITE-011",
)
@settings(deadline=None, max_examples=50)
@given(
    title=titles,
    session_id=session_ids,
    body=st.text(min_size=1, max_size=200).filter(lambda b: b.strip(GO_SPACE) != ""),
)
def test_written_file_layout(
    memspec_adapter: Adapter, title: str, session_id: str, body: str
) -> None:
    """A written summary is 7 frontmatter lines with the quoted values, a blank line, and the
    body with its trailing newlines reduced to one."""
    with _scratch(memspec_adapter) as root:
        args = {
            "project_dir": root,
            "session_id": session_id,
            "project_id": "/p",
            "session_type": "build",
            "title": title,
            "created_at": "2026-09-09T14:30:05Z",
            "body": body,
            "now": NOW,
        }
        name = text_of(result(memspec_adapter, "turnlog.write", args), "the path written")
        assert name.startswith(os.path.join(root, ".ogcode", "memory") + "/"), (
            "the file is not in the project's memory folder"
        )
        data = file_bytes(name)

    def q(value: str) -> str:
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'

    expected = (
        f"---\ntitle: {q(title)}\nsession_id: {q(session_id)}\n"
        f'session_type: "build"\nproject_id: "/p"\n'
        f"created_at: 2026-09-09T14:30:05Z\n---\n\n{body.rstrip(chr(10))}\n"
    )
    expect_equal("turnlog.write", args, expected.encode(), data, what="content of the file")


@suite_case(
    "turnlog/outline/property-ranges-are-flat",
    "TURNLOG-OUT-002",
    "TURNLOG-OUT-007",
    "TURNLOG-OUT-001",
)
@settings(deadline=None, max_examples=60)
@given(
    text=st.lists(
        st.sampled_from(
            ["# A", "## B c", "### d ##", "text", "", "```", "~~~", "#no", "  # x", "\r", "- item"]
        ),
        max_size=30,
    ).map("\n".join)
)
def test_outline_ranges_are_flat(memspec_adapter: Adapter, text: str) -> None:
    """Outline lines are `S[-E]  <indent><name>`; each range ends where the next begins, the
    last at the number of newline-separated pieces."""
    with _scratch(memspec_adapter, {"f.md": text.encode()}) as root:
        args = {"path": os.path.join(root, "f.md")}
        rendered = result(memspec_adapter, "turnlog.outline", args)
    assert isinstance(rendered, str), "an outline is UTF-8 text"
    if rendered == "":
        return
    spans = []
    for line in rendered.split("\n"):
        match = RANGE_LINE.fullmatch(line)
        assert match, "an outline line is S[-E], two spaces, its indent and its name"
        start = int(match.group(1))
        end = int(match.group(2) or start)
        assert end > start or match.group(2) is None, "a range S-E ends after it starts"
        spans.append((start, end))
    for (start, end), (next_start, _) in itertools.pairwise(spans):
        assert start < next_start, "the ranges are not in the order of their starts"
        expect_equal(
            "turnlog.outline", args, next_start - 1, end, what=f"end of the range from {start}"
        )
    last = max(spans[-1][0], len(text.split("\n")))
    expect_equal("turnlog.outline", args, last, spans[-1][1], what="end of the last range")


@suite_case("turnlog/store/property-list-order", "TURNLOG-STORE-008", "TURNLOG-STORE-004")
@settings(deadline=None, max_examples=30)
@given(
    rows=st.lists(
        st.tuples(
            st.text(alphabet="aAbé/-.", min_size=1, max_size=6),
            st.integers(min_value=-3, max_value=3),
        ),
        max_size=8,
        unique_by=lambda row: row[0],
    )
)
def test_list_order(memspec_adapter: Adapter, rows: list[tuple[str, int]]) -> None:
    """Rows list by created_at descending, then path descending in byte order."""
    with _scratch(memspec_adapter) as root:
        store = os.path.join(root, "store")
        rows = [(f"{root}/{path}", created) for path, created in rows]
        for path, created in rows:
            result(
                memspec_adapter,
                "turnlog.upsert",
                {
                    "store_dir": store,
                    "path": path,
                    "project_id": "p",
                    "created_at": created,
                    "indexed_at": 1,
                    "now": NOW,
                },
            )
        args = {"store_dir": store, "project_id": "p"}
        listed = result(memspec_adapter, "turnlog.list_by_project", args)
    assert isinstance(listed, list) and all(
        isinstance(e, dict) and "path" in e and "created_at" in e for e in listed
    ), "a listing is a list of rows, each with a path and a created_at"
    want = sorted(rows, key=lambda row: (row[1], row[0].encode()), reverse=True)
    expect_equal(
        "turnlog.list_by_project",
        args,
        want,
        [(e["path"], e["created_at"]) for e in listed],
        what="rows (path, created_at) in order",
    )


@suite_case("turnlog/prompt/property-structure", "TURNLOG-PROMPT-001", "TURNLOG-PROMPT-002")
def test_prompt_structure(memspec_adapter: Adapter) -> None:
    """The summary prompt opens and closes with the pinned sentences and names the mandatory
    structure and the suggested sections."""
    prompt = result(memspec_adapter, "turnlog.summary_system_prompt", {})
    assert isinstance(prompt, str), "the prompt is UTF-8 text"
    assert prompt.startswith("You are a memory scribe."), "the prompt opens otherwise"
    assert prompt.endswith(
        "No preamble, no code fence around the whole thing, no trailing commentary."
    ), "the prompt closes otherwise"
    markers = (
        "STRUCTURE (this is mandatory",
        "RULES:",
        "exactly one H1 (`# `) title",
        "H2 (`## `)",
        "H3 (`### `)",
        '"## Request"',
        '"## What was done"',
        '"## Key files & symbols"',
        '"## Outcome"',
    )
    missing = [marker for marker in markers if marker not in prompt]
    expect_equal(
        "turnlog.summary_system_prompt", {}, [], missing, what="pinned phrases missing from it"
    )


@suite_case("turnlog/prompt/property-ignores-arguments", "TURNLOG-PROMPT-001")
def test_prompt_is_constant(memspec_adapter: Adapter) -> None:
    """The prompt is the same text on every call, whatever the arguments."""
    first = result(memspec_adapter, "turnlog.summary_system_prompt", {})
    second = result(memspec_adapter, "turnlog.summary_system_prompt", {"x": 1})
    expect_equal(
        "turnlog.summary_system_prompt", {"x": 1}, first, second, what="prompt (as without args)"
    )
    assert not str(first).endswith("\n"), "the prompt ends with a newline"
