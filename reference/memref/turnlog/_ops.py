"""The ``turnlog.*`` protocol operations: wire arguments in, wire results out."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from memref import _wire
from memref._gostr import encode
from memref._wire import text_out
from memref.errors import OpError
from memref.turnlog import _constants
from memref.turnlog._enabled import turn_memory_enabled
from memref.turnlog._filename import filename
from memref.turnlog._manager_script import DEFAULT_SETTLE_MS, run_script
from memref.turnlog._outline import outline
from memref.turnlog._prompt import SUMMARY_SYSTEM_PROMPT
from memref.turnlog._store import Entry, Store, unix_milli
from memref.turnlog._write import ZERO_NS, Meta, memory_dir, write

__all__ = ["CAPABILITIES", "OPS"]

Args = Mapping[str, Any]

CAPABILITIES = ("threads",)

_INT64 = range(-(1 << 63), 1 << 63)


def _checked(name: str, value: str) -> str:
    try:
        encode(value)
    except UnicodeEncodeError as exc:
        raise OpError("invalid-args", f"argument {name!r} holds an unpaired surrogate") from exc
    return value


def _str(args: Args, name: str, default: Any = None) -> str:
    if default is None:
        return _checked(name, _wire.arg_str(args, name))
    return _checked(name, _wire.arg_str(args, name, default))


def _text(args: Args, name: str, default: Any = None) -> str:
    if default is None:
        return _checked(name, _wire.arg_text(args, name))
    return _checked(name, _wire.arg_text(args, name, default))


def _path(args: Args, name: str) -> str:
    value = _str(args, name)
    if "\x00" in value:
        raise OpError("invalid-args", f"argument {name!r} holds a NUL byte")
    return value


def _dir(args: Args, name: str) -> str:
    value = _path(args, name)
    if not value.startswith("/"):
        raise OpError("invalid-args", f"argument {name!r} must be an absolute path")
    return value


def _instant(args: Args, name: str) -> int:
    """An instant or null (Go's zero time); a missing member is null too."""
    value = _wire.arg_time_or_none(args, name)
    return ZERO_NS if value is None else value


def _now(args: Args) -> int:
    if args.get("now") is None:
        raise OpError("invalid-args", "argument 'now' must be an RFC 3339 timestamp")
    return _wire.arg_time(args, "now")


def _millis(args: Args, name: str) -> int:
    value = _wire.arg_int(args, name, 0)
    if value not in _INT64:
        raise OpError("invalid-args", f"argument {name!r} is outside the int64 range")
    return value


def _ms_of(name: str, ns: int) -> int:
    if unix_milli(ns) not in _INT64:
        raise OpError("invalid-args", f"argument {name!r} is outside the int64 millisecond range")
    return ns


def _entry_out(entry: Entry) -> dict[str, Any]:
    return {
        "path": text_out(entry.path),
        "session_id": text_out(entry.session_id),
        "project_id": text_out(entry.project_id),
        "title": text_out(entry.title),
        "outline": text_out(entry.outline),
        "created_at": entry.created_at,
        "indexed_at": entry.indexed_at,
    }


def _store(args: Args) -> Store:
    return Store(_dir(args, "store_dir"))


def _constants_op(args: Args) -> Any:
    return _constants.as_dict()


def _turn_memory_enabled_op(args: Args) -> Any:
    env = args.get("env")
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise OpError("invalid-args", "argument 'env' must be an object of strings")
    return turn_memory_enabled({key: _checked("env", value) for key, value in env.items()})


def _filename_op(args: Args) -> Any:
    return text_out(
        filename(_instant(args, "created_at"), _text(args, "session_id"), _text(args, "title"))
    )


def _memory_dir_op(args: Args) -> Any:
    return memory_dir(_path(args, "project_dir"))


def _meta(args: Args, *, store: bool = False) -> Meta:
    get = _str if store else _text
    return Meta(
        session_id=get(args, "session_id", ""),
        project_id=get(args, "project_id", ""),
        session_type="" if store else _text(args, "session_type", ""),
        title=get(args, "title", ""),
        created_at=_ms_of("created_at", _instant(args, "created_at")),
    )


def _write_op(args: Args) -> Any:
    meta = _meta(args)
    body = _text(args, "body")
    return text_out(write(_dir(args, "project_dir"), meta, body, _now(args)))


def _outline_op(args: Args) -> Any:
    # A path holding NUL cannot be examined: its outline is "" (TURNLOG-OUT-001).
    return text_out(outline(_str(args, "path")))


def _index_file_op(args: Args) -> Any:
    path = _str(args, "path")
    meta = _meta(args, store=True)
    now = _ms_of("now", _now(args))
    with _store(args) as store:
        return _entry_out(store.index_file(path, meta, now))


_ITEM_KEYS = frozenset({"path", "session_id", "project_id", "title", "created_at"})


def _index_files_op(args: Args) -> Any:
    items = args.get("items")
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise OpError("invalid-args", "argument 'items' must be a list of objects")
    batch = []
    for item in items:
        unknown = set(item) - _ITEM_KEYS
        if unknown:
            raise OpError(
                "invalid-args", f"argument 'items': unknown member {sorted(unknown)[0]!r}"
            )
        batch.append((_str(item, "path"), _meta(item, store=True)))
    now = _ms_of("now", _now(args))
    with _store(args) as store:
        return [_entry_out(entry) for entry in store.index_files(batch, now)]


def _is_indexed_op(args: Args) -> Any:
    path = _str(args, "path")
    with _store(args) as store:
        return store.is_indexed(path)


def _upsert_op(args: Args) -> Any:
    entry = Entry(
        path=_str(args, "path"),
        session_id=_str(args, "session_id", ""),
        project_id=_str(args, "project_id", ""),
        title=_str(args, "title", ""),
        outline=_str(args, "outline", ""),
        created_at=_millis(args, "created_at"),
        indexed_at=_millis(args, "indexed_at"),
    )
    now = _ms_of("now", _now(args))
    with _store(args) as store:
        return _entry_out(store.upsert(entry, now))


def _lister(column: str, method: str) -> Callable[[Args], Any]:
    def op(args: Args) -> Any:
        value = _str(args, column)
        with _store(args) as store:
            entries: list[Entry] = getattr(store, method)(value)
        return [_entry_out(entry) for entry in entries]

    return op


def _purge_missing_op(args: Args) -> Any:
    project_id = _str(args, "project_id")
    with _store(args) as store:
        store.purge_missing(project_id)
    return None


def _summary_system_prompt_op(args: Args) -> Any:
    return SUMMARY_SYSTEM_PROMPT


def _manager_script_op(args: Args) -> Any:
    settle = _wire.arg_int(args, "settle_ms", DEFAULT_SETTLE_MS)
    if "script" not in args:
        raise OpError("invalid-args", "missing argument 'script'")
    return run_script(args["script"], settle)


OPS: dict[str, Callable[[Args], Any]] = {
    "turnlog.constants": _constants_op,
    "turnlog.turn_memory_enabled": _turn_memory_enabled_op,
    "turnlog.filename": _filename_op,
    "turnlog.memory_dir": _memory_dir_op,
    "turnlog.write": _write_op,
    "turnlog.outline": _outline_op,
    "turnlog.index_file": _index_file_op,
    "turnlog.index_files": _index_files_op,
    "turnlog.is_indexed": _is_indexed_op,
    "turnlog.upsert": _upsert_op,
    "turnlog.list_by_project": _lister("project_id", "list_by_project"),
    "turnlog.list_by_session": _lister("session_id", "list_by_session"),
    "turnlog.purge_missing": _purge_missing_op,
    "turnlog.summary_system_prompt": _summary_system_prompt_op,
    "turnlog.manager_script": _manager_script_op,
}
