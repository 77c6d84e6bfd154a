"""The args column of every spec page's Operations table, written from the op schemas.

    python -m tools.spec_tables           # list the rows whose args differ from the schemas
    python -m tools.spec_tables --write   # rewrite those cells in place

Only the args cell of a row whose op has a schema changes; every other line of the page
is left as it is.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from memspec.corpus.op_schemas import op_schema, table_cell

SPEC = Path(__file__).resolve().parent.parent / "spec"
ROW = re.compile(
    r"^(\|\s*`(?P<op>[a-z0-9_]+\.[a-z0-9_]+)`\s*\|)(?P<args>[^|]*(?:\\\|[^|]*)*)(\|.*)$"
)


def rewritten(text: str) -> tuple[str, list[str]]:
    """The page with its args cells written from the schemas, and the ops that changed."""
    changed = []
    lines = text.split("\n")
    for index, line in enumerate(lines):
        match = ROW.match(line)
        if not match or op_schema(match["op"]) is None:
            continue
        cell = " " + table_cell(match["op"]).replace("|", "\\|") + " "
        if match["args"] != cell:
            changed.append(match["op"])
            lines[index] = match.group(1) + cell + match.group(4)
    return "\n".join(lines), changed


def main(argv: list[str]) -> int:
    write = argv == ["--write"]
    if argv and not write:
        print("usage: python -m tools.spec_tables [--write]", file=sys.stderr)
        return 2
    stale = []
    for page in sorted(SPEC.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        new, changed = rewritten(text)
        if changed and write:
            page.write_text(new, encoding="utf-8")
        stale += [f"{page.name}: {op}" for op in changed]
    for line in stale:
        print(("rewrote " if write else "differs from its schema: ") + line)
    return 1 if stale and not write else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
