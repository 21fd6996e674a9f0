"""Cards, suits, ranks and seats, and the 64-bit card-set layout shared with the engine.

A card's index is ``suit * 16 + rank`` with suits ``S H D C`` = 0..3 and ranks ``2..A`` = 0..12,
so a set of cards is one 64-bit integer and each suit is a 16-bit lane.

>>> Card.parse("10h"), Card.parse("♠q")
(Card('HT'), Card('SQ'))
>>> str(Seat.N.next()), str(Seat.E.partner)
('E', 'W')
"""
from __future__ import annotations

import enum
import numbers
from typing import Callable, Iterable, Iterator, cast

from .errors import CardError

SUITS = "SHDC"
RANKS = "23456789TJQKA"
SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "♤": "S", "♡": "H", "♢": "D", "♧": "C"}
FULL_SUIT = 0x1FFF
DECK = sum(FULL_SUIT << (16 * s) for s in range(4))
#: Variation selectors: a phone types "♣️" as the symbol and U+FE0F (show it as an emoji).
VARIATIONS = "\ufe0f\ufe0e"
_LETTERS = {**{ord(symbol): letter for symbol, letter in SUIT_SYMBOLS.items()},
            **{ord(v): None for v in VARIATIONS}}


_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_CARD_LETTERS = {**_LETTERS, **_UPPER}


def card_letters(text: str) -> str:
    """``text`` as cards are read: suit symbols as letters (their variation selectors dropped)
    and ASCII letters in capitals (``ascii_upper``), in one pass.

    >>> card_letters("q♠ 10\u2663\ufe0f")
    'QS 10C'
    """
    return text.translate(_CARD_LETTERS)


def ascii_upper(text: str) -> str:
    """``text`` with its ASCII letters in capitals, and nothing else changed: ``str.upper``
    made "ſ" an S and "ß" SS, a seat or card nobody wrote.

    >>> ascii_upper("sq ſq")
    'SQ ſQ'
    """
    return text.translate(_UPPER)


class Seat(enum.IntEnum):
    N = 0
    E = 1
    S = 2
    W = 3

    def next(self, steps: int = 1) -> "Seat":
        return _SEAT_ORDER[(self + steps) % 4]     # (Seat(n), an enum look-up, is slow)

    @property
    def partner(self) -> "Seat":
        return _SEAT_ORDER[(self + 2) % 4]

    def __str__(self) -> str:
        return "NESW"[self]

    @classmethod
    def parse(cls, text: str) -> "Seat":
        t = ascii_upper(str(text).strip())
        if len(t) != 1 or t not in "NESW":
            raise CardError(f"unknown seat {text!r} (expected one of N E S W)")
        return cls("NESW".index(t))

    @classmethod
    def of(cls, seat: "SeatLike") -> "Seat":
        """A seat from a Seat, its number 0-3 or its letter; anything else is a CardError."""
        if isinstance(seat, Seat):
            return seat
        if isinstance(seat, numbers.Integral) and not isinstance(seat, bool) and 0 <= seat < 4:
            return cls(int(seat))
        if isinstance(seat, str):
            return cls.parse(seat)
        raise CardError(f"unknown seat {seat!r} (expected one of N E S W)")


_SEAT_ORDER = tuple(Seat)

#: A seat as the library takes one: a Seat, its letter ("N", "e") or its number (0-3).
SeatLike = Seat | int | str


class Card(int):
    """A card as its engine index; ``str(card)`` is the canonical ``SQ`` form."""

    __slots__ = ()

    def __new__(cls, suit: int | str, rank: int | None = None) -> "Card":
        """``Card(suit, rank)`` (0-3, 0-12), or one card as ``Card.of`` reads it: ``Card("SQ")``,
        as ``repr`` shows it, so that a card's repr makes the card again."""
        if rank is None:
            return cls.of(suit)
        try:
            ok = not isinstance(suit, str) and 0 <= suit < 4 and 0 <= rank < 13
        except TypeError:       # (a suit or rank that is no number: a CardError too)
            ok = False
        if not ok:
            raise CardError(f"no card with suit {suit!r} and rank {rank!r}")
        return super().__new__(cls, cast(int, suit) * 16 + rank)

    @classmethod
    def from_index(cls, index: int) -> "Card":
        """The card of engine index ``index`` (16 * suit + rank)."""
        if type(index) is int and index in _BY_INDEX:
            return _BY_INDEX[index]     # (a hot path: the engine's cards)
        if isinstance(index, bool) or not isinstance(index, numbers.Integral):
            raise CardError(f"no card with index {index!r} (expected an integer)")
        if not 0 <= index < 64 or index & 15 >= 13:
            raise CardError(f"no card with index {index} (16 * suit + rank: suits 0-3, ranks 0-12)")
        return cls(int(index) >> 4, int(index) & 15)

    @classmethod
    def of(cls, card: "Card | str | int") -> "Card":
        """A card from a Card, its name ("SQ", as ``parse`` reads it) or its engine index;
        anything else is a CardError."""
        if isinstance(card, Card):
            return card
        if isinstance(card, str):
            return cls.parse(card)
        return cls.from_index(card)

    def __reduce__(self) -> tuple[Callable[[int], Card], tuple[int]]:
        # int's own pickling would call Card(index), which takes a suit and a rank
        return Card.from_index, (int(self),)

    @property
    def suit(self) -> int:
        return int(self) >> 4

    @property
    def rank(self) -> int:
        return int(self) & 15

    @property
    def mask(self) -> int:
        return 1 << int(self)

    def __str__(self) -> str:
        return _NAMES[self]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> "Card":
        """Read ``SQ``, ``sq``, ``S10``, ``♠Q``, ``Q♠`` or ``10h`` (suit first or last)."""
        if type(text) is str and text in _BY_NAME:
            return _BY_NAME[text]  # the canonical form, as files and the solver's own output have it
        raw = str(text).strip()
        t = card_letters(raw)
        if len(t) >= 2 and t[0] in SUITS:
            suit, rank = t[0], t[1:]
        elif len(t) >= 2 and t[-1] in SUITS:
            suit, rank = t[-1], t[:-1]
        else:
            raise CardError(f"cannot read card {text!r} (expected suit then rank, like SQ or H10)")
        rank = "T" if rank == "10" else rank
        if len(rank) != 1 or rank not in RANKS:
            raise CardError(f"cannot read card {text!r}: unknown rank {rank!r}")
        return cls(SUITS.index(suit), RANKS.index(rank))


_BY_NAME = {SUITS[s] + RANKS[r]: Card(s, r) for s in range(4) for r in range(13)}
_NAMES = tuple(SUITS[i >> 4] + RANKS[i & 15] if i & 15 < 13 else "" for i in range(64))  # by index
_BY_INDEX = {int(c): c for c in _BY_NAME.values()}


def cards_of(mask: int) -> Iterator[Card]:
    """Cards of a mask, suit by suit from lane 0 (S, H, D, C), high rank first (the deck's
    cards, made once: a hot path of sampling and of every answer's cards)."""
    for suit in range(4):
        lane = (mask >> (16 * suit)) & FULL_SUIT
        while lane:
            rank = lane.bit_length() - 1
            yield _BY_INDEX[16 * suit + rank]
            lane ^= 1 << rank


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


def suit_mask(suit: int) -> int:
    return FULL_SUIT << (16 * suit)

