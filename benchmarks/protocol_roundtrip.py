"""Protocol cost, measured in one run: a round trip, and the whole suite both ways.

    python benchmarks/protocol_roundtrip.py [--calls N] [--runs N]

Prints the median round trip through ``cmd:memspec serve-reference`` and the ratio of
the suite's wall time through that subprocess adapter to the in-process reference.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memspec.adapters import Adapter

SERVE = f"cmd:{sys.executable} -m memspec serve-reference"


def round_trips(calls: int) -> list[float]:
    adapter = Adapter(SERVE)
    samples = []
    try:
        adapter.call("memdir.constants", {})
        args = {"content": "---\nname: x\ntype: user\n---\nbody"}
        for _ in range(calls):
            started = time.perf_counter()
            adapter.call("memdir.parse_frontmatter", args)
            samples.append(time.perf_counter() - started)
    finally:
        adapter.close()
    return samples


def suite_seconds(adapter: str) -> float:
    with tempfile.TemporaryDirectory() as scratch:
        started = time.perf_counter()
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "memspec",
                "run",
                "--adapter",
                adapter,
                "--report",
                str(Path(scratch) / "r.jsonl"),
            ],
            cwd=scratch,
            capture_output=True,
            text=True,
            check=False,
        )
        elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"suite run failed through {adapter}:\n{result.stdout[-2000:]}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    samples = round_trips(options.calls)
    median_ms = statistics.median(samples) * 1000
    p95_ms = statistics.quantiles(samples, n=20)[-1] * 1000
    print(
        f"round trip via {SERVE!r}: median {median_ms:.3f} ms, p95 {p95_ms:.3f} ms "
        f"over {len(samples)} calls"
    )
    in_process, via_pipe = [], []
    for _ in range(options.runs):
        in_process.append(suite_seconds("reference"))
        via_pipe.append(suite_seconds(SERVE))
    a, b = statistics.median(in_process), statistics.median(via_pipe)
    print(
        f"suite wall time: in-process {a:.2f} s, subprocess {b:.2f} s "
        f"(medians of {options.runs}); ratio {b / a:.2f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
