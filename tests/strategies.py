"""Hypothesis strategies shared by the domain-model property tests: deals, card spellings,
rule objects. Every property test runs derandomized, so CI sees the same examples each run."""
from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st

from solver.cards import DECK, RANKS, SUITS, Card, cards_of
from solver.deal import Deal
from solver.rules import FIRST_LEAD, HEARTS_BREAK, MOON_MODES, PRESETS

PROPERTY = settings(max_examples=150, deadline=None, derandomize=True)
ALL_CARDS = list(cards_of(DECK))
SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


@st.composite
def deals(draw: st.DrawFn, hand_size: int = 13) -> Deal:
    """A random deal of ``hand_size`` cards a hand (the whole deck for 13)."""
    cards = draw(st.permutations(ALL_CARDS))[:4 * hand_size]
    return Deal(tuple(sum(c.mask for c in cards[i::4]) for i in range(4)))  # type: ignore[arg-type]


@st.composite
def card_spellings(draw: st.DrawFn, card: Card) -> str:
    """Any spelling SPEC §1 accepts for ``card``: 10 for T, lower case, suit symbols."""
    suit = draw(st.sampled_from([SUITS[card.suit], SYMBOLS[SUITS[card.suit]]]))
    rank = RANKS[card.rank]
    if rank == "T":
        rank = draw(st.sampled_from(["T", "10"]))
    text = suit + rank
    return text.lower() if draw(st.booleans()) else text


VALUE_KEYS = st.sampled_from(list(SUITS) + [str(c) for c in ALL_CARDS])

RULE_FIELDS = {
    "preset": st.sampled_from(list(PRESETS)),
    "values": st.dictionaries(VALUE_KEYS, st.integers(-30, 30), max_size=6),
    "moon": st.sampled_from(MOON_MODES),
    "first_trick_points": st.booleans(),
    "hearts_break": st.sampled_from(HEARTS_BREAK),
    "first_lead": st.sampled_from(FIRST_LEAD),
    "trick_points": st.integers(-3, 3),
    "partnership": st.booleans(),
}


def rule_specs() -> st.SearchStrategy[dict]:
    """A rule object with any subset of the SPEC §2 keys, each with a valid value."""
    return st.fixed_dictionaries({}, optional=RULE_FIELDS)
