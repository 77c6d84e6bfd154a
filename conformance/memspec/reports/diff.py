"""``memspec diff OLD NEW``: what changed between two runs, case by case.

A *regression* is a case that fails or errors now but did not before, a case that passed
and is now listed as expected to fail or skipped, or a passing case that is gone. A *fix*
is a case that passes now and did not before. A problem the new report's footer lists (a
stale expectation entry) fails the diff as a regression does: that run failed whatever its
cases did.

Only whole runs compare: an interrupted report is refused, and so is a shard's report
unless the other report is of the same shard.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from memspec.exceptions import UsageError
from memspec.reports.merge import RunReport

__all__ = ["Diff", "diff_reports", "render_diff"]

_FAILING = frozenset({"failed", "error"})
_PASSING = frozenset({"passed", "xpassed"})


@dataclass
class Diff:
    old: RunReport
    new: RunReport
    newly_failing: list[tuple[str, str, str]] = field(default_factory=list)
    newly_passing: list[tuple[str, str, str]] = field(default_factory=list)
    other_changes: list[tuple[str, str, str]] = field(default_factory=list)
    added: list[tuple[str, str]] = field(default_factory=list)
    removed: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """The problems the new report's footer lists."""
    harness_faults: list[str] = field(default_factory=list)
    """The new run's cases that ended in a fault of memspec: never a regression, but the
    comparison does not hold for them."""

    @property
    def removed_passing(self) -> list[tuple[str, str]]:
        return [(case, outcome) for case, outcome in self.removed if outcome in _PASSING]

    @property
    def regressed(self) -> bool:
        """Whether the diff fails: a regression, or a problem or harness fault of the new
        run."""
        return bool(
            self.newly_failing or self.removed_passing or self.problems or self.harness_faults
        )


def _regresses(old: str, new: str) -> bool:
    return (new in _FAILING and old not in _FAILING) or (
        new in ("xfailed", "skipped") and old in _PASSING
    )


def _check_comparable(old: RunReport, new: RunReport, across_suites: bool) -> None:
    for run in (old, new):
        if run.interrupted:
            raise UsageError(
                f"{run.path}: an interrupted run (its footer says so): its missing cases "
                "would read as removed or added; compare whole runs"
            )
    if old.shard != new.shard:
        raise UsageError(
            f"{old.path} is {_whole_or_shard(old)}, {new.path} {_whole_or_shard(new)}: "
            "compare a shard only with the same shard, or merge the shards first "
            "(memspec merge-reports)"
        )
    if old.suite_version != new.suite_version and not across_suites:
        raise UsageError(
            f"{old.path} is of suite {old.suite_version or '?'}, {new.path} of "
            f"suite {new.suite_version or '?'}: give --across-suites to compare "
            "them anyway"
        )


def _whole_or_shard(run: RunReport) -> str:
    return f"shard {run.shard}" if run.shard else "a whole run"


def diff_reports(old: RunReport, new: RunReport, *, across_suites: bool = False) -> Diff:
    _check_comparable(old, new, across_suites)
    result = Diff(old, new, problems=new.problems, harness_faults=new.harness_faults())
    before, after = old.outcomes(), new.outcomes()
    for case in sorted(before.keys() | after.keys()):
        if case in result.harness_faults:
            continue
        if case not in after:
            result.removed.append((case, before[case]))
        elif case not in before:
            result.added.append((case, after[case]))
        elif before[case] != after[case]:
            change = (case, before[case], after[case])
            if _regresses(before[case], after[case]):
                result.newly_failing.append(change)
            elif after[case] in _PASSING and before[case] not in _PASSING:
                result.newly_passing.append(change)
            else:
                result.other_changes.append(change)
    return result


def render_diff(result: Diff, *, markdown: bool = False) -> Iterator[str]:
    messages = {str(r["id"]): str(r.get("message", "")) for r in result.new.records}

    def first_line(case: str) -> str:
        return _printable(messages.get(case, "").strip().split("\n", 1)[0])[:160]

    bullet, code = ("- ", "`") if markdown else ("  ", "")
    if markdown:
        yield f"## memspec diff: {result.old.name} → {result.new.name}"
        yield ""
    else:
        yield (
            f"memspec diff: {result.old.path} ({result.old.name}) -> {result.new.path} "
            f"({result.new.name})"
        )
    notes = [
        f"{side} report {run.path.name}: {mark}"
        + (f" ({run.nothing_ran})" if mark == "nothing ran" else "")
        for side, run in (("old", result.old), ("new", result.new))
        for mark in run.partial
    ]
    if notes:
        yield from (f"{bullet}{note}" if markdown else note for note in notes)
        if markdown:
            yield ""
    sections: list[tuple[str, list[str]]] = [
        (
            "Regressions (newly failing, or no longer run)",
            [
                f"{bullet}{code}{case}{code}: {old} -> {new}"
                + (f" — {first_line(case)}" if first_line(case) else "")
                for case, old, new in result.newly_failing
            ],
        ),
        (
            "Regressions (passing cases removed)",
            [
                f"{bullet}{code}{case}{code}: was {outcome}"
                for case, outcome in result.removed_passing
            ],
        ),
        (
            "Harness faults of the new run (memspec's, not the implementation's)",
            [
                f"{bullet}{code}{case}{code}"
                + (f" — {first_line(case)}" if first_line(case) else "")
                for case in result.harness_faults
            ],
        ),
        (
            "Problems of the new run (its footer)",
            [f"{bullet}{_printable(problem)}" for problem in result.problems],
        ),
        (
            "Newly passing",
            [
                f"{bullet}{code}{case}{code}: {old} -> {new}"
                for case, old, new in result.newly_passing
            ],
        ),
        (
            "Other changes",
            [
                f"{bullet}{code}{case}{code}: {old} -> {new}"
                for case, old, new in result.other_changes
            ],
        ),
        ("Added", [f"{bullet}{code}{case}{code}: {outcome}" for case, outcome in result.added]),
        (
            "Removed",
            [
                f"{bullet}{code}{case}{code}: was {outcome}"
                for case, outcome in result.removed
                if outcome not in _PASSING
            ],
        ),
    ]
    for title, lines in sections:
        if not lines:
            continue
        yield f"### {title} ({len(lines)})" if markdown else f"{title} ({len(lines)}):"
        if markdown:
            yield ""
        yield from lines
        if markdown:
            yield ""
    regressions = len(result.newly_failing) + len(result.removed_passing)
    problems = len(result.problems)
    faults = len(result.harness_faults)
    yield (
        f"{regressions} regression{'s' if regressions != 1 else ''}, "
        + (f"{problems} problem{'s' if problems != 1 else ''}, " if problems else "")
        + (f"{faults} harness fault{'s' if faults != 1 else ''}, " if faults else "")
        + f"{len(result.newly_passing)} newly passing, {len(result.added)} added, "
        f"{len(result.removed)} removed"
    )


def _printable(text: str) -> str:
    return "".join(char if char.isprintable() else "?" for char in text)
