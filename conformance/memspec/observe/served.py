"""An in-process adapter served from a child process, so that the observer traces it as
it traces any other: ``reference`` as ``memspec serve-reference``, ``python:MODULE:ATTR``
by this module run as a program (``python -m memspec.observe.served MODULE ATTR``)."""

from __future__ import annotations

import json
import os
import shlex
import sys
from typing import Any

__all__ = ["served_spec"]


def served_spec(spec: str) -> str:
    """The ``cmd:`` spec serving ``spec`` from a child process (a ``cmd:`` spec as it is).
    The child finds modules where this process does."""
    if spec.startswith("cmd:"):
        return spec
    if spec == "reference":
        argv = [sys.executable, "-m", "memspec", "serve-reference"]
    else:
        _, module, attribute = spec.split(":")
        argv = [sys.executable, "-m", "memspec.observe.served", module, attribute]
    path = os.pathsep.join(entry or os.getcwd() for entry in sys.path)
    return "cmd:" + shlex.join(["env", f"PYTHONPATH={path}", *argv])


def _serve(module: str, attribute: str) -> int:
    import importlib

    target: Any = getattr(importlib.import_module(module), attribute)
    handler = target if hasattr(target, "handle") and not isinstance(target, type) else target()
    for line in sys.stdin:
        message = json.loads(line)
        reply = handler.handle(message)
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        if message.get("op") == "stop":
            break
    return 0


if __name__ == "__main__":
    sys.exit(_serve(sys.argv[1], sys.argv[2]))
