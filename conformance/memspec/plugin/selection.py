"""Exact selections checked before a run: every ``--case`` names a case, every ``--op``
is called by one, so that a typo is a usage error naming it rather than an empty run."""

from __future__ import annotations

import ast
import difflib
from collections.abc import Iterable, Sequence
from pathlib import Path

from memspec.corpus.cases import fixture_case_ids, load_cases
from memspec.corpus.profiles import profile_of_case
from memspec.exceptions import UsageError

__all__ = ["check_selection", "suite_test_ids"]

_SUITE = Path(__file__).resolve().parent.parent / "suite"


def suite_test_ids() -> set[str]:
    """The case ids the suite's own tests register, read from their source.

    Importing the modules here would keep pytest from rewriting their asserts later in
    the same process, so the ``@suite_case("ID", ...)`` decorators are read instead.
    """
    ids: set[str] = set()
    for module in sorted(_SUITE.glob("test_*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"), str(module))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "suite_case"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                ids.add(node.args[0].value)
    return ids


def _suggestion(wanted: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(wanted, sorted(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def check_selection(case_ids: Sequence[str], ops: Sequence[str], profiles: Sequence[str]) -> None:
    """Refuse a ``--case`` that names no case or lies outside ``--profile``, and an
    ``--op`` that no case calls."""
    if not case_ids and not ops:
        return
    cases = load_cases()
    known = fixture_case_ids(cases)
    # The suite's own ids are read from its source only for a --case no fixture has.
    if not known.issuperset(case_ids):
        known |= suite_test_ids()
    for case_id in case_ids:
        if case_id not in known:
            raise UsageError(
                f"--case {case_id!r}: no case has this id{_suggestion(case_id, known)}"
            )
        if profiles and profile_of_case(case_id) not in profiles:
            raise UsageError(
                f"--case {case_id!r} is of profile {profile_of_case(case_id)!r}, which "
                f"--profile {' '.join(profiles)} leaves out"
            )
    called = {step.op for case in cases for step in case.steps}
    for op in ops:
        if op not in called:
            raise UsageError(f"--op {op!r}: no case calls this op{_suggestion(op, called)}")
