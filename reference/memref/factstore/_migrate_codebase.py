"""The codebase migration: copy path-keyed legacy stores into the codebase-keyed store.

Additive and idempotent: legacy stores are never changed, destination facts are never
overwritten, and a record in ``codebases/<key>/`` remembers what was copied.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from memref._gostr import decode, encode, trim_space
from memref._time import format_rfc3339_nano, parse_rfc3339
from memref.errors import OpError
from memref.factstore._codebase_key import codebase_key, project_hash, repo_codebase_key
from memref.factstore._constants import (
    LEDGER_FILE,
    LEDGER_LOCK_FILE,
    MIGRATION_LOCK_FILE,
    ORPHAN_LEDGER_NOTE,
    RECORD_FILE,
    V1_FACT_NAME,
    V1_FLAT_FILE,
)
from memref.factstore._files import (
    ReadError,
    SaveError,
    exists,
    flocked,
    is_dir,
    kind_of,
    list_dir,
    mkdir_all,
    mkdir_message,
    path_error,
    read_dir_names,
    read_regular,
    sync_directory,
    write_file_atomic,
)
from memref.factstore._format import go_quote, rename_fact_header
from memref.factstore._gojson import decode_go, marshal_indent
from memref.factstore._migrate_v1 import v1_fact_bytes
from memref.factstore._read import is_reserved
from memref.factstore._sessions import scan_cwds

__all__ = ["Outcome", "Record", "StoreEntry", "load_record", "migrate_codebase"]

_HASH = re.compile(r"[0-9a-f]{16}")
_ZERO_TIME = parse_rfc3339("0001-01-01T00:00:00Z")


@dataclass
class StoreEntry:
    hash: str
    cwd: str = ""
    facts: int = 0
    digests: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"hash": self.hash}
        if self.cwd:
            out["cwd"] = self.cwd
        out["facts"] = self.facts
        if self.digests:
            out["fact_digests"] = self.digests
        return out


@dataclass
class Record:
    updated_at: int
    complete: bool
    copied: list[StoreEntry]
    pending: list[StoreEntry]

    def entry(self, store_hash: str) -> StoreEntry | None:
        """The entry for a hash; of several, the one with the fewest facts."""
        matches = [e for e in self.copied if e.hash == store_hash]
        return min(matches, key=lambda e: e.facts) if matches else None


@dataclass
class Outcome:
    fast_path: bool = False
    written: list[str] = field(default_factory=list)


def _entries(value: Any) -> list[StoreEntry] | None:
    if value is None:
        return []
    if not isinstance(value, list):
        return None
    out = []
    for item in value:
        if not isinstance(item, dict):
            return None
        store_hash, cwd, facts = item.get("hash", ""), item.get("cwd", ""), item.get("facts", 0)
        digests = item.get("fact_digests") or []
        if not isinstance(store_hash, str) or not _HASH.fullmatch(store_hash):
            return None
        if not isinstance(cwd, str) or isinstance(facts, bool) or not isinstance(facts, int):
            return None
        if facts < 0:
            return None
        if not isinstance(digests, list) or not all(isinstance(d, str) for d in digests):
            return None
        out.append(StoreEntry(store_hash, cwd, facts, list(digests)))
    return out


def load_record(path: str) -> Record | None:
    """The record, or None when it is missing, unreadable or fails validation."""
    try:
        data = decode_go(read_regular(path))
    except (ReadError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    version, updated, complete = (
        data.get("version"),
        data.get("updated_at"),
        data.get("complete", False),
    )
    if version != 1 or isinstance(version, bool) or not isinstance(complete, bool):
        return None
    if not isinstance(updated, str):
        return None
    try:
        when = parse_rfc3339(updated)
    except ValueError:
        return None
    if when == _ZERO_TIME:
        return None
    copied, pending = _entries(data.get("copied_stores")), _entries(data.get("pending_stores"))
    if copied is None or pending is None:
        return None
    return Record(when, complete, copied, pending)


@dataclass
class _Store:
    hash: str
    path: str
    facts: int


def _fact_files(memory_dir: str) -> list[str]:
    return sorted(
        name
        for name, mode in list_dir(memory_dir)
        if stat.S_ISREG(mode) and name.endswith(".md") and not is_reserved(name)
    )


def _flat_is_fact(store: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(os.path.join(store, V1_FLAT_FILE)).st_mode)
    except (OSError, ValueError):
        return False


def _discover(projects: str) -> list[_Store]:
    stores = []
    for name, mode in list_dir(projects):
        if not stat.S_ISDIR(mode):
            continue
        path = os.path.join(projects, name)
        memory = os.path.join(path, "memory")
        has_memory = is_dir(memory)
        if not has_memory and not os.path.lexists(os.path.join(path, V1_FLAT_FILE)):
            continue
        facts = (len(_fact_files(memory)) if has_memory else 0) + int(_flat_is_fact(path))
        stores.append(_Store(name, path, facts))
    return sorted(stores, key=lambda s: encode(s.hash))


def _count_facts(memory_dir: str) -> int:
    return len(_fact_files(memory_dir))


def _must_look_again(record: Record, projects: str, own: str, base: str) -> bool:
    own_memory = os.path.join(projects, own, "memory")
    entry = record.entry(own)
    if entry is None:
        if is_dir(own_memory):
            return True
    elif _count_facts(own_memory) > entry.facts:
        return True
    return any(p.cwd and exists(os.path.join(base, p.cwd)) for p in record.pending)


@dataclass
class _Variant:
    name: str
    data: bytes
    mtime_ns: int
    source: str
    store: str


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read(path: str) -> bytes:
    try:
        return read_regular(path)
    except ReadError as exc:
        raise OpError(kind_of(exc.cause), f"memory: reading {path}: {exc.message}") from exc


def _collect(store: _Store) -> list[_Variant]:
    found = []
    memory = os.path.join(store.path, "memory")
    for filename in _fact_files(memory):
        path = os.path.join(memory, filename)
        data = _read(path)
        try:
            mtime = os.lstat(path).st_mtime_ns
        except OSError as exc:
            raise OpError(
                kind_of(exc), f"memory: reading {path}: {path_error('lstat', path, exc)}"
            ) from exc
        found.append(_Variant(filename[:-3], data, mtime, path, store.hash))
    if _flat_is_fact(store.path):
        flat = os.path.join(store.path, V1_FLAT_FILE)
        content = decode(_read(flat))
        if trim_space(content) != "":
            mtime = os.stat(flat).st_mtime_ns
            found.append(_Variant(V1_FACT_NAME, v1_fact_bytes(content), mtime, flat, store.hash))
    return found


def _existing(project_dir: str) -> dict[str, bytes]:
    """The destination's facts; a destination that exists but cannot be listed (a file in
    its place) stops the run, as it would stop moa's os.ReadDir."""
    try:
        listed = read_dir_names(project_dir)
    except OSError as exc:
        raise OpError(kind_of(exc), f"memory: reading {project_dir}: {exc.strerror}") from exc
    if listed is None:
        return {}
    return {name[:-3]: _read(os.path.join(project_dir, name)) for name in _fact_files(project_dir)}


def _duplicate(variant: bytes, kept: dict[str, bytes]) -> bool:
    return any(
        variant == data or rename_fact_header(variant, name) == data for name, data in kept.items()
    )


def _family(name: str) -> str | None:
    """The name a ``<name>-<digits>`` file is a suffixed copy of, if it is one."""
    base, dash, digits = name.rpartition("-")
    return base if dash and digits.isdigit() and digits.isascii() and base else None


def _hold(kept: dict[str, dict[str, bytes]], name: str, data: bytes) -> None:
    kept.setdefault(name, {})[name] = data
    base = _family(name)
    if base is not None:
        kept.setdefault(base, {})[name] = data


def _merge(project_dir: str, variants: list[_Variant], skip: dict[str, set[str]]) -> list[str]:
    dest = _existing(project_dir)
    kept: dict[str, dict[str, bytes]] = {}
    for held_name, held in dest.items():
        _hold(kept, held_name, held)
    reserved = set(dest) | {v.name for v in variants}
    groups: dict[str, list[_Variant]] = {}
    for variant in variants:
        groups.setdefault(variant.name, []).append(variant)
    written: list[str] = []
    made_dir = False
    for name in sorted(groups, key=encode):
        ordered = sorted(groups[name], key=lambda v: (-v.mtime_ns, encode(v.source)))
        for variant in ordered:
            if _digest(variant.data) in skip.get(variant.store, set()):
                continue
            if _duplicate(variant.data, kept.get(name, {})):
                continue
            target = name
            if target in dest:
                n = 2
                while f"{name}-{n}" in reserved or f"{name}-{n}" in dest:
                    n += 1
                target = f"{name}-{n}"
            data = variant.data if target == name else rename_fact_header(variant.data, target)
            if not made_dir:
                try:
                    mkdir_all(project_dir, 0o700)
                except OSError as exc:
                    raise OpError(
                        kind_of(exc), "memory: creating memory dir: " + mkdir_message(exc)
                    ) from exc
                made_dir = True
            path = os.path.join(project_dir, target + ".md")
            try:
                write_file_atomic(path, data, sync_dir=False)
            except SaveError as exc:
                raise OpError(
                    kind_of(exc.cause),
                    f"memory: writing migrated fact: {exc.stage} memory: {exc.message}",
                ) from exc
            if not os.path.lexists(path):
                raise OpError(
                    "io", f"memory: migrated fact {go_quote(target)} is missing after writing it"
                )
            dest[target] = data
            _hold(kept, target, data)
            reserved.add(target)
            written.append(target)
    if written:
        try:
            sync_directory(project_dir)
        except SaveError as exc:
            raise OpError(
                kind_of(exc.cause), f"memory: writing migrated fact: {exc.message}"
            ) from exc
    return written


def _could_belong_to(cwd: str, key: str, env: Mapping[str, str]) -> bool:
    probe = cwd
    while not exists(probe):
        parent = os.path.dirname(probe)
        if parent == probe:
            return False
        probe = parent
    found, ok = repo_codebase_key(probe, env)
    return ok and found == key


def _copied_elsewhere(codebases: str) -> set[str]:
    hashes: set[str] = set()
    for name, mode in list_dir(codebases):
        if stat.S_ISDIR(mode):
            record = load_record(os.path.join(codebases, name, RECORD_FILE))
            if record is not None:
                hashes.update(e.hash for e in record.copied)
    return hashes


def _load_ledger(path: str) -> dict[str, dict[str, Any]]:
    try:
        data = decode_go(read_regular(path))
    except (ReadError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict) or data.get("version") != 1:
        return {}
    stores = data.get("stores")
    out: dict[str, dict[str, Any]] = {}
    for item in stores if isinstance(stores, list) else []:
        if isinstance(item, dict) and isinstance(item.get("hash"), str):
            out[item["hash"]] = item
    return out


def _update_ledger(config_dir: str, sources: set[str], orphans: list[StoreEntry], now: int) -> None:
    codebases = os.path.join(config_dir, "codebases")
    path = os.path.join(codebases, LEDGER_FILE)
    elsewhere = _copied_elsewhere(codebases)
    orphans = [o for o in orphans if o.hash not in elsewhere and o.hash not in sources]
    if not orphans and not os.path.lexists(path):
        return
    try:
        mkdir_all(codebases, 0o700)
    except OSError as exc:
        raise OpError(
            kind_of(exc), "memory: creating codebases dir: " + mkdir_message(exc)
        ) from exc
    lock = os.path.join(codebases, LEDGER_LOCK_FILE)
    try:
        guard = flocked(lock)
        guard.__enter__()
    except OSError as exc:
        raise OpError(
            kind_of(exc), "memory: locking orphan ledger: " + path_error("open", lock, exc)
        ) from exc
    try:
        before = _load_ledger(path)
        entries = {
            h: e for h, e in before.items() if isinstance(e.get("path"), str) and exists(e["path"])
        }
        gone = sources | elsewhere
        for store_hash in gone:
            entries.pop(store_hash, None)
        for orphan in orphans:
            if orphan.hash in gone:
                continue
            entry: dict[str, Any] = {
                "hash": orphan.hash,
                "path": os.path.join(config_dir, "projects", orphan.hash),
                "facts": orphan.facts,
            }
            if orphan.cwd:
                entry["last_known_cwd"] = orphan.cwd
            entries[orphan.hash] = entry
        if entries == before:
            return
        ledger = {
            "version": 1,
            "updated_at": format_rfc3339_nano(now),
            "note": ORPHAN_LEDGER_NOTE,
            "stores": [entries[h] for h in sorted(entries, key=encode)],
        }
        try:
            write_file_atomic(path, marshal_indent(ledger))
        except SaveError as exc:
            raise OpError(
                kind_of(exc.cause),
                f"memory: writing orphan ledger: {exc.stage} memory: {exc.message}",
            ) from exc
    finally:
        guard.__exit__(None, None, None)


def migrate_codebase(
    config_dir: str, workspace: str, now: int, env: Mapping[str, str] | None = None, base: str = "/"
) -> Outcome:
    """Run the migration; relative session cwds are taken relative to ``base``."""
    env = env or {}
    key = codebase_key(workspace, env)
    own = project_hash(workspace)
    projects = os.path.join(config_dir, "projects")
    codebase_root = os.path.join(config_dir, "codebases", key)
    project_dir = os.path.join(codebase_root, "memory")
    record_path = os.path.join(codebase_root, RECORD_FILE)
    record = load_record(record_path)
    if record is not None and record.complete and not _must_look_again(record, projects, own, base):
        return Outcome(fast_path=True)
    stores = _discover(projects)
    if not stores:
        return Outcome()
    try:
        mkdir_all(codebase_root, 0o700)
    except OSError as exc:
        raise OpError(kind_of(exc), "memory: creating codebase dir: " + mkdir_message(exc)) from exc
    lock = os.path.join(codebase_root, MIGRATION_LOCK_FILE)
    try:
        guard = flocked(lock)
        guard.__enter__()
    except OSError as exc:
        raise OpError(
            kind_of(exc), "memory: locking migration: " + path_error("open", lock, exc)
        ) from exc
    try:
        record = load_record(record_path)
        if (
            record is not None
            and record.complete
            and not _must_look_again(record, projects, own, base)
        ):
            return Outcome()
        return _migrate_locked(
            config_dir, key, own, stores, record, project_dir, record_path, now, env, base
        )
    finally:
        guard.__exit__(None, None, None)


def _migrate_locked(
    config_dir: str,
    key: str,
    own: str,
    stores: list[_Store],
    record: Record | None,
    project_dir: str,
    record_path: str,
    now: int,
    env: Mapping[str, str],
    base: str,
) -> Outcome:
    scan = scan_cwds(os.path.join(config_dir, "sessions"))
    cwd_of: dict[str, str] = {}
    for cwd in scan.cwds:
        cwd_of.setdefault(project_hash(cwd, base), cwd)
    sources: list[tuple[_Store, str]] = []
    unattributed: list[tuple[_Store, str]] = []
    for store in stores:
        if store.hash == own:
            sources.append((store, ""))
        elif store.hash not in cwd_of:
            unattributed.append((store, ""))
        elif not exists(os.path.join(base, cwd_of[store.hash])):
            unattributed.append((store, cwd_of[store.hash]))
        elif codebase_key(cwd_of[store.hash], env, base) == key:
            sources.append((store, cwd_of[store.hash]))
    entries: dict[str, StoreEntry] = {}
    for old in record.copied if record else []:
        best = record.entry(old.hash) if record else None
        if best is not None:
            entries[old.hash] = best
    to_copy = [
        (s, cwd)
        for s, cwd in sources
        if not (s.hash in entries and entries[s.hash].facts >= s.facts)
    ]
    variants: list[_Variant] = []
    for store, _ in to_copy:
        variants.extend(_collect(store))
    skip = {h: set(e.digests) for h, e in entries.items()}
    written = _merge(project_dir, variants, skip)
    for store, cwd in to_copy:
        digests = skip.get(store.hash, set()) | {
            _digest(v.data) for v in variants if v.store == store.hash
        }
        entries[store.hash] = StoreEntry(store.hash, cwd, store.facts, sorted(digests))
    pending = [
        StoreEntry(s.hash, cwd, s.facts)
        for s, cwd in unattributed
        if s.facts > 0 and cwd and _could_belong_to(os.path.join(base, cwd), key, env)
    ]
    orphans = [StoreEntry(s.hash, cwd, s.facts) for s, cwd in unattributed if s.facts > 0]
    copied_now = sorted(entries.values(), key=lambda e: encode(e.hash))
    _update_ledger(config_dir, {s.hash for s, _ in sources} | set(entries), orphans, now)
    document: dict[str, Any] = {
        "version": 1,
        "updated_at": format_rfc3339_nano(now),
        "complete": scan.unreadable == 0,
    }
    if copied_now:
        document["copied_stores"] = [e.as_json() for e in copied_now]
    if pending:
        document["pending_stores"] = [p.as_json() for p in pending]
    try:
        write_file_atomic(record_path, marshal_indent(document))
    except SaveError as exc:
        raise OpError(
            kind_of(exc.cause),
            f"memory: writing migration record: {exc.stage} memory: {exc.message}",
        ) from exc
    return Outcome(written=written)
