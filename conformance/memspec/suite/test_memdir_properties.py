"""Properties of the memdir profile, driven through the adapter under test.

Each states an invariant the spec implies; the one registered ``differential`` compares
the adapter with the reference and does not count as coverage.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memspec.corpus.compare import text_bytes
from memspec.corpus.registry import suite_case
from memspec.strategies import frontmatter_documents, index_texts, instants, wire_texts
from memspec.suite._support import expect_equal, object_with, reference_result, result
from memspec.wire.adapters import Adapter
from memspec.wire.instants import NS_PER_DAY
from memspec.wire.instants import format_instant as format_rfc3339_nano


def _result(adapter: Adapter, op: str, args: dict[str, Any]) -> Any:
    return result(adapter, op, args)


def _reference(op: str, args: dict[str, Any]) -> Any:
    return reference_result(op, args)


@suite_case("memdir/frontmatter/property-never-errors", "MEMDIR-FM-017")
@settings(deadline=None)
@given(content=wire_texts())
def test_parse_frontmatter_never_errors(memspec_adapter: Adapter, content: object) -> None:
    """parse_frontmatter answers every input, valid UTF-8 or not, with a map and a body."""
    parsed = object_with(
        _result(memspec_adapter, "memdir.parse_frontmatter", {"content": content}),
        "frontmatter",
        "body",
    )
    assert isinstance(parsed["frontmatter"], dict), "the frontmatter is a map"
    assert text_bytes(parsed["body"]) is not None, "the body is text"


@suite_case("memdir/frontmatter/property-no-opening-body-unchanged", "MEMDIR-FM-001")
@settings(deadline=None)
@given(content=st.text(max_size=200).filter(lambda text: not text.startswith("---")))
def test_no_opening_delimiter_means_body_unchanged(memspec_adapter: Adapter, content: str) -> None:
    """A document not starting with '---' has no frontmatter and comes back unchanged."""
    args = {"content": content}
    parsed = object_with(
        _result(memspec_adapter, "memdir.parse_frontmatter", args), "frontmatter", "body"
    )
    expect_equal(
        "memdir.parse_frontmatter",
        args,
        {"frontmatter": {}, "body": content},
        {"frontmatter": parsed["frontmatter"], "body": parsed["body"]},
    )


@suite_case(
    "memdir/frontmatter/property-agrees-with-reference",
    "MEMDIR-FM-005",
    "MEMDIR-FM-007",
    "MEMDIR-FM-008",
    "MEMDIR-FM-010",
    "MEMDIR-FM-012",
    "MEMDIR-FM-015",
    kind="differential",
    divergences=("memdir#1",),
)
@settings(deadline=None)
@given(content=frontmatter_documents())
def test_parse_frontmatter_agrees_with_reference(memspec_adapter: Adapter, content: str) -> None:
    """On memory-file-shaped documents, the adapter gives exactly memref's answer."""
    args = {"content": content}
    expected = _reference("memdir.parse_frontmatter", args)
    actual = _result(memspec_adapter, "memdir.parse_frontmatter", args)
    expect_equal(
        "memdir.parse_frontmatter", args, expected, actual, what="result (memref's expected)"
    )


@suite_case(
    "memdir/age/property-age-days-monotonic-and-clamped",
    "MEMDIR-AGE-001",
    "MEMDIR-AGE-002",
    divergences=("memdir#2",),
)
@settings(deadline=None)
@given(mtime=instants(), first=instants(), second=instants())
def test_age_days_is_monotonic_and_clamps_the_future(
    memspec_adapter: Adapter, mtime: int, first: int, second: int
) -> None:
    """age_days never decreases as now advances, and is 0 for every future mtime."""
    early, late = sorted((first, second))
    asked = [
        {"mtime": format_rfc3339_nano(mtime), "now": format_rfc3339_nano(now)}
        for now in (early, late)
    ]
    ages = [_result(memspec_adapter, "memdir.age_days", args) for args in asked]
    assert all(type(age) is int for age in ages), "age_days is an integer"
    assert 0 <= ages[0] <= ages[1], "age_days is negative, or decreased as now advanced"
    if early <= mtime:
        expect_equal("memdir.age_days", asked[0], 0, ages[0])


@suite_case(
    "memdir/age/property-age-days-floors-elapsed-days",
    "MEMDIR-AGE-001",
    "MEMDIR-AGE-004",
    divergences=("memdir#2",),
)
@settings(deadline=None)
@given(
    mtime=instants(),
    elapsed=st.one_of(
        st.integers(min_value=-3 * NS_PER_DAY, max_value=4000 * NS_PER_DAY),
        st.builds(
            lambda days, offset: days * NS_PER_DAY + offset,
            st.integers(min_value=-3, max_value=4000),
            st.one_of(
                st.sampled_from([0, -1, 1, NS_PER_DAY // 2, -NS_PER_DAY // 2]),
                st.integers(min_value=-NS_PER_DAY + 1, max_value=NS_PER_DAY - 1),
            ),
        ),
    ),
)
def test_age_days_floors_whole_elapsed_days(
    memspec_adapter: Adapter, mtime: int, elapsed: int
) -> None:
    """age_days is the number of whole 24-hour periods elapsed, exactly."""
    args = {"mtime": format_rfc3339_nano(mtime), "now": format_rfc3339_nano(mtime + elapsed)}
    age = _result(memspec_adapter, "memdir.age_days", args)
    expect_equal("memdir.age_days", args, max(0, elapsed // NS_PER_DAY), age)


@suite_case(
    "memdir/age/property-freshness-text-and-note-agree",
    "MEMDIR-AGE-008",
    "MEMDIR-AGE-010",
    "MEMDIR-AGE-011",
    divergences=("memdir#2",),
)
@settings(deadline=None)
@given(mtime=instants(), elapsed=st.integers(min_value=-NS_PER_DAY, max_value=900 * NS_PER_DAY))
def test_freshness_note_wraps_freshness_text(
    memspec_adapter: Adapter, mtime: int, elapsed: int
) -> None:
    """The note is empty exactly when the text is, and otherwise wraps it in the tags."""
    args = {"mtime": format_rfc3339_nano(mtime), "now": format_rfc3339_nano(mtime + elapsed)}
    text = _result(memspec_adapter, "memdir.freshness_text", args)
    note = _result(memspec_adapter, "memdir.freshness_note", args)
    age = _result(memspec_adapter, "memdir.age_days", args)
    assert isinstance(text, str) and type(age) is int, "a freshness text and an age in days"
    assert (text == "") == (age <= 1), "the text is empty exactly for 0 or 1 day"
    wrapped = "" if text == "" else f"<system-reminder>{text}</system-reminder>\n"
    expect_equal("memdir.freshness_note", args, wrapped, note)


@suite_case(
    "memdir/index/property-truncation-invariants",
    "MEMDIR-IDX-003",
    "MEMDIR-IDX-004",
    "MEMDIR-IDX-005",
    "MEMDIR-IDX-009",
)
@settings(deadline=None)
@given(raw=index_texts())
def test_truncated_index_keeps_its_invariants(memspec_adapter: Adapter, raw: str) -> None:
    """The kept text is a prefix of the trimmed input within both caps; the warning
    appears exactly when a cap fired."""
    args = {"raw": raw}
    truncated = object_with(
        _result(memspec_adapter, "memdir.truncate_index", args), "body", "warning"
    )
    body, warning_text = text_bytes(truncated["body"]), text_bytes(truncated["warning"])
    assert body is not None and warning_text is not None, "the body and the warning are text"
    fired = warning_text != b""
    # index_texts() uses no whitespace beyond ASCII, where strip() is Go's TrimSpace.
    data = raw.strip(" \t\n\r\v\f").encode("utf-8")
    over = data.count(b"\n") + 1 > 200 or len(data) > 25_000
    assert fired == (over and bool(data)), "a warning is given exactly when a cap fired"
    if not fired:
        expect_equal("memdir.truncate_index", args, data, body, what="body")
        return
    kept, marker, warning = body.partition(b"\n\n> WARNING: ")
    assert marker, "a truncated body ends with the warning"
    expect_equal("memdir.truncate_index", args, warning_text, warning, what="warning in the body")
    assert data.startswith(kept), "what is kept of a truncated index is not a prefix"
    assert len(kept) <= 25_000 and kept.count(b"\n") + 1 <= 200, (
        "what is kept of a truncated index passes a cap"
    )
