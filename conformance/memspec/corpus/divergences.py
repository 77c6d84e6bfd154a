"""The entries of spec/divergences.md, the cases each lists, and the entries a case names.

A profile's section (``## `<profile>` ...``) opens with a table whose first column names
its rows, a number (``5``) or a word (``lost-update``); entry ``<profile>#<row>`` is the
row's ``###`` section: the one whose heading starts with the row's word in backticks,
or, in a table of numbered rows, the n-th section. The cases an entry lists are the case
ids in its ``**Cases:**`` and ``**Properties that reach it:**`` items. A row whose second
column says ``drift`` records a port's departure from the seed (the spec pins the seed);
every other row is a divergence of the spec.

A fixture case names the entries it shows at the start of each ``|``-separated part of
its ``divergence`` field: ``factstore#5: <why>``, or the row alone (``lost-update:
<why>``); a suite test names them in ``suite_case(..., divergences=(...))``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "PAGE",
    "DivergencePage",
    "Entry",
    "entries_named",
    "read_divergence_page",
]

PAGE = "divergences.md"

_PROFILE = re.compile(r"^## `([a-z][a-z0-9]*)`")
_SECTION = re.compile(r"^### (.*)")
_LEADING_ROW = re.compile(r"^`([a-z0-9][a-z0-9-]*)`")
_TABLE_ROW = re.compile(r"^\|\s*`?([a-z0-9][a-z0-9-]*)`?\s*\|([^|]*)\|")
_LISTING = re.compile(r"^- \*\*(?:Cases|Properties that reach it):\*\*(.*)")
_CASE_ID = re.compile(r"\b([a-z0-9]+(?:/[a-z0-9][a-z0-9-]*){2,})\b")
_LABEL = re.compile(r"^(?:(?P<profile>[a-z][a-z0-9]*)#)?(?P<row>[a-z0-9][a-z0-9-]*)$")


@dataclass
class Entry:
    """One row of a profile's table and the case ids its section lists."""

    name: str
    kind: str = "divergence"
    """``drift`` or ``divergence``."""
    cases: set[str] = field(default_factory=set)


@dataclass
class DivergencePage:
    entries: dict[str, Entry]
    problems: list[str]

    def listing(self, case_id: str) -> set[str]:
        """The entries that list ``case_id``."""
        return {name for name, entry in self.entries.items() if case_id in entry.cases}


@dataclass
class _Profile:
    name: str
    rows: list[str] = field(default_factory=list)
    kinds: dict[str, str] = field(default_factory=dict)
    sections: list[tuple[str, list[str]]] = field(default_factory=list)
    table_done: bool = False


def _read_profiles(lines: list[str]) -> list[_Profile]:
    profiles: list[_Profile] = []
    listing: list[str] | None = None
    for line in lines:
        heading = _PROFILE.match(line)
        if heading:
            profiles.append(_Profile(heading.group(1)))
            listing = None
            continue
        if not profiles:
            continue
        current = profiles[-1]
        section = _SECTION.match(line)
        if section:
            current.table_done = True
            current.sections.append((section.group(1), []))
            listing = None
            continue
        if not current.sections:
            row = _TABLE_ROW.match(line)
            if row and row.group(1) not in ("#", "row"):
                if not current.table_done:
                    current.rows.append(row.group(1))
                    drift = row.group(2).strip() == "drift"
                    current.kinds[row.group(1)] = "drift" if drift else "divergence"
            elif current.rows and not line.startswith("|"):
                current.table_done = True
            continue
        item = _LISTING.match(line)
        if item:
            listing = current.sections[-1][1]
            listing.append(item.group(1))
        elif listing is not None and line.startswith("  ") and line.strip():
            listing.append(line)
        else:
            listing = None
    return profiles


def read_divergence_page(page: Path) -> DivergencePage:
    """The page's entries with their listed cases, and what keeps rows and sections apart."""
    profiles = _read_profiles(page.read_text(encoding="utf-8").splitlines())
    entries: dict[str, Entry] = {}
    problems: list[str] = []
    where = f"spec/{PAGE}"
    for profile in profiles:
        numbered = bool(profile.rows) and all(row.isdigit() for row in profile.rows)
        if numbered and len(profile.sections) != len(profile.rows):
            problems.append(
                f"{where}: {profile.name} has {len(profile.rows)} rows but "
                f"{len(profile.sections)} sections"
            )
        for row in profile.rows:
            name = f"{profile.name}#{row}"
            entries[name] = Entry(name, profile.kinds[row])
        for index, (heading, listed) in enumerate(profile.sections):
            if numbered:
                row = profile.rows[index] if index < len(profile.rows) else ""
            else:
                leading = _LEADING_ROW.match(heading)
                row = leading.group(1) if leading else ""
            name = f"{profile.name}#{row}"
            if name not in entries:
                if listed:
                    problems.append(f"{where}: section {heading!r} is no row of {profile.name}")
                continue
            for text in listed:
                entries[name].cases.update(_CASE_ID.findall(text))
    return DivergencePage(entries, problems)


def entries_named(divergence: str, profile: str) -> tuple[list[str], list[str]]:
    """The entries a case's ``divergence`` field names, and its parts that name none.

    Each ``|``-separated part starts with ``<profile>#<row>:`` or ``<row>:``."""
    names: list[str] = []
    unnamed: list[str] = []
    for part in divergence.split(" | "):
        label, colon, _ = part.partition(": ")
        match = _LABEL.match(label.strip()) if colon else None
        if match is None or match.group("profile") not in (None, profile):
            unnamed.append(part)
        else:
            names.append(f"{profile}#{match.group('row')}")
    return names, unnamed
