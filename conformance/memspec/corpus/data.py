"""Where the suite finds its fixtures, spec pages and schemas.

An installed wheel carries them under ``memspec/_data``; a source checkout keeps them at
the repository root. ``MEMSPEC_FIXTURES`` and ``MEMSPEC_SPEC`` point elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["fixtures_dir", "schema_path", "spec_dir"]

_PACKAGE = Path(__file__).resolve().parent.parent


def _locate(name: str, variable: str) -> Path:
    override = os.environ.get(variable)
    if override:
        return Path(override)
    bundled = _PACKAGE / "_data" / name
    if bundled.is_dir():
        return bundled
    checkout = _PACKAGE.parent.parent / name
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(
        f"memspec cannot find its {name}/ directory; set {variable} to point at it"
    )


def fixtures_dir() -> Path:
    return _locate("fixtures", "MEMSPEC_FIXTURES")


def spec_dir() -> Path:
    return _locate("spec", "MEMSPEC_SPEC")


def schema_path(name: str) -> Path:
    return _PACKAGE / "schemas" / name
