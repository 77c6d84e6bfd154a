"""The strings of a case that name places in the file system, and those that leave the
case's directory.

A path is a string the adapter is to use as a place in the file system: an argument an
op reads, writes, lists, resolves, runs a process in, or keeps for a later op that does;
a path such an op returns; a symlink target; a git argument or working directory of a
set-up action. The op schemas say which members of each op's arguments and result are
paths: those of wire type ``path`` or ``result-path`` (``schemas/ops/wire.json``), found
by following ``$ref``, ``properties``, ``items``, ``additionalProperties``, ``anyOf``,
``oneOf`` and ``allOf``. Each is named by a selector (``memory.path``, ``items[].path``,
``[].path`` for each item of a list result, ``env{}`` for each value of an object,
``""`` for the whole result). Path text an op only computes with (``path-text``), ids,
JSON pointers, file contents and the environment are not paths.

Every absolute path of a case lies below ``${ROOT}`` once cleaned lexically, and so does
every path the harness itself makes or reads relative to the root (a tree key, a race's
directories, a held lock, a readers' file); a symlink
target may also be one of ``DEVICES``, which a case names on purpose and which no write
can harm. Relative and empty arguments are left alone: cases test them on purpose (an adapter
runs in an empty working directory of the run, ``memspec.wire.adapters``). ``load_case``
refuses a fixture with any of these problems, so ``run`` never executes what ``lint``
refuses. A path
that starts with a captured value (``${NAME}``) is not known to lie below ``${ROOT}``
and is refused.
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urldefrag, urljoin

from memspec.corpus.cases import Case
from memspec.corpus.op_schemas import WIRE_ID, lookup, op_schema, ops_with_schemas
from memspec.corpus.tokens import CAPTURED_TOKEN as CAPTURED
from memspec.corpus.tokens import for_worker, substitute

__all__ = [
    "DEVICES",
    "FIXTURE_DEPTH",
    "FIXTURE_KEY_BYTES",
    "PATH_TYPES",
    "OpPaths",
    "case_path_problems",
    "path_arguments",
    "path_table",
    "select",
    "selectors",
]

DEVICES = frozenset({"/dev/null", "/dev/zero"})
FIXTURE_DEPTH = 32
"""How many levels a tree key of a fixture may have: four times what any case needs, and
far within what the harness walks (``memspec.run.trees.DEEPEST``)."""
FIXTURE_KEY_BYTES = 1024
"""How long a tree key may be: the key below a temporary directory stays well within
the longest path the kernel takes (``PATH_MAX``, 4096 bytes)."""
PATH_TYPES = frozenset({f"{WIRE_ID}#/$defs/path", f"{WIRE_ID}#/$defs/result-path"})

_PLACEHOLDER_ROOT = "/\0root"
# A captured value may be any text, an absolute path outside the root included.
_CAPTURED_STAND_IN = "/\0captured"


@dataclass(frozen=True)
class OpPaths:
    """The selectors of an op's members that are file-system paths."""

    args: tuple[str, ...] = ()
    result: tuple[str, ...] = ()


def _member(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name


Lookup = Callable[[str, str], Any]
"""What a ``$ref`` names, given the URI of the document holding it; None for nothing."""


@dataclass(frozen=True)
class _Walk:
    lookup: Lookup
    base: str
    seen: frozenset[str] = frozenset()

    def paths(self, node: Any, where: str) -> Iterator[str]:
        if not isinstance(node, Mapping):
            return
        ref = node.get("$ref")
        if isinstance(ref, str):
            target = urljoin(self.base, ref)
            if target in PATH_TYPES:
                yield where
            elif target not in self.seen:
                inner = _Walk(self.lookup, urldefrag(target).url, self.seen | {target})
                yield from inner.paths(self.lookup(ref, self.base), where)
        for combinator in ("anyOf", "oneOf", "allOf"):
            for branch in node.get(combinator, ()):
                yield from self.paths(branch, where)
        for name, member in node.get("properties", {}).items():
            yield from self.paths(member, _member(where, name))
        for keyword, mark in (("items", "[]"), ("additionalProperties", "{}")):
            yield from self.paths(node.get(keyword), where + mark)


def selectors(schema: Mapping[str, Any], base: str, resolve: Lookup = lookup) -> tuple[str, ...]:
    """The selectors of the members of ``schema`` (one part of the op schema whose $id is
    ``base``) that are file-system paths, each once, in schema order. ``$ref`` is
    followed through ``resolve`` (the op schemas and wire.json), but not again inside
    what it names: a recursive schema's paths are read one level deep."""
    return tuple(dict.fromkeys(_Walk(resolve, base).paths(schema, "")))


@functools.cache
def path_table() -> dict[str, OpPaths]:
    """The path members of every op that has a schema."""
    table = {}
    for op in ops_with_schemas():
        schema = op_schema(op)
        assert schema is not None
        base = str(schema.get("$id", ""))
        defs = schema.get("$defs", {})
        table[op] = OpPaths(*(selectors(defs.get(part, {}), base) for part in ("args", "result")))
    return table


def select(value: Any, selector: str) -> Iterator[Any]:
    """Every value ``selector`` picks out of ``value`` (nothing where it does not fit)."""
    if selector == "":
        yield value
        return
    head, _, rest = selector.partition(".")
    key = head.rstrip("[]{}")
    if key:
        if not isinstance(value, Mapping) or key not in value:
            return
        value = value[key]
    yield from _each(value, head[len(key) :], rest)


def _each(value: Any, marks: str, rest: str) -> Iterator[Any]:
    """``select`` of ``rest`` in each item (``[]``) or member value (``{}``) of ``value``,
    one level per mark."""
    if not marks:
        yield from select(value, rest)
        return
    if marks.startswith("[]") and isinstance(value, list):
        items = list(value)
    elif marks.startswith("{}") and isinstance(value, Mapping):
        items = list(value.values())
    else:
        return
    for item in items:
        yield from _each(item, marks[2:], rest)


def path_arguments(
    op: str, args: Mapping[str, Any], table: Mapping[str, OpPaths] | None = None
) -> list[str]:
    """The path strings among the arguments of one request (the op schemas' paths unless
    ``table`` is given)."""
    declared = (path_table() if table is None else table).get(op, OpPaths())
    return [v for s in declared.args for v in select(args, s) if isinstance(v, str)]


def _placeheld(text: str) -> str:
    """The path as the harness would send it, with a root no real path starts with."""
    if "${" not in text:  # no token: most paths, and the load of every case checks them
        return text
    text = CAPTURED.sub(_CAPTURED_STAND_IN, text)
    held: str = substitute(for_worker(text, 0, 0), _PLACEHOLDER_ROOT)
    return held


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


def _relative_leaves_root(relative: str) -> bool:
    """Whether a path the harness makes or reads relative to the root (a tree key, a
    race's directories, a held lock, a readers' file) names a place outside it."""
    if "${" not in relative and not relative.startswith("/") and ".." not in relative.split("/"):
        return False
    held = _placeheld(relative)
    return held.startswith("/") or not _inside(posixpath.join(_PLACEHOLDER_ROOT, held))


_FILE_MEMBERS = {"text", "base64", "file", "text_pattern", "lines_any_order", "entries_any_order"}
"""The members that make a tree entry a regular file."""


def _tree_problems(tree: Mapping[str, Any], where: str) -> Iterator[str]:
    for key in sorted(tree):
        if _relative_leaves_root(key):
            yield f"{where}: key {key!r} is outside ${{ROOT}}"
        elif key.count("/") >= FIXTURE_DEPTH or len(key.encode("utf-8", "surrogatepass")) > (
            FIXTURE_KEY_BYTES
        ):
            yield (
                f"{where}: key {key[:60]!r}... is more than {FIXTURE_DEPTH} levels or "
                f"{FIXTURE_KEY_BYTES} bytes long"
            )
    for link, spec in sorted(tree.items()):
        target = spec.get("symlink") if isinstance(spec, Mapping) else None
        if isinstance(target, str) and _target_leaves_root(link, target):
            yield f"{where}: symlink {link} -> {target!r} leads outside ${{ROOT}}"
        named = spec.get("hardlink") if isinstance(spec, Mapping) else None
        if isinstance(named, str):
            file = tree.get(named)
            if _relative_leaves_root(named) or ".." in named.split("/"):
                yield f"{where}: hard link {link} -> {named!r} leads outside ${{ROOT}}"
            elif not isinstance(file, Mapping) or not (_FILE_MEMBERS & set(file)):
                yield f"{where}: hard link {link} -> {named!r} names no file of the tree"


def _setup_problems(case: Case) -> Iterator[str]:
    for number, action in enumerate(case.setup, 1):
        for argument in action.get("git", []):
            value = str(argument).rpartition("=")[2] if str(argument).startswith("-") else argument
            if leaves_root(str(value)):
                yield f"set-up action {number}: git argument {argument!r} is outside ${{ROOT}}"
        cwd = action.get("cwd", ".")
        if not _inside(posixpath.join(_PLACEHOLDER_ROOT, _placeheld(str(cwd)))):
            yield f"set-up action {number}: cwd {cwd!r} is outside ${{ROOT}}"


def case_path_problems(case: Case, table: Mapping[str, OpPaths] | None = None) -> list[str]:
    """Every absolute path of ``case`` outside ``${ROOT}``, one line each (the op
    schemas' paths unless ``table`` is given)."""
    table = path_table() if table is None else table
    problems = list(_tree_problems(case.tree, "tree"))
    problems.extend(_setup_problems(case))
    for number, step in enumerate(case.steps, 1):
        declared = table.get(step.op, OpPaths())
        where = f"step {number} ({step.op})"
        places = {
            "race swap": step.race.swap if step.race else None,
            "race outside": step.race.outside if step.race else None,
            "hold_lock path": step.hold_lock.path if step.hold_lock else None,
            "readers path": step.readers.path if step.readers else None,
        }
        for name, place in places.items():
            if place is not None and _relative_leaves_root(place):
                problems.append(f"{where}: {name} {place!r} is outside ${{ROOT}}")
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
