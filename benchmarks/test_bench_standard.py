"""Full Hearts deals under standard rules (issue 2's measure, issue 5's targets): one seat's
guarantee, all four seats' answers, and every card's value at the start of trick 2."""
from __future__ import annotations

from solver.analysis import Solver
from solver.cards import Seat

from .seeded_deals import STANDARD, hearts_start, hearts_trick_two
from .summary import HEARTS_FOUR, HEARTS_ONE, HEARTS_TRICK2


def test_one_seat(measure, solver: Solver, seed: int) -> None:
    p = hearts_start(seed)
    guarantee = measure(HEARTS_ONE, lambda: solver.guarantee(p, Seat.N))
    assert guarantee is None or 0 <= guarantee <= p.moon_total


def test_four_seats(measure, solver: Solver, seed: int) -> None:
    p = hearts_start(seed)
    analysis = measure(HEARTS_FOUR, lambda: solver.analyze(p, moves=False))
    if analysis is not None:
        assert set(analysis.players) == set(Seat)
        # a moon one seat can force leaves every other seat the whole moon total
        for seat, r in analysis.players.items():
            if r.moon_possible:
                assert all(analysis.players[o].guarantee == p.moon_total for o in Seat if o != seat)


def test_trick_two_cards(measure, solver: Solver, seed: int) -> None:
    p = hearts_trick_two(seed)
    mover = p.to_move
    assert mover is not None
    analysis = measure(HEARTS_TRICK2, lambda: solver.analyze(p, seats=[mover]))
    if analysis is not None:
        assert {m.card for m in analysis.moves} == set(p.legal_moves())
        assert min(m.guarantee for m in analysis.moves) == analysis.players[mover].guarantee


def test_table_setup(benchmark) -> None:
    """What the per-deal timings leave out: allocating a solver's tables and having the system
    map them (``Solver.prepare``), paid once per process, or during its first solves."""
    benchmark.group = "solver set-up"
    benchmark.pedantic(lambda: Solver().prepare(STANDARD), rounds=3, iterations=1)
