"""memorytool at scale: sequential adds on one MEMORY.md, and ComposeSoul over big files.

    python benchmarks/memorytool_scale.py [--adds N] [--buckets N] [--repeat N]

- add: N sequential ``add`` calls on one MEMORY.md. Every call reads and rewrites the whole
  file (atomically, with two fsyncs), so the cost per call grows with the file; the report
  gives the mean cost per call in each bucket of calls against the file size, and the ratio
  of the per-byte slope to the fixed cost, which shows a linear (not worse) growth;
- compose: ``compose_soul`` over seven 2 MiB files against the floor of reading the same
  seven files whole with ``open().read()``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from memref.memorytool import BOOTSTRAP_ORDER, MAX_FILE_BYTES, compose_soul, execute


def bench_adds(home: Path, adds: int, buckets: int) -> list[tuple[int, float]]:
    """(file size at the bucket's end, mean seconds per call) for each bucket of calls."""
    per_bucket = max(1, adds // buckets)
    rows = []
    started = time.perf_counter()
    for index in range(adds):
        result = execute(str(home), {"action": "add", "text": f"entry number {index:06d}"})
        assert not result.is_error, result
        if (index + 1) % per_bucket == 0:
            now = time.perf_counter()
            size = (home / "MEMORY.md").stat().st_size
            rows.append((size, (now - started) / per_bucket))
            started = now
    return rows


def linear_fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """Least squares: seconds = fixed + per_byte * size."""
    xs = [float(x) for x, _ in points]
    ys = [y for _, y in points]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    var = sum((x - mean_x) ** 2 for x in xs) or 1.0
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / var
    return mean_y - slope * mean_x, slope


def bench_compose(home: Path, repeat: int) -> tuple[float, float, int]:
    for name in BOOTSTRAP_ORDER:
        (home / name).write_bytes(b"x" * MAX_FILE_BYTES)
    floors, composes = [], []
    soul = b""
    for _ in range(repeat):
        start = time.perf_counter()
        for name in BOOTSTRAP_ORDER:
            with open(home / name, "rb") as handle:
                handle.read()
        floors.append(time.perf_counter() - start)
        start = time.perf_counter()
        soul, _ = compose_soul(str(home))
        composes.append(time.perf_counter() - start)
    return min(floors), min(composes), len(soul)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adds", type=int, default=10_000)
    parser.add_argument("--buckets", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memorytool-bench-") as scratch:
        home = Path(scratch) / "home"
        start = time.perf_counter()
        rows = bench_adds(home, options.adds, options.buckets)
        total = time.perf_counter() - start
        print(f"add: {options.adds} sequential calls on one MEMORY.md in {total:.2f} s")
        print(f"{'file size (bytes)':>18}  {'ms per call':>11}")
        for size, seconds in rows:
            print(f"{size:>18}  {seconds * 1000:>11.3f}")
        fixed, per_byte = linear_fit(rows)
        last = rows[-1][0]
        print(
            f"fit: {fixed * 1000:.3f} ms + {per_byte * 1e9:.3f} ns/byte; at {last} bytes "
            f"the size-dependent part is {per_byte * last / max(fixed, 1e-12):.2f}x the fixed "
            "part"
        )
        first_half = statistics.fmean(s for _, s in rows[: len(rows) // 2])
        second_half = statistics.fmean(s for _, s in rows[len(rows) // 2 :])
        print(
            f"growth: second half / first half of the calls = {second_half / first_half:.2f}"
            " (linear in size keeps this near the size ratio; worse would exceed it)"
        )
        compose_home = Path(scratch) / "compose"
        compose_home.mkdir()
        floor, composed, length = bench_compose(compose_home, options.repeat)
        print(
            f"compose: 7 x {MAX_FILE_BYTES} bytes -> soul of {length} bytes in "
            f"{composed * 1000:.1f} ms; raw read floor {floor * 1000:.1f} ms "
            f"({composed / floor:.2f}x)"
        )


if __name__ == "__main__":
    main()
