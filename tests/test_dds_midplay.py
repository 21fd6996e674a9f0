"""Our notrump-bridge mode against DDS part-way through play: tricks already taken, a trick
in progress, and every legal card of the player to move (DDS's ``SolveBoard`` for all legal
cards), on seeded cut deals.

In bridge mode a side's guarantee is minus its tricks (SPEC §2), so for each card
``-guarantee(mover)`` after it must be the tricks the mover's side has taken plus those DDS
gives it from here on, and each seat's guarantee follows from the best card.
"""
from __future__ import annotations

import random

import pytest

pytest.importorskip("endplay", reason="DDS (the oracle) comes with endplay: pip install '.[test]'")

from endplay.dds import solve_board  # noqa: E402
from endplay.dds.solve import SolveMode  # noqa: E402

from benchmarks.dds_oracle import notrump_deal  # noqa: E402
from solver.analysis import Solver  # noqa: E402
from solver.cards import Seat  # noqa: E402
from solver.deal import Deal  # noqa: E402
from solver.position import Position  # noqa: E402
from solver.rules import Rules  # noqa: E402
from test_dds_random import cut  # noqa: E402

SEEDS = range(500)
BRIDGE = Rules.parse("bridge")


def position(seed: int) -> Position:
    """A cut deal of 4 to 7 tricks after 1 to 10 random cards: mid-trick 4 times in 5, and
    in a third of them the mover's cards differ in value."""
    rng = random.Random(f"dds midplay {seed}")
    deal = cut(Deal.random(seed), rng.randint(4, 7), seed)
    return Position.start(deal, BRIDGE, leader=Seat(seed % 4)).random_play(rng, rng.randint(1, 10))


def dds_future_tricks(pos: Position) -> dict[str, int]:
    """Each legal card of the player to move: the tricks DDS gives the mover's side from the
    current trick on (the cards played so far replayed into DDS's deal)."""
    d = notrump_deal(pos.deal, pos.leader0)
    for card in pos.played:
        d.play(str(card))
    return {"SHDC"[card.suit] + "23456789TJQKA"[card.rank.value.bit_length() - 3]: tricks
            for card, tricks in solve_board(d, SolveMode.Default)}


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{s}" for s in SEEDS])
def test_every_card_part_way_through_play_matches_dds(seed: int) -> None:
    pos = position(seed)
    mover = pos.to_move
    assert mover is not None
    ours = Solver(table_mb=16).analyze(pos)
    dds = dds_future_tricks(pos)
    taken = {side: -pos.raw_points(side) for side in (0, 1)}
    left = pos.cards_left // 4 + (1 if pos.trick else 0)
    mine = pos.side(mover)
    assert {str(m.card): -m.guarantee - taken[mine] for m in ours.moves} == dds, pos
    best = max(dds.values())
    for seat in Seat:
        side = pos.side(seat)
        future = best if side == mine else left - best
        assert -ours.players[seat].guarantee == taken[side] + future, (pos, seat)
