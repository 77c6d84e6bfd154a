"""Protocol cost, measured in one run: the adapter's start, a round trip, and the whole
suite in process and through the protocol, alternately.

    python benchmarks/protocol_roundtrip.py [--starts N] [--calls N] [--runs N]

- start: from spawning ``memspec serve-reference`` (the console script beside this
  Python) to its answer to ``start``, the median of N spawns (goal: under 80 ms);
- round trip: one small op through that process, the median of N calls;
- suite: ``memspec run`` with the reference in process, then through
  ``cmd:memspec serve-reference``, N times each, alternating so that both see the same
  machine; the ratio of the medians (goal: at most 1.15).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memspec import PROTOCOL_VERSION
from memspec.adapters import Adapter


def _console_script() -> str:
    beside = Path(sys.executable).with_name("memspec")
    found = str(beside) if beside.exists() else shutil.which("memspec")
    if found is None:
        raise SystemExit("no memspec console script beside this Python or on PATH")
    return found


SERVE = f"cmd:{_console_script()} serve-reference"
_START = json.dumps({"id": 1, "op": "start", "args": {"protocol_version": PROTOCOL_VERSION}})
_STOP = json.dumps({"id": 2, "op": "stop", "args": {}})


def start_seconds(count: int) -> list[float]:
    """Spawn to the reply to ``start``, for each of ``count`` fresh processes."""
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        process = subprocess.Popen(
            [_console_script(), "serve-reference"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(_START.encode() + b"\n")
        process.stdin.flush()
        if b'"implementation"' not in process.stdout.readline():
            raise SystemExit("serve-reference did not answer start")
        samples.append(time.perf_counter() - started)
        process.stdin.write(_STOP.encode() + b"\n")
        process.stdin.close()
        process.wait()
    return samples


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
    parser.add_argument("--starts", type=int, default=30)
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    starts = start_seconds(options.starts)
    print(
        f"start of {SERVE.removeprefix('cmd:')!r}: median {statistics.median(starts) * 1000:.1f} "
        f"ms, fastest {min(starts) * 1000:.1f} ms over {len(starts)} spawns (goal: under 80 ms)"
    )
    samples = round_trips(options.calls)
    median_ms = statistics.median(samples) * 1000
    p95_ms = statistics.quantiles(samples, n=20)[-1] * 1000
    print(f"round trip: median {median_ms:.3f} ms, p95 {p95_ms:.3f} ms over {len(samples)} calls")
    in_process, via_pipe = [], []
    for run in range(1, options.runs + 1):
        in_process.append(suite_seconds("reference"))
        via_pipe.append(suite_seconds(SERVE))
        print(f"suite run {run}: in process {in_process[-1]:.2f} s, {SERVE} {via_pipe[-1]:.2f} s")
    a, b = statistics.median(in_process), statistics.median(via_pipe)
    print(
        f"suite wall time: in process {a:.2f} s, subprocess {b:.2f} s "
        f"(medians of {options.runs}, alternating); ratio {b / a:.2f}x (goal: at most 1.15x)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
