"""Reading reports back as whole runs, and joining the reports of a sharded run."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memspec.exceptions import UsageError
from memspec.report import OUTCOMES

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
    def broken(self) -> str:
        return str(self.footer.get("adapter_broken", ""))

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
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            raise UsageError(f"{path}: line {number} is not JSON; not a memspec report") from None
        kind = data.get("type") if isinstance(data, dict) else None
        if header is None:
            if kind != "header" or not isinstance(data.get("implementation"), dict):
                raise UsageError(f"{path}: not a memspec report (line 1 is no header)")
            header = data
            run = RunReport(path, header)
            continue
        assert run is not None
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
    return run


def _identity(run: RunReport) -> dict[str, Any]:
    return {
        "suite version": run.suite_version,
        "protocol version": run.header.get("protocol_version"),
        "implementation": run.implementation,
        "adapter": run.run_info.get("adapter"),
    }


def merge_runs(runs: Sequence[RunReport]) -> RunReport:
    """One report holding every shard's cases; refuses shards that are not of one run."""
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
    info["merged_from"] = [str(run.run_info.get("shard") or run.path.name) for run in runs]
    problems: list[str] = []
    for run in runs:
        for problem in run.footer.get("problems", []):
            if problem not in problems:
                problems.append(problem)
    footer: dict[str, Any] = {
        "type": "footer",
        "interrupted": any(r.footer.get("interrupted") for r in runs),
    }
    if problems:
        footer["problems"] = problems
    broken = next((r.broken for r in runs if r.broken), "")
    if broken:
        footer["adapter_broken"] = broken
    records = sorted(
        (record for run in runs for record in run.records), key=lambda record: str(record["id"])
    )
    return RunReport(Path("merged"), {**first.header, "run_info": info}, records, footer)


def _check_shards(runs: Sequence[RunReport]) -> None:
    """Shard reports must be every shard of one split, each once."""
    labels = [run.run_info.get("shard") for run in runs]
    if not any(labels):
        return
    parsed: dict[int, Path] = {}
    counts = set()
    for run, label in zip(runs, labels, strict=True):
        if not isinstance(label, str) or "/" not in label:
            raise UsageError(
                f"{run.path}: not a shard report (run without --shard) but "
                "merged with shard reports"
            )
        index, count = (int(part) for part in label.split("/", 1))
        counts.add(count)
        if index in parsed:
            raise UsageError(f"{run.path}: shard {label} is also {parsed[index]}")
        parsed[index] = run.path
    if len(counts) != 1:
        raise UsageError(
            "the reports are shards of different splits: "
            + ", ".join(sorted({str(label) for label in labels}))
        )
    count = counts.pop()
    missing = [f"{index}/{count}" for index in range(1, count + 1) if index not in parsed]
    if missing:
        raise UsageError(
            f"shard{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
            "missing: a merged report would lack their cases"
        )


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, sort_keys=True)[:200]
