"""Search nodes and CPU time per seeded deal: the repeatable yardstick of engine changes.

Times on a shared machine wander by 10-30 %; node counts do not, and under cachegrind the
instruction count of the same run measures the cost per node just as repeatably::

    python -m benchmarks.nodes 3,5,6,7,10,13,16,17
    python -m benchmarks.nodes 0-20 --mode bridge
    python -m benchmarks.nodes 0-20 --mode bridge --dds    # DDS's count beside ours
    python -m benchmarks.nodes 3,7,13,19 --threads 2       # with helper threads: wall time
    valgrind --tool=cachegrind --cache-sim=yes python -m benchmarks.nodes 5,7   # "I refs"

With ``--threads`` above 1 the times are wall clock and the counts the main searches' only
(helpers' nodes follow as "helper"); neither repeats exactly from run to run.

Each line also gives the nodes at trick boundaries ("trick"), which is what DDS counts: with
``--dds`` (bridge mode, the [bench] extra installed) DDS's count for the same problem follows.
"""
from __future__ import annotations

import argparse
import time

from solver.analysis import SearchAborted, Solver
from solver.cards import Seat
from solver.deal import Deal

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
    ap.add_argument("--threads", type=int, default=1,
                    help="solver threads (above 1: helper threads, wall-clock times)")
    ap.add_argument("--dds", action="store_true",
                    help="bridge mode: DDS's node count (trick boundaries) for each deal too")
    args = ap.parse_args()
    if args.dds and args.mode != "bridge":
        ap.error("--dds compares our bridge mode only: add --mode bridge")
    dds_nodes = None
    if args.dds:
        from . import dds_oracle  # needs endplay: the [bench] extra
        dds_oracle.warm_up()
        dds_nodes = dds_oracle.leader_side_nodes
    total_nodes = total_tricks = total_dds = 0
    total_seconds = total_dds_seconds = 0.0
    # one solver, its memory mapped first and its tables cleared for each deal: the counts are
    # a fresh solver's, the times leave out the set-up, as in the benchmarks
    solver = Solver(table_mb=args.table_mb, node_limit=int(args.node_cap),
                    threads=max(1, args.threads))
    clock = time.process_time if args.threads <= 1 else time.perf_counter
    solver.prepare(BRIDGE if args.mode == "bridge" else STANDARD)
    for seed in args.seeds:
        solver.clear()
        before, tricks_before = solver.nodes, solver.trick_nodes
        helpers_before = solver.helper_nodes
        start = clock()
        try:
            value = solve(args.mode, seed, args.seat, solver)
        except SearchAborted:
            value = "CAP"
        seconds = clock() - start
        nodes = solver.nodes - before
        tricks = solver.trick_nodes - tricks_before
        total_nodes += nodes
        total_tricks += tricks
        total_seconds += seconds
        line = f"seed {seed}: {value} nodes {nodes / 1e6:.2f}M trick {tricks / 1e6:.3f}M {seconds:.2f}s"
        if args.threads > 1:
            line += f"  helper {(solver.helper_nodes - helpers_before) / 1e6:.2f}M"
        if dds_nodes is not None:
            n, dds_seconds = dds_nodes(Deal.random(seed), Seat.parse(args.seat))
            total_dds += n
            total_dds_seconds += dds_seconds
            line += f"  DDS {n / 1e6:.3f}M {dds_seconds:.2f}s"
        print(line, flush=True)
    line = f"total nodes {total_nodes / 1e6:.2f}M trick {total_tricks / 1e6:.3f}M time {total_seconds:.2f}s"
    if dds_nodes is not None:
        line += (f"  DDS {total_dds / 1e6:.3f}M {total_dds_seconds:.2f}s (ours / DDS at trick "
                 f"boundaries: {total_tricks / max(total_dds, 1):.1f}x)")
    print(line)


if __name__ == "__main__":
    main()
