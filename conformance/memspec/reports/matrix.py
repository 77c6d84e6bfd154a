"""``memspec matrix``: one static HTML page comparing implementations, from their reports.

The page works offline from a file: no server, no network; its CSS and script are inline
and the data is a JSON document in a ``<script type="application/json">`` element. The
script builds the profile and area rows up front and an area's cases only when it is
opened, so 20 implementations and thousands of cases stay light. Every string from a
report or a fixture reaches the page as text (``textContent``), never as markup.

``index.html?open=PROFILE/AREA`` opens an area as a click does, ``&case=ID`` a case in it.
A column whose report's footer lists problems (a stale expectation entry) is marked
``problems: N``, the problems in its title.
"""

from __future__ import annotations

import datetime
import html
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import memspec
from memspec.corpus.compare import text_bytes
from memspec.exceptions import MemspecError, UsageError
from memspec.judge.messages import visible
from memspec.reports.merge import RunReport
from memspec.reports.written import write_file

__all__ = [
    "OUTCOME_CODES",
    "column_labels",
    "matrix_data",
    "render_matrix",
    "shown_text",
    "write_matrix",
]

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
_TEMPLATE = Path(__file__).resolve().parent / "matrix.html"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit} more characters)"


def _json_text(value: Any) -> str:
    return _clip(json.dumps(value, indent=1, ensure_ascii=False), _JSON_LIMIT)


def shown_text(text: str) -> list[str]:
    """Text for the page: plain runs and escapes, alternating (``[plain, escape, plain,
    ...]``). A character the run output escapes (``visible``) is an escape here too, in the
    same notation; line breaks stay line breaks, and a backslash is itself, for the
    escapes are told apart by their look, not by a backslash of their own."""
    parts = [""]
    for char in _clip(text, _JSON_LIMIT):
        escaped = visible(char)
        if escaped == char or char in "\n\\":
            if len(parts) % 2 == 0:
                parts.append("")
            parts[-1] += char
        else:
            if len(parts) % 2 == 1:
                parts.append("")
            parts[-1] += escaped
    return parts


def _value(value: Any) -> dict[str, Any]:
    """A JSON value for the page: text (a string, or base64 that is UTF-8) as text, any
    other value as JSON."""
    if isinstance(value, str):
        return {"text": shown_text(value)}
    data = text_bytes(value) if isinstance(value, dict) and set(value) == {"base64"} else None
    if data is not None:
        try:
            return {"text": shown_text(data.decode("utf-8")), "note": "bytes given as base64"}
        except UnicodeDecodeError:
            return {
                "text": shown_text(data.decode("utf-8", "surrogateescape")),
                "note": "bytes that are not UTF-8",
            }
    return {"json": _json_text(value)}


def _tree_entries(tree: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each expected entry: its path, what it is, and a file's content as text."""
    entries = []
    for path, spec in sorted(tree.items()):
        facts = [
            f"{key} {spec[key]}" for key in ("mode", "mtime", "mtime_ns", "size") if key in spec
        ]
        entry: dict[str, Any] = {"path": path}
        if spec.get("dir"):
            entry["kind"] = "directory"
        elif "symlink" in spec:
            entry["kind"] = f"symlink to {spec['symlink']}"
        elif spec.get("fifo") or spec.get("socket"):
            entry["kind"] = "fifo" if spec.get("fifo") else "socket"
        elif "lines_any_order" in spec:
            entry["kind"] = "file, these lines in any order"
            entry["content"] = _value("".join(f"{line}\n" for line in spec["lines_any_order"]))
        elif "entries_any_order" in spec:
            entry["kind"] = "file, these entries in any order"
            entry["content"] = _value(str(spec["separator"]).join(spec["entries_any_order"]))
        elif "text_pattern" in spec:
            entry["kind"] = "file matching the pattern"
            entry["content"] = _value(spec["text_pattern"])
        else:
            entry["kind"] = "file"
            entry["content"] = _value(
                {"base64": spec["base64"]} if "base64" in spec else spec.get("text", "")
            )
        if facts:
            entry["kind"] += " (" + ", ".join(facts) + ")"
        entries.append(entry)
    return entries


def column_labels(runs: Sequence[RunReport], given: Sequence[str]) -> list[str]:
    """Each column's name: name and version, then the run's label (from ``--label`` of
    ``matrix``, else the report header's); the file name only where those are alike."""
    labels = []
    for index, run in enumerate(runs):
        label = (given[index] if index < len(given) else "") or run.label
        labels.append(f"{run.title} · {label}" if label else run.title)
    for tell in (lambda run: ", ".join(run.partial), lambda run: run.path.name):
        alike = [labels.count(label) > 1 for label in labels]
        labels = [
            f"{label} [{tell(run)}]" if twin and tell(run) else label
            for label, twin, run in zip(labels, alike, runs, strict=True)
        ]
    return labels


def _expectation(expect: Any) -> dict[str, Any]:
    shown: dict[str, Any] = {}
    if expect.has_result:
        shown["result"] = _value(expect.result)
    if expect.error_kind is not None:
        shown["error"] = expect.error_kind
        if expect.error_message is not None:
            shown["error_message"] = _value(expect.error_message)
    if expect.results is not None:
        shown["results"] = [_value(item) for item in expect.results]
    if expect.tree is not None:
        shown["tree"] = _tree_entries(expect.tree)
    return shown


def _arguments(args: Mapping[str, Any]) -> list[list[Any]]:
    """Each argument by name, its value as text or JSON."""
    return [[name, _value(value)] for name, value in args.items()]


def _fixture_details(wanted: set[str]) -> dict[str, dict[str, Any]]:
    """Description, steps and divergence of each wanted case, from the fixtures."""
    from memspec.corpus.cases import crash_points_id, load_cases

    details: dict[str, dict[str, Any]] = {}
    try:
        cases = load_cases()
    except (MemspecError, OSError):
        cases = []
    for case in cases:
        for case_id in (case.id, crash_points_id(case.id)):
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
                        "args": _arguments(step.args),
                        "expect": _expectation(step.expect),
                    }
                    for step in case.steps
                ],
            }
    try:
        from memspec.corpus.registry import registered_cases

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
    from memspec.corpus.requirements import load_requirements

    try:
        found = load_requirements()
    except (MemspecError, OSError):
        return {}
    return {
        r.id: {"level": r.level, "text": r.text, "page": r.page, "section": r.section}
        for r in found
        if r.id in wanted
    }


def matrix_data(
    runs: Sequence[RunReport],
    labels_given: Sequence[str] = (),
    links: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The page's data; ``links`` maps case and requirement ids to their place in the
    site (``memspec site``) that the page is part of."""
    labels = column_labels(runs, labels_given)
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
                "title": run.title,
                "run_label": (labels_given[number] if number < len(labels_given) else "")
                or run.label,
                "name": str(run.implementation.get("name", "")),
                "version": str(run.implementation.get("version", "")),
                "language": str(run.implementation.get("language", "")),
                "suite_version": run.suite_version,
                "adapter": str(run.run_info.get("adapter", "")),
                "broken": run.broken,
                "interrupted": run.interrupted,
                "partial": run.partial,
                "nothing_ran": run.nothing_ran,
                "problems": run.problems,
                "claimed": run.claimed_profiles(),
                "unclaimed": run.unclaimed_profiles(),
                "report": run.path.name,
            }
            for number, (label, run) in enumerate(zip(labels, runs, strict=True))
        ],
        "cases": cases,
        "messages": messages,
        "details": details,
        "requirements": _requirements(requirement_ids),
        "links": {key: links[key] for key in sorted(set(ids) | requirement_ids) if key in links}
        if links
        else None,
    }


def _script_json(data: Any) -> str:
    """JSON that cannot end its ``<script>`` element or open a comment in it."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_matrix(
    runs: Sequence[RunReport],
    labels: Sequence[str] = (),
    links: Mapping[str, str] | None = None,
) -> str:
    data = matrix_data(runs, labels, links)
    title = (
        f"memspec {memspec.__version__}: "
        + ", ".join(implementation["label"] for implementation in data["implementations"][:6])
        + (" …" if len(runs) > 6 else "")
    )
    page = _TEMPLATE.read_text(encoding="utf-8")
    return page.replace("@@TITLE@@", html.escape(title)).replace("@@DATA@@", _script_json(data))


def write_matrix(
    runs: Sequence[RunReport],
    directory: Path,
    labels: Sequence[str] = (),
    links: Mapping[str, str] | None = None,
) -> Path:
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"-o {directory}: exists and is not a directory")
    if len(labels) > len(runs):
        raise UsageError(f"{len(labels)} --label for {len(runs)} reports: one at most per report")
    page = render_matrix(runs, labels, links)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        target = directory / "index.html"
        write_file(target, page, "utf-8")
    except OSError as exc:
        raise UsageError(f"-o {directory}: {exc.strerror or exc}") from exc
    return target
