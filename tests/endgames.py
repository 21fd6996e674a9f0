"""Seeded random positions for the correctness tests.

Endgames are reached from random full deals by random legal play (so positions in mid-trick
occur), optionally steered so that one side keeps every point card taken so far and the moon
stays live; small deals of a few cards a hand exercise the trick-1 rules. Legality comes from
the brute-force oracle, not from the solver, and every scenario prints as the exact deal, play,
rules and leader needed to reproduce it.
"""
from __future__ import annotations

import itertools
import json
import random
from dataclasses import dataclass
from typing import Callable

from brute import Game, bits
from solver.cards import DECK, Card, Seat, cards_of
from solver.deal import Deal
from solver.position import Position
from solver.rules import Rules


def dealt_round(cards: list[Card]) -> Deal:
    """``cards`` (a multiple of four) dealt one at a time round the table, N first."""
    return Deal(tuple(sum(c.mask for c in cards[i::4]) for i in range(4)))  # type: ignore[arg-type]


@dataclass(frozen=True)
class Scenario:
    """A position to check: a deal, the rules, the cards played and (free lead) the leader."""

    deal: Deal
    rules_spec: dict
    play: tuple[str, ...]
    leader: Seat | None
    shooter: Seat | None = None  # the seat the play was steered to keep a moon for

    @property
    def rules(self) -> Rules:
        return Rules.parse(self.rules_spec)

    @property
    def play_text(self) -> str:
        return " ".join(self.play)

    def position(self) -> Position:
        return Position.from_play(self.deal, self.rules, self.play_text, self.leader)

    @property
    def cards_left(self) -> int:
        return sum(bin(h).count("1") for h in self.deal.hands) - len(self.play)

    def __str__(self) -> str:
        leader = f" --leader {self.leader}" if self.leader is not None else ""
        return (f'--deal "{self.deal.pbn()}" --play "{self.play_text}" '
                f"--rules '{json.dumps(self.rules_spec)}'{leader}")


def leader_for(deal: Deal, rules: Rules, rng: random.Random) -> Seat | None:
    """The leader to give with the deal: None when the C2 rule names it, else a random seat."""
    has_clubs = any(c.suit == 3 for c in cards_of(deal.all_cards))
    if rules.first_lead == "C2" and has_clubs:
        return None
    return Seat(rng.randrange(4))


def random_endgame(rules_spec: dict, rng: random.Random, cards_left: int,
                   moon: bool = False) -> Scenario | None:
    """A random full deal played down to ``cards_left`` cards by random legal cards.

    With ``moon``, a random seat gets a strong hand; its side plays high and the others play
    low and feed it point cards; None when a point card still went to another side.
    """
    rules = Rules.parse(rules_spec)
    shooter = Seat(rng.randrange(4)) if moon else None
    deal = Deal.random(rng) if shooter is None else strong_hand_deal(rng, shooter)
    start = Scenario(deal, rules_spec, (), leader_for(deal, rules, rng), shooter)
    if shooter is None:
        return play_down(start, rng, cards_left)
    return play_down(start, rng, cards_left, lambda g, legal: _feed_the_shooter(g, legal, shooter, rng))


def play_down(start: Scenario, rng: random.Random, cards_left: int,
              choose: Callable[[Game, list[int]], int] | None = None) -> Scenario | None:
    """Continue ``start`` with legal cards (random, or picked by ``choose``) until
    ``cards_left`` remain; None if the scenario's shooter has lost the moon on the way."""
    game = Game(start.deal, start.rules, start.leader)
    for card in start.play:
        game.play(int(Card.parse(card)))
    played = list(start.play)
    while game.deal_size - game.cards_played > cards_left:
        legal = list(bits(game.legal_mask()))
        card = rng.choice(legal) if choose is None else choose(game, legal)
        game.play(card)
        played.append(str(Card.from_index(card)))
    if start.shooter is not None and not _moon_alive(game, start.shooter):
        return None
    return Scenario(start.deal, start.rules_spec, tuple(played), start.leader, start.shooter)


def queen_before_hearts(rng: random.Random) -> Callable[[Game, list[int]], int]:
    """A card chooser that plays SQ when it can and hearts only when it must, so that SQ
    often lands on a trick while hearts are still unbroken (the `queen` breaking rule)."""
    queen = int(Card.parse("SQ"))

    def choose(game: Game, legal: list[int]) -> int:
        if queen in legal:
            return queen
        return rng.choice([c for c in legal if c >> 4 != 1] or legal)
    return choose


def _feed_the_shooter(game: Game, legal: list[int], shooter: Seat, rng: random.Random) -> int:
    """The shooter's side plays its highest card; the others play low, and feed point cards
    to a trick only while the shooter's side is winning it."""
    if game.side[game.to_move] == game.side[shooter]:
        top = max(_rank(c) for c in legal)
        return rng.choice([c for c in legal if _rank(c) == top])
    points = [c for c in legal if game.points >> c & 1]
    safe = [c for c in legal if not game.points >> c & 1] or legal
    if game.trick:
        led = game.trick[0] >> 4
        best = max((c for c in game.trick if c >> 4 == led), key=_rank)
        winner = (game.leader + game.trick.index(best)) % 4
        if game.side[winner] == game.side[shooter]:
            feed = [c for c in points if c >> 4 != led or _rank(c) < _rank(best)]
            if feed:
                return rng.choice(feed)
    low = min(_rank(c) for c in safe)
    return rng.choice([c for c in safe if _rank(c) == low])


def _rank(card: int) -> int:
    return card & 15


def _moon_alive(game: Game, shooter: Seat) -> bool:
    side = game.side[shooter]
    return not any(game.point_cards[s] for s in game.sides if s != side)


def strong_hand_deal(rng: random.Random, seat: Seat) -> Deal:
    """A random deal whose ``seat`` is dealt mostly high cards (drawn with weight rank³)."""
    deck = list(cards_of(DECK))
    strong: list[Card] = []
    while len(strong) < 13:
        card = rng.choices(deck, weights=[(c.rank + 1) ** 3 for c in deck])[0]
        deck.remove(card)
        strong.append(card)
    rng.shuffle(deck)
    hands = [0, 0, 0, 0]
    hands[seat] = sum(c.mask for c in strong)
    others = [s for s in Seat if s != seat]
    for i, card in enumerate(deck):
        hands[others[i // 13]] |= card.mask
    return Deal(tuple(hands))  # type: ignore[arg-type]


def small_scenario(rules_spec: dict, rng: random.Random, hand_size: int) -> Scenario:
    """A deal of ``hand_size`` cards a hand from a pool rich in point cards and short suits,
    so that voids and point cards meet the trick-1 and hearts-breaking rules; SQ (which may
    break hearts) is usually in it."""
    rules = Rules.parse(rules_spec)
    queen = Card.parse("SQ")
    points = [c for c in cards_of(DECK) if rules.value(c) > 0 and c != queen]
    others = [c for c in cards_of(DECK) if rules.value(c) <= 0 and c != queen]
    for attempt in itertools.count():
        suits = rng.sample(range(4), rng.choice((2, 3, 4)))
        pool = [c for c in others if c.suit in suits]
        if attempt >= 100:
            # rules under which (nearly) every card has a value: fill up with more of them
            pool += [c for c in points if c.suit in suits]
        chosen = [queen] if rng.random() < 0.75 else []
        chosen += rng.sample(points, min(len(points), rng.randint(1, hand_size + 1)))
        pool = [c for c in pool if c not in chosen]
        chosen += rng.sample(pool, min(len(pool), 4 * hand_size - len(chosen)))
        has_club = any(c.suit == 3 for c in chosen)
        if len(chosen) == 4 * hand_size and (has_club or rules.first_lead != "C2"):
            break
    rng.shuffle(chosen)
    deal = dealt_round(chosen)
    return Scenario(deal, rules_spec, (), leader_for(deal, rules, rng))
