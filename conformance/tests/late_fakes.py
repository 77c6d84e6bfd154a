"""memref, which after each ``memories`` create that succeeds empties the file it wrote
0.3 s later, each way in which an adapter's work can outlive its reply:

- ``LateThread``: a thread of its own;
- ``LateOrphan``: a process it starts and leaves, in a session of its own;
- ``LateAlarm``: a handler of ``SIGALRM``, which ``signal.setitimer`` sends it while it
  waits, single-threaded, for the next request.

Each runs in process (``python:late_fakes:NAME``) or as a process of its own
(``python -m memspec.observe.served late_fakes NAME``).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

from memref.serve import Implementation

LATER_S = 0.3


def _written(message: dict[str, Any], reply: dict[str, Any]) -> Path | None:
    """The file a successful ``memories`` create wrote."""
    args = message.get("args") or {}
    given = (args.get("input") or {}).get("path")
    result = reply.get("result")
    if (
        message.get("op") != "memories.call"
        or (args.get("input") or {}).get("command") != "create"
        or not isinstance(result, dict)
        or result.get("is_error")
        or not isinstance(given, str)
    ):
        return None
    return Path(args["base"]) / given.lstrip("/")


class _Late(Implementation):
    mode = ""

    def handle(self, message: Any) -> dict[str, Any]:
        reply = super().handle(message)
        target = _written(message, reply)
        if target is not None:
            self.later(target)
        return reply

    def later(self, target: Path) -> None:
        if self.mode == "thread":
            threading.Timer(LATER_S, target.write_bytes, (b"",)).start()
        elif self.mode == "alarm":
            signal.signal(signal.SIGALRM, lambda *_: target.write_bytes(b""))
            signal.setitimer(signal.ITIMER_REAL, LATER_S)
        elif self.mode == "orphan":
            child = os.fork()
            if child == 0:
                os.setsid()
                if os.fork() == 0:
                    null = os.open(os.devnull, os.O_RDWR)
                    for fd in (0, 1, 2):
                        os.dup2(null, fd)
                    time.sleep(LATER_S)
                    target.write_bytes(b"")
                os._exit(0)
            os.waitpid(child, 0)


class LateThread(_Late):
    mode = "thread"


class LateOrphan(_Late):
    mode = "orphan"


class LateAlarm(_Late):
    mode = "alarm"
