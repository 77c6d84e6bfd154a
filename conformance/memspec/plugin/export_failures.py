"""``--export-failures``: a failing property's shrunk input, written as an ordinary
fixture file whose expectation comes from the reference.

The fixture is ``${ROOT}``-relative: the scratch folder the call was made in becomes
``${ROOT}`` in its args, and what that folder held just before the call becomes its tree,
so that it runs anywhere, passes ``memspec lint``, and its expected reply is the
reference's on a fresh copy of that tree (never on the folder the property used, which
is gone).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memspec.corpus.tokens import map_strings, substitute, unsubstitute
from memspec.run.scratch import scratch_folder
from memspec.run.trees import Entry, materialise
from memspec.wire.adapters import Adapter

__all__ = ["export_failure", "fixture_tree"]

_CAPABILITY = {"symlink": "symlinks", "fifo": "fifos"}


def fixture_tree(tree: Mapping[str, Entry], root: str) -> dict[str, dict[str, Any]]:
    """``tree`` as a fixture's tree: kinds, contents, modes and mtimes."""
    spec: dict[str, dict[str, Any]] = {}
    for path, entry in sorted(tree.items()):
        item: dict[str, Any]
        if entry.kind == "dir":
            item = {"dir": True}
        elif entry.kind == "symlink":
            item = {"symlink": unsubstitute(entry.target, root)}
        elif entry.kind in ("fifo", "socket"):
            item = {entry.kind: True}
        else:
            try:
                item = {"text": entry.content.decode("utf-8")}
            except UnicodeDecodeError:
                item = {"base64": base64.b64encode(entry.content).decode("ascii")}
        if entry.kind != "symlink":
            item["mode"] = f"{entry.mode:04o}"
        item["mtime_ns"] = entry.mtime_ns
        spec[path] = item
    return spec


def export_failure(
    directory: Path,
    case_id: str,
    requirements: tuple[str, ...],
    op: str,
    args: Any,
    root: str = "",
    tree: Mapping[str, Entry] | None = None,
) -> Path:
    """Write ``op`` with ``args`` (made in the folder ``root`` holding ``tree``) as a
    fixture below ``directory``; its path."""
    relative_args = map_strings(args, lambda text: unsubstitute(text, root)) if root else args
    fixture_spec = fixture_tree(tree or {}, root) if root else {}
    reference = Adapter("reference")
    try:
        with scratch_folder(
            reference, fill=lambda folder: materialise(fixture_spec, folder)
        ) as fresh:
            expected = reference.call(op, substitute(relative_args, str(fresh)))
            result = map_strings(expected.result, lambda text: unsubstitute(text, str(fresh)))
    finally:
        reference.close()
    digest = hashlib.sha256(
        json.dumps([op, relative_args, fixture_spec], sort_keys=True).encode(
            "utf-8", "surrogatepass"
        )
    ).hexdigest()[:12]
    profile, area = case_id.split("/")[:2]
    slug = f"regression-{digest}"
    kinds = {spec_kind for item in fixture_spec.values() for spec_kind in item}
    requires = sorted({_CAPABILITY[kind] for kind in kinds if kind in _CAPABILITY})
    fixture: dict[str, Any] = {
        "id": f"{profile}/{area}/{slug}",
        "description": f"Shrunk counter-example of {case_id}.",
        "requirements": list(requirements),
        "source": f"property {case_id}, expected value from the reference",
        **({"requires": requires} if requires else {}),
        **({"tree": fixture_spec} if fixture_spec else {}),
        "op": op,
        "args": relative_args,
        "expect": (
            {"error": {"kind": expected.error_kind}} if expected.is_error else {"result": result}
        ),
    }
    target = directory / profile / area / f"{slug}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(fixture, indent=2, ensure_ascii=True) + "\n", encoding="ascii")
    return target
