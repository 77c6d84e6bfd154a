"""Trees of files materialised in a real directory, read back, and compared."""

from __future__ import annotations

import base64
import contextlib
import fnmatch
import functools
import os
import secrets
import socket
import stat
import tempfile
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memspec.corpus.compare import text_matches_pattern
from memspec.corpus.tokens import substitute, substitute_tree
from memspec.exceptions import CaseFailure, HostLimitation
from memspec.judge.messages import abridge, describe_difference, visible
from memspec.wire.instants import parse_instant

__all__ = [
    "DEEPEST",
    "DEFAULT_MTIME",
    "Entry",
    "TooDeep",
    "compare_tree",
    "empty_folder",
    "hand_over",
    "ignored",
    "is_directory",
    "materialise",
    "open_beneath",
    "open_folder",
    "read_bounded",
    "read_folder",
    "read_tree",
    "remove_entry",
    "remove_tree",
    "replaced_root",
    "tmp_case_sensitive",
    "tree_changes",
    "walk",
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
        if "hardlink" in spec:
            continue
        if spec.get("dir"):
            target.mkdir(exist_ok=True)
        elif "symlink" in spec:
            os.symlink(substitute(spec["symlink"], root_text), target)
        elif spec.get("fifo"):
            os.mkfifo(target)
        elif spec.get("socket"):
            _make_socket(target)
        else:
            with open(target, "wb") as handle:
                handle.write(_content(spec))
                if "size" in spec:
                    handle.write(_fill(spec, handle.tell()))
                    handle.truncate(int(spec["size"]))
    for relative in sorted(tree):
        if "hardlink" in tree[relative]:
            os.link(root / tree[relative]["hardlink"], root / relative, follow_symlinks=False)
    for relative in sorted(tree, key=lambda r: (-r.count("/"), r)):
        spec = tree[relative]
        if "hardlink" in spec:
            continue  # its mode and times are those of the file it names
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


def _make_socket(target: Path) -> None:
    """A socket at ``target``, as a listener that has gone leaves it. ``mknod`` makes one
    for any user on Linux at a path of any length; binding one, elsewhere, is bounded by
    the 108 bytes of an AF_UNIX address."""
    try:
        os.mknod(target, stat.S_IFSOCK | 0o777)
        return
    except (AttributeError, PermissionError):
        pass
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(str(target))


def hand_over(root: Path, owner: tuple[int, int]) -> None:
    """Give ``root`` and everything below it (links themselves, not their targets) to
    ``owner``, so that an adapter running as that user meets the modes as its owner.

    Every entry is changed through a descriptor (of it, or of its directory), never
    through a path a link swapped in could redirect; and each directory is handed over
    only once everything in it has been, deepest first and the root last, so that the
    adapter's user can change no directory of the tree while it is being walked."""
    uid, gid = owner
    fd = open_folder(root)
    try:
        directories = []
        for directory, name, relative, info in walk(fd):
            if stat.S_ISDIR(info.st_mode):
                directories.append(relative)
                continue
            with contextlib.suppress(OSError):
                os.chown(name, uid, gid, dir_fd=directory, follow_symlinks=False)
        for relative in sorted(directories, key=lambda r: -r.count("/")):
            with contextlib.suppress(OSError):
                inner = _open_directory_beneath(fd, relative)
                try:
                    os.fchown(inner, uid, gid)
                finally:
                    os.close(inner)
        os.fchown(fd, uid, gid)
    finally:
        os.close(fd)


def _open_directory_beneath(top: int, relative: str) -> int:
    """The directory ``relative`` below the directory open as ``top``, each level opened
    from the one above without following a link."""
    fd = os.dup(top)
    try:
        for name in relative.split("/"):
            inner = os.open(name, _DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


@dataclass(frozen=True)
class Entry:
    """One path as found on disk."""

    kind: str  # "file", "dir", "symlink", "fifo", "socket", "other"
    mode: int
    mtime_ns: int
    content: bytes = b""
    target: str = ""
    inode: tuple[int, int] | None = field(default=None, compare=False)
    """A regular file's device and inode: two paths of one file are hard links. Left out
    of equality, since a file replaced by an identical one is unchanged for a tree."""


_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_LARGEST_COMPARED = 1 << 20


def replaced_root(root: Path) -> str | None:
    """What stands in the place of the directory ``root`` when something else does (a
    symbolic link an adapter put there, say), described; None while it is a directory."""
    try:
        info = os.lstat(root)
    except FileNotFoundError:
        return "nothing"
    if stat.S_ISLNK(info.st_mode):
        return f"a symbolic link to {os.readlink(root)!r}"
    return None if stat.S_ISDIR(info.st_mode) else "something that is not a directory"


DEEPEST = 128
"""How many directory levels below a tree's root the harness walks: a fixture stays far
from it (``memspec lint`` keeps tree keys to
``memspec.corpus.case_paths.FIXTURE_DEPTH`` levels), and an adapter
that goes deeper fails its case instead of exhausting the harness's stack or its
descriptors."""


class TooDeep(CaseFailure):
    """A tree holds directories more than ``DEEPEST`` levels deep."""

    def __init__(self, path: str) -> None:
        super().__init__(
            f"the tree holds directories more than {DEEPEST} levels deep ({abridge(path, 120)})",
            signature=("too deep",),
        )


def open_folder(root: Path) -> int:
    """A descriptor of the directory ``root``, opened without following a link; raises
    CaseFailure when something else stands in its place."""
    replaced = replaced_root(root)
    if replaced is not None:
        raise CaseFailure(f"the directory {root} was replaced by {replaced}")
    try:
        return os.open(root, _DIRECTORY)
    except OSError as exc:
        raise CaseFailure(f"the directory {root} cannot be opened: {exc.strerror}") from exc


def walk(top: int) -> Iterator[tuple[int, str, str, os.stat_result]]:
    """Every entry below the directory open as ``top``, parents first: the descriptor of
    its directory, its name, its '/'-separated path and its own status (a link's, never
    its target's). Each directory is opened from its parent's descriptor without
    following a link; at most ``DEEPEST`` are open at once (raises TooDeep below that)."""
    stack: list[tuple[int, str, Iterator[str]]] = [(top, "", iter(_names(top)))]
    try:
        while stack:
            fd, prefix, names = stack[-1]
            name = next(names, None)
            if name is None:
                stack.pop()
                if fd != top:
                    os.close(fd)
                continue
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except OSError:  # gone since the listing
                continue
            yield fd, name, prefix + name, info
            if not stat.S_ISDIR(info.st_mode):
                continue
            if len(stack) >= DEEPEST:
                raise TooDeep(prefix + name)
            try:
                inner = os.open(name, _DIRECTORY, dir_fd=fd)
            except OSError:
                continue
            stack.append((inner, f"{prefix}{name}/", iter(_names(inner))))
    finally:
        for fd, _, _ in stack:
            if fd != top:
                os.close(fd)


def _names(fd: int) -> list[str]:
    try:
        return sorted(os.listdir(fd))
    except OSError:
        return []


def open_beneath(root: Path, relative: str) -> int:
    """A descriptor of the regular file or other non-directory ``relative`` below the
    directory ``root``, reached through descriptors without following a link anywhere
    (a link is refused with ELOOP) and without blocking (a FIFO opens at once)."""
    *parents, last = relative.split("/")
    fd = os.open(root, _DIRECTORY)
    try:
        for name in parents:
            inner = os.open(name, _DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        return os.open(last, _FILE, dir_fd=fd)
    finally:
        os.close(fd)


def read_bounded(fd: int, limit: int) -> bytes | None:
    """At most ``limit`` bytes of the file open as ``fd``; None when it holds more."""
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = os.read(fd, min(1 << 16, limit + 1 - size))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
    return None


def read_tree(root: Path) -> dict[str, Entry]:
    """Every path below ``root``, keyed by '/'-separated path. Nothing is followed: each
    directory is opened from its parent's descriptor without following a link, so a
    link swapped in anywhere, the root included, is read as the link it is. Raises
    CaseFailure when ``root`` itself is no longer a directory.

    A tree handed to another user (``--tree-owner``) is read as that user could read
    it: the content of a file its user does not own (a link the adapter made to a file
    of the host) is never read, so that no byte of it reaches a report."""
    fd = open_folder(root)
    try:
        owner = os.fstat(fd).st_uid
        return read_folder(fd, None if owner == os.geteuid() else owner)
    finally:
        os.close(fd)


def read_folder(fd: int, owner: int | None = None) -> dict[str, Entry]:
    """``read_tree`` of the directory open as ``fd``; only the files ``owner`` owns are
    read, when it is given."""
    found: dict[str, Entry] = {}
    for directory, name, relative, info in walk(fd):
        mode = stat.S_IMODE(info.st_mode)
        if stat.S_ISLNK(info.st_mode):
            found[relative] = Entry(
                "symlink", mode, info.st_mtime_ns, target=_link_target(directory, name)
            )
        elif stat.S_ISDIR(info.st_mode):
            found[relative] = Entry("dir", mode, info.st_mtime_ns)
        elif stat.S_ISREG(info.st_mode):
            found[relative] = Entry(
                "file",
                mode,
                info.st_mtime_ns,
                content=(
                    _read(directory, name)
                    if owner is None or info.st_uid == owner
                    else b"<a file the tree's owner does not own: not read>"
                ),
                inode=(info.st_dev, info.st_ino),
            )
        elif stat.S_ISSOCK(info.st_mode):
            found[relative] = Entry("socket", mode, info.st_mtime_ns)
        elif stat.S_ISFIFO(info.st_mode):
            found[relative] = Entry("fifo", mode, info.st_mtime_ns)
        else:
            found[relative] = Entry("other", mode, info.st_mtime_ns)
    return found


def _link_target(directory: int, name: str) -> str:
    try:
        return os.readlink(name, dir_fd=directory)
    except OSError:  # replaced since it was looked at
        return ""


def _read(directory: int, name: str) -> bytes:
    try:
        fd = os.open(name, _FILE, dir_fd=directory)
    except OSError:
        return b"<unreadable>"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b"<unreadable>"
        if os.fstat(fd).st_size > _LARGEST_COMPARED:
            return b"<larger than 1 MiB: not compared>"
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return b"<unreadable>"
    finally:
        os.close(fd)


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
    linked = _hard_link_groups(actual)
    implied_dirs = {
        "/".join(path.split("/")[:i]) for path in expected for i in range(1, path.count("/") + 1)
    }
    for path, spec in sorted(expected.items()):
        entry = actual.get(path)
        if entry is None:
            problems.append(f"{path}: missing")
            continue
        if "hardlink" in spec:
            problems.extend(_compare_hard_link(path, spec["hardlink"], entry, actual))
            continue
        problems.extend(_compare_entry(path, spec, entry, root))
        problems.extend(_shared_unexpectedly(path, entry, expected, linked))
    for path, entry in sorted(actual.items()):
        if path in expected:
            continue
        if entry.kind == "dir" and (path in implied_dirs or _has_children(path, actual)):
            continue
        problems.append(f"{path}: unexpected {entry.kind}")
    return problems


def _compare_hard_link(
    path: str, wanted: str, entry: Entry, actual: Mapping[str, Entry]
) -> list[str]:
    other = actual.get(wanted)
    if entry.kind != "file":
        return [f"{path}: expected a file, found a {entry.kind}"]
    if other is None or other.inode is None or other.inode != entry.inode:
        return [f"{path}: hard link to {wanted} expected, found a file of its own"]
    return []


def _hard_link_groups(actual: Mapping[str, Entry]) -> dict[tuple[int, int], list[str]]:
    """The paths of each file that has more than one name in ``actual``, by inode."""
    groups: dict[tuple[int, int], list[str]] = {}
    for path, entry in actual.items():
        if entry.inode is not None:
            groups.setdefault(entry.inode, []).append(path)
    return {inode: sorted(paths) for inode, paths in groups.items() if len(paths) > 1}


def _shared_unexpectedly(
    path: str,
    entry: Entry,
    expected: Mapping[str, Any],
    linked: Mapping[tuple[int, int], list[str]],
) -> list[str]:
    """A file expected to be its own that is still one file with another path of the
    tree (other than one the expected tree names as a hard link)."""
    others = linked.get(entry.inode, []) if entry.inode is not None else []
    return [
        f"{path}: hard link to {other}, expected a file of its own"
        for other in others
        if other != path and expected.get(other, {}).get("hardlink") is None
    ]


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
        elif "entries_any_order" in spec:
            problems.extend(
                _compare_entries(path, spec["entries_any_order"], spec["separator"], entry.content)
            )
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
                if "separator" in spec and "text" in spec:
                    difference = [
                        *_entries_lines(spec["text"], spec["separator"], entry.content, True),
                        *difference,
                    ]
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


def _compare_entries(path: str, wanted: list[str], separator: str, content: bytes) -> list[str]:
    """A file that must hold ``wanted`` joined by ``separator`` in some order."""
    lines = _entries_lines(separator.join(wanted), separator, content, False)
    return ["\n".join([f"{path}: content differs", *lines])] if lines else []


def _entries_lines(wanted: str, separator: str, content: bytes, ordered: bool) -> list[str]:
    """How the entries of ``content`` depart from those of ``wanted``: how many of them
    it kept, which it lost (a lost update), which it has that it should not, and, when
    ``ordered``, where the order first differs; empty when they agree."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return ["  the content is not UTF-8"]
    expected = wanted.split(separator) if wanted else []
    found = text.split(separator) if text else []
    missing = list((Counter(expected) - Counter(found)).elements())
    extra = list((Counter(found) - Counter(expected)).elements())
    lines = []
    if missing or extra:
        lines.append(
            f"  {len(expected) - len(missing)} of {len(expected)} entries kept"
            + (f"; missing: {_listed(missing)}" if missing else "")
            + (f"; unexpected: {_listed(extra)}" if extra else "")
        )
    elif ordered and found != expected:
        index = next(i for i, (a, b) in enumerate(zip(expected, found, strict=True)) if a != b)
        lines.append(
            f"  every entry kept, in another order: entry {index + 1} of {len(expected)} is "
            f"{abridge(found[index])}, expected {abridge(expected[index])}"
        )
    return lines


def _listed(entries: list[str], at_most: int = 10) -> str:
    shown = ", ".join(visible(entry) for entry in entries[:at_most])
    return shown + (f" and {len(entries) - at_most} more" if len(entries) > at_most else "")


def remove_tree(root: Path) -> None:
    """Delete ``root`` even where the case took permissions away, without following a
    link anywhere: a link in the root's place, or below it, is removed as a link, and
    only directories of the tree itself are made writable on the way."""
    try:
        info = os.lstat(root)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(info.st_mode):
        with contextlib.suppress(OSError):
            os.unlink(root)
        return
    parent = os.open(root.parent, _DIRECTORY)
    try:
        _remove_directory(parent, root.name)
    finally:
        os.close(parent)


def is_directory(parent: int, name: str) -> bool:
    """Whether the entry ``name`` of the directory open as ``parent`` is a directory (a
    link is not)."""
    try:
        return stat.S_ISDIR(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    except OSError:
        return False


def remove_entry(parent: int, name: str) -> None:
    """Remove the entry ``name`` of the directory open as ``parent``, whatever it is, no
    link followed: a directory with all it holds, anything else unlinked."""
    if is_directory(parent, name):
        _remove_directory(parent, name)
        return
    with contextlib.suppress(OSError):
        os.unlink(name, dir_fd=parent)


def _remove_directory(parent: int, name: str) -> None:
    """Empty and remove the directory ``name`` of ``parent``, if it is one."""
    try:
        fd = _open_writable(parent, name)
    except OSError:
        return
    try:
        empty_folder(fd)
    finally:
        os.close(fd)
    with contextlib.suppress(OSError):
        os.rmdir(name, dir_fd=parent)


def empty_folder(top: int) -> None:
    """Remove everything below the directory open as ``top``, each entry relative to its
    directory's descriptor and no link followed. Without recursion, however deep the
    tree: a directory ``DEEPEST`` levels down is first moved up into ``top`` (by
    descriptors too), so that no more than ``DEEPEST`` descriptors are ever open."""
    stack: list[tuple[int, str, Iterator[str]]] = [(top, "", iter(_names(top)))]
    hoisted = False
    try:
        while stack:
            fd, name, names = stack[-1]
            inner = next(names, None)
            if inner is None:
                stack.pop()
                if fd != top:
                    os.close(fd)
                    with contextlib.suppress(OSError):
                        os.rmdir(name, dir_fd=stack[-1][0])
                elif hoisted:  # what was moved up is removed in another pass
                    hoisted = False
                    stack.append((top, "", iter(_names(top))))
                continue
            try:
                mode = os.stat(inner, dir_fd=fd, follow_symlinks=False).st_mode
            except OSError:
                continue
            if not stat.S_ISDIR(mode):
                with contextlib.suppress(OSError):
                    os.unlink(inner, dir_fd=fd)
            elif len(stack) >= DEEPEST:
                with contextlib.suppress(OSError):
                    moved = f".memspec-deep-{secrets.token_hex(8)}"
                    os.rename(inner, moved, src_dir_fd=fd, dst_dir_fd=top)
                    hoisted = True
            else:
                with contextlib.suppress(OSError):
                    child = _open_writable(fd, inner)
                    stack.append((child, inner, iter(_names(child))))
    finally:
        for fd, _, _ in stack:
            if fd != top:
                os.close(fd)


def _open_writable(parent: int, name: str) -> int:
    """The directory ``name`` of ``parent`` (never a link), made 0700 and opened.

    It is first opened as a place only (``O_PATH``, which needs no permission on it) and
    its mode changed through that descriptor, so that a link put in its place between a
    look and the change is never followed."""
    place = os.open(name, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    try:
        os.chmod(f"/proc/self/fd/{place}", 0o700)
        return os.open(".", _DIRECTORY, dir_fd=place)
    finally:
        os.close(place)


@functools.cache
def tmp_case_sensitive() -> bool:
    """Whether the directory cases are materialised in tells ``a`` from ``A``."""
    with tempfile.TemporaryDirectory(prefix="memspec-") as scratch:
        Path(scratch, "a").touch()
        return not Path(scratch, "A").exists()
