"""In-process fakes of the toy ``demo`` profile that attack the harness through the files
they are given: ``demo.attack`` does what its ``do`` argument names to ``path``, then
waits ``wait`` seconds (so that readers beside the step see what it did), and answers
``"ok"``. Other ops are those of ``file_fakes.FileOps``."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from fakes import Echo
from file_fakes import FileOps


def _deep(path: str, levels: int) -> None:
    """``levels`` directories, each in the one before, below ``path`` (made with
    descriptors: the whole path is longer than any path the kernel takes)."""
    os.mkdir(path)
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(levels):
        os.mkdir("d", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)


def _nested(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = {"a": value}
    return value


class Hostile(FileOps):
    name = "hostile"

    def run(self, op: str, args: dict[str, Any]) -> Any:
        if op != "demo.attack":
            return super().run(op, args)
        path, do = args.get("path", ""), args["do"]
        if do == "symlink":
            os.replace(_made(lambda tmp: os.symlink(args["to"], tmp), path), path)
        elif do == "hardlink":
            os.replace(_made(lambda tmp: os.link(args["to"], tmp), path), path)
        elif do == "fifo":
            os.replace(_made(os.mkfifo, path), path)
        elif do == "big":
            big = b"x" * args["size"]
            os.replace(_made(lambda tmp: Path(tmp).write_bytes(big), path), path)
        elif do == "deep":
            _deep(path, args["levels"])
        elif do == "up":  # relative to the working directory it was answered in
            Path("..", f"memspec-stray-{os.getpid()}").write_text("escaped\n")
        elif do == "another-root":
            os.rename(path, path + ".moved")
            os.mkdir(path)
        elif do == "exit":
            sys.exit(args.get("code"))
        elif do == "os-exit":
            os._exit(0)
        elif do == "thread":
            threading.Thread(target=time.sleep, args=(3600,)).start()
        elif do == "interrupt":
            raise KeyboardInterrupt
        elif do == "nested":
            return _nested(args["levels"])
        time.sleep(args.get("wait", 0))
        return "ok"


def _made(make: Any, path: str) -> str:
    temporary = path + ".new"
    make(temporary)
    return temporary


class _OnBang(Echo):
    """Answers ``demo.echo`` correctly, but on a value starting with ``!`` first does
    what ``bang`` does (its return value, when not None, is the reply)."""

    def echo(self, request_id: Any, value: Any) -> dict[str, Any]:
        if isinstance(value, str) and value.startswith("!"):
            reply = self.bang(request_id)
            if reply is not None:
                return reply
        return super().echo(request_id, value)

    def bang(self, request_id: Any) -> dict[str, Any] | None:
        raise NotImplementedError


class EndsTheProcess(_OnBang):
    def bang(self, request_id: Any) -> dict[str, Any] | None:
        os._exit(0)


class LeavesAThread(_OnBang):
    def bang(self, request_id: Any) -> dict[str, Any] | None:
        threading.Thread(target=time.sleep, args=(3600,), daemon=False).start()
        return None


class CallsSysExit(_OnBang):
    def bang(self, request_id: Any) -> dict[str, Any] | None:
        sys.exit()


class RaisesKeyboardInterrupt(_OnBang):
    def bang(self, request_id: Any) -> dict[str, Any] | None:
        raise KeyboardInterrupt


class AnswersDeep(_OnBang):
    def bang(self, request_id: Any) -> dict[str, Any] | None:
        return {"id": request_id, "result": _nested(100_000)}


class WritesUp(_OnBang):
    """Writes a file through ``../`` of the working directory it is answered in."""

    def bang(self, request_id: Any) -> dict[str, Any] | None:
        Path("..", f"memspec-stray-{os.getpid()}").write_text("escaped\n")
        return None


class ClaimsEverMoreMutations(FileOps):
    """Claims one mutation more than the one a request asks it to fail, however far."""

    name = "ever-more-mutations"
    requests = 0

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        reply = super().handle(message)
        fault = message.get("fault")
        if fault:
            type(self).requests += 1
            reply["mutations"] = fault["fail_mutation"] + 1
        return reply


class LeavesASessionChild(_OnBang):
    """Double-forks a child that leaves for a session of its own and sleeps, its pid (as
    the host sees it) appended to the file named by ``MEMSPEC_FAKE_PIDS``."""

    def bang(self, request_id: Any) -> dict[str, Any] | None:
        told, tell = os.pipe()
        first = os.fork()
        if first == 0:
            os.setsid()
            if os.fork() == 0:
                os.write(tell, os.readlink("/proc/self").encode())
                time.sleep(3600)
            os._exit(0)
        os.waitpid(first, 0)
        os.close(tell)
        with open(os.environ["MEMSPEC_FAKE_PIDS"], "a", encoding="ascii") as pids:
            pids.write(os.read(told, 32).decode() + "\n")
        os.close(told)
        return None


class StopsTheRun(_OnBang):
    """Sends SIGSTOP to the process it runs in (memspec's)."""

    def bang(self, request_id: Any) -> dict[str, Any] | None:
        os.kill(os.getpid(), signal.SIGSTOP)
        return None
