"""Deals a player cannot tell from the real one: the samples of a Monte-Carlo player.

A player sees its own hand and the cards played; the cards it has not seen could lie in any of
the other hands that the play allows. ``samples`` deals them out at random, each consistent
deal equally likely, and ``weigh_cards`` solves them double dummy and averages: which card is
best on what the player knows. S, to play to trick 6, weighs its three spades over ten deals:

>>> import random
>>> from solver.deal import Deal
>>> p = Position.start(Deal.random(7)).play_all("C2 CJ CQ CK S4 S2 S9 ST D6 D9 DJ D4 C8 C5 "
...                                             "C6 C3 C9 C7 SJ CA S3 C4")
>>> deals = samples(p, 10, seed=1)
>>> all(q.hands[Seat.S] == p.hands[Seat.S] and q.played == p.played for q in deals)
True
>>> [(str(w.card), w.mean, w.best_in) for w in weigh_cards(Solver(table_mb=16), p, 10, seed=1).cards]
[('SK', 20.8, 9), ('S7', 20.9, 8), ('SQ', 21.9, 7)]
"""
from __future__ import annotations

import numbers
import random
from dataclasses import dataclass
from functools import lru_cache
from math import factorial
from typing import Any, Callable, Iterable, Mapping

from .analysis import Solver
from .cards import Card, Seat, cards_of, mask_of
from .deal import Deal
from .errors import HeartsError, SampleError
from .position import Position, legal_cards, lowest_club

#: Draws that the replay of the play may refuse before ``samples`` gives up: the constraints
#: the play puts on the hands are worked out before drawing, so a refusal means they missed one
TRIES = 100


def samples(position: Position, count: int, seat: Seat | str | None = None,
            seed: int | random.Random | None = None,
            known: Mapping[Seat | str, str | Iterable[Card | str]] | None = None) -> list[Position]:
    """``count`` positions that ``seat`` (default: the player to move) cannot tell from
    ``position``: the same rules, leader and cards played, ``seat``'s own hand, and the cards it
    has not seen dealt at random to the others, with each deal that fits what ``seat`` has seen
    equally likely. What it has seen includes what the rules made the play show: a seat that
    did not follow suit holds none of it, one that led a heart before hearts were broken holds
    nothing else, one that gave points on the first trick had nothing else it could play.

    ``known`` adds cards ``seat`` knows another seat was dealt (the cards it passed to it, say,
    or a partner's hand): ``{"E": "SQ H2 H3"}``. ``seed`` makes the draw repeatable.
    """
    if not isinstance(position, Position):
        raise HeartsError(f"samples: expected a Position, got {type(position).__name__}")
    if isinstance(count, bool) or not isinstance(count, numbers.Integral) or count < 0:
        raise HeartsError(f"samples: count must be a whole number of deals, got {count!r}")
    observer = Seat.of(seat) if seat is not None else position.to_move
    if observer is None:
        raise SampleError("samples: the hand is over and no seat was given", "seat")
    rng = _random(seed)
    before = _before_each_card(position)
    players: list[Seat] = [q.to_move for q in before]  # (each is followed by a card)
    pinned = _known(position, players, observer, known or {})
    allowed = _allowed(position, before, players, observer, pinned)
    draw = _Drawer(allowed, [0 if s == observer else h.bit_count()
                             for s, h in zip(Seat, position.hands)])
    played = [mask_of(c for c, by in zip(position.played, players) if by == s) for s in Seat]
    out: list[Position] = []
    refused = 0
    while len(out) < int(count):
        hands = draw(rng)
        hands[observer] = position.hands[observer]
        deal = Deal(tuple(hands[s] | played[s] for s in Seat))
        try:
            out.append(Position(deal, position.rules, position.leader0, position.played))
        except HeartsError:
            refused += 1
            if refused > TRIES:
                raise SampleError(f"samples: no deal drawn for {observer} fits the play "
                                  f"({TRIES} tried)") from None
    return out


def _random(seed: object) -> random.Random:
    """The generator of the draws: ``seed`` itself, or one seeded with it (a whole number from
    0, numpy's too, or text), or from the system (None). (Random takes a negative seed as its
    opposite: refused, not drawn alike.)"""
    if isinstance(seed, random.Random):
        return seed
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and int(seed) >= 0:
        return random.Random(int(seed))
    if seed is None or isinstance(seed, (str, bytes)):
        return random.Random(seed)
    raise HeartsError(f"samples: seed must be a whole number from 0, got {seed!r:.40}")


def _before_each_card(position: Position) -> list[Position]:
    """The position before each card of ``position``'s play: who played it, and what the
    rules let it be."""
    out = [Position.start(position.deal, position.rules, position.leader0)]
    for c in position.played[:-1]:
        out.append(out[-1].play(c))
    return out if position.played else []


def _known(position: Position, players: list[Seat], observer: Seat,
           known: Mapping[Seat | str, str | Iterable[Card | str]]) -> dict[Seat, int]:
    """The cards ``known`` names, checked against what the observer sees."""
    if not isinstance(known, Mapping):
        raise SampleError(f"samples: known must map seats to cards, got {type(known).__name__}",
                          "known")
    out: dict[Seat, int] = {}
    for who, cards in known.items():
        try:
            s = Seat.of(who)
        except HeartsError as e:
            raise SampleError(f"samples: known: {e}", "known") from None
        try:
            if isinstance(cards, (bytes, bytearray)):
                raise TypeError
            tokens = cards.replace(",", " ").split() if isinstance(cards, str) else list(cards)
            mask = mask_of(c if isinstance(c, Card) else Card.parse(c) for c in tokens)
        except HeartsError as e:
            raise SampleError(f"samples: known {s}: {e}", "known") from None
        except TypeError:
            raise SampleError(f"samples: known {s}: expected cards, got {cards!r:.40}",
                              "known") from None
        for c in cards_of(mask):
            twice = [t for t, m in out.items() if m & c.mask and t != s]
            if twice:
                raise SampleError(f"samples: known card {c} given for both {twice[0]} and {s}",
                                  "known")
            holder = position.deal.holder(c)
            if holder is None:
                raise SampleError(f"samples: known card {c} of {s} is not in the deal", "known")
            if (s == observer) != (holder == observer):
                raise SampleError(f"samples: known card {c} of {s} is " + (
                    f"not in {s}'s hand" if s == observer else f"in {observer}'s own hand"), "known")
            by = players[position.played.index(c)] if c in position.played else s
            if by != s:
                raise SampleError(f"samples: known card {c} of {s} was played by {by}", "known")
        out[s] = out.get(s, 0) | mask
    return out


def _allowed(position: Position, before: list[Position], players: list[Seat], observer: Seat,
             known: dict[Seat, int]) -> list[int]:
    """For each seat, the cards not yet seen that it may hold: the observer none, the others
    those the play does not rule out (each card they played was legal with it in hand, and
    none of the cards known to be another's)."""
    unseen = 0
    for s in Seat:
        if s != observer:
            unseen |= position.hands[s]
    allowed = [0 if s == observer else unseen for s in Seat]
    later = [0, 0, 0, 0]     # each seat's cards played from the card in question on
    for c, s in zip(position.played, players):
        later[s] |= c.mask
    for c, s, q in zip(position.played, players, before):
        if s != observer:
            for u in cards_of(allowed[s]):
                if not c.mask & legal_cards(q.rules, later[s] | u.mask, q.trick, q.first_trick,
                                            q.broken, q.forced_lead):
                    allowed[s] &= ~u.mask
        later[s] &= ~c.mask
    low = lowest_club(position.deal)      # (the same card in every sample: the cards are)
    if position.rules.first_lead == "C2" and low is not None and unseen & low.mask:
        elsewhere = [s for s, mask in known.items() if mask & low.mask and s != position.leader0]
        if elsewhere:
            raise SampleError(f"samples: known card {low} of {elsewhere[0]}: {low} leads the "
                              f"first trick, so {position.leader0} holds it", "known")
        known = {**known, position.leader0: known.get(position.leader0, 0) | low.mask}
    for s, mask in known.items():
        for t in Seat:
            if t != s:
                allowed[t] &= ~mask
        if s != observer and mask & unseen & ~allowed[s]:
            c = next(cards_of(mask & unseen & ~allowed[s]))
            raise SampleError(f"samples: known card {c} of {s} does not fit the play", "known")
    return allowed


class _Drawer:
    """Uniform draws of the unseen cards into hands of given sizes, each card to a seat that
    may hold it: the cards fall into groups by the seats that may hold them, and a count of
    the ways to deal each group's split and the groups after it weighs every split."""

    def __init__(self, allowed: list[int], sizes: list[int]) -> None:
        groups: dict[tuple[Seat, ...], int] = {}
        for c in cards_of(allowed[0] | allowed[1] | allowed[2] | allowed[3]):
            who = tuple(s for s in Seat if allowed[s] >> c & 1)
            groups[who] = groups.get(who, 0) | c.mask
        self.groups = list(groups.items())
        self.sizes = tuple(sizes)
        self.ways = lru_cache(maxsize=None)(self._ways)
        if self.ways(0, self.sizes) == 0:
            raise SampleError("samples: no deal fits what was seen and known", "known")

    def _splits(self, k: int, room: tuple[int, ...]) -> Iterable[tuple[tuple[int, ...], int]]:
        """Each way to share group ``k`` among its seats within ``room``, with the number of
        ways to pick its cards for that split."""
        seats, mask = self.groups[k]
        n = mask.bit_count()

        def shares(i: int, left: int) -> Iterable[tuple[int, ...]]:
            if i == len(seats) - 1:
                if left <= room[seats[i]]:
                    yield (left,)
                return
            for a in range(min(left, room[seats[i]]) + 1):
                for rest in shares(i + 1, left - a):
                    yield (a, *rest)

        for split in shares(0, n):
            ways = factorial(n)
            for a in split:
                ways //= factorial(a)
            yield split, ways

    def _after(self, k: int, room: tuple[int, ...], split: tuple[int, ...]) -> tuple[int, ...]:
        seats = self.groups[k][0]
        left = list(room)
        for s, a in zip(seats, split):
            left[s] -= a
        return tuple(left)

    def _ways(self, k: int, room: tuple[int, ...]) -> int:
        """Deals of groups ``k`` on into hands with ``room`` cards to fill."""
        if k == len(self.groups):
            return 1 if not any(room) else 0
        return sum(ways * self.ways(k + 1, self._after(k, room, split))
                   for split, ways in self._splits(k, room))

    def __call__(self, rng: random.Random) -> list[int]:
        hands = [0, 0, 0, 0]
        room = self.sizes
        for k, (seats, mask) in enumerate(self.groups):
            pick = rng.randrange(self.ways(k, room))
            for split, ways in self._splits(k, room):
                after = self._after(k, room, split)
                weight = ways * self.ways(k + 1, after)
                if pick < weight:
                    break
                pick -= weight
            cards = list(cards_of(mask))
            rng.shuffle(cards)
            for s, a in zip(seats, split):
                hands[s] |= mask_of(cards[:a])
                cards = cards[a:]
            room = after
        return hands


@dataclass(frozen=True)
class CardWeight:
    """One card of the player to move over sampled deals: its guarantee on average over the
    deals answered, and in how many of them it was a best card (no card's guarantee lower:
    cards that tie there all count)."""

    card: Card
    mean: float
    best_in: int


@dataclass(frozen=True)
class Weighing:
    seat: Seat
    drawn: int                  # deals drawn
    answered: int               # of them, analysed within the solver's limits
    cards: list[CardWeight]     # lowest mean first

    def to_json(self) -> dict[str, Any]:
        return {"seat": str(self.seat), "samples": self.drawn, "answered": self.answered,
                "cards": [{"card": str(w.card), "mean_guarantee": round(w.mean, 3),
                           "best_in": w.best_in} for w in self.cards]}


def weigh_cards(solver: Solver, position: Position, count: int,
                seed: int | random.Random | None = None,
                known: Mapping[Seat | str, str | Iterable[Card | str]] | None = None,
                share: float = 0.2, done: Callable[[], None] | None = None) -> Weighing:
    """The cards of the player to move weighed over ``count`` deals it cannot tell from
    ``position`` (``samples``): what a Monte-Carlo player would choose on what it has seen,
    where the double-dummy answer uses every card. Deals the solver's limits cut short are
    left out (``share`` of a time limit as for ``Solver.analyses``; ``done()``, if given, is
    called as each deal is answered, for a progress display)."""
    if not isinstance(solver, Solver):
        raise HeartsError(f"weigh_cards: expected a Solver, got {type(solver).__name__}")
    if not isinstance(position, Position):
        raise HeartsError(f"weigh_cards: expected a Position, got {type(position).__name__}")
    seat = position.to_move
    if seat is None:
        raise HeartsError("weigh_cards: the hand is over: no card to weigh")
    if done is not None and not callable(done):
        raise HeartsError(f"weigh_cards: done: expected a function, got {type(done).__name__}")
    deals = samples(position, count, seat, seed, known)

    def tick(i: int, answer: Any) -> None:
        if done is not None:
            done()

    answers = [a for a in solver.analyses([(q, [seat]) for q in deals], partial=True, share=share,
                                          done=tick) if a is not None]
    total: dict[Card, int] = {}
    best: dict[Card, int] = {}
    for a in answers:
        for m in a.moves:
            total[m.card] = total.get(m.card, 0) + m.guarantee
            best[m.card] = best.get(m.card, 0) + m.best
    weights = [CardWeight(c, total[c] / len(answers), best[c]) for c in total]
    return Weighing(seat, len(deals), len(answers),
                    sorted(weights, key=lambda w: (w.mean, -w.best_in)))
