"""The run report as JSON lines (header, one record per case, footer), and its views.

JUnit XML, the Markdown summary and the terminal table are all rendered from the
same records.
"""

from __future__ import annotations

import functools
import json
import platform
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import memspec

__all__ = [
    "FAILING",
    "OUTCOMES",
    "CaseRecord",
    "Report",
    "read_report",
    "render_junit",
    "render_markdown",
    "render_table",
    "run_info",
    "tmp_case_sensitive",
]

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

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "case",
            "id": self.id,
            "profile": self.profile,
            "requirements": list(self.requirements),
            "outcome": self.outcome,
            "message": self.message,
            "duration_s": round(self.duration_s, 6),
        }


def run_info() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "platform": sys.platform,
        "machine": platform.machine(),
        "argv": sys.argv[1:],
        "tmp_case_sensitive": tmp_case_sensitive(),
    }


@functools.cache
def tmp_case_sensitive() -> bool:
    """Whether the directory cases are materialised in tells ``a`` from ``A``."""
    with tempfile.TemporaryDirectory(prefix="memspec-") as scratch:
        Path(scratch, "a").touch()
        return not Path(scratch, "A").exists()


@dataclass
class Report:
    implementation: Mapping[str, Any]
    info: Mapping[str, Any]
    records: list[CaseRecord] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        tally = Counter(record.outcome for record in self.records)
        return {outcome: tally.get(outcome, 0) for outcome in OUTCOMES}

    def failed(self) -> bool:
        return bool(self.problems) or any(r.outcome in FAILING for r in self.records)

    def header(self) -> dict[str, Any]:
        return {
            "type": "header",
            "suite_version": memspec.__version__,
            "protocol_version": memspec.PROTOCOL_VERSION,
            "implementation": dict(self.implementation),
            "run_info": dict(self.info),
        }

    def footer(self) -> dict[str, Any]:
        footer: dict[str, Any] = {"type": "footer", "counts": self.counts()}
        if self.problems:
            footer["problems"] = list(self.problems)
        return footer

    def lines(self) -> Iterable[str]:
        yield json.dumps(self.header(), ensure_ascii=False)
        for record in self.records:
            yield json.dumps(record.to_json(), ensure_ascii=False)
        yield json.dumps(self.footer(), ensure_ascii=False)

    def write(self, path: Path) -> None:
        path.write_text("".join(line + "\n" for line in self.lines()), encoding="utf-8")


def read_report(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _by_profile(records: Sequence[CaseRecord]) -> dict[str, Counter[str]]:
    table: dict[str, Counter[str]] = {}
    for record in records:
        table.setdefault(record.profile, Counter())[record.outcome] += 1
    return dict(sorted(table.items()))


def render_table(report: Report) -> str:
    """The per-profile summary table printed at the end of a run."""
    rows: list[tuple[str, ...]] = [("profile", *OUTCOMES, "total")]
    for profile, tally in _by_profile(report.records).items():
        rows.append((profile, *(str(tally[o]) for o in OUTCOMES), str(sum(tally.values()))))
    totals = report.counts()
    rows.append(("all", *(str(totals[o]) for o in OUTCOMES), str(sum(totals.values()))))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in
                       enumerate(zip(row, widths, strict=True))) for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    lines.insert(len(lines) - 1, "-" * len(lines[0]))
    return "\n".join(lines)


def render_markdown(report: Report, *, max_failures: int = 50) -> str:
    implementation = report.implementation
    title = " ".join(str(implementation.get(k, "")) for k in ("name", "version")).strip()
    lines = [
        f"# memspec {memspec.__version__}: {title or 'unknown implementation'}",
        "",
        f"Language: {implementation.get('language', '?')}; "
        f"protocol {memspec.PROTOCOL_VERSION}.",
        "",
        "| profile | " + " | ".join(OUTCOMES) + " | total |",
        "|---|" + "---:|" * (len(OUTCOMES) + 1),
    ]
    for profile, tally in _by_profile(report.records).items():
        cells = " | ".join(str(tally[o]) for o in OUTCOMES)
        lines.append(f"| {profile} | {cells} | {sum(tally.values())} |")
    failing = [r for r in report.records if r.outcome in FAILING]
    if failing or report.problems:
        lines += ["", "## Unexpected results", ""]
        for problem in report.problems:
            lines.append(f"- {problem}")
        for record in failing[:max_failures]:
            message = record.message.replace("\n", " ")[:300]
            lines.append(f"- `{record.id}` ({record.outcome}): {message}")
        if len(failing) > max_failures:
            lines.append(f"- … and {len(failing) - max_failures} more")
    return "\n".join(lines) + "\n"


def render_junit(report: Report) -> str:
    counts = report.counts()
    suite = ElementTree.Element(
        "testsuite",
        name="memspec",
        tests=str(len(report.records)),
        failures=str(counts["failed"] + counts["xpassed"]),
        errors=str(counts["error"]),
        skipped=str(counts["skipped"] + counts["xfailed"]),
        time=f"{sum(r.duration_s for r in report.records):.3f}",
    )
    properties = ElementTree.SubElement(suite, "properties")
    for key, value in (("suite_version", memspec.__version__),
                       ("protocol_version", memspec.PROTOCOL_VERSION),
                       *((f"implementation.{k}", str(v))
                         for k, v in report.implementation.items())):
        ElementTree.SubElement(properties, "property", name=key, value=value)
    for record in report.records:
        case = ElementTree.SubElement(suite, "testcase", classname=record.profile,
                                      name=record.id, time=f"{record.duration_s:.6f}")
        if record.requirements:
            case_properties = ElementTree.SubElement(case, "properties")
            ElementTree.SubElement(case_properties, "property", name="requirements",
                                   value=" ".join(record.requirements))
        if record.outcome in ("failed", "xpassed"):
            ElementTree.SubElement(case, "failure", message=record.message[:1000]).text = (
                record.message)
        elif record.outcome == "error":
            ElementTree.SubElement(case, "error", message=record.message[:1000]).text = (
                record.message)
        elif record.outcome in ("skipped", "xfailed"):
            ElementTree.SubElement(case, "skipped", message=record.message[:1000])
    ElementTree.indent(suite)
    return ElementTree.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
