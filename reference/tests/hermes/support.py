"""Shared helpers of the hermes tests: a store on a home below a temporary folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memref.hermes import Store

DELIM = "\n\u00a7\n"
LIMITS = {"memory": 2200, "user": 1375}


def store(home: Path, limits: dict[str, int] | None = None, now: int = 0) -> Store:
    made = Store(str(home), limits or LIMITS, now)
    made.load()
    return made


def call(home: Path, tool_input: dict[str, Any], **options: Any) -> Any:
    return json.loads(store(home, **options).call(tool_input))


def memory(home: Path, text: str, name: str = "MEMORY.md") -> Path:
    path = home / "memories" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")
    return path
