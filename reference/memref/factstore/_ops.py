"""The ``factstore.*`` protocol operations: wire arguments in, wire results out."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from memref import _wire
from memref._gostr import decode, encode
from memref._wire import text_out
from memref.errors import OpError
from memref.factstore import _constants
from memref.factstore._codebase_key import (
    canonicalize_path,
    codebase_identity,
    codebase_key,
    hash_key,
    project_hash,
    repo_codebase_key,
    trim_git_eol,
)
from memref.factstore._format import (
    FactFormatError,
    Memory,
    go_quote,
    go_unquote,
    parse_fact,
    rename_fact_header,
    serialize,
)
from memref.factstore._index import format_index
from memref.factstore._migrate_codebase import migrate_codebase
from memref.factstore._migrate_v1 import migrate_v1_if_needed
from memref.factstore._names import StoreDirs, resolve, scope_for_type, valid_name, valid_type
from memref.factstore._read import delete, list_facts, read
from memref.factstore._sessions import scan_cwds
from memref.factstore._store import new_store
from memref.factstore._write import write

__all__ = ["CAPABILITIES", "OPS"]

CAPABILITIES = ("git", "symlinks", "fifos", "fault-injection", "concurrency")

Args = Mapping[str, Any]


def _checked(name: str, value: str) -> str:
    try:
        encode(value)
    except UnicodeEncodeError as exc:
        raise OpError("invalid-args", f"argument {name!r} holds an unpaired surrogate") from exc
    return value


def _str(args: Args, name: str, default: Any = ...) -> str:
    value = _wire.arg_str(args, name) if default is ... else _wire.arg_str(args, name, default)
    return _checked(name, value)


def _text(args: Args, name: str) -> str:
    return _checked(name, _wire.arg_text(args, name))


def _path(args: Args, name: str, *, absolute: bool = True) -> str:
    value = _str(args, name)
    if "\x00" in value:
        raise OpError("invalid-args", f"argument {name!r} holds a NUL byte")
    if absolute and not value.startswith("/"):
        raise OpError("invalid-args", f"argument {name!r} must be an absolute path")
    return value


def _opt_cwd(args: Args) -> str | None:
    if args.get("cwd") is None:
        return None
    return _path(args, "cwd")


def _env(args: Args) -> dict[str, str]:
    value = args.get("env", {})
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise OpError("invalid-args", "argument 'env' must map names to strings")
    for key, item in value.items():
        if "\x00" in key or "\x00" in item or "=" in key or key == "":
            raise OpError("invalid-args", "argument 'env' holds a NUL, an empty name or '='")
        _checked("env", key)
        _checked("env", item)
    return dict(value)


def _relative_ok(args: Args, name: str) -> str:
    path = _path(args, name, absolute=False)
    if not path.startswith("/") and _opt_cwd(args) is None:
        raise OpError("invalid-args", f"a relative {name!r} needs the argument 'cwd'")
    return path


def _dirs(args: Args) -> StoreDirs:
    if "config_dir" in args:
        config_dir = _path(args, "config_dir")
        workspace = _relative_ok(args, "workspace")
        legacy = _wire.arg_bool(args, "legacy", False)
        if legacy:
            hashed = project_hash(workspace, _opt_cwd(args))
            return StoreDirs(
                os.path.join(config_dir, "global", "memory"),
                os.path.join(config_dir, "projects", hashed, "memory"),
            )
        return new_store(config_dir, workspace, _env(args), _opt_cwd(args))
    return StoreDirs(_path(args, "global_dir"), _path(args, "project_dir"))


def _memory_in(args: Args) -> Memory:
    value = args.get("memory")
    if not isinstance(value, dict):
        raise OpError("invalid-args", "argument 'memory' must be an object")
    durable = value.get("durable", False)
    if not isinstance(durable, bool):
        raise OpError("invalid-args", "argument 'memory.durable' must be a boolean")
    scope = _str(value, "scope", "project")
    if scope not in ("project", "global"):
        raise OpError("invalid-args", "argument 'memory.scope' must be project or global")
    return Memory(
        name=_text(value, "name"),
        description=_text(value, "description") if "description" in value else "",
        type=_text(value, "type") if "type" in value else "",
        invalidate_when=_text(value, "invalidate_when") if "invalidate_when" in value else "",
        durable=durable,
        body=_text(value, "body") if "body" in value else "",
        scope=scope,
    )


def _memory_out(memory: Memory, *, with_path: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": text_out(memory.id),
        "name": text_out(memory.name),
        "scope": memory.scope,
        "type": memory.type,
        "description": text_out(memory.description),
        "invalidate_when": text_out(memory.invalidate_when),
        "durable": memory.durable,
        "body": text_out(memory.body),
    }
    if with_path:
        out["path"] = text_out(memory.path)
    return out


def _constants_op(args: Args) -> Any:
    return _constants.as_dict()


def _valid_name_op(args: Args) -> Any:
    return valid_name(_text(args, "name"))


def _valid_type_op(args: Args) -> Any:
    return valid_type(_text(args, "type"))


def _scope_for_type_op(args: Args) -> Any:
    return scope_for_type(_text(args, "type"))


def _quote_op(args: Args) -> Any:
    return go_quote(_text(args, "text"))


def _unquote_op(args: Args) -> Any:
    result = go_unquote(_text(args, "text"))
    return {"ok": result is not None, "value": text_out(result or "")}


def _serialize_op(args: Args) -> Any:
    return text_out(serialize(_memory_in(args)))


def _parse_fact_op(args: Args) -> Any:
    try:
        memory = parse_fact(_text(args, "content"))
    except FactFormatError as exc:
        raise OpError("invalid-input", str(exc)) from exc
    out = _memory_out(memory, with_path=False)
    del out["id"], out["scope"]
    return out


def _rename_fact_header_op(args: Args) -> Any:
    data = encode(_text(args, "content"))
    name = _text(args, "name")
    return text_out(decode(rename_fact_header(data, name)))


def _resolve_op(args: Args) -> Any:
    where = resolve(_dirs(args), _text(args, "id"))
    return {"scope": where.scope, "name": where.name, "path": text_out(where.path)}


def _write_op(args: Args) -> Any:
    write(_dirs(args), _memory_in(args))
    return None


def _read_op(args: Args) -> Any:
    memory = read(_dirs(args), _text(args, "id"))
    return {"found": memory is not None, "memory": None if memory is None else _memory_out(memory)}


def _delete_op(args: Args) -> Any:
    delete(_dirs(args), _text(args, "id"))
    return None


def _list_op(args: Args) -> Any:
    return [_memory_out(m) for m in list_facts(_dirs(args))]


def _index_memory(item: Any) -> Memory:
    if not isinstance(item, dict):
        raise OpError("invalid-args", "argument 'mems' must be a list of objects")
    scope = _str(item, "scope")
    if scope not in ("project", "global"):
        raise OpError("invalid-args", "a memory's scope must be project or global")
    return Memory(name=_text(item, "name"), description=_text(item, "description"), scope=scope)


def _format_index_op(args: Args) -> Any:
    if "mems" in args:
        mems = args["mems"]
        if not isinstance(mems, list):
            raise OpError("invalid-args", "argument 'mems' must be a list")
        memories = [_index_memory(item) for item in mems]
    else:
        memories = list_facts(_dirs(args))
    return text_out(decode(format_index(memories)))


def _canonicalize_path_op(args: Args) -> Any:
    return text_out(canonicalize_path(_relative_ok(args, "path"), _opt_cwd(args)))


def _project_hash_op(args: Args) -> Any:
    return project_hash(_relative_ok(args, "path"), _opt_cwd(args))


def _hash_key_op(args: Args) -> Any:
    return hash_key(_text(args, "path"))


def _codebase_identity_op(args: Args) -> Any:
    identity = codebase_identity(_relative_ok(args, "dir"), _env(args), _opt_cwd(args))
    return {"path": text_out(identity.path), "repo": identity.repo}


def _codebase_key_op(args: Args) -> Any:
    return codebase_key(_relative_ok(args, "dir"), _env(args), _opt_cwd(args))


def _repo_codebase_key_op(args: Args) -> Any:
    key, ok = repo_codebase_key(_relative_ok(args, "dir"), _env(args), _opt_cwd(args))
    return {"key": key, "ok": ok}


def _trim_git_eol_op(args: Args) -> Any:
    return text_out(trim_git_eol(_text(args, "text")))


def _scan_cwds_op(args: Args) -> Any:
    result = scan_cwds(_path(args, "sessions_dir"))
    return {
        "cwds": [text_out(c) for c in result.cwds],
        "unreadable": result.unreadable,
        "no_cwd": result.no_cwd,
    }


def _migrate_v1_op(args: Args) -> Any:
    config_dir = _path(args, "config_dir")
    workspace = _relative_ok(args, "workspace")
    env, cwd = _env(args), _opt_cwd(args)
    dirs = new_store(config_dir, workspace, env, cwd)
    flat = os.path.join(config_dir, "projects", project_hash(workspace, cwd), "MEMORY.md")
    migrate_v1_if_needed(flat, dirs.project_dir)
    return None


def _migrate_codebase_op(args: Args) -> Any:
    config_dir = _path(args, "config_dir")
    workspace = _relative_ok(args, "workspace")
    now = _wire.arg_time(args, "now")
    env, cwd = _env(args), _opt_cwd(args)
    if cwd is not None and not workspace.startswith("/"):
        workspace = os.path.join(cwd, workspace)
    migrate_codebase(config_dir, workspace, now, env, cwd or "/")
    return None


def _migrate_op(args: Args) -> Any:
    _migrate_codebase_op(args)
    return _migrate_v1_op(args)


OPS: dict[str, Callable[[Args], Any]] = {
    "factstore.constants": _constants_op,
    "factstore.valid_name": _valid_name_op,
    "factstore.valid_type": _valid_type_op,
    "factstore.scope_for_type": _scope_for_type_op,
    "factstore.quote": _quote_op,
    "factstore.unquote": _unquote_op,
    "factstore.serialize": _serialize_op,
    "factstore.parse_fact": _parse_fact_op,
    "factstore.rename_fact_header": _rename_fact_header_op,
    "factstore.resolve": _resolve_op,
    "factstore.write": _write_op,
    "factstore.read": _read_op,
    "factstore.delete": _delete_op,
    "factstore.list": _list_op,
    "factstore.format_index": _format_index_op,
    "factstore.canonicalize_path": _canonicalize_path_op,
    "factstore.project_hash": _project_hash_op,
    "factstore.hash_key": _hash_key_op,
    "factstore.codebase_identity": _codebase_identity_op,
    "factstore.codebase_key": _codebase_key_op,
    "factstore.repo_codebase_key": _repo_codebase_key_op,
    "factstore.trim_git_eol": _trim_git_eol_op,
    "factstore.scan_cwds": _scan_cwds_op,
    "factstore.migrate_flat_if_needed": _migrate_v1_op,
    "factstore.migrate_codebase": _migrate_codebase_op,
    "factstore.migrate": _migrate_op,
}
