"""The strings of a case that name places in the file system, and those that leave the
case's directory.

A path is a string the adapter is to use as a place in the file system: an argument an
op reads, writes, lists, resolves, runs a process in, or keeps for a later op that does;
a path such an op returns; a symlink target; a git argument or working directory of a
set-up action. Each profile says which members of each op's arguments and result are
paths in ``fixtures/<profile>/_paths.json``: ``{"ops": {"<op>": {"args": [...],
"result": [...]}}}``, each member a selector (``memory.path``, ``items[].path``,
``[].path`` for each item of a list result, ``""`` for the whole result). Strings an op
only computes with (hashing, cleaning or joining path text it never looks up), ids,
JSON pointers, file contents and the environment are not paths.

Every absolute path of a case lies below ``${ROOT}`` once cleaned lexically; a symlink
target may also be one of ``DEVICES``, which a case names on purpose and which no write
can harm. Relative and empty paths are left alone: cases test them on purpose.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memspec.cases import Case
from memspec.exceptions import FixtureError

__all__ = [
    "DEVICES",
    "PATHS_FILE",
    "OpPaths",
    "case_path_problems",
    "load_op_paths",
    "path_arguments",
    "select",
]

PATHS_FILE = "_paths.json"
DEVICES = frozenset({"/dev/null", "/dev/zero"})

_PLACEHOLDER_ROOT = "/\0root"
_TOKENS = (
    (re.compile(r"\$\{sha256-16:[^}]*\}"), "0123456789abcdef"),
    (re.compile(r"\$\{(?:WORKER|ITERATION)\}"), "0"),
)


@dataclass(frozen=True)
class OpPaths:
    """The selectors of an op's members that are file-system paths."""

    args: tuple[str, ...] = ()
    result: tuple[str, ...] = ()


def load_op_paths(profile_dir: Path) -> dict[str, OpPaths]:
    """The declarations of ``<profile_dir>/_paths.json``; FixtureError when it is missing
    or malformed."""
    path = profile_dir / PATHS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FixtureError(f"{path}: cannot read the path declarations: {exc}") from exc
    ops = data.get("ops") if isinstance(data, dict) else None
    if not isinstance(ops, dict):
        raise FixtureError(f"{path}: has no object 'ops'")
    found: dict[str, OpPaths] = {}
    for op, declared in ops.items():
        if not isinstance(declared, dict) or set(declared) - {"args", "result"}:
            raise FixtureError(f"{path}: {op}: only 'args' and 'result' may be given")
        members = {key: declared.get(key, []) for key in ("args", "result")}
        if not all(_selectors(v) for v in members.values()):
            raise FixtureError(f"{path}: {op}: 'args' and 'result' are lists of selectors")
        found[op] = OpPaths(tuple(members["args"]), tuple(members["result"]))
    return found


def _selectors(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def select(value: Any, selector: str) -> Iterator[Any]:
    """Every value ``selector`` picks out of ``value`` (nothing where it does not fit)."""
    if selector == "":
        yield value
        return
    head, _, rest = selector.partition(".")
    each = head.endswith("[]")
    key = head.removesuffix("[]")
    if key:
        if not isinstance(value, Mapping) or key not in value:
            return
        value = value[key]
    if not each:
        yield from select(value, rest)
    elif isinstance(value, list):
        for item in value:
            yield from select(item, rest)


def path_arguments(op: str, args: Mapping[str, Any], table: Mapping[str, OpPaths]) -> list[str]:
    """The path strings among the arguments of one request."""
    declared = table.get(op, OpPaths())
    return [v for s in declared.args for v in select(args, s) if isinstance(v, str)]


def _placeheld(text: str) -> str:
    text = text.replace("${ROOT}", _PLACEHOLDER_ROOT)
    for pattern, stand_in in _TOKENS:
        text = pattern.sub(stand_in, text)
    return text


def _inside(absolute: str) -> bool:
    cleaned = posixpath.normpath(absolute)
    if cleaned.startswith("//"):
        cleaned = cleaned[1:]
    return cleaned == _PLACEHOLDER_ROOT or cleaned.startswith(_PLACEHOLDER_ROOT + "/")


def leaves_root(path: str) -> bool:
    """Whether an absolute ``path`` of a case lies outside ``${ROOT}``; False for a
    relative or empty one."""
    held = _placeheld(path)
    return held.startswith("/") and not _inside(held)


def _target_leaves_root(link: str, target: str) -> bool:
    held = _placeheld(target)
    if held.startswith("/"):
        return held not in DEVICES and not _inside(held)
    return not _inside(posixpath.join(_PLACEHOLDER_ROOT, posixpath.dirname(link), held))


def _tree_problems(tree: Mapping[str, Any], where: str) -> Iterator[str]:
    for link, spec in sorted(tree.items()):
        target = spec.get("symlink") if isinstance(spec, Mapping) else None
        if isinstance(target, str) and _target_leaves_root(link, target):
            yield f"{where}: symlink {link} -> {target!r} leads outside ${{ROOT}}"


def _setup_problems(case: Case) -> Iterator[str]:
    for number, action in enumerate(case.setup, 1):
        for argument in action.get("git", []):
            value = str(argument).rpartition("=")[2] if str(argument).startswith("-") else argument
            if leaves_root(str(value)):
                yield f"set-up action {number}: git argument {argument!r} is outside ${{ROOT}}"
        cwd = action.get("cwd", ".")
        if not _inside(posixpath.join(_PLACEHOLDER_ROOT, _placeheld(str(cwd)))):
            yield f"set-up action {number}: cwd {cwd!r} is outside ${{ROOT}}"


def case_path_problems(case: Case, table: Mapping[str, OpPaths]) -> list[str]:
    """Every absolute path of ``case`` outside ``${ROOT}``, one line each."""
    problems = list(_tree_problems(case.tree, "tree"))
    problems.extend(_setup_problems(case))
    for number, step in enumerate(case.steps, 1):
        declared = table.get(step.op, OpPaths())
        where = f"step {number} ({step.op})"
        for selector in declared.args:
            for value in select(step.args, selector):
                if isinstance(value, str) and leaves_root(value):
                    problems.append(f"{where}: argument {selector} {value!r} is outside ${{ROOT}}")
        expected = step.expect
        results = list(expected.results or ()) + ([expected.result] if expected.has_result else [])
        for selector in declared.result:
            for result in results:
                for value in select(result, selector):
                    if isinstance(value, str) and leaves_root(value):
                        problems.append(
                            f"{where}: expected result {selector or '(whole)'} {value!r} "
                            "is outside ${ROOT}"
                        )
        if expected.tree is not None:
            problems.extend(_tree_problems(expected.tree, f"{where}: expected tree"))
    return problems
