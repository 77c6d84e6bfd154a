"""The fixture corpus as typed values: a case has a tree and one or more steps."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from memspec.corpus.data import fixtures_dir, schema_path
from memspec.corpus.step_forms import HeldLock, Readers, held_lock_of, readers_of
from memspec.exceptions import FixtureError

__all__ = [
    "Case",
    "Concurrency",
    "Expectation",
    "Observation",
    "Race",
    "Step",
    "case_from_json",
    "crash_points_id",
    "fixture_case_ids",
    "fixture_files",
    "load_case",
    "load_cases",
    "refuse_unreadable_nesting",
    "schema_errors",
]

DEEPEST_NESTING = 100
"""How deeply a fixture may nest arrays and objects: ten times what any case needs, and
well within what every reader of a case (the schema's validator among them) can follow."""


@dataclass(frozen=True)
class Expectation:
    """What one step must produce: a result or an error, and optionally the tree after it."""

    result: Any = None
    has_result: bool = False
    error_kind: str | None = None
    error_message: str | None = None
    tree: Mapping[str, Any] | None = None
    results: tuple[Any, ...] | None = None
    """Concurrent steps: every reply's result, as a multiset."""
    any_of: tuple[Expectation, ...] | None = None
    """Race steps: every reply meets one of these."""

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Expectation:
        error = data.get("error")
        results = data.get("results")
        any_of = data.get("any_of")
        return cls(
            result=data.get("result"),
            has_result="result" in data,
            error_kind=error["kind"] if error else None,
            error_message=error.get("message") if error else None,
            tree=data.get("tree"),
            results=tuple(results) if results is not None else None,
            any_of=tuple(cls.from_json(item) for item in any_of) if any_of is not None else None,
        )


@dataclass(frozen=True)
class Concurrency:
    """Send a step from ``workers`` connections at once, each ``repeat`` times."""

    workers: int
    repeat: int = 1


@dataclass(frozen=True)
class Race:
    """Send a step while the harness swaps the directory ``swap`` for a link to the
    directory ``outside`` (both relative to the root), over and over, until a reply or
    what lies outside gives the op away, or the budget is spent: ``repeat`` sends or
    ``seconds`` of racing, whichever comes first."""

    swap: str
    outside: str
    repeat: int = 50
    seconds: float = 10.0


@dataclass(frozen=True)
class Observation:
    """A call that shows state the tree does not, with its answer before and after the
    step."""

    op: str
    args: Mapping[str, Any]
    before: Any
    after: Any


@dataclass(frozen=True)
class Step:
    op: str
    args: Mapping[str, Any]
    expect: Expectation
    capture: Mapping[str, str] = field(default_factory=dict)
    """Names for text in the result, by JSON pointer (``memspec.run.captures``)."""
    concurrent: Concurrency | None = None
    crash_points: bool = False
    race: Race | None = None
    crash_points_idempotent: bool = True
    """False: after a failed mutation the step is rerun only when its tree is not yet the
    expected one, and only once (an op that adds a file each time it runs)."""
    hold_lock: HeldLock | None = None
    readers: Readers | None = None
    crash_points_all_or_nothing: bool = True
    """False: the op may leave part of its work for the next run, so the state right
    after a failed mutation is not checked."""
    crash_points_observe: tuple[Observation, ...] = ()
    """Calls whose answers are part of the state a crash point checks."""
    crash_points_prepared: tuple[str, ...] = ()
    """Globs of entries the op makes or changes before its write and may leave after a
    fault (a lock file, a directory made private): right after a failed mutation each may
    be as before or as after, whatever the rest is."""


@dataclass(frozen=True)
class Case:
    id: str
    description: str
    requirements: tuple[str, ...]
    steps: tuple[Step, ...]
    tree: Mapping[str, Any] = field(default_factory=dict)
    requires: tuple[str, ...] = ()
    host: tuple[str, ...] = ()
    source: str = ""
    divergence: str = ""
    path: Path | None = None
    setup: tuple[Mapping[str, Any], ...] = ()
    tree_ignore: tuple[str, ...] = ()

    @property
    def profile(self) -> str:
        return self.id.split("/", 1)[0]

    @property
    def area(self) -> str:
        return self.id.split("/")[1]


@functools.cache
def _validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(schema_path("case.schema.json").read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def schema_errors(data: Any) -> list[str]:
    """Every way ``data`` breaks the case schema, as ``location: message`` lines."""
    if _nesting_depth(data) > DEEPEST_NESTING:
        return [f"(top): nested more than {DEEPEST_NESTING} levels deep"]
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in errors]


def _nesting_depth(data: Any) -> int:
    """How deeply arrays and objects nest in ``data``, counted without recursion and only
    as far as one level past the limit."""
    deepest = 0
    pending = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        if not isinstance(value, (dict, list)):
            continue
        deepest = max(deepest, depth)
        if depth <= DEEPEST_NESTING:
            children = value.values() if isinstance(value, dict) else value
            pending.extend((child, depth + 1) for child in children)
    return deepest


def refuse_unreadable_nesting(path: Path) -> None:
    """Raise FixtureError, as ``load_case`` does, when the file is JSON nested past what
    Python's parser can follow; any other flaw is left to the caller."""
    try:
        json.loads(path.read_bytes())
    except RecursionError:
        raise _too_deep_to_read(path) from None
    except (OSError, ValueError):
        pass


def _too_deep_to_read(path: Path) -> FixtureError:
    return FixtureError(f"{path}: cannot read fixture: nested too deeply")


def case_from_json(data: Mapping[str, Any], path: Path | None = None) -> Case:
    if "steps" in data:
        raw_steps = data["steps"]
    else:
        raw_steps = [{"op": data["op"], "args": data["args"], "expect": data["expect"]}]
    steps = tuple(_step(raw) for raw in raw_steps)
    return Case(
        id=data["id"],
        description=data["description"],
        requirements=tuple(data["requirements"]),
        steps=steps,
        tree=data.get("tree", {}),
        requires=tuple(data.get("requires", ())),
        host=tuple(data.get("host", ())),
        source=data.get("source", ""),
        divergence=data.get("divergence", ""),
        path=path,
        setup=tuple(data.get("setup", ())),
        tree_ignore=tuple(data.get("tree_ignore", ())),
    )


def _step(raw: Mapping[str, Any]) -> Step:
    concurrent = raw.get("concurrent")
    return Step(
        op=raw["op"],
        args=raw["args"],
        expect=Expectation.from_json(raw.get("expect", {})),
        capture=dict(raw.get("capture", {})),
        concurrent=Concurrency(concurrent["workers"], concurrent.get("repeat", 1))
        if concurrent
        else None,
        crash_points=bool(raw.get("crash_points")),
        race=Race(**raw["race"]) if "race" in raw else None,
        crash_points_idempotent=_crash_points_option(raw.get("crash_points"), "idempotent"),
        crash_points_all_or_nothing=_crash_points_option(raw.get("crash_points"), "all_or_nothing"),
        crash_points_observe=_observations(raw.get("crash_points")),
        crash_points_prepared=_prepared(raw.get("crash_points")),
        hold_lock=held_lock_of(raw.get("hold_lock")),
        readers=readers_of(raw.get("readers")),
    )


def _crash_points_option(raw: Any, name: str) -> bool:
    return not isinstance(raw, Mapping) or bool(raw.get(name, True))


def _prepared(raw: Any) -> tuple[str, ...]:
    return tuple(raw.get("prepared", ())) if isinstance(raw, Mapping) else ()


def _observations(raw: Any) -> tuple[Observation, ...]:
    if not isinstance(raw, Mapping):
        return ()
    return tuple(
        Observation(item["op"], item["args"], item["before"], item["after"])
        for item in raw.get("observe", ())
    )


def load_case(path: Path, root: Path, valid: set[str] | None = None) -> Case:
    """Read one fixture file, check it against the schema, its id against its path, and
    that no path of it leaves ``${ROOT}`` (``memspec.corpus.case_paths``, as ``lint`` does).

    ``valid`` holds digests of files already found valid (against the schema, and with
    no path leaving ``${ROOT}``) under the same rules (``_rules_digest``); a file whose
    digest is there is not checked again, and a newly valid one is added.
    """
    try:
        raw = path.read_bytes()
        data = json.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FixtureError(f"{path}: cannot read fixture: {exc}") from exc
    except RecursionError:
        raise _too_deep_to_read(path) from None
    digest = hashlib.sha256(raw).hexdigest()
    known = valid is not None and digest in valid
    if not known:
        problems = schema_errors(data)
        if problems:
            raise FixtureError(f"{path}: breaks the case schema: {problems[0]}")
    expected_id = path.relative_to(root).with_suffix("").as_posix()
    if data["id"] != expected_id:
        raise FixtureError(f"{path}: id {data['id']!r} does not match its path {expected_id!r}")
    case = case_from_json(data, path)
    if not known:
        from memspec.corpus.case_paths import case_path_problems  # it reads cases' types

        escapes = case_path_problems(case)
        if escapes:
            raise FixtureError(f"{path}: {escapes[0]}")
        if valid is not None:
            valid.add(digest)
    return case


def fixture_files(root: Path) -> list[Path]:
    """Every ``*.json`` below ``root`` (not below a symlinked folder), but those with a
    part of their path starting with ``_`` or ``.``."""
    found = []
    for folder, folders, files in os.walk(root):
        found += [Path(folder, name) for name in (*folders, *files) if _fixture_name(name)]
        folders[:] = [name for name in folders if not _hidden(name)]
    return sorted(found)


def _fixture_name(name: str) -> bool:
    return name.endswith(".json") and not _hidden(name)


def _hidden(name: str) -> bool:
    return name.startswith(("_", "."))


def load_cases(root: Path | None = None, profiles: Iterable[str] | None = None) -> list[Case]:
    """All cases below ``root`` (the bundled fixtures by default), sorted by id."""
    base = root or fixtures_dir()
    wanted = set(profiles) if profiles else None
    return [case for case in _load_all(base.resolve()) if wanted is None or case.profile in wanted]


def crash_points_id(case_id: str) -> str:
    """The id under which a case's crash points are reported."""
    return f"{case_id}/crash-points"


def fixture_case_ids(cases: Iterable[Case]) -> set[str]:
    """The id of every case, and the crash-points id of each that has a crash-points step."""
    ids = set()
    for case in cases:
        ids.add(case.id)
        if any(step.crash_points for step in case.steps):
            ids.add(crash_points_id(case.id))
    return ids


@functools.lru_cache(maxsize=8)
def _load_all(base: Path) -> tuple[Case, ...]:
    # One run reads the corpus several times (collection, selection, coverage): once is
    # enough. A changed fixture file is a new run.
    files = fixture_files(base)
    if not files:
        raise FixtureError(f"no fixture files found below {base}")
    cache = _validation_cache()
    valid = _read_digests(cache)
    known = len(valid)
    cases = tuple(sorted((load_case(path, base, valid) for path in files), key=lambda c: c.id))
    if len(valid) != known:
        _write_digests(cache, valid)
    return cases


def cache_dir() -> Path | None:
    """memspec's cache folder: ``MEMSPEC_CACHE_DIR``, else ``memspec`` in
    ``XDG_CACHE_HOME``, else in ``~/.cache``; only an absolute one, and None (no cache)
    when none of them is (an empty ``HOME``, a relative ``XDG_CACHE_HOME``), so that
    memspec never writes at the root of the file system or where it was started."""
    own = os.environ.get("MEMSPEC_CACHE_DIR")
    if own is not None:
        return Path(own) if os.path.isabs(own) else None
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg) / "memspec"
    home = os.environ.get("HOME", "")
    return Path(home) / ".cache" / "memspec" if os.path.isabs(home) and home != "/" else None


def _validation_cache() -> Path | None:
    folder = cache_dir()
    if folder is None:
        return None
    return folder / f"valid-cases-{_rules_digest()[:16]}"


def _rules_digest() -> str:
    """A digest of what a fixture is checked against: the case schema, the op schemas
    (which members are paths) and the rules for paths."""
    from memspec.corpus import case_paths
    from memspec.corpus.op_schemas import schema_files

    rules = hashlib.sha256(schema_path("case.schema.json").read_bytes())
    for path in schema_files():
        rules.update(f"\0{path.parent.name}/{path.name}\0".encode() + path.read_bytes())
    rules.update(Path(case_paths.__file__).read_bytes())
    return rules.hexdigest()


def _read_digests(cache: Path | None) -> set[str]:
    if cache is None:
        return set()
    try:
        return set(cache.read_text(encoding="ascii").split())
    except (OSError, UnicodeDecodeError):
        return set()


def _write_digests(cache: Path | None, digests: set[str]) -> None:
    if cache is None:
        return
    # A cache that cannot be written only costs time on the next run.
    with contextlib.suppress(OSError):
        cache.parent.mkdir(parents=True, exist_ok=True)
        temporary = cache.with_name(f"{cache.name}.{os.getpid()}.tmp")
        temporary.write_text("\n".join(sorted(digests)), encoding="ascii")
        os.replace(temporary, cache)
