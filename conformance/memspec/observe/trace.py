"""Reading what the tracer wrote: the system calls of one request, and which of them
mutated the case's tree.

The tracer prints one line per call (``strace -f -y``): the thread id, the call with its
arguments, each file descriptor followed by its path in angle brackets. A call is the
tree's when a path it names, or the path of a descriptor it passes, lies in the tree.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace

__all__ = ["MUTATING", "PATH_CALLS", "Call", "in_tree", "parse_calls", "paths", "tree_mutations"]

MUTATING = (
    "open",
    "openat",
    "openat2",
    "creat",
    "write",
    "pwrite64",
    "writev",
    "pwritev",
    "pwritev2",
    "rename",
    "renameat",
    "renameat2",
    "unlink",
    "unlinkat",
    "mkdir",
    "mkdirat",
    "rmdir",
    "truncate",
    "ftruncate",
    "fallocate",
    "fsync",
    "fdatasync",
    "link",
    "linkat",
    "symlink",
    "symlinkat",
    "chmod",
    "fchmod",
    "fchmodat",
    "chown",
    "fchown",
    "lchown",
    "fchownat",
    "utimensat",
    "copy_file_range",
)
"""The calls that change a file system (an open only with a flag that writes)."""

PATH_CALLS = (
    *MUTATING,
    "stat",
    "lstat",
    "newfstatat",
    "statx",
    "access",
    "faccessat",
    "faccessat2",
    "readlink",
    "readlinkat",
    "chdir",
    "getdents64",
)
"""The calls that look a path up or use one: where a check and the use that follows it
can be told apart."""

_OPENS = frozenset({"open", "openat", "openat2"})
_WRITING_FLAGS = ("O_CREAT", "O_TRUNC", "O_WRONLY", "O_RDWR")
# The thread id leads each line when strace traces more than one thread (0 stands for it
# when it traces one).
_ENTRY = re.compile(r"^(?:(\d+)\s+)?([a-z0-9_]+)\((.*)$")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_KILLED = re.compile(r"^(?:(\d+)\s+)?\+\+\+ killed by SIGKILL")
_RESUMED = re.compile(r"^(?:(\d+)\s+)?<\.\.\. ([a-z0-9_]+) resumed>(.*)$")
_DESCRIPTOR = re.compile(r"\b\d+<([^<>]*)>")
_AT = re.compile(r'\b\d+<([^<>]*)>, "((?:[^"\\]|\\.)*)"')
"""A directory's descriptor and a name in it (the arguments of an ``*at`` call)."""


@dataclass(frozen=True)
class Call:
    """One system call as the tracer saw it enter."""

    tid: int
    name: str
    ordinal: int
    """Which call of this name it was in its thread since the tracer attached (from 1):
    what ``--inject=NAME:when=ORDINAL`` counts."""
    text: str
    injected: bool

    def spec(self) -> str:
        """The call in a report: its name and arguments, abridged."""
        return f"{self.name}({self.text[:160]}"


def parse_calls(output: str) -> list[Call]:
    """Every call the tracer saw enter, in order (a call another thread interrupted is
    taken where it began; its resumption gives its result). A call is ``injected`` when
    the tracer failed it, or when its thread was killed by SIGKILL at it."""
    calls: list[Call] = []
    seen: Counter[tuple[int, str]] = Counter()
    last: dict[int, int] = {}
    for line in output.splitlines():
        match = _ENTRY.match(line)
        if match is None:
            ended = _RESUMED.match(line) or _KILLED.match(line)
            where = last.get(int(ended[1] or 0)) if ended else None
            if ended and where is not None:  # the call its thread was killed at, or resumed
                call = calls[where]
                if ended.re is _KILLED:
                    calls[where] = replace(call, injected=True)
                else:
                    text = call.text.removesuffix(" <unfinished ...>") + ended[3]
                    calls[where] = replace(call, text=text, injected=text.endswith("(INJECTED)"))
            continue
        tid, name, rest = int(match[1] or 0), match[2], match[3]
        seen[tid, name] += 1
        last[tid] = len(calls)
        calls.append(Call(tid, name, seen[tid, name], rest, rest.endswith("(INJECTED)")))
    return calls


def paths(call: Call) -> list[str]:
    """The paths a call names: its descriptors' paths, its string arguments that are
    paths, and each name it gives relative to a directory's descriptor joined to that
    directory's path (a ``write`` names no path but its descriptor's; ``AT_FDCWD`` names
    none: an adapter works in the run's own directory, never in a case's tree)."""
    arguments = call.text.split(") = ", 1)[0]
    found = _DESCRIPTOR.findall(arguments)
    if not call.name.startswith(("write", "pwrite")):
        found += _STRING.findall(arguments)
        relative = [pair for pair in _AT.findall(arguments) if not pair[1].startswith("/")]
        found += [f"{folder}/{name}" for folder, name in relative]
    return found


def in_tree(path: str, roots: tuple[str, ...]) -> bool:
    """Whether ``path`` is one of ``roots`` or lies below one."""
    return any(path == root or path.startswith(root + "/") for root in roots)


def _mutates(call: Call) -> bool:
    if call.name not in _OPENS:
        return call.name in MUTATING
    return any(flag in call.text.split(") = ", 1)[0] for flag in _WRITING_FLAGS)


def tree_mutations(calls: list[Call], roots: tuple[str, ...]) -> list[Call]:
    """The calls that mutate a path in one of ``roots``, in the order they entered."""
    return [
        call
        for call in calls
        if _mutates(call) and any(in_tree(path, roots) for path in paths(call))
    ]
