"""The frozen snapshot and the session that holds a store across calls (spec/hermes.md,
"Snapshot")."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from memref.hermes import _budget, _scan
from memref.hermes._constants import BLOCK_HEADERS, BLOCK_RULE, FILES
from memref.hermes._storage import serialise
from memref.hermes._tool import Store

__all__ = ["render_block", "session_script", "snapshot", "snapshot_of"]


def _shown(entry: str, name: str) -> str:
    if not entry or entry.startswith("[BLOCKED:"):
        return entry
    found = _scan.findings(entry)
    if not found:
        return entry
    return (
        f"[BLOCKED: {name} entry contained threat pattern(s): {', '.join(found)}. Removed "
        "from system prompt; use memory(action=remove) to delete the original.]"
    )


def render_block(target: str, entries: Sequence[str], limit: int) -> str:
    """The block of one target: "" without entries, else rule, header, rule, entries."""
    if not entries:
        return ""
    shown = [_shown(entry, FILES[target]) for entry in entries]
    body = serialise(shown)
    current = len(body)
    header = (
        f"{BLOCK_HEADERS[target]} [{_budget.percent(current, limit)}% \u2014 "
        f"{current:,}/{limit:,} chars]"
    )
    return f"{BLOCK_RULE}\n{header}\n{BLOCK_RULE}\n{body}"


def snapshot_of(entries: Mapping[str, Sequence[str]], limits: Mapping[str, int]) -> dict[str, str]:
    return {target: render_block(target, entries[target], limits[target]) for target in FILES}


def snapshot(home: str, limits: Mapping[str, int]) -> dict[str, str]:
    """The snapshot a new session of ``home`` loads."""
    store = Store(home, limits, 0)
    return snapshot_of(store.load(), limits)


def session_script(
    home: str, limits: Mapping[str, int], now: int, script: Sequence[Mapping[str, Any]]
) -> Iterator[dict[str, Any]]:
    """Run the items on one store; one event per item."""
    store = Store(home, limits, now)
    frozen = snapshot_of(store.load(), limits)
    sessions, turns = 1, 1
    for item in script:
        op = item["op"]
        if op == "call":
            yield {"text": store.call(item["input"])}
        elif op == "snapshot":
            yield dict(frozen)
        elif op == "new_turn":
            turns += 1
            store.failures = 0
            yield {"turn": turns}
        else:
            sessions, turns = sessions + 1, 1
            store = Store(home, limits, now)
            frozen = snapshot_of(store.load(), limits)
            yield {"session": sessions}
