"""DDS (Bo Haglund's bridge double-dummy solver, bundled in ``endplay``) asked our questions.

Our notrump-bridge mode (SPEC §2) answers "how many tricks does the leader's side take";
these wrappers ask DDS exactly that, so answers can be checked and times compared deal by deal.

DDS keeps its transposition table while it is asked about the same deal again (another
leader, or the same one): a second question about a deal is almost free. ``forget`` makes the
next question start cold, as every one of our measured solves does.
"""
from __future__ import annotations

import random
import time

from endplay.dds import calc_all_tables, solve_board
from endplay.dds.solve import SolveMode
from endplay.types import Deal as DDSDeal, Denom, Player

from solver.cards import Seat
from solver.deal import Deal

_UNRELATED = Deal.parse("N:A... K... Q... J...")


def notrump_deal(deal: Deal, leader: Seat) -> DDSDeal:
    """The deal as DDS sees it: notrump, ``leader`` on lead to the first trick."""
    d = DDSDeal(deal.pbn())
    d.first = Player(int(leader))  # both number the seats N E S W = 0..3
    d.trump = Denom.nt
    return d


def leader_side_tricks(deal: Deal, leader: Seat) -> int:
    """Tricks the leader's side takes with best play (one ``SolveBoard``, best card only).

    Works for deals of any hand size.
    """
    return max(score for _card, score in solve_board(notrump_deal(deal, leader), SolveMode.OptimalOne))


def leader_side_nodes(deal: Deal, leader: Seat) -> tuple[int, float]:
    """DDS's node count for ``leader_side_tricks`` from an empty table, the positions at trick
    boundaries it reached (``futureTricks.nodes``, which endplay keeps in ``_data``), and the
    solve's CPU seconds."""
    forget()
    d = notrump_deal(deal, leader)
    start = time.process_time()
    solved = solve_board(d, SolveMode.OptimalOne)
    return solved._data.nodes, time.process_time() - start


def four_leaders_tricks(deal: Deal) -> dict[Seat, int]:
    """Tricks the leader's side takes, for each of the four leaders (full deals only).

    One ``CalcAllTables`` call restricted to notrump: DDS solves the four leaders of a deal
    as one job, reusing its table from one to the next. Its table is by declarer (declarer's
    left-hand opponent leads), so leader L's side takes 13 minus what the declarer on L's
    right takes.
    """
    if deal.hand_size != 13:
        raise ValueError(f"DDS tables need 13-card hands, the deal has {deal.hand_size}")
    table = calc_all_tables([notrump_deal(deal, Seat.N)], exclude=Denom.suits())[0]
    return {leader: 13 - table[Denom.nt, Player(int(leader.next(3)))] for leader in Seat}


def forget() -> None:
    """Make DDS's next question start from an empty table (by solving an unrelated tiny deal)."""
    leader_side_tricks(_UNRELATED, Seat.N)


def warm_up() -> None:
    """DDS allocates its threads and memory on first use; keep that out of the timings."""
    four_leaders_tricks(Deal.random(random.Random("warm-up")))  # no benchmark seed draws it
    forget()
