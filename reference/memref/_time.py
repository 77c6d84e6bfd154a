"""Instants as integer nanoseconds since the Unix epoch, and their RFC 3339 forms.

Integer arithmetic keeps every year from 0 to 9999 and beyond exact, where
``datetime`` stops at year 1 and microseconds.
"""

from __future__ import annotations

import re

__all__ = [
    "NS_PER_DAY",
    "NS_PER_HOUR",
    "NS_PER_SECOND",
    "format_rfc3339",
    "format_rfc3339_nano",
    "parse_rfc3339",
]

NS_PER_SECOND = 1_000_000_000
NS_PER_HOUR = 3600 * NS_PER_SECOND
NS_PER_DAY = 24 * NS_PER_HOUR

_RFC3339 = re.compile(
    r"(-?\d{4,})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?"
    r"(?:([Zz])|([+-])(\d{2}):(\d{2}))"
)


def _days_from_civil(year: int, month: int, day: int) -> int:
    year -= month <= 2
    era = year // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _civil_from_days(days: int) -> tuple[int, int, int]:
    days += 719468
    era = days // 146097
    doe = days - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    year = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + (3 if mp < 10 else -9)
    return year + (month <= 2), month, day


def parse_rfc3339(text: str) -> int:
    """Parse an RFC 3339 timestamp (fraction up to 9 digits) into epoch nanoseconds."""
    match = _RFC3339.fullmatch(text)
    if match is None:
        raise ValueError(f"not an RFC 3339 timestamp: {text!r}")
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 61):
        raise ValueError(f"timestamp out of range: {text!r}")
    fraction = int((match.group(7) or "").ljust(9, "0"))
    offset = 0
    if match.group(9):
        offset = (int(match.group(10)) * 60 + int(match.group(11))) * 60
        if match.group(9) == "-":
            offset = -offset
    seconds = _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second
    return (seconds - offset) * NS_PER_SECOND + fraction


def _split(ns: int) -> tuple[str, int]:
    seconds, fraction = divmod(ns, NS_PER_SECOND)
    days, rem = divmod(seconds, 86400)
    year, month, day = _civil_from_days(days)
    hour, rem = divmod(rem, 3600)
    minute, second = divmod(rem, 60)
    year_text = f"{year:04d}" if year >= 0 else f"-{-year:04d}"
    return f"{year_text}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}", fraction


def format_rfc3339(ns: int) -> str:
    """UTC, whole seconds, ``Z``: ``2026-05-01T12:00:00Z`` (Go's ``time.RFC3339``)."""
    stem, _ = _split(ns)
    return stem + "Z"


def format_rfc3339_nano(ns: int) -> str:
    """UTC with the fraction trimmed of trailing zeros (Go's ``time.RFC3339Nano``)."""
    stem, fraction = _split(ns)
    if fraction:
        stem += "." + f"{fraction:09d}".rstrip("0")
    return stem + "Z"
