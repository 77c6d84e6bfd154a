"""Choosing the memories relevant to a query with one side query to a model."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from memref._gostr import trim_space
from memref.memdir._constants import RECALL_MAX_SELECTED, RECALL_MAX_TOKENS
from memref.memdir._manifest import format_manifest
from memref.memdir._scan import MemoryHeader, scan_memory_files

__all__ = ["Model", "build_query", "find_relevant", "parse_selected"]

# Given the user message and the output token cap, returns the reply text; raises on failure.
Model = Callable[[str, int], str]

_FIELD = "selected_memories"
_SURROGATES = re.compile("[\ud800-\udfff]")


class _Object:
    """A decoded JSON object, keeping every member in order (duplicates included)."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        self.pairs = pairs


class _TypeError(Exception):
    pass


def _reject_constant(name: str) -> Any:
    raise ValueError(f"not JSON: {name}")


def _decode(text: str) -> Any:
    return json.loads(
        text,
        object_pairs_hook=_Object,
        parse_constant=_reject_constant,
        parse_int=lambda _: 0,
        parse_float=lambda _: 0.0,
    )


def _fold_equal(key: str) -> bool:
    """Go's case folding of a JSON key against ``selected_memories``.

    U+017F (long s) folds to ``s``; no other non-ASCII rune folds to a letter of it.
    """
    if len(key) != len(_FIELD):
        return False
    return all(
        (have.lower() == want) if have.isascii() else (have == "\u017f" and want == "s")
        for have, want in zip(key, _FIELD, strict=True)
    )


def _go_string(value: str) -> str:
    # Go decodes invalid UTF-8 and unpaired surrogate escapes to U+FFFD.
    return _SURROGATES.sub("\ufffd", value)


def _field_value(value: Any) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise _TypeError
    out: list[str] = []
    failed = False
    for item in value:
        if isinstance(item, str):
            out.append(_go_string(item))
        elif item is None:
            out.append("")
        else:
            failed = True
    if failed:
        raise _TypeError
    return out


def _unmarshal(text: str) -> tuple[bool, list[str] | None]:
    """``json.Unmarshal`` into ``struct{ SelectedMemories []string }``: ``(ok, field)``."""
    try:
        value = _decode(text)
    except (ValueError, RecursionError):
        return False, None
    if value is None:
        return True, None
    if not isinstance(value, _Object):
        return False, None
    selected: list[str] | None = None
    ok = True
    for key, member in value.pairs:
        if _fold_equal(key):
            try:
                selected = _field_value(member)
            except _TypeError:
                ok = False
    return ok, selected


def parse_selected(reply: str) -> list[str] | None:
    """The ``selected_memories`` list of a model reply, as evva decodes it with Go's JSON.

    The trimmed reply is decoded; failing that, the text from its first ``{`` to
    its last ``}``. ``None`` stands for Go's nil (no list, or a failed decode);
    an empty JSON array gives ``[]``.
    """
    raw = trim_space(reply)
    ok, selected = _unmarshal(raw)
    if ok:
        return selected
    start, end = raw.find("{"), raw.rfind("}")
    if start >= 0 and end > start:
        ok, selected = _unmarshal(raw[start : end + 1])
        if ok:
            return selected
    return None


def build_query(query: str, candidates: Iterable[MemoryHeader], recent_tools: Iterable[str]) -> str:
    """The exact user message of the side query."""
    message = "Query: " + query + "\n\nAvailable memories:\n" + format_manifest(candidates)
    tools = list(recent_tools)
    if tools:
        message += "\n\nRecently used tools: " + ", ".join(tools)
    return message


def find_relevant(
    model: Model | None,
    query: str,
    directory: str,
    recent_tools: Iterable[str] = (),
    already_surfaced: Iterable[str] = (),
) -> list[MemoryHeader]:
    """The headers the model selects, newest first, at most five.

    Already-surfaced filenames are removed before the model is asked; with no
    candidate left, or no model, the model is not called. Names the model
    invents, and any model failure, yield nothing.
    """
    if model is None or not directory:
        return []
    surfaced = set(already_surfaced)
    candidates = [h for h in scan_memory_files(directory) if h.filename not in surfaced]
    if not candidates:
        return []
    try:
        reply = model(build_query(query, candidates, recent_tools), RECALL_MAX_TOKENS)
    except Exception:
        return []
    valid = {header.filename for header in candidates}
    keep = {name for name in parse_selected(reply) or () if name in valid}
    return [header for header in candidates if header.filename in keep][:RECALL_MAX_SELECTED]
