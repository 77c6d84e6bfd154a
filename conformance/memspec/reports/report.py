"""The run report as JSON lines (header, one record per case, footer), and its views.

JUnit XML, the Markdown summary and the terminal table are all rendered from the
same records.
"""

from __future__ import annotations

import json
import os
import platform
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import memspec
from memspec.exceptions import UsageError
from memspec.reports.written import write_file
from memspec.run.trees import tmp_case_sensitive
from memspec.wire.working_directory import made_working_directory, scratch_base

__all__ = [
    "FAILING",
    "HARNESS_FAULT",
    "OUTCOMES",
    "UNKNOWN_IMPLEMENTATION",
    "CaseRecord",
    "Report",
    "append_step_summary",
    "claims_of",
    "nothing_ran",
    "read_report",
    "render_junit",
    "render_markdown",
    "render_run_end",
    "render_table",
    "run_exit_status",
    "run_info",
    "skip_groups",
    "todo_groups",
    "unclaimed_line",
    "write_reports",
]

HARNESS_FAULT = ("harness fault",)
"""The signature of a case that ended in a fault of memspec itself: an error that no
expectations entry lists and no consumer counts against the implementation."""

OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")
FAILING = frozenset({"failed", "error", "xpassed"})


@dataclass(frozen=True)
class CaseRecord:
    id: str
    profile: str
    requirements: tuple[str, ...]
    outcome: str
    message: str
    duration_s: float
    kind: str = "fixture"
    ops: tuple[str, ...] = ()
    signature: tuple[str, ...] = ()
    """How the case failed, each failed check with what it observed
    (memspec.corpus.observations): empty unless it failed or erred."""
    values: tuple[str, ...] = ()
    """The observed value of each entry of ``signature``, abridged ("" for none)."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "type": "case",
            "id": self.id,
            "profile": self.profile,
            "requirements": list(self.requirements),
            "outcome": self.outcome,
            "message": self.message,
            "duration_s": round(self.duration_s, 6),
            "kind": self.kind,
            "ops": list(self.ops),
        }
        if self.signature:
            data["signature"] = list(self.signature)
            data["values"] = list(self.values)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CaseRecord:
        return cls(
            id=data["id"],
            profile=data["profile"],
            requirements=tuple(data["requirements"]),
            outcome=data["outcome"],
            message=data["message"],
            duration_s=float(data["duration_s"]),
            kind=data.get("kind", "fixture"),
            ops=tuple(data.get("ops", ())),
            signature=tuple(data.get("signature", ())),
            values=tuple(data.get("values", ())),
        )


UNKNOWN_IMPLEMENTATION: Mapping[str, str] = {"name": "unknown", "version": "", "language": ""}


def run_info(adapter_spec: str, *, shard: str = "") -> dict[str, Any]:
    """Host facts for the report header, with the run's shard."""
    info: dict[str, Any] = {
        "python": platform.python_version(),
        "platform": sys.platform,
        "machine": platform.machine(),
        "argv": sys.argv[1:],
        "tmp_case_sensitive": tmp_case_sensitive(),
        "scratch": str(_scratch()),
        "adapter": adapter_spec,
        "euid": os.geteuid() if hasattr(os, "geteuid") else None,
    }
    if shard:
        info["shard"] = shard
    return info


def _scratch() -> Path:
    """The folder the run's folder is in (``scratch_base``)."""
    working = made_working_directory()
    return working.parent.parent if working is not None else scratch_base()


def claims_of(handshake: Any) -> dict[str, list[str]]:
    """What an adapter's handshake claims, as the report header keeps it."""
    return {"profiles": list(handshake.profiles), "capabilities": list(handshake.capabilities)}


@dataclass
class Report:
    implementation: Mapping[str, Any]
    info: Mapping[str, Any]
    records: list[CaseRecord] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    broken: str = ""
    """Why the adapter could not be used at all, when it could not."""
    interrupted: bool = False
    claims: Mapping[str, Sequence[str]] | None = None
    """The profiles and capabilities the adapter claimed, when it shook hands."""
    label: str = ""
    """The user's name for this run (``--label``), shown beside the implementation's."""
    settings: Mapping[str, Any] | None = None
    """What the run was asked for (Hypothesis profile, timeouts, selection, ...): the
    shards of one run share them, and ``merge-reports`` refuses shards that do not."""

    def counts(self) -> dict[str, int]:
        tally = Counter(record.outcome for record in self.records)
        return {outcome: tally.get(outcome, 0) for outcome in OUTCOMES}

    @property
    def nothing_ran(self) -> str:
        """Why no case ran, when none did and the footer does not already say why."""
        if self.broken or self.interrupted:
            return ""
        return nothing_ran(self.records, str(self.info.get("shard", "")))

    def header(self) -> dict[str, Any]:
        from memspec.corpus.profiles import known_profiles

        header: dict[str, Any] = {
            "type": "header",
            "suite_version": memspec.__version__,
            "protocol_version": memspec.PROTOCOL_VERSION,
            "implementation": dict(self.implementation),
            "suite_profiles": list(known_profiles()),
            "run_info": dict(self.info),
        }
        if self.claims is not None:
            header["claims"] = {key: list(value) for key, value in self.claims.items()}
        if self.label:
            header["label"] = self.label
        if self.settings is not None:
            header["settings"] = dict(self.settings)
        return header

    def footer(self) -> dict[str, Any]:
        footer: dict[str, Any] = {
            "type": "footer",
            "counts": self.counts(),
            "interrupted": self.interrupted,
        }
        if self.nothing_ran:
            footer["nothing_ran"] = self.nothing_ran
        if self.problems:
            footer["problems"] = list(self.problems)
        if self.broken:
            footer["adapter_broken"] = self.broken
        return footer

    def lines(self) -> Iterable[str]:
        # ASCII JSON: a lone surrogate or any control character an adapter sent stays an
        # escape, so every line can be written, read back and parsed.
        yield json.dumps(self.header(), ensure_ascii=True)
        for record in self.records:
            yield json.dumps(record.to_json(), ensure_ascii=True)
        yield json.dumps(self.footer(), ensure_ascii=True)

    def write(self, path: Path) -> None:
        """Write the report (``memspec.reports.written``)."""
        write_file(path, "".join(line + "\n" for line in self.lines()), "ascii")


def nothing_ran(records: Sequence[CaseRecord], shard: str = "") -> str:
    """Why no case ran (every one skipped, or none selected); empty when one did."""
    if any(record.outcome != "skipped" for record in records):
        return ""
    if not records:
        return f"shard {shard} holds none of the selected cases" if shard else "no case selected"
    reasons = "; ".join(f"{count} {reason}" for reason, count in skip_groups(records))
    return f"every one of the {len(records)} selected cases was skipped ({reasons})"


def run_exit_status(report: Report, status: int) -> int:
    """The exit status of a finished run, given pytest's.

    A run in which no case ran fails (1), for nothing was checked. A shard is the
    exception: a filter may leave fewer cases than a CI matrix has jobs, so a shard with
    no case, or none that ran, is a complete report (0), and the merged report judges.
    A record that fails (a listed case failing otherwise than its entry says, which
    pytest counts as an expected failure) fails the run whatever pytest says.
    """
    failing = any(record.outcome in FAILING for record in report.records)
    if status in (0, 5) and failing:
        return 1
    if report.info.get("shard"):
        return 0 if status == 5 else status
    if status == 0 and report.records and report.nothing_ran:
        return 1
    return status


def write_reports(
    report: Report, report_path: str | None, junit_path: str | None, summary_path: str | None
) -> None:
    """Each format asked for, rendered from the same records; a path that cannot be
    written is a usage error naming it."""
    renderings: list[tuple[str | None, Callable[[Path], None]]] = [
        (report_path, report.write),
        (junit_path, lambda target: _write_text(target, render_junit(report))),
        (summary_path, lambda target: _write_text(target, render_markdown(report))),
    ]
    for path, write in renderings:
        if not path:
            continue
        try:
            write(Path(path))
        except OSError as exc:
            raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from exc


def _write_text(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8", errors="backslashreplace")


def append_step_summary(report: Report, environ: Mapping[str, str]) -> str:
    """Append the Markdown summary to ``$GITHUB_STEP_SUMMARY`` when it is set; a warning
    to print when that file cannot be written (the run's verdict does not change)."""
    target = environ.get("GITHUB_STEP_SUMMARY")
    if not target or not report.records:
        return ""
    try:
        with open(target, "a", encoding="utf-8", errors="backslashreplace") as handle:
            handle.write(render_markdown(report))
    except OSError as exc:
        return f"cannot append to GITHUB_STEP_SUMMARY {target}: {exc.strerror or exc}"
    return ""


def read_report(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _safe(text: str) -> str:
    """``text`` without what XML 1.0 and terminals cannot carry: controls and lone
    surrogates become visible escapes."""
    out = []
    for char in text:
        code = ord(char)
        if (
            (code < 0x20 and char not in "\n\t")
            or 0x7F <= code < 0xA0
            or 0xD800 <= code <= 0xDFFF
            or code in (0xFFFE, 0xFFFF)
        ):
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)


def todo_groups(
    records: Sequence[CaseRecord],
) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """What is left to do: failing cases counted by (what went wrong, op), then by
    requirement, most first."""
    by_op: Counter[tuple[str, str]] = Counter()
    by_requirement: Counter[str] = Counter()
    for record in records:
        if record.outcome not in FAILING:
            continue
        op = _failing_op(record)
        by_op[_trouble(record), op or f"{record.kind} {record.id}"] += 1
        for requirement in record.requirements:
            by_requirement[requirement] += 1
    # Wrong answers first: an op that is missing is one item of work, a wrong one a bug.
    ordered = sorted(
        by_op.items(), key=lambda item: (_TROUBLES.index(item[0][0]), -item[1], item[0][1])
    )
    return [(f"{what}: {op}", count) for (what, op), count in ordered], by_requirement.most_common()


_TROUBLES = ("wrong", "fault", "passes, but is listed as expected to fail", "unknown-op")


_UNKNOWN_OP = re.compile(r"(?:got|answered) error 'unknown-op'")


def _trouble(record: CaseRecord) -> str:
    """What went wrong with a failing case, one of ``_TROUBLES``: a case whose reply is
    ``unknown-op`` is ``unknown-op`` whatever else failed with it (its tree, say)."""
    if "'unknown-op'" in record.message.split("\n", 1)[0] or _UNKNOWN_OP.search(record.message):
        return "unknown-op"
    if record.outcome == "error":
        return "fault"
    if record.outcome == "xpassed":
        return "passes, but is listed as expected to fail"
    return "wrong"


def _failing_op(record: CaseRecord) -> str:
    """The op of the step that failed, which the message names first (``turnlog.write
    (step 2 of 3): ...``); else the case's first op."""
    named = record.message.split(" ", 1)[0].split(":", 1)[0]
    if named in record.ops:
        return named
    return record.ops[0] if record.ops else _op_in_message(record.message)


def _op_in_message(message: str) -> str:
    for line in message.splitlines():
        if line.strip().startswith("op:"):
            return line.split(":", 1)[1].strip()
    return ""


def _listing_order(record: CaseRecord) -> tuple[int, str]:
    return _TROUBLES.index(_trouble(record)), record.id


def skip_groups(records: Sequence[CaseRecord]) -> list[tuple[str, int]]:
    """Skipped cases counted by the first clause of their reason."""
    reasons: Counter[str] = Counter()
    for record in records:
        if record.outcome == "skipped":
            reasons[record.message.split("(")[0].strip()] += 1
    return reasons.most_common()


_UNCLAIMED = "not claimed: capability "


def unclaimed_line(records: Sequence[CaseRecord]) -> str:
    """One line naming the capabilities the adapter did not claim and how many cases that
    left out (a case needing two of them counts once); empty when none. A run that skips
    every crash-point case still exits 0, so the summary says what it did not test."""
    names: set[str] = set()
    count = 0
    for record in records:
        if record.outcome == "skipped" and record.message.startswith(_UNCLAIMED):
            reason = record.message.removeprefix(_UNCLAIMED).splitlines()[0]
            names.update(name.strip() for name in reason.split(","))
            count += 1
    if not count:
        return ""
    plural = "s" if count != 1 else ""
    return f"the adapter did not claim {', '.join(sorted(names))}: {count} case{plural} left out"


def render_run_end(
    report: Report, written: Sequence[tuple[str, str]], *, at_most: int = 20
) -> list[str]:
    """The lines closing a run: counts, the to-do list, skips by reason, report paths."""
    lines = render_table(report).splitlines()
    if report.broken:
        lines.append(f"ADAPTER BROKEN: {_safe(report.broken)}")
    by_op, by_requirement = todo_groups(report.records)
    if by_op:
        lines.append("")
        lines.append("To do, by op:")
        lines += [
            f"  {group} — {count} case{'s' if count > 1 else ''}"
            for group, count in by_op[:at_most]
        ]
        if len(by_op) > at_most:
            lines.append(f"  … and {len(by_op) - at_most} more groups")
        lines.append("To do, by requirement:")
        lines += [
            f"  {requirement} — {count} case{'s' if count > 1 else ''}"
            for requirement, count in by_requirement[:at_most]
        ]
        if len(by_requirement) > at_most:
            lines.append(f"  … and {len(by_requirement) - at_most} more requirements")
        failing = sorted((r for r in report.records if r.outcome in FAILING), key=_listing_order)
        lines.append("")
        for record in failing[:at_most]:
            lines.append(f"{record.outcome.upper()} {record.id}")
            lines += ["  " + _safe(line) for line in record.message.splitlines()[:12]]
        if len(failing) > at_most:
            lines.append(
                f"… and {len(failing) - at_most} more failing cases ({_where_the_rest_are(written)}"
                ", or memspec explain CASE-ID)"
            )
    skips = skip_groups(report.records)
    if skips:
        lines.append("Skipped: " + "; ".join(f"{reason} — {count}" for reason, count in skips))
    unclaimed = unclaimed_line(report.records)
    if unclaimed:
        lines.append(unclaimed)
    for problem in report.problems:
        lines.append(f"FAILED {_safe(problem)}")
    counts = report.counts()
    lines.append(", ".join(f"{counts[o]} {o}" for o in OUTCOMES if counts[o]) or "no cases")
    lines += [f"{name}: {path}" for name, path in written]
    if statistical_note(report):
        lines.append(f"statistical verdicts: {statistical_note(report)}")
    if report.interrupted:
        lines.append(
            "interrupted: the reports hold the cases that ran, and say so"
            if written
            else "interrupted: these are the cases that ran"
        )
    if report.nothing_ran:
        lines.append(f"nothing ran: {report.nothing_ran}")
    return lines


def _where_the_rest_are(written: Sequence[tuple[str, str]]) -> str:
    """Where a reader finds every failure the terminal leaves out."""
    complete = [path for name, path in written if name in ("report", "junit")]
    return f"see {complete[0]}" if complete else "--report FILE lists them all"


def _by_profile(records: Sequence[CaseRecord]) -> dict[str, Counter[str]]:
    table: dict[str, Counter[str]] = {}
    for record in records:
        table.setdefault(record.profile, Counter())[record.outcome] += 1
    return dict(sorted(table.items()))


def statistical_note(report: Report) -> str:
    """Which verdicts of the run were decided by sampling, and why ("" when not said)."""
    settings = report.settings or {}
    return str(settings.get("statistical", ""))


def render_table(report: Report) -> str:
    """The per-profile summary table printed at the end of a run."""
    rows: list[tuple[str, ...]] = [("profile", *OUTCOMES, "total")]
    for profile, tally in _by_profile(report.records).items():
        rows.append((profile, *(str(tally[o]) for o in OUTCOMES), str(sum(tally.values()))))
    totals = report.counts()
    rows.append(("all", *(str(totals[o]) for o in OUTCOMES), str(sum(totals.values()))))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(
            cell.rjust(w) if i else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    ]
    lines.insert(1, "-" * len(lines[0]))
    lines.insert(len(lines) - 1, "-" * len(lines[0]))
    return "\n".join(lines)


def render_markdown(report: Report, *, max_failures: int = 50) -> str:
    implementation = report.implementation
    title = " ".join(str(implementation.get(k, "")) for k in ("name", "version")).strip()
    if report.label:
        title = f"{title} ({report.label})" if title else report.label
    lines = [
        f"# memspec {memspec.__version__}: {title or 'unknown implementation'}",
        "",
        f"Language: {implementation.get('language', '?')}; protocol {memspec.PROTOCOL_VERSION}.",
        "",
        "| profile | " + " | ".join(OUTCOMES) + " | total |",
        "|---|" + "---:|" * (len(OUTCOMES) + 1),
    ]
    for profile, tally in _by_profile(report.records).items():
        cells = " | ".join(str(tally[o]) for o in OUTCOMES)
        lines.append(f"| {profile} | {cells} | {sum(tally.values())} |")
    if statistical_note(report):
        lines += ["", f"**Statistical verdicts:** {_safe(statistical_note(report))}."]
    if report.broken:
        lines += ["", f"**Adapter broken:** {_safe(report.broken)}"]
    if report.interrupted:
        lines += ["", "**Interrupted:** the run was stopped; these are the cases that ran."]
    if report.nothing_ran:
        lines += ["", f"**Nothing ran:** {_safe(report.nothing_ran)}."]
    if report.info.get("shard"):
        lines += [
            "",
            f"**Shard {report.info['shard']}:** one slice of the selected cases; "
            "`memspec merge-reports` joins the shards into the whole run.",
        ]
    by_op, by_requirement = todo_groups(report.records)
    if by_op:
        lines += ["", "## To do", "", "| what, op | cases |", "|---|---:|"]
        lines += [f"| {_safe(group)} | {count} |" for group, count in by_op]
        lines += ["", "| requirement | failing cases |", "|---|---:|"]
        lines += [f"| {requirement} | {count} |" for requirement, count in by_requirement]
    skips = skip_groups(report.records)
    if skips:
        lines += ["", "## Skipped", ""]
        unclaimed = unclaimed_line(report.records)
        if unclaimed:
            lines += [f"**{_safe(unclaimed)}.**", ""]
        lines += [f"- {_safe(reason)} — {count}" for reason, count in skips]
    failing = [r for r in report.records if r.outcome in FAILING]
    if failing or report.problems:
        lines += ["", "## Unexpected results", ""]
        for problem in report.problems:
            lines.append(f"- {_safe(problem)}")
        for record in failing[:max_failures]:
            message = _safe(record.message.replace("\n", " "))[:300]
            lines.append(f"- `{record.id}` ({record.outcome}): {message}")
        if len(failing) > max_failures:
            lines.append(f"- … and {len(failing) - max_failures} more")
    return "\n".join(lines) + "\n"


def render_junit(report: Report) -> str:
    counts = report.counts()
    broken = 1 if report.broken else 0
    suite = ElementTree.Element(
        "testsuite",
        name="memspec",
        tests=str(len(report.records) + broken),
        failures=str(counts["failed"] + counts["xpassed"]),
        errors=str(counts["error"] + broken),
        skipped=str(counts["skipped"] + counts["xfailed"]),
        time=f"{sum(r.duration_s for r in report.records):.3f}",
    )
    properties = ElementTree.SubElement(suite, "properties")
    for key, value in (
        ("suite_version", memspec.__version__),
        ("protocol_version", memspec.PROTOCOL_VERSION),
        *((f"implementation.{k}", str(v)) for k, v in report.implementation.items()),
    ):
        ElementTree.SubElement(properties, "property", name=key, value=_safe(value))
    if report.broken:
        case = ElementTree.SubElement(
            suite, "testcase", classname="memspec", name="adapter", time="0"
        )
        ElementTree.SubElement(case, "error", message=_safe(report.broken)[:1000]).text = _safe(
            report.broken
        )
    for record in report.records:
        case = ElementTree.SubElement(
            suite,
            "testcase",
            classname=record.profile,
            name=_safe(record.id),
            time=f"{record.duration_s:.6f}",
        )
        if record.requirements:
            case_properties = ElementTree.SubElement(case, "properties")
            ElementTree.SubElement(
                case_properties,
                "property",
                name="requirements",
                value=" ".join(record.requirements),
            )
        message = _safe(record.message)
        if record.outcome in ("failed", "xpassed"):
            ElementTree.SubElement(case, "failure", message=message[:1000]).text = message
        elif record.outcome == "error":
            ElementTree.SubElement(case, "error", message=message[:1000]).text = message
        elif record.outcome in ("skipped", "xfailed"):
            ElementTree.SubElement(case, "skipped", message=message[:1000])
    ElementTree.indent(suite)
    return ElementTree.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
