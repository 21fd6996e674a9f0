"""An independent brute-force oracle for Hearts positions, written from SPEC §2–§3 alone.

It shares only card, deal and rule *parsing* with the solver. Legality, trick resolution, hand
scores and the search are its own and deliberately plain: a full minimax over every legal card
sequence to the end of the hand, with no pruning, no grouping of equivalent cards and no table,
so that a disagreement with the engine points at a real fault in one of the two. (A table does
count a tree's nodes, in ``tree_size``, so that a tree too large is skipped unwalked; it gives
no answer.)

One walk of the game tree answers every question at once: each node returns, for every seat P,
P's guarantee (P's side minimises P's final score, everyone else maximises it) and whether P's
side can force taking every point card (OR over its own cards, AND over the others').

North leads SA and takes SQ (13), or leads D2 and lets West shoot with HJ (North +14):

>>> deal = Deal.parse("N:A..2. K..3. Q..4. .J.5.")
>>> answer = analyze(deal, Rules.parse({"first_lead": "free"}), leader=Seat.N)
>>> answer.players[Seat.N], answer.moves[Card.parse("D2")]
(Outcome(guarantee=13, moon_possible=False), Outcome(guarantee=14, moon_possible=False))
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, NamedTuple

from solver.cards import Card, Seat
from solver.deal import Deal
from solver.rules import Rules

SUIT_BITS = 0x1FFF
HEARTS = SUIT_BITS << 16
CLUBS = SUIT_BITS << 48
QUEEN_OF_SPADES = 1 << int(Card.parse("SQ"))


class TreeTooLarge(Exception):
    """The position's game tree has more nodes than the caller allowed."""


class Outcome(NamedTuple):
    guarantee: int
    moon_possible: bool


@dataclass(frozen=True)
class Answer:
    """Everything SPEC §3 asks for one position."""

    to_move: Seat | None
    players: dict[Seat, Outcome]
    moves: dict[Card, Outcome]


def bits(mask: int) -> Iterator[int]:
    """Card indices of a mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class Game:
    """One hand in progress, played and taken back card by card (mutable, for a fast walk).

    What each side has taken is kept as running sums (card values, the part of them from cards
    of value <= 0, point cards, tricks), so the hand score at a leaf is a few additions.
    """

    def __init__(self, deal: Deal, rules: Rules, leader: Seat | None = None) -> None:
        all_cards = deal.hands[0] | deal.hands[1] | deal.hands[2] | deal.hands[3]
        self.values = list(rules.values)
        self.low_values = [min(v, 0) for v in self.values]
        self.points = sum(1 << c for c in bits(all_cards) if self.values[c] > 0)
        self.moon_total = sum(self.values[c] for c in bits(self.points))
        self.moon = rules.moon
        self.first_trick_points = rules.first_trick_points
        self.hearts_break = rules.hearts_break
        self.trick_points = rules.trick_points
        self.side = [s % 2 if rules.partnership else s for s in range(4)]
        self.sides = sorted(set(self.side))
        clubs = all_cards & CLUBS
        # C2 rule: the lowest club of the deal opens trick 1, and its holder leads.
        self.opening = clubs & -clubs if rules.first_lead == "C2" and clubs else 0
        if self.opening:
            first = next(s for s in range(4) if deal.hands[s] & self.opening)
            if leader is not None and int(leader) != first:
                raise ValueError(f"{Seat(first)} holds the lowest club and must lead")
        elif leader is None:
            raise ValueError("a free first lead (or a deal without clubs) needs a leader")
        else:
            first = int(leader)
        self.hands = list(deal.hands)
        self.leader = first
        self.to_move = first
        self.trick: list[int] = []
        self.cards_played = 0
        self.deal_size = all_cards.bit_count()
        self.hearts_open = False
        # by side: values of the cards taken, the part from cards of value <= 0, point cards, tricks
        self.card_points = [0, 0, 0, 0]
        self.low_points = [0, 0, 0, 0]
        self.point_cards = [0, 0, 0, 0]
        self.tricks_won = [0, 0, 0, 0]
        self._finished: list[tuple[list[int], int, int, int, int, int, bool]] = []  # for undo

    @property
    def is_over(self) -> bool:
        return self.cards_played == self.deal_size

    def legal_mask(self) -> int:
        """SPEC §2: follow suit; the opening club; no heart lead before hearts break unless
        the hand is all hearts; no point card on trick 1 while another legal card is held."""
        hand = self.hands[self.to_move]
        if self.trick:
            options = hand & (SUIT_BITS << (self.trick[0] & ~15)) or hand
        elif self.cards_played == 0 and self.opening:
            options = self.opening
        elif self.hearts_break != "none" and not self.hearts_open and hand & ~HEARTS:
            options = hand & ~HEARTS
        else:
            options = hand
        if self.cards_played < 4 and not self.first_trick_points:
            options = options & ~self.points or options
        return options

    def play(self, card: int) -> None:
        """Play ``card`` for the seat to move (assumed legal); a fourth card ends the trick."""
        self.hands[self.to_move] ^= 1 << card
        self.trick.append(card)
        self.cards_played += 1
        if len(self.trick) == 4:
            self._end_trick()
        else:
            self.to_move = (self.to_move + 1) % 4

    def _end_trick(self) -> None:
        """The highest card of the suit led wins; its side takes the four cards."""
        trick = self.trick
        best = trick[0]
        for card in trick[1:]:
            if card >> 4 == best >> 4 and card > best:
                best = card
        winner = (self.leader + trick.index(best)) % 4
        side = self.side[winner]
        a, b, c, d = trick
        mask = (1 << a) | (1 << b) | (1 << c) | (1 << d)
        values, low_values = self.values, self.low_values
        value = values[a] + values[b] + values[c] + values[d]
        low = low_values[a] + low_values[b] + low_values[c] + low_values[d]
        self._finished.append((trick, self.leader, side, value, low, mask, self.hearts_open))
        self.card_points[side] += value
        self.low_points[side] += low
        self.point_cards[side] |= mask & self.points
        self.tricks_won[side] += 1
        if mask & HEARTS or (self.hearts_break == "queen" and mask & QUEEN_OF_SPADES):
            self.hearts_open = True
        self.leader = self.to_move = winner
        self.trick = []

    def undo(self) -> None:
        """Take back the last card played."""
        if not self.trick:
            trick, leader, side, value, low, mask, hearts_open = self._finished.pop()
            self.card_points[side] -= value
            self.low_points[side] -= low
            self.point_cards[side] &= ~mask
            self.tricks_won[side] -= 1
            self.hearts_open = hearts_open
            self.leader = leader
            self.trick = trick
            self.to_move = leader  # one step back from here is the trick's last player
        self.to_move = (self.to_move + 3) % 4
        card = self.trick.pop()
        self.hands[self.to_move] |= 1 << card
        self.cards_played -= 1

    def scores(self) -> tuple[tuple[int, ...], int]:
        """Final hand score of each seat, and the seats whose side shot the moon (bit per seat).

        SPEC §2: a side that took every point card (of a deal that has some) shoots the moon;
        with `add` it keeps only its cards of value <= 0 and the others score M more; with
        `subtract` it scores its cards of value <= 0 minus M; with `none` nothing changes.
        Trick points are never touched by a moon.
        """
        shooter = -1
        if self.points:
            for side in self.sides:
                if self.point_cards[side] == self.points:
                    shooter = side
        score = [0, 0, 0, 0]
        for side in self.sides:
            if shooter < 0 or self.moon == "none":
                cards = self.card_points[side]
            elif self.moon == "add":
                cards = self.low_points[side] + (0 if side == shooter else self.moon_total)
            else:  # subtract
                cards = (self.low_points[side] - self.moon_total if side == shooter
                         else self.card_points[side])
            score[side] = cards + self.trick_points * self.tricks_won[side]
        moon = sum(1 << seat for seat in range(4) if self.side[seat] == shooter)
        return tuple(score[self.side[seat]] for seat in range(4)), moon


def solve(game: Game) -> tuple[tuple[int, ...], int]:
    """Every seat's guarantee and moon flags (a bit per seat) by plain minimax to every leaf."""
    forced = 0
    while True:  # a single legal card leaves the answer unchanged: play such cards in a row
        if game.cards_played == game.deal_size:
            result = game.scores()
            break
        legal = game.legal_mask()
        if legal & (legal - 1):
            result = best_of(game, [result for _, result in children(game)])
            break
        game.play(legal.bit_length() - 1)
        forced += 1
    for _ in range(forced):
        game.undo()
    return result


def children(game: Game) -> list[tuple[int, tuple[tuple[int, ...], int]]]:
    """Each legal card of the player to move with the solved position after it."""
    results = []
    for card in bits(game.legal_mask()):
        game.play(card)
        results.append((card, solve(game)))
        game.undo()
    return results


def tree_size(game: Game, limit: int) -> int:
    """How many nodes (calls of ``solve``) ``children`` walks from here, or any number past
    ``limit`` once the count is known to pass it.

    Counted, not walked, so that a caller can skip a tree too large before paying for it: a
    table of positions may serve the count, as the shape of the tree below a position depends
    only on the hands, the trick, the seat to move and whether hearts are open. No answer
    comes from the table.
    """
    seen: dict[tuple, int] = {}
    total = 0
    for card in bits(game.legal_mask()):
        game.play(card)
        total += _nodes(game, limit - total, seen)
        game.undo()
        if total > limit:
            break
    return total


def _nodes(game: Game, limit: int, seen: dict[tuple, int]) -> int:
    """The calls of ``solve`` for this position and below it, as ``tree_size`` counts them."""
    key = (tuple(game.hands), tuple(game.trick), game.to_move, game.hearts_open)
    known = seen.get(key)
    if known is not None:
        return known
    count, forced = 1, 0
    while not game.is_over:
        legal = game.legal_mask()
        if legal & (legal - 1):
            for card in bits(legal):
                game.play(card)
                count += _nodes(game, limit - count, seen)
                game.undo()
                if count > limit:
                    break
            break
        game.play(legal.bit_length() - 1)
        forced += 1
    for _ in range(forced):
        game.undo()
    if count <= limit:  # a count cut short is no count
        seen[key] = count
    return count


def best_of(game: Game, results: list[tuple[tuple[int, ...], int]]) -> tuple[tuple[int, ...], int]:
    """Combine the children's answers: for each seat P, P's side takes its best child (lowest
    score; some child keeps P's moon alive), the others take P's worst (highest; every child)."""
    mover = game.side[game.to_move]
    own = [game.side[seat] == mover for seat in range(4)]
    own_bits = sum(1 << seat for seat in range(4) if own[seat])
    guarantee = list(results[0][0])
    moon_any, moon_all = 0, 15
    for scores, moon in results:
        moon_any |= moon
        moon_all &= moon
        for seat in range(4):
            if (scores[seat] < guarantee[seat]) if own[seat] else (scores[seat] > guarantee[seat]):
                guarantee[seat] = scores[seat]
    return tuple(guarantee), (moon_any & own_bits) | (moon_all & ~own_bits & 15)


def replay(deal: Deal, rules: Rules, play: Iterable[str | int] = (),
           leader: Seat | None = None) -> Game:
    """The hand after ``play``, each card checked against this module's own legality."""
    game = Game(deal, rules, leader)
    for token in play:
        card = int(Card.parse(token)) if isinstance(token, str) else int(token)
        if game.is_over or not game.legal_mask() >> card & 1:
            raise ValueError(f"{Card.from_index(card)} is not a legal card here")
        game.play(card)
    return game


def analyze(deal: Deal, rules: Rules, play: Iterable[str | int] = (), leader: Seat | None = None,
            max_nodes: int | None = None) -> Answer:
    """Guarantee and moon flag for all four seats, and every legal card's values for the mover.

    With ``max_nodes``, gives up with ``TreeTooLarge`` on a tree of more nodes, before walking it.
    """
    game = replay(deal, rules, play, leader)
    if max_nodes is not None and tree_size(game, max_nodes) > max_nodes:
        raise TreeTooLarge
    if game.is_over:
        scores, moon = game.scores()
        return Answer(None, {Seat(s): Outcome(scores[s], bool(moon >> s & 1)) for s in range(4)}, {})
    mover = game.to_move
    results = children(game)
    scores, moon = best_of(game, [result for _, result in results])
    moves = {Card.from_index(card): Outcome(g[mover], bool(m >> mover & 1)) for card, (g, m) in results}
    return Answer(Seat(mover), {Seat(s): Outcome(scores[s], bool(moon >> s & 1)) for s in range(4)},
                  moves)
