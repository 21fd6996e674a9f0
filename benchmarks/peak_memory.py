"""Peak resident memory of one process analysing one full deal, printed as one JSON object.

Run as its own process (``python -m benchmarks.peak_memory SEED [TIME_LIMIT]``) so that
nothing the benchmark session loaded (DDS, pytest) counts. The peak is ``VmHWM`` of
``/proc/self/status``: Linux carries ``ru_maxrss`` across ``exec``, so a process started from a
large one (the benchmark session) would report its parent's size.
"""
from __future__ import annotations

import json
import resource
import sys
import time

from solver.analysis import SearchAborted, Solver

from .seeded_deals import hearts_start


def peak_memory(seed: int, time_limit: float) -> dict[str, object]:
    """Analyse deal ``seed`` under standard rules (four seats and the cards), then read the peak."""
    p = hearts_start(seed)
    start = time.perf_counter()
    try:
        Solver(time_limit=time_limit).analyze(p)
        timed_out = False
    except SearchAborted:
        timed_out = True
    seconds = time.perf_counter() - start
    megabytes = (high_water_kib() or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) / 1024
    return {"seed": seed, "megabytes": megabytes, "seconds": seconds, "timed_out": timed_out}


def high_water_kib(pid: int | str = "self") -> int:
    """Peak resident KiB of a live process (``VmHWM``), 0 when it cannot be read."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print("usage: python -m benchmarks.peak_memory SEED [TIME_LIMIT]", file=sys.stderr)
        return 2
    try:
        seed, limit = int(argv[0]), float(argv[1]) if len(argv) > 1 else 0.0
    except ValueError:
        print(f"peak_memory: SEED must be a whole number and TIME_LIMIT a number, got {argv}", file=sys.stderr)
        return 2
    print(json.dumps(peak_memory(seed, limit)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
