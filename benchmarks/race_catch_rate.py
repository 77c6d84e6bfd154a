"""How often one run of a race case catches an implementation.

    python benchmarks/race_catch_rate.py --adapter ADAPTER [--runs 100] [--case ID]...

A race case (a step with ``race``) sends its op over and over while a racer swaps a
directory of the tree for a link out of it; whether one run catches an implementation that
checks a path and then uses it by path depends on the timing of both. This runs each race
case (every one, or those given with ``--case``) ``--runs`` times against the adapter, in a
fresh tree each time, and prints for each how many runs caught it: the whole run failed,
because something outside changed or a reply was one the step does not allow. A run that
ends otherwise (the adapter broke, the host cannot race) is counted apart.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from memspec.corpus.cases import Case, load_cases
from memspec.exceptions import CaseFailure
from memspec.run.runner import run_case
from memspec.wire.adapters import Adapter


def race_cases(wanted: list[str]) -> list[Case]:
    found = [case for case in load_cases() if any(step.race for step in case.steps)]
    if wanted:
        found = [case for case in found if case.id in wanted]
        missing = sorted(set(wanted) - {case.id for case in found})
        if missing:
            raise SystemExit(f"race_catch_rate: no race case {missing[0]}")
    return found


def outcome(case: Case, adapter: Adapter) -> str:
    try:
        run_case(case, adapter)
    except CaseFailure as failure:
        text = str(failure)
        return "caught: outside changed" if "changed what lies outside" in text else "caught: reply"
    except Exception as exc:  # the adapter broke, or the host cannot race
        return f"other: {type(exc).__name__}"
    return "missed"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adapter", default="reference")
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--case", action="append", default=[])
    parser.add_argument("--timeout", type=float, default=10.0)
    options = parser.parse_args()
    adapter = Adapter(options.adapter, options.timeout)
    print(f"{adapter.handshake.implementation}, {options.runs} runs per case")
    for case in race_cases(options.case):
        started = time.perf_counter()
        tally = Counter(outcome(case, adapter) for _ in range(options.runs))
        caught = sum(count for what, count in tally.items() if what.startswith("caught"))
        details = ", ".join(f"{what} {count}" for what, count in sorted(tally.items()))
        print(
            f"{case.id}: caught in {caught} of {options.runs} runs "
            f"({100 * caught / options.runs:.0f}%; {details}; "
            f"{(time.perf_counter() - started) / options.runs:.2f} s a run)"
        )
    adapter.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
