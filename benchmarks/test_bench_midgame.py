"""Hearts positions part-way through a deal: all four seats' answers with 5 to 9 tricks to go,
reached by seeded random legal play from the run's deals (standard rules). Shows where exact
analysis is interactive today; full deals are in ``test_bench_standard.py``."""
from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import time

import pytest

from solver.analysis import Solver
from solver.cards import Seat
from solver.position import Position
from solver.sampling import samples

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


def _near_the_end(settings: Settings, tricks: int) -> list[tuple[Position, Seat]]:
    """40 positions a deal, ``tricks`` tricks from the end or a few cards into that trick, each
    with its player to move."""
    movers = []
    for seed in settings.seeds:
        for i in range(40):
            p = hearts_midgame(seed, tricks + 1).random_play(random.Random(f"{seed} {i}"), 4 + i % 4)
            assert p.to_move is not None
            movers.append((p, p.to_move))
    return movers


@pytest.mark.parametrize("question", ["cards", "cards in one call", "guarantees"])
@pytest.mark.parametrize("tricks", [2, 4, 6, 8])
def test_mover_near_the_end(benchmark, tricks: int, question: str) -> None:
    """What a Monte-Carlo player asks of each deal it samples late in a hand, from one reused
    solver: the player to move's guarantee and every legal card's value (``cards``:
    ``Solver.analyze`` a position; ``cards in one call``: all positions in one
    ``Solver.analyses`` call), or the guarantees alone, all positions in one
    ``Solver.guarantees`` call (``guarantees``). Two tricks from the end searches take
    microseconds, and this is mostly the cost of the Python API around them."""
    settings = Settings.from_env()
    movers = _near_the_end(settings, tricks)
    positions = [p for p, _ in movers]
    solver = Solver(table_mb=32, threads=settings.threads)
    solver.prepare(positions[0].rules)

    def run() -> None:
        if question == "cards":
            for p, mover in movers:
                solver.analyze(p, seats=[mover])
        elif question == "cards in one call":
            solver.analyses([(p, [mover]) for p, mover in movers])
        else:
            solver.guarantees(movers)

    benchmark.group = f"hearts mover near the end: {question} (one solver)"
    benchmark.pedantic(run, setup=solver.clear, rounds=3, iterations=1)
    per = benchmark.stats.stats.min / len(positions)
    benchmark.extra_info.update(positions=len(positions), us_per_position=round(per * 1e6, 1))
    print(f"\n[endgame] {question}, {tricks} tricks to go, {len(positions)} positions, "
          f"{settings.threads} thread(s): {per * 1e6:.0f} us a position, {1 / per:,.0f} positions/s")


@pytest.mark.parametrize("tricks", [2, 4, 6, 8, 12])
def test_samples_near_the_end(benchmark, tricks: int) -> None:
    """The deals a Monte-Carlo player draws of each position it must play (``samples``, 20 a
    call, the mover's view): with the searches near the end this small, drawing them is as
    much of a turn as solving them."""
    settings = Settings.from_env()
    positions = [p for p, _ in _near_the_end(settings, tricks)]

    def run() -> None:
        for i, p in enumerate(positions):
            samples(p, 20, seed=i)

    benchmark.group = "samples of a position near the end (20 a call)"
    benchmark.pedantic(run, rounds=3, iterations=1)
    per = benchmark.stats.stats.min / len(positions)
    benchmark.extra_info.update(positions=len(positions), us_per_call=round(per * 1e6, 1))
    print(f"\n[samples] {tricks} tricks to go, {len(positions)} positions: {per * 1e3:.2f} ms a "
          f"call of 20 deals, {per / 20 * 1e6:.0f} us a deal")


@pytest.mark.parametrize("tricks", [2, 6, 8])
def test_positions_file_through_the_cli(benchmark, tmp_path, tricks: int) -> None:
    """``hearts-dd analyze --input``: the positions of ``test_mover_near_the_end`` as a JSON
    Lines file (deal, play, player: the mover), one process for them all, start-up included;
    and, for scale, one ``hearts-dd analyze --json`` process per position for the first 10."""
    settings = Settings.from_env()
    movers = _near_the_end(settings, tricks)
    positions = [p for p, _ in movers]
    fields = [{"deal": p.deal.pbn(), "play": " ".join(map(str, p.played)), "player": str(mover)}
              for p, mover in movers]
    path = tmp_path / "positions.jsonl"
    path.write_text("".join(json.dumps(f) + "\n" for f in fields))
    cli = [sys.executable, "-m", "solver.cli", "analyze", "--threads", str(settings.threads)]

    def run() -> None:
        subprocess.run([*cli, "--input", str(path)], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)

    benchmark.group = "hearts-dd analyze --input (one process)"
    benchmark.pedantic(run, rounds=2, iterations=1)
    per = benchmark.stats.stats.min / len(positions)
    start = time.perf_counter()
    for f in fields[:10]:
        subprocess.run([*cli, "--deal", f["deal"], "--play", f["play"], "--player", f["player"], "--json"],
                       check=True, stdout=subprocess.DEVNULL)
    alone = (time.perf_counter() - start) / 10
    benchmark.extra_info.update(positions=len(positions), us_per_position=round(per * 1e6, 1),
                                ms_per_process=round(alone * 1e3, 1))
    print(f"\n[input] {tricks} tricks to go, {len(positions)} positions, {settings.threads} thread(s): "
          f"{per * 1e6:.0f} us a position in one process ({1 / per:,.0f} positions/s); "
          f"a process per position {alone * 1e3:.0f} ms")
