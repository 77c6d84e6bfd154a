"""Loading MEMORY.md with memref.automemory.read_index: time and peak memory by size.

    python benchmarks/automemory_index.py [--sizes 64K,64M,1G] [--comments]

Each size is an index of one-line entries (about 100 bytes each) written to a scratch
file, then loaded in a fresh Python process that reports the wall time of the load
and its peak resident memory (``ru_maxrss``), so that one size's allocations cannot
hide in another's. The warning needs the line and unit counts of the whole file, so
the time grows with the size; the memory should not. ``--comments`` puts a block HTML
comment near the start, which sends every line through the comment-stripping pass.
The ratios are against the smallest size, measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

_CHILD = """
import json, resource, sys, time
from memref.automemory import read_index
start = time.perf_counter()
loaded = read_index(sys.argv[1])
elapsed = time.perf_counter() - start
peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": elapsed, "peak_kib": peak_kib, "lines": loaded.line_count,
                  "units": loaded.unit_count, "content_units": len(loaded.content)}))
"""

_UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_size(text: str) -> int:
    return int(text[:-1]) * _UNITS[text[-1].upper()] if text[-1].isalpha() else int(text)


def write_index(path: Path, size: int, comments: bool) -> None:
    """About ``size`` bytes of index lines (the last line cut to fit)."""
    line = "- [note-{n:08d}](note-{n:08d}.md) \u2014 what this memory holds, in a few words\n"
    block = "".join(line.format(n=n) for n in range(10_000)).encode("utf-8")
    head = b"<!-- kept out of the prompt -->\n\n" if comments else b""
    with path.open("wb") as handle:
        handle.write(head)
        written = len(head)
        while written < size:
            chunk = block[: size - written]
            handle.write(chunk)
            written += len(chunk)


def measure(path: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path)], check=True, capture_output=True, text=True
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="64K,64M,1G")
    parser.add_argument("--comments", action="store_true")
    options = parser.parse_args()
    sizes = [parse_size(item) for item in options.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "MEMORY.md"
        for size in sizes:
            write_index(path, size, options.comments)
            rows.append((size, measure(path)))
            os.unlink(path)
    base_time, base_peak = rows[0][1]["seconds"], rows[0][1]["peak_kib"]
    print(f"{'size':>12} {'lines':>10} {'seconds':>9} {'MB/s':>8} {'peak MiB':>9} {'+MiB':>7}")
    for size, row in rows:
        rate = size / row["seconds"] / 1e6
        print(
            f"{size:>12} {int(row['lines']):>10} {row['seconds']:>9.3f} {rate:>8.1f}"
            f" {row['peak_kib'] / 1024:>9.1f} {(row['peak_kib'] - base_peak) / 1024:>7.1f}"
        )
    last_size, last = rows[-1]
    print(
        f"time ratio {last['seconds'] / base_time:.0f}x for {last_size // sizes[0]}x the size;"
        f" peak memory {last['peak_kib'] / base_peak:.3f}x"
    )


if __name__ == "__main__":
    main()
