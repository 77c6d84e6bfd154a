"""Adapters: one transport interface, three ways to reach an implementation.

- ``reference``: memref, in this process;
- ``python:MODULE:ATTR``: any in-process object with ``handle(message) -> message``
  (``ATTR`` may also be a zero-argument factory of such an object);
- ``cmd:COMMAND LINE``: any program speaking the protocol as JSON lines on stdin/stdout.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib
import json
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import unicodedata
import weakref
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from memspec import PROTOCOL_VERSION
from memspec.corpus.compare import decode_text, nested_deeper_than
from memspec.exceptions import (
    AdapterBroken,
    AdapterCrashed,
    AdapterFault,
    AdapterTimeout,
    ProtocolViolation,
    UsageError,
)
from memspec.wire.processes import processes, stat_fields
from memspec.wire.protocol import ERROR_KINDS
from memspec.wire.working_directory import (
    answering_in_it,
    owner_of_working_directory,
    working_directory,
)

__all__ = [
    "DEFAULT_MAX_REPLY_BYTES",
    "DEFAULT_START_TIMEOUT_S",
    "DEFAULT_TIMEOUT_S",
    "ERROR_KINDS",
    "Adapter",
    "Connection",
    "Handshake",
    "Response",
    "drain_threads",
    "parse_adapter_spec",
    "parse_tree_owner",
    "reference_handler",
    "stdin_pipes",
]

DEFAULT_TIMEOUT_S = 10.0
DEFAULT_START_TIMEOUT_S = 60.0
"""How long ``start`` may take: an adapter may import a large framework first."""
DEFAULT_MAX_REPLY_BYTES = 64 * 1024 * 1024
_STOP_TIMEOUT_S = 2.0
# A read of a megabyte allocates (and maps) a megabyte for a reply of a hundred bytes:
# 64 KiB keeps a round trip a third cheaper, and a long reply is still read linearly.
_READ_CHUNK = 64 * 1024
DEEPEST_REPLY = 128
"""How deeply arrays and objects may nest in a reply: past what any case expects (a
fixture nests at most 100 deep), and well within what every check of a reply follows."""
_STDERR_KEPT = 64 * 1024
"""How much of an adapter's stderr is kept (its last bytes): enough for the message of a
crash, never the disk of the host."""


Message = dict[str, Any]


def _real_clock() -> float:
    # CLOCK_MONOTONIC read through clock_gettime: freezegun patches time.monotonic and
    # time.perf_counter, so a timeout measured with them would never fire under freeze_time.
    return time.clock_gettime(time.CLOCK_MONOTONIC)


class Connection(Protocol):
    """Sends one request and returns the one reply; raises AdapterFault otherwise."""

    description: str

    def request(self, message: Message, timeout_s: float) -> Message: ...

    def unasked_output(self) -> bytes:
        """What the implementation has sent beyond its last reply, without waiting."""
        ...

    def close(self) -> None: ...


class InProcessConnection:
    """An in-process implementation; messages cross a JSON round trip as on a pipe."""

    def __init__(self, handler: Any, description: str) -> None:
        self._handler = handler
        self.description = description
        _count_interrupts()

    def request(self, message: Message, timeout_s: float) -> Message:
        interrupts = _INTERRUPTS[0]
        try:
            with answering_in_it():
                reply = self._handler.handle(json.loads(json.dumps(message)))
        except KeyboardInterrupt:
            if _INTERRUPTS[0] != interrupts:  # the user's Ctrl-C, which ends the run
                raise
            raise AdapterCrashed("handle() raised KeyboardInterrupt, no interrupt came") from None
        except (Exception, SystemExit) as exc:  # an in-process adapter's crash is its fault
            raise AdapterCrashed(f"handle() raised {type(exc).__name__}: {exc}") from exc
        try:
            decoded = json.loads(json.dumps(reply))
        except RecursionError as exc:
            raise ProtocolViolation("reply is nested too deeply to serialise") from exc
        except (TypeError, ValueError) as exc:
            raise ProtocolViolation(f"reply is not JSON-serialisable: {exc}") from exc
        if not isinstance(decoded, dict):
            raise ProtocolViolation(f"reply is not a JSON object: {abridged(decoded)}")
        if nested_deeper_than(decoded, DEEPEST_REPLY):
            raise ProtocolViolation(f"reply nested more than {DEEPEST_REPLY} levels deep")
        return decoded

    def unasked_output(self) -> bytes:
        return b""  # handle() returns exactly one reply

    def close(self) -> None:
        return None


_INTERRUPTS = [0]
"""How many interrupts (SIGINT) the process received, once counting began: a
KeyboardInterrupt raised by an in-process adapter while none came is the adapter's."""


def _count_interrupts() -> None:
    """Count each SIGINT before Python's own handler raises KeyboardInterrupt for it
    (once, from the main thread, while that handler is the one in place)."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return

    def counting(signum: int, frame: Any) -> None:
        _INTERRUPTS[0] += 1
        signal.default_int_handler(signum, frame)

    signal.signal(signal.SIGINT, counting)


def abridged(value: Any) -> str:
    """A value of a reply shown in at most 500 characters, whatever its depth."""
    try:
        return json.dumps(value)[:500]
    except (RecursionError, TypeError, ValueError):
        return f"({type(value).__name__} nested too deeply to show)"


class _Duplicate(ValueError):
    pass


def _unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        raise _Duplicate(f"an object of the reply has the member {twice!r} twice")
    return found


def decode_reply(raw: bytes) -> Any:
    """A reply line as JSON; a ProtocolViolation when it is not, when an object names a
    member twice (which value counts would be up to the reader), or when it nests
    deeper than ``DEEPEST_REPLY``."""
    try:
        decoded = json.loads(raw, object_pairs_hook=_unique_members)
    except _Duplicate as exc:
        raise ProtocolViolation(f"{exc}: {raw[:500]!r}") from None
    except RecursionError:
        raise ProtocolViolation(
            f"adapter printed JSON nested too deeply to read: {raw[:200]!r}"
        ) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProtocolViolation(f"adapter printed a line that is not JSON: {raw[:500]!r}") from exc
    if nested_deeper_than(decoded, DEEPEST_REPLY):
        raise ProtocolViolation(f"reply nested more than {DEEPEST_REPLY} levels deep")
    return decoded


class _StderrTail:
    """The last ``_STDERR_KEPT`` bytes an adapter wrote to stderr, read by a thread of
    its own so that the adapter never blocks on a full pipe and nothing grows."""

    def __init__(self, fd: int) -> None:
        self._chunks: deque[bytes] = deque()
        self._size = 0
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, args=(fd,), daemon=True)
        self._thread.start()

    def _drain(self, fd: int) -> None:
        try:
            while chunk := os.read(fd, _READ_CHUNK):
                with self._lock:
                    self._chunks.append(chunk)
                    self._size += len(chunk)
                    while self._size - len(self._chunks[0]) >= _STDERR_KEPT:
                        self._size -= len(self._chunks.popleft())
        except OSError:
            pass
        finally:
            os.close(fd)

    def tail(self, limit: int) -> bytes:
        with self._lock:
            return b"".join(self._chunks)[-limit:]

    def join(self, timeout_s: float) -> None:
        self._thread.join(timeout_s)

    @property
    def native_id(self) -> int | None:
        return self._thread.native_id


class SubprocessConnection:
    """A persistent child process; one JSON line out, one JSON line back."""

    def __init__(
        self,
        argv: list[str],
        description: str,
        env: Mapping[str, str] | None = None,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
    ):
        self.description = description
        self.max_reply_bytes = max_reply_bytes
        confined = confinement()
        if confined and shutil.which(argv[0]) is None:  # unshare would run, then fail
            raise AdapterBroken(f"cannot start {description}: no program {argv[0]!r}")
        stderr_read, stderr_write = os.pipe()
        try:
            self._process = subprocess.Popen(
                [*confined, *argv],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr_write,
                start_new_session=True,
                env=dict(env) if env is not None else None,
                cwd=working_directory(),
            )
        except OSError as exc:
            os.close(stderr_read)
            raise AdapterBroken(f"cannot start {description}: {exc.strerror or exc}") from exc
        finally:
            os.close(stderr_write)
        self._stderr = _StderrTail(stderr_read)
        self._pending: list[bytes] = []
        self._pending_size = 0
        # Readable once the leader has exited, so that a child of it that keeps stdout
        # open cannot make a request wait for its timeout.
        self._exited: int | None = None
        with contextlib.suppress(OSError, AttributeError):
            self._exited = os.pidfd_open(self._process.pid)
        _LIVE.add(self)

    @property
    def pid(self) -> int:
        """The process id of the adapter's leader."""
        return self._process.pid

    def stderr_tail(self, limit: int = 2000) -> str:
        self._stderr.join(0.2)  # what a process that just exited wrote last
        return self._stderr.tail(limit).decode("utf-8", "replace").strip()

    def _exit_note(self) -> str:
        code = self._process.poll()
        tail = self.stderr_tail()
        note = f"exit code {code}" if code is not None else "output closed"
        return note + (f"; stderr: {tail}" if tail else "")

    def request(self, message: Message, timeout_s: float) -> Message:
        # ASCII JSON: a lone surrogate in the args travels as its escape, as JSON allows.
        line = (json.dumps(message, ensure_ascii=True) + "\n").encode("ascii")
        assert self._process.stdin is not None
        try:
            self._process.stdin.write(line)
            self._process.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise AdapterCrashed(f"adapter died before the request ({self._exit_note()})") from exc
        return self.read_reply(timeout_s)

    def read_reply(self, timeout_s: float) -> Message:
        """The next line the adapter prints, as a JSON object."""
        raw = self._read_line(timeout_s)
        decoded = decode_reply(raw)
        if not isinstance(decoded, dict):
            raise ProtocolViolation(f"adapter printed JSON that is not an object: {raw[:500]!r}")
        return decoded

    def _read_line(self, timeout_s: float) -> bytes:
        """One line, in time linear in its length (each chunk is searched once)."""
        assert self._process.stdout is not None
        fd = self._process.stdout.fileno()
        deadline = _real_clock() + timeout_s
        while True:
            if self._pending:
                newline = self._pending[-1].find(b"\n")
                if newline >= 0:
                    last = self._pending.pop()
                    line = b"".join([*self._pending, last[:newline]])
                    rest = last[newline + 1 :]
                    self._pending = [rest] if rest else []
                    self._pending_size = len(rest)
                    return line
            if self._pending_size > self.max_reply_bytes:
                self._pending, self._pending_size = [], 0
                raise ProtocolViolation(
                    f"reply line longer than {self.max_reply_bytes} bytes (--max-reply-bytes)"
                )
            remaining = deadline - _real_clock()
            if remaining <= 0:
                raise AdapterTimeout(f"no answer within {timeout_s:g} s")
            watched = [fd] if self._exited is None else [fd, self._exited]
            ready, _, _ = select.select(watched, [], [], remaining)
            if not ready:
                continue
            # The leader exited and nothing is left to read:
            if fd not in ready and not select.select([fd], [], [], 0)[0]:
                self._end_group()
                raise AdapterCrashed(f"adapter exited ({self._wait_note()})")
            chunk = os.read(fd, _READ_CHUNK)
            if not chunk:
                raise AdapterCrashed(f"adapter exited ({self._wait_note()})")
            self._pending.append(chunk)
            self._pending_size += len(chunk)

    def unasked_output(self) -> bytes:
        """The bytes already waiting after the last reply line, read without blocking:
        between a reply and the next request, a conforming adapter prints nothing."""
        if not self._pending:
            assert self._process.stdout is not None
            fd = self._process.stdout.fileno()
            if select.select([fd], [], [], 0)[0]:
                chunk = os.read(fd, _READ_CHUNK)  # empty at the end of output: nothing unasked
                if chunk:
                    self._pending.append(chunk)
                    self._pending_size += len(chunk)
        return b"".join(self._pending)

    def _wait_note(self) -> str:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=1)
        return self._exit_note()

    def _end_group(self) -> None:
        """Kill every process of the adapter: its process group and its session, which
        outlive the leader when it leaves children behind."""
        process = self._process
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                process.kill()
        members = {process.pid, *_members(process.pid)}
        for pid in members:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                if pid != process.pid:
                    os.kill(pid, signal.SIGKILL)
        _wait_gone(members - {process.pid}, 1.0)

    def close(self) -> None:
        process = self._process
        _LIVE.discard(self)
        self._end_group()
        if self._exited is not None:
            with contextlib.suppress(OSError):
                os.close(self._exited)
            self._exited = None
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=5)

    def stop(self, message: Message, timeout_s: float) -> Message | None:
        """Ask the process to stop, then make sure it has; the line that came back, if
        it was a JSON object (a stray second answer to an earlier request comes first)."""
        reply = None
        with contextlib.suppress(AdapterFault):
            reply = self.request(message, timeout_s)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=min(timeout_s, 2.0))
        self.close()
        return reply


ConnectionFactory = Callable[[], Connection]

_LIVE: weakref.WeakSet[SubprocessConnection] = weakref.WeakSet()


def stdin_pipes() -> frozenset[int]:
    """The inode numbers of the pipes the live adapter processes read their requests
    from, which only the harness writes to."""
    pipes = set()
    for connection in list(_LIVE):
        stdin = connection._process.stdin
        with contextlib.suppress(OSError, ValueError):
            if stdin is not None:
                pipes.add(os.fstat(stdin.fileno()).st_ino)
    return frozenset(pipes)


def drain_threads() -> frozenset[int]:
    """The threads (native ids) that read the live adapter processes' stderr."""
    return frozenset(
        thread for connection in list(_LIVE) if (thread := connection._stderr.native_id) is not None
    )


@atexit.register
def _end_every_adapter() -> None:
    """No adapter process outlives memspec, whatever way the run ended."""
    for connection in list(_LIVE):
        with contextlib.suppress(Exception):
            connection.close()


@functools.cache
def confinement() -> tuple[str, ...]:
    """The command line that starts an adapter in a PID namespace of its own, where this
    host allows one (Linux, run as root, ``unshare`` present); empty elsewhere.

    Everything an adapter starts must end with it, whatever session or process group it
    moved to: a child that double-forks and calls ``setsid()`` leaves the session and the
    group that ``_end_group`` kills. Of the ways to hold on to it, a PID namespace is the
    one that needs no bookkeeping: its first process is the adapter, and when that
    process ends, the kernel kills every process left in the namespace, however far it
    moved (``--kill-child`` ends the adapter when ``unshare`` is killed). From inside
    the namespace no process of the host can be signalled either, so an adapter cannot
    interrupt, stop or kill memspec. A cgroup would need a writable cgroup v2 hierarchy
    and moving the child into it before it runs; a child subreaper catches orphans only
    while memspec lives and cannot tell one adapter's from another's. Without a
    namespace (not root, not Linux), ``_end_group`` still ends the adapter's session
    and process group, and a child that leaves both is killed when the run ends, by
    ``memspec run`` as its child subreaper (``memspec.cli.guard``)."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return ()
    tool = shutil.which("unshare")
    if tool is None:
        return ()
    command = (tool, "--pid", "--fork", "--kill-child")
    try:
        probe = subprocess.run([*command, "true"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return ()
    return command if probe.returncode == 0 else ()


def _wait_gone(pids: set[int], timeout_s: float) -> None:
    """Wait, at most ``timeout_s``, until none of ``pids`` runs any more (a killed
    process is gone once it is a zombie: only its parent's wait is left)."""
    deadline = _real_clock() + timeout_s
    while pids and _real_clock() < deadline:
        pids = {pid for pid in pids if _running(pid)}
        if pids:
            time.sleep(0.005)


def _running(pid: int) -> bool:
    fields = stat_fields(pid)
    return fields is not None and bool(fields) and fields[0] not in (b"Z", b"X")


def _members(session: int) -> list[int]:
    """The processes whose session or process group is ``session`` (Linux ``/proc``;
    none elsewhere, where the process group alone is ended)."""
    return [pid for pid, fields in processes() if session in (int(fields[2]), int(fields[3]))]


def reference_handler() -> Any:
    """memref, answering protocol messages in this process: the reference adapter."""
    from memref.serve import Implementation

    return Implementation()


def parse_adapter_spec(
    spec: str, max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES
) -> tuple[str, ConnectionFactory]:
    """Turn an adapter spec into a description and a factory of fresh connections."""
    if spec == "reference":
        return "reference", lambda: InProcessConnection(reference_handler(), "reference")
    if spec.startswith("python:"):
        parts = spec.split(":")
        if len(parts) != 3 or not all(parts[1:]):
            raise UsageError(f"adapter {spec!r}: expected python:MODULE:ATTR")
        _, module_name, attribute = parts
        handler = _load_python_handler(module_name, attribute, spec)

        def python() -> Connection:
            return InProcessConnection(handler(), spec)

        return spec, python
    if spec.startswith("cmd:"):
        try:
            argv = shlex.split(spec[4:])
        except ValueError as exc:
            raise UsageError(f"adapter {spec!r}: {exc}") from exc
        if not argv:
            raise UsageError(f"adapter {spec!r}: empty command line")
        argv = anchored(argv)

        def command() -> Connection:
            return SubprocessConnection(argv, spec, max_reply_bytes=max_reply_bytes)

        return spec, command
    raise UsageError(
        f"unknown adapter {spec!r}: use 'reference', 'python:MODULE:ATTR' or 'cmd:COMMAND LINE'"
    )


def install_folders(spec: str) -> tuple[str, ...]:
    """The folders the implementation of ``spec`` is installed in, as far as it tells."""
    found: list[str] = []
    if spec == "reference" or spec.startswith("python:"):
        name = "memref" if spec == "reference" else spec.split(":")[1]
        module = sys.modules.get(name.split(".")[0])
        where = getattr(module, "__file__", None)
        if where:
            found.append(os.path.dirname(os.path.dirname(os.path.abspath(where))))
    elif spec.startswith("cmd:"):
        with contextlib.suppress(ValueError):
            argv = anchored(shlex.split(spec[4:]))
            program = shutil.which(argv[0]) if argv else None
            words = [program or "", *argv[1:]]
            found += [
                os.path.dirname(os.path.realpath(word))
                for word in words
                if os.path.isabs(word) and os.path.exists(word)
            ]
    return tuple(folder for folder in dict.fromkeys(found) if len(folder) > 1)


def anchored(argv: list[str]) -> list[str]:
    """The command line with its relative paths made absolute from where memspec runs,
    since the adapter starts in the run's own working directory: the program when it
    holds a ``/`` (a bare name is looked up on ``PATH``), and any later word that is not
    an option and names an existing file or directory here."""
    program, *words = argv
    if "/" in program and not os.path.isabs(program):
        program = os.path.abspath(program)
    return [
        program,
        *(
            os.path.abspath(word)
            if not word.startswith("-") and not os.path.isabs(word) and os.path.lexists(word)
            else word
            for word in words
        ),
    ]


def _load_python_handler(module_name: str, attribute: str, spec: str) -> Callable[[], Any]:
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"adapter {spec!r}: cannot import {module_name!r}: {exc}") from exc
    try:
        target = getattr(module, attribute)
    except AttributeError as exc:
        raise UsageError(f"adapter {spec!r}: {module_name!r} has no {attribute!r}") from exc
    if hasattr(target, "handle") and not isinstance(target, type):
        return lambda: target
    if callable(target):
        return target  # type: ignore[no-any-return]
    raise UsageError(f"adapter {spec!r}: {attribute!r} has no handle() and is not callable")


@dataclass(frozen=True)
class Handshake:
    """What the implementation said about itself in answer to ``start``."""

    implementation: Mapping[str, Any]
    protocol_version: str
    profiles: tuple[str, ...]
    capabilities: tuple[str, ...]
    ops: tuple[str, ...] | None = None
    """The ops the adapter implements, when it says (None: every op of its profiles)."""

    def claims_op(self, op: str) -> bool:
        return self.ops is None or op in self.ops


@dataclass(frozen=True)
class Response:
    """A checked reply: exactly one of result or error, its texts decoded (``decode_text``)."""

    result: Any = None
    error_kind: str | None = None
    error_message: str = ""
    mutations: int | None = None
    """How many filesystem mutations the request attempted (requests with a fault)."""

    @property
    def is_error(self) -> bool:
        return self.error_kind is not None


@dataclass
class Adapter:
    """A connection with its handshake, request ids, and restart after a fault."""

    spec: str
    timeout_s: float = DEFAULT_TIMEOUT_S
    tree_owner: tuple[int, int] | None = None
    """The uid and gid the adapter runs as, when they differ from the harness's own:
    each case's tree is handed over to them before the first step."""
    max_reply_bytes: int | None = None
    start_timeout_s: float = DEFAULT_START_TIMEOUT_S
    """How long the ``start`` handshake may take (never less than ``timeout_s``)."""
    _factory: ConnectionFactory = field(init=False)
    _connection: Connection | None = field(default=None, init=False)
    _handshake: Handshake | None = field(default=None, init=False)
    _next_id: int = field(default=0, init=False)
    _last_answered: Message | None = field(default=None, init=False)
    """The last request the current connection answered, to name it should a second
    answer to it come later."""
    _workers: list[Adapter] = field(default_factory=list, init=False)
    restarts: int = field(default=0, init=False)
    late_output: list[str] = field(default_factory=list, init=False)
    """Output that came after a request had its reply and before the next one was
    answered, one line each, naming the request it followed: a protocol violation of
    the run, never of the innocent request that came next (which is answered anew)."""

    def __post_init__(self) -> None:
        self.description, self._factory = parse_adapter_spec(
            self.spec, self.max_reply_bytes or DEFAULT_MAX_REPLY_BYTES
        )
        if self.tree_owner is not None:  # its user may write there, as in its trees
            owner_of_working_directory(self.tree_owner)

    def _id(self) -> int:
        self._next_id += 1
        return self._next_id

    @functools.cached_property
    def install_folders(self) -> tuple[str, ...]:
        """The folders the implementation is installed in, as far as its spec tells: a
        ``cmd:`` program's and its file arguments' folders, a ``python:`` module's, and
        memref's for the reference. A model text must not hold them."""
        return install_folders(self.spec)

    @property
    def handshake(self) -> Handshake:
        self._ensure_started()
        assert self._handshake is not None
        return self._handshake

    def _ensure_started(self) -> Connection:
        if self._connection is not None:
            return self._connection
        try:
            connection = self._factory()
        except AdapterBroken:
            raise
        except Exception as exc:  # an in-process adapter that cannot even be built
            raise AdapterBroken(
                f"{self.description}: cannot start: {type(exc).__name__}: {exc}"
            ) from exc
        start_id = self._id()
        try:
            reply = connection.request(
                {"id": start_id, "op": "start", "args": {"protocol_version": PROTOCOL_VERSION}},
                max(self.start_timeout_s, self.timeout_s),
            )
            handshake = _check_start(reply)
            _refuse_unasked_output(connection, start_id, "start")
        except AdapterFault as exc:
            connection.close()
            raise AdapterBroken(f"{self.description}: start handshake failed: {exc}") from exc
        except AdapterBroken:
            connection.close()
            raise
        if self._handshake is not None and handshake != self._handshake:
            connection.close()
            raise AdapterBroken(f"{self.description}: a restarted adapter changed its handshake")
        self._connection, self._handshake = connection, handshake
        self._last_answered = None
        return connection

    def processes(self) -> tuple[int, ...]:
        """The adapter's processes (started if need be): its leader and every process of
        its session, for an observer to trace; none for an in-process adapter."""
        connection = self._ensure_started()
        if not isinstance(connection, SubprocessConnection):
            return ()
        return tuple(dict.fromkeys([connection.pid, *_members(connection.pid)]))

    def spawn(self) -> Adapter:
        """Another adapter of the same spec: a new process, or a new in-process instance."""
        return Adapter(
            self.spec, self.timeout_s, self.tree_owner, self.max_reply_bytes, self.start_timeout_s
        )

    def workers(self, count: int) -> list[Adapter]:
        """``count`` further connections for a concurrent step, each its own process (or
        in-process instance). They are started by the first step that needs them and kept
        for every later one, until ``close``; one that faults restarts on its next call,
        as this adapter does."""
        while len(self._workers) < count:
            self._workers.append(self.spawn())
        return self._workers[:count]

    def call(
        self, op: str, args: Mapping[str, Any], *, fail_mutation: int | None = None
    ) -> Response:
        """Send one op; a fault closes the connection so the next call restarts it.

        ``fail_mutation`` asks an adapter that claims ``fault-injection`` to fail that
        filesystem mutation of the request; its reply then says how many it attempted.
        """
        connection = self._after_late_output(self._ensure_started())
        request_id = self._id()
        message: Message = {"id": request_id, "op": op, "args": args}
        if fail_mutation is not None:
            message["fault"] = {"fail_mutation": fail_mutation}
        try:
            reply = self._past_late_answers(
                connection, connection.request(message, self.timeout_s), request_id
            )
            late = self._second_answer(reply, request_id, op)
            if late is not None:
                raise late
            response = _check_reply(reply, request_id)
            _refuse_unasked_output(connection, request_id, op)
            if fail_mutation is not None and not isinstance(response.mutations, int):
                raise ProtocolViolation(
                    "a reply to a request with a fault needs an integer 'mutations'"
                )
            self._last_answered = message
            return response
        except AdapterFault:
            self._drop()
            raise

    def _late(self, line: str) -> str:
        earlier = self._last_answered
        whose = (
            f"request id {earlier['id']} ({earlier['op']} {abridged(earlier['args'])[:200]})"
            if earlier is not None
            else "the start handshake"
        )
        return f"{whose} was followed, after its reply, by output no request asked for: {line}"

    def _after_late_output(self, connection: Connection) -> Connection:
        """The connection to send the next request on: a fresh one when output came
        since the last reply (kept in ``late_output``), so that it is never read as the
        answer to a request it does not answer."""
        waiting = connection.unasked_output()
        if not waiting:
            return connection
        self.late_output.append(self._late(repr(waiting.split(b"\n", 1)[0][:300])))
        self._drop()
        return self._ensure_started()

    def _past_late_answers(
        self, connection: Connection, reply: Message, request_id: int
    ) -> Message:
        """The reply to ``request_id``, past any second answer to an earlier request that
        came first (each kept in ``late_output``)."""
        for _ in range(8):
            echoed = reply.get("id")
            if not isinstance(connection, SubprocessConnection) or not (
                type(echoed) is int and echoed < request_id
            ):
                return reply
            self.late_output.append(self._late(abridged(reply)[:300]))
            reply = connection.read_reply(self.timeout_s)
        return reply

    def _second_answer(self, reply: Message, request_id: int, op: str) -> ProtocolViolation | None:
        """A reply that echoes an earlier request is a second answer to it, which came
        late, in place of the answer to this one: the fault, saying whose it is."""
        echoed = reply.get("id")
        if not isinstance(echoed, int) or isinstance(echoed, bool) or echoed >= request_id:
            return None
        earlier = self._last_answered
        whose = (
            f"request id {echoed} ({earlier['op']} {json.dumps(earlier['args'])[:200]}) "
            "was answered twice"
            if earlier is not None and earlier["id"] == echoed
            else f"reply id {echoed} answers an earlier request a second time"
        )
        return ProtocolViolation(
            f"{whose}: its second answer came in place of the answer to request id "
            f"{request_id} ({op}): {json.dumps(reply)[:500]}"
        )

    def raw_request(self, message: Message) -> Message:
        """Send a message as it is (for smoke checks); faults propagate."""
        connection = self._ensure_started()
        starting = message.get("op") == "start"
        try:
            reply = connection.request(
                message, max(self.start_timeout_s, self.timeout_s) if starting else self.timeout_s
            )
            _refuse_unasked_output(connection, message.get("id"), str(message.get("op")))
            return reply
        except AdapterFault:
            self._drop()
            raise

    def _drop(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
            self.restarts += 1

    def close(self) -> None:
        """Stop every connection. Raises ProtocolViolation, once all are closed, when
        what came back for ``stop`` was a late second answer to the last ``call``."""
        strays: list[ProtocolViolation] = []
        for worker in self._workers:
            try:
                worker.close()
            except ProtocolViolation as exc:
                strays.append(exc)
            self.late_output.extend(worker.late_output)
        self._workers.clear()
        own = self._stop()
        if own is not None:
            raise own
        if strays:
            raise strays[0]

    def _stop(self) -> ProtocolViolation | None:
        """Send ``stop`` and close the connection; the second answer to the last ``call``
        that came back instead of the answer to ``stop``, if one did (the handshake and
        raw requests are left out: those who stop after them have no case to blame)."""
        connection, self._connection = self._connection, None
        if connection is None:
            return None
        stop_id = self._id()
        message: Message = {"id": stop_id, "op": "stop", "args": {}}
        reply = None
        if isinstance(connection, SubprocessConnection):
            reply = connection.stop(message, min(self.timeout_s, _STOP_TIMEOUT_S))
        else:
            with contextlib.suppress(AdapterFault):
                connection.request(message, self.timeout_s)
            connection.close()
        if reply is None or self._last_answered is None:
            return None
        return self._second_answer(reply, stop_id, "stop")


_ASCII_NUMBER = re.compile(r"[0-9]{1,30}")
_NO_ID = 2**32 - 1
"""(uid_t) -1, which chown reads as "leave it": the first id that names no one."""


def parse_tree_owner(text: str) -> tuple[int, int]:
    """``UID:GID`` as two integers; raises UsageError otherwise."""
    uid, colon, gid = text.partition(":")
    if not (colon and _ASCII_NUMBER.fullmatch(uid) and _ASCII_NUMBER.fullmatch(gid)):
        raise UsageError(f"tree owner {text!r}: expected UID:GID, for example 65534:65534")
    if int(uid) >= _NO_ID or int(gid) >= _NO_ID:
        raise UsageError(f"tree owner {text!r}: a uid and a gid are below {_NO_ID}")
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        raise UsageError("handing trees to another owner needs the harness to run as root")
    return int(uid), int(gid)


def _check_start(reply: Message) -> Handshake:
    if "error" in reply:
        raise ProtocolViolation(f"start was refused: {reply['error']!r}")
    result = reply.get("result")
    if not isinstance(result, dict):
        raise ProtocolViolation(f"start reply has no result object: {reply!r}")
    implementation = result.get("implementation")
    version = result.get("protocol_version")
    profiles = result.get("profiles")
    capabilities = result.get("capabilities", [])
    if not isinstance(implementation, dict) or not all(
        isinstance(implementation.get(key), str) for key in ("name", "version", "language")
    ):
        raise ProtocolViolation("start result needs implementation {name, version, language}")
    for key in ("name", "version", "language"):
        shown = implementation[key]
        if len(shown) > 200 or any(_unprintable(c) for c in shown):
            raise ProtocolViolation(
                f"start result: implementation {key} {shown[:200]!a} must be at most 200 "
                "printable characters (no control, format or line-breaking character)"
            )
    if not isinstance(version, str) or version.split(".")[0] != PROTOCOL_VERSION.split(".")[0]:
        raise AdapterBroken(
            f"adapter speaks protocol {version!r}; this suite speaks {PROTOCOL_VERSION}"
        )
    if not isinstance(profiles, list) or not all(isinstance(p, str) for p in profiles):
        raise ProtocolViolation("start result needs profiles: [string]")
    if not isinstance(capabilities, list) or not all(isinstance(c, str) for c in capabilities):
        raise ProtocolViolation("start result capabilities must be [string]")
    ops = result.get("ops")
    if ops is not None and (
        not isinstance(ops, list)
        or not all(isinstance(op, str) and "." in op for op in ops)
        or len(set(ops)) != len(ops)
    ):
        raise ProtocolViolation(
            "start result ops, when given, must be [string] of distinct <profile>.<op> names"
        )
    return Handshake(
        implementation,
        version,
        tuple(profiles),
        tuple(capabilities),
        None if ops is None else tuple(ops),
    )


def _unprintable(character: str) -> bool:
    """A character a terminal or a Markdown page would act on rather than show: controls
    (ESC, CR, LF), format characters (bidirectional overrides), line and paragraph
    separators, surrogates, private and unassigned code points."""
    return unicodedata.category(character)[0] in "CZ" and character != " "


def _refuse_unasked_output(connection: Connection, request_id: Any, op: str) -> None:
    """Blame the request just answered for any line that follows its reply at once: a
    second answer would otherwise be read as the reply to the next request."""
    waiting = connection.unasked_output()
    if not waiting:
        return
    line = waiting.split(b"\n", 1)[0]
    try:
        echoed = json.loads(line).get("id")
    except (ValueError, AttributeError, RecursionError):
        echoed = None
    what = (
        "was answered twice, the second answer right after the first"
        if echoed == request_id
        else "was followed by output no request asked for"
    )
    raise ProtocolViolation(f"request id {request_id!r} ({op}) {what}: {line[:500]!r}")


def _check_reply(reply: Message, request_id: int) -> Response:
    if type(reply.get("id")) is not int or reply.get("id") != request_id:
        raise ProtocolViolation(
            f"reply id {reply.get('id')!r} does not echo request id "
            f"{request_id}: {json.dumps(reply)[:500]}"
        )
    has_result, has_error = "result" in reply, "error" in reply
    if has_result == has_error:
        raise ProtocolViolation(
            f"reply needs exactly one of result and error: {json.dumps(reply)[:500]}"
        )
    mutations = reply.get("mutations")
    if mutations is not None and (not isinstance(mutations, int) or isinstance(mutations, bool)):
        raise ProtocolViolation(f"'mutations' must be an integer: {json.dumps(reply)[:500]}")
    if has_result:
        return Response(result=decode_text(reply["result"]), mutations=mutations)
    error = reply["error"]
    if not isinstance(error, dict) or not isinstance(error.get("kind"), str):
        raise ProtocolViolation(f"error needs a kind: {json.dumps(reply)[:500]}")
    if error["kind"] not in ERROR_KINDS:
        raise ProtocolViolation(f"error kind {error['kind']!r} is not in the protocol's set")
    message = error.get("message", "")
    return Response(
        error_kind=error["kind"],
        error_message=message if isinstance(message, str) else json.dumps(message),
        mutations=mutations,
    )
