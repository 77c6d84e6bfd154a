"""memspec: the conformance suite for on-disk agent memory formats.

Run it with the ``memspec`` command or as a pytest plugin (``-p memspec.pytest_plugin``).
"""

from __future__ import annotations

import json
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

__all__ = ["PROTOCOL_VERSION", "__version__"]


def _distribution_version() -> str:
    try:
        return version("memspec")
    except PackageNotFoundError:  # imported from a source tree that was never installed
        return "0+unknown"


def _protocol_version() -> str:
    schema = Path(__file__).resolve().parent / "schemas" / "protocol" / "v1.json"
    text: str = json.loads(schema.read_text(encoding="utf-8"))["$defs"]["version"]["const"]
    return text


__version__ = _distribution_version()
PROTOCOL_VERSION = _protocol_version()
