"""RFC 3339 instants as integer nanoseconds since the epoch, computed with ``datetime``.

The harness's own reading of the wire format (spec/protocol.md, "Values on the wire"),
kept apart from any implementation under test.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

__all__ = ["NS_PER_DAY", "NS_PER_HOUR", "NS_PER_SECOND", "format_instant", "parse_instant"]

NS_PER_SECOND = 1_000_000_000
NS_PER_HOUR = 3600 * NS_PER_SECOND
NS_PER_DAY = 24 * NS_PER_HOUR

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?"
    r"(?:([Zz])|([+-])(\d{2}):(\d{2}))"
)


def parse_instant(text: str) -> int:
    """``2026-05-01T12:00:00.5+02:00`` as epoch nanoseconds; raises ValueError."""
    match = _RFC3339.fullmatch(text)
    if match is None:
        raise ValueError(f"not an RFC 3339 instant: {text!r}")
    year, month, day, hour, minute, second = (int(g) for g in match.group(1, 2, 3, 4, 5, 6))
    fraction = int((match.group(7) or "0").ljust(9, "0"))
    moment = datetime(year, month, day, hour, minute, second, tzinfo=UTC)
    if not match.group(8):
        offset = timedelta(hours=int(match.group(10)), minutes=int(match.group(11)))
        moment -= offset if match.group(9) == "+" else -offset
    whole = moment - _EPOCH
    seconds = whole.days * 86_400 + whole.seconds
    return seconds * NS_PER_SECOND + fraction


def format_instant(ns: int) -> str:
    """Epoch nanoseconds as UTC RFC 3339, the fraction trimmed (Go's ``RFC3339Nano``)."""
    seconds, fraction = divmod(ns, NS_PER_SECOND)
    moment = _EPOCH + timedelta(seconds=seconds)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if len(text) < 19:  # years below 1000 lose their leading zeros in some C libraries
        text = f"{moment.year:04d}" + text[text.index("-") :]
    digits = f"{fraction:09d}".rstrip("0")
    return text + (f".{digits}" if digits else "") + "Z"
