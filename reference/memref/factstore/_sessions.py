"""session.ScanCWDs: the working directories named by saved session headers."""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field

from memref._time import parse_rfc3339
from memref.factstore._files import ReadError, list_dir, read_regular
from memref.factstore._gojson import _replace_invalid

__all__ = ["ScanResult", "scan_cwds"]

_STOP = ("entries", "messages")
_DECODER = json.JSONDecoder()
_WS = " \t\n\r"


@dataclass
class ScanResult:
    cwds: list[str] = field(default_factory=list)
    unreadable: int = 0
    no_cwd: int = 0


class _Bad(Exception):
    pass


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _header(text: str) -> dict[str, object]:
    """The top-level keys before ``entries``/``messages``; raises _Bad on bad JSON."""
    found: dict[str, object] = {}
    i = _skip(text, 0)
    if i >= len(text) or text[i] != "{":
        raise _Bad
    i = _skip(text, i + 1)
    if i < len(text) and text[i] == "}":
        return found
    while True:
        try:
            key, i = _DECODER.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            raise _Bad from exc
        if not isinstance(key, str):
            raise _Bad
        i = _skip(text, i)
        if i >= len(text) or text[i] != ":":
            raise _Bad
        if key in _STOP:
            return found
        i = _skip(text, i + 1)
        try:
            value, i = _DECODER.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            raise _Bad from exc
        found[key] = value
        i = _skip(text, i)
        if i < len(text) and text[i] == ",":
            i = _skip(text, i + 1)
            continue
        if i < len(text) and text[i] == "}":
            return found
        raise _Bad


def _session(data: bytes) -> tuple[int, str]:
    """(updated ns, cwd) of one session file; raises _Bad when it is unreadable."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = _replace_invalid(data)
    header = _header(text)
    session_id = header.get("id")
    if not isinstance(session_id, str) or session_id == "":
        raise _Bad
    updated = header.get("updated")
    when = 0
    if updated is not None:
        if not isinstance(updated, str):
            raise _Bad
        try:
            when = parse_rfc3339(updated)
        except ValueError as exc:
            raise _Bad from exc
    metadata = header.get("metadata")
    cwd = ""
    if metadata is not None:
        if not isinstance(metadata, dict):
            raise _Bad
        value = metadata.get("cwd")
        cwd = value if isinstance(value, str) else ""
    return when, cwd


def scan_cwds(sessions_dir: str) -> ScanResult:
    """Distinct cwds, newest first, with the unreadable and cwd-less counts. Sessions are
    read in directory order (names in byte order), and equal times keep that order."""
    result = ScanResult()
    sessions: list[tuple[int, str]] = []
    for scope, mode in sorted(list_dir(sessions_dir), key=lambda e: os.fsencode(e[0])):
        directory = os.path.join(sessions_dir, scope)
        if not stat.S_ISDIR(mode):
            continue
        for filename, file_mode in sorted(list_dir(directory), key=lambda e: os.fsencode(e[0])):
            if not filename.endswith(".json"):
                continue
            path = os.path.join(directory, filename)
            if stat.S_ISLNK(file_mode):
                try:
                    file_mode = os.stat(path).st_mode
                except OSError:
                    continue
            if not stat.S_ISREG(file_mode):
                continue
            try:
                when, cwd = _session(read_regular(path))
            except (_Bad, ReadError, RecursionError):
                result.unreadable += 1
                continue
            if cwd == "":
                result.no_cwd += 1
                continue
            sessions.append((when, cwd))
    newest_first = sorted(sessions, key=lambda session: -session[0])
    result.cwds = list(dict.fromkeys(cwd for _, cwd in newest_first))
    return result
