"""A proxy adapter: ``python proxy_adapter.py COMMAND...`` starts COMMAND as its child
and passes each request to it and each reply back, line by line, leaving
``fault-injection`` out of the capabilities the child claims. What writes the files is
the child, a process the harness did not start."""

from __future__ import annotations

import json
import subprocess
import sys


def main(argv: list[str]) -> int:
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdin is not None and child.stdout is not None
    for line in sys.stdin:
        child.stdin.write(line)
        child.stdin.flush()
        reply = child.stdout.readline()
        if not reply:
            return 1
        message = json.loads(reply)
        if json.loads(line).get("op") == "start" and "result" in message:
            capabilities = message["result"].get("capabilities", [])
            message["result"]["capabilities"] = [c for c in capabilities if c != "fault-injection"]
            reply = json.dumps(message) + "\n"
        sys.stdout.write(reply)
        sys.stdout.flush()
    return child.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
