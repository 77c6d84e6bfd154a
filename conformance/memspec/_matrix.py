"""``memspec matrix``: one static HTML page comparing implementations, from their reports.

The page works offline from a file: no server, no network; its CSS and script are inline
and the data is a JSON document in a ``<script type="application/json">`` element. The
script builds the profile and area rows up front and an area's cases only when it is
opened, so 20 implementations and thousands of cases stay light. Every string from a
report or a fixture reaches the page as text (``textContent``), never as markup.

``index.html?open=PROFILE/AREA`` opens an area as a click does, ``&case=ID`` a case in it.
"""

from __future__ import annotations

import datetime
import html
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import memspec
from memspec._merge import RunReport
from memspec.exceptions import MemspecError, UsageError

__all__ = ["OUTCOME_CODES", "matrix_data", "render_matrix", "write_matrix"]

OUTCOME_CODES = {
    "passed": "p",
    "failed": "f",
    "error": "e",
    "skipped": "s",
    "xfailed": "x",
    "xpassed": "X",
}
_MESSAGE_LIMIT = 4000
_JSON_LIMIT = 3000
_TEMPLATE = Path(__file__).resolve().parent / "_templates" / "matrix.html"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit} more characters)"


def _json_text(value: Any) -> str:
    return _clip(json.dumps(value, indent=1, ensure_ascii=False), _JSON_LIMIT)


def _labels(runs: Sequence[RunReport]) -> list[str]:
    labels = [run.title for run in runs]
    for index, label in enumerate(labels):
        if labels.count(label) > 1:
            labels[index] = f"{label} [{runs[index].path.name}]"
    return labels


def _expectation(expect: Any) -> dict[str, Any]:
    shown: dict[str, Any] = {}
    if expect.has_result:
        shown["result"] = expect.result
    if expect.error_kind is not None:
        shown["error"] = {
            "kind": expect.error_kind,
            **({"message": expect.error_message} if expect.error_message is not None else {}),
        }
    if expect.results is not None:
        shown["results"] = list(expect.results)
    if expect.tree is not None:
        shown["tree"] = expect.tree
    return shown


def _fixture_details(wanted: set[str]) -> dict[str, dict[str, Any]]:
    """Description, steps and divergence of each wanted case, from the fixtures."""
    from memspec.cases import load_cases

    details: dict[str, dict[str, Any]] = {}
    try:
        cases = load_cases()
    except (MemspecError, OSError):
        cases = []
    for case in cases:
        for case_id in (case.id, f"{case.id}/crash-points"):
            if case_id not in wanted:
                continue
            details[case_id] = {
                "description": case.description,
                "requirements": list(case.requirements),
                "divergence": case.divergence,
                "source": case.source,
                "steps": [
                    {
                        "op": step.op,
                        "args": _json_text(step.args),
                        "expect": _json_text(_expectation(step.expect)),
                    }
                    for step in case.steps
                ],
            }
    try:
        from memspec.suite.registry import registered_cases

        for entry in registered_cases():
            if entry.id in wanted and entry.id not in details:
                details[entry.id] = {
                    "description": entry.description,
                    "requirements": list(entry.requirements),
                    "divergence": ", ".join(entry.divergences),
                    "source": f"{entry.kind} of the suite",
                    "steps": [],
                }
    except Exception:  # the page does without the suite's own tests rather than fail
        pass
    return details


def _requirements(wanted: set[str]) -> dict[str, dict[str, str]]:
    from memspec.requirements import load_requirements

    try:
        found = load_requirements()
    except (MemspecError, OSError):
        return {}
    return {
        r.id: {"level": r.level, "text": r.text, "page": r.page, "section": r.section}
        for r in found
        if r.id in wanted
    }


def matrix_data(runs: Sequence[RunReport]) -> dict[str, Any]:
    labels = _labels(runs)
    outcomes = [run.outcomes() for run in runs]
    kinds: dict[str, str] = {}
    messages: list[list[Any]] = []
    for run in runs:
        for record in run.records:
            kinds.setdefault(str(record["id"]), str(record.get("kind", "fixture")))
    ids = sorted(kinds)
    index = {case_id: number for number, case_id in enumerate(ids)}
    for column, run in enumerate(runs):
        for record in run.records:
            message = str(record.get("message", ""))
            if message:
                messages.append([index[str(record["id"])], column, _clip(message, _MESSAGE_LIMIT)])
    cases = [
        [
            case_id,
            kinds[case_id],
            "".join(OUTCOME_CODES.get(column.get(case_id, ""), "-") for column in outcomes),
        ]
        for case_id in ids
    ]
    details = _fixture_details(set(ids))
    requirement_ids = {
        r for run in runs for record in run.records for r in record.get("requirements", [])
    }
    requirement_ids |= {r for detail in details.values() for r in detail["requirements"]}
    return {
        "suite_version": memspec.__version__,
        "generated": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "implementations": [
            {
                "label": label,
                "name": str(run.implementation.get("name", "")),
                "version": str(run.implementation.get("version", "")),
                "language": str(run.implementation.get("language", "")),
                "suite_version": run.suite_version,
                "adapter": str(run.run_info.get("adapter", "")),
                "broken": run.broken,
                "interrupted": bool(run.footer.get("interrupted")),
                "report": run.path.name,
            }
            for label, run in zip(labels, runs, strict=True)
        ],
        "cases": cases,
        "messages": messages,
        "details": details,
        "requirements": _requirements(requirement_ids),
    }


def _script_json(data: Any) -> str:
    """JSON that cannot end its ``<script>`` element or open a comment in it."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_matrix(runs: Sequence[RunReport]) -> str:
    data = matrix_data(runs)
    title = (
        f"memspec {memspec.__version__}: "
        + ", ".join(implementation["label"] for implementation in data["implementations"][:6])
        + (" …" if len(runs) > 6 else "")
    )
    page = _TEMPLATE.read_text(encoding="utf-8")
    return page.replace("@@TITLE@@", html.escape(title)).replace("@@DATA@@", _script_json(data))


def write_matrix(runs: Sequence[RunReport], directory: Path) -> Path:
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"-o {directory}: exists and is not a directory")
    page = render_matrix(runs)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        target = directory / "index.html"
        temporary = directory / ".index.html.tmp"
        temporary.write_text(page, encoding="utf-8")
        os.replace(temporary, target)
    except OSError as exc:
        raise UsageError(f"-o {directory}: {exc.strerror or exc}") from exc
    return target
