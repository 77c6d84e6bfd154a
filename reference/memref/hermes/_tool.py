"""The memory tool: one store of a home, its single actions and batches, and the JSON text
of every result (spec/hermes.md, "Tool")."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from memref.hermes import _budget, _scan
from memref.hermes._concurrency import locked
from memref.hermes._constants import ENTRY_DELIMITER, FILES, MAX_FAILURES_PER_TURN, PREVIEW_WIDTH
from memref.hermes._files import (
    StoreUnavailable,
    ensure_memory_dir,
    secure_memory_dir,
    write_backup,
    write_file,
)
from memref.hermes._storage import FileText, memory_dir, parse, read_target, serialise, target_path

__all__ = ["Store", "dumps"]

Json = dict[str, Any]

_NOTE = "Write saved. This update is complete \u2014 do not repeat it."
_BATCH_TAIL = " No operations were applied (batch is all-or-nothing)."
_TERMINAL = (
    "Memory consolidation failed {n} times this turn. Stop retrying memory calls \u2014 leave "
    "memory unchanged for now and continue with your reply to the user. The fact can be "
    "saved in a later turn."
)
_DRIFT = (
    "Refusing to write {name}: file on disk has content that wouldn't round-trip through the "
    "memory tool (likely added by the patch tool, a shell append, a manual edit, or a "
    "concurrent session). A snapshot was saved to {backup}. Resolve the drift first \u2014 "
    "either rewrite the file as a clean \u00a7-delimited list of entries, or move the extra "
    "content out \u2014 then retry. This guard exists to prevent silent data loss (issue "
    "#26045)."
)
_REMEDIATION = (
    "Open the .bak file, integrate the missing entries into the memory tool one at a time "
    "via memory(action=add, content=...), then remove or rewrite the original file to a "
    "clean state."
)
_UNREADABLE = (
    "{name} could not be read, so nothing was written. Fix the file (its permissions, or "
    "text that is not UTF-8), then retry."
)


def dumps(value: Json) -> str:
    return json.dumps(value, ensure_ascii=False)


def refusal(message: str) -> Json:
    return {"error": message, "success": False}


def failure(message: str, **extra: Any) -> Json:
    return {"success": False, "error": message, **extra}


class _Abort(Exception):
    def __init__(self, result: Json) -> None:
        super().__init__(result.get("error"))
        self.result = result


class Store:
    """What one agent session holds: live entries, limits, the failure count, the clock."""

    def __init__(self, home: str, limits: Mapping[str, int], now: int) -> None:
        self.home = home
        self.directory = memory_dir(home)
        self.limits = dict(limits)
        self.now = now
        self.entries: dict[str, list[str]] = {"memory": [], "user": []}
        self.failures = 0
        self.available = True
        # The text this store last wrote to each target (HERMES-TOOL-023).
        self.written: dict[str, str | None] = {"memory": None, "user": None}

    # -- loading ------------------------------------------------------------------------
    def load(self) -> dict[str, list[str]]:
        """Read both files afresh (the start of a session); returns the entries read."""
        try:
            ensure_memory_dir(self.home, self.directory)
        except StoreUnavailable:
            self.available = False
            self.entries = {"memory": [], "user": []}
            return self.entries
        self.available = True
        self.entries = {t: parse(read_target(self.home, t).text) for t in FILES}
        return self.entries

    # -- results ------------------------------------------------------------------------
    def _success(self, target: str, message: str) -> Json:
        self.failures = 0
        entries = self.entries[target]
        current = _budget.size(entries)
        return {
            "success": True,
            "done": True,
            "target": target,
            "usage": _budget.usage(current, self.limits[target]),
            "entry_count": len(entries),
            "message": message,
            "note": _NOTE,
        }

    def _counted(self, result: Json) -> Json:
        self.failures += 1
        if self.failures <= MAX_FAILURES_PER_TURN:
            return result
        return {"success": False, "done": True, "error": _TERMINAL.format(n=self.failures)}

    def _inventory(self, target: str) -> Json:
        entries = self.entries[target]
        return {
            "current_entries": list(entries),
            "usage": _budget.usage_short(_budget.size(entries), self.limits[target]),
        }

    # -- the call -----------------------------------------------------------------------
    def call(self, tool_input: Mapping[str, Any]) -> str:
        """One call of the tool; the JSON text the model receives."""
        return dumps(self._call(tool_input))

    def _call(self, tool_input: Mapping[str, Any]) -> Json:
        target = tool_input.get("target")
        if target is None:
            target = "memory"
        if not isinstance(target, str):
            return refusal("target must be 'memory' or 'user'.")
        if target not in FILES:
            return refusal(f"Invalid target '{target}'. Use 'memory' or 'user'.")
        operations = tool_input.get("operations")
        if operations:
            if not isinstance(operations, list):
                return refusal(
                    "operations must be a list of {action, content?, old_text?} objects."
                )
            return self._guarded(target, lambda: self._batch(target, operations))
        action = tool_input.get("action")
        content = tool_input.get("content")
        old_text = tool_input.get("old_text")
        if action is not None and not isinstance(action, str):
            return refusal("action must be a string.")
        # Presence is whether a member is missing or a false value, whatever its type.
        if action == "add" and not content:
            return refusal("Content is required for 'add' action.")
        if action in ("replace", "remove") and not old_text:
            return failure(
                f"'{action}' needs old_text -- a short unique substring of the entry to "
                f"{action}. None was provided. Reissue the {action} with old_text set to part "
                "of one of the current_entries below.",
                **self._inventory(target),
            )
        if action == "replace" and not content:
            return refusal("content is required for 'replace' action.")
        if action not in ("add", "replace", "remove"):
            return refusal(f"Unknown action '{action}'. Use: add, replace, remove")
        return self._guarded(target, lambda: self._single(target, action, tool_input))

    def _single(self, target: str, action: str, tool_input: Mapping[str, Any]) -> Json:
        self._gate()
        uses = {"add": ("content",), "replace": ("old_text", "content"), "remove": ("old_text",)}
        for name in uses[action]:
            if not isinstance(tool_input.get(name), str):
                return refusal(f"{name} must be a string.")
        content, old_text = str(tool_input.get("content")), str(tool_input.get("old_text"))
        if action == "add":
            return self._add(target, content)
        if action == "replace":
            return self._replace(target, old_text, content)
        return self._remove(target, old_text)

    def _gate(self) -> None:
        """The seed's write gate loads its configuration, which makes the memory directory
        0700 before the call's own checks (HERMES-FILES-003)."""
        secure_memory_dir(self.directory)

    def _guarded(self, target: str, work: Any) -> Json:
        if not self.available:
            return refusal("The memory directory is not a directory; nothing was written.")
        try:
            result: Json = work()
        except _Abort as abort:
            return abort.result
        except OSError as exc:
            return refusal(f"Failed to write {FILES[target]}: {exc.strerror or 'I/O error'}.")
        return result

    # -- under the lock -----------------------------------------------------------------
    def _locked_read(self, target: str, *, drift: bool, whole: bool = True) -> FileText:
        """Reread the target under the lock (the caller holds it); abort on drift, the
        entries read all the same."""
        path = target_path(self.home, target)
        current = read_target(self.home, target)
        self.entries[target] = parse(current.text)
        if drift and current.text is not None and self._drifted(target, current.text, whole):
            name = FILES[target]
            backup = f"{path}.bak.{self.now}"
            shown = f"$HERMES_HOME/memories/{name}.bak.{self.now}"
            if not write_backup(backup, current.text):
                shown += " (BACKUP FAILED \u2014 file unchanged on disk)"
            raise _Abort(
                failure(
                    _DRIFT.format(name=name, backup=shown),
                    drift_backup=shown,
                    remediation=_REMEDIATION,
                )
            )
        return current

    def _drifted(self, target: str, text: str, whole: bool) -> bool:
        stripped = text.strip()
        if not stripped:
            return False
        parts = [part.strip() for part in text.split(ENTRY_DELIMITER) if part.strip()]
        if stripped != serialise(parts):
            return True
        if max(len(part) for part in parts) > self.limits[target]:
            return True
        # A hand-written file without delimiters is one entry; rewriting it whole would
        # drop every line the call did not name (HERMES-TOOL-023), unless the call only
        # adds or this store wrote that very text.
        return (
            whole
            and text != self.written[target]
            and len(parts) == 1
            and ENTRY_DELIMITER not in text
            and ("\n" in parts[0] or "\u00a7" in parts[0])
        )

    def _commit(self, target: str, before: FileText, entries: list[str]) -> None:
        if before.unreadable:
            raise _Abort(failure(_UNREADABLE.format(name=FILES[target])))
        text = serialise(entries)
        write_file(target_path(self.home, target), text)
        self.entries[target] = entries
        self.written[target] = text

    def _enter(self, target: str) -> Any:
        secure_memory_dir(self.directory)
        return locked(target_path(self.home, target))

    def _add(self, target: str, content: str) -> Json:
        content = content.strip()
        if not content:
            return failure("Content cannot be empty.")
        blocked = _scan.first_message(content)
        if blocked:
            return failure(blocked)
        with self._enter(target):
            before = self._locked_read(target, drift=False)
            entries = self.entries[target]
            if content in entries:
                return self._success(target, "Entry already exists (no duplicate added).")
            limit = self.limits[target]
            if _budget.size([*entries, content]) > limit:
                current = _budget.size(entries)
                return self._counted(
                    failure(
                        f"Memory at {current:,}/{limit:,} chars. Adding this entry "
                        f"({len(content)} chars) would exceed the limit. Consolidate now: use "
                        "'replace' to merge overlapping entries into shorter ones or 'remove' "
                        "stale or less important entries (see current_entries below), then "
                        "retry this add \u2014 all in this turn.",
                        **self._inventory(target),
                    )
                )
            self._commit(target, before, [*entries, content])
        return self._success(target, "Entry added.")

    def _match(self, target: str, old_text: str, action: str) -> int:
        entries = self.entries[target]
        found = [i for i, entry in enumerate(entries) if old_text in entry]
        if not found:
            raise _Abort(
                self._counted(
                    failure(
                        f"No entry matched '{old_text}'. Check current_entries below and retry "
                        f"with the exact text of the entry you want to {action}.",
                        current_entries=list(entries),
                    )
                )
            )
        if len({entries[i] for i in found}) > 1:
            raise _Abort(
                failure(
                    f"Multiple entries matched '{old_text}'. Be more specific.",
                    matches=[_preview(entries[i]) for i in found],
                )
            )
        return found[0]

    def _replace(self, target: str, old_text: str, content: str) -> Json:
        old_text, content = old_text.strip(), content.strip()
        if not old_text:
            return failure("old_text cannot be empty.")
        if not content:
            return failure("new_content cannot be empty. Use 'remove' to delete entries.")
        blocked = _scan.first_message(content)
        if blocked:
            return failure(blocked)
        with self._enter(target):
            before = self._locked_read(target, drift=True)
            index = self._match(target, old_text, "replace")
            entries = list(self.entries[target])
            entries[index] = content
            limit = self.limits[target]
            new = _budget.size(entries)
            if new > limit:
                return self._counted(
                    failure(
                        f"Replacement would put memory at {new:,}/{limit:,} chars. Shorten the "
                        "new content, or 'remove' other stale or less important entries to make "
                        "room (see current_entries below), then retry \u2014 all in this turn.",
                        **self._inventory(target),
                    )
                )
            self._commit(target, before, entries)
        return self._success(target, "Entry replaced.")

    def _remove(self, target: str, old_text: str) -> Json:
        old_text = old_text.strip()
        if not old_text:
            return failure("old_text cannot be empty.")
        with self._enter(target):
            before = self._locked_read(target, drift=True)
            index = self._match(target, old_text, "remove")
            entries = list(self.entries[target])
            entries.pop(index)
            self._commit(target, before, entries)
        return self._success(target, "Entry removed.")

    # -- batches ------------------------------------------------------------------------
    def _batch(self, target: str, operations: list[Any]) -> Json:
        if any(op is not None and not isinstance(op, dict) for op in operations):
            return refusal("each operation must be an object.")
        self._gate()
        for k, op in enumerate(operations, 1):
            action, content = (op or {}).get("action"), (op or {}).get("content")
            if isinstance(action, (list, dict)):
                return refusal("operation member action must be a string.")
            if action in ("add", "replace") and content:
                if not isinstance(content, str):
                    return refusal("operation member content must be a string.")
                blocked = _scan.first_message(content)
                if blocked:
                    return failure(f"Operation {k}: {blocked}")
        edits = any((op or {}).get("action") in ("replace", "remove") for op in operations)
        with self._enter(target):
            before = self._locked_read(target, drift=True, whole=edits)
            working = list(self.entries[target])
            for k, op in enumerate(operations, 1):
                op = op or {}
                action = op.get("action")
                for name in ("content", "old_text"):
                    if op.get(name) and not isinstance(op.get(name), str):
                        return refusal(f"operation member {name} must be a string.")
                if action is not None and not isinstance(action, str):
                    return refusal("operation member action must be a string.")
                content = (op.get("content") or "").strip()
                old_text = (op.get("old_text") or "").strip()
                why = _apply(working, action, content, old_text)
                if why is not None:
                    return self._counted(
                        failure(
                            f"Operation {k} ({action or 'unknown'}): {why}{_BATCH_TAIL}",
                            **self._inventory(target),
                        )
                    )
            limit = self.limits[target]
            new = _budget.size(working)
            if new > limit:
                return self._counted(
                    failure(
                        f"After applying all {len(operations)} operations, memory would be at "
                        f"{new:,}/{limit:,} chars -- over the limit. Remove or shorten more "
                        "entries in the same batch (see current_entries below), then retry.",
                        **self._inventory(target),
                    )
                )
            self._commit(target, before, working)
        return self._success(target, f"Applied {len(operations)} operation(s).")


def _apply(working: list[str], action: Any, content: str, old_text: str) -> str | None:
    """Apply one batch operation to ``working``; the reason it fails, or None."""
    if action == "add":
        if not content:
            return "content is required."
        if content not in working:
            working.append(content)
        return None
    if action not in ("replace", "remove"):
        return "unknown action. Use add, replace, or remove."
    if not old_text:
        return "old_text is required."
    if action == "replace" and not content:
        return "content is required (use action='remove' to delete)."
    found = [i for i, entry in enumerate(working) if old_text in entry]
    if not found:
        return f"no entry matched '{old_text}'."
    if len({working[i] for i in found}) > 1:
        return f"'{old_text}' matched multiple distinct entries -- be more specific."
    if action == "replace":
        working[found[0]] = content
    else:
        working.pop(found[0])
    return None


def _preview(entry: str) -> str:
    return entry[:PREVIEW_WIDTH] + ("..." if len(entry) > PREVIEW_WIDTH else "")
