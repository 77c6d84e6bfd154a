"""Per-implementation expected failures, by case id, each with a reason.

The file is TOML::

    [[expected_failure]]
    case = "memdir/frontmatter/bom-is-not-frontmatter"
    reason = "our parser strips the BOM (issue #12)"

Strict: a listed case that passes fails the run, and so does an entry naming no case.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from memspec.exceptions import UsageError

__all__ = ["load_expectations"]


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
        raise UsageError(f"expectations file {path}: unknown key {sorted(unknown)[0]!r}; "
                         "only [[expected_failure]] tables are allowed")
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
