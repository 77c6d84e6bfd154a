"""Fact names, types, scopes and ids, and how an id resolves to a file."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from memref.errors import OpError
from memref.factstore._constants import FACT_TYPES

__all__ = ["Resolved", "StoreDirs", "resolve", "scope_for_type", "valid_name", "valid_type"]

_NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


def valid_name(name: str) -> bool:
    """The whole name matches ``^[a-z0-9]+(-[a-z0-9]+)*$`` (a trailing newline included)."""
    return _NAME.fullmatch(name) is not None


def valid_type(fact_type: str) -> bool:
    return fact_type in FACT_TYPES


def scope_for_type(fact_type: str) -> str:
    return "global" if fact_type in ("user", "feedback") else "project"


@dataclass(frozen=True)
class StoreDirs:
    global_dir: str
    project_dir: str

    def dir_for(self, scope: str) -> str:
        return self.global_dir if scope == "global" else self.project_dir


@dataclass(frozen=True)
class Resolved:
    scope: str
    name: str
    path: str


def _bad_name(name: str) -> OpError:
    from memref.factstore._format import go_quote

    return OpError(
        "invalid-input", f"invalid name {go_quote(name)}: use kebab-case ascii [a-z0-9-]"
    )


def _exists(path: str) -> bool:
    try:
        os.stat(path)
    except (OSError, ValueError):
        return False
    return True


def resolve(dirs: StoreDirs, fact_id: str) -> Resolved:
    """Where ``fact_id`` (``scope/name`` or a bare name) lives; raises invalid-input."""
    from memref.factstore._format import go_quote

    if "/" in fact_id:
        scope, _, name = fact_id.partition("/")
        if not valid_name(name):
            raise _bad_name(name)
        if scope not in ("project", "global"):
            raise OpError(
                "invalid-input",
                f'invalid scope {go_quote(scope)}: use "project/{name}" or "global/{name}"',
            )
        return Resolved(scope, name, os.path.join(dirs.dir_for(scope), name + ".md"))
    if not valid_name(fact_id):
        raise _bad_name(fact_id)
    project = os.path.join(dirs.project_dir, fact_id + ".md")
    global_ = os.path.join(dirs.global_dir, fact_id + ".md")
    in_project, in_global = _exists(project), _exists(global_)
    if in_project and in_global:
        raise OpError(
            "invalid-input",
            f"{go_quote(fact_id)} exists in both scopes; qualify it as "
            f'"project/{fact_id}" or "global/{fact_id}"',
        )
    if in_global:
        return Resolved("global", fact_id, global_)
    return Resolved("project", fact_id, project)
