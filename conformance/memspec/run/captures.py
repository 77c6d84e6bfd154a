"""Values a step captures from its result, which later steps of the case use as ``${NAME}``.

A step may carry ``"capture": {"NAME": "<JSON pointer>"}``. Once its reply has been
judged, the text at each pointer of its result (``""`` is the whole result) is kept under
its name, and ``${NAME}`` stands for it in the args and the expectations of every later
step of the case, wherever ``${ROOT}`` is replaced and before it is. A capturing step is
judged by its ``expect`` when it has one; it may leave ``expect`` out, and then any result
passes and an error fails the case. Either way the result must hold text (a string, or
base64 of UTF-8) at each pointer, or the case fails. What the captured value is, the
op's own cases pin: the capturing case only asks that later steps agree with it.

A name is upper-case letters, digits and ``_``, starting with a letter; ``ROOT``,
``WORKER`` and ``ITERATION`` are the harness's own.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NoReturn

from memspec.corpus.cases import Case, Expectation, Step
from memspec.corpus.compare import text_bytes
from memspec.corpus.pointers import values_at
from memspec.corpus.tokens import CAPTURED_TOKEN, TEXT_MEMBERS, map_strings
from memspec.wire.adapters import Response

__all__ = ["bound", "capture_problems", "captured", "pins_nothing"]

Fail = Callable[[str, list[str]], NoReturn]


def _replaced(value: Any, names: Mapping[str, str]) -> Any:
    return map_strings(
        value,
        lambda text: CAPTURED_TOKEN.sub(
            lambda match: names.get(match.group(1), match.group(0)), text
        ),
    )


def _tree(tree: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    return {
        _replaced(path, names): {
            member: _replaced(value, names) if member in TEXT_MEMBERS else value
            for member, value in spec.items()
        }
        for path, spec in tree.items()
    }


def bound(step: Step, names: Mapping[str, str]) -> Step:
    """``step`` with every ``${NAME}`` of ``names`` replaced in its args and expectations."""
    if not names:
        return step
    return dataclasses.replace(
        step, args=_replaced(step.args, names), expect=_bound_expectation(step.expect, names)
    )


def _bound_expectation(expect: Expectation, names: Mapping[str, str]) -> Expectation:
    return dataclasses.replace(
        expect,
        result=_replaced(expect.result, names),
        error_message=_replaced(expect.error_message, names),
        tree=None if expect.tree is None else _tree(expect.tree, names),
        results=None if expect.results is None else tuple(_replaced(list(expect.results), names)),
        any_of=None
        if expect.any_of is None
        else tuple(_bound_expectation(each, names) for each in expect.any_of),
    )


def pins_nothing(step: Step) -> bool:
    """Whether the step has no expectation of its own (a capturing step may leave it out)."""
    return step.expect == Expectation()


def _text(value: Any) -> str | None:
    data = text_bytes(value)
    try:
        return None if data is None else data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def captured(step: Step, response: Response, fail: Fail) -> dict[str, str]:
    """The names ``step`` captures from its reply; ``fail`` is called when one cannot be."""
    if not step.capture:
        return {}
    if response.is_error:
        fail(
            f"expected a result to capture as {', '.join(step.capture)}, "
            f"got error {response.error_kind!r}",
            [f"  message:  {response.error_message}"],
        )
    found: dict[str, str] = {}
    for name, pointer in step.capture.items():
        values = list(values_at(response.result, pointer))
        text = _text(values[0]) if values else None
        if text is None:
            where = f"at {pointer!r}" if pointer else "as a whole"
            what = json.dumps(values[0])[:200] if values else "nothing"
            fail(f"cannot capture {name}: the result holds no text {where}", [f"  found: {what}"])
        found[name] = text
    return found


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)


def _used(step: Step) -> set[str]:
    expect = step.expect
    parts = [step.args, expect.result, expect.error_message, expect.tree, expect.results]
    return {match.group(1) for text in _strings(parts) for match in CAPTURED_TOKEN.finditer(text)}


def capture_problems(case: Case) -> list[str]:
    """A name is used only after a step captured it; a concurrent step captures nothing."""
    problems: list[str] = []
    everywhere = {name for step in case.steps for name in step.capture}
    known: set[str] = set()
    for index, step in enumerate(case.steps, 1):
        early = sorted((_used(step) & everywhere) - known)
        problems.extend(
            f"step {index} uses ${{{name}}} before a step captures it" for name in early
        )
        if step.capture and step.concurrent is not None:
            problems.append(f"step {index} is concurrent and cannot capture")
        if step.capture and step.expect.error_kind is not None:
            problems.append(f"step {index} expects an error and cannot capture")
        known |= set(step.capture)
    return problems
