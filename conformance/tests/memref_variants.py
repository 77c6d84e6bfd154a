"""memref with one twist each, in process (``python:memref_variants:NAME``) or out of
process (``python memref_variants.py NAME [ARGUMENT]``).

- ``Base64Text``: every string of every result is sent as ``{"base64": ...}``, which the
  protocol allows for any text: it must pass every case memref passes, of every kind.
- ``WrongOutline``: answers ``turnlog.outline`` with an extra line; right everywhere else.
- ``DiesOnce MARKER [OP [NTH]]``: the process exits (status 3) at its NTH request of OP
  (by default the third ``turnlog.turn_memory_enabled``), once: it creates MARKER as it
  dies, and while MARKER exists no process dies again (a restarted adapter answers).
- ``LogsRequests LOG``: right everywhere; appends ``<pid> <op>`` to LOG for each request.
- ``PoolWorker``: right everywhere; handles every request in one worker thread, started
  at its first request and kept, as an event loop's pool of worker threads does.
- ``Flawed FLAW``: memref with one flaw of ``unserialised`` (``torn``: the memory tools
  write their files in place, their locks kept, so that a write that fails half way
  leaves a torn file; ``unlocked``: no locks or exclusive claims; ``in_place``: both).
  It claims what memref claims.
"""

from __future__ import annotations

import base64
import concurrent.futures
import json
import os
import sys
import tempfile
from typing import Any

from memref.serve import Implementation

__all__ = [
    "Base64Text",
    "DiesOnce",
    "Flawed",
    "LogsRequests",
    "PoolWorker",
    "WrongOutline",
    "variant_cmd",
    "variant_env",
]

HERE = os.path.dirname(os.path.abspath(__file__))


def variant_cmd(*argv: str) -> str:
    """The ``cmd:`` adapter spec serving a variant out of process."""
    return f"cmd:{sys.executable} {os.path.join(HERE, 'memref_variants.py')} {' '.join(argv)}"


def variant_env() -> dict[str, str]:
    """An environment in which ``python:memref_variants:NAME`` can be imported."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [HERE, env.get("PYTHONPATH")]))
    env.pop("PYTEST_ADDOPTS", None)
    return env


def _as_base64(value: Any) -> Any:
    if isinstance(value, str):
        return {"base64": base64.b64encode(value.encode("utf-8", "surrogatepass")).decode()}
    if isinstance(value, list):
        return [_as_base64(item) for item in value]
    if isinstance(value, dict):
        if set(value) == {"base64"}:
            return value
        return {key: _as_base64(item) for key, item in value.items()}
    return value


class Base64Text(Implementation):
    """Sends every string of every result as base64."""

    def handle(self, message: Any) -> dict[str, Any]:
        reply = super().handle(message)
        if message.get("op") not in ("start", "stop") and "result" in reply:
            reply["result"] = _as_base64(reply["result"])
        return reply


class WrongOutline(Implementation):
    """Adds a line to every outline."""

    def handle(self, message: Any) -> dict[str, Any]:
        reply = super().handle(message)
        if message.get("op") == "turnlog.outline" and isinstance(reply.get("result"), str):
            reply["result"] += "\n9  extra"
        return reply


class DiesOnce(Implementation):
    """Exits at its NTH request of OP, unless the marker file says one already did."""

    def __init__(
        self, marker: str = "", op: str = "turnlog.turn_memory_enabled", nth: str = "3"
    ) -> None:
        self.marker, self.op, self.nth = marker, op, int(nth)
        self.calls = 0

    def handle(self, message: Any) -> dict[str, Any]:
        if message.get("op") == self.op:
            self.calls += 1
            if self.calls == self.nth and self.marker and not os.path.exists(self.marker):
                open(self.marker, "w").close()
                print("dying on purpose", file=sys.stderr, flush=True)
                os._exit(3)
        return super().handle(message)


class LogsRequests(Implementation):
    """Appends the process id (as the host sees it: in a PID namespace of its own, every
    adapter is 1 to itself) and the op of every request to a log file."""

    def __init__(self, log: str) -> None:
        self.log = log
        self.pid = os.readlink("/proc/self")

    def handle(self, message: Any) -> dict[str, Any]:
        with open(self.log, "a", encoding="utf-8") as handle:
            handle.write(f"{self.pid} {message.get('op')}\n")
        return super().handle(message)


class PoolWorker(Implementation):
    """Each request is handled in the one thread of a pool made at the first request. The
    memory tool has written a file and replaced text in it before that (in the main
    thread, in a scratch directory), so that its modules are loaded: a first request
    makes the calls of any other."""

    def __init__(self) -> None:
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        with tempfile.TemporaryDirectory() as scratch:
            for given in (
                {"command": "create", "path": "/memories/w.txt", "file_text": "a\n"},
                {
                    "command": "str_replace",
                    "path": "/memories/w.txt",
                    "old_str": "a",
                    "new_str": "c",
                },
            ):
                super().handle({"op": "memories.call", "args": {"base": scratch, "input": given}})

    def handle(self, message: Any) -> dict[str, Any]:
        if message.get("op") in ("start", "stop"):
            return super().handle(message)
        if self._pool is None:
            self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        return self._pool.submit(super().handle, message).result()


class Flawed(Implementation):
    """memref with a flaw of ``unserialised`` (by the name of its context manager)."""

    def __init__(self, flaw: str) -> None:
        import unserialised

        if flaw not in ("torn", "unlocked", "in_place"):
            raise SystemExit(f"unknown flaw {flaw!r}")
        self._patched = getattr(unserialised, flaw)()
        self._patched.__enter__()


def _serve(implementation: Implementation) -> None:
    for line in sys.stdin:
        message = json.loads(line)
        reply = implementation.handle(message)
        print(json.dumps(reply), flush=True)
        if message.get("op") == "stop":
            return


if __name__ == "__main__":
    variant = {
        "Base64Text": Base64Text,
        "WrongOutline": WrongOutline,
        "DiesOnce": DiesOnce,
        "LogsRequests": LogsRequests,
        "Flawed": Flawed,
        "PoolWorker": PoolWorker,
    }
    _serve(variant[sys.argv[1]](*sys.argv[2:]))
