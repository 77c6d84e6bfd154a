"""Trees of files materialised in a real directory, read back, and compared."""

from __future__ import annotations

import base64
import fnmatch
import functools
import os
import shutil
import socket
import stat
import tempfile
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memspec.corpus.compare import text_matches_pattern
from memspec.corpus.tokens import substitute, substitute_tree
from memspec.exceptions import HostLimitation
from memspec.judge.messages import abridge, describe_difference
from memspec.wire.instants import parse_instant

__all__ = [
    "DEFAULT_MTIME",
    "Entry",
    "compare_tree",
    "hand_over",
    "ignored",
    "materialise",
    "read_tree",
    "remove_tree",
    "tmp_case_sensitive",
    "tree_changes",
]

DEFAULT_MTIME = "2026-01-01T00:00:00Z"


def _mtime_ns(spec: Mapping[str, Any]) -> int:
    if "mtime_ns" in spec:
        return int(spec["mtime_ns"])
    return parse_instant(spec.get("mtime", DEFAULT_MTIME))


def _content(spec: Mapping[str, Any]) -> bytes:
    if "base64" in spec:
        return base64.b64decode(spec["base64"])
    return str(spec.get("text", "")).encode("utf-8")


def materialise(tree: Mapping[str, Mapping[str, Any]], root: Path) -> None:
    """Create every entry of ``tree`` below ``root``, then apply modes and mtimes.

    Modes and mtimes come last, deepest first, so that creating a child neither
    changes a parent's pinned mtime nor fails for want of a permission.
    """
    root_text = str(root)
    tree = substitute_tree(tree, root_text)
    for relative in sorted(tree):
        spec = tree[relative]
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if spec.get("dir"):
            target.mkdir(exist_ok=True)
        elif "symlink" in spec:
            os.symlink(substitute(spec["symlink"], root_text), target)
        elif spec.get("fifo"):
            os.mkfifo(target)
        elif spec.get("socket"):
            _bind_socket(target)
        else:
            with open(target, "wb") as handle:
                handle.write(_content(spec))
                if "size" in spec:
                    handle.write(_fill(spec, handle.tell()))
                    handle.truncate(int(spec["size"]))
    for relative in sorted(tree, key=lambda r: (-r.count("/"), r)):
        spec = tree[relative]
        target = root / relative
        is_link = "symlink" in spec
        if "mode" in spec and not is_link:
            os.chmod(target, int(spec["mode"], 8))
        mtime = _mtime_ns(spec)
        if is_link:
            if os.utime in os.supports_follow_symlinks:
                os.utime(target, ns=(mtime, mtime), follow_symlinks=False)
        else:
            os.utime(target, ns=(mtime, mtime))
            if "mtime" in spec or "mtime_ns" in spec:
                held = os.stat(target).st_mtime_ns
                if held != mtime:
                    raise HostLimitation(
                        f"host: the filesystem of the temporary directory "
                        f"stores mtime {held} for {relative}, not {mtime}"
                    )


def _bind_socket(target: Path) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(str(target))


def hand_over(root: Path, owner: tuple[int, int]) -> None:
    """Give ``root`` and everything below it (links themselves, not their targets) to
    ``owner``, so that an adapter running as that user meets the modes as its owner."""
    uid, gid = owner
    os.lchown(root, uid, gid)
    for directory, dirnames, filenames in os.walk(root):
        for name in (*dirnames, *filenames):
            os.lchown(os.path.join(directory, name), uid, gid)


@dataclass(frozen=True)
class Entry:
    """One path as found on disk."""

    kind: str  # "file", "dir", "symlink", "fifo", "socket", "other"
    mode: int
    mtime_ns: int
    content: bytes = b""
    target: str = ""


def read_tree(root: Path) -> dict[str, Entry]:
    """Every path below ``root`` without following symlinks, keyed by '/'-separated path."""
    found: dict[str, Entry] = {}

    def visit(directory: Path, prefix: str) -> None:
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            return
        for name in names:
            path = directory / name
            relative = prefix + name
            info = os.lstat(path)
            mode = stat.S_IMODE(info.st_mode)
            if stat.S_ISLNK(info.st_mode):
                found[relative] = Entry("symlink", mode, info.st_mtime_ns, target=os.readlink(path))
            elif stat.S_ISDIR(info.st_mode):
                found[relative] = Entry("dir", mode, info.st_mtime_ns)
                visit(path, relative + "/")
            elif stat.S_ISREG(info.st_mode):
                found[relative] = Entry("file", mode, info.st_mtime_ns, content=_read(path))
            elif stat.S_ISSOCK(info.st_mode):
                found[relative] = Entry("socket", mode, info.st_mtime_ns)
            elif stat.S_ISFIFO(info.st_mode):
                found[relative] = Entry("fifo", mode, info.st_mtime_ns)
            else:
                found[relative] = Entry("other", mode, info.st_mtime_ns)

    visit(root, "")
    return found


def _read(path: Path) -> bytes:
    if os.path.getsize(path) > 1 << 20:
        return b"<larger than 1 MiB: not compared>"
    try:
        return path.read_bytes()
    except OSError:
        return b"<unreadable>"


def ignored(path: str, patterns: tuple[str, ...]) -> bool:
    """Whether ``path`` or one of its ancestors matches one of the glob ``patterns``."""
    parts = path.split("/")
    ancestors = ("/".join(parts[:i]) for i in range(1, len(parts) + 1))
    return any(fnmatch.fnmatchcase(a, p) for a in ancestors for p in patterns)


def tree_changes(
    before: Mapping[str, Entry],
    after: Mapping[str, Entry],
    ignore: tuple[str, ...] = (),
    watch: tuple[str, ...] = (),
) -> list[str]:
    """Every path created, removed or changed between two readings of a tree, and what of
    it changed (only the paths matching a glob of ``watch``, when it is not empty)."""
    changes = []
    for path in sorted(set(before) | set(after)):
        if ignored(path, ignore) or (watch and not ignored(path, watch)):
            continue
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        if old is None:
            changes.append(f"{path}: created")
        elif new is None:
            changes.append(f"{path}: removed")
        else:
            what = [
                name
                for name in ("kind", "mode", "mtime_ns", "content", "target")
                if getattr(old, name) != getattr(new, name)
            ]
            changes.append(f"{path}: {', '.join(what)} changed")
    return changes


def compare_tree(
    expected: Mapping[str, Mapping[str, Any]],
    actual: Mapping[str, Entry],
    root: str,
    ignore: tuple[str, ...] = (),
) -> list[str]:
    """Differences between an expected tree and the tree on disk, one line each.

    Paths matching a pattern of ``ignore`` (or below one that does) are left out of both.
    """
    expected = substitute_tree(expected, root)
    if ignore:
        expected = {k: v for k, v in expected.items() if not ignored(k, ignore)}
        actual = {k: v for k, v in actual.items() if not ignored(k, ignore)}
    problems: list[str] = []
    implied_dirs = {
        "/".join(path.split("/")[:i]) for path in expected for i in range(1, path.count("/") + 1)
    }
    for path, spec in sorted(expected.items()):
        entry = actual.get(path)
        if entry is None:
            problems.append(f"{path}: missing")
            continue
        problems.extend(_compare_entry(path, spec, entry, root))
    for path, entry in sorted(actual.items()):
        if path in expected:
            continue
        if entry.kind == "dir" and (path in implied_dirs or _has_children(path, actual)):
            continue
        problems.append(f"{path}: unexpected {entry.kind}")
    return problems


def _has_children(path: str, actual: Mapping[str, Entry]) -> bool:
    prefix = path + "/"
    return any(other.startswith(prefix) for other in actual)


def _compare_entry(path: str, spec: Mapping[str, Any], entry: Entry, root: str) -> list[str]:
    if spec.get("dir"):
        kind = "dir"
    elif "symlink" in spec:
        kind = "symlink"
    elif spec.get("fifo"):
        kind = "fifo"
    elif spec.get("socket"):
        kind = "socket"
    else:
        kind = "file"
    if entry.kind != kind:
        return [f"{path}: expected a {kind}, found a {entry.kind}"]
    problems = []
    if "mode" in spec and entry.mode != int(spec["mode"], 8):
        problems.append(f"{path}: mode {entry.mode:04o}, expected {spec['mode']}")
    if ("mtime" in spec or "mtime_ns" in spec) and entry.mtime_ns != _mtime_ns(spec):
        problems.append(f"{path}: mtime_ns {entry.mtime_ns}, expected {_mtime_ns(spec)}")
    if kind == "symlink" and entry.target != substitute(spec["symlink"], root):
        problems.append(f"{path}: links to {entry.target!r}, expected {spec['symlink']!r}")
    if kind == "file":
        if "lines_any_order" in spec:
            problems.extend(_compare_lines(path, spec["lines_any_order"], entry.content))
        elif "text_pattern" in spec:
            if not text_matches_pattern(spec["text_pattern"], entry.content):
                problems.append(
                    f"{path}: content {abridge(_wire_text(entry.content))} does not match "
                    f"{spec['text_pattern']!r}"
                )
        elif "text" in spec or "base64" in spec:
            wanted = _content(spec)
            if "size" in spec:
                wanted = (wanted + _fill(spec, len(wanted))).ljust(int(spec["size"]), b"\0")
            if entry.content != wanted:
                difference = describe_difference(_wire_text(wanted), _wire_text(entry.content))
                problems.append("\n".join([f"{path}: content differs", *difference]))
    return problems


def _wire_text(content: bytes) -> Any:
    """File content as the protocol carries text: a string, or base64 when not UTF-8."""
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(content).decode("ascii")}


def _fill(spec: Mapping[str, Any], written: int) -> bytes:
    """The bytes ``fill`` extends a sized file with (none without ``fill``: a hole)."""
    fill = spec.get("fill")
    return fill.encode("ascii") * max(0, int(spec["size"]) - written) if fill else b""


def _compare_lines(path: str, wanted: list[str], content: bytes) -> list[str]:
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return [f"{path}: content is not UTF-8"]
    if not wanted:
        return [] if text == "" else [f"{path}: expected an empty file, found {len(text)} chars"]
    if not text.endswith("\n"):
        return [f"{path}: does not end with a newline"]
    found = Counter(text[:-1].split("\n"))
    expected = Counter(wanted)
    missing = sorted((expected - found).elements())
    extra = sorted((found - expected).elements())
    problems = []
    if missing:
        problems.append(f"{path}: {len(missing)} line(s) missing, e.g. {missing[0]!r}")
    if extra:
        problems.append(f"{path}: {len(extra)} unexpected line(s), e.g. {extra[0]!r}")
    return problems


def remove_tree(root: Path) -> None:
    """Delete ``root`` even where the case took permissions away."""
    for directory, dirnames, _ in os.walk(root):
        for name in dirnames:
            path = os.path.join(directory, name)
            if not os.path.islink(path):
                os.chmod(path, 0o700)
    os.chmod(root, 0o700)
    shutil.rmtree(root, ignore_errors=True)


@functools.cache
def tmp_case_sensitive() -> bool:
    """Whether the directory cases are materialised in tells ``a`` from ``A``."""
    with tempfile.TemporaryDirectory(prefix="memspec-") as scratch:
        Path(scratch, "a").touch()
        return not Path(scratch, "A").exists()
