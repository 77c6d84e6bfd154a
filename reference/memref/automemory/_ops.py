"""The ``automemory.*`` protocol operations: wire arguments in, wire results out."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from memref import _wire
from memref.automemory import _constants
from memref.automemory._carve_out import carve_out, carve_out_lexical
from memref.automemory._comments import strip_html_comments
from memref.automemory._freshness import freshness
from memref.automemory._frontmatter import parse_memory_file
from memref.automemory._index import IndexLoad, format_size, load_index, quote_cut, read_index
from memref.automemory._index_line import IndexEntry, index_line, rebuild_index
from memref.automemory._memory_dir import key_base, memory_dir, validate_memory_path
from memref.automemory._project_key import path_hash, project_dir_name, project_key, to_base36
from memref.automemory._reminder import size_reminder
from memref.automemory._sanitize import sanitize
from memref.automemory._scan import ScanHeader, format_manifest, scan_memory_files
from memref.automemory._units import from_units, to_units
from memref.automemory._writer import format_memory_file, slug_name, write_memory_file
from memref.errors import OpError, kind_for_errno

__all__ = ["OPS"]

Args = Mapping[str, Any]
NS_PER_MS = 1_000_000


def _text(args: Args, name: str, default: Any = ...) -> str:
    # Text of this profile is Unicode: base64 of bytes that are not UTF-8 is refused too.
    value = _wire.arg_text(args, name) if default is ... else _wire.arg_text(args, name, default)
    return _wire.utf8_text(name, value)


def _optional_text(args: Args, name: str) -> str | None:
    return None if args.get(name) is None else _text(args, name)


def _env(args: Args) -> dict[str, str]:
    env = args.get("env", {})
    if not isinstance(env, dict) or not all(
        isinstance(key, str) and isinstance(value, str) for key, value in env.items()
    ):
        raise OpError("invalid-args", "argument 'env' must map names to strings")
    return {key: _wire.utf8_text("env", value) for key, value in env.items()}


def _object(args: Args, name: str) -> dict[str, Any]:
    value = args.get(name, {})
    if not isinstance(value, dict):
        raise OpError("invalid-args", f"argument {name!r} must be an object")
    return value


def _json(value: Any) -> Any:
    """A parsed YAML value as JSON: integral numbers as integers, others as numbers."""
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return int(value) if value.is_integer() else value
    if isinstance(value, list):
        return [_json(item) for item in value]
    return {str(key): _json(item) for key, item in value.items()}


def _os_error(exc: OSError) -> OpError:
    return OpError(kind_for_errno(exc.errno), f"{exc.strerror or exc}: {exc.filename or ''}")


def _constants_op(args: Args) -> Any:
    return _constants.as_dict()


def _project_key_op(args: Args) -> Any:
    return project_key(_wire.arg_str(args, "path"))


def _path_hash_op(args: Args) -> Any:
    value = path_hash(_wire.arg_str(args, "path"))
    return {"hash": value, "base36": to_base36(abs(value))}


def _project_dir_name_op(args: Args) -> Any:
    diskless = _wire.arg_bool(args, "diskless", False)
    return project_dir_name(_wire.arg_str(args, "path"), _env(args), diskless)


def _validate_memory_path_op(args: Args) -> Any:
    return validate_memory_path(
        _wire.arg_str(args, "value"),
        _wire.arg_bool(args, "expand_tilde"),
        _wire.arg_str(args, "home"),
    )


def _key_base_op(args: Args) -> Any:
    base = key_base(_wire.arg_str(args, "project_root"))
    return {"path": base.path, "via": base.via}


def _memory_dir_op(args: Args) -> Any:
    root = None if args.get("project_root") is None else _wire.arg_str(args, "project_root")
    return memory_dir(
        root,
        _env(args),
        _wire.arg_str(args, "home"),
        _object(args, "settings"),
        _wire.arg_bool(args, "diskless", False),
    )


def _load_out(load: IndexLoad) -> Any:
    return {
        "content": load.content,
        "line_count": load.line_count,
        "unit_count": load.unit_count,
        "line_truncated": load.line_truncated,
        "unit_truncated": load.unit_truncated,
    }


def _load_index_op(args: Args) -> Any:
    return _load_out(load_index(_text(args, "text")))


def _read_index_op(args: Args) -> Any:
    try:
        return _load_out(read_index(_wire.arg_str(args, "path")))
    except OSError as exc:
        raise _os_error(exc) from exc


def _strip_html_comments_op(args: Args) -> Any:
    content, stripped = strip_html_comments(_text(args, "text"))
    return {"content": content, "stripped": stripped}


def _sanitize_op(args: Args) -> Any:
    return sanitize(to_units(_text(args, "text")))


def _format_size_op(args: Args) -> Any:
    units = _wire.arg_int(args, "units")
    if units < 0 or units >= 1 << 53:
        raise OpError("invalid-args", "argument 'units' must be from 0 to 2^53 - 1")
    return format_size(units)


def _quote_cut_op(args: Args) -> Any:
    limit = _wire.arg_int(args, "limit")
    if limit < 1:
        raise OpError("invalid-args", "argument 'limit' must be positive")
    return from_units(quote_cut(to_units(_text(args, "text")), limit))


def _size_reminder_op(args: Args) -> Any:
    reminder = size_reminder(_text(args, "content"))
    return {"text": reminder.text, "over_cap": reminder.over_cap}


def _entry(index: int, item: Any) -> IndexEntry:
    if not isinstance(item, dict):
        raise OpError("invalid-args", f"entries[{index}] must be an object")
    return IndexEntry(_text(item, "filename"), _optional_text(item, "description"))


def _index_line_op(args: Args) -> Any:
    return index_line(IndexEntry(_text(args, "filename"), _optional_text(args, "description")))


def _rebuild_index_op(args: Args) -> Any:
    entries = args.get("entries")
    if not isinstance(entries, list):
        raise OpError("invalid-args", "argument 'entries' must be a list")
    rebuilt = rebuild_index(_entry(i, item) for i, item in enumerate(entries))
    return {"content": rebuilt.content, "skipped_count": rebuilt.skipped_count}


def _parse_memory_file_op(args: Args) -> Any:
    parsed = parse_memory_file(_text(args, "text"))
    return {
        "name": parsed.name,
        "description": parsed.description,
        "type": parsed.type,
        "metadata": _json(parsed.metadata),
        "body": parsed.body,
        "parse_failed": parsed.parse_failed,
    }


def _slug_name_op(args: Args) -> Any:
    return slug_name(_text(args, "name"))


def _unicode_strings(name: str, value: Any) -> Any:
    """``value`` with every string in it checked to be Unicode text."""
    if isinstance(value, str):
        return _wire.utf8_text(name, value)
    if isinstance(value, list):
        return [_unicode_strings(name, item) for item in value]
    if isinstance(value, dict):
        return {
            _wire.utf8_text(name, key): _unicode_strings(name, item) for key, item in value.items()
        }
    return value


def _memory_file_args(args: Args) -> tuple[str | None, str | None, dict[str, Any], str]:
    return (
        _optional_text(args, "name"),
        _optional_text(args, "description"),
        _unicode_strings("metadata", _object(args, "metadata")),
        _text(args, "body"),
    )


def _format_memory_file_op(args: Args) -> Any:
    return format_memory_file(*_memory_file_args(args))


def _write_memory_file_op(args: Args) -> Any:
    path = _wire.arg_str(args, "path")
    try:
        write_memory_file(path, *_memory_file_args(args))
    except OSError as exc:
        raise _os_error(exc) from exc
    return None


def _freshness_op(args: Args) -> Any:
    fresh = freshness(
        _wire.arg_time(args, "mtime"), _wire.arg_time(args, "now"), _text(args, "path")
    )
    return {
        "days": fresh.days,
        "caveat": fresh.caveat,
        "reminder": fresh.reminder,
        "header": fresh.header,
    }


def _carve_out_lexical_op(args: Args) -> Any:
    return carve_out_lexical(_wire.arg_str(args, "path"), _wire.arg_str(args, "dir"))


def _carve_out_op(args: Args) -> Any:
    return carve_out(_wire.arg_str(args, "path"), _wire.arg_str(args, "dir"))


def _header_out(header: ScanHeader) -> Any:
    return {
        "filename": header.filename,
        "mtime": _wire.time_out(header.mtime_ms * NS_PER_MS),
        "description": header.description,
        "type": header.type,
    }


def _scan_memory_files_op(args: Args) -> Any:
    return [_header_out(header) for header in scan_memory_files(_wire.arg_str(args, "dir"))]


def _header_in(index: int, item: Any) -> ScanHeader:
    if not isinstance(item, dict):
        raise OpError("invalid-args", f"headers[{index}] must be an object")
    return ScanHeader(
        _text(item, "filename"),
        _wire.arg_time(item, "mtime") // NS_PER_MS,
        _optional_text(item, "description"),
        _optional_text(item, "type"),
    )


def _format_manifest_op(args: Args) -> Any:
    headers = args.get("headers")
    if not isinstance(headers, list):
        raise OpError("invalid-args", "argument 'headers' must be a list")
    return format_manifest(_header_in(i, item) for i, item in enumerate(headers))


OPS: dict[str, Callable[[Args], Any]] = {
    "automemory.constants": _constants_op,
    "automemory.project_key": _project_key_op,
    "automemory.path_hash": _path_hash_op,
    "automemory.project_dir_name": _project_dir_name_op,
    "automemory.validate_memory_path": _validate_memory_path_op,
    "automemory.key_base": _key_base_op,
    "automemory.memory_dir": _memory_dir_op,
    "automemory.load_index": _load_index_op,
    "automemory.read_index": _read_index_op,
    "automemory.strip_html_comments": _strip_html_comments_op,
    "automemory.sanitize": _sanitize_op,
    "automemory.format_size": _format_size_op,
    "automemory.quote_cut": _quote_cut_op,
    "automemory.size_reminder": _size_reminder_op,
    "automemory.index_line": _index_line_op,
    "automemory.rebuild_index": _rebuild_index_op,
    "automemory.parse_memory_file": _parse_memory_file_op,
    "automemory.slug_name": _slug_name_op,
    "automemory.format_memory_file": _format_memory_file_op,
    "automemory.write_memory_file": _write_memory_file_op,
    "automemory.freshness": _freshness_op,
    "automemory.carve_out_lexical": _carve_out_lexical_op,
    "automemory.carve_out": _carve_out_op,
    "automemory.scan_memory_files": _scan_memory_files_op,
    "automemory.format_manifest": _format_manifest_op,
}
