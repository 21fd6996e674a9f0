"""The training run of the profile-guided build (``setup.py``): a few seconds of the searches
people ask for, so that the compiler lays out the engine for them. Full Hearts deals (one
seat's guarantee, all four seats later in a deal), endgames with every card's value under
every preset, and bridge play's four leaders, on one thread (helper threads run the same code).
Its deals are not the benchmarks' (seeds 0-99), so the figures there do not flatter the profile.

Run by the build as ``python -m solver._training``; it needs only the standard library and the
freshly built engine."""
from __future__ import annotations

import random
from typing import Callable

from .analysis import SearchAborted, Solver
from .cards import Seat
from .deal import Deal
from .position import Position
from .rules import PRESETS, Rules

# full deals' seats whose guarantee takes 0.1-1 s (many others take far longer)
FULL_DEALS = ((1000, "N"), (1000, "S"), (1001, "N"), (1003, "E"), (1003, "S"), (1006, "N"),
              (1006, "W"), (1008, "N"), (1012, "N"), (1013, "N"), (1021, "N"), (1023, "E"))
NODE_LIMIT = 20_000_000  # a deal harder than thought is cut short, not waited for


def main() -> tuple[int, int]:
    """(questions answered, questions cut short by the node limit)."""
    done = [0, 0]

    def _ask(question: Callable[[], object]) -> None:
        try:
            question()
            done[0] += 1
        except SearchAborted:
            done[1] += 1

    rng = random.Random("hearts-dd training")
    standard = Rules.parse("standard")
    solver = Solver(node_limit=NODE_LIMIT)
    for seed, seat in FULL_DEALS:
        _ask(lambda: solver.guarantee(Position.start(Deal.random(seed), standard), seat))
    for seed in (1000, 1001, 1003, 1006):
        p = Position.start(Deal.random(seed), standard).random_play(rng, 4 * 5)
        _ask(lambda: solver.analyze(p))
    for name in sorted(PRESETS.keys() - {"bridge"}):
        rules = Rules.parse(name)
        for seed in range(2000, 2012):
            p = Position.start(Deal.random(seed), rules).random_play(rng, 4 * 8)
            _ask(lambda: solver.analyze(p))
    bridge = Rules.parse("bridge")
    for seed in range(3000, 3008):
        starts = [(Position.start(Deal.random(seed), bridge, leader=s), s) for s in Seat]
        _ask(lambda: solver.guarantees(starts))
    return done[0], done[1]


if __name__ == "__main__":
    main()
