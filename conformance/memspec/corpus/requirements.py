"""Requirements as the spec states them: ``- **MEMDIR-FM-004** (MUST): text``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from memspec.corpus.data import spec_dir

__all__ = ["Requirement", "load_requirements", "parse_requirements"]

_ITEM = re.compile(
    r"^- \*\*(?P<id>[A-Z]+-[A-Z]+-\d{3})\*\* \((?P<level>MUST NOT|MUST|SHOULD NOT|SHOULD|MAY)\):"
    r"\s*(?P<text>.*)$"
)
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")


@dataclass(frozen=True)
class Requirement:
    id: str
    level: str
    text: str
    page: str
    section: str
    context: str = ""
    """The prose of the requirement's section that precedes it (what "above" points to)."""

    @property
    def profile(self) -> str:
        return self.id.split("-", 1)[0].lower()

    @property
    def mandatory(self) -> bool:
        return self.level.startswith("MUST")


def parse_requirements(markdown: str, page: str) -> list[Requirement]:
    """Every requirement item of one spec page, with continuation lines joined."""
    found: list[Requirement] = []
    section = ""
    prose: list[str] = []
    current: dict[str, str] | None = None

    def close() -> None:
        nonlocal current
        if current is not None:
            context = "\n".join(prose).strip()
            found.append(Requirement(page=page, section=section, context=context, **current))
            current = None

    fenced = False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            close()
            fenced = not fenced
            prose.append(line)
            continue
        if fenced:
            prose.append(line)
            continue
        heading = _HEADING.match(line)
        item = _ITEM.match(line)
        if item:
            close()
            current = {"id": item["id"], "level": item["level"], "text": item["text"].strip()}
        elif current is not None and line.startswith("  ") and line.strip():
            current["text"] += " " + line.strip()
        else:
            close()
            if heading:
                section = heading.group(2).strip()
                prose = []
            else:
                prose.append(line)
    close()
    return found


def load_requirements(root: Path | None = None) -> list[Requirement]:
    base = root or spec_dir()
    found: list[Requirement] = []
    for page in sorted(base.glob("*.md")):
        found.extend(parse_requirements(page.read_text(encoding="utf-8"), page.name))
    return found
