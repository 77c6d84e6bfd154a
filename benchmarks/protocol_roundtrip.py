"""Protocol cost, measured in one run: the adapter's start, a round trip, and the whole
suite in process and through the protocol, alternately.

    python benchmarks/protocol_roundtrip.py [--starts N] [--calls N] [--runs N]

- start: from spawning ``memspec serve-reference`` (the console script beside this
  Python) to its answer to ``start``, the median of N spawns (goal: under 80 ms);
- round trip: one small op through that process, the median of N calls;
- suite: ``memspec run`` with the reference in process, then through
  ``cmd:memspec serve-reference``, N times each, alternating so that both see the same
  machine; the ratio of the medians (goal: at most 1.15), and beside it the CPU time
  the run and every process it started used, which a busy machine does not inflate.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memspec import PROTOCOL_VERSION
from memspec.wire.adapters import Adapter


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


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def suite_seconds(adapter: str) -> tuple[float, float]:
    """Wall time and CPU time of one whole-suite run."""
    with tempfile.TemporaryDirectory() as scratch:
        cpu = _children_cpu()
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
        cpu = _children_cpu() - cpu
    if result.returncode != 0:
        raise SystemExit(f"suite run failed through {adapter}:\n{result.stdout[-2000:]}")
    return elapsed, cpu


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
    in_process: list[tuple[float, float]] = []
    via_pipe: list[tuple[float, float]] = []
    for run in range(1, options.runs + 1):
        in_process.append(suite_seconds("reference"))
        via_pipe.append(suite_seconds(SERVE))
        print(
            f"suite run {run}: in process {in_process[-1][0]:.2f} s ({in_process[-1][1]:.2f} s "
            f"CPU), through the protocol {via_pipe[-1][0]:.2f} s ({via_pipe[-1][1]:.2f} s CPU)"
        )
    wall_a, wall_b = (statistics.median(t for t, _ in runs) for runs in (in_process, via_pipe))
    cpu_a, cpu_b = (statistics.median(c for _, c in runs) for runs in (in_process, via_pipe))
    print(
        f"suite wall time: in process {wall_a:.2f} s, through {SERVE} {wall_b:.2f} s "
        f"(medians of {options.runs}, alternating); ratio {wall_b / wall_a:.2f}x "
        "(goal: at most 1.15x)"
    )
    print(
        f"suite CPU time: in process {cpu_a:.2f} s, through the protocol {cpu_b:.2f} s; "
        f"ratio {cpu_b / cpu_a:.2f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
