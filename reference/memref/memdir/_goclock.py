"""Go ``time`` arithmetic on instants held as integer epoch nanoseconds."""

from __future__ import annotations

import time

from memref._time import NS_PER_HOUR, NS_PER_SECOND

__all__ = [
    "MAX_DURATION",
    "MIN_DURATION",
    "ZERO_TIME_NS",
    "go_hours",
    "go_sub",
    "is_zero",
    "now_or_clock",
    "wrap_int64",
]

MAX_DURATION = (1 << 63) - 1
MIN_DURATION = -(1 << 63)
# Go's zero time.Time, January 1 of year 1, 00:00:00 UTC.
ZERO_TIME_NS = -62_135_596_800 * NS_PER_SECOND


def now_or_clock(now: int | None) -> int:
    return time.time_ns() if now is None else now


def is_zero(instant: int | None) -> bool:
    return instant is None or instant == ZERO_TIME_NS


def wrap_int64(value: int) -> int:
    """Two's-complement wrap-around, as Go's int64 arithmetic overflows."""
    return (value + (1 << 63)) % (1 << 64) - (1 << 63)


def go_sub(t: int, u: int) -> int:
    """``t.Sub(u)``: the Duration in nanoseconds, saturated at the int64 limits."""
    t_sec, t_nsec = divmod(t, NS_PER_SECOND)
    u_sec, u_nsec = divmod(u, NS_PER_SECOND)
    d = wrap_int64(wrap_int64((t_sec - u_sec) * NS_PER_SECOND) + (t_nsec - u_nsec))
    if d == t - u:
        return d
    return MIN_DURATION if t < u else MAX_DURATION


def go_hours(d: int) -> float:
    """``Duration.Hours()``: whole hours plus the float remainder, as Go computes it."""
    hours = abs(d) // NS_PER_HOUR * (1 if d >= 0 else -1)
    rest = d - hours * NS_PER_HOUR
    return float(hours) + float(rest) / (60 * 60 * 1e9)
