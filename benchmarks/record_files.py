"""Seeded PBN hand-record files: the annotate benchmark's workload, which the tests of the
record reader, the batch, the review and the API use too (as ``seeded_deals`` is the full-deal
one).

Full deals take seconds to solve, so the generated records are *end positions* (PBN 2.1
§3.10): deals of a few cards a hand, which the solver answers in milliseconds. A record may
carry a ``[Play]`` section of random legal cards, written in PBN's seat columns.
"""
from __future__ import annotations

import random
from typing import Iterator

from solver.cards import DECK, Card, Seat, cards_of
from solver.deal import Deal
from solver.pbn import RecordedPlay, Slot, game_text
from solver.position import Position
from solver.rules import Rules


def small_deal(rng: random.Random, hand_size: int) -> Deal:
    """``hand_size`` random cards a hand, from a shuffled deck."""
    deck = list(cards_of(DECK))
    rng.shuffle(deck)
    hands = [0, 0, 0, 0]
    for i, card in enumerate(deck[:4 * hand_size]):
        hands[i % 4] |= card.mask
    return Deal(tuple(hands))  # type: ignore[arg-type]


def random_play(start: Position, rng: random.Random, cards: int) -> list[Card]:
    """Up to ``cards`` random legal cards from ``start``."""
    return list(start.random_play(rng, cards).played[len(start.played):])


def recorded(start: Position, cards: list[Card]) -> RecordedPlay:
    """The cards as a PBN ``[Play]`` section: one row per trick, columns from the first leader."""
    first = start.to_move
    assert first is not None
    rows: list[list[Slot]] = []
    p = start
    for i, card in enumerate(cards):
        if i % 4 == 0:
            rows.append(["-"] * 4)
        seat = p.to_move
        assert seat is not None
        rows[-1][(seat - first) % 4] = card
        p = p.play(card)
    return RecordedPlay(first, tuple((r[0], r[1], r[2], r[3]) for r in rows))


def endgame_records(count: int, seed: int = 0, hand_size: int = 4, play_cards: int = 0,
                    rules: str | None = None) -> Iterator[str]:
    """PBN text of ``count`` games: small deals, each with ``play_cards`` recorded cards."""
    rng = random.Random(seed)
    r = Rules.parse(rules)
    for board in range(1, count + 1):
        deal = small_deal(rng, hand_size)
        tags = {"Event": "generated", "Board": str(board), "Deal": deal.pbn()}
        if rules:
            tags["HeartsRules"] = rules
        play = None
        leader = None if r.first_lead == "C2" and deal.all_cards >> 48 else rng.choice(list(Seat))
        if leader is not None:
            tags["HeartsLeader"] = str(leader)
        if play_cards:
            start = Position.start(deal, r, leader)
            play = recorded(start, random_play(start, rng, play_cards))
        yield game_text(tags, play)


def endgame_file(count: int, seed: int = 0, hand_size: int = 4, play_cards: int = 0,
                 rules: str | None = None) -> bytes:
    """A whole file: the games separated by blank lines."""
    return "\n".join(endgame_records(count, seed, hand_size, play_cards, rules)).encode()
