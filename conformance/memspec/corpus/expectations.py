"""Per-implementation expected failures, by case id, each with a reason.

The file is TOML::

    [[expected_failure]]
    case = "memdir/frontmatter/bom-is-not-frontmatter"
    reason = "our parser strips the BOM (issue #12)"

Strict: a listed case that passes fails the run, and so does an entry naming no case.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path

from memspec.exceptions import UsageError

__all__ = ["dump_expectations", "load_expectations", "write_expectations"]


def load_expectations(path: Path) -> dict[str, str]:
    """Case id -> reason. Raises UsageError naming the file on any malformation."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise UsageError(f"expectations file {path}: not found") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"expectations file {path}: cannot read: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"expectations file {path}: not valid TOML: {exc}") from exc
    unknown = set(data) - {"expected_failure"}
    if unknown:
        raise UsageError(
            f"expectations file {path}: unknown key {sorted(unknown)[0]!r}; "
            "only [[expected_failure]] tables are allowed"
        )
    entries = data.get("expected_failure", [])
    if not isinstance(entries, list):
        raise UsageError(f"expectations file {path}: expected_failure must be an array of tables")
    found: dict[str, str] = {}
    for number, entry in enumerate(entries, 1):
        where = f"expectations file {path}: entry {number}"
        if not isinstance(entry, dict) or set(entry) != {"case", "reason"}:
            raise UsageError(f"{where}: needs exactly the keys 'case' and 'reason'")
        case, reason = entry["case"], entry["reason"]
        if not isinstance(case, str) or not case or not isinstance(reason, str) or not reason:
            raise UsageError(f"{where}: 'case' and 'reason' must be non-empty strings")
        if case in found:
            raise UsageError(f"{where}: case {case!r} is listed twice")
        found[case] = reason
    return found


PLACEHOLDER_REASON = "failing when the suite was adopted: say why, or fix it and drop this entry"


def _toml_string(text: str) -> str:
    out = ['"']
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04x}")
        elif 0xD800 <= code <= 0xDFFF:  # a lone surrogate has no TOML form
            out.append("\\ufffd")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def dump_expectations(entries: Mapping[str, str], header: str = "") -> str:
    """The TOML text of ``entries`` (case id -> reason), sorted by case id."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    for case in sorted(entries):
        lines += [
            "",
            "[[expected_failure]]",
            f"case = {_toml_string(case)}",
            f"reason = {_toml_string(entries[case] or PLACEHOLDER_REASON)}",
        ]
    return "\n".join(lines).lstrip("\n") + "\n"


def write_expectations(path: Path, entries: Mapping[str, str], header: str = "") -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(dump_expectations(entries, header), encoding="utf-8")
    os.replace(temporary, path)
