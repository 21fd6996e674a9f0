"""Our notrump-bridge mode (SPEC §2) against DDS on the same deals, in the same run (issue 5).

Each measured solve starts from an empty table on both sides, with memory set up before the
timings: a prepared solver, cleared, for ours (see conftest), ``forget`` for DDS.
Our answers are checked against DDS's on every deal that finishes in time.
"""
from __future__ import annotations

import pytest

pytest.importorskip("endplay", reason="DDS comes with endplay: pip install '.[bench]'")

from solver.analysis import Solver  # noqa: E402
from solver.cards import Seat  # noqa: E402
from solver.deal import Deal  # noqa: E402
from solver.position import Position  # noqa: E402

from . import dds_oracle  # noqa: E402
from .seeded_deals import BRIDGE, bridge_start  # noqa: E402
from .summary import BRIDGE_FOUR, BRIDGE_ONE, DDS_FOUR, DDS_ONE  # noqa: E402

RULES = BRIDGE  # the rules the ``solver`` fixture prepares for


@pytest.fixture(scope="module", autouse=True)
def dds_ready() -> None:
    dds_oracle.warm_up()


def test_dds_one_leader(measure, seed: int) -> None:
    deal = Deal.random(seed)
    dds_oracle.forget()
    measure(DDS_ONE, lambda: dds_oracle.leader_side_tricks(deal, Seat.N))


def test_dds_four_leaders(measure, seed: int) -> None:
    deal = Deal.random(seed)
    dds_oracle.forget()
    tricks = measure(DDS_FOUR, lambda: dds_oracle.four_leaders_tricks(deal))
    assert tricks[Seat.N] == dds_oracle.leader_side_tricks(deal, Seat.N)


def test_bridge_one_leader(measure, solver: Solver, seed: int) -> None:
    p = bridge_start(seed, Seat.N)
    tricks = measure(BRIDGE_ONE, lambda: -solver.guarantee(p, Seat.N))
    if tricks is not None:
        assert tricks == dds_oracle.leader_side_tricks(Deal.random(seed), Seat.N)


def test_bridge_four_leaders(measure, solver: Solver, seed: int) -> None:
    positions = {leader: bridge_start(seed, leader) for leader in Seat}
    tricks = measure(BRIDGE_FOUR, lambda: our_four_leaders_tricks(solver, positions))
    if tricks is not None:
        assert tricks == dds_oracle.four_leaders_tricks(Deal.random(seed))


def our_four_leaders_tricks(solver: Solver, positions: dict[Seat, Position]) -> dict[Seat, int]:
    """The leader's side's tricks from each leader's starting position: one call for the four,
    which the solver answers in parallel on its threads over one table (as it answers a Hearts
    deal's four seats); its time limit covers the call."""
    leaders = list(positions)
    tricks = solver.guarantees([(positions[leader], leader) for leader in leaders])
    return {leader: -g for leader, g in zip(leaders, tricks)}
