"""Rendered outputs of the memorytool profile, pinned as JSON snapshots under fixtures/.

Only the reference adapter may rewrite them (``--snapshot-update``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from syrupy.assertion import SnapshotAssertion

from memspec.corpus.registry import suite_case
from memspec.suite._support import file_bytes, names_in, reply, scratch_folder, text_of
from memspec.wire.adapters import Adapter


def _answer(adapter: Adapter, op: str, args: dict[str, Any]) -> Any:
    response = reply(adapter, op, args)
    if response.is_error:
        return {"error": response.error_kind}
    return response.result


def _file_text(path: Path) -> str | None:
    data = file_bytes(path)
    return None if data is None else text_of(data, f"the content of {path.name}")


@contextmanager
def _home(adapter: Adapter, files: dict[str, bytes]) -> Iterator[str]:
    with scratch_folder(adapter, files, prefix="memspec-memorytool-") as directory:
        yield str(directory)


@suite_case(
    "memorytool/actions/snapshot-outputs",
    "MEMORYTOOL-ACT-009",
    "MEMORYTOOL-ACT-010",
    "MEMORYTOOL-ACT-011",
    kind="snapshot",
)
def test_rendered_outputs(memspec_adapter: Adapter, memspec_snapshot: SnapshotAssertion) -> None:
    """The tool's output for each action and target, a miss, and unknown actions, with the
    files they leave."""
    inputs = [
        {"action": "add", "text": "likes tea"},
        {"action": "add", "target": "user", "text": "works in IST"},
        {"action": "replace", "text": "tea", "with": "coffee"},
        {"action": "replace", "target": "user", "text": "IST", "with": "UTC"},
        {"action": "remove", "text": "likes "},
        {"action": "remove", "target": "user", "text": "- works in UTC\n"},
        {"action": "remove", "text": "ghost"},
        {"action": "delete-everything", "text": "x"},
        {"action": "", "text": "x"},
    ]
    with _home(memspec_adapter, {"MEMORY.md": b"# Memory\n"}) as home:
        rendered = []
        for tool_input in inputs:
            answer = _answer(memspec_adapter, "memorytool.call", {"dir": home, "input": tool_input})
            files = {name: _file_text(Path(home, name)) for name in names_in(home) or []}
            rendered.append({"input": tool_input, "result": answer, "files": files})
    assert rendered == memspec_snapshot


@suite_case(
    "memorytool/soul/snapshot-composed-soul",
    "MEMORYTOOL-SOUL-001",
    "MEMORYTOOL-SOUL-002",
    "MEMORYTOOL-SOUL-004",
    kind="snapshot",
)
def test_rendered_soul(memspec_adapter: Adapter, memspec_snapshot: SnapshotAssertion) -> None:
    """The soul of a home holding every bootstrap file, with varied whitespace."""
    with _home(
        memspec_adapter,
        {
            "AGENTS.md": b"  Follow the repo's conventions.\n\n",
            "SOUL.md": b"\n\nI am Ava: calm, precise.\n",
            "IDENTITY.md": b"",
            "USER.md": b"- name is Sam\r\n- prefers metric units\r\n",
            "TOOLS.md": "\u00a0Use grep before read.\u3000".encode(),
            "HEARTBEAT.md": b"# On a beat\n\n1. check the queue\n\n\n2. reply HEARTBEAT_OK\n",
            "MEMORY.md": b"- likes green tea\n- \n",
            "NOTES.md": b"ignored",
        },
    ) as home:
        rendered = _answer(memspec_adapter, "memorytool.compose_soul", {"dir": home})
    assert rendered == memspec_snapshot


@suite_case(
    "memorytool/session/snapshot-session-events",
    "MEMORYTOOL-SESS-001",
    "MEMORYTOOL-SESS-004",
    kind="snapshot",
)
def test_rendered_session(memspec_adapter: Adapter, memspec_snapshot: SnapshotAssertion) -> None:
    """The events of a two-session script."""
    script = [
        {"op": "soul"},
        {"op": "call", "input": {"action": "add", "target": "user", "text": "name is Muthu"}},
        {"op": "call", "input": {"action": "add", "text": "always reply tersely"}},
        {"op": "call", "input": {"action": "remove", "text": "nothing here"}},
        {"op": "soul"},
        {"op": "new_session"},
        {"op": "soul"},
    ]
    with _home(memspec_adapter, {"SOUL.md": b"You are Kip."}) as home:
        rendered = _answer(
            memspec_adapter, "memorytool.session_script", {"dir": home, "script": script}
        )
    assert rendered == memspec_snapshot
