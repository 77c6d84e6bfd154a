"""The tokens of a case: ``${ROOT}``, ``${sha256-16:TEXT}``, ``${WORKER}``, ``${ITERATION}``
and captured ``${NAME}``s, and the one walker over the strings of a value that replaces them."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from typing import Any

__all__ = [
    "CAPTURED_TOKEN",
    "ROOT_TOKEN",
    "TEXT_MEMBERS",
    "digest_tokens",
    "for_worker",
    "map_strings",
    "substitute",
    "substitute_tree",
    "unsubstitute",
]

CAPTURED_TOKEN = re.compile(r"\$\{(?!(?:ROOT|WORKER|ITERATION)\})([A-Z][A-Z0-9_]*)\}")
"""A name an earlier step captured (``memspec.run.captures``)."""

ROOT_TOKEN = "${ROOT}"


_DIGEST_TOKEN = re.compile(r"\$\{sha256-16:([^}]*)\}")


def _digest(match: re.Match[str]) -> str:
    return hashlib.sha256(match.group(1).encode("utf-8", "surrogateescape")).hexdigest()[:16]


def map_strings(value: Any, change: Callable[[str], str]) -> Any:
    """``value`` with ``change`` applied to every string inside it (object keys kept)."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [map_strings(item, change) for item in value]
    if isinstance(value, dict):
        return {key: map_strings(item, change) for key, item in value.items()}
    return value


def substitute(value: Any, root: str) -> Any:
    """Replace ``${ROOT}`` in every string inside ``value``, then each
    ``${sha256-16:TEXT}`` by the first 16 hex digits of the SHA-256 of TEXT."""
    return map_strings(
        value, lambda text: _DIGEST_TOKEN.sub(_digest, text.replace(ROOT_TOKEN, root))
    )


def digest_tokens(text: str, root: str) -> dict[str, str]:
    """Each ``${sha256-16:TEXT}`` token found in ``text`` as written, by the digest it
    stands for in a case whose tree is at ``root``."""
    return {
        _digest(match): "${sha256-16:" + match.group(1).replace(root, ROOT_TOKEN) + "}"
        for match in _DIGEST_TOKEN.finditer(text.replace(ROOT_TOKEN, root))
    }


def for_worker(value: Any, worker: int, iteration: int) -> Any:
    """Replace ``${WORKER}`` and ``${ITERATION}`` in every string inside ``value``."""
    return map_strings(
        value,
        lambda text: text.replace("${WORKER}", str(worker)).replace("${ITERATION}", str(iteration)),
    )


TEXT_MEMBERS = ("symlink", "text", "lines_any_order", "entries_any_order")
"""The members of a tree entry in which tokens are replaced."""


def substitute_tree(tree: Mapping[str, Mapping[str, Any]], root: str) -> dict[str, Any]:
    """A tree with the tokens substituted in its paths, its symlink targets and the
    content given as text (not in base64 content, nor in a ``text_pattern``)."""
    return {
        substitute(path, root): {
            member: substitute(value, root) if member in TEXT_MEMBERS else value
            for member, value in spec.items()
        }
        for path, spec in tree.items()
    }


def unsubstitute(text: str, root: str) -> str:
    return text.replace(root, ROOT_TOKEN)
