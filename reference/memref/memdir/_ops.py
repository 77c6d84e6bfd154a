"""The ``memdir.*`` protocol operations: wire arguments in, wire results out."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from memref import _wire
from memref._gostr import encode
from memref._wire import text_out, time_out
from memref.errors import OpError
from memref.memdir import _constants
from memref.memdir._age import age, age_days, freshness_note, freshness_text
from memref.memdir._containment import check_write_path, is_in_memory_dir
from memref.memdir._dream import (
    count_touched_since,
    gate_open,
    read_last_consolidated_at,
    rollback,
    try_acquire,
)
from memref.memdir._frontmatter import parse_frontmatter
from memref.memdir._index import read_index, truncate_index
from memref.memdir._load import load
from memref.memdir._manifest import format_manifest
from memref.memdir._paths import ensure_memory_dir, memory_dir, memory_index_path
from memref.memdir._project_key import project_key
from memref.memdir._recall import find_relevant, parse_selected
from memref.memdir._scan import MemoryHeader, scan_memory_files
from memref.memdir._type import parse_memory_type

__all__ = ["OPS"]

Args = Mapping[str, Any]

_INT64 = range(-(1 << 63), 1 << 63)


def _checked(name: str, value: str) -> str:
    # A JSON string may carry an unpaired surrogate escape, which names no bytes.
    try:
        encode(value)
    except UnicodeEncodeError as exc:
        raise OpError("invalid-args", f"argument {name!r} holds an unpaired surrogate") from exc
    return value


def _str(args: Args, name: str) -> str:
    return _checked(name, _wire.arg_str(args, name))


def _text(args: Args, name: str) -> str:
    return _checked(name, _wire.arg_text(args, name))


def _str_list(args: Args, name: str) -> list[str]:
    return [_checked(name, item) for item in _wire.arg_str_list(args, name)]


def _int64(args: Args, name: str) -> int:
    value = _wire.arg_int(args, name)
    if value not in _INT64:
        raise OpError("invalid-args", f"argument {name!r} is outside the int64 range")
    return value


def _constants_op(args: Args) -> Any:
    return _constants.as_dict()


def _parse_frontmatter_op(args: Args) -> Any:
    frontmatter, body = parse_frontmatter(_text(args, "content"))
    return {
        "frontmatter": {key: text_out(value) for key, value in frontmatter.items()},
        "body": text_out(body),
    }


def _parse_memory_type_op(args: Args) -> Any:
    memory_type, ok = parse_memory_type(_text(args, "raw"))
    return {"type": memory_type, "ok": ok}


def _aged(function: Callable[[int, int | None], Any]) -> Callable[[Args], Any]:
    def op(args: Args) -> Any:
        return function(_wire.arg_time(args, "mtime"), _wire.arg_time(args, "now"))

    return op


def _memory_dir_op(args: Args) -> Any:
    return memory_dir(_str(args, "app_home"))


def _memory_index_path_op(args: Args) -> Any:
    return memory_index_path(_str(args, "app_home"))


def _ensure_memory_dir_op(args: Args) -> Any:
    ensure_memory_dir(_str(args, "app_home"))
    return None


def _project_key_op(args: Args) -> Any:
    flavour = _wire.arg_str(args, "os")
    if flavour == "posix":
        return project_key(_str(args, "path"), "posix")
    if flavour == "windows":
        return project_key(_str(args, "path"), "windows")
    raise OpError("invalid-args", 'argument \'os\' must be "posix" or "windows"')


def _is_in_memory_dir_op(args: Args) -> Any:
    return is_in_memory_dir(_str(args, "app_home"), _str(args, "path"), _str(args, "cwd"))


def _check_write_path_op(args: Args) -> Any:
    check = check_write_path(_str(args, "memory_dir"), _str(args, "path"))
    return {"allowed": check.allowed, "reason": check.reason}


def _index_result(body: str, warning: str) -> Any:
    return {"body": text_out(body), "warning": text_out(warning)}


def _truncate_index_op(args: Args) -> Any:
    return _index_result(*truncate_index(_text(args, "raw")))


def _read_index_op(args: Args) -> Any:
    return _index_result(*read_index(_str(args, "app_home")))


def _load_op(args: Args) -> Any:
    auto_memory = _wire.arg_bool(args, "auto_memory")
    snapshot = load(_str(args, "workdir"), _str(args, "app_home"), auto_memory)
    return {
        "workdir_memory": text_out(snapshot.workdir_memory),
        "memory_index": text_out(snapshot.memory_index),
        "memory_dir": text_out(snapshot.memory_dir),
        "warnings": [text_out(warning) for warning in snapshot.warnings],
    }


def _header_out(header: MemoryHeader) -> dict[str, Any]:
    return {
        "filename": text_out(header.filename),
        "path": text_out(header.path),
        "mtime": time_out(header.mtime),
        "description": text_out(header.description),
        "type": header.type,
    }


def _scan_memory_files_op(args: Args) -> Any:
    return [_header_out(header) for header in scan_memory_files(_str(args, "dir"))]


def _header_in(index: int, item: Any) -> MemoryHeader:
    if not isinstance(item, dict):
        raise OpError("invalid-args", f"headers[{index}] must be an object")
    name = f"headers[{index}]"
    return MemoryHeader(
        filename=_checked(name, _wire.arg_text(item, "filename")),
        path=_checked(name, _wire.arg_text(item, "path", "")),
        mtime=_wire.arg_time(item, "mtime"),
        description=_checked(name, _wire.arg_text(item, "description", "")),
        type=_checked(name, _wire.arg_text(item, "type", "")),
    )


def _format_manifest_op(args: Args) -> Any:
    headers = args.get("headers")
    if not isinstance(headers, list):
        raise OpError("invalid-args", "argument 'headers' must be a list")
    return text_out(format_manifest(_header_in(i, item) for i, item in enumerate(headers)))


def _parse_selected_op(args: Args) -> Any:
    selected = parse_selected(_text(args, "reply"))
    return None if selected is None else [text_out(name) for name in selected]


def _find_relevant_op(args: Args) -> Any:
    model_arg = args.get("model")
    directory = _str(args, "dir")
    query = _str(args, "query")
    recent_tools = _str_list(args, "recent_tools")
    surfaced = _str_list(args, "already_surfaced")
    calls: list[dict[str, Any]] = []
    model = None
    if model_arg is not None:
        if not isinstance(model_arg, dict) or set(model_arg) not in ({"reply"}, {"error"}):
            raise OpError("invalid-args", "argument 'model' must hold 'reply' or 'error'")
        reply = None if "error" in model_arg else _text(model_arg, "reply")

        def model(user: str, max_tokens: int) -> str:
            calls.append({"user": text_out(user), "max_tokens": max_tokens})
            if reply is None:
                raise RuntimeError(str(model_arg.get("error")))
            return reply

    selected = find_relevant(model, query, directory, recent_tools, surfaced)
    return {"selected": [text_out(header.filename) for header in selected], "model_calls": calls}


def _read_last_consolidated_at_op(args: Args) -> Any:
    return time_out(read_last_consolidated_at(_str(args, "memory_dir")))


def _try_acquire_op(args: Args) -> Any:
    now = _wire.arg_time(args, "now")
    acquired = try_acquire(_str(args, "memory_dir"), now, _int64(args, "pid"))
    return {"prior": time_out(acquired.prior), "ok": acquired.ok}


def _rollback_op(args: Args) -> Any:
    rollback(_str(args, "memory_dir"), _wire.arg_time_or_none(args, "prior"))
    return None


def _count_touched_since_op(args: Args) -> Any:
    return count_touched_since(
        _str(args, "app_home"), _wire.arg_time_or_none(args, "since"), _str(args, "exclude_id")
    )


def _gate_open_op(args: Args) -> Any:
    decision = gate_open(
        enabled=_wire.arg_bool(args, "enabled"),
        min_hours=_int64(args, "min_hours"),
        min_sessions=_int64(args, "min_sessions"),
        app_home=_str(args, "app_home"),
        memory_dir=_str(args, "memory_dir"),
        current_session_id=_str(args, "current_session_id"),
        now=_wire.arg_time(args, "now"),
        last_scan_at=_wire.arg_time_or_none(args, "last_scan_at"),
        pid=_int64(args, "pid"),
    )
    return {
        "fire": decision.fire,
        "prior": time_out(decision.prior),
        "sessions": decision.sessions,
        "reason": decision.reason,
        "new_scan_at": time_out(decision.new_scan_at),
    }


OPS: dict[str, Callable[[Args], Any]] = {
    "memdir.constants": _constants_op,
    "memdir.parse_frontmatter": _parse_frontmatter_op,
    "memdir.parse_memory_type": _parse_memory_type_op,
    "memdir.age_days": _aged(age_days),
    "memdir.age": _aged(age),
    "memdir.freshness_text": _aged(freshness_text),
    "memdir.freshness_note": _aged(freshness_note),
    "memdir.memory_dir": _memory_dir_op,
    "memdir.memory_index_path": _memory_index_path_op,
    "memdir.ensure_memory_dir": _ensure_memory_dir_op,
    "memdir.project_key": _project_key_op,
    "memdir.is_in_memory_dir": _is_in_memory_dir_op,
    "memdir.check_write_path": _check_write_path_op,
    "memdir.truncate_index": _truncate_index_op,
    "memdir.read_index": _read_index_op,
    "memdir.load": _load_op,
    "memdir.scan_memory_files": _scan_memory_files_op,
    "memdir.format_manifest": _format_manifest_op,
    "memdir.parse_selected": _parse_selected_op,
    "memdir.find_relevant": _find_relevant_op,
    "memdir.read_last_consolidated_at": _read_last_consolidated_at_op,
    "memdir.try_acquire": _try_acquire_op,
    "memdir.rollback": _rollback_op,
    "memdir.count_touched_since": _count_touched_since_op,
    "memdir.gate_open": _gate_open_op,
}
