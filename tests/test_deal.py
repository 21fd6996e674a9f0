"""Deal strings (SPEC §1): PBN in every accepted spelling and from any first seat, canonical out."""
from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver.cards import Card, Seat, cards_of
from solver.deal import Deal, hand_string
from solver.errors import CardError, DealError
from strategies import PROPERTY, deals

SAMPLE = "N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4"
CANONICAL = re.compile(r"^N:([AKQJT98765432]*\.){3}[AKQJT98765432]*( ([AKQJT98765432]*\.){3}[AKQJT98765432]*){3}$")


@PROPERTY
@given(deals(), st.sampled_from(list(Seat)))
def test_pbn_round_trips_from_every_first_seat(deal: Deal, first: Seat) -> None:
    text = deal.pbn(first)
    assert text.startswith(f"{first}:")
    assert Deal.parse(text) == deal
    assert CANONICAL.match(deal.pbn())


@PROPERTY
@given(deals(), st.sampled_from(list(Seat)), st.data())
def test_lower_case_and_ten_spellings_read_the_same(deal: Deal, first: Seat, data: st.DataObject) -> None:
    hands = []
    for i in range(4):
        suits = hand_string(deal.hands[first.next(i)]).split(".")
        respelled = []
        for ranks in suits:
            if data.draw(st.booleans(), label="ten as 10"):
                ranks = ranks.replace("T", "10")
            if data.draw(st.booleans(), label="lower case"):
                ranks = ranks.lower()
            respelled.append(ranks)
        hands.append(".".join(respelled))
    seat = str(first).lower() if data.draw(st.booleans(), label="lower-case seat") else str(first)
    assert Deal.parse(f"{seat}:" + " ".join(hands)) == deal


def test_sample_deal_reads_as_the_spec_describes() -> None:
    deal = Deal.parse(SAMPLE)
    assert deal.pbn() == SAMPLE
    assert deal.holder(Card.parse("C2")) == Seat.N and deal.holder(Card.parse("SA")) == Seat.E
    assert Deal.parse("E:" + " ".join(SAMPLE[2:].split()[1:] + SAMPLE[2:].split()[:1])) == deal


def test_one_hand_may_be_left_out_with_a_dash() -> None:
    hands = SAMPLE[2:].split()
    assert Deal.parse("N:" + " ".join(hands[:3] + ["-"])) == Deal.parse(SAMPLE)


def test_smaller_deals_with_equal_hands_are_deals() -> None:
    deal = Deal.parse("N:A..2. K..3. Q..4. .J.5.")
    assert deal.hand_size == 2 and deal.pbn() == "N:A..2. K..3. Q..4. .J.5."


@pytest.mark.parametrize("text, words", [
    ("N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95", ["4 hands", "found 3"]),
    ("N:KQT2.8653.A7.K32.5 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4", ["N's hand", "4 suits"]),
    ("N:KQT2.8653.A7.K3X A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4", ["N's hand", "'X'"]),
    ("N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.KT4", ["CK", "twice"]),
    ("N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.TT4", ["CT", "twice"]),
    ("N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.4", ["W=12", "same number"]),
    ("X:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4", ["first seat", "'X'"]),
    ("N:... ... ... ...", ["no cards"]),
    ("N:A... - - K...", ["only one hand may be '-'"]),
    # a '-' hand is what the other three lack: they must be whole and apart
    ("N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J9 -", ["'-' hand", "13 cards"]),
    ("N:KQT2.8653.A7.K32 - KQT2.8653.A7.K32 A.KJT.9654.AQ876", ["deal 'N:KQT2", "SK", "twice"]),
    ("N:A\u00df... - - -", ["unknown rank '\u00df' in S"]),   # upper() made it SS: "rank 'S'"
    ("\u017f:A... - - -", ["first seat", "'\u017f'"]),
])
def test_bad_deals_say_what_and_where(text: str, words: list[str]) -> None:
    with pytest.raises(DealError) as err:
        Deal.parse(text)
    message = str(err.value)
    assert "\n" not in message
    for word in words:
        assert word in message


def test_random_deals_are_seeded() -> None:
    assert Deal.random(3) == Deal.random(3) != Deal.random(4)
    assert Deal.random(3).hand_size == 13


@pytest.mark.parametrize("hands, words", [
    ((1 << 13, 2, 4, 8), "N's hand 0x2000 holds bits that are no card"),
    ((1, 2, 4), "four card masks"),
    ((1 << 70, 2, 4, 8), "no card"),
    ((-1, 2, 4, 8), "no card"),
    ((True, 2, 4, 8), "four card masks"),
    ("N:A... .A.. ..A. ...A", "four card masks"),
])
def test_a_deal_made_from_masks_is_checked_too(hands: object, words: str) -> None:
    with pytest.raises(DealError, match=re.escape(words)):
        Deal(hands)  # type: ignore[arg-type]


def test_a_deal_from_a_list_of_masks_is_a_hashable_deal() -> None:
    d = Deal([1, 2, 4, 8])  # type: ignore[arg-type]
    assert d.hands == (1, 2, 4, 8) and hash(d) == hash(Deal((1, 2, 4, 8)))


def test_holder_takes_a_card_its_name_or_its_index() -> None:
    deal = Deal.random(3)
    for card in cards_of(deal.all_cards):
        seat = deal.holder(card)
        assert seat is not None and deal.hands[seat] >> int(card) & 1
        assert deal.holder(str(card)) == deal.holder(int(card)) == seat
    assert Deal.parse("N:A... K... Q... J...").holder("C2") is None


def test_a_random_deal_of_a_negative_seed_is_refused_not_the_positive_ones() -> None:
    """Random takes -k as k: seeds from range(-n, n) gave each deal twice."""
    with pytest.raises(DealError, match="seed must be a whole number from 0, got -3"):
        Deal.random(-3)
    assert Deal.random(0) != Deal.random(1)


def test_pbn_takes_a_seat_letter_or_number_and_refuses_others() -> None:
    deal = Deal.parse(SAMPLE)
    assert deal.pbn("E") == deal.pbn(1) == deal.pbn(Seat.E)
    with pytest.raises(CardError, match="unknown seat 'X'"):
        deal.pbn("X")


@PROPERTY
@given(deals())
def test_a_deals_repr_shows_its_hands_and_makes_it_again(deal: Deal) -> None:
    """A deal's repr was its four card masks (``Deal(hands=(577322906864454913, ...))``)."""
    assert repr(deal) == f"Deal.parse({deal.pbn()!r})"
    assert eval(repr(deal)) == deal
