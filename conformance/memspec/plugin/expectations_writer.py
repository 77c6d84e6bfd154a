"""``--write-expectations``: the run's failing cases as an expectations file, so that a
port adopts the suite in one step and the file shrinks as the port improves; and the
entries that name no case at all."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from memspec.corpus.expectations import Expected, dump_expectations
from memspec.corpus.observations import from_token
from memspec.plugin.collection import suite_case_ids
from memspec.plugin.run_state import RunState
from memspec.reports.report import HARNESS_FAULT, CaseRecord
from memspec.reports.written import write_file

__all__ = ["rewritten_entries", "stale_entries", "write_run_expectations"]

_STILL_FAILING = ("failed", "error", "xfailed")


def stale_entries(expectations: Mapping[str, Expected]) -> list[str]:
    """The entries naming no case of the suite (of any kind, in or out of the selection)."""
    if not expectations:
        return []
    return sorted(set(expectations) - suite_case_ids())


def rewritten_entries(
    previous: Mapping[str, Expected], records: Mapping[str, CaseRecord], known: set[str]
) -> dict[str, Expected]:
    """The entries after a run that judged ``records``.

    A case the run left out (another profile, ``--case``, ``--op``, ``-k``, ``--shard``)
    keeps its entry as it was. A case the run judged is listed when it fails now, with
    its old reason if it had one and the signature of how it fails now; a skipped case
    keeps an entry it had; a case that passes is left out. An entry naming no case of the
    suite goes.
    """
    entries = {
        case: entry for case, entry in previous.items() if case not in records and case in known
    }
    for record in records.values():
        old = previous.get(record.id)
        if record.signature == HARNESS_FAULT:
            continue  # the harness's own bug, never the implementation's expected failure
        if record.outcome in _STILL_FAILING:
            tokens = record.signature or (record.outcome,)
            values = record.values + ("",) * (len(tokens) - len(record.values))
            entries[record.id] = Expected(
                old.reason if old else "",
                tuple(
                    from_token(token, value) for token, value in zip(tokens, values, strict=False)
                ),
            )
        elif record.outcome == "skipped" and old is not None:
            entries[record.id] = old
    return entries


def write_run_expectations(state: RunState) -> None:
    """Write the rewritten entries to ``--write-expectations``; a new entry gets a
    placeholder reason. The comment at the top of a file rewritten in place is kept."""
    implementation = state.implementation or {}
    path = Path(state.write_expectations_path)
    header = _kept_header(path) or (
        f"Expected failures of {implementation.get('name', 'unknown')} "
        f"{implementation.get('version', '')}, written by memspec run --write-expectations.\n"
        "Strict: a listed case that passes, or fails in another way, fails the run until "
        "its entry changes."
    )
    entries = rewritten_entries(state.expectations, state.records, suite_case_ids())
    write_file(path, dump_expectations(entries, header), "utf-8")


def _kept_header(path: Path) -> str:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return ""
    kept = []
    for line in lines:
        if not line.startswith("#"):
            break
        kept.append(line[2:] if line.startswith("# ") else line[1:])
    return "\n".join(kept)
