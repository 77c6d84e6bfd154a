"""``memspec badge``: shields.io endpoint JSON, one file per profile and one overall.

``message`` is ``passed/total`` where *total* counts the cases that ran (skipped cases,
such as those of a profile the adapter does not claim, are left out). A profile with no
case run says ``not claimed``.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

from memspec._merge import RunReport
from memspec.exceptions import UsageError

__all__ = ["badge", "colour", "write_badges"]

# Pass rate (per cent) from which each colour applies, best first.
_COLOURS = (
    (100.0, "brightgreen"),
    (90.0, "green"),
    (75.0, "yellowgreen"),
    (50.0, "yellow"),
    (25.0, "orange"),
    (0.0, "red"),
)


def colour(passed: int, total: int) -> str:
    if total == 0:
        return "lightgrey"
    rate = 100.0 * passed / total
    return next(name for floor, name in _COLOURS if rate >= floor)


def badge(label: str, tally: Counter[str]) -> dict[str, Any]:
    total = sum(count for outcome, count in tally.items() if outcome != "skipped")
    passed = tally["passed"]
    return {
        "schemaVersion": 1,
        "label": label,
        "message": f"{passed}/{total}" if total else "not claimed",
        "color": colour(passed, total),
    }


def write_badges(run: RunReport, directory: Path) -> list[Path]:
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"-o {directory}: exists and is not a directory")
    by_profile: dict[str, Counter[str]] = {}
    overall: Counter[str] = Counter()
    for record in run.records:
        outcome = str(record["outcome"])
        by_profile.setdefault(str(record.get("profile", "")), Counter())[outcome] += 1
        overall[outcome] += 1
    badges = {"memspec.json": badge("memspec", overall)}
    if run.broken:
        badges["memspec.json"] = {
            "schemaVersion": 1,
            "label": "memspec",
            "message": "adapter broken",
            "color": "red",
        }
    for profile, tally in sorted(by_profile.items()):
        badges[f"memspec-{profile}.json"] = badge(f"memspec {profile}", tally)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"-o {directory}: {exc.strerror or exc}") from exc
    written = []
    for name, data in badges.items():
        path = directory / name
        temporary = path.with_name(f".{name}.tmp")
        temporary.write_text(json.dumps(data) + "\n", encoding="utf-8")
        os.replace(temporary, path)
        written.append(path)
    return written
