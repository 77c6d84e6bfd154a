"""Rendered strings of the memdir profile, pinned as JSON snapshots under fixtures/.

Only the reference adapter may rewrite them (``--snapshot-update``), so they find
regressions and do not count as coverage.
"""

from __future__ import annotations

from typing import Any

from syrupy.assertion import SnapshotAssertion

from memspec.corpus.registry import suite_case
from memspec.suite._support import object_with, reply, result
from memspec.wire.adapters import Adapter
from memspec.wire.instants import NS_PER_DAY, NS_PER_HOUR, parse_instant
from memspec.wire.instants import format_instant as format_rfc3339_nano

NOW = parse_instant("2026-05-01T12:00:00Z")
AGES_NS = [
    0,
    23 * NS_PER_HOUR,
    NS_PER_DAY,
    47 * NS_PER_HOUR,
    2 * NS_PER_DAY,
    3 * NS_PER_DAY,
    7 * NS_PER_DAY,
    30 * NS_PER_DAY,
    60 * NS_PER_DAY,
    365 * NS_PER_DAY,
    1000 * NS_PER_DAY,
    -36 * NS_PER_HOUR,
]


def _call(adapter: Adapter, op: str, args: dict[str, Any]) -> Any:
    response = reply(adapter, op, args)
    if response.is_error:
        return {"error": response.error_kind}
    return response.result


def _at(offset_ns: int) -> dict[str, str]:
    return {"mtime": format_rfc3339_nano(NOW - offset_ns), "now": format_rfc3339_nano(NOW)}


@suite_case(
    "memdir/age/snapshot-rendered-ages",
    "MEMDIR-AGE-005",
    "MEMDIR-AGE-006",
    "MEMDIR-AGE-007",
    "MEMDIR-AGE-009",
    "MEMDIR-AGE-011",
    kind="snapshot",
)
def test_rendered_ages(memspec_adapter: Adapter, memspec_snapshot: SnapshotAssertion) -> None:
    """age, freshness_text and freshness_note for a ladder of ages."""
    rendered = {
        f"{offset // NS_PER_HOUR}h": {
            op: _call(memspec_adapter, f"memdir.{op}", _at(offset))
            for op in ("age_days", "age", "freshness_text", "freshness_note")
        }
        for offset in AGES_NS
    }
    assert rendered == memspec_snapshot


@suite_case(
    "memdir/index/snapshot-truncation-warnings", "MEMDIR-IDX-007", "MEMDIR-IDX-008", kind="snapshot"
)
def test_rendered_index_warnings(
    memspec_adapter: Adapter, memspec_snapshot: SnapshotAssertion
) -> None:
    """The bare warning of each of the three truncation reasons."""
    inputs = {
        "lines": "x\n" * 201,
        "bytes": "y" * 25_001,
        "both": "\n".join(["z" * 199] * 300),
    }
    rendered = {
        name: object_with(
            result(memspec_adapter, "memdir.truncate_index", {"raw": raw}), "warning"
        )["warning"]
        for name, raw in inputs.items()
    }
    assert rendered == memspec_snapshot


@suite_case(
    "memdir/manifest/snapshot-manifest",
    "MEMDIR-MAN-001",
    "MEMDIR-MAN-003",
    "MEMDIR-MAN-005",
    "MEMDIR-MAN-006",
    kind="snapshot",
)
def test_rendered_manifest(memspec_adapter: Adapter, memspec_snapshot: SnapshotAssertion) -> None:
    """A manifest with every combination of type tag and description."""
    headers = [
        {
            "filename": "a.md",
            "mtime": "2026-05-01T12:00:00Z",
            "description": "desc a",
            "type": "user",
        },
        {
            "filename": "b.md",
            "mtime": "2026-05-01T12:00:00.123456789Z",
            "description": "",
            "type": "",
        },
        {
            "filename": "sub/c.md",
            "mtime": "2026-05-01T20:00:00+08:00",
            "description": "c",
            "type": "",
        },
        {"filename": "d.md", "mtime": "2026-04-30T00:00:00Z", "description": "", "type": "weird"},
    ]
    assert _call(memspec_adapter, "memdir.format_manifest", {"headers": headers}) == (
        memspec_snapshot
    )
