"""File names: the time, the session tag and the slug (ogcode.md §3 vectors)."""

from __future__ import annotations

import pytest

from memref._time import parse_rfc3339
from memref.turnlog import ZERO_NS, filename, memory_dir, session_tag, slugify

T = parse_rfc3339("2026-09-09T14:30:05Z")


@pytest.mark.parametrize(
    ("session_id", "tag"),
    [
        ("abc123def456", "abc123de"),
        ("ses_01M269J8TM53WGCRH83WZY8QD7", "ses01M26"),
        ("", "session"),
        ("___", "session"),
        ("s1", "s1"),
        ("é1é2é3é4é5é6é7é8é9", "12345678"),
        ("a-b-c-d-e-f-g-h-i-j", "abcdefgh"),
        ("ABCdefGHIjk", "ABCdefGH"),
        ("\u212a1", "1"),
    ],
)
def test_session_tag(session_id: str, tag: str) -> None:
    assert session_tag(session_id) == tag


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("Wire the Recall Agent!", "wire-the-recall-agent"),
        ("", ""),
        ("   ", ""),
        ("!!!", ""),
        ("日本語", ""),
        ("Héllo Wörld", "h-llo-w-rld"),
        ("C++ & Go: v2.0", "c-go-v2-0"),
        ("--a--b--", "a-b"),
        ("a_b_c", "a-b-c"),
        ("ÄÖÜ abc", "abc"),
        ("ﬁle", "le"),
        ("a" * 60, "a" * 50),
        ("ab " * 30, "-".join(["ab"] * 17)),
        ("a" * 49 + " b", "a" * 49),
        ("a" * 49 + "!!bbb", "a" * 49),
        ("İstanbul", "istanbul"),
        ("KELVIN \u212a", "kelvin-k"),
        ("ab\udcffcd", "ab-cd"),
    ],
)
def test_slugify(title: str, slug: str) -> None:
    assert slugify(title) == slug


def test_full_names() -> None:
    assert (
        filename(T, "abc123def456", "Wire the Recall Agent!")
        == "2026-09-09T143005Z--abc123de--wire-the-recall-agent.md"
    )
    assert filename(T, "", "") == "2026-09-09T143005Z--session--turn.md"
    assert (
        filename(parse_rfc3339("2026-01-01T00:00:00Z"), "ses_ab", "Ünïcödé — Title…")
        == "2026-01-01T000000Z--sesab--n-c-d-title.md"
    )


@pytest.mark.parametrize(
    ("instant", "stamp"),
    [
        ("2026-01-02T03:04:05.999999999+05:30", "2026-01-01T213405Z"),
        ("0001-01-01T00:00:00Z", "0001-01-01T000000Z"),
        ("12026-01-01T00:00:00Z", "12026-01-01T000000Z"),
        ("1969-12-31T23:59:59.5Z", "1969-12-31T235959Z"),
    ],
)
def test_time_part(instant: str, stamp: str) -> None:
    assert filename(parse_rfc3339(instant), "s", "t").startswith(stamp + "--")


def test_zero_time_not_replaced() -> None:
    assert filename(ZERO_NS, "", "").startswith("0001-01-01T000000Z")


def test_chronological() -> None:
    offsets = [2 * 3600, 0, 24 * 3600, 60]
    names = [filename(T + o * 1_000_000_000, "sess1234", "Some Turn Title") for o in offsets]
    assert sorted(names) == [names[i] for i in sorted(range(4), key=offsets.__getitem__)]


@pytest.mark.parametrize(
    ("project", "expected"),
    [
        ("/a/b/../c", "/a/c/.ogcode/memory"),
        ("proj/", "proj/.ogcode/memory"),
        ("", ".ogcode/memory"),
        ("/", "/.ogcode/memory"),
    ],
)
def test_memory_dir(project: str, expected: str) -> None:
    assert memory_dir(project) == expected
