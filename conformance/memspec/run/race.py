"""The racer: a directory of the case's tree swapped for a link out of it, over and over.

A step with ``race`` is sent over and over while a process of the harness exchanges the
directory ``swap`` with a symbolic link to the directory ``outside`` (both relative to the
root; the link holds the absolute path), using ``renameat2(RENAME_EXCHANGE)`` so that the
name is at every instant either the directory or the link. After each send the tree below
``outside`` must be exactly as it was: an implementation that checks a path and then uses
it by path again is caught writing, renaming or deleting there. Every reply must match one
of the step's ``any_of`` expectations, which is how a read through the link is caught. The
race ends at the first send that gives the op away, or when its budget is spent (``repeat``
sends or ``seconds`` of racing): a sound implementation spends the whole budget, which is
sized so that a vulnerable one is caught in every run (``benchmarks/race_catch_rate.py``).
Where the harness observes the adapter's system calls, ``run.race_points`` decides the
step instead, in one round.
``${ITERATION}`` (0 to ``repeat`` - 1) is substituted in the args and the expectations of
each send, so that a command that works once per name (create, delete, rename) has a fresh
name each time.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import dataclasses
import functools
import json
import mmap
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memspec.corpus.cases import Case, Expectation, Race
from memspec.corpus.tokens import for_worker
from memspec.exceptions import CaseFailure, HostLimitation
from memspec.judge.messages import abridge
from memspec.run.trees import read_tree, tree_changes
from memspec.wire.adapters import Response

__all__ = [
    "RACER_SUFFIX",
    "Arena",
    "arena",
    "escaped_failure",
    "exchange_or_refuse",
    "finish_race",
    "judge_any",
    "race_problems",
    "run_race",
    "with_iteration",
]

RACER_SUFFIX = ".memspec-racer"
# A reply the step does not allow is a failure; the race goes on a little after it, to
# tell a port that escapes (and whose replies also break the rules, by timing) from one
# whose replies alone are wrong, so that the kind of failure is the same in every run.
GRACE_S = 2.0
GRACE_SENDS = 200
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2

Exchange = Callable[[str, str], None]


@functools.cache
def _exchange() -> Exchange | None:
    """``renameat2(..., RENAME_EXCHANGE)`` from the C library, when the host has it."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return None
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]

    def exchange(first: str, second: str) -> None:
        if renameat2(
            _AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE
        ):
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code), first)

    return exchange


# The racer runs in a process of its own, so that it races an in-process adapter as truly
# as an out-of-process one (a thread would take turns with it under the GIL). It exchanges
# the two names in pairs, so it stops with the directory in place, and holds each state for
# a random pause of up to 50 µs: on a loaded machine, where racer and adapter share a core,
# a loop without pauses flips only between time slices and rarely inside a command. It
# counts its swaps in a shared page, so that the harness can wait for it to move on between
# two sends (else a fast op could answer every send within one pause).
_RACER = r"""
import ctypes, ctypes.util, mmap, os, random, signal, struct, sys, time
libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
renameat2 = libc.renameat2
renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
link, directory = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
counter = mmap.mmap(int(sys.argv[3]), 8)
stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
print("ready", flush=True)
swaps = 0
while not stop:
    if renameat2(-100, link, -100, directory, 2):
        break
    time.sleep(random.random() * 50e-6)
    if renameat2(-100, link, -100, directory, 2):
        break
    swaps += 2
    struct.pack_into("q", counter, 0, swaps)
    time.sleep(random.random() * 50e-6)
print(swaps, flush=True)
"""
_PROGRESS_WAIT_S = 0.5


class _Racer:
    """A process exchanging ``link`` and ``directory`` until stopped."""

    def __init__(self, link: str, directory: str) -> None:
        self._link, self._directory = link, directory
        self._page = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the racer
        self._page.truncate(8)
        self._counter = mmap.mmap(self._page.fileno(), 8)
        self._process = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _RACER, link, directory, str(self._page.fileno())],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            pass_fds=(self._page.fileno(),),
            text=True,
        )
        assert self._process.stdout is not None
        self._process.stdout.readline()  # "ready": swapping has begun
        self._seen = 0
        self.swaps = 0

    def count(self) -> int:
        return int(struct.unpack_from("q", self._counter, 0)[0])

    def moved_on(self) -> None:
        """Wait (a little) until the racer has swapped back and forth since last asked."""
        deadline = time.monotonic() + _PROGRESS_WAIT_S
        while self.count() <= self._seen and time.monotonic() < deadline:
            if self._process.poll() is not None:
                break
            time.sleep(0.0002)
        self._seen = self.count()

    def finish(self, exchange: Exchange) -> None:
        """Stop the racer and make sure the directory is back in its place."""
        self._process.send_signal(signal.SIGTERM)
        out, _ = self._process.communicate(timeout=30)
        self.swaps = int(out.strip() or 0)
        self._counter.close()
        self._page.close()
        if os.path.islink(self._directory) and not os.path.islink(self._link):
            exchange(self._link, self._directory)


_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _fingerprint(directory: Path) -> list[tuple[str, int, int, int, int]]:
    """Each path below ``directory`` with its inode, mode, size and mtime, read without
    following links: cheap enough to take after every send, and changed by any write,
    rename or removal (the contents are compared only when it changes)."""
    found: list[tuple[str, int, int, int, int]] = []

    def visit(fd: int, prefix: str) -> None:
        with os.scandir(fd) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                info = entry.stat(follow_symlinks=False)
                relative = prefix + entry.name
                found.append((relative, info.st_ino, info.st_mode, info.st_size, info.st_mtime_ns))
                if entry.is_dir(follow_symlinks=False):
                    with contextlib.suppress(OSError):
                        inner = os.open(entry.name, _DIRECTORY, dir_fd=fd)
                        try:
                            visit(inner, relative + "/")
                        finally:
                            os.close(inner)

    try:
        top = os.open(directory, _DIRECTORY)
    except OSError:
        return [("", 0, 0, 0, 0)]
    try:
        visit(top, "")
    except OSError:
        found.append(("", 0, 0, 0, 0))
    finally:
        os.close(top)
    return found


@dataclasses.dataclass
class Arena:
    """The tree a race runs in: the directory swapped, the one outside, the link to it,
    and what the sends are judged against."""

    race: Race
    workdir: Path
    directory: Path
    outside: Path
    link: Path
    before: dict[str, Any]
    """The tree below ``outside`` before the race."""
    seen: list[tuple[str, int, int, int, int]]
    secrets: list[str]
    """The lines of the files outside that no file below ``swap`` holds."""
    rest_before: dict[str, Any]

    def escaped(self) -> list[str]:
        """What the sends changed below ``outside``."""
        if _fingerprint(self.outside) == self.seen:
            return []
        return tree_changes(self.before, read_tree(self.outside))

    def shown(self, reply: Response) -> str | None:
        """The first line of a file outside that ``reply`` shows, if any."""
        return _shows_outside(reply, self.secrets)

    def changed_beside(self, args: Any, sent: int) -> list[str]:
        """What the first ``sent`` sends changed beside ``swap`` where none names."""
        named = _names_sent(args, sent)
        return [
            change
            for change in tree_changes(self.rest_before, _rest_of_tree(self.workdir, self.race))
            if change.partition(": ")[0].rsplit("/", 1)[-1] not in named
        ]


def exchange_or_refuse() -> Exchange:
    """The host's exchange of two names; HostLimitation when it has none."""
    exchange = _exchange()
    if exchange is None:
        raise HostLimitation("host: the racer needs renameat2 with RENAME_EXCHANGE (Linux)")
    return exchange


def arena(race: Race, workdir: Path, fail: Callable[[str, list[str], str], CaseFailure]) -> Arena:
    """Read the tree the race runs in and make the link to ``outside`` beside ``swap``."""
    directory, outside = workdir / race.swap, workdir / race.outside
    if directory.is_symlink() or not directory.is_dir() or not outside.is_dir():
        raise fail(
            f"race: {race.swap} and {race.outside} must be directories of the tree", [], "set-up"
        )
    before = read_tree(outside)
    inside = set(_long_lines(read_tree(directory)))
    made = Arena(
        race,
        workdir,
        directory,
        outside,
        directory.with_name(f".{directory.name}{RACER_SUFFIX}"),
        before,
        _fingerprint(outside),
        [text for text in _long_lines(before) if text not in inside],
        _rest_of_tree(workdir, race),
    )
    os.symlink(str(outside), made.link)
    return made


def escaped_failure(
    made: Arena, reply: Response, shown: str, sent: int, how: str,
    fail: Callable[[str, list[str], str], CaseFailure],
) -> CaseFailure:  # fmt: skip
    """The failure of a send that answered with what lies outside."""
    race = made.race
    return fail(
        f"send {sent} of at most {race.repeat} answered with what lies outside "
        f"({how} {race.swap} for a link to {race.outside})",
        [f"  shows:  {abridge(shown)}", f"  actual: {abridge(_reply_text(reply))}"],
        "escaped",
    )


def finish_race(
    made: Arena,
    changes: list[str],
    refused: CaseFailure | None,
    sent: int,
    how: str,
    args: Any,
    fail: Callable[[str, list[str], str], CaseFailure],
    note: str = "",
) -> None:
    """Raise the race's failure, if any: what changed outside, a reply not allowed, what
    changed beside ``swap``."""
    race = made.race
    if changes:
        raise fail(
            f"while {how} {race.swap} for a link to {race.outside}{note}, send {sent} of at most "
            f"{race.repeat} changed what lies outside",
            [f"  {change}" for change in changes[:10]],
            "escaped",
        )
    if refused is not None:
        raise refused
    rest = made.changed_beside(args, sent)
    if rest:
        raise fail(
            f"while {how} {race.swap} for a link to {race.outside}, the sends changed the "
            f"tree beside {race.swap}, which none of them names",
            [f"  {change}" for change in rest[:10]],
            "changed the memory root",
        )


def run_race(
    race: Race,
    workdir: Path,
    send: Callable[[int], Response],
    judge: Callable[[int, Response], None],
    fail: Callable[[str, list[str], str], CaseFailure],
    args: Any = None,
) -> int:
    """Send the step under the racer (``send(i)`` for the i-th time) until it gives the op
    away or the budget is spent (``race.repeat`` sends, ``race.seconds`` of racing); raise
    CaseFailure when anything below ``race.outside`` changed (escaped), a reply showed a
    line of a file outside that no file below ``swap`` holds (escaped), or a reply is not
    one the step allows (after ``GRACE_S`` more racing that found no escape), or when the
    sends changed the tree beside ``swap`` where none of their ``args`` names. Return
    how many sends it took."""
    exchange = exchange_or_refuse()
    made = arena(race, workdir, fail)
    racer = _Racer(str(made.link), str(made.directory))
    deadline = time.monotonic() + race.seconds
    last = race.repeat
    sent = 0
    changes: list[str] = []
    refused: CaseFailure | None = None
    try:
        # Each reply is judged as it comes, so that a vulnerable op ends the race at the
        # send that gives it away and a sound one spends the whole budget.
        for iteration in range(race.repeat):
            racer.moved_on()
            reply = send(iteration)
            sent += 1
            changes = made.escaped()
            if changes:
                break
            shown = made.shown(reply)
            if shown is not None:
                raise escaped_failure(made, reply, shown, sent, "while a racer swapped", fail)
            if refused is None:
                try:
                    judge(iteration, reply)
                except CaseFailure as exc:
                    refused = CaseFailure(
                        f"{exc}\n  (send {sent} of at most {race.repeat})",
                        exc.signature,
                        exc.values,
                    )
                    deadline = min(deadline, time.monotonic() + GRACE_S)
                    last = min(race.repeat, sent + GRACE_SENDS)
            if time.monotonic() >= deadline or sent >= last:
                break
    finally:
        racer.finish(exchange)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(made.link)
    how, note = "a racer swapped", f" ({racer.swaps} swaps)"
    finish_race(made, changes, refused, sent, how, args, fail, note)
    return sent


def _rest_of_tree(workdir: Path, race: Race) -> dict[str, Any]:
    """The tree but for what the sends may change (below ``swap``) and what the racer
    watches on its own (below ``outside``), and the racer's link; without mtimes, which
    the racer's own link changes in the directory that holds it."""
    keep = (race.swap.rstrip("/"), race.outside.rstrip("/"))
    return {
        path: dataclasses.replace(entry, mtime_ns=0)
        for path, entry in read_tree(workdir).items()
        if not any(path == top or path.startswith(top + "/") for top in keep)
        and not path.endswith(RACER_SUFFIX)
    }


def _names_sent(args: Any, sent: int) -> set[str]:
    """Every name (a component of a path) that the args of the first ``sent`` sends hold."""
    names: set[str] = set()

    def collect(value: Any) -> None:
        if isinstance(value, str):
            names.update(value.split("/"))
        elif isinstance(value, list):
            for item in value:
                collect(item)
        elif isinstance(value, dict):
            for item in value.values():
                collect(item)

    for iteration in range(sent):
        collect(for_worker(args, 0, iteration))
    return names


def _long_lines(tree: dict[str, Any]) -> list[str]:
    """The lines of the files of ``tree`` long enough to tell them apart (8 characters)."""
    texts = set()
    for entry in tree.values():
        if entry.kind != "file":
            continue
        for line in entry.content.decode("utf-8", "replace").splitlines():
            if len(line.strip()) >= 8:
                texts.add(line.strip())
    return sorted(texts)


def _reply_text(reply: Response) -> str:
    if reply.is_error:
        return f"{reply.error_kind}: {reply.error_message}"
    return json.dumps(reply.result, ensure_ascii=False)


def _shows_outside(reply: Response, secrets: list[str]) -> str | None:
    text = _reply_text(reply)
    return next((secret for secret in secrets if secret in text), None)


def with_iteration(expectation: Expectation, iteration: int) -> Expectation:
    """``expectation`` with ``${ITERATION}`` replaced by ``iteration`` in its values (and
    ``${WORKER}`` by 0, as in the args of a race's one sender)."""
    return dataclasses.replace(
        expectation,
        result=for_worker(expectation.result, 0, iteration),
        error_message=for_worker(expectation.error_message, 0, iteration),
    )


def judge_any(
    response: Response,
    expectations: tuple[Expectation, ...],
    judge: Callable[[Response, Expectation], None],
    fail: Callable[[str, list[str], str], CaseFailure],
) -> None:
    """Accept ``response`` when it meets one of ``expectations``."""
    misses = []
    for expected in expectations:
        try:
            judge(response, expected)
            return
        except CaseFailure as exc:
            misses.append(str(exc))
    reply = response.result if not response.is_error else f"error {response.error_kind!r}"
    raise fail(
        f"a reply during the race is none of the {len(expectations)} the step allows",
        [f"  actual: {abridge(reply, 300)}"],
        "reply not allowed",
    )


def race_problems(case: Case, where: str) -> list[str]:
    """Lint: a race step expects ``any_of``, runs alone, and its case lists ``symlinks``."""
    problems = []
    for index, step in enumerate(case.steps, 1):
        if step.race is None:
            if step.expect.any_of is not None:
                problems.append(f"{where}: step {index} expects any_of but has no race")
            continue
        if step.expect.any_of is None:
            problems.append(f"{where}: step {index} races but does not expect any_of")
        if step.concurrent is not None or step.crash_points:
            problems.append(f"{where}: step {index} races and is concurrent or has crash points")
        if step.expect.tree is not None:
            problems.append(f"{where}: step {index} races and expects a tree")
        if "symlinks" not in case.requires:
            problems.append(f"{where}: races but does not list symlinks in requires")
    return problems
