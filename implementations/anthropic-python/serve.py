"""The Python SDK adapters as a process of their own, for a ``cmd:`` run.

    python serve.py anthropic_python_adapter:Adapter

reads one request a line from standard input and writes the reply of the adapter's
``handle()`` on one line, as memspec does with a ``python:`` adapter in its own process.
``.ci/implementations`` runs the SDKs so as uid 65534 (memspec itself stays root and
hands each tree over), since an in-process adapter runs as whoever runs memspec.
"""

from __future__ import annotations

import importlib
import json
import sys


def main() -> int:
    module_name, _, attribute = sys.argv[1].partition(":")
    handler = getattr(importlib.import_module(module_name), attribute)()
    for line in sys.stdin:
        message = json.loads(line)
        sys.stdout.write(json.dumps(handler.handle(message)) + "\n")
        sys.stdout.flush()
        if message.get("op") == "stop":
            break
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
