"""Rendered strings of the turnlog profile, pinned as JSON snapshots under fixtures/.

Only the reference adapter may rewrite them (``--snapshot-update``), so they find
regressions and do not count as coverage.
"""

from __future__ import annotations

from typing import Any

from syrupy.assertion import SnapshotAssertion

from memspec.corpus.registry import suite_case
from memspec.suite._support import reply, scratch_folder
from memspec.wire.adapters import Adapter

DOCUMENTS = {
    "summary": '---\ntitle: "T"\n---\n\n# T\n\n## Request\nr\n\n### Detail\nd\n## Outcome\nfin\n',
    "fences": "# A\n```\n# no\n```\n## B\n~~~sh\n# comment\n~~~\n### C\n",
    "closing": "# C#\n## Title ##\n### a ## b ##\n#### x #y\n##### #\n###### ##\n",
    "spaces": "#\tTab\n#\fFeed\n# Trail\v\n# CR\r\n#  \n",
}
TITLES = [
    "Wire the Recall Agent!",
    "",
    "Héllo Wörld",
    "C++ & Go: v2.0",
    "İstanbul",
    "KELVIN \u212a",
    "a" * 49 + " b",
    "ab " * 30,
    "日本語",
    "Straße 2.0",
]


def _call(adapter: Adapter, op: str, args: dict[str, Any]) -> Any:
    response = reply(adapter, op, args)
    if response.is_error:
        return {"error": response.error_kind}
    return response.result


@suite_case(
    "turnlog/outline/snapshot-rendered-outlines",
    "TURNLOG-OUT-003",
    "TURNLOG-OUT-005",
    "TURNLOG-OUT-006",
    "TURNLOG-OUT-007",
    kind="snapshot",
    divergences=("turnlog#4", "turnlog#5"),
)
def test_rendered_outlines(memspec_adapter: Adapter, memspec_snapshot: SnapshotAssertion) -> None:
    """The outlines of a few documents exercising headings, fences and closing sequences."""
    files = {f"{name}.md": text.encode() for name, text in DOCUMENTS.items()}
    with scratch_folder(memspec_adapter, files, prefix="memspec-turnlog-") as root:
        rendered = {
            name: _call(memspec_adapter, "turnlog.outline", {"path": str(root / f"{name}.md")})
            for name in DOCUMENTS
        }
    assert rendered == memspec_snapshot


@suite_case(
    "turnlog/filename/snapshot-names", "TURNLOG-NAME-001", "TURNLOG-NAME-004", kind="snapshot"
)
def test_rendered_names(memspec_adapter: Adapter, memspec_snapshot: SnapshotAssertion) -> None:
    """File names for a ladder of titles, one session id and one instant."""
    rendered = {
        title: _call(
            memspec_adapter,
            "turnlog.filename",
            {
                "created_at": "2026-09-09T14:30:05.5+02:00",
                "session_id": "ses_01M269J8TM53",
                "title": title,
            },
        )
        for title in TITLES
    }
    assert rendered == memspec_snapshot
