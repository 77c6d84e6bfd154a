"""Per-implementation expected failures, by case id, each with a reason and what the
case was observed to do when it failed.

The file is TOML::

    [[expected_failure]]
    case = "memdir/frontmatter/bom-is-not-frontmatter"
    reason = "our parser strips the BOM (issue #12)"
    observed = [
      { check = "step 1: result", digest = "5c3e0a1f9b2d", value = "{\"result\": …}" },
      { check = "step 1: tree ${ROOT}/m/a.md mode", digest = "0be4c8d2a671", value = "…" },
      { check = "step 1: race", value = "escaped" },
    ]

Each item of ``observed`` is one failed check (``memspec.corpus.observations``): the
check, the digest of what it observed and that value abridged, or, for a check whose
observation is not deterministic, the kind of failure alone.

Strict: a listed case that passes fails the run, and so does an entry naming no case,
and a listed case whose failed checks or observed values differ from its entry's; of
the checks of an interleaved step, any non-empty part of those listed may fail.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memspec.corpus.observations import DIGEST, Observation
from memspec.exceptions import UsageError

__all__ = [
    "INTERLEAVED",
    "REGENERATE",
    "Expected",
    "dump_expectations",
    "load_expectations",
]

REGENERATE = "regenerate it with memspec run --expectations FILE --write-expectations FILE"


@dataclass(frozen=True)
class Expected:
    """One entry: why the case fails, and what its failed checks observed (None only
    while the file is rewritten)."""

    reason: str
    signature: tuple[Observation, ...] | None = None

    @property
    def tokens(self) -> tuple[str, ...] | None:
        """The signature as a report lists it."""
        return None if self.signature is None else tuple(o.token for o in self.signature)

    def matches(self, signature: tuple[str, ...]) -> bool:
        """Whether a run that failed with ``signature`` failed as the entry says: the same
        checks observing the same values, but for the checks of interleaved steps, of
        which any the entry lists may fail (beside each other, which of a lost update's
        traces shows, in the replies or in the tree, is down to timing)."""
        listed = self.tokens
        if listed is None:
            return True
        if listed == signature:
            return True
        if _exact(listed) != _exact(signature):
            return False
        interleaved = set(_interleaved(signature))
        return bool(interleaved) and interleaved <= set(_interleaved(listed))


INTERLEAVED = "interleaved steps: "
"""How the check of a step beside other writers or readers begins."""


def _interleaved(tokens: tuple[str, ...]) -> list[str]:
    return [token for token in tokens if token.startswith(INTERLEAVED)]


def _exact(tokens: tuple[str, ...]) -> list[str]:
    return [token for token in tokens if not token.startswith(INTERLEAVED)]


def load_expectations(path: Path, *, rewriting: bool = False) -> dict[str, Expected]:
    """Case id -> entry. Raises UsageError naming the file on any malformation, on an
    entry in the older form (``signature``, the names of the failed checks alone), and
    on an entry without observations unless the run is ``rewriting`` the file from its
    results."""
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
    regenerate = REGENERATE.replace("FILE", str(path))
    found: dict[str, Expected] = {}
    for number, entry in enumerate(entries, 1):
        where = f"expectations file {path}: entry {number}"
        if isinstance(entry, dict) and "signature" in entry and not rewriting:
            raise UsageError(
                f"{where}: the older form (a signature of check names, without what was "
                f"observed); {regenerate}"
            )
        allowed = _KEYS | ({"signature"} if rewriting else set())
        if not isinstance(entry, dict) or not {"case", "reason"} <= set(entry) <= allowed:
            raise UsageError(f"{where}: needs the keys 'case', 'reason' and 'observed'")
        case, reason = entry["case"], entry["reason"]
        if not isinstance(case, str) or not case or not isinstance(reason, str) or not reason:
            raise UsageError(f"{where}: 'case' and 'reason' must be non-empty strings")
        if case in found:
            raise UsageError(f"{where}: case {case!r} is listed twice")
        observed = entry.get("observed")
        if observed is None and not rewriting:
            raise UsageError(f"{where} ({case}): no record of how the case fails; {regenerate}")
        found[case] = Expected(
            reason, None if observed is None else _observations(observed, f"{where} ({case})")
        )
    return found


_KEYS = {"case", "reason", "observed"}
_ITEM_KEYS = {"check", "digest", "value"}


def _observations(items: Any, where: str) -> tuple[Observation, ...]:
    if not isinstance(items, list) or not items:
        raise UsageError(f"{where}: 'observed' must be a non-empty array of tables")
    found = []
    for item in items:
        if not isinstance(item, dict) or not {"check"} <= set(item) <= _ITEM_KEYS:
            raise UsageError(
                f"{where}: each item of 'observed' is a table of 'check' with 'digest' and "
                "'value', or with 'value' alone"
            )
        check, digest, value = item["check"], item.get("digest", ""), item.get("value", "")
        if not all(isinstance(text, str) for text in (check, digest, value)) or not check:
            raise UsageError(f"{where}: 'check', 'digest' and 'value' must be strings")
        if digest and not DIGEST.fullmatch(digest):
            raise UsageError(f"{where}: digest {digest!r} is not 12 lower-case hex digits")
        found.append(Observation(check, digest, value))
    return tuple(found)


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
            lines.append("observed = [")
            lines += [f"  {_item(observation)}," for observation in entry.signature]
            lines.append("]")
    return "\n".join(lines).lstrip("\n") + "\n"


def _item(observation: Observation) -> str:
    parts = [f"check = {_toml_string(observation.check)}"]
    if observation.digest:
        parts.append(f"digest = {_toml_string(observation.digest)}")
    if observation.value:
        parts.append(f"value = {_toml_string(observation.value)}")
    return "{ " + ", ".join(parts) + " }"
