"""What a failed check observed, normalised so that it is the same on every host and in
every run (``memspec.corpus.observations`` says what is kept of it).

A value observed in a case's tree holds what depends on where and when the case ran:
the tree's absolute path, the adapters' working directory, ``$HOME`` and ``TMPDIR``,
the random names of the run's folders, what an earlier step captured, and hashes of
any of those (a codebase key of the tree's path, a commit id). Each is written as the
placeholder a fixture would use (``${ROOT}``, ``${CWD}``, ``${HOME}``, ``${TMPDIR}``,
``${ROOT_NAME}``, ``${KEY}``, ``${sha256-16:…}``), the interpreter's and the adapter's
install folders as ``${PYTHON}`` and ``${INSTALL}``, a run of 16 to 64 hex digits that
the fixture itself does not hold as ``${HEX}``, a UUID as ``${UUID}``, and in a name that
holds ``tmp`` (a writer's temporary file) each run of six or more word characters that
the fixture does not hold, and each number of three digits or more, as ``${RANDOM}``.

Two more things depend on the host's file systems, not on what was asked:

- the size of a directory in a listing of sizes and paths (``4K`` on ext4, ``40B`` on
  tmpfs: MEMORIES-VIEW-006), written ``${DIR_SIZE}``: a line ``{size}\t{path}`` whose path
  ends with ``/``, or that is the first line after a line ending with ``:`` (the listed
  directory itself), or whose path goes on, past a line break in a name of the case's tree,
  to a ``/`` after that name;
- the positions in a Python ``UnicodeEncodeError``/``UnicodeDecodeError`` written as it
  is (``UnicodeEncodeError('utf-8', '/tmp/…', 57, 58, 'surrogates not allowed')``), which
  count the characters of the host's paths the object holds: they are given again as
  positions in the object once its host paths are placeholders.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from memspec.corpus.observations import Observation
from memspec.corpus.tokens import digest_tokens
from memspec.judge.messages import abridge, visible

__all__ = ["SHOWN", "Normaliser", "case_normaliser", "coarse", "observe"]

SHOWN = 160
"""How much of an observed value an expectations file shows."""
_HEX = re.compile(r"(?<![0-9a-f])[0-9a-f]{16,64}(?![0-9a-f])")
_LONGEST = 1 << 16
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_NAME = re.compile(r"[^\s/'\"]+")
"""A name of a path, or a word of a text."""
_TEMPORARY = re.compile(r"tmp|temp", re.IGNORECASE)
"""What a writer's temporary file, named at random, holds in its name."""
_WORDS = re.compile(r"(?<!\$\{)[A-Za-z0-9_]{6,}")
_NUMBER = re.compile(r"(?<![A-Za-z0-9{])[0-9]{3,}(?![A-Za-z0-9])")
_SIZE = r"(?:0|[1-9][0-9]*)(?:\.[0-9])?[BKMG]"
_DIRECTORY_SIZE = re.compile(rf"(?m)^{_SIZE}(?=\t[^\n]*/$)|(?<=:\n){_SIZE}(?=\t)")
"""A directory's size in a listing: its path ends with ``/``, or it is the first line."""
_UNICODE_ERROR = re.compile(
    r"(?P<head>Unicode(?:En|De)codeError\('[^'\\]*', )"
    r"(?P<object>b?'(?:[^'\\\n]|\\.)*'|b?\"(?:[^\"\\\n]|\\.)*\"), "
    r"(?P<start>[0-9]+), (?P<end>[0-9]+)(?=, ')"
)


class Normaliser:
    """Writes the run-dependent parts of observed values as placeholders."""

    def __init__(
        self,
        replacements: Mapping[str, str],
        known_text: str = "",
        broken_names: Iterable[str] = (),
    ) -> None:
        # Longest first, so that the tree's path wins over TMPDIR, which holds it.
        self._replacements = sorted(
            ((actual, token) for actual, token in replacements.items() if actual),
            key=lambda pair: -len(pair[0]),
        )
        self._known = known_text
        # A name that holds a line break spans lines of a listing: the line of its size
        # does not end with its path (memories/view/name-forges-a-listing-line).
        self._spanning = [
            re.compile(rf"(?m)^{_SIZE}(?=\t[^\n]*{re.escape(name)}/)")
            for name in sorted(set(broken_names))
        ]

    def text(self, text: str) -> str:
        if len(text) > _LONGEST:
            # An observation is told apart by its start and its length; the patterns
            # below are not run over a reply of many megabytes.
            text = f"{text[:_LONGEST]}…[{len(text)} characters]"
        text = _UNICODE_ERROR.sub(self._unicode_error, text)
        text = self._placed(text)
        for spanning in self._spanning:
            text = spanning.sub("${DIR_SIZE}", text)
        text = _DIRECTORY_SIZE.sub("${DIR_SIZE}", text)
        text = _UUID.sub("${UUID}", text)
        text = _NAME.sub(self._name, text)
        return _HEX.sub(lambda m: m[0] if m[0] in self._known else "${HEX}", text)

    def _placed(self, text: str) -> str:
        """``text`` with the values of the run written as their placeholders."""
        for actual, token in self._replacements:
            text = text.replace(actual, token)
        return text

    def _unicode_error(self, match: re.Match[str]) -> str:
        """A Unicode error's positions, as positions in its object once the object's
        host paths are placeholders."""
        try:
            thing = ast.literal_eval(match["object"])
        except (ValueError, SyntaxError):
            return match[0]
        start, end = int(match["start"]), int(match["end"])
        if not isinstance(thing, str) or end > len(thing) or start > end:
            return match[0]  # bytes hold no path of this host
        moved = len(self._placed(thing[:start]))
        return f"{match['head']}{match['object']}, {moved}, {moved + end - start}"

    def _name(self, match: re.Match[str]) -> str:
        # Each name is found once and then searched: a pattern holding both would try
        # every start of a long name again (a text of 64 KiB took seconds).
        name = match[0]
        return self._temporary(name) if _TEMPORARY.search(name) else name

    def _temporary(self, name: str) -> str:
        """A temporary file's name with its random parts (a run of six or more word
        characters the case does not hold itself, a number of three digits or more) as
        ``${RANDOM}``."""
        name = _WORDS.sub(lambda m: m[0] if m[0] in self._known else "${RANDOM}", name)
        return _NUMBER.sub("${RANDOM}", name)

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list | tuple):
            return [self.value(item) for item in value]
        if isinstance(value, dict):
            return {self.text(str(key)): self.value(item) for key, item in value.items()}
        return value


def _host_folders(installs: Iterable[str]) -> dict[str, str]:
    found = {tempfile.gettempdir(): "${TMPDIR}"}
    home = os.environ.get("HOME", "")
    if len(home) > 1:
        found[home] = "${HOME}"
    for prefix in (sys.prefix, sys.base_prefix, sys.exec_prefix):
        found[prefix] = "${PYTHON}"
    for folder in installs:
        found[folder] = "${INSTALL}"
    return found


def case_normaliser(
    root: str,
    *,
    working_directory: Path | None,
    captured: Mapping[str, str],
    case_data: Iterable[Any],
    installs: Iterable[str] = (),
) -> Normaliser:
    """The normaliser of a case whose tree is at ``root``; ``case_data`` are the case's
    values as written (its tree, args and expectations), whose tokens name the hashes
    to write back and whose hex digits are kept as they are."""
    replacements = _host_folders(installs)
    replacements[root] = "${ROOT}"
    replacements[Path(root).name] = "${ROOT_NAME}"
    if working_directory is not None:
        replacements[str(working_directory)] = "${CWD}"
        replacements[working_directory.name] = "${CWD_NAME}"
        run_folder = working_directory.parent
        if run_folder != Path(tempfile.gettempdir()) and run_folder == Path(root).parent:
            replacements[run_folder.name] = "${RUN_NAME}"
    for name, value in captured.items():
        if len(value) >= 4:  # a short value would be replaced where it only happens to occur
            replacements[value] = "${" + name + "}"
    known = json.dumps(list(case_data), ensure_ascii=False)
    for digest, token in digest_tokens(known, root).items():
        replacements[digest] = token
    return Normaliser(replacements, known, _broken_names(case_data))


def _broken_names(values: Iterable[Any]) -> set[str]:
    """The names in the case's trees (the keys of its values) that hold a line break."""
    found: set[str] = set()
    stack = list(values)
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            for key in value:
                found.update(name for name in str(key).split("/") if "\n" in name)
            stack.extend(value.values())
        elif isinstance(value, list | tuple):
            stack.extend(value)
    return found


def observe(check: str, value: Any, normaliser: Normaliser) -> Observation:
    """The observation of ``value`` by the failed check ``check``."""
    normal = normaliser.value(value)
    canonical = json.dumps(normal, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode("ascii")).hexdigest()[:12]
    return Observation(check_name(check, normaliser), digest, abridge(normal, SHOWN))


def coarse(check: str, kind: str, normaliser: Normaliser) -> Observation:
    """An observation that is not deterministic, kept as its kind of failure only."""
    return Observation(check_name(check, normaliser), "", kind)


def check_name(check: str, normaliser: Normaliser) -> str:
    """A check's name as a signature holds it: printable (a lone surrogate of a name that
    is not UTF-8 is written ``\\udcff``, the same in the run and in the file)."""
    return visible(normaliser.text(check))
