"""Which cases a run holds: fixture cases as parametrised items, each item marked with its
case id, profile, requirements and kind, and the selections (``--profile``, ``--case``,
``--op``, ``--shard``) applied to every kind alike."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from memspec.corpus.cases import Case, crash_points_id, fixture_case_ids, load_cases
from memspec.corpus.profiles import selectable_profiles
from memspec.exceptions import MemspecError
from memspec.plugin.run_state import RunState, run_state
from memspec.reports.shard import Shard
from memspec.run.runner import crash_point_steps

__all__ = [
    "Sharding",
    "case_id_of",
    "deselection_line",
    "parametrize_cases",
    "select_items",
    "suite_case_ids",
]

_DESELECTED = pytest.StashKey[Counter[str]]()
"""How many items memspec's selections left out, by why."""
_PRESELECTED = pytest.StashKey[Counter[str]]()
"""How many fixture cases the selections left out before any item was made, by why."""
_EMPTY_LIST = "empty case list"
"""The item pytest makes for a kind of case of which none is selected."""


def case_marks(case: Case, kind: str = "fixture", case_id: str = "") -> list[Any]:
    return [
        pytest.mark.memspec_case_id(case_id or case.id),
        pytest.mark.memspec_profile(case.profile),
        pytest.mark.memspec_requirement(*case.requirements),
        pytest.mark.memspec_kind(kind),
    ]


def parametrize_cases(metafunc: pytest.Metafunc) -> None:
    """One item per fixture case (``memspec_case``) or per crash-points step
    (``memspec_crash_case``)."""
    wanted = {"memspec_case", "memspec_crash_case"} & set(metafunc.fixturenames)
    if not wanted:
        return
    state = run_state(metafunc.config)
    try:
        every = load_cases()
    except MemspecError as exc:
        raise pytest.UsageError(str(exc)) from exc
    # The selections are applied here, so that a run of one profile or one case does not
    # build an item for every other; the cases left out are counted for the summary's
    # "deselected" line, since pytest never sees them (the final selection is select_items').
    crash_kind = "memspec_case" not in wanted
    cases = []
    left_out = metafunc.config.stash.setdefault(_PRESELECTED, Counter())
    for case in every:
        weight = len(crash_point_steps(case)) if crash_kind else 1
        reason = _case_left_out(case, state) if weight else ""
        if reason:
            left_out[reason] += weight
        elif weight:
            cases.append(case)
    if "memspec_case" in wanted:
        metafunc.parametrize(
            "memspec_case",
            [pytest.param(case, id=case.id, marks=case_marks(case)) for case in cases],
        )
    else:
        crash = [(case, index) for case in cases for index in crash_point_steps(case)]
        metafunc.parametrize(
            "memspec_crash_case",
            [
                pytest.param(
                    (case, index),
                    id=crash_points_id(case.id),
                    marks=case_marks(case, "crash-points", crash_points_id(case.id)),
                )
                for case, index in crash
            ],
        )


def case_id_of(item: pytest.Item) -> str | None:
    """The memspec case id of an item, or None for an item that is not a memspec case."""
    marker = item.get_closest_marker("memspec_case_id")
    return str(marker.args[0]) if marker is not None else None


def _ops_of(item: pytest.Item) -> list[str]:
    callspec = getattr(item, "callspec", None)
    params = callspec.params if callspec is not None else {}
    case = params.get("memspec_case") or (params.get("memspec_crash_case") or (None,))[0]
    return [step.op for step in case.steps] if isinstance(case, Case) else []


def _is_empty_case_parameter(item: pytest.Item) -> bool:
    """The placeholder pytest makes when a case parameter list comes out empty (every
    real case item carries its case id)."""
    return getattr(item, "originalname", "") in ("test_case", "test_crash_points")


def _keep(
    config: pytest.Config, items: list[pytest.Item], kept: list[pytest.Item], why: Counter[str]
) -> None:
    """Keep ``kept`` of ``items``; ``why`` counts the others by the reason they were left."""
    if len(kept) != len(items):
        kept_ids = {id(item) for item in kept}
        config.hook.pytest_deselected(items=[i for i in items if id(i) not in kept_ids])
        items[:] = kept
        config.stash.setdefault(_DESELECTED, Counter()).update(why)


def deselection_line(config: pytest.Config, deselected: int) -> str:
    """Why ``deselected`` items (pytest's count) were left out of the run, in one line;
    empty when none were."""
    if not deselected:
        return ""
    ours = config.stash.setdefault(_DESELECTED, Counter())
    why = ours.copy()
    others = deselected - sum(why.values())
    if others > 0:
        keyword = getattr(config.option, "keyword", "")
        why[f"not matching -k {keyword!r}" if keyword else "left out by another plugin"] += others
    preselected: Counter[str] = config.stash.setdefault(_PRESELECTED, Counter())
    why.update(preselected)
    if not why:
        return ""
    return "deselected: " + ", ".join(_counted(count, reason) for reason, count in why.items())


def _counted(count: int, reason: str) -> str:
    plural = "s" if count != 1 else ""
    return (
        f"{count} {reason}{plural}" if reason == _EMPTY_LIST else f"{count} case{plural} {reason}"
    )


def _left_out(item: pytest.Item, case_id: str, state: RunState, known: tuple[str, ...]) -> str:
    """Why a case item is not selected; empty when it is."""
    profile_marker = item.get_closest_marker("memspec_profile")
    profile = str(profile_marker.args[0]) if profile_marker else ""
    if state.profiles and profile not in state.profiles:
        return _other_profiles(state)
    if profile not in known:  # a suite test of a profile these fixtures do not have
        return "of profiles the fixtures folder does not hold"
    if state.case_ids and case_id not in state.case_ids:
        return _NOT_NAMED
    if state.ops and not state.ops & set(_ops_of(item)):
        return _other_ops(state)
    return ""


_NOT_NAMED = "not named by --case"


def _other_profiles(state: RunState) -> str:
    return f"of other profiles (--profile {' --profile '.join(state.profiles)})"


def _other_ops(state: RunState) -> str:
    return f"calling none of the ops of --op {' --op '.join(sorted(state.ops))}"


def _case_left_out(case: Case, state: RunState) -> str:
    """Why a fixture case (with its crash points) is not selected; empty when it is. The
    reasons and their order are _left_out's."""
    if state.profiles and case.profile not in state.profiles:
        return _other_profiles(state)
    named = {case.id, crash_points_id(case.id)}
    if state.case_ids and not state.case_ids & named:
        return _NOT_NAMED
    if state.ops and not state.ops & {step.op for step in case.steps}:
        return _other_ops(state)
    return ""


def select_items(config: pytest.Config, state: RunState, items: list[pytest.Item]) -> None:
    """Keep the selected cases, give each its metadata and its expected failure."""
    known = selectable_profiles()
    kept = []
    why: Counter[str] = Counter()
    for item in items:
        case_id = case_id_of(item)
        if case_id is None:
            if _is_empty_case_parameter(item):
                why[_EMPTY_LIST] += 1
            else:
                kept.append(item)
            continue
        reason = _left_out(item, case_id, state, known)
        if reason:
            why[reason] += 1
            continue
        profile_marker = item.get_closest_marker("memspec_profile")
        profile = str(profile_marker.args[0]) if profile_marker else ""
        ops = _ops_of(item)
        requirement_marker = item.get_closest_marker("memspec_requirement")
        kind_marker = item.get_closest_marker("memspec_kind")
        item.user_properties.append(
            (
                "memspec_case",
                {
                    "id": case_id,
                    "profile": profile,
                    "requirements": list(requirement_marker.args) if requirement_marker else [],
                    "kind": str(kind_marker.args[0]) if kind_marker else "fixture",
                    "ops": ops,
                },
            )
        )
        item.extra_keyword_matches.add(case_id)
        entry = state.expectations.get(case_id)
        if entry is not None:
            item.add_marker(pytest.mark.xfail(reason=entry.reason, strict=True))
        kept.append(item)
    _keep(config, items, kept, why)


def suite_case_ids() -> set[str]:
    """The id of every case the suite has, of every kind and every profile, whatever a
    run selects."""
    from memspec.corpus.registry import registered_cases

    return fixture_case_ids(load_cases()) | {entry.id for entry in registered_cases()}


class Sharding:
    """Keeps one shard of the cases, after every other selection (``-k`` included)."""

    def __init__(self, shard: Shard) -> None:
        self.shard = shard

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        ids = {id(item): case_id for item in items if (case_id := case_id_of(item))}
        wanted = self.shard.select(ids.values())
        kept = [item for item in items if id(item) not in ids or ids[id(item)] in wanted]
        why = Counter({f"of other shards (--shard {self.shard})": len(items) - len(kept)})
        _keep(config, items, kept, why)
