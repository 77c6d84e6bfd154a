"""memspec: the conformance suite for on-disk agent memory formats.

Run it with the ``memspec`` command or as a pytest plugin (``-p memspec.pytest_plugin``).
"""

from __future__ import annotations

import json
import os

__all__ = ["PROTOCOL_VERSION", "__version__"]

# The distribution's version: pyproject.toml reads it from this line, and memref repeats
# it (a test keeps the two equal).
__version__ = "0.1.0"


def _protocol_version() -> str:
    # os.path rather than pathlib: `memspec serve-reference` imports this module, and
    # pathlib would be its only user there.
    schema = os.path.join(os.path.dirname(__file__), "schemas", "protocol", "v1.json")
    with open(schema, encoding="utf-8") as handle:
        text: str = json.load(handle)["$defs"]["version"]["const"]
    return text


PROTOCOL_VERSION = _protocol_version()
