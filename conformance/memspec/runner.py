"""Running one case against an adapter and judging what came back."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memspec.adapters import Adapter, Response
from memspec.cases import Case, Expectation, Step
from memspec.compare import json_equal
from memspec.exceptions import AdapterFault
from memspec.report import tmp_case_sensitive
from memspec.trees import (
    compare_tree,
    hand_over,
    materialise,
    read_tree,
    remove_tree,
    substitute,
    unsubstitute,
)

__all__ = ["CaseFailure", "CaseFault", "case_tree", "not_claimed_reason", "run_case"]

_SHOW = 1500


class CaseFailure(Exception):
    """The implementation answered, and the answer is wrong."""


class CaseFault(Exception):
    """The implementation did not answer properly (crash, hang, garbage)."""


def not_claimed_reason(case: Case, adapter: Adapter) -> str | None:
    """Why the adapter or this host cannot take the case, or None when it can."""
    handshake = adapter.handshake
    if case.profile not in handshake.profiles:
        return f"not claimed: profile {case.profile!r}"
    missing = [need for need in case.requires if need not in handshake.capabilities]
    if missing:
        return f"not claimed: capability {', '.join(missing)}"
    runs_as_root = hasattr(os, "geteuid") and os.geteuid() == 0 and (
        adapter.tree_owner is None or adapter.tree_owner[0] == 0)
    if "non-root" in case.host and runs_as_root:
        return "host: the case needs a non-root user (mode bits do not bind root)"
    if "case-sensitive-fs" in case.host and not tmp_case_sensitive():
        return "host: the case needs a case-sensitive filesystem for its temporary directory"
    return None


def _show(value: Any, root: str) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    text = unsubstitute(text, root)
    return text if len(text) <= _SHOW else text[:_SHOW] + "…"


def _judge(step: Step, index: int, response: Response, expected: Expectation, root: str,
           steps: int) -> None:
    where = f"{step.op}" + (f" (step {index + 1} of {steps})" if steps > 1 else "")
    if expected.error_kind is not None:
        if not response.is_error:
            raise CaseFailure(f"{where}: expected error {expected.error_kind!r}, got result "
                              f"{_show(response.result, root)}")
        if response.error_kind != expected.error_kind:
            got = unsubstitute(response.error_message, root)
            raise CaseFailure(f"{where}: expected error {expected.error_kind!r}, got error "
                              f"{response.error_kind!r}: {got}")
        wanted = expected.error_message
        if wanted is not None and response.error_message != substitute(wanted, root):
            raise CaseFailure(f"{where}: error message {_show(response.error_message, root)}, "
                              f"expected {_show(substitute(wanted, root), root)}")
        return
    if response.is_error:
        raise CaseFailure(f"{where}: expected result {_show(expected.result, root)}, got error "
                          f"{response.error_kind!r}: {unsubstitute(response.error_message, root)}")
    wanted = substitute(expected.result, root)
    if not json_equal(wanted, response.result):
        raise CaseFailure(f"{where}: expected {_show(wanted, root)}, got "
                          f"{_show(response.result, root)}")


@contextlib.contextmanager
def case_tree(case: Case, adapter: Adapter, base: Path | None = None) -> Iterator[Path]:
    """A fresh temporary directory holding the case's tree, handed to the adapter's user."""
    workdir = Path(tempfile.mkdtemp(prefix="memspec-", dir=base)).resolve()
    try:
        materialise(case.tree, workdir)
        if adapter.tree_owner is not None:
            hand_over(workdir, adapter.tree_owner)
        yield workdir
    finally:
        remove_tree(workdir)


def run_case(case: Case, adapter: Adapter, base: Path | None = None) -> None:
    """Materialise the case's tree, run its steps, raise CaseFailure/CaseFault on a miss."""
    with case_tree(case, adapter, base) as workdir:
        root = str(workdir)
        for index, step in enumerate(case.steps):
            args = substitute(step.args, root)
            try:
                response = adapter.call(step.op, args)
            except AdapterFault as exc:
                detail = unsubstitute(str(exc), root)
                raise CaseFault(f"{step.op}: adapter fault: {detail}") from exc
            _judge(step, index, response, step.expect, root, len(case.steps))
            if step.expect.tree is not None:
                problems = compare_tree(step.expect.tree, read_tree(workdir), root)
                if problems:
                    shown = "; ".join(unsubstitute(p, root) for p in problems[:10])
                    raise CaseFailure(f"{step.op}: tree after the step differs: {shown}")
