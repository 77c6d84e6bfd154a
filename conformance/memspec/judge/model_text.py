"""Text an application sends to the model, and the check that it holds no host path.

An op's schema (``schemas/ops/<profile>/<op>.json``) may declare which parts of its
result are text the model reads, under the keyword ``x-memspec-model-text``::

    "x-memspec-model-text": [
      {"at": "", "text": "content"}
    ]

``at`` is a JSON Pointer to the object holding the text (``*`` stands for every member of
an array), ``text`` the member holding it, and ``when`` members whose values must be equal
for the declaration to apply (a text it leaves out, a success's say, is never checked:
declare every text the model reads). The harness applies the check to every reply of every case
step that calls such an op: the text must not hold a path of the host that the run knows
(``host_paths``): the case's tree, the adapters' working directory, ``$HOME``,
``TMPDIR``, the interpreter's and the adapter's install folders, nor the tree's path
relative to the working directory. Ops that declare nothing are not checked.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Iterable, Mapping
from typing import Any

from memspec.corpus.compare import json_equal, text_bytes
from memspec.corpus.op_schemas import op_schema
from memspec.corpus.pointers import values_at
from memspec.corpus.tokens import ROOT_TOKEN

__all__ = [
    "KEYWORD",
    "Declaration",
    "declarations",
    "expected_leaks",
    "host_path_leaks",
    "host_paths",
    "model_texts",
]

KEYWORD = "x-memspec-model-text"

Declaration = Mapping[str, Any]


def declarations(op: str) -> tuple[Declaration, ...]:
    """What the op's schema declares as model text; nothing when it has no schema."""
    schema = op_schema(op) or {}
    return tuple(item for item in schema.get(KEYWORD, []) if isinstance(item, dict))


def model_texts(result: Any, found: tuple[Declaration, ...]) -> list[Any]:
    """The values in ``result`` that ``found`` declares to be text sent to the model."""
    texts = []
    for declaration in found:
        member = declaration.get("text")
        when = declaration.get("when", {})
        for holder in values_at(result, str(declaration.get("at", ""))):
            if not isinstance(holder, dict) or member not in holder:
                continue
            if all(key in holder and json_equal(value, holder[key]) for key, value in when.items()):
                texts.append(holder[member])
    return texts


def host_paths(
    root: str, working_directory: str | None = None, installs: Iterable[str] = ()
) -> list[str]:
    """The paths of the host a model text must not hold, for a case whose tree is at
    ``root``: the tree, and its path relative to the adapters' working directory; that
    directory; ``$HOME`` and ``TMPDIR``; the interpreter's folders and ``installs``, the
    adapter's own. A path of fewer than five characters is left out (``/``, ``/tmp`` is
    kept)."""
    found = [root]
    if working_directory:
        found += [working_directory, os.path.relpath(root, working_directory)]
    found += [os.environ.get("HOME", ""), tempfile.gettempdir()]
    found += [sys.prefix, sys.base_prefix, sys.exec_prefix, *installs]
    return [path for path in dict.fromkeys(found) if len(path.rstrip("/")) >= 4]


def _holds(data: bytes, path: str) -> bool:
    """Whether ``data`` names ``path``: the path, not a longer name that starts with it."""
    needle = re.escape(path.rstrip("/").encode("utf-8", "surrogatepass"))
    return re.search(rb"(?<![\w.~-])" + needle + rb"(?![\w.~-])", data) is not None


def host_path_leaks(
    op: str, result: Any, root: str, paths: Iterable[str] = (), allowed: str = ""
) -> list[str]:
    """The model texts of ``result`` that hold the case's root ``root`` or one of the
    host's ``paths`` (``host_paths``) that ``allowed``, the text the case expects,
    does not hold itself."""
    needles = [
        p
        for p in dict.fromkeys([root, *paths])
        if p == root or not _holds(allowed.encode("utf-8", "surrogatepass"), p)
    ]
    leaks = []
    for text in model_texts(result, declarations(op)):
        data = text_bytes(text)
        if data is not None and any(_holds(data, needle) for needle in needles):
            leaks.append(data.decode("utf-8", "replace"))
    return leaks


def expected_leaks(op: str, expected_result: Any) -> list[str]:
    """Model texts of an expected result that name the tree's root (``${ROOT}``): a case
    must never expect a host path there."""
    return [
        str(text)
        for text in model_texts(expected_result, declarations(op))
        if isinstance(text, str) and ROOT_TOKEN in text
    ]
