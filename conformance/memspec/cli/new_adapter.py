"""``memspec new-adapter --lang LANG DIR``: a skeleton adapter that speaks the protocol.

The skeleton claims every profile, answers the handshake, ``stop`` and each profile's
``constants`` (with an empty object), and ``unknown-op`` to every other op, naming the spec
section that defines it; each op's stub lists its arguments and result (from the op
schemas). It carries the wire-value helpers (text or base64, RFC 3339 instants, 64-bit
integers), which ``--self-test`` checks against ``wire-vectors.json``, the vectors every
template runs. The op lists come from the Operations tables of the spec pages, which are
copied into the skeleton (``memspec-spec/``) so that the README's links work wherever the
skeleton goes.
"""

from __future__ import annotations

import json
import re
import shutil
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import memspec
from memspec.corpus.data import spec_dir
from memspec.corpus.op_schemas import arguments, described, kind_of, op_schema
from memspec.corpus.profiles import known_profiles
from memspec.exceptions import UsageError

__all__ = [
    "CAPABILITIES",
    "LANGUAGES",
    "SPEC_COPY",
    "VECTORS",
    "Op",
    "new_adapter",
    "profile_ops",
    "slug",
    "stub_comment",
]

_TEMPLATES = Path(__file__).resolve().parent / "templates"
VECTORS = _TEMPLATES / "wire-vectors.json"
SPEC_COPY = "memspec-spec"
"""The folder of the skeleton that holds a copy of the spec pages."""
LANGUAGES = ("python", "node", "typescript", "go", "rust")
_SHARED = {"typescript": [_TEMPLATES / "node" / "wire.js.tmpl"]}
"""Templates a language takes from another: the TypeScript skeleton runs Node's wire.js."""
CAPABILITIES = (
    ("symlinks", "trees holding symbolic links"),
    ("fifos", "trees holding FIFOs (never open one without O_NONBLOCK: it blocks)"),
    ("threads", "ops that start threads of their own (such as a barrier script)"),
    ("git", "repositories made with the real git binary"),
    (
        "concurrency",
        "several instances at once on one tree: writers take the locks the spec names",
    ),
    (
        "fault-injection",
        "fail the k-th filesystem mutation of a request: call mutation() just before each "
        'change; the reply then carries "mutations" (crash-point cases)',
    ),
)
"""Every capability a case can require, as each skeleton's comment lists them."""
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


@dataclass(frozen=True)
class _Section:
    heading: str
    body: str


def profile_ops(profile: str) -> list[Op]:
    """The ops of a profile's Operations table, each with the section that defines it."""
    page = spec_dir() / f"{profile}.md"
    try:
        text = page.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read the spec page {page}: {exc}") from exc
    sections = _sections(text)
    operations = next((s.body for s in sections if _is_operations(s)), "")
    ops = []
    for line in operations.splitlines():
        row = _ROW.match(line)
        if row:
            heading = _defining_section(row["op"], sections)
            ops.append(Op(row["op"], row["args"].strip(), f"spec/{profile}.md#{slug(heading)}"))
    return ops


def _sections(text: str) -> list[_Section]:
    """The page cut at its headings of levels 1 and 2: the title with the page's opening
    text, then each ``##`` section."""
    sections = [_Section("", "")]
    body: list[str] = []
    for line in text.splitlines():
        match = _HEADING.match(line)
        if match and len(match[1]) <= 2:
            sections[-1] = _Section(sections[-1].heading, "\n".join(body))
            sections.append(_Section(match[2], ""))
            body = []
        else:
            body.append(line)
    sections[-1] = _Section(sections[-1].heading, "\n".join(body))
    return [section for section in sections if section.heading]


def _is_operations(section: _Section) -> bool:
    return section.heading.lower().startswith("operations")


def _defining_section(op: str, sections: list[_Section]) -> str:
    """The heading of the section that defines ``op``: the one named after it, else the
    first whose paragraph, list item or requirement begins with it, else the first that
    names it. The Operations table names every op, so that section comes last."""
    prose = [s for s in sections if not _is_operations(s) and _names(s.body, op)]
    words = op.split(".", 1)[1].replace("_", " ")
    named_after = (s for s in prose if s.heading.lower() in (words, words + "s"))
    begun = (s for s in prose if any(_begins_with(item, op) for item in _statements(s.body)))
    found = next(named_after, None) or next(begun, None) or next(iter(prose), None)
    return found.heading if found else "Operations"


def _names(text: str, op: str) -> bool:
    return f"`{op}`" in text or f"`{op}(" in text


_LIST_ITEM = re.compile(r"^(?:- |\d+\. )")
_REQUIREMENT_ID = re.compile(r"^(?:- |\d+\. )?(?:\*\*[A-Z0-9-]+\*\* \([A-Z ]+\):\s*)?")


def _statements(body: str) -> Iterator[str]:
    """The paragraphs and list items of a section, each on one line; tables, code blocks
    and headings left out."""
    block: list[str] = []
    fenced = False
    for line in body.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        prose = bool(line.strip()) and not fenced and not line.startswith(("|", "```", "#"))
        if block and (not prose or _LIST_ITEM.match(line)):
            yield " ".join(block)
            block = []
        if prose:
            block.append(line.strip())
    if block:
        yield " ".join(block)


def _begins_with(statement: str, op: str) -> bool:
    """Whether a statement, past its list marker and requirement id, starts with ``op``."""
    return _REQUIREMENT_ID.sub("", statement, count=1).startswith((f"`{op}`", f"`{op}("))


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=True)


def stub_comment(op: Op) -> list[str]:
    """The lines that describe an op in its stub: where, what, arguments, result."""
    schema = op_schema(op.name) or {}
    lines = [f"{op.name} ({op.link}): {schema.get('description', '')}".rstrip(": ")]
    listed = arguments(op.name)
    if listed:
        lines.append("args:")
    for argument in listed:
        status = "required" if argument.required or argument.alternative else "optional"
        if argument.has_default:
            status += f", default {json.dumps(argument.default)}"
        lines.append(f"  {argument.name}: {argument.kind}, {status} — {argument.description}")
    result = schema.get("$defs", {}).get("result")
    if result is not None:
        lines.append(described(f"result: {kind_of(result)}", result))
    return lines


def _python_stub(op: Op, comment: list[str]) -> list[str]:
    function = op.name.replace(".", "_")
    doc = [comment[0], "", *comment[1:]]
    doc = [line.replace("\\", "\\\\").replace('"""', "'''") for line in doc]
    return [
        f"def {function}(args: dict[str, Any]) -> Any:",
        f'    """{doc[0]}',
        *(f"    {line}".rstrip() for line in doc[1:]),
        '    """',
        f"    raise NotImplementedYet({_q(op.name)})",
        "",
        "",
        f"HANDLERS[{_q(op.name)}] = {function}",
        "",
        "",
    ]


def _stubs(flat: list[Op]) -> dict[str, str]:
    """One stub per op and language: it lists the op's arguments and answers unknown-op."""
    python: list[str] = []
    node: list[str] = []
    typescript: list[str] = []
    go: list[str] = []
    rust: list[str] = []
    for op in flat:
        if op.name.endswith(".constants"):
            continue
        comment = stub_comment(op)
        python += _python_stub(op, comment)
        node += [*(f"// {line}" for line in comment)]
        node += [f"HANDLERS[{_q(op.name)}] = args => notYet({_q(op.name)});", ""]
        typescript += [*(f"// {line}" for line in comment)]
        typescript += [f"HANDLERS[{_q(op.name)}] = (args: Args) => notYet({_q(op.name)});", ""]
        go += [*(f"\t// {line}" for line in comment)]
        go += [f"\thandlers[{_q(op.name)}] = notYet({_q(op.name)})"]
        rust += [*(f"        // {line}" for line in comment)]
        rust += [f"        {_q(op.name)} => None,"]
    return {
        "@@STUBS_PY@@": "\n".join(python).rstrip() + "\n",
        "@@STUBS_JS@@": "\n".join(node).rstrip(),
        "@@STUBS_TS@@": "\n".join(typescript).rstrip(),
        "@@STUBS_GO@@": "\n".join(go),
        "@@STUBS_RS@@": "\n".join(rust),
    }


def _capabilities(prefix: str) -> str:
    """The capabilities' list as comment lines of at most 90 columns, each starting with
    ``prefix``."""
    lines = []
    for name, what in CAPABILITIES:
        lines += textwrap.wrap(
            f"{json.dumps(name)}: {what}",
            90,
            initial_indent=f"{prefix}   ",
            subsequent_indent=f"{prefix}       ",
        )
    return "\n".join(lines)


def _replacements(name: str, ops: dict[str, list[Op]]) -> dict[str, str]:
    flat = [op for profile_list in ops.values() for op in profile_list]
    return {
        **_stubs(flat),
        "@@CAPABILITIES_PY@@": _capabilities("#"),
        "@@CAPABILITIES_JS@@": _capabilities("//"),
        "@@CAPABILITIES_GO@@": _capabilities("//"),
        "@@CAPABILITIES_RS@@": _capabilities("//"),
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
    "typescript": ("npm install", "cmd:node_modules/.bin/tsx adapter.ts"),
    "go": ("go build -o adapter .", "cmd:./adapter"),
    "rust": ("cargo build --release", "cmd:target/release/{name}"),
}

_NODE_NOTE = (
    "Node: the skeleton needs Node 18 or later. It reads and writes JSON with its own "
    "`readJson` and `writeJson` (in `wire.js`), which keep 64-bit integers as `BigInt`: "
    "`JSON.parse` would turn 9223372036854775807 and 9223372036854775808 into one double. "
    "An op may return a promise; `serve` answers one request at a time, in order. The "
    "turnlog profile's index is SQLite: `node:sqlite` is built into Node 22.5 and later "
    "(behind `--experimental-sqlite` before 22.13 and 23.4); on older Node use an npm "
    "package such as `better-sqlite3`, or run the `sqlite3` command-line shell as a child "
    "process."
)
_LOCK_NOTE = (
    "Locks: a profile that says `flock(2)` (such as HERMES-CONCURRENCY-001) means a lock "
    "that other processes, and the harness's held-lock cases, see. Node has no `flock(2)`: "
    "`withFlock(lockPath, fn)` in `wire.js` runs util-linux's `flock(1)` as a child process "
    "that takes the lock and holds it until `fn` is done (create the lock file first, "
    "counting the mutation, when the spec says it is made). An in-process lock, a lock "
    "directory or `O_EXCL` file is not the same lock and fails those cases."
)
_TYPESCRIPT_NOTE = (
    "TypeScript: `npm install` brings `tsx` (pinned in `package.json`), which runs "
    "`adapter.ts` on Node 18 and later without a build step. `adapter.ts` uses only syntax "
    "that type stripping erases, so on Node 22.6 and later "
    "`node --experimental-strip-types adapter.ts` runs it too. `wire.d.ts` types the "
    "helpers of `wire.js`."
)
_FAULT_NOTE = (
    "Capabilities: claim each one your port supports (the list is at the top of the "
    "adapter, with what each asks). A case that needs one you do not claim is skipped, "
    "and the run's summary says in one line how many were left out. For "
    "`fault-injection`, call `mutation(what)` just before every change your ops make to "
    "the filesystem; it fails the change the request's `fault` names with `EIO`, and the "
    "reply then carries `mutations`, so the crash-point cases run."
)
_LANGUAGE_NOTES = {
    "node": [_NODE_NOTE, _LOCK_NOTE],
    "typescript": [_TYPESCRIPT_NOTE, _NODE_NOTE, _LOCK_NOTE],
}


def _spec_link(link: str) -> str:
    """``spec/turnlog.md#write`` as a link into the skeleton's copy of the spec pages."""
    return SPEC_COPY + "/" + link.split("/", 1)[1]


def _readme(lang: str, name: str, ops: dict[str, list[Op]]) -> str:
    build, adapter = _RUN[lang]
    adapter = adapter.format(name=name)
    lines = [
        f"# {name}: a memspec adapter ({lang})",
        "",
        f"A skeleton written by `memspec new-adapter` (memspec {memspec.__version__}, "
        f"protocol {memspec.PROTOCOL_VERSION}). It speaks the protocol: the `start` "
        "handshake, `stop`, and each profile's `constants` op (an empty object until you "
        "fill in the profile's constants). Every other op has a stub that lists its "
        "arguments and result and answers `unknown-op`, naming its spec section, so "
        "`memspec run` lists what is left to do.",
        "",
        "The wire-value helpers are written: text arguments and results (a JSON string, or "
        '`{"base64": ...}` for bytes that are not UTF-8; base64 standard and padded), '
        "64-bit integers read exactly, and RFC 3339 instants (years of four or more digits; "
        "results in UTC, fraction trimmed; a missing instant is `null`). Run the adapter "
        "with `--self-test` to check them against `wire-vectors.json`, the vectors every "
        "memspec template runs.",
        "",
        "```sh",
        *([build] if build else []),
        f'memspec smoke --adapter "{adapter}"',
        f'memspec run --adapter "{adapter}" --report report.jsonl '
        "--write-expectations expected-failures.toml",
        "```",
        "",
        *(line for note in _LANGUAGE_NOTES.get(lang, []) for line in (note, "")),
        _FAULT_NOTE,
        "",
        "Claim only the profiles you port (the profile list at the top of the adapter), and "
        f"the capabilities you support. The links below point into `{SPEC_COPY}/`, a copy "
        f"of the spec pages of memspec {memspec.__version__} written beside this README: "
        "keep the folder with it. `memspec explain OP` prints an op's signature, and "
        "`memspec explain CASE-ID` a case and its requirements.",
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
            link = _spec_link(op.link)
            lines.append(f"| `{op.name}` | {args} | [{op.link}]({link}) |")
    return "\n".join(lines) + "\n"


def _copy_extras(directory: Path) -> list[str]:
    """The wire vectors and the spec pages, beside the adapter."""
    shutil.copyfile(VECTORS, directory / VECTORS.name)
    pages = directory / SPEC_COPY
    pages.mkdir()
    for page in sorted(spec_dir().glob("*.md")):
        shutil.copyfile(page, pages / page.name)
    return [str(directory / VECTORS.name), str(pages)]


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
    templates += _SHARED.get(lang, [])
    written = []
    try:
        for template in templates:
            text = template.read_text(encoding="utf-8")
            for marker, value in replacements.items():
                text = text.replace(marker, value)
            base = _TEMPLATES / lang if template.is_relative_to(_TEMPLATES / lang) else None
            target = directory / template.relative_to(base or template.parent).with_suffix("")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            if target.suffix in (".py", ".js"):
                target.chmod(0o755)
            written.append(str(target))
        readme = directory / "README.md"
        readme.write_text(_readme(lang, name, ops), encoding="utf-8")
        written.append(str(readme))
        written += _copy_extras(directory)
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
