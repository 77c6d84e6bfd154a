"""How often one run of a race or concurrency case catches an implementation.

    python benchmarks/race_catch_rate.py --adapter ADAPTER [--runs 200] [--case ID]...
        [--kind race|concurrency|all]

A race case (a step with ``race``) sends its op while a racer swaps a directory of the
tree for a link out of it, until a send gives the op away or its budget is spent; a
concurrency case (a concurrent step, readers beside a step, a held lock) is run in rounds
until one fails or its budget is spent. Whether one run catches an implementation that
checks a path and then uses it, or writes without its lock, depends on the timing of
both. This runs each such case of the profiles the adapter claims (every one, or those
given with ``--case``) ``--runs`` times against the adapter, in a fresh tree each time,
and prints for each how many runs caught it (the run failed) and how long a run took. A
run that ends otherwise (the adapter broke, the host cannot race) is counted apart. The
gate needs every vulnerable case caught in every run, and memref (``--adapter
reference``) caught in none.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from memspec.corpus.cases import Case, load_cases
from memspec.exceptions import CaseFailure, CaseFault
from memspec.run.runner import not_claimed_reason, run_case
from memspec.wire.adapters import Adapter


def kind_of(case: Case) -> str | None:
    if any(step.race for step in case.steps):
        return "race"
    if any(step.concurrent or step.readers or step.hold_lock for step in case.steps):
        return "concurrency"
    return None


def timing_cases(wanted: list[str], kind: str) -> list[Case]:
    found = [
        case
        for case in load_cases()
        if kind_of(case) is not None and kind in ("all", kind_of(case))
    ]
    if wanted:
        found = [case for case in found if case.id in wanted]
        missing = sorted(set(wanted) - {case.id for case in found})
        if missing:
            raise SystemExit(f"race_catch_rate: no race or concurrency case {missing[0]}")
    return found


def outcome(case: Case, adapter: Adapter) -> str:
    try:
        run_case(case, adapter)
    except CaseFailure as failure:
        text = str(failure)
        return "caught: outside changed" if "changed what lies outside" in text else "caught"
    except CaseFault as fault:  # the adapter broke, timed out, or the host cannot race
        return f"other: {str(fault)[:60]}"
    except Exception as exc:
        return f"other: {type(exc).__name__}"
    return "missed"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adapter", default="reference")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--case", action="append", default=[])
    parser.add_argument("--kind", choices=("race", "concurrency", "all"), default="all")
    parser.add_argument("--timeout", type=float, default=10.0)
    options = parser.parse_args()
    adapter = Adapter(options.adapter, options.timeout)
    print(f"{adapter.handshake.implementation}, {options.runs} runs per case", flush=True)
    for case in timing_cases(options.case, options.kind):
        reason = not_claimed_reason(case, adapter)
        if reason is not None:
            print(f"{case.id}: not run ({reason})", flush=True)
            continue
        started = time.perf_counter()
        tally = Counter(outcome(case, adapter) for _ in range(options.runs))
        caught = sum(count for what, count in tally.items() if what.startswith("caught"))
        details = ", ".join(f"{what} {count}" for what, count in sorted(tally.items()))
        print(
            f"{case.id}: caught in {caught} of {options.runs} runs "
            f"({100 * caught / options.runs:.1f}%; {details}; "
            f"{(time.perf_counter() - started) / options.runs:.2f} s a run)",
            flush=True,
        )
    adapter.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
