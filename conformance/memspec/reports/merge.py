"""Reading reports back as whole runs, and joining the reports of a sharded run.

A report is complete only when it ends with its footer, and the footer's counts are those
of its records: anything else is a run cut short or a file cut, and every consumer
(``diff``, ``merge-reports``, ``badge``, ``matrix``) refuses it. A complete report may
still be partial, and says so: an interrupted run, one shard of a run, or a run in which
no case ran (``RunReport.partial``).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memspec.corpus.profiles import PROTOCOL
from memspec.exceptions import UsageError
from memspec.reports.report import OUTCOMES, CaseRecord, nothing_ran

__all__ = ["RunReport", "load_run", "merge_runs"]


@dataclass
class RunReport:
    """One report file: its header, its case records (raw JSON objects) and its footer."""

    path: Path
    header: dict[str, Any]
    records: list[dict[str, Any]] = field(default_factory=list)
    footer: dict[str, Any] = field(default_factory=dict)

    @property
    def implementation(self) -> dict[str, Any]:
        value = self.header.get("implementation")
        return value if isinstance(value, dict) else {}

    @property
    def run_info(self) -> dict[str, Any]:
        value = self.header.get("run_info")
        return value if isinstance(value, dict) else {}

    @property
    def suite_version(self) -> str:
        return str(self.header.get("suite_version", ""))

    @property
    def title(self) -> str:
        implementation = self.implementation
        return (
            " ".join(str(implementation.get(key, "")) for key in ("name", "version")).strip()
            or "unknown"
        )

    @property
    def label(self) -> str:
        return str(self.header.get("label", ""))

    @property
    def name(self) -> str:
        """The title and, when the run has one, its label: ``port 1.2 · pr-42``."""
        return f"{self.title} · {self.label}" if self.label else self.title

    @property
    def broken(self) -> str:
        return str(self.footer.get("adapter_broken", ""))

    @property
    def interrupted(self) -> bool:
        return bool(self.footer.get("interrupted"))

    @property
    def shard(self) -> str:
        """``K/N`` for the report of one shard, empty for a whole run."""
        value = self.run_info.get("shard")
        return value if isinstance(value, str) else ""

    @property
    def nothing_ran(self) -> str:
        return str(self.footer.get("nothing_ran", ""))

    @property
    def partial(self) -> list[str]:
        """What makes this report less than a whole run, in short words."""
        marks = [f"shard {self.shard}"] if self.shard else []
        if self.interrupted:
            marks.append("interrupted")
        if self.nothing_ran:
            marks.append("nothing ran")
        return marks

    def claimed_profiles(self) -> list[str]:
        """The profiles the adapter claimed: from the header's handshake, or, in a report
        without one, every profile with a case that was not skipped as not claimed."""
        claims = self.header.get("claims")
        if isinstance(claims, dict) and isinstance(claims.get("profiles"), list):
            return sorted(str(profile) for profile in claims["profiles"])
        return sorted(
            {
                str(r.get("profile", ""))
                for r in self.records
                if not str(r.get("message", "")).startswith("not claimed: profile")
            }
            - {PROTOCOL}
        )

    def unclaimed_profiles(self) -> list[str]:
        """The suite's profiles the adapter did not claim (the protocol checks are no
        profile an adapter claims)."""
        known = self.header.get("suite_profiles")
        suite = (
            {str(p) for p in known}
            if isinstance(known, list)
            else {str(r.get("profile", "")) for r in self.records}
        )
        return sorted(suite - set(self.claimed_profiles()) - {PROTOCOL, ""})

    def outcomes(self) -> dict[str, str]:
        return {str(record["id"]): str(record["outcome"]) for record in self.records}

    def counts(self) -> dict[str, int]:
        tally = Counter(str(record["outcome"]) for record in self.records)
        return {outcome: tally.get(outcome, 0) for outcome in OUTCOMES}

    def lines(self) -> list[str]:
        footer = {**self.footer, "type": "footer", "counts": self.counts()}
        return [
            json.dumps(line, ensure_ascii=True) for line in (self.header, *self.records, footer)
        ]

    def write(self, path: Path) -> None:
        temporary = path.with_name(f".{path.name}.tmp")
        try:
            temporary.write_text("".join(line + "\n" for line in self.lines()), encoding="ascii")
            os.replace(temporary, path)
        except OSError as exc:
            raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from exc


def load_run(path: Path) -> RunReport:
    """Read a report; anything that is not one is a usage error naming the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such report") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a directory, not a report") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read: {exc}") from exc
    header: dict[str, Any] | None = None
    run: RunReport | None = None
    seen: set[str] = set()
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            if header is not None and number == len(lines):
                raise UsageError(
                    f"{path}: incomplete: line {number} is cut off and there is no footer "
                    "(a run cut short, or a file cut)"
                ) from None
            raise UsageError(f"{path}: line {number} is not JSON; not a memspec report") from None
        kind = data.get("type") if isinstance(data, dict) else None
        if header is None:
            if kind != "header" or not isinstance(data.get("implementation"), dict):
                raise UsageError(f"{path}: not a memspec report (line 1 is no header)")
            header = data
            run = RunReport(path, header)
            continue
        assert run is not None
        if run.footer:
            raise UsageError(f"{path}: line {number} follows the footer; not one report")
        if kind == "case":
            if not isinstance(data.get("id"), str) or data.get("outcome") not in OUTCOMES:
                raise UsageError(
                    f"{path}: line {number}: a case record without an id or a known outcome"
                )
            if data["id"] in seen:
                raise UsageError(f"{path}: line {number}: case {data['id']!r} appears twice")
            seen.add(data["id"])
            run.records.append(data)
        elif kind == "footer":
            run.footer = data
        else:
            raise UsageError(f"{path}: line {number}: unknown line type {kind!r}")
    if run is None:
        raise UsageError(f"{path}: empty; not a memspec report")
    _check_complete(run)
    return run


def _check_complete(run: RunReport) -> None:
    """A report ends with a footer whose counts are its records'."""
    if not run.footer:
        raise UsageError(
            f"{run.path}: incomplete: no footer after {len(run.records)} case records "
            "(a run cut short, or a file cut); memspec reads whole reports only"
        )
    counts = run.footer.get("counts")
    held = {outcome: count for outcome, count in run.counts().items() if count}
    if not isinstance(counts, dict) or {k: v for k, v in counts.items() if v} != held:
        said = (
            sum(v for v in counts.values() if isinstance(v, int))
            if isinstance(counts, dict)
            else "?"
        )
        raise UsageError(
            f"{run.path}: incomplete: the footer counts {said} cases, the report holds "
            f"{len(run.records)}"
        )


def _identity(run: RunReport) -> dict[str, Any]:
    return {
        "suite version": run.suite_version,
        "protocol version": run.header.get("protocol_version"),
        "implementation": run.implementation,
        "claims": run.header.get("claims"),
        "adapter": run.run_info.get("adapter"),
        "selection": run.run_info.get("selection"),
    }


def merge_runs(runs: Sequence[RunReport]) -> RunReport:
    """One report holding every shard's cases: all N shards of one run (one suite
    version, implementation, adapter, selection and shard count), each complete."""
    for run in runs:
        if not run.shard:
            raise UsageError(
                f"{run.path}: not a shard's report (run without --shard); merge-reports "
                "joins the N shards of one run"
            )
        if run.interrupted:
            raise UsageError(
                f"{run.path}: shard {run.shard} was interrupted (its footer says so); "
                "run that shard again"
            )
    first = runs[0]
    for run in runs[1:]:
        mine, theirs = _identity(first), _identity(run)
        for key in mine:
            if mine[key] != theirs[key]:
                raise UsageError(
                    f"{run.path}: {key} {_show(theirs[key])} differs from "
                    f"{first.path}'s {_show(mine[key])}; these are not shards "
                    "of one run"
                )
    owner: dict[str, Path] = {}
    for run in runs:
        for record in run.records:
            case_id = record["id"]
            if case_id in owner:
                raise UsageError(
                    f"{run.path}: case {case_id!r} is also in {owner[case_id]}; "
                    "shards must not overlap"
                )
            owner[case_id] = run.path
    _check_shards(runs)
    info = {key: value for key, value in first.run_info.items() if key != "shard"}
    info["merged_from"] = [run.shard for run in runs]
    problems: list[str] = []
    for run in runs:
        for problem in run.footer.get("problems", []):
            if problem not in problems:
                problems.append(problem)
    records = sorted(
        (record for run in runs for record in run.records), key=lambda record: str(record["id"])
    )
    footer: dict[str, Any] = {"type": "footer", "interrupted": False}
    broken = next((r.broken for r in runs if r.broken), "")
    idle = "" if broken else nothing_ran(_outcomes_only(records))
    if idle:
        footer["nothing_ran"] = idle
    if problems:
        footer["problems"] = problems
    if broken:
        footer["adapter_broken"] = broken
    return RunReport(Path("merged"), {**first.header, "run_info": info}, records, footer)


def _check_shards(runs: Sequence[RunReport]) -> None:
    """Shard reports must be every shard of one split, each once."""
    parsed: dict[int, Path] = {}
    counts = set()
    for run in runs:
        try:
            index, count = (int(part) for part in run.shard.split("/", 1))
        except ValueError:
            raise UsageError(f"{run.path}: shard {run.shard!r} is not K/N") from None
        counts.add(count)
        if index in parsed:
            raise UsageError(f"{run.path}: shard {run.shard} is also {parsed[index]}")
        parsed[index] = run.path
    if len(counts) != 1:
        raise UsageError(
            "the reports are shards of different splits: "
            + ", ".join(sorted({run.shard for run in runs}))
        )
    count = counts.pop()
    missing = [f"{index}/{count}" for index in range(1, count + 1) if index not in parsed]
    if missing:
        raise UsageError(
            f"shard{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
            "missing: a merged report would lack their cases"
        )


def _outcomes_only(records: Sequence[dict[str, Any]]) -> list[CaseRecord]:
    """Records as far as outcomes and messages go (what ``nothing_ran`` reads)."""
    return [
        CaseRecord(
            id=str(r["id"]),
            profile=str(r.get("profile", "")),
            requirements=(),
            outcome=str(r["outcome"]),
            message=str(r.get("message", "")),
            duration_s=0.0,
        )
        for r in records
    ]


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, sort_keys=True)[:200]
