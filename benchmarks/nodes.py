"""Search nodes and CPU time per seeded deal: the repeatable yardstick of engine changes.

Times on a shared machine wander by 10-30 %; node counts do not, and under cachegrind the
instruction count of the same run measures the cost per node just as repeatably::

    python -m benchmarks.nodes 3,5,6,7,10,13,16,17
    python -m benchmarks.nodes 0-20 --mode bridge
    valgrind --tool=cachegrind --cache-sim=yes python -m benchmarks.nodes 5,7   # "I refs"
"""
from __future__ import annotations

import argparse
import time

from solver.analysis import SearchAborted, Solver
from solver.cards import Seat

from .seeded_deals import BRIDGE, STANDARD, bridge_start, hearts_start


def seeds(text: str) -> list[int]:
    """``3,5,7`` or ``0-20`` (end excluded), or both mixed: ``0-4,9``."""
    out: list[int] = []
    for part in text.split(","):
        lo, dash, hi = part.partition("-")
        out.extend(range(int(lo), int(hi)) if dash else [int(lo)])
    return out


def solve(mode: str, seed: int, seat: str, solver: Solver) -> object:
    if mode == "hearts":
        return solver.guarantee(hearts_start(seed), seat)
    if mode == "hearts4":
        a = solver.analyze(hearts_start(seed), moves=False)
        return [(r.guarantee, r.moon_possible) for r in a.players.values()]
    return solver.guarantee(bridge_start(seed, Seat.parse(seat)), seat)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seeds", type=seeds, help="deal seeds: 3,5,7 or 0-20")
    ap.add_argument("--mode", choices=["hearts", "hearts4", "bridge"], default="hearts",
                    help="one seat's guarantee (standard rules), all four seats, or our "
                         "notrump-bridge mode with --seat leading")
    ap.add_argument("--seat", default="N")
    ap.add_argument("--table-mb", type=int, default=128)
    ap.add_argument("--node-cap", type=float, default=0,
                    help="stop a deal after about this many nodes (its value shows CAP)")
    args = ap.parse_args()
    total_nodes = 0
    total_seconds = 0.0
    # one solver, its memory mapped first and its tables cleared for each deal: the counts are
    # a fresh solver's, the times leave out the set-up, as in the benchmarks
    solver = Solver(table_mb=args.table_mb, node_limit=int(args.node_cap))
    solver.prepare(BRIDGE if args.mode == "bridge" else STANDARD)
    for seed in args.seeds:
        solver.clear()
        before = solver.nodes
        start = time.process_time()
        try:
            value = solve(args.mode, seed, args.seat, solver)
        except SearchAborted:
            value = "CAP"
        seconds = time.process_time() - start
        nodes = solver.nodes - before
        total_nodes += nodes
        total_seconds += seconds
        print(f"seed {seed}: {value} nodes {nodes / 1e6:.2f}M {seconds:.2f}s", flush=True)
    print(f"total nodes {total_nodes / 1e6:.2f}M time {total_seconds:.2f}s")


if __name__ == "__main__":
    main()
