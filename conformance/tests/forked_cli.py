"""``python -m memspec ARGS`` for these tests, forked from a process that has already
imported memspec and pytest.

The tests start memspec some three hundred times, and importing it is a third of the CPU
time of a run of a few cases. A server imports it once; each command then runs in a
child forked from it, with its own arguments, working directory, environment, standard
streams (stdin from ``/dev/null``, stdout and stderr pipes read to their end) and exit
status, as ``subprocess.run`` gives them.
What the import leaves behind is what ``python -m memspec`` has at the same point: no
thread, no plugin of pytest, no suite module (pytest must still rewrite their asserts).
The server also reads the corpus once, as every command does first: a command whose
environment says where the fixtures, schemas and validation cache are as the server's
did gets what the server read; any other starts with memspec's caches empty.

An environment that would change the interpreter itself (``PYTHON*`` variables but
``PYTHONPATH``, the locale) is not what the server started with, so a command given one
runs in a new interpreter, as does every command where ``fork`` is missing, and every
command run with ``fork=False``: a forked command's environment at exec, in
``/proc/PID/environ``, and its command line are the server's.
"""

from __future__ import annotations

import atexit
import importlib
import json
import locale
import os
import runpy
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["ForkedCli"]

# What ``memspec run`` imports before it hands over to pytest (``memspec.cli.main``).
_PRELOADED = (
    "memspec.cli.main",
    "memspec.cli.guard",
    "memspec.corpus.cases",
    "memspec.corpus.expectations",
    "memspec.plugin.preflight",
    "memspec.plugin.run_state",
    "memspec.plugin.selection",
    "hypothesis.configuration",
    "pytest",
)


def _corpus_settings(env: Mapping[str, str]) -> dict[str, str]:
    """What reading the corpus depends on: where the fixtures, schemas and the validation
    cache are (``memspec.corpus``)."""
    return {name: env[name] for name in _CORPUS_VARIABLES if name in env}


_CORPUS_VARIABLES = (
    "MEMSPEC_FIXTURES",
    "MEMSPEC_SPEC",
    "MEMSPEC_OP_SCHEMAS",
    "MEMSPEC_CACHE_DIR",
    "XDG_CACHE_HOME",
    "HOME",
    "PATH",
)


def _interpreter_settings(env: Mapping[str, str]) -> dict[str, str]:
    return {
        name: value
        for name, value in env.items()
        if (name.startswith("PYTHON") and name != "PYTHONPATH")
        or name.startswith("LC_")
        or name == "LANG"
    }


class ForkedCli:
    """One server process, started on first use; ``run`` is ``subprocess.run`` of
    ``python -m memspec ARGS``, its output captured as text."""

    def __init__(self) -> None:
        self._server: subprocess.Popen[bytes] | None = None
        self._socket: socket.socket | None = None
        self._started_in: dict[str, str] = {}
        self._lock = threading.Lock()

    def run(
        self,
        args: Sequence[str],
        cwd: Path,
        env: Mapping[str, str] | None,
        timeout: float,
        fork: bool = True,
    ) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "memspec", *args]
        environment = dict(os.environ if env is None else env)
        if not fork or not hasattr(os, "fork"):
            return _run_new(command, cwd, environment, timeout)
        with self._lock:
            connection = self._start()
            if _interpreter_settings(environment) != self._started_in:
                return _run_new(command, cwd, environment, timeout)
            return _run_forked(connection, command, cwd, environment, timeout)

    def close(self) -> None:
        if self._server is not None and self._socket is not None:
            self._socket.close()
            self._server.wait(timeout=30)
            self._server = self._socket = None

    def _start(self) -> socket.socket:
        if self._socket is None:
            # Only what the interpreter reads at its start and what the corpus is read
            # with: a test that looks for its own variables in a process's environment at
            # exec must not find the server.
            started_in = {**_corpus_settings(os.environ), **_interpreter_settings(os.environ)}
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            self._server = subprocess.Popen(
                [sys.executable, __file__, str(theirs.fileno())],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                env=started_in,
                pass_fds=[theirs.fileno()],
            )
            theirs.close()
            self._socket = ours
            self._started_in = _interpreter_settings(started_in)
        return self._socket


def _run_new(
    command: list[str], cwd: Path, env: dict[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def _run_forked(
    connection: socket.socket,
    command: list[str],
    cwd: Path,
    env: dict[str, str],
    timeout: float,
) -> subprocess.CompletedProcess[str]:
    request = {"args": command[3:], "cwd": str(cwd), "env": env}
    (out_read, out_write), (err_read, err_write) = os.pipe(), os.pipe()
    try:
        socket.send_fds(connection, [json.dumps(request).encode()], [out_write, err_write])
    finally:
        os.close(out_write)
        os.close(err_write)
    pid = _reply(connection)["pid"]
    output, timed_out = _read_until_closed((out_read, err_read), time.monotonic() + timeout)
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    code = _reply(connection)["code"]
    stdout, stderr = (_as_text(output[fd]) for fd in (out_read, err_read))
    if timed_out:
        raise subprocess.TimeoutExpired(command, timeout, output=stdout, stderr=stderr)
    return subprocess.CompletedProcess(command, code, stdout, stderr)


_MESSAGE = 1 << 20


def _reply(connection: socket.socket) -> dict[str, int]:
    message = connection.recv(_MESSAGE)
    if not message:
        raise RuntimeError("the server of forked memspec commands has ended")
    reply: dict[str, int] = json.loads(message)
    return reply


def _read_until_closed(fds: tuple[int, ...], deadline: float) -> tuple[dict[int, bytes], bool]:
    """Everything written to ``fds`` until every writer closed them, or the deadline."""
    chunks: dict[int, list[bytes]] = {fd: [] for fd in fds}
    open_fds = list(fds)
    try:
        while open_fds:
            left = deadline - time.monotonic()
            ready = select.select(open_fds, [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                return {fd: b"".join(parts) for fd, parts in chunks.items()}, True
            for fd in ready:
                chunk = os.read(fd, 1 << 16)
                if chunk:
                    chunks[fd].append(chunk)
                else:
                    open_fds.remove(fd)
        return {fd: b"".join(parts) for fd, parts in chunks.items()}, False
    finally:
        for fd in fds:
            os.close(fd)


def _as_text(data: bytes) -> str:
    # As ``subprocess.run(text=True)`` decodes: the locale's encoding, universal newlines.
    text = data.decode(locale.getpreferredencoding(False))
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _serve(fd: int) -> None:
    for name in _PRELOADED:
        importlib.import_module(name)
    from memspec.corpus.cases import load_cases

    try:
        load_cases()
    except Exception:
        _forget_what_was_read()
    read_with = _corpus_settings(os.environ)
    # ``python -m memspec`` has the working directory first; this script's folder goes.
    after_first = sys.path[1:]
    connection = socket.socket(fileno=fd)
    while True:
        try:
            message, fds, flags, _ = socket.recv_fds(connection, _MESSAGE, 2)
        except ConnectionError:
            return
        if not message:
            return
        if flags & socket.MSG_TRUNC:
            raise SystemExit("forked_cli: a request longer than the server reads")
        pid = os.fork()
        if pid == 0:
            connection.close()
            request = json.loads(message)
            if _corpus_settings(request["env"]) != read_with:
                _forget_what_was_read()
            _child(request, fds, after_first)
        for passed in fds:
            os.close(passed)
        connection.send(json.dumps({"pid": pid}).encode())
        _, status = os.waitpid(pid, 0)
        connection.send(json.dumps({"code": os.waitstatus_to_exitcode(status)}).encode())


def _child(request: dict[str, Any], streams: list[int], after_first: list[str]) -> None:
    code = 1
    try:
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        extra = [p for p in request["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
        sys.path[:] = [request["cwd"], *extra, *after_first]
        tempfile.tempdir = None
        null = os.open(os.devnull, os.O_RDONLY)
        for fd, opened in ((0, null), (1, streams[0]), (2, streams[1])):
            os.dup2(opened, fd)
            os.close(opened)
        sys.argv = ["-m", *request["args"]]
        code = _exit_status(
            lambda: runpy.run_module("memspec", run_name="__main__", alter_sys=True)
        )
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def _forget_what_was_read() -> None:
    """Empty every cache of memspec's modules, as in a new interpreter."""
    for name, module in list(sys.modules.items()):
        if name.startswith("memspec"):
            for value in vars(module).values():
                clear = getattr(value, "cache_clear", None)
                if callable(clear):
                    clear()


def _exit_status(main: Callable[[], object]) -> int:
    """What the interpreter would exit with after running ``main``."""
    try:
        main()
    except SystemExit as stop:
        if stop.code is None:
            return 0
        if isinstance(stop.code, int):
            return stop.code & 0xFF
        print(stop.code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


if __name__ == "__main__":
    _serve(int(sys.argv[1]))
