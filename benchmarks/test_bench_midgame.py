"""Hearts positions part-way through a deal: all four seats' answers with 5 to 9 tricks to go,
reached by seeded random legal play from the run's deals (standard rules). Shows where exact
analysis is interactive today; full deals are in ``test_bench_standard.py``."""
from __future__ import annotations

import statistics
import time

import pytest

from solver.analysis import Solver

from .seeded_deals import Settings, hearts_midgame


@pytest.mark.parametrize("tricks", [5, 6, 7, 8, 9])
def test_four_seats_part_way(benchmark, tricks: int) -> None:
    positions = [hearts_midgame(seed, tricks) for seed in Settings.from_env().seeds]
    times: list[float] = []

    def run() -> None:
        for p in positions:
            start = time.perf_counter()
            analysis = Solver(table_mb=32).analyze(p, moves=False)
            times.append(time.perf_counter() - start)
            assert len(analysis.players) == 4

    benchmark.group = "hearts four seats, part-way through a deal"
    benchmark.pedantic(run, rounds=1, iterations=1)
    times.sort()
    median, worst = statistics.median(times), times[-1]
    benchmark.extra_info.update(positions=len(times), median_s=round(median, 4), max_s=round(worst, 4))
    print(f"\n[midgame] {tricks} tricks to go, {len(times)} positions: "
          f"median {median * 1000:.1f} ms, max {worst * 1000:.1f} ms")
