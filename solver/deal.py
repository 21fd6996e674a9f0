"""Deals: the four hands when play starts, read and written as PBN deal strings.

>>> d = Deal.parse("N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4")
>>> str(d.holder(Card.parse("C2")))
'N'
>>> Deal.parse(d.pbn(Seat.E)) == d
True
"""
from __future__ import annotations

import numbers
import random as _random
from dataclasses import dataclass

from .cards import DECK, FULL_SUIT, RANKS, SUITS, Card, Seat, SeatLike, ascii_upper, cards_of
from .errors import CardError, DealError


@dataclass(frozen=True)
class Deal:
    """Four hands as card masks, indexed by ``Seat``."""

    hands: tuple[int, int, int, int]

    def __post_init__(self) -> None:
        hands = tuple(self.hands) if isinstance(self.hands, (tuple, list)) else ()
        if len(hands) != 4 or not all(isinstance(h, int) and not isinstance(h, bool) for h in hands):
            raise DealError(f"a deal is four card masks, got {self.hands!r:.60}")
        for seat, hand in zip(Seat, hands):
            if hand & ~DECK or hand < 0:
                raise DealError(f"{seat}'s hand {hand:#x} holds bits that are no card")
        object.__setattr__(self, "hands", hands)   # a list given: a tuple kept, so deals hash
        seen = 0
        for seat, hand in zip(Seat, self.hands):
            dup = seen & hand
            if dup:
                card = next(cards_of(dup))
                raise DealError(f"card {card} appears twice (again in {seat}'s hand)")
            seen |= hand
        sizes = {bin(h).count("1") for h in self.hands}
        if len(sizes) != 1:
            counts = ", ".join(f"{s}={bin(h).count('1')}" for s, h in zip(Seat, self.hands))
            raise DealError(f"hands must hold the same number of cards ({counts})")
        if sizes == {0}:
            raise DealError("deal has no cards")

    @classmethod
    def _unchecked(cls, hands: tuple[int, int, int, int]) -> "Deal":
        """A deal of hands known to be one (disjoint cards, as many in each hand), made without
        the checks: the samples of a Monte-Carlo player, whose checks took a fifth of a draw."""
        deal = object.__new__(cls)
        object.__setattr__(deal, "hands", hands)
        return deal

    @classmethod
    def parse(cls, text: str) -> "Deal":
        """Read ``F:hand hand hand hand`` (hands clockwise from seat F; one may be ``-``)."""
        if not isinstance(text, str):
            raise DealError(f"deal must be a string, got {type(text).__name__}")
        t = text.strip()
        first = Seat.N
        if len(t) >= 2 and t[1] == ":":
            try:
                first = Seat.parse(t[0])
            except CardError:
                raise DealError(f"deal {text!r}: unknown first seat {t[0]!r}") from None
            t = t[2:]
        parts = t.split()
        if len(parts) != 4:
            raise DealError(f"deal {text!r}: expected 4 hands separated by spaces, found {len(parts)}")
        hands: list[int | None] = [None] * 4
        for i, part in enumerate(parts):
            seat = first.next(i)
            try:
                hands[seat] = None if part == "-" else parse_hand(part)
            except DealError as e:
                raise DealError(f"{seat}'s {e}") from None
        missing = [s for s in Seat if hands[s] is None]
        if len(missing) > 1:
            raise DealError(f"deal {text!r}: only one hand may be '-'")
        if missing:
            known = [h for h in hands if h is not None]
            if any(bin(h).count("1") != 13 for h in known):
                raise DealError(f"deal {text!r}: a '-' hand needs the other three to hold 13 cards")
            seen = 0
            for h in known:
                if seen & h:
                    raise DealError(f"deal {text!r}: card {next(cards_of(seen & h))} appears twice")
                seen |= h
            hands[missing[0]] = DECK & ~seen
        return cls(tuple(hands))  # type: ignore[arg-type]

    def pbn(self, first: SeatLike = Seat.N) -> str:
        """The canonical deal string, hands clockwise from ``first`` (a seat, its letter or its
        number, as everywhere a seat is asked for)."""
        first = Seat.of(first)
        return f"{first}:" + " ".join(hand_string(self.hands[first.next(i)]) for i in range(4))

    def __str__(self) -> str:
        return self.pbn()

    def __repr__(self) -> str:
        # the hands, not four 60-bit masks, and code that makes the deal again
        return f"Deal.parse({self.pbn()!r})"

    def holder(self, card: Card | str | int) -> Seat | None:
        """Who holds ``card`` (a Card, its name such as "C2", or its index), None if nobody."""
        bit = 1 << Card.of(card)
        for seat in Seat:
            if self.hands[seat] & bit:
                return seat
        return None

    @property
    def all_cards(self) -> int:
        return self.hands[0] | self.hands[1] | self.hands[2] | self.hands[3]

    @property
    def hand_size(self) -> int:
        return bin(self.hands[0]).count("1")

    @classmethod
    def random(cls, rng: _random.Random | int | None = None) -> "Deal":
        """A uniformly random full deal; pass a seed (a whole number from 0) or ``Random`` for
        repeatable deals. (``Random`` takes a negative seed as its opposite: refused, as
        ``sampling.samples`` refuses one, not drawn alike.)"""
        if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
            if rng < 0:
                raise DealError(f"Deal.random: seed must be a whole number from 0, got {rng}")
            rng = int(rng)                      # (numpy's too)
        r = rng if isinstance(rng, _random.Random) else _random.Random(rng)
        deck = list(cards_of(DECK))
        r.shuffle(deck)
        hands = [0, 0, 0, 0]
        for i, c in enumerate(deck):
            hands[i // 13] |= c.mask
        return cls(tuple(hands))  # type: ignore[arg-type]


def hand_string(mask: int) -> str:
    """``spades.hearts.diamonds.clubs``, ranks high to low."""
    lanes = []
    for suit in range(4):
        lane = (mask >> (16 * suit)) & FULL_SUIT
        lanes.append("".join(RANKS[r] for r in range(12, -1, -1) if lane >> r & 1))
    return ".".join(lanes)


def parse_hand(text: str) -> int:
    """One hand of a deal string, ``spades.hearts.diamonds.clubs`` (``10`` read as ``T``), as
    a card mask; the deal strings of PBN records are read with it too.

    >>> hand_string(parse_hand("AK.10..2"))
    'AK.T..2'
    """
    suits = text.split(".")
    if len(suits) != 4:
        raise DealError(f"hand {text!r}: expected 4 suits separated by dots, found {len(suits)}")
    mask = 0
    for suit, ranks in enumerate(suits):
        for ch in ascii_upper(ranks).replace("10", "T"):
            if ch not in RANKS:
                raise DealError(f"hand {text!r}: unknown rank {ch!r} in {SUITS[suit]}")
            bit = 1 << (16 * suit + RANKS.index(ch))
            if mask & bit:
                raise DealError(f"hand {text!r}: card {SUITS[suit]}{ch} appears twice")
            mask |= bit
    return mask
