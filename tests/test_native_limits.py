"""The compiled engine at the edges of what the rules allow: arithmetic that must not overflow
(undefined in C, and wrong where it wraps) whatever card values a rule set gives."""
from __future__ import annotations

import random

import pytest

from solver.analysis import Solver
from solver.cards import Card
from solver.deal import Deal
from solver.position import Position
from solver.rules import Rules


def queen_and_two_hearts(q: int) -> Rules:
    """SQ worth ``q``, HA half of it and HK a quarter, the other hearts nothing."""
    values = {str(Card.from_index(16 + rank)): 0 for rank in range(13)}
    values.update({"SQ": q, "HA": q // 2, "HK": q // 4})
    return Rules.parse({"values": values})


@pytest.mark.parametrize("seed", range(12))
def test_large_card_values_order_the_moves_as_smaller_ones(seed: int) -> None:
    """Rules allow a card worth 1000. The move order weighs a dump by 64 times its value, in
    16-bit tiers of an int: from a value of about 355 the weight overflowed (wrapped with
    -fwrapv), and the costliest dumps went last instead of first. With every value scaled up,
    far above the ordering's other terms either way, the search must be the same node for
    node: SQ 1000 took 4170 nodes against 455 for SQ 300 (seed 3), the answers the same."""
    counts = []
    for q in (300, 1000):
        p = Position.start(Deal.random(seed), queen_and_two_hearts(q))
        p = p.random_play(random.Random(seed), 28)
        solver = Solver(table_mb=16)
        counts.append((solver.guarantee(p, "N") * 1000 // q, solver.nodes))
    assert counts[0] == counts[1]
