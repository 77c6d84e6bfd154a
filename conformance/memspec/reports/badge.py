"""``memspec badge``: shields.io endpoint JSON, one file per profile and one overall.

``message`` is ``passed/total`` where *total* counts the cases that ran (skipped cases
are left out), followed on the overall badge by the profiles the implementation does not
claim. A profile it does not claim says ``not claimed``. A report that is not a whole run
says so first (``shard 1/3: 108/108``, ``interrupted: 49/49``, ``nothing ran``) and is
grey whatever its pass rate. A run whose footer lists problems (a stale expectation entry)
failed whatever its cases did: every badge says how many (``108/108, problems: 1``) and is
red, unless it is grey already.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memspec.exceptions import UsageError
from memspec.reports.merge import RunReport, is_harness_fault
from memspec.reports.report import HARNESS_FAULT
from memspec.reports.written import write_file

__all__ = ["badge", "badges", "colour", "write_badges"]

# Pass rate (per cent) from which each colour applies, best first.
_COLOURS = (
    (100.0, "brightgreen"),
    (90.0, "green"),
    (75.0, "yellowgreen"),
    (50.0, "yellow"),
    (25.0, "orange"),
    (0.0, "red"),
)


_HARNESS_FAULT = HARNESS_FAULT[0]
"""The tally's name for a case that ended in a fault of memspec itself."""
_NOT_COUNTED = frozenset({"skipped", _HARNESS_FAULT})
"""Outcomes the pass rate leaves out: a skipped case did not run, and a fault of the
harness is never counted against the implementation."""


def colour(passed: int, total: int) -> str:
    if total == 0:
        return "lightgrey"
    rate = 100.0 * passed / total
    return next(name for floor, name in _COLOURS if rate >= floor)


def badge(
    label: str,
    tally: Counter[str],
    *,
    partial: Sequence[str] = (),
    unclaimed: Sequence[str] = (),
    problems: int = 0,
) -> dict[str, Any]:
    """One endpoint document. ``partial`` marks a report that is not a whole run (it leads
    the message, and the colour is grey whatever the rate); ``unclaimed`` names the
    profiles the implementation does not claim, which the count leaves out; ``problems``
    counts those the run's footer lists (the colour is red unless grey)."""
    total = sum(count for outcome, count in tally.items() if outcome not in _NOT_COUNTED)
    passed = tally["passed"]
    message = _with_problems(f"{passed}/{total}" if total else "none ran", problems)
    if tally[_HARNESS_FAULT]:
        message += f", harness faults: {tally[_HARNESS_FAULT]}"
    if unclaimed:
        message += f", not claimed: {', '.join(unclaimed)}"
    marks = [mark for mark in partial if mark != "nothing ran"]
    if marks:
        message = f"{', '.join(marks)}: {message}"
    return {
        "schemaVersion": 1,
        "label": label,
        "message": message,
        "color": _badge_colour(passed, total, partial=bool(partial), problems=problems),
    }


def _badge_colour(passed: int, total: int, *, partial: bool, problems: int) -> str:
    """Grey for a report that is not a whole run, red for a run with problems (it failed),
    else the pass rate's colour."""
    if partial:
        return "lightgrey"
    if problems:
        return "red"
    return colour(passed, total)


def _with_problems(message: str, problems: int) -> str:
    return f"{message}, problems: {problems}" if problems else message


def _fixed(label: str, message: str, color: str) -> dict[str, Any]:
    return {"schemaVersion": 1, "label": label, "message": message, "color": color}


def badges(run: RunReport) -> dict[str, dict[str, Any]]:
    """Every badge of a report by file name: overall, and one per profile of the suite."""
    by_profile: dict[str, Counter[str]] = {}
    overall: Counter[str] = Counter()
    for record in run.records:
        outcome = _HARNESS_FAULT if is_harness_fault(record) else str(record["outcome"])
        by_profile.setdefault(str(record.get("profile", "")), Counter())[outcome] += 1
        overall[outcome] += 1
    unclaimed = run.unclaimed_profiles()
    problems = len(run.problems)
    if run.broken:
        documents = {"memspec.json": _fixed("memspec", "adapter broken", "red")}
    elif run.nothing_ran and not run.interrupted:
        message = _with_problems("nothing ran", problems)
        documents = {"memspec.json": _fixed("memspec", message, "lightgrey")}
    else:
        documents = {
            "memspec.json": badge(
                "memspec", overall, partial=run.partial, unclaimed=unclaimed, problems=problems
            )
        }
    for profile in sorted(set(by_profile) | set(unclaimed)):
        label = f"memspec {profile}"
        documents[f"memspec-{profile}.json"] = (
            _fixed(label, "not claimed", "lightgrey")
            if profile in unclaimed
            else badge(label, by_profile[profile], partial=run.partial, problems=problems)
        )
    return documents


def write_badges(run: RunReport, directory: Path) -> list[Path]:
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"-o {directory}: exists and is not a directory")
    documents = badges(run)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        written = []
        for name, data in documents.items():
            path = directory / name
            write_file(path, json.dumps(data) + "\n", "utf-8")
            written.append(path)
    except OSError as exc:
        raise UsageError(f"-o {directory}: {exc.strerror or exc}") from exc
    return written
