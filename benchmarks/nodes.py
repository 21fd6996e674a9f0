"""Search nodes and CPU time per seeded deal: the repeatable yardstick of engine changes.

Times on a shared machine wander by 10-30 %; node counts do not, and under cachegrind the
instruction count of the same run measures the cost per node just as repeatably::

    python -m benchmarks.nodes 3,5,6,7,10,13,16,17
    python -m benchmarks.nodes 0-20 --mode bridge
    python -m benchmarks.nodes 0-20 --mode bridge --dds    # DDS's count beside ours
    python -m benchmarks.nodes 3,7,13,19 --threads 2       # with helper threads: wall time
    valgrind --tool=cachegrind --cache-sim=yes python -m benchmarks.nodes 5,7   # "I refs"
    python -m benchmarks.nodes 0-40 --alternate spawn_nodes=100000,0 --rounds 2
    python -m benchmarks.nodes 0-8 --mode hearts4 --rules spot   # another rule set

With ``--threads`` above 1 the times are wall clock and the counts the main searches' only
(helpers' nodes follow as "helper"); neither repeats exactly from run to run.

Each line also gives the nodes at trick boundaries ("trick"), which is what DDS counts: with
``--dds`` (bridge mode, the [bench] extra installed) DDS's count for the same problem follows.

``--alternate ATTR=A,B`` compares settings of an engine attribute (``Engine``'s public search
settings): each deal is solved with each value in turn, ``--rounds`` times, and the fastest
time and the nodes of each are compared with the first value's, as geometric means over the
deals the first value takes 0.05 s or more to solve. Whole runs one after the other drift by up
to 10 % on a shared machine; settings that alternate deal by deal see the same machine.
"""
from __future__ import annotations

import argparse
import math
import time
from typing import Callable, NamedTuple

from solver.analysis import SearchAborted, Solver
from solver.cards import Seat
from solver.deal import Deal
from solver.errors import HeartsError
from solver.rules import Rules

from .seeded_deals import BRIDGE, STANDARD, bridge_start, hearts_start


def seeds(text: str) -> list[int]:
    """``3,5,7`` or ``0-20`` (end excluded), or both mixed: ``0-4,9``."""
    out: list[int] = []
    for part in text.split(","):
        lo, dash, hi = part.partition("-")
        out.extend(range(int(lo), int(hi)) if dash else [int(lo)])
    return out


def _rules(text: str) -> Rules:
    try:
        return Rules.parse(text)
    except HeartsError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def setting(text: str) -> tuple[str, list[int]]:
    """``spawn_nodes=100000,0``: an engine attribute and the values to compare."""
    name, eq, values = text.partition("=")
    if not eq or not name or not values:
        raise argparse.ArgumentTypeError(f"expected ATTR=A,B, got {text!r}")
    try:
        return name, [int(v) for v in values.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"values of {name} must be integers: {values!r}") from None


def solve(mode: str, seed: int, seat: str, solver: Solver, rules: Rules = STANDARD) -> object:
    """The deal's answer, or "CAP" where the node cap stopped the search."""
    try:
        return _question(mode, seed, seat, solver, rules)
    except SearchAborted:
        return "CAP"


class Run(NamedTuple):
    """One solve of one deal: its time, its nodes (all, at trick boundaries, in helper
    threads) and its answer."""
    seconds: float
    nodes: int
    tricks: int
    helpers: int
    value: object


def run_once(solver: Solver, clock: Callable[[], float], args: argparse.Namespace, seed: int) -> Run:
    """Solve the deal on a cleared solver: counts and time as a fresh solver's."""
    solver.clear()
    nodes, tricks, helpers = solver.nodes, solver.trick_nodes, solver.helper_nodes
    start = clock()
    value = solve(args.mode, seed, args.seat, solver, args.rules)
    return Run(clock() - start, solver.nodes - nodes, solver.trick_nodes - tricks,
               solver.helper_nodes - helpers, value)


def geometric_mean(ratios: list[float]) -> float:
    return math.exp(sum(map(math.log, ratios)) / len(ratios))


def _question(mode: str, seed: int, seat: str, solver: Solver, rules: Rules) -> object:
    if mode == "hearts":
        return solver.guarantee(hearts_start(seed, rules), seat)
    if mode == "hearts4":
        a = solver.analyze(hearts_start(seed, rules), moves=False)
        return [(r.guarantee, r.moon_possible) for r in a.players.values()]
    return solver.guarantee(bridge_start(seed, Seat.parse(seat)), seat)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seeds", type=seeds, help="deal seeds: 3,5,7 or 0-20")
    ap.add_argument("--mode", choices=["hearts", "hearts4", "bridge"], default="hearts",
                    help="one seat's guarantee (--rules), all four seats, or our "
                         "notrump-bridge mode with --seat leading")
    ap.add_argument("--seat", default="N")
    ap.add_argument("--rules", type=_rules, default=STANDARD, metavar="PRESET|JSON",
                    help="rules of the hearts modes (default standard; N leads a free first lead)")
    ap.add_argument("--table-mb", type=int, default=128)
    ap.add_argument("--node-cap", type=float, default=0,
                    help="stop a deal after about this many nodes (its value shows CAP)")
    ap.add_argument("--threads", type=int, default=1,
                    help="solver threads (above 1: helper threads, wall-clock times)")
    ap.add_argument("--dds", action="store_true",
                    help="bridge mode: DDS's node count (trick boundaries) for each deal too")
    ap.add_argument("--alternate", type=setting, metavar="ATTR=A,B",
                    help="solve each deal with each value of an engine attribute in turn and "
                         "compare them with the first")
    ap.add_argument("--rounds", type=int, default=1,
                    help="with --alternate: solves of each deal per value (the fastest counts)")
    args = ap.parse_args(argv)
    if args.dds and args.mode != "bridge":
        ap.error("--dds compares our bridge mode only: add --mode bridge")
    if args.alternate and args.dds:
        ap.error("--alternate and --dds do not go together")
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
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
    solver.prepare(BRIDGE if args.mode == "bridge" else args.rules)
    if args.alternate:
        alternate(solver, clock, args)
        return
    for seed in args.seeds:
        run = run_once(solver, clock, args, seed)
        total_nodes += run.nodes
        total_tricks += run.tricks
        total_seconds += run.seconds
        line = (f"seed {seed}: {run.value} nodes {run.nodes / 1e6:.2f}M trick {run.tricks / 1e6:.3f}M "
                f"{run.seconds:.2f}s")
        if args.threads > 1:
            line += f"  helper {run.helpers / 1e6:.2f}M"
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


def alternate(solver: Solver, clock: Callable[[], float], args: argparse.Namespace) -> None:
    """--alternate: each deal solved with each value in turn, the values compared."""
    name, values = args.alternate
    for e in solver.engines:
        if not hasattr(e, name):
            raise SystemExit(f"benchmarks.nodes: engines have no attribute {name!r}")
    runs: dict[int, list[Run]] = {}
    lines = []
    for seed in args.seeds:
        tries: list[list[Run]] = [[] for _ in values]
        for _ in range(args.rounds):
            for v, runs_of_v in zip(values, tries):
                for e in solver.engines:
                    setattr(e, name, v)
                runs_of_v.append(run_once(solver, clock, args, seed))
        runs[seed] = [min(t, key=lambda r: r.seconds) for t in tries]
        print(f"seed {seed}: " + "  ".join(
            f"{name}={v}: {b.value} nodes {b.nodes / 1e6:.2f}M {b.seconds:.3f}s"
            for v, b in zip(values, runs[seed])), flush=True)
    timed = [s for s, b in runs.items() if b[0].seconds >= 0.05 and b[0].value != "CAP"]
    for i, v in enumerate(values[1:], 1):
        differ = [s for s, b in runs.items() if b[i].value != b[0].value]
        if timed:
            t = geometric_mean([runs[s][i].seconds / runs[s][0].seconds for s in timed])
            n = geometric_mean([max(runs[s][i].nodes, 1) / max(runs[s][0].nodes, 1) for s in timed])
            lines.append(f"{name}={v} against {values[0]}: time {t:.3f}, nodes {n:.3f} "
                         f"(geometric means over {len(timed)} deals)")
        else:
            lines.append(f"{name}={v} against {values[0]}: no deal took 0.05 s")
        if differ:
            lines.append(f"{name}={v}: answers differ on seeds {differ}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
