"""Per-implementation expected failures, by case id, each with a reason and the
signature of how the case fails.

The file is TOML::

    [[expected_failure]]
    case = "memdir/frontmatter/bom-is-not-frontmatter"
    reason = "our parser strips the BOM (issue #12)"
    signature = ["step 1: result"]

Strict: a listed case that passes fails the run, and so does an entry naming no case,
and a listed case that fails in another way than its signature says.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from memspec.exceptions import UsageError

__all__ = [
    "REGENERATE",
    "Expected",
    "dump_expectations",
    "load_expectations",
    "write_expectations",
]

REGENERATE = "regenerate it with memspec run --expectations FILE --write-expectations FILE"


@dataclass(frozen=True)
class Expected:
    """One entry: why the case fails, and how (None only while the file is rewritten)."""

    reason: str
    signature: tuple[str, ...] | None = None


def load_expectations(path: Path, *, rewriting: bool = False) -> dict[str, Expected]:
    """Case id -> entry. Raises UsageError naming the file on any malformation, and on an
    entry without a signature unless the run is ``rewriting`` the file from its results."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise UsageError(f"expectations file {path}: not found") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"expectations file {path}: cannot read: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"expectations file {path}: not valid TOML: {exc}") from exc
    except RecursionError:
        raise UsageError(f"expectations file {path}: nested too deeply to read") from None
    unknown = set(data) - {"expected_failure"}
    if unknown:
        raise UsageError(
            f"expectations file {path}: unknown key {sorted(unknown)[0]!r}; "
            "only [[expected_failure]] tables are allowed"
        )
    entries = data.get("expected_failure", [])
    if not isinstance(entries, list):
        raise UsageError(f"expectations file {path}: expected_failure must be an array of tables")
    found: dict[str, Expected] = {}
    for number, entry in enumerate(entries, 1):
        where = f"expectations file {path}: entry {number}"
        if not isinstance(entry, dict) or not {"case", "reason"} <= set(entry) <= _KEYS:
            raise UsageError(f"{where}: needs the keys 'case', 'reason' and 'signature'")
        case, reason = entry["case"], entry["reason"]
        if not isinstance(case, str) or not case or not isinstance(reason, str) or not reason:
            raise UsageError(f"{where}: 'case' and 'reason' must be non-empty strings")
        if case in found:
            raise UsageError(f"{where}: case {case!r} is listed twice")
        signature = entry.get("signature")
        if signature is None and not rewriting:
            raise UsageError(
                f"{where} ({case}): no signature of how the case fails; "
                + REGENERATE.replace("FILE", str(path))
            )
        if signature is not None and (
            not isinstance(signature, list)
            or not signature
            or not all(isinstance(token, str) and token for token in signature)
        ):
            raise UsageError(f"{where}: 'signature' must be a non-empty array of strings")
        found[case] = Expected(reason, None if signature is None else tuple(signature))
    return found


_KEYS = {"case", "reason", "signature"}


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


def dump_expectations(entries: Mapping[str, Expected], header: str = "") -> str:
    """The TOML text of ``entries`` (case id -> entry), sorted by case id."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    for case in sorted(entries):
        entry = entries[case]
        lines += [
            "",
            "[[expected_failure]]",
            f"case = {_toml_string(case)}",
            f"reason = {_toml_string(entry.reason or PLACEHOLDER_REASON)}",
        ]
        if entry.signature is not None:
            tokens = ", ".join(_toml_string(token) for token in entry.signature)
            lines.append(f"signature = [{tokens}]")
    return "\n".join(lines).lstrip("\n") + "\n"


def write_expectations(path: Path, entries: Mapping[str, Expected], header: str = "") -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(dump_expectations(entries, header), encoding="utf-8")
    os.replace(temporary, path)
