"""A port that drifts on one row of spec/divergences.md fails exactly that row's cases.

``PythonReplaceAll`` is memref with the Python port's `replace`/`remove`, which change every
occurrence (`str.replace`). Run against the memorytool profile, it must fail the cases whose
``divergence`` names the `replace-all` row, and nothing else: the rows are complete and no
case relies on first-occurrence behaviour without saying so.
"""

from __future__ import annotations

import fcntl
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memref.errors import OpError
from memref.memorytool import ToolResult, execute, session_script, target_file
from memref.memorytool._ops import _dir, _script
from memref.serve import Implementation

ROW = re.compile(r"(?:^| \| )replace-all: ")
_OK = "ok ({} \u2192 {}); loads next session"


def replace_all(directory: str, tool_input: Mapping[str, Any]) -> ToolResult:
    """The Python port's replace and remove; everything else as memref."""
    action, text = tool_input.get("action"), tool_input.get("text")
    text = text if isinstance(text, str) else ""
    path = target_file(directory, tool_input)
    if action not in ("replace", "remove") or not os.path.isfile(path):
        return execute(directory, tool_input)
    # The same lock memref takes, so that this port differs from it in one row only.
    lock = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with open(path, "rb") as handle:
            current = handle.read()
        needle = text.encode()
        if needle in current:
            new = tool_input.get("with") if action == "replace" else ""
            replacement = new.encode() if isinstance(new, str) else b""
            with open(path, "wb") as handle:
                handle.write(current.replace(needle, replacement))
            return ToolResult(_OK.format(action, os.path.basename(path)), False)
    finally:
        os.close(lock)
    return execute(directory, tool_input)


class PythonReplaceAll:
    """An in-process adapter: memref, but replace/remove change every occurrence."""

    def __init__(self) -> None:
        self._inner = Implementation()

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        op, args = message.get("op"), message.get("args")
        if (
            op not in ("memorytool.call", "memorytool.session_script")
            or not isinstance(args, dict)
            or "fault" in message
        ):
            return self._inner.handle(message)
        try:
            directory = _dir(args)
            if op == "memorytool.call":
                if not isinstance(args.get("input"), dict):
                    return self._inner.handle(message)
                result = replace_all(directory, args["input"])
                return {"id": message.get("id"), "result": _call_out(result)}
            events = []
            for kind, value in session_script(directory, _script(args), replace_all):
                if kind == "soul":
                    soul, found = value
                    events.append({"soul": soul.decode("utf-8", "surrogateescape"), "found": found})
                elif kind == "call":
                    events.append(_call_out(value))
                else:
                    events.append({"session": value})
            return {"id": message.get("id"), "result": {"events": events}}
        except (OpError, UnicodeError):
            return self._inner.handle(message)


def _call_out(result: ToolResult) -> dict[str, Any]:
    return {"output": result.output, "is_error": result.is_error}


def test_replace_all_port_fails_exactly_the_replace_all_row(
    memspec_cli: Any, tmp_path: Path
) -> None:
    from memspec.corpus.cases import load_cases
    from memspec.reports.report import read_report

    env = dict(os.environ)
    here = str(Path(__file__).resolve().parent)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [here, env.get("PYTHONPATH")]))
    env.pop("PYTEST_ADDOPTS", None)
    report = tmp_path / "r.jsonl"
    completed = memspec_cli(
        "run",
        "--profile",
        "memorytool",
        "--adapter",
        "python:test_memorytool_port_drift:PythonReplaceAll",
        # The drift rows are about answers; crash points of the port are another matter.
        "-k",
        "not crash-points",
        "--report",
        str(report),
        env=env,
        timeout=900,
    )
    assert completed.returncode in (0, 1), completed.stderr
    records = [r for r in read_report(report) if r["type"] == "case"]
    failing = {r["id"] for r in records if r["outcome"] in ("failed", "error")}
    expected = {
        case.id for case in load_cases(profiles=["memorytool"]) if ROW.search(case.divergence)
    }
    assert expected, "no case names the replace-all row"
    assert failing == expected, (sorted(failing - expected), sorted(expected - failing))
