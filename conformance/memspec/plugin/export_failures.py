"""``--export-failures``: a failing property's shrunk input, written as an ordinary
fixture file whose expectation comes from the reference."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from memspec.wire.adapters import Adapter

__all__ = ["export_failure"]


def export_failure(
    directory: Path, case_id: str, requirements: tuple[str, ...], op: str, args: Any
) -> Path:
    """Write ``op`` with ``args`` as a fixture below ``directory``; its path."""
    reference = Adapter("reference")
    try:
        expected = reference.call(op, args)
    finally:
        reference.close()
    digest = hashlib.sha256(
        json.dumps([op, args], sort_keys=True).encode("utf-8", "surrogatepass")
    ).hexdigest()[:12]
    profile, area = case_id.split("/")[:2]
    slug = f"regression-{digest}"
    fixture: dict[str, Any] = {
        "id": f"{profile}/{area}/{slug}",
        "description": f"Shrunk counter-example of {case_id}.",
        "requirements": list(requirements),
        "source": f"property {case_id}, expected value from the reference",
        "op": op,
        "args": args,
        "expect": (
            {"error": {"kind": expected.error_kind}}
            if expected.is_error
            else {"result": expected.result}
        ),
    }
    target = directory / profile / area / f"{slug}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(fixture, indent=2, ensure_ascii=True) + "\n", encoding="ascii")
    return target
