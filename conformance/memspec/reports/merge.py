"""Reading reports back as whole runs, and joining the reports of a sharded run.

A report is complete only when it ends with its footer, and the footer's counts are those
of its records: anything else is a run cut short or a file cut, and every consumer
(``diff``, ``merge-reports``, ``badge``, ``matrix``) refuses it. A complete report may
still be partial, and says so: an interrupted run, one shard of a run, or a run in which
no case ran (``RunReport.partial``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memspec.corpus.compare import nested_deeper_than
from memspec.corpus.profiles import PROTOCOL
from memspec.exceptions import UsageError
from memspec.reports.report import HARNESS_FAULT, OUTCOMES, CaseRecord, nothing_ran
from memspec.reports.written import write_file

__all__ = ["RunReport", "is_harness_fault", "load_run", "merge_runs"]


def is_harness_fault(record: dict[str, Any]) -> bool:
    """Whether a case record is an error of the harness, not of the implementation."""
    signature = record.get("signature")
    return record.get("outcome") == "error" and tuple(signature or ()) == HARNESS_FAULT


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
    def problems(self) -> list[str]:
        """What went wrong with the run beside its cases (a stale expectation entry)."""
        value = self.footer.get("problems")
        return [str(problem) for problem in value] if isinstance(value, list) else []

    @property
    def settings(self) -> dict[str, Any]:
        """What the run was asked for (the header's ``settings``). A report written before
        the header kept them holds its selection alone, in ``run_info``."""
        value = self.header.get("settings")
        if isinstance(value, dict):
            return value
        return {"selection": self.run_info.get("selection") or {}}

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

    def harness_faults(self) -> list[str]:
        """The cases that ended in a fault of memspec itself, which no consumer counts
        against the implementation."""
        return [str(record["id"]) for record in self.records if is_harness_fault(record)]

    def counts(self) -> dict[str, int]:
        tally = Counter(str(record["outcome"]) for record in self.records)
        return {outcome: tally.get(outcome, 0) for outcome in OUTCOMES}

    def lines(self) -> list[str]:
        footer = {**self.footer, "type": "footer", "counts": self.counts()}
        return [
            json.dumps(line, ensure_ascii=True) for line in (self.header, *self.records, footer)
        ]

    def write(self, path: Path) -> None:
        try:
            write_file(path, "".join(line + "\n" for line in self.lines()), "ascii")
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
        except RecursionError:
            raise UsageError(f"{path}: line {number} is nested too deeply to read") from None
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
        if nested_deeper_than(data, _DEEPEST):
            raise UsageError(f"{path}: line {number} nests more than {_DEEPEST} levels deep")
        if kind == "case":
            if not isinstance(data.get("id"), str) or data.get("outcome") not in OUTCOMES:
                raise UsageError(
                    f"{path}: line {number}: a case record without an id or a known outcome"
                )
            wrong = _mistyped(data)
            if wrong:
                raise UsageError(f"{path}: line {number}: a case record whose {wrong}")
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


_DEEPEST = 32
"""How deeply a line of a report may nest: a record nests four levels at most."""
_TEXTS = ("message", "profile", "kind", "description")
_TEXT_LISTS = ("requirements", "ops", "signature")


def _mistyped(record: dict[str, Any]) -> str:
    """What of a case record has a type no report gives it (empty when none does)."""
    for key in _TEXTS:
        if key in record and not isinstance(record[key], str):
            return f"{key!r} is not text"
    for key in _TEXT_LISTS:
        value = record.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            return f"{key!r} is not a list of texts"
    return ""


def _check_complete(run: RunReport) -> None:
    """A report ends with a footer whose counts are its records'."""
    if not run.footer:
        raise UsageError(
            f"{run.path}: incomplete: no footer after {len(run.records)} case records "
            "(a run cut short, or a file cut); memspec reads whole reports only"
        )
    said = run.footer.get("counts")
    if not isinstance(said, dict):
        raise UsageError(
            f"{run.path}: incomplete: the footer counts ? cases, the report holds "
            f"{len(run.records)}"
        )
    held = run.counts()
    differing = [
        outcome
        for outcome in dict.fromkeys([*held, *said])
        if said.get(outcome, 0) != held.get(outcome, 0)
    ]
    if not differing:
        return
    total = sum(count for count in said.values() if isinstance(count, int))
    if total != len(run.records):
        raise UsageError(
            f"{run.path}: incomplete: the footer counts {total} cases, the report holds "
            f"{len(run.records)}"
        )
    raise UsageError(
        f"{run.path}: the footer's counts by outcome are not its records': the footer "
        f"counts {_tally(said, differing)}; the report holds {_tally(held, differing)}"
    )


def _tally(counts: dict[str, Any], outcomes: Sequence[str]) -> str:
    """``3 passed, 1 failed and 0 error``."""
    parts = [f"{_show(counts.get(outcome, 0))} {outcome}" for outcome in outcomes]
    return " and ".join([", ".join(parts[:-1]), parts[-1]] if len(parts) > 1 else parts)


# How merge-reports names each setting of the header's ``settings``.
_SETTING_NAMES = {
    "hypothesis_profile": "Hypothesis profile (--hypothesis-profile)",
    "timeout_s": "timeout (--timeout)",
    "start_timeout_s": "start timeout (--start-timeout)",
    "max_reply_bytes": "--max-reply-bytes",
    "tree_owner": "--tree-owner",
    "selection": "selection (--profile, --case, --op, -k)",
    "observer": "observer (--observer)",
    "statistical": "statistical verdicts",
}
_UNRECORDED = object()
"""A setting one report's header holds and the other's does not."""


def _identity(run: RunReport) -> dict[str, Any]:
    """What the shards of one run share, by the name a message gives it."""
    identity = {
        "suite version": run.suite_version,
        "protocol version": run.header.get("protocol_version"),
        "implementation": run.implementation,
        "claims": run.header.get("claims"),
        "adapter": run.run_info.get("adapter"),
    }
    for key, value in run.settings.items():
        identity[_SETTING_NAMES.get(key, f"setting {key}")] = value
    return identity


def _differences(first: RunReport, run: RunReport) -> list[str]:
    """How ``run`` differs from ``first`` in what the shards of one run share."""
    mine, theirs = _identity(first), _identity(run)
    differences = []
    for key in dict.fromkeys([*mine, *theirs]):
        ours, its = mine.get(key, _UNRECORDED), theirs.get(key, _UNRECORDED)
        if ours != its:
            differences.append(
                f"{key} {_show_setting(its)} differs from {first.path}'s {_show_setting(ours)}"
            )
    return differences


def _show_setting(value: Any) -> str:
    return "(not recorded)" if value is _UNRECORDED else _show(value)


def merge_runs(runs: Sequence[RunReport]) -> RunReport:
    """One report holding every shard's cases: all N shards of one run (one suite
    version, implementation, adapter, settings and shard count), each complete."""
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
        differences = _differences(first, run)
        if differences:
            raise UsageError(
                f"{run.path}: {'; '.join(differences)}; these are not shards of one run"
            )
    # Shards of different splits share cases: say so before calling that an overlap.
    shards = _one_split(runs)
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
    _check_every_shard_once(runs, shards)
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


def _one_split(runs: Sequence[RunReport]) -> list[tuple[int, int]]:
    """Each report's shard as (K, N); refused unless every N is the same."""
    shards = []
    for run in runs:
        try:
            index, count = (int(part) for part in run.shard.split("/", 1))
        except ValueError:
            raise UsageError(f"{run.path}: shard {run.shard!r} is not K/N") from None
        shards.append((index, count))
    if len({count for _, count in shards}) > 1:
        raise UsageError(
            "the reports are shards of different splits ("
            + ", ".join(f"{run.path} is shard {run.shard}" for run in runs)
            + "): merge-reports joins the N shards of one --shard K/N run"
        )
    return shards


def _check_every_shard_once(runs: Sequence[RunReport], shards: Sequence[tuple[int, int]]) -> None:
    """The reports are every shard of their split, each once."""
    parsed: dict[int, Path] = {}
    for run, (index, _) in zip(runs, shards, strict=True):
        if index in parsed:
            raise UsageError(f"{run.path}: shard {run.shard} is also {parsed[index]}")
        parsed[index] = run.path
    count = shards[0][1]
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
