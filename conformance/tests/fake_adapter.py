"""An out-of-process implementation of the toy ``demo`` profile that misbehaves on purpose.

Usage: python fake_adapter.py MODE. MODE says how it misbehaves on ``demo.echo`` requests
whose ``value`` starts with ``!``: ``good`` (never), ``crash`` (exits), ``hang`` (sleeps),
``garbage`` (prints a line that is not JSON), ``wrong`` (answers a wrong value),
``bad-id`` (echoes the wrong id), ``stderr`` (writes to stderr, then answers correctly),
``bad-start`` (refuses the handshake), ``old-protocol`` (claims protocol 0.1.0),
``hostile`` (answers text no report format can carry as it is: a lone surrogate, NUL,
escape and other control characters), ``huge`` (answers 50 MB), ``slow-start`` (takes
2 s to answer ``start``, as a framework that is slow to import does), ``orphan`` (forks a
child that keeps stdout open and sleeps, its pid written to the file named by
``MEMSPEC_FAKE_PIDS``, then writes to stderr and exits 7), ``relative`` (writes
``home/MEMORY.md`` relative to its working directory, then answers correctly), ``twice``
(answers twice, both lines at once), ``twice-late`` (answers once, and a second time
only when the next request, or ``stop``, comes: just before answering that one),
``some-ops`` (lists only ``demo.constants`` among the ops it implements).
"""

from __future__ import annotations

import json
import os
import sys
import time


def misbehaves_on(message: dict) -> bool:
    value = message.get("args", {}).get("value")
    return message.get("op") == "demo.echo" and isinstance(value, str) and value.startswith("!")


def answer(message: dict, mode: str) -> dict | str | None:
    op, request_id, args = message.get("op"), message.get("id"), message.get("args", {})
    if op == "start":
        if mode == "slow-start":
            time.sleep(2)
        if mode == "bad-start":
            return {"id": request_id, "error": {"kind": "internal", "message": "no"}}
        version = "0.1.0" if mode == "old-protocol" else "1.0.0"
        return {
            "id": request_id,
            "result": {
                "implementation": {"name": f"fake-{mode}", "version": "0", "language": "python"},
                "protocol_version": version,
                "profiles": ["demo"],
                "capabilities": [],
                **({"ops": ["demo.constants"]} if mode == "some-ops" else {}),
            },
        }
    if op == "stop":
        return {"id": request_id, "result": None}
    if op == "demo.constants":
        return {"id": request_id, "result": {"answer": 42}}
    if op != "demo.echo":
        return {"id": request_id, "error": {"kind": "unknown-op", "message": str(op)}}
    value = args.get("value")
    if isinstance(value, str) and value.startswith("!"):
        if mode == "crash":
            sys.exit(7)
        if mode == "orphan":
            told, tell = os.pipe()
            if os.fork() == 0:
                # Its pid as the host sees it (the adapter may run in a PID namespace of
                # its own, where its pids differ): /proc is the host's.
                os.write(tell, os.readlink("/proc/self").encode())
                time.sleep(3600)
                os._exit(0)
            os.close(tell)
            child = os.read(told, 32).decode()
            with open(os.environ["MEMSPEC_FAKE_PIDS"], "a", encoding="ascii") as pids:
                pids.write(f"{child}\n")
            print("the leader leaves its child behind", file=sys.stderr, flush=True)
            sys.exit(7)
        if mode == "relative":
            os.makedirs("home", exist_ok=True)
            with open("home/MEMORY.md", "w", encoding="utf-8") as handle:
                handle.write("written where the adapter was started\n")
        if mode == "hang":
            time.sleep(3600)
        if mode == "garbage":
            return "this is not JSON {"
        if mode == "wrong":
            return {"id": request_id, "result": "wrong"}
        if mode == "bad-id":
            return {"id": "someone-else", "result": value}
        if mode == "stderr":
            print("a warning on stderr", file=sys.stderr, flush=True)
        if mode == "hostile":
            return (
                {"id": request_id, "result": "\udcff\x00\x1b[31m\x07 \u2028 i\u0307d"}
                if value == "!one"
                else {"id": request_id, "error": {"kind": "io", "message": "\udcff\x00\x01"}}
            )
        if mode == "huge":
            return {"id": request_id, "result": "x" * 50_000_000}
    return {"id": request_id, "result": value}


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else "good"
    held_back = ""
    for line in sys.stdin:
        message = json.loads(line)
        reply = answer(message, mode)
        text = (reply if isinstance(reply, str) else json.dumps(reply)) + "\n"
        bang = misbehaves_on(message)
        # One write: both answers of ``twice`` reach the harness together.
        sys.stdout.write(held_back + text + (text if bang and mode == "twice" else ""))
        sys.stdout.flush()
        held_back = text if bang and mode == "twice-late" else ""
        if message.get("op") == "stop":
            return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
