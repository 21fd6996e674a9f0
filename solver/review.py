"""Review of a recorded play: what each card cost, when a moon was lost, who shot the moon or
the foot.

A recorded play (``solver.pbn.RecordedPlay``) gives each trick's cards by seat; ``replay``
recovers the order they were played in (the winner of a trick, under the rules in force,
leads the next) and stops at the first illegal or missing card. ``review`` then asks the
solver about every position of the play:

- **cost** of a card: the mover's guarantee after it minus the best guarantee the mover had
  before it (0 for a best card; a card's cost is in the mover's own score points), with the
  cards that kept the best;
- **moon timeline** per seat: where a moon was forceable (SPEC §3 ``moon_possible``), the last
  position at which it still was, and the card that lost it; the runs of positions where it
  was forceable, with the card that handed each over and the card that lost it. Only the
  side's own cards can lose a forceable moon and only the others' cards can hand one back,
  which keeps the number of searches low;
- **shot the moon**: after a complete play under rules with a moon, the side that took every
  point card;
- **shot the foot**: after a complete play under rules with a moon, a side that took every
  point card but a few: it missed at least one point, and at most ``FOOT_MARGIN`` points' worth
  and a quarter of the moon total (so no moon but nearly all the points: 23 to 25 of 26 in
  standard Hearts).

>>> from solver.deal import Deal
>>> from solver.analysis import Solver
>>> from solver.pbn import RecordedPlay
>>> deal = Deal.parse("N:A.K.. K.A.. .Q.3. ..2.2")
>>> start = Position.start(deal)
>>> cards = [[Card.parse(c) for c in trick.split()] for trick in ("C2 SA SK D3", "D2 HK HA HQ")]
>>> r = replay(start, RecordedPlay(Seat.W, tuple(tuple(t) for t in cards)))
>>> " ".join(str(c) for c in r.cards), r.error
('C2 SA SK D3 D2 HK HA HQ', None)
>>> rv = review(Solver(table_mb=1), start, r.cards)
>>> [(str(c.card), c.cost) for c in rv.cards if c.cost]
[]
>>> rv.scores[Seat.W], rv.scores[Seat.E], rv.moon[Seat.W].at_start, rv.shot_the_moon, rv.shot_the_foot
(0, 3, True, (<Seat.W: 3>,), ())
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Sequence

from .analysis import Budget, Solver
from .cards import Card, Seat
from .deal import Deal
from .errors import HeartsError, LeaderNeeded, PlayError
from .pbn import RecordedPlay
from .position import Position, play_states
from .results import Analysis
from .rules import Rules

__all__ = ["FOOT_MARGIN", "Budget", "Replay", "CardCost", "MoonLine", "Review", "start_position",
           "replay", "review", "shot_the_moon"]

#: "Shot the foot": a side missed at most this many points' worth of the point cards.
FOOT_MARGIN = 3


def start_position(deal: Deal, rules: Rules, leader: Seat | None = None,
                   play_seat: Seat | None = None) -> Position:
    """The position before the first card. The leader of trick 1 is the given one, else the
    one the rules fix (holder of the lowest club), else the first player of the recorded play."""
    if leader is not None:
        return Position.start(deal, rules, leader)
    try:
        return Position.start(deal, rules)
    except LeaderNeeded:
        if play_seat is None:
            raise PlayError('nobody is to lead trick 1: give the leader with [HeartsLeader "SEAT"] '
                            'or a [Play "SEAT"] section') from None
        return Position.start(deal, rules, play_seat)


@dataclass(frozen=True)
class Replay:
    """The recorded cards in play order, as far as they are legal and known."""

    start: Position
    cards: tuple[Card, ...]
    error: str | None = None
    trick: int = 0          # the trick the error is in

    @property
    def end(self) -> Position:
        return self.start.play_all(self.cards)


def replay(start: Position, recorded: RecordedPlay) -> Replay:
    """Play order from the recorded columns; stops with an error naming card and trick."""
    _expect("replay", start, Position, "a Position")
    _expect("replay", recorded, RecordedPlay, "a RecordedPlay")
    pos = start
    cards: list[Card] = []
    stopped = False
    if recorded.tricks and recorded.seat != start.to_move and any(
            isinstance(s, Card) for s in recorded.tricks[0]):
        why = f" (holds {start.forced_lead})" if start.forced_lead is not None else ""
        return Replay(start, (), f"trick 1: the play starts with {recorded.seat}, but "
                                 f"{start.to_move} leads{why}", 1)
    for number, row in enumerate(recorded.tricks, 1):
        if stopped or pos.is_over:
            late = next((s for s in row if isinstance(s, Card)), None)
            if late is not None:
                why = "the hand is over" if pos.is_over and not stopped else "a card is missing before it"
                return Replay(start, tuple(cards), f"trick {number}: {late} is recorded, but {why}",
                              number)
            continue
        leader = pos.to_move
        assert leader is not None
        missing = None
        for k in range(4):
            seat = leader.next(k)
            slot = row[(seat - recorded.seat) % 4]
            if not isinstance(slot, Card):
                stopped = True
                missing = missing or seat
                continue
            if stopped:
                return Replay(start, tuple(cards), f"trick {number}: {seat}'s {slot} is recorded, "
                                                   f"but {missing}'s card before it is missing", number)
            try:
                pos = pos.play(slot)
            except PlayError as e:
                return Replay(start, tuple(cards), str(e), number)
            cards.append(slot)
    return Replay(start, tuple(cards))


@dataclass(frozen=True)
class CardCost:
    trick: int
    seat: Seat
    card: Card
    guarantee: int   # the mover's guarantee after the card
    best: int        # the best guarantee the mover could have kept
    best_cards: tuple[Card, ...] = ()   # the cards that kept it

    @property
    def cost(self) -> int:
        return self.guarantee - self.best

    def to_json(self) -> dict[str, Any]:
        return {"trick": self.trick, "seat": str(self.seat), "card": str(self.card),
                "guarantee": self.guarantee, "best": self.best, "cost": self.cost,
                "best_cards": [str(c) for c in self.best_cards]}


@dataclass(frozen=True)
class MoonLine:
    """When one seat (its side) could force a moon. Positions are counted in cards played:
    0 is before the first card, ``len(cards)`` after the last one."""

    forceable: tuple[bool, ...]          # at each position
    cards: tuple[Card, ...]
    start: Position

    @property
    def at_start(self) -> bool:
        return self.forceable[0]

    @property
    def at_end(self) -> bool:
        return self.forceable[-1]

    @property
    def last_forceable(self) -> int | None:
        """The last position at which the moon was still forceable."""
        return max((k for k, f in enumerate(self.forceable) if f), default=None)

    @property
    def lost_with(self) -> tuple[int, Seat, Card] | None:
        """(trick, seat, card) of the card that lost the moon for good, if it was lost."""
        k = self.last_forceable
        return None if k is None or k == len(self.cards) else self._card(k)

    def segments(self) -> list[tuple[int, int]]:
        """Runs of positions ``(first, last)`` at which the moon was forceable."""
        runs: list[tuple[int, int]] = []
        for k, f in enumerate(self.forceable):
            if f and runs and runs[-1][1] == k - 1:
                runs[-1] = (runs[-1][0], k)
            elif f:
                runs.append((k, k))
        return runs

    def _card(self, k: int) -> tuple[int, Seat, Card]:
        return self._played[k]

    @cached_property
    def _played(self) -> list[tuple[int, Seat, Card]]:
        return played_by(self.start, self.cards)

    def to_json(self) -> dict[str, Any]:
        def card(k: int) -> dict[str, Any]:
            trick, seat, c = self._card(k)
            return {"trick": trick, "seat": str(seat), "card": str(c)}

        lost = self.lost_with
        return {"at_start": self.at_start, "at_end": self.at_end,
                "last_forceable": self.last_forceable,
                "lost_with": None if lost is None else card(self.last_forceable),  # type: ignore[arg-type]
                "segments": [{"from": a, "to": b,
                              "given_by": card(a - 1) if a > 0 else None,
                              "lost_with": card(b) if b < len(self.cards) else None}
                             for a, b in self.segments()]}


@dataclass(frozen=True)
class Review:
    cards: tuple[CardCost, ...]          # empty when only the moon was asked about
    moon: dict[Seat, MoonLine]
    scores: dict[Seat, int] | None       # hand scores, when the play is complete
    shot_the_foot: tuple[Seat, ...] | None
    shot_the_moon: tuple[Seat, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        def seats(found: tuple[Seat, ...] | None) -> list[str] | None:
            return None if found is None else [str(s) for s in found]

        return {
            "cards": [c.to_json() for c in self.cards],
            "moon": {str(s): line.to_json() for s, line in self.moon.items()},
            "complete": self.scores is not None,
            "scores": None if self.scores is None else {str(s): v for s, v in self.scores.items()},
            "shot_the_moon": seats(self.shot_the_moon),
            "shot_the_foot": seats(self.shot_the_foot),
        }

    def moon_report(self) -> dict[str, Any]:
        """``POST /moon``'s answer for a play reviewed from the start of play: every seat's
        moon at the start and after each card, and the card after which it was lost for good
        (``MoonLine.lost_with``, with its index in the play)."""
        line = self.moon[Seat.N]            # (every seat's has the same start and cards)
        start = line.start
        steps = [{"index": k, "trick": trick, "seat": str(seat), "card": str(card)}
                 for k, (trick, seat, card) in enumerate(line._played)]
        timeline = [{**step, "moon_possible": {str(s): self.moon[s].forceable[k + 1] for s in Seat}}
                    for k, step in enumerate(steps)]
        lost = {str(seat): None if moon.lost_with is None else steps[moon.last_forceable or 0]
                for seat, moon in self.moon.items()}
        return {"deal": start.deal.pbn(), "play": " ".join(map(str, line.cards)),
                "rules": start.rules.to_dict(), "start": {str(s): self.moon[s].at_start for s in Seat},
                "timeline": timeline, "lost": lost}


def played_by(start: Position, cards: Sequence[Card]) -> list[tuple[int, Seat, Card]]:
    """(trick, seat, card) of each of ``cards``, a legal play from ``start``, from one pass
    over the play (a replay a card took time quadratic in its length)."""
    before = start.played
    states = play_states(start.rules, start.leader0, (*before, *cards))[len(before):]
    return [((len(before) + k) // 4 + 1, seat, c)
            for k, (c, (seat, _, _)) in enumerate(zip(cards, states))]


def review(budget: Budget | Solver, start: Position, cards: Sequence[Card | str],
           start_analysis: Analysis | None = None, costs: bool = True) -> Review:
    """Costs (unless ``costs`` is false), moon timelines and shot-the-foot for a legal play
    (cards, or their names).

    ``start_analysis`` (all seats, with moves) saves the first searches when the caller has it.
    Searches run under ``budget`` (a ``Budget``, or a bare solver for no time limit).
    """
    _expect("review", budget, (Budget, Solver), "a Solver or a Budget")
    _expect("review", start, Position, "a Position")
    if isinstance(budget, Solver):
        budget = Budget(budget)
    if isinstance(cards, str):      # "C2 CA C5 C4", as Position.play_all takes them
        cards = cards.split()
    played = [c if isinstance(c, Card) else Card.parse(c) for c in cards]
    positions = [start]
    for c in played:
        positions.append(positions[-1].play(c))
    sides = sorted({start.side(s) for s in Seat})
    flags: dict[int, list[bool]] = {}
    for side in sides:
        if start_analysis is not None and Seat(side) in start_analysis.players:
            flags[side] = [start_analysis.players[Seat(side)].moon_possible]
        else:
            flags[side] = [_moon(budget, start, side)]
    card_costs: list[CardCost] = []
    for k, card in enumerate(played):
        p, after = positions[k], positions[k + 1]
        mover = p.to_move
        assert mover is not None
        mover_side = p.side(mover)
        if costs:
            if k == 0 and start_analysis is not None and start_analysis.moves:
                a = start_analysis
            else:
                with budget as s:
                    a = s.analyze(p, seats=[mover])
            row = next(m for m in a.moves if m.card == card)
            best = tuple(m.card for m in a.moves if m.best) if not row.best else ()
            card_costs.append(CardCost(k // 4 + 1, mover, card, row.guarantee, a.players[mover].guarantee,
                                       best))
            mover_flag = row.moon_possible
        else:
            mover_flag = flags[mover_side][k] and _moon(budget, after, mover_side)
        for side in sides:
            if side == mover_side:
                flags[side].append(mover_flag)
            elif flags[side][k]:
                flags[side].append(True)     # the others' cards cannot take a forced moon away
            else:
                flags[side].append(_moon(budget, after, side))
    end = positions[-1]
    moon = {seat: MoonLine(tuple(flags[start.side(seat)]), tuple(played), start) for seat in Seat}
    if not end.is_over:
        return Review(tuple(card_costs), moon, None, None)
    scores = {seat: end.score(seat) for seat in Seat}
    return Review(tuple(card_costs), moon, scores, _shot_the_foot(end), shot_the_moon(end))


def _expect(call: str, value: object, kind: type | tuple[type, ...], what: str) -> None:
    """A wrong argument named, not an attribute missing deep inside."""
    if not isinstance(value, kind):
        raise HeartsError(f"{call}: expected {what}, got {type(value).__name__}")


def _moon(budget: Budget, p: Position, side: int) -> bool:
    """moon_possible for a side, without a search when the points taken already decide it."""
    if p.moon_state not in (0, side + 1):
        return False
    if p.is_over:
        return p.moon_state == side + 1
    with budget as s:
        return s.moon_possible(p, Seat(side))


def shot_the_moon(end: Position) -> tuple[Seat, ...]:
    """The seats (a side's both, with partnerships) that shot the moon in a hand that is over,
    under rules with a moon; none otherwise."""
    state = end.moon_state      # at the end: the side that took every point card, plus 1
    if end.rules.moon == "none" or end.moon_total <= 0 or state in (0, 7):
        return ()
    return tuple(sorted(end.side_seats(state - 1)))


def _shot_the_foot(end: Position) -> tuple[Seat, ...]:
    total = end.moon_total
    if total <= 0 or end.rules.moon == "none":
        return ()
    out: list[Seat] = []
    for side in sorted({end.side(s) for s in Seat}):
        points = end.rules.moon_total_of(end.taken_by(side))
        if 0 < total - points <= min(FOOT_MARGIN, total // 4):
            out.extend(end.side_seats(side))
    return tuple(sorted(out))
