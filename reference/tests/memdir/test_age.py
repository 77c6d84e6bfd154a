"""age_days, age, freshness_text and freshness_note."""

from __future__ import annotations

import pytest
from freezegun import freeze_time
from hypothesis import given
from hypothesis import strategies as st
from memdir_support import T0, at

from memref._time import NS_PER_DAY, NS_PER_HOUR
from memref.memdir import age, age_days, freshness_note, freshness_text

CAVEAT_60 = (
    "This memory is 60 days old. Memories are point-in-time observations, not live state — "
    "claims about code behavior or file:line citations may be outdated. "
    "Verify against current code before asserting as fact."
)


@pytest.mark.parametrize(
    ("offset_hours", "days", "text", "caveat"),
    [
        (0, 0, "today", False),
        (25, 1, "yesterday", False),
        (72, 3, "3 days ago", True),
        (-48, 0, "today", False),
    ],
)
def test_age_helpers(offset_hours: int, days: int, text: str, caveat: bool) -> None:
    # evva memdir_test.go TestAgeHelpers
    mtime = T0 - offset_hours * NS_PER_HOUR
    assert age_days(mtime, T0) == days
    assert age(mtime, T0) == text
    assert bool(freshness_text(mtime, T0)) is caveat


@pytest.mark.parametrize(
    ("elapsed", "days"),
    [
        (-12 * NS_PER_HOUR, 0),
        (-36 * NS_PER_HOUR, 0),
        (23 * NS_PER_HOUR + 59 * 60 * 10**9, 0),
        (24 * NS_PER_HOUR - 1, 0),
        (24 * NS_PER_HOUR, 1),
        (47 * NS_PER_HOUR, 1),
        (48 * NS_PER_HOUR, 2),
        # evva's float hours would say 171 here; the profile floors exactly.
        (171 * NS_PER_DAY - 1, 170),
    ],
)
def test_boundaries(elapsed: int, days: int) -> None:
    assert age_days(T0 - elapsed, T0) == days


def test_elapsed_time_saturates_like_go_duration() -> None:
    # Go's Time.Sub saturates at about 292 years: 9223372036854775807 ns = 106751 days.
    assert age_days(at("0001-01-01T00:00:00Z"), T0) == 106751


def test_freshness_text_content() -> None:
    # evva memdir_test.go TestFreshnessTextContent
    mtime = T0 - 60 * NS_PER_DAY
    assert freshness_text(mtime, T0) == CAVEAT_60
    note = freshness_note(mtime, T0)
    assert note == "<system-reminder>" + CAVEAT_60 + "</system-reminder>\n"
    assert age(mtime, T0) == "60 days ago"


@pytest.mark.parametrize("days", [0, 1])
def test_no_caveat_up_to_one_day(days: int) -> None:
    mtime = T0 - days * NS_PER_DAY - NS_PER_HOUR
    assert freshness_text(mtime, T0) == ""
    assert freshness_note(mtime, T0) == ""


def test_two_days_has_a_caveat() -> None:
    assert freshness_text(T0 - 2 * NS_PER_DAY, T0).startswith("This memory is 2 days old. ")


@freeze_time("2026-05-01T12:00:00Z")
def test_now_defaults_to_the_real_clock() -> None:
    assert age_days(T0 - 3 * NS_PER_DAY) == 3
    assert age(T0 - NS_PER_DAY) == "yesterday"
    assert freshness_text(T0) == ""
    assert freshness_note(T0 - 5 * NS_PER_DAY).endswith("</system-reminder>\n")


instants = st.integers(min_value=at("1900-01-01T00:00:00Z"), max_value=at("2200-01-01T00:00:00Z"))


@given(instants, instants, st.integers(min_value=0, max_value=10**18))
def test_monotonic_in_now(mtime: int, now: int, step: int) -> None:
    assert age_days(mtime, now) <= age_days(mtime, now + step)


@given(instants, st.integers(min_value=0, max_value=10**18))
def test_future_clamps_to_zero(now: int, ahead: int) -> None:
    assert age_days(now + ahead, now) == 0
