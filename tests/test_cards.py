"""Cards and seats (SPEC §1): every accepted spelling, the canonical form, clockwise seats."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver.cards import DECK, Card, Seat, cards_of, mask_of
from solver.deal import Deal
from solver.errors import CardError, HeartsError
from solver.rules import Rules
from strategies import ALL_CARDS, PROPERTY, card_spellings


def test_the_deck_has_52_distinct_cards_in_canonical_form() -> None:
    names = [str(c) for c in ALL_CARDS]
    assert len(set(names)) == 52
    assert names[:3] == ["SA", "SK", "SQ"] and names[-1] == "C2"  # S H D C, high to low
    assert all(len(n) == 2 and n[0] in "SHDC" and n[1] in "23456789TJQKA" for n in names)


@PROPERTY
@given(st.sampled_from(ALL_CARDS).flatmap(lambda c: st.tuples(st.just(c), card_spellings(c))))
def test_every_spelling_reads_as_the_same_card(pair: tuple[Card, str]) -> None:
    card, text = pair
    assert Card.parse(text) == card
    assert str(Card.parse(text)) == str(card)


@pytest.mark.parametrize("text, card", [("10h", "HT"), ("♠q", "SQ"), ("♦10", "DT"), ("c2", "C2"),
                                        (" SA ", "SA"),
                                        ("♣\ufe0f2", "C2"), ("Q♠\ufe0f", "SQ"), ("♥\ufe0eA", "HA"),
                                        ("♤K", "SK"), ("♡3", "H3"), ("♢4", "D4"), ("♧5", "C5")])
def test_spellings_from_the_spec(text: str, card: str) -> None:
    assert str(Card.parse(text)) == card


@pytest.mark.parametrize("text", ["", "S", "X5", "S1", "S11", "SS", "HZ", "5", "♠", "SJQ", "AKH"])
def test_unreadable_cards_raise_a_message_naming_them(text: str) -> None:
    with pytest.raises(CardError) as err:
        Card.parse(text)
    assert repr(text) in str(err.value)
    assert isinstance(err.value, HeartsError) and "\n" not in str(err.value)


def test_seats_go_clockwise_with_partners_opposite() -> None:
    assert [str(Seat.N.next(i)) for i in range(5)] == ["N", "E", "S", "W", "N"]
    assert {str(s): str(s.partner) for s in Seat} == {"N": "S", "E": "W", "S": "N", "W": "E"}
    assert [Seat.parse(t) for t in ("n", "E", " s ", "w")] == [Seat.N, Seat.E, Seat.S, Seat.W]


@pytest.mark.parametrize("text", ["", "X", "NE", "north", "\u017f"])  # (the long s: upper() made it S)
def test_unknown_seats_are_errors(text: str) -> None:
    with pytest.raises(HeartsError, match="seat"):
        Seat.parse(text)


def test_a_letter_that_only_upper_makes_ascii_is_no_card() -> None:
    """The long s: upper() read "\u017fq" as SQ (the fuzzing audit)."""
    with pytest.raises(CardError, match="cannot read card"):
        Card.parse("\u017fq")


@PROPERTY
@given(st.sets(st.sampled_from(ALL_CARDS)))
def test_card_sets_round_trip_through_masks(cards: set[Card]) -> None:
    mask = mask_of(cards)
    assert set(cards_of(mask)) == cards
    assert mask & ~DECK == 0
    listed = list(cards_of(mask))
    assert listed == sorted(listed, key=lambda c: (c.suit, -c.rank))


def test_cards_pickle_and_copy_as_themselves() -> None:
    """Positions and analyses hold cards, and go to other processes (a Monte-Carlo pool)."""
    import copy
    import pickle
    for card in map(Card.from_index, cards_of(DECK)):
        back = pickle.loads(pickle.dumps(card))
        assert back == card and type(back) is Card and str(back) == str(card)
        assert copy.deepcopy(card) == card


@pytest.mark.parametrize("given, seat", [(Seat.W, Seat.W), (1, Seat.E), ("s", Seat.S)])
def test_a_seat_from_a_seat_its_number_or_its_letter(given: object, seat: Seat) -> None:
    assert Seat.of(given) is seat  # type: ignore[arg-type]


@pytest.mark.parametrize("given", [4, -1, 1.5, True, None, [1], "X"])
def test_anything_else_is_no_seat(given: object) -> None:
    with pytest.raises(CardError, match="unknown seat"):
        Seat.of(given)  # type: ignore[arg-type]


@pytest.mark.parametrize("index", [True, 1.0, "17", -1, 13, 15, 64, 10 ** 50])
def test_an_index_that_is_no_card_is_an_error(index: object) -> None:
    """``True`` was the three of spades, and 1.0 a TypeError about ``>>``."""
    with pytest.raises(CardError, match="no card with index"):
        Card.from_index(index)  # type: ignore[arg-type]


@pytest.mark.parametrize("card", [Card.parse("SQ"), "SQ", "q♠", 10])
def test_a_card_from_a_card_its_name_or_its_index(card: object) -> None:
    assert Card.of(card) == Card.parse("SQ")  # type: ignore[arg-type]
    assert Rules().value(card) == 13  # type: ignore[arg-type]
    assert Deal.parse("N:Q... K... A... J...").holder(card) == Seat.N  # type: ignore[arg-type]


@pytest.mark.parametrize("thing", [None, 1.5, True, 10 ** 50, "S1"])
def test_anything_else_is_no_card(thing: object) -> None:
    """``Rules.value`` and ``Deal.holder`` raised IndexError, OverflowError or TypeError."""
    for call in (Card.of, Rules().value, Deal.parse("N:Q... K... A... J...").holder):
        with pytest.raises(CardError):
            call(thing)  # type: ignore[arg-type]


def test_a_cards_repr_makes_the_card_again_and_bad_arguments_are_card_errors() -> None:
    """``Card('SQ')``, as repr shows a card, raised TypeError (missing rank), as did
    ``Card('S', 'Q')`` (comparing a str with an int)."""
    for card in ALL_CARDS:
        assert eval(repr(card)) == card and type(eval(repr(card))) is Card
    assert Card("sq") == Card(0, 10) == Card(10) == Card.parse("SQ")
    for bad in (("S", "Q"), (0, 13), (None,), (1.5,)):
        with pytest.raises(CardError):
            Card(*bad)  # type: ignore[arg-type]
