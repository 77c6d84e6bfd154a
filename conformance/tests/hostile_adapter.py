"""An out-of-process implementation of the toy ``demo`` profile that attacks the harness.

Usage: python hostile_adapter.py MODE. MODE says what it does on ``demo.echo`` requests
whose ``value`` starts with ``!`` (others are answered correctly): ``setsid-child``
(double-forks a child that leaves for a session of its own and appends a line to the
file named by ``MEMSPEC_FAKE_PIDS`` every 50 ms, after its pid; ``setsid-at-start`` does
so on ``start``), ``late-line`` (answers,
then sends a line no request asked for 50 ms later), ``late-twice`` (answers, then
answers again 50 ms later), ``float-id`` (echoes the id as a float), ``two-ids`` (a
reply with two ``"id"`` members, the right one last), ``stderr-flood`` (writes 200 MiB to
stderr, then answers), ``deep`` (answers a value nested 100,000 deep), ``deep-700``
(nested 700 deep), ``sigint``, ``sigterm``, ``sigstop``, ``group`` (sends SIGINT,
SIGTERM or SIGSTOP to its parent, or SIGINT to its parent's process group, then
answers). ``deep-start`` answers ``start`` with a value nested 100,000 deep.
``escapes`` names itself with terminal escapes, CR and LF in its handshake.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time


def _nested(levels: int) -> str:
    return '{"a":' * levels + "1" + "}" * levels


def _child_that_stays(started: int) -> None:
    if os.fork() != 0:
        return
    os.setsid()
    if os.fork() != 0:
        os._exit(0)
    path = os.environ["MEMSPEC_FAKE_PIDS"]
    while True:
        with open(path, "a", encoding="ascii") as handle:
            handle.write(f"{os.readlink('/proc/self')}\n")  # its pid on the host
        if started >= 0:
            os.write(started, b"x")
            os.close(started)
            started = -1
        time.sleep(0.05)


def _leave_a_child() -> None:
    """Returns once the child has written its first line, so that a short run still
    leaves one behind."""
    wait_for, started = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(wait_for)
        _child_that_stays(started)
        os._exit(0)
    os.close(started)
    os.waitpid(pid, 0)
    os.read(wait_for, 1)
    os.close(wait_for)


def _later(line: str) -> None:
    if os.fork() == 0:
        time.sleep(0.05)
        os.write(1, line.encode())
        os._exit(0)


def reply(message: dict, mode: str) -> str:
    op, request_id, args = message.get("op"), message.get("id"), message.get("args", {})
    if op == "start" and mode == "deep-start":
        return f'{{"id": {request_id}, "result": {_nested(100_000)}}}'
    if op == "start" and mode == "setsid-at-start":
        _leave_a_child()
    if op == "start":
        name = "fake\x1b[2J\x1b[H\rALL PASSED\n" if mode == "escapes" else f"hostile-{mode}"
        result = {
            "implementation": {"name": name, "version": "0", "language": "python"},
            "protocol_version": "1.0.0",
            "profiles": ["demo"],
            "capabilities": [],
        }
        return json.dumps({"id": request_id, "result": result})
    if op == "stop":
        return json.dumps({"id": request_id, "result": None})
    if op == "demo.constants":
        return json.dumps({"id": request_id, "result": {"answer": 42}})
    if op != "demo.echo":
        return json.dumps({"id": request_id, "error": {"kind": "unknown-op", "message": op}})
    value = args.get("value")
    correct = json.dumps({"id": request_id, "result": value})
    if not (isinstance(value, str) and value.startswith("!")):
        return correct
    if mode == "setsid-child":
        _leave_a_child()
    elif mode == "late-line":
        _later('{"note": "unasked"}\n')
    elif mode == "late-twice":
        _later(correct + "\n")
    elif mode == "float-id":
        return json.dumps({"id": float(request_id), "result": value})
    elif mode == "two-ids":
        return f'{{"id": "someone", "result": {json.dumps(value)}, "id": {request_id}}}'
    elif mode == "stderr-flood":
        block = b"e" * (1 << 20)
        for _ in range(200):
            os.write(2, block)
    elif mode == "deep":
        return f'{{"id": {request_id}, "result": {_nested(100_000)}}}'
    elif mode == "deep-700":
        return f'{{"id": {request_id}, "result": {_nested(700)}}}'
    elif mode in ("sigint", "sigterm", "sigstop"):
        os.kill(os.getppid(), getattr(signal, mode.upper()))
    elif mode == "group":
        os.killpg(os.getpgid(os.getppid()), signal.SIGINT)
    return correct


def main() -> int:
    mode = sys.argv[1]
    for line in sys.stdin:
        message = json.loads(line)
        os.write(1, (reply(message, mode) + "\n").encode())
        if message.get("op") == "stop":
            return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
