"""``--write-expectations``: the run's failing cases as an expectations file, so that a
port adopts the suite in one step and the file shrinks as the port improves."""

from __future__ import annotations

from pathlib import Path

from memspec._run_state import RunState
from memspec.expectations import write_expectations

__all__ = ["write_run_expectations"]


def write_run_expectations(state: RunState) -> None:
    """Every case that fails now, as an expected failure.

    A case already expected to fail keeps its reason; one that passes now is left out, so
    the file shrinks as the port improves. A new entry gets a placeholder reason.
    """
    entries = {
        record.id: state.expectations.get(record.id, "")
        for record in state.records.values()
        if record.outcome in ("failed", "error", "xfailed")
    }
    implementation = state.implementation or {}
    write_expectations(
        Path(state.write_expectations_path),
        entries,
        header=(
            f"Expected failures of {implementation.get('name', 'unknown')} "
            f"{implementation.get('version', '')}, written by memspec run --write-expectations.\n"
            "Strict: a listed case that passes fails the run until its entry is removed."
        ),
    )
