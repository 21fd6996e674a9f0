"""Deals a player cannot tell from the real one: the samples of a Monte-Carlo player.

A player sees its own hand and the cards played; the cards it has not seen could lie in any of
the other hands that the play allows. ``samples`` deals them out at random, each consistent
deal equally likely, and ``weigh_cards`` solves them double dummy and averages: which card is
best on what the player knows (``samples_from_view`` and ``weigh_view`` do the same for a bot,
which has only its own cards and the play to go on; ``weigh_deals`` weighs deals drawn by
other means). S, to play to trick 6, weighs its three spades over ten deals:

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
import secrets
from dataclasses import dataclass
from functools import cached_property, lru_cache
from math import factorial
from typing import Any, Callable, Iterable, Mapping

from .analysis import Solver
from .cards import DECK, Card, Seat, SeatLike, cards_of, mask_of
from .deal import Deal, parse_hand
from .errors import HeartsError, SampleError
from .position import Position, first_leader, legal_cards, lowest_club, play_states, rule_against
from .rules import Rules

_Cards = str | Iterable[Card | str]
#: Cards a seat knows others hold, by seat or its letter (a Mapping of either key, each: the
#: key type of a Mapping is invariant, so one of ``Seat | str`` would refuse a ``dict[str, str]``)
Known = Mapping[Seat, _Cards] | Mapping[str, _Cards] | Mapping[Seat | str, _Cards]

#: Draws that the replay of the play may refuse before ``samples`` gives up: the constraints
#: the play puts on the hands are worked out before drawing, so a refusal means they missed one
TRIES = 100
C2 = Card.parse("C2")
#: Seeds the command and the service take: 0 up to this, less one (a signed 64-bit number).
SEED_LIMIT = 2 ** 63


def fresh_seed() -> int:
    """A seed of the system's randomness, for a draw asked without one: said with its answer,
    it repeats the draw."""
    return secrets.randbelow(SEED_LIMIT)


def samples(position: Position, count: int, seat: SeatLike | None = None,
            seed: int | random.Random | None = None,
            known: Known | None = None) -> list[Position]:
    """``count`` positions that ``seat`` (default: the player to move) cannot tell from
    ``position``: the same rules, leader and cards played, ``seat``'s own hand, and the cards it
    has not seen dealt at random to the others, with each deal that fits what ``seat`` has seen
    equally likely. What it has seen includes what the rules made the play show: a seat that
    did not follow suit holds none of it, one that led a heart before hearts were broken holds
    nothing else, one that gave points on the first trick had nothing else it could play.

    ``known`` adds cards ``seat`` knows another seat was dealt (the cards it passed to it, say,
    or a partner's hand): ``{"E": "SQ H2 H3"}``. ``seed`` makes the draw repeatable.
    ``samples_from_view`` draws the same deals from what the seat sees alone.
    """
    if not isinstance(position, Position):
        raise HeartsError(f"samples: expected a Position, got {type(position).__name__}")
    _check_count(count, "samples")
    observer = Seat.of(seat) if seat is not None else position.to_move
    if observer is None:
        raise SampleError("samples: the hand is over and no seat was given", "seat")
    rng = _random(seed, "samples")
    states = play_states(position.rules, position.leader0, position.played)
    low = lowest_club(position.deal) if position.rules.first_lead == "C2" else None
    sight = _Sight(position.rules, observer, position.leader0, position.played, tuple(states),
                   position.deal.hands[observer], position.deal.all_cards, low)
    return _draw(sight, int(count), rng, known, "samples",
                 ("samples: no deal fits what was seen and known", "known"))


def samples_from_view(seat: SeatLike, hand: str | int | Iterable[Card | str],
                      play: str | Iterable[Card | str], count: int,
                      rules: Rules | str | Mapping[str, Any] | None = None,
                      leader: SeatLike | None = None,
                      seed: int | random.Random | None = None,
                      known: Known | None = None
                      ) -> list[Position]:
    """``samples`` from what ``seat`` sees at the table, where no ``Position`` is to be had: the
    13 cards it was dealt (``hand``: the cards it still holds and those it has played; card
    names as a play is written, a PBN hand such as ``"KQT2.8653.A7.K32"``, or a card mask), the
    cards played so far in order, the rules, and the seat that led trick 1 (``leader``: needed
    while ``seat`` has not played to trick 1, with a free first lead or when another seat led
    the 2 of clubs to it: where ``seat`` played to it shows who led). Who played each card
    follows from those, and each of the ``count`` deals drawn is equally likely among those
    that fit, as with ``samples``: from the same view of a real position, the same deals for
    the same ``seed``. Nothing played, the 2 of clubs not in
    ``hand`` and no ``leader`` given: it lies with any other seat, its holder leading.

    Bad input is a ``SampleError`` whose ``field`` names the argument. A bot, S, with the
    cards it was dealt and the 22 cards played, weighs its three spades over ten deals:

    >>> play = "C2 CJ CQ CK S4 S2 S9 ST D6 D9 DJ D4 C8 C5 C6 C3 C9 C7 SJ CA S3 C4"
    >>> deals = samples_from_view("S", "KQ97.Q9.AK54.J75", play, 10, leader="E", seed=1)
    >>> len(deals), {str(q.to_move) for q in deals}, all(q.played == deals[0].played for q in deals)
    (10, {'S'}, True)
    >>> answers = Solver(table_mb=16).analyses([(q, [Seat.S]) for q in deals])
    >>> means = {str(m.card): 0.0 for m in answers[0].moves}
    >>> for a in answers:
    ...     for m in a.moves:
    ...         means[str(m.card)] += m.guarantee / len(answers)
    >>> sorted((round(v, 1), c) for c, v in means.items())
    [(20.8, 'SK'), (20.9, 'S7'), (21.9, 'SQ')]
    """
    _check_count(count, "samples_from_view")
    rng = _random(seed, "samples_from_view")
    sight = _view(seat, hand, play, rules, leader)
    message = "samples_from_view: no deal fits the play" + (" and the known cards" if known else "")
    return _draw(sight, int(count), rng, known, "samples_from_view",
                 (message, "known" if known else "play"))


def _check_count(count: object, name: str) -> None:
    if isinstance(count, bool) or not isinstance(count, numbers.Integral) or count < 0:
        raise SampleError(f"{name}: count must be a whole number of deals, got {count!r}", "count")


def _random(seed: object, name: str = "samples") -> random.Random:
    """The generator of the draws: ``seed`` itself, or one seeded with it (a whole number from
    0, numpy's too, or text), or from the system (None). (Random takes a negative seed as its
    opposite: refused, not drawn alike.)"""
    if isinstance(seed, random.Random):
        return seed
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and int(seed) >= 0:
        return random.Random(int(seed))
    if seed is None or isinstance(seed, (str, bytes)):
        return random.Random(seed)
    raise SampleError(f"{name}: seed must be a whole number from 0, got {seed!r:.40}", "seed")


#: A card of the play that some hand could make illegal: its place in the play, who played
#: it, the trick before it, whether it fell in trick 1 and hearts were broken, the card that
#: had to lead, and every card played before it.
_Check = tuple[int, Card, Seat, tuple[Card, ...], bool, bool, Card | None, int]


@dataclass(frozen=True)
class _Sight:
    """What ``observer`` has seen, all the draw needs: taken from a position, or from the
    seat's view of the table (``_view``)."""

    rules: Rules
    observer: Seat
    leader0: Seat | None    # None: nothing played, and the card forced to lead is unseen
    played: tuple[Card, ...]
    states: tuple[tuple[Seat, tuple[Card, ...], bool], ...]     # play_states of the play
    dealt: int              # the observer's hand as dealt
    deck: int               # every card of the deal
    low: Card | None        # the card that must lead trick 1, if the rules force one

    @property
    def players(self) -> list[Seat]:
        return [s for s, _, _ in self.states]

    @cached_property
    def played_hands(self) -> tuple[int, int, int, int]:
        """Each seat's cards played, as masks, by seat (for the draw and for ``_allowed``)."""
        out = [0, 0, 0, 0]
        for c, (s, _, _) in zip(self.played, self.states):
            out[s] |= c.mask
        return (out[0], out[1], out[2], out[3])

    @cached_property
    def checks(self) -> list[_Check]:
        """The cards of the play that some hand could have made illegal. A card the rules
        refuse is refused for some other card its hand holds (one of the suit led, a card that
        is not a heart...), so a card legal with every card of the deal in hand is legal in
        every deal and rules out no card: following suit, most of a play, needs no check when
        a deal is drawn (``_like``), nor tells anything of the hand (``_allowed``)."""
        out: list[_Check] = []
        gone = 0
        for i, (c, (s, trick, broken)) in enumerate(zip(self.played, self.states)):
            forced = self.low if i == 0 else None
            if not c.mask & legal_cards(self.rules, self.deck, trick, i < 4, broken, forced):
                out.append((i, c, s, trick, i < 4, broken, forced, gone))
            gone |= c.mask
        return out


def _draw(sight: _Sight, count: int, rng: random.Random,
          known: Known | None, name: str,
          none_fits: tuple[str, str]) -> list[Position]:
    """``count`` deals drawn for ``sight``, as positions, the play checked on each."""
    observer = sight.observer
    pinned = _known(sight, known if known is not None else {}, name)
    allowed = _allowed(sight, pinned, name)
    played = sight.played_hands
    size = sight.deck.bit_count() // 4
    draw = _Drawer(allowed, [0 if s == observer else size - played[s].bit_count() for s in Seat],
                   none_fits)
    own = sight.dealt & ~played[observer]
    played_all = played[0] | played[1] | played[2] | played[3]
    out: list[Position] = []
    refused = 0
    first: Position | None = None   # the first deal's position, the play replayed on it
    while len(out) < count:
        hands = draw(rng)
        hands[observer] = own
        deal = Deal._unchecked((hands[0] | played[0], hands[1] | played[1], hands[2] | played[2],
                               hands[3] | played[3]))
        leader0 = sight.leader0
        if leader0 is None:     # (nothing played yet: the holder of the card forced to lead)
            assert sight.low is not None
            leader0 = first_leader(deal, sight.rules)
        try:
            if first is None or leader0 != first.leader0:
                first = Position(deal, sight.rules, leader0, sight.played)
                out.append(first)
            else:
                out.append(_like(first, deal, sight, played_all))
        except HeartsError:
            refused += 1
            if refused > TRIES:
                raise SampleError(f"{name}: no deal drawn for {observer} fits the play "
                                  f"({TRIES} tried)") from None
    return out


def _like(first: Position, deal: Deal, sight: _Sight, played: int) -> Position:
    """The position of ``deal`` after the play of ``first``, whose state but the hands it
    shares (the trick, who leads, the cards taken, hearts broken follow from the play alone):
    each card of ``sight.checks`` checked as ``Position.play_all`` checks it (a ``PlayError``),
    without replaying the rest, which took most of a draw's time."""
    rules, hands = sight.rules, deal.hands
    for i, c, s, trick, first_trick, broken, forced, gone in sight.checks:
        if not c.mask & legal_cards(rules, hands[s] & ~gone, trick, first_trick, broken, forced):
            raise Position(deal, rules, first.leader0, sight.played[:i])._refusal(c)
    out = [h & ~played for h in hands]
    return Position(deal, rules, first.leader0, first.played, (out[0], out[1], out[2], out[3]),
                    first.trick, first.leader, first.taken, first.tricks_won, first.broken)


def _cards(what: object, name: str, field: str) -> int:
    """Cards given as text (card names, or a PBN hand with its dots), cards or a mask."""
    try:
        if isinstance(what, int) and not isinstance(what, bool):
            if what < 0 or what & ~DECK:
                raise SampleError(f"{name}: {field}: {what:#x} holds bits that are no card", field)
            return what
        if isinstance(what, str) and ":" in what:
            seat, _, cards = what.partition(":")
            if seat.strip().upper() in ("N", "E", "S", "W"):
                # (the command's --hand "S:KQ97.Q9.AK54.J75": the seat's letter was read as a
                # spade's rank, "unknown rank 'S' in S")
                raise SampleError(f"{name}: {field}: give the cards alone, without the seat "
                                  f"({cards.strip()!r:.40}, not {what.strip()!r:.44}): the seat is "
                                  "given apart", field)
        if isinstance(what, str) and "." in what:
            return parse_hand(what.strip())
        if isinstance(what, (bytes, bytearray)) or not isinstance(what, (str, Iterable)):
            raise TypeError
        tokens = what.replace(",", " ").split() if isinstance(what, str) else list(what)
        mask = 0
        for c in tokens:
            card = c if isinstance(c, Card) else Card.parse(c)
            if mask & card.mask:
                raise SampleError(f"{name}: {field}: card {card} appears twice", field)
            mask |= card.mask
        return mask
    except SampleError:
        raise
    except HeartsError as e:
        raise SampleError(f"{name}: {field}: {e}", field) from None
    except TypeError:
        raise SampleError(f"{name}: {field}: expected cards, got {what!r:.40}", field) from None


def _view(seat: object, hand: object, play: object, rules: object, leader: object) -> _Sight:
    """What ``seat`` has seen, from its view, checked: the play must be one the seat could
    have seen, its own cards legal from its hand and every other card legal from some hand."""
    name = "samples_from_view"
    try:
        observer = Seat.of(seat)  # type: ignore[arg-type]
    except HeartsError as e:
        raise SampleError(f"{name}: seat: {e}", "seat") from None
    try:
        r = rules if isinstance(rules, Rules) else Rules.parse(rules)  # type: ignore[arg-type]
    except HeartsError as e:
        raise SampleError(f"{name}: rules: {e}", "rules") from None
    dealt = _cards(hand, name, "hand")
    if dealt.bit_count() != 13:
        raise SampleError(f"{name}: hand: expected the 13 cards {observer} was dealt, got "
                          f"{dealt.bit_count()}", "hand")
    if isinstance(play, (bytes, bytearray)) or not isinstance(play, (str, Iterable)):
        raise SampleError(f"{name}: play: expected cards, got {play!r:.40}", "play")
    tokens = play.replace(",", " ").split() if isinstance(play, str) else list(play)
    cards: list[Card] = []
    for i, tok in enumerate(tokens):
        where = f"play card {i + 1} (trick {i // 4 + 1})"
        try:
            c = tok if isinstance(tok, Card) else Card.parse(tok)
        except HeartsError as e:
            raise SampleError(f"{name}: {where}: {e}", "play") from None
        except (TypeError, AttributeError):
            raise SampleError(f"{name}: {where}: expected a card, got {tok!r:.40}",
                              "play") from None
        if c in cards:
            raise SampleError(f"{name}: {where}: {c} was already played, as card "
                              f"{cards.index(c) + 1}", "play")
        cards.append(c)
    low = C2 if r.first_lead == "C2" else None
    try:
        given = None if leader is None else Seat.of(leader)  # type: ignore[arg-type]
    except HeartsError as e:
        raise SampleError(f"{name}: leader: {e}", "leader") from None
    leader0 = given
    # (its own card in trick 1 says who led, with any first lead: a bot from trick 2 on need
    # not say it)
    own = [k for k, c in enumerate(cards[:4]) if dealt & c.mask]
    if low is not None and dealt & low.mask:
        if given is not None and given != observer:
            raise SampleError(f"{name}: leader {given} given, but {observer} holds {low} and "
                              f"must lead it", "leader")
        leader0 = observer
    elif low is not None and given == observer:
        raise SampleError(f"{name}: leader {given} given, but {observer} was not dealt {low}, "
                          f"which leads the first trick", "leader")
    elif given is None and own:
        leader0 = observer.next(4 - own[0])
    elif given is None and low is None:
        raise SampleError(f"{name}: the rules have a free first lead: give the leader",
                          "leader")
    elif given is None and cards:
        raise SampleError(f"{name}: give the leader: the seat that led {low} to the first "
                          "trick", "leader")
    states = play_states(r, leader0, cards) if cards else []  # type: ignore[arg-type]
    later = [0, 0, 0, 0]     # each seat's cards played from the card in question on
    for c, (s, _, _) in zip(cards, states):
        later[s] |= c.mask
    for i, (c, (s, trick, broken)) in enumerate(zip(cards, states)):
        where = f"{name}: play card {i + 1} (trick {i // 4 + 1})"
        forced = low if i == 0 else None
        if s == observer:
            if not dealt & c.mask:
                raise SampleError(f"{where}: {s} played {c}, which {s} was not dealt", "play")
            h = later[s] | (dealt & ~mask_of(cards))
            if not c.mask & legal_cards(r, h, trick, i < 4, broken, forced):
                raise SampleError(f"{where}: {rule_against(c, s, h, trick, broken, forced)}",
                                  "play")
        elif dealt & c.mask:
            raise SampleError(f"{where}: {s} played {c}, which is in {observer}'s hand", "play")
        elif not c.mask & legal_cards(r, later[s], trick, i < 4, broken, forced):
            # (the fewer cards held, the more are legal: a card refused from the cards the seat
            # played from here on is refused from any hand; one of them is enough to say why)
            then = [x for x in cards[i + 1:] if later[s] & x.mask and not c.mask & legal_cards(
                r, c.mask | x.mask, trick, i < 4, broken, forced)]
            h = c.mask | (then[0].mask if then else 0)
            raise SampleError(f"{where}: {rule_against(c, s, h, trick, broken, forced)}"
                              + (f" ({s} plays {then[0]} later)" if then else ""), "play")
        later[s] &= ~c.mask
    return _Sight(r, observer, leader0, tuple(cards), tuple(states), dealt, DECK, low)


def _known(sight: _Sight, known: Known,
           name: str) -> dict[Seat, int]:
    """The cards ``known`` names, checked against what the observer sees."""
    if not isinstance(known, Mapping):
        raise SampleError(f"{name}: known must map seats to cards, got {type(known).__name__}",
                          "known")
    observer = sight.observer
    players = sight.players
    out: dict[Seat, int] = {}
    for who, cards in known.items():
        try:
            s = Seat.of(who)
        except HeartsError as e:
            raise SampleError(f"{name}: known: {e}", "known") from None
        try:
            if isinstance(cards, (bytes, bytearray)):
                raise TypeError
            tokens = cards.replace(",", " ").split() if isinstance(cards, str) else list(cards)
            mask = mask_of(c if isinstance(c, Card) else Card.parse(c) for c in tokens)
        except HeartsError as e:
            raise SampleError(f"{name}: known {s}: {e}", "known") from None
        except TypeError:
            raise SampleError(f"{name}: known {s}: expected cards, got {cards!r:.40}",
                              "known") from None
        for c in cards_of(mask):
            twice = [t for t, m in out.items() if m & c.mask and t != s]
            if twice:
                raise SampleError(f"{name}: known card {c} given for both {twice[0]} and {s}",
                                  "known")
            if not sight.deck & c.mask:
                raise SampleError(f"{name}: known card {c} of {s} is not in the deal", "known")
            if (s == observer) != bool(sight.dealt & c.mask):
                raise SampleError(f"{name}: known card {c} of {s} is " + (
                    f"not in {s}'s hand" if s == observer else f"in {observer}'s own hand"),
                    "known")
            by = players[sight.played.index(c)] if c in sight.played else s
            if by != s:
                raise SampleError(f"{name}: known card {c} of {s} was played by {by}", "known")
        out[s] = out.get(s, 0) | mask
    return out


def _allowed(sight: _Sight, known: dict[Seat, int], name: str = "samples") -> list[int]:
    """For each seat, the cards not yet seen that it may hold: the observer none, the others
    those the play does not rule out (each card they played was legal with it in hand, and
    none of the cards known to be another's)."""
    observer, rules = sight.observer, sight.rules
    unseen = sight.deck & ~sight.dealt & ~mask_of(sight.played)
    allowed = [0 if s == observer else unseen for s in Seat]
    played = sight.played_hands
    for _, c, s, trick, first_trick, broken, forced, gone in sight.checks:
        if s != observer:
            later = played[s] & ~gone     # its cards played from this one on
            for u in cards_of(allowed[s]):
                if not c.mask & legal_cards(rules, later | u.mask, trick, first_trick, broken, forced):
                    allowed[s] &= ~u.mask
    low, leader0 = sight.low, sight.leader0   # (the same card in every sample: the cards are)
    if low is not None and leader0 is not None and unseen & low.mask:
        elsewhere = [s for s, mask in known.items() if mask & low.mask and s != leader0]
        if elsewhere:
            raise SampleError(f"{name}: known card {low} of {elsewhere[0]}: {low} leads the "
                              f"first trick, so {leader0} holds it", "known")
        known = {**known, leader0: known.get(leader0, 0) | low.mask}
    for s, mask in known.items():
        for t in Seat:
            if t != s:
                allowed[t] &= ~mask
        if s != observer and mask & unseen & ~allowed[s]:
            c = next(cards_of(mask & unseen & ~allowed[s]))
            raise SampleError(f"{name}: known card {c} of {s} does not fit the play", "known")
    return allowed


class _Drawer:
    """Uniform draws of the unseen cards into hands of given sizes, each card to a seat that
    may hold it: the cards fall into groups by the seats that may hold them, and a count of
    the ways to deal each group's split and the groups after it weighs every split."""

    def __init__(self, allowed: list[int], sizes: list[int],
                 none_fits: tuple[str, str] = ("samples: no deal fits what was seen and known",
                                               "known")) -> None:
        groups: dict[tuple[Seat, ...], int] = {}
        for c in cards_of(allowed[0] | allowed[1] | allowed[2] | allowed[3]):
            who = tuple(s for s in Seat if allowed[s] >> c & 1)
            groups[who] = groups.get(who, 0) | c.mask
        # each group's seats and cards (as numbers, in the order they are shuffled from)
        self.groups = [(seats, tuple(int(c) for c in cards_of(mask))) for seats, mask in groups.items()]
        self.sizes = tuple(sizes)
        self.ways = lru_cache(maxsize=None)(self._ways)
        self.options = lru_cache(maxsize=None)(self._options)
        if self.ways(0, self.sizes) == 0:
            raise SampleError(*none_fits)

    def _splits(self, k: int, room: tuple[int, ...]) -> Iterable[tuple[tuple[int, ...], int]]:
        """Each way to share group ``k`` among its seats within ``room``, with the number of
        ways to pick its cards for that split."""
        seats, cards = self.groups[k]
        n = len(cards)

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
        return sum(weight for _, weight, _ in self.options(k, room))

    def _options(self, k: int, room: tuple[int, ...]
                 ) -> tuple[tuple[tuple[int, ...], int, tuple[int, ...]], ...]:
        """Each split of group ``k`` within ``room``, with its weight (the deals it leads to)
        and the room left after it: worked out once for every draw that meets them."""
        out = []
        for split, ways in self._splits(k, room):
            after = self._after(k, room, split)
            out.append((split, ways * self.ways(k + 1, after), after))
        return tuple(out)

    def __call__(self, rng: random.Random) -> list[int]:
        hands = [0, 0, 0, 0]
        room = self.sizes
        for k, (seats, cards) in enumerate(self.groups):
            pick = rng.randrange(self.ways(k, room))
            for split, weight, after in self.options(k, room):
                if pick < weight:
                    break
                pick -= weight
            dealt = list(cards)
            rng.shuffle(dealt)
            at = 0
            for s, a in zip(seats, split):
                for c in dealt[at:at + a]:
                    hands[s] |= 1 << c
                at += a
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
    """``seat``'s cards weighed over sampled deals (``weigh_cards``, ``weigh_view``,
    ``weigh_deals``): ``cards[0]`` is the one to play. ``cards`` is empty when the solver's
    limits left no deal answered (``answered == 0``): a player with a time budget needs a
    card of its own choosing then."""

    seat: Seat
    drawn: int                  # deals drawn
    answered: int               # of them, analysed within the solver's limits
    cards: list[CardWeight]     # lowest mean first
    #: Deal 1 (None if none was drawn): the seat's hand and the trick, as in every deal, for a
    #: report of the weighing (``report.render_weighing``) with no deals of its own.
    first_deal: Position | None = None

    def to_json(self) -> dict[str, Any]:
        return {"seat": str(self.seat), "samples": self.drawn, "answered": self.answered,
                "cards": [{"card": str(w.card), "mean_guarantee": round(w.mean, 3),
                           "best_in": w.best_in} for w in self.cards]}


def weigh_cards(solver: Solver, position: Position, count: int,
                seed: int | random.Random | None = None,
                known: Known | None = None,
                share: float = 0.2, done: Callable[[], None] | None = None) -> Weighing:
    """The cards of the player to move weighed over ``count`` deals it cannot tell from
    ``position`` (``samples``): what a Monte-Carlo player would choose on what it has seen,
    where the double-dummy answer uses every card. Deals the solver's limits cut short are
    left out (``share`` of a time limit as for ``Solver.analyses``; ``done()``, if given, is
    called as each deal is answered, for a progress display)."""
    _check_weighing(solver, done, "weigh_cards")
    if not isinstance(position, Position):
        raise HeartsError(f"weigh_cards: expected a Position, got {type(position).__name__}")
    seat = position.to_move
    if seat is None:
        raise HeartsError("weigh_cards: the hand is over: no card to weigh")
    return _weigh(solver, seat, samples(position, count, seat, seed, known), share, done,
                  "weigh_cards")


def weigh_view(solver: Solver, seat: SeatLike, hand: str | int | Iterable[Card | str],
               play: str | Iterable[Card | str], count: int,
               rules: Rules | str | Mapping[str, Any] | None = None,
               leader: SeatLike | None = None,
               seed: int | random.Random | None = None, known: Known | None = None,
               share: float = 0.2, done: Callable[[], None] | None = None) -> Weighing:
    """``weigh_cards`` from what ``seat``, to play, sees at the table (the deals of
    ``samples_from_view``, its arguments as there): which card to play, for a player that
    knows only its own cards and the play. Bad input is a ``SampleError`` naming the argument.

    >>> play = "C2 CJ CQ CK S4 S2 S9 ST D6 D9 DJ D4 C8 C5 C6 C3 C9 C7 SJ CA S3 C4"
    >>> w = weigh_view(Solver(table_mb=16), "S", "KQ97.Q9.AK54.J75", play, 10, leader="E", seed=1)
    >>> [(str(c.card), c.mean, c.best_in) for c in w.cards]
    [('SK', 20.8, 9), ('S7', 20.9, 8), ('SQ', 21.9, 7)]
    """
    _check_weighing(solver, done, "weigh_view")
    deals = samples_from_view(seat, hand, play, count, rules, leader, seed, known)
    observer = Seat.of(seat)
    lead = deals[0].forced_lead if deals and leader is None else None
    if lead is not None and any(q.to_move != observer for q in deals):
        # (its holder is not known: the deals drawn said "it is N's turn" or "it is E's turn",
        # as the seed drew them)
        raise SampleError(f"weigh_view: {observer} is not to play (the holder of {lead} leads "
                          "trick 1, and it is not in its hand)", "seat")
    return _weigh(solver, observer, deals, share, done, "weigh_view")


def weigh_deals(solver: Solver, seat: SeatLike, deals: Iterable[Position], share: float = 0.2,
                done: Callable[[], None] | None = None) -> Weighing:
    """``seat``'s cards weighed over ``deals`` drawn as a player would (``samples`` or one's own
    draw): each with the same play, ``seat`` to play in each, holding the same cards
    (``weigh_cards``' other arguments as there)."""
    _check_weighing(solver, done, "weigh_deals")
    try:
        observer = Seat.of(seat)
    except HeartsError as e:
        raise SampleError(f"weigh_deals: seat: {e}", "seat") from None
    if isinstance(deals, (str, bytes, Position)) or not isinstance(deals, Iterable):
        raise HeartsError(f"weigh_deals: deals: expected positions, got {type(deals).__name__}")
    deals = list(deals)
    for i, q in enumerate(deals):
        if not isinstance(q, Position):
            raise HeartsError(f"weigh_deals: deal {i + 1}: expected a Position, got "
                              f"{type(q).__name__}")
        if q.played != deals[0].played:     # (else a card's mean would count deals it had none)
            raise SampleError(f"weigh_deals: deal {i + 1}: its play differs from deal 1's", "deals")
    return _weigh(solver, observer, deals, share, done, "weigh_deals")


def _weigh(solver: Solver, observer: Seat, deals: list[Position], share: float,
           done: Callable[[], None] | None, name: str) -> Weighing:
    """``weigh_deals``, its arguments checked but for the deals' turns and hands (an error
    names the function ``name``)."""
    # (one play in every deal: the seat to play differs only where the leader of trick 1 does,
    # nothing played yet, and the observer, holding the card forced to lead or not, is never it)
    movers = {q.to_move for q in deals}
    if movers - {observer}:
        names = sorted(f"{s}'s" for s in movers if s is not None)     # "E's, N's or W's turn"
        turns = " or ".join([", ".join(names[:-1]), *names[-1:]] if len(names) > 1 else names)
        why = "the hand is over" if movers == {None} else f"it is {turns} turn"
        raise SampleError(f"{name}: {observer} is not to play ({why})", "seat")
    for i, q in enumerate(deals):
        if q.hands[observer] != deals[0].hands[observer]:
            raise SampleError(f"{name}: deal {i + 1}: {observer} holds other cards than in "
                              "deal 1", "deals")

    def tick(i: int, answer: Any) -> None:
        if done is not None:
            done()

    answers = [a for a in solver.analyses([(q, [observer]) for q in deals], partial=True,
                                          share=share, done=tick) if a is not None]
    total: dict[Card, int] = {}
    best: dict[Card, int] = {}
    for a in answers:
        for m in a.moves:
            total[m.card] = total.get(m.card, 0) + m.guarantee
            best[m.card] = best.get(m.card, 0) + m.best
    weights = [CardWeight(c, total[c] / len(answers), best[c]) for c in total]
    return Weighing(observer, len(deals), len(answers),
                    sorted(weights, key=lambda w: (w.mean, -w.best_in)), deals[0] if deals else None)


def _check_weighing(solver: object, done: object, name: str) -> None:
    if not isinstance(solver, Solver):
        raise HeartsError(f"{name}: expected a Solver, got {type(solver).__name__}")
    if done is not None and not callable(done):
        raise HeartsError(f"{name}: done: expected a function, got {type(done).__name__}")
