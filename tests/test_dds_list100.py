"""Bridge double-dummy results as an oracle for the `bridge` preset (SPEC §2).

tests/data/list100.txt is the DDS test file: per deal a `PBN dealer vul trump first "deal"`
line, a `TABLE` line (tricks for strains S,H,D,C,NT × declarers N,E,S,W; a declarer's left-hand
opponent leads), and for most deals a `PLAY` line (cards of an actual play) with its `TRACE`
(the declarer side's double-dummy total after each card, in the deal's own strain).

With the `bridge` preset, -guarantee(N) is the number of tricks N+S take. Checked here:
- full deals, all four leaders, against the NT column of TABLE: all 100 (about 7 s), or the
  first HEARTS_DD_DDS_DEALS of them;
- cheap truncations: the notrump deals' PLAY lines cut with 4 to 8 tricks to go, against TRACE;
- with endplay installed, random notrump endgames against DDS itself, card by card.
"""
from __future__ import annotations

import os
import random
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from endgames import random_endgame
from solver.analysis import Solver
from solver.cards import Card, Seat
from solver.deal import Deal
from solver.position import Position
from solver.rules import Rules

DATA = Path(__file__).parent / "data" / "list100.txt"
BRIDGE = Rules.parse("bridge")
NOTRUMP = 4


@dataclass(frozen=True)
class DdsRecord:
    index: int
    deal: Deal
    trump: int               # 0..3 = S H D C, 4 = notrump
    first: Seat              # who led the PLAY line
    table: tuple[int, ...]   # 20 entries: strain-major S,H,D,C,NT, declarers N,E,S,W
    play: tuple[str, ...]
    trace: tuple[int, ...]   # declarer side's total tricks after 0, 1, 2 ... cards

    def notrump_ns_tricks(self, leader: Seat) -> int:
        """Tricks N+S take in notrump with ``leader`` on lead (declarer is leader's right)."""
        declarer = leader.next(3)
        tricks = self.table[4 * NOTRUMP + declarer]
        return tricks if declarer in (Seat.N, Seat.S) else 13 - tricks

    def traced_ns_tricks(self, cards_played: int) -> int:
        declarer = self.first.next(3)
        tricks = self.trace[cards_played]
        return tricks if declarer in (Seat.N, Seat.S) else 13 - tricks


def read_list100(path: Path = DATA) -> list[DdsRecord]:
    records: list[DdsRecord] = []
    fields: dict[str, list[str]] = {}

    def flush() -> None:
        if not fields:
            return
        dealer, vul, trump, first, deal = fields["PBN"]
        play = fields.get("PLAY", ["0", ""])[1]
        records.append(DdsRecord(
            index=len(records), deal=Deal.parse(deal), trump=int(trump), first=Seat(int(first)),
            table=tuple(int(x) for x in fields["TABLE"]),
            play=tuple(play[i:i + 2] for i in range(0, len(play), 2)),
            trace=tuple(int(x) for x in fields.get("TRACE", ["0"])[1:])))
        fields.clear()

    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        key, *rest = re.findall(r'"[^"]*"|\S+', line)
        values = [v.strip('"') for v in rest]
        if key == "PBN":
            flush()
        if key in ("PBN", "TABLE", "PLAY", "TRACE"):
            fields[key] = values
    flush()
    return records


RECORDS = read_list100()


def deals_to_run() -> int:
    """HEARTS_DD_DDS_DEALS: how many of the 100 full deals to solve (default "all")."""
    text = os.environ.get("HEARTS_DD_DDS_DEALS", "").strip().lower() or "all"
    if text == "all":
        return len(RECORDS)
    if not text.isdigit() or int(text) > len(RECORDS):
        raise pytest.UsageError(f"HEARTS_DD_DDS_DEALS={text!r}: expected 0 to {len(RECORDS)} or 'all'")
    return int(text)


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver()


def test_the_file_reads_as_100_deals_with_consistent_traces() -> None:
    assert len(RECORDS) == 100
    for r in RECORDS:
        assert len(r.table) == 20 and len(r.trace) == min(len(r.play) + 1, 49), r.index
        if r.trump == NOTRUMP and r.trace:  # before any card, the trace is the table's entry
            assert r.traced_ns_tricks(0) == r.notrump_ns_tricks(r.first), r.index


FULL = [(r.index, leader) for r in RECORDS[:deals_to_run()] for leader in Seat]


@pytest.mark.parametrize("index, leader", FULL, ids=[f"deal{i + 1}-{s}" for i, s in FULL])
def test_full_deal_matches_dds_table(solver: Solver, index: int, leader: Seat) -> None:
    record = RECORDS[index]
    pos = Position.start(record.deal, BRIDGE, leader)
    assert -solver.guarantee(pos, Seat.N) == record.notrump_ns_tricks(leader), record.deal.pbn()


TRUNCATED = [(r.index, cards) for r in RECORDS if r.trump == NOTRUMP
             for cards in (20, 24, 28, 30, 32, 36) if cards < len(r.trace)]


@pytest.mark.parametrize("index, cards", TRUNCATED, ids=[f"deal{i + 1}-after{c}" for i, c in TRUNCATED])
def test_truncated_play_matches_dds_trace(solver: Solver, index: int, cards: int) -> None:
    """The notrump deals' own play, cut with 4 to 8 tricks to go: N+S's total is the trace's."""
    record = RECORDS[index]
    pos = Position.from_play(record.deal, BRIDGE, record.play[:cards], record.first)
    answer = solver.analyze(pos)
    ns = record.traced_ns_tricks(cards)
    where = f"{record.deal.pbn()} after {' '.join(record.play[:cards])}"
    assert -answer.players[Seat.N].guarantee == ns, where
    assert -answer.players[Seat.E].guarantee == 13 - ns, where


def test_truncations_cover_enough_deals() -> None:
    assert len({i for i, _ in TRUNCATED}) >= 20


# -- endplay's DDS on random notrump endgames -----------------------------------------------------

def dds_card_values(pos: Position) -> dict[Card, int]:
    """Each legal card of the player to move with the tricks its side then takes from the
    current trick on, by DDS (endplay's solve_board on the remaining cards)."""
    endplay_types = pytest.importorskip("endplay.types", reason="endplay (DDS) is not installed")
    endplay_dds = pytest.importorskip("endplay.dds", reason="endplay (DDS) is not installed")
    hands = list(pos.hands)
    seat = pos.leader
    for card in pos.trick:  # put the current trick back into the hands it came from
        hands[seat] |= card.mask
        seat = seat.next()
    board = endplay_types.Deal(Deal(tuple(hands)).pbn(), first=endplay_types.Player(int(pos.leader)),
                               trump=endplay_types.Denom.nt)
    for card in pos.trick:
        board.play(endplay_types.Card(str(card)))
    return {Card.parse(str(card)): tricks for card, tricks in endplay_dds.solve_board(board)}


def tricks_taken(pos: Position, seat: Seat) -> int:
    return pos.tricks_won[seat] + pos.tricks_won[seat.partner]


def test_random_notrump_endgames_match_endplay(solver: Solver) -> None:
    rng = random.Random("dds-endgames")
    for _ in range(150):
        scenario = random_endgame({"preset": "bridge"}, rng, rng.randint(17, 28))
        assert scenario is not None
        pos = Position.from_play(scenario.deal, BRIDGE, scenario.play_text, scenario.leader)
        mover = pos.to_move
        assert mover is not None
        dds = dds_card_values(pos)
        answer = solver.analyze(pos)
        where = str(scenario)
        ours = {m.card: -m.guarantee - tricks_taken(pos, mover) for m in answer.moves}
        assert ours == dds, where
        assert -answer.players[mover].guarantee == tricks_taken(pos, mover) + max(dds.values()), where
