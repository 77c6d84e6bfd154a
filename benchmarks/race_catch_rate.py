"""How often one run of a race or concurrency case catches an implementation.

    python benchmarks/race_catch_rate.py --adapter ADAPTER [--runs 200] [--case ID]...
        [--kind race|concurrency|all] [--observer strace|none] [--busy N]

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

With the observer (``--observer strace``, the default where it can run) a concurrency
case is run in one round, slowed where races happen, and a race case is decided by its
points; ``--observer none`` samples them as a host without strace does. ``--busy N``
keeps N processes spinning beside the runs (as many as the machine has cores keeps
them all busy), so that the rates hold on a loaded CI machine.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import statistics
import time
from collections import Counter
from collections.abc import Iterator

from memspec.corpus.cases import Case, load_cases
from memspec.exceptions import CaseFailure, CaseFault
from memspec.observe.strace import unavailable_reason
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


def outcome(case: Case, adapter: Adapter, observed: bool) -> str:
    try:
        run_case(case, adapter, observed=observed)
    except CaseFailure as failure:
        text = str(failure)
        first = "" if "(round " in text else " in round 1"
        how = "caught: outside changed" if "changed what lies outside" in text else "caught"
        return how + first
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
    parser.add_argument("--observer", choices=("strace", "none"), default="strace")
    parser.add_argument("--busy", type=int, default=0)
    options = parser.parse_args()
    observed = options.observer == "strace" and unavailable_reason() is None
    adapter = Adapter(options.adapter, options.timeout)
    with spinning(options.busy):
        print(
            f"{adapter.handshake.implementation}, {options.runs} runs per case, "
            f"{'observed' if observed else 'sampled'}, {options.busy} busy processes",
            flush=True,
        )
        rates(adapter, options.runs, timing_cases(options.case, options.kind), observed)
    adapter.close()
    return 0


def _spin() -> None:
    while True:
        pass


@contextlib.contextmanager
def spinning(count: int) -> Iterator[None]:
    """``count`` processes keeping a core busy each, for the block."""
    busy = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(count)]
    for process in busy:
        process.start()
    try:
        yield
    finally:
        for process in busy:
            process.kill()
            process.join()


def rates(adapter: Adapter, runs: int, cases: list[Case], observed: bool) -> None:
    for case in cases:
        reason = not_claimed_reason(case, adapter)
        if reason is not None:
            print(f"{case.id}: not run ({reason})", flush=True)
            continue
        tally: Counter[str] = Counter()
        took = []
        for _ in range(runs):
            started = time.perf_counter()
            tally[outcome(case, adapter, observed)] += 1
            took.append(time.perf_counter() - started)
        caught = sum(count for what, count in tally.items() if what.startswith("caught"))
        details = ", ".join(f"{what} {count}" for what, count in sorted(tally.items()))
        print(
            f"{case.id}: caught in {caught} of {runs} runs "
            f"({100 * caught / runs:.1f}%; {details}; a run took "
            f"{statistics.median(took):.2f} s at the median, {max(took):.2f} s at most)",
            flush=True,
        )


if __name__ == "__main__":
    raise SystemExit(main())
