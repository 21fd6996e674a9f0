"""Hand-record files (issue 3): records per second of ``hearts-dd annotate`` at 1 and 2 jobs, and
its peak memory on 1 000 and 10 000 records (flat: it must not grow with the file).

The files are generated end positions (``record_files.py``): 4 cards a hand with all 16
cards recorded, so each record is solved and its play reviewed in milliseconds and the figures
measure the batch machinery (reading, workers, ordering, writing) rather than full-deal search.
Every run is a separate ``hearts-dd`` process; its memory is read from ``/proc`` (Linux): the
high-water mark (``VmHWM``) of the process and of each worker, sampled while it runs.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .peak_memory import high_water_kib
from .record_files import endgame_file

ROOT = Path(__file__).resolve().parent.parent

SPEED_RECORDS = int(os.environ.get("HDD_BENCH_RECORDS", "2000"))
MEMORY_RECORDS = (1_000, 10_000)
HEARTS_DD = [sys.executable, "-m", "solver.cli", "annotate"]


def _children(pid: int) -> set[int]:
    """Every live descendant of ``pid`` (worker pools hang under a fork server, not under pid)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def measure(*args: str) -> tuple[float, float, float]:
    """Seconds of one ``hearts-dd annotate`` run, and the peak resident megabytes of its largest
    process and of all its processes together (each process's high-water mark, sampled)."""
    start = time.perf_counter()
    child = subprocess.Popen([*HEARTS_DD, *args], cwd=ROOT, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    peaks: dict[int, int] = {}
    while child.poll() is None:
        for pid in {child.pid} | _children(child.pid):
            peaks[pid] = max(peaks.get(pid, 0), high_water_kib(pid))
        time.sleep(0.05)
    seconds = time.perf_counter() - start
    assert child.returncode == 0, child.stderr.read().decode() if child.stderr else ""
    return seconds, max(peaks.values()) / 1024, sum(peaks.values()) / 1024


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[int, Path]:
    folder = tmp_path_factory.mktemp("records")
    paths = {}
    for n in {SPEED_RECORDS, *MEMORY_RECORDS}:
        paths[n] = folder / f"{n}.pbn"
        paths[n].write_bytes(endgame_file(n, seed=n, hand_size=4, play_cards=16))
    return paths


SPEED: dict[int, float] = {}


@pytest.mark.parametrize("jobs", [1, 2])
def test_records_per_second(benchmark, files, tmp_path, jobs):
    path = files[SPEED_RECORDS]

    def run() -> float:
        seconds, _, _ = measure(str(path), "-j", str(jobs), "-o", str(tmp_path / "out.jsonl"))
        return seconds

    benchmark.group = "annotate: records per second"
    seconds = benchmark.pedantic(run, rounds=1, iterations=1)
    SPEED[jobs] = SPEED_RECORDS / seconds
    benchmark.extra_info.update(records=SPEED_RECORDS, records_per_second=round(SPEED[jobs], 1),
                                cpu_count=os.cpu_count(), load=os.getloadavg()[0])
    if jobs == 2 and 1 in SPEED:
        benchmark.extra_info["ratio_2_to_1"] = round(SPEED[2] / SPEED[1], 2)
    print(f"\nannotate, {jobs} job(s): {SPEED_RECORDS} records in {seconds:.1f} s = "
          f"{SPEED[jobs]:.0f} records/s (load {os.getloadavg()[0]:.1f})")


@pytest.mark.parametrize("jobs", [1, 2])
def test_peak_memory_is_flat(benchmark, files, tmp_path, jobs):
    def run() -> dict[int, tuple[float, float]]:
        out = {}
        for n in MEMORY_RECORDS:
            _, largest, total = measure(str(files[n]), "-j", str(jobs), "-o", str(tmp_path / "out.pbn"))
            out[n] = (largest, total)
        return out

    benchmark.group = "annotate: peak memory"
    peak = benchmark.pedantic(run, rounds=1, iterations=1)
    for n, (largest, total) in peak.items():
        benchmark.extra_info[f"peak_mb_{n}"] = {"largest_process": round(largest, 1), "all_processes": round(total, 1)}
    print(f"\nannotate, {jobs} job(s), peak RSS MB (largest process, all processes): "
          + json.dumps({n: [round(a, 1), round(b, 1)] for n, (a, b) in peak.items()}))
    small, large = (peak[n][1] for n in MEMORY_RECORDS)
    assert large <= small * 1.25 + 8     # ten times the records, (nearly) the same memory
