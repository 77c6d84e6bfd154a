"""``memspec new-adapter --lang LANG DIR``: a skeleton adapter that speaks the protocol.

The skeleton claims every profile, answers the handshake, ``stop`` and each profile's
``constants`` (with an empty object), and ``unknown-op`` to every other op, naming the spec
section that defines it. It carries the wire-value helpers (text or base64, RFC 3339
instants). The op lists come from the Operations tables of the spec pages.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import memspec
from memspec._data import spec_dir
from memspec._profiles import known_profiles
from memspec.exceptions import UsageError

__all__ = ["LANGUAGES", "Op", "new_adapter", "profile_ops", "slug"]

_TEMPLATES = Path(__file__).resolve().parent / "_templates" / "adapters"
LANGUAGES = ("python", "node", "go", "rust")
_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")
_ROW = re.compile(r"^\|\s*`(?P<op>[a-z0-9_]+\.[a-z0-9_]+)`\s*\|(?P<args>[^|]*)\|")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")


@dataclass(frozen=True)
class Op:
    name: str
    args: str
    link: str
    """``spec/<profile>.md#<section>``: where the op's behaviour is specified."""


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def profile_ops(profile: str) -> list[Op]:
    """The ops of a profile's Operations table, each with its defining section."""
    page = spec_dir() / f"{profile}.md"
    try:
        text = page.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read the spec page {page}: {exc}") from exc
    sections: list[tuple[str, str]] = []  # (heading, body)
    heading = ""
    body: list[str] = []
    for line in text.splitlines():
        match = _HEADING.match(line)
        if match and len(match[1]) == 2:
            sections.append((heading, "\n".join(body)))
            heading, body = match[2], []
        else:
            body.append(line)
    sections.append((heading, "\n".join(body)))
    operations = next((b for h, b in sections if h.lower().startswith("operations")), "")
    ops = []
    for line in operations.splitlines():
        row = _ROW.match(line)
        if not row:
            continue
        name = row["op"]
        short = name.split(".", 1)[1]
        words = short.replace("_", " ")
        found = (
            next(
                (
                    h
                    for h, b in sections
                    if h and not h.lower().startswith("operations") and f"`{name}`" in b
                ),
                None,
            )
            or next((h for h, _ in sections if h and h.lower() in (words, words + "s")), None)
            or next(
                (
                    h
                    for h, b in sections
                    if h
                    and not h.lower().startswith("operations")
                    and (f"`{short}`" in b or f"`{short}(" in b)
                ),
                None,
            )
            or "Operations"
        )
        ops.append(Op(name, row["args"].strip(), f"spec/{profile}.md#{slug(found)}"))
    return ops


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=True)


def _replacements(name: str, ops: dict[str, list[Op]]) -> dict[str, str]:
    flat = [op for profile_list in ops.values() for op in profile_list]
    return {
        "@@NAME@@": name,
        "@@PROTOCOL@@": memspec.PROTOCOL_VERSION,
        "@@PROFILES_LIST@@": ", ".join(_q(p) for p in ops),
        "@@OPS_PY@@": "\n".join(f"    {_q(op.name)}: {_q(op.link)}," for op in flat),
        "@@OPS_JS@@": "\n".join(f"  {_q(op.name)}: {_q(op.link)}," for op in flat),
        "@@OPS_GO@@": "\n".join(f"\t{_q(op.name)}: {_q(op.link)}," for op in flat),
        "@@OPS_RS@@": "\n".join(f"    ({_q(op.name)}, {_q(op.link)})," for op in flat),
    }


_RUN = {
    "python": ("", "cmd:python3 adapter.py"),
    "node": ("", "cmd:node adapter.js"),
    "go": ("go build -o adapter .", "cmd:./adapter"),
    "rust": ("cargo build --release", "cmd:target/release/{name}"),
}


def _readme(lang: str, name: str, ops: dict[str, list[Op]]) -> str:
    build, adapter = _RUN[lang]
    adapter = adapter.format(name=name)
    lines = [
        f"# {name}: a memspec adapter ({lang})",
        "",
        f"A skeleton written by `memspec new-adapter` (memspec {memspec.__version__}, "
        f"protocol {memspec.PROTOCOL_VERSION}). It speaks the protocol: the `start` "
        "handshake, `stop`, and each profile's `constants` op (an empty object until you "
        "fill in the profile's constants). Every other op answers `unknown-op`, naming "
        "its spec section, so `memspec run` lists what is left to do.",
        "",
        "The wire-value helpers are written: text arguments and results (a JSON string, or "
        '`{"base64": ...}` for bytes that are not UTF-8) and RFC 3339 instants (results in '
        "UTC, fraction trimmed, a missing instant is `null`). Run the adapter with "
        "`--self-test` to check them.",
        "",
        "```sh",
        *([build] if build else []),
        f'memspec smoke --adapter "{adapter}"',
        f'memspec run --adapter "{adapter}" --report report.jsonl '
        "--write-expectations expected-failures.toml",
        "```",
        "",
        "Claim only the profiles you port (the profile list at the top of the adapter), and "
        "the capabilities you support. Links below are to the memspec repository's spec "
        "pages; `memspec explain CASE-ID` prints a case and its requirements.",
    ]
    for profile, profile_list in ops.items():
        lines += [
            "",
            f"## {profile} ({len(profile_list)} ops)",
            "",
            "| op | args | spec |",
            "|---|---|---|",
        ]
        for op in profile_list:
            args = op.args.replace("|", "\\|") or "—"
            lines.append(f"| `{op.name}` | {args} | [{op.link}]({op.link}) |")
    return "\n".join(lines) + "\n"


def new_adapter(lang: str, directory: Path, name: str = "my-port") -> list[str]:
    """Write the skeleton into ``directory`` (new or empty); the lines to print."""
    if lang not in LANGUAGES:
        raise UsageError(f"--lang {lang!r}: expected one of {', '.join(LANGUAGES)}")
    if not _NAME.match(name):
        raise UsageError(
            f"--name {name!r}: expected lower-case letters, digits, - and _, starting with a letter"
        )
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory}: exists and is not a directory; give a new or empty one")
    if directory.exists() and any(directory.iterdir()):
        raise UsageError(f"{directory}: exists and is not an empty directory")
    ops = {profile: profile_ops(profile) for profile in known_profiles()}
    replacements = _replacements(name, ops)
    templates = sorted(p for p in (_TEMPLATES / lang).rglob("*.tmpl") if p.is_file())
    written = []
    try:
        for template in templates:
            text = template.read_text(encoding="utf-8")
            for marker, value in replacements.items():
                text = text.replace(marker, value)
            target = directory / template.relative_to(_TEMPLATES / lang).with_suffix("")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            if target.suffix in (".py", ".js"):
                target.chmod(0o755)
            written.append(str(target))
        readme = directory / "README.md"
        readme.write_text(_readme(lang, name, ops), encoding="utf-8")
        written.append(str(readme))
    except OSError as exc:
        raise UsageError(f"cannot write {directory}: {exc.strerror or exc}") from exc
    build, adapter = _RUN[lang]
    count = sum(len(v) for v in ops.values())
    return [
        *written,
        f"{lang} adapter for {', '.join(ops)} ({count} ops) in {directory}; "
        f"next: cd {directory}"
        + (f" && {build}" if build else "")
        + f' && memspec smoke --adapter "{adapter.format(name=name)}"',
    ]
