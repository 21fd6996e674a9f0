"""Positions: a deal, the rules and the cards played so far, checked card by card.

>>> from solver.deal import Deal
>>> d = Deal.parse("N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4")
>>> p = Position.start(d).play_all("C2 CA C5 C4")
>>> str(p.to_move), p.trick_number, p.raw_points(Seat.E)
('E', 2, 0)
>>> p.play("HK")
Traceback (most recent call last):
...
solver.errors.PlayError: trick 2: E cannot lead HK (hearts are not broken)
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from .cards import SUITS, Card, Seat, SeatLike, cards_of, mask_of, suit_mask
from .deal import Deal
from .errors import CardError, DealError, HeartsError, LeaderNeeded, PlayError
from .rules import Rules

HEART_MASK = suit_mask(SUITS.index("H"))
CLUB = SUITS.index("C")
SQ = Card.parse("SQ")
SUIT_NAMES = {0: "spades", 1: "hearts", 2: "diamonds", 3: "clubs"}
_SEATS = tuple(Seat)
_SIDE_SEATS = (tuple((s,) for s in Seat), ((Seat.N, Seat.S), (Seat.E, Seat.W)))   # by partnership


def legal_cards(rules: Rules, h: int, trick: Sequence[Card], first_trick: bool, broken: bool,
                forced: Card | None) -> int:
    """The legal cards of ``h``, the hand of the player to move (``forced``: the card that must
    lead trick 1, if any): for a position, and for a hand the play only partly shows
    (``sampling``)."""
    if trick:
        follow = h & suit_mask(trick[0] >> 4)
        legal = follow or h
    elif forced is not None:
        legal = 1 << forced
    elif not broken and h & ~HEART_MASK:
        legal = h & ~HEART_MASK
    else:
        legal = h
    if first_trick and not rules.first_trick_points:
        legal = legal & ~rules.point_mask or legal
    return legal


def lowest_club(deal: Deal) -> Card | None:
    """The card that leads trick 1 unless the lead is free: the 2 of clubs in a full deal."""
    clubs = deal.all_cards & suit_mask(CLUB)
    return Card.from_index((clubs & -clubs).bit_length() - 1) if clubs else None


def first_leader(deal: Deal, rules: Rules, leader: SeatLike | None = None) -> Seat:
    """Who leads trick 1: the holder of the lowest club, or the given seat with a free lead."""
    given = None if leader is None else Seat.of(leader)
    if rules.first_lead == "free":
        if given is None:
            raise LeaderNeeded("the rules have a free first lead: give the leader")
        return given
    low = lowest_club(deal)
    if low is None:
        if given is None:
            raise LeaderNeeded("the deal has no clubs to lead: give the leader")
        return given
    holder = deal.holder(low)
    assert holder is not None
    if given is not None and given != holder:
        raise PlayError(f"leader {given} given, but {holder} holds {low} and must lead it")
    return holder


def rule_against(card: Card, seat: Seat, h: int, trick: Sequence[Card], broken: bool,
                 forced: Card | None) -> str:
    """Why the rules forbid ``seat`` to play ``card`` from ``h``, a hand holding it where
    ``legal_cards`` leaves it out (a position's refusals, and a seat's own play checked from
    its view by ``sampling``)."""
    led = trick[0].suit if trick else None
    verb = "lead" if led is None else "play" if card.suit == led else "discard"
    if led is not None and card.suit != led and h & suit_mask(led):
        return f"{seat} cannot play {card}: must follow {SUIT_NAMES[led]}"
    if not trick and forced is not None and card != forced:
        return f"{seat} cannot lead {card}: {forced} must lead the first trick"
    if not trick and card.mask & HEART_MASK and not broken:
        return f"{seat} cannot lead {card} (hearts are not broken)"
    return f"{seat} cannot {verb} {card}: no point cards on the first trick"


def trick_winner(trick: Sequence[Card]) -> int:
    """How many seats after its leader the winner of a whole trick sits: the highest card of
    the suit led."""
    lead, best = trick[0] >> 4, 0
    for k in (1, 2, 3):
        if trick[k] >> 4 == lead and trick[k] > trick[best]:
            best = k
    return best


def breaks_hearts(won: int, queen_breaks: bool) -> bool:
    """Whether a trick of cards ``won`` breaks hearts: a heart in it, or with ``hearts_break:
    queen`` the queen of spades."""
    return bool(won & HEART_MASK) or (queen_breaks and bool(won & SQ.mask))


def play_states(rules: Rules, leader0: Seat, played: Sequence[Card]
                ) -> list[tuple[Seat, tuple[Card, ...], bool]]:
    """For each card of ``played`` (trick 1 led by ``leader0``), who played it, the trick
    before it and whether hearts were broken: with the hand and the first-trick lead, what
    ``legal_cards`` needs. A trick's winner follows from its cards alone, so no hand is needed
    (``sampling`` works out what a seat's view of the play shows with it)."""
    out: list[tuple[Seat, tuple[Card, ...], bool]] = []
    leader, broken = Seat.of(leader0), rules.hearts_break == "none"
    queen_breaks = rules.hearts_break == "queen"
    trick: tuple[Card, ...] = ()
    for c in played:
        out.append((leader.next(len(trick)), trick, broken))
        trick = (*trick, c)
        if len(trick) == 4:
            leader = leader.next(trick_winner(trick))
            broken = broken or breaks_hearts(mask_of(trick), queen_breaks)
            trick = ()
    return out


@dataclass(frozen=True)
class Position:
    """Immutable: ``play`` returns a new position. Sides are seats, or seat & 1 with partnerships."""

    deal: Deal
    rules: Rules
    leader0: Seat
    played: tuple[Card, ...] = ()
    # derived state, filled by start and play_all
    hands: tuple[int, int, int, int] = field(default=(0, 0, 0, 0), compare=False)
    trick: tuple[Card, ...] = field(default=(), compare=False)
    leader: Seat = field(default=Seat.N, compare=False)
    taken: tuple[int, int, int, int] = field(default=(0, 0, 0, 0), compare=False)
    tricks_won: tuple[int, int, int, int] = field(default=(0, 0, 0, 0), compare=False)
    broken: bool = field(default=False, compare=False)

    def __post_init__(self) -> None:
        """``Position(deal, rules, leader0, played)`` made directly gets its state from the
        cards played, checked as ``start`` and ``play_all`` check them: without it, the
        position looked over (no cards in hand) yet equal to the real one."""
        if any(self.hands) or self.trick or any(self.taken) or not isinstance(self.deal, Deal) \
                or not self.deal.all_cards:
            return
        p = Position.start(self.deal, self.rules, self.leader0).play_all(self.played)
        # (the rules, leader and cards as read too: rules by name, a list of cards' names made
        # a position that did not hash, nor show itself)
        for name in ("rules", "leader0", "played", "hands", "trick", "leader", "taken",
                     "tricks_won", "broken"):
            object.__setattr__(self, name, getattr(p, name))

    @classmethod
    def start(cls, deal: Deal, rules: Rules | str | Mapping[str, Any] | None = None,
              leader: SeatLike | None = None) -> "Position":
        """Trick 1 about to be led; ``rules`` a Rules, or what ``Rules.parse`` reads."""
        if not isinstance(deal, Deal):
            raise DealError(f"expected a Deal (Deal.parse reads a deal string), got {type(deal).__name__}")
        r = rules if isinstance(rules, Rules) else Rules.parse(rules)
        lead = first_leader(deal, r, leader)
        return cls(deal, r, lead, (), deal.hands, (), lead, (0, 0, 0, 0), (0, 0, 0, 0),
                   r.hearts_break == "none")

    @classmethod
    def from_play(cls, deal: Deal, rules: Rules | str | Mapping[str, Any] | None = None,
                  play: str | Iterable[Card | str] | None = "",
                  leader: SeatLike | None = None) -> "Position":
        """``start(deal, rules, leader)`` with ``play`` played, each card checked (``PlayError``
        names the first the rules forbid).

        >>> d = Deal.parse("N:A..2. K..3. Q..4. .J.5.")
        >>> Position.from_play(d, {"first_lead": "free"}, "D2 D3", leader="N").to_move
        <Seat.S: 2>
        """
        return cls.start(deal, rules, leader).play_all(play or "")

    def __repr__(self) -> str:
        # what makes the position again, not its deal's masks, every rule value and its state
        play = " ".join(map(str, self.played))
        return (f"Position.from_play({self.deal!r}, {self.rules.shortest()!r}, {play!r}, "
                f"leader={str(self.leader0)!r})")

    def to_json(self) -> dict[str, Any]:
        """The position as a request gives it (SPEC §4's first keys): deal, play, rules and the
        leader of trick 1."""
        return {"deal": self.deal.pbn(), "play": " ".join(str(c) for c in self.played),
                "rules": self.rules.to_dict(), "leader": str(self.leader0)}

    # -- state -------------------------------------------------------------------------
    @property
    def trick_number(self) -> int:
        return len(self.played) // 4 + 1

    @property
    def is_over(self) -> bool:
        return not any(self.hands) and not self.trick

    @property
    def to_move(self) -> Seat | None:
        return None if self.is_over else self.leader.next(len(self.trick))

    @property
    def first_trick(self) -> bool:
        return len(self.played) < 4

    @property
    def forced_lead(self) -> Card | None:
        """The card that must lead trick 1 (the lowest club), if the rules force one."""
        if self.played or self.rules.first_lead != "C2":
            return None
        return lowest_club(self.deal)

    def side(self, seat: SeatLike) -> int:
        """The side ``seat`` (a seat, its letter or its number) plays for: its number, or with
        partnerships 0 for N/S and 1 for E/W."""
        seat = seat if type(seat) is Seat else Seat.of(seat)   # (a hot path: most get a Seat)
        return int(seat) & 1 if self.rules.partnership else int(seat)

    def side_seats(self, side: int | Seat) -> tuple[Seat, ...]:
        """The seats of a side: ``side`` is its number (0–3, with partnerships 0 for N/S and 1
        for E/W, as ``side`` gives it), or a seat, which stands for its side."""
        pair = self.rules.partnership
        if type(side) is int and 0 <= side < (2 if pair else 4):
            return _SIDE_SEATS[pair][side]     # (a hot path: the solver's own questions)
        sides = 2 if pair else 4
        if isinstance(side, Seat):
            side = self.side(side)
        elif isinstance(side, bool) or not isinstance(side, int) or not 0 <= side < sides:
            raise HeartsError(f"side {side!r}: expected a side's number (0 to {sides - 1}) or a seat")
        return (Seat(side), Seat(side + 2)) if self.rules.partnership else (Seat(side),)

    def side_name(self, side: int | Seat) -> str:
        """A side as answers name it: its seat, or both ("N/S") with partnerships."""
        return "/".join(map(str, self.side_seats(side)))

    @property
    def moon_state(self) -> int:
        """0: nobody has taken a point card; 1 + side: only that side has; 7: several have."""
        pm = self.rules.point_mask
        pair = self.rules.partnership
        taker = -1
        for i, cards in enumerate(self.taken):
            if cards & pm:
                side = i & 1 if pair else i
                if taker >= 0 and side != taker:
                    return 7
                taker = side
        return taker + 1

    @property
    def moon_total(self) -> int:
        return self.rules.moon_total_of(self.deal.all_cards)

    @property
    def cards_left(self) -> int:
        """Cards still to be played."""
        h = self.hands
        return (h[0] | h[1] | h[2] | h[3]).bit_count()    # (the hands hold no card twice)

    def taken_by(self, side: int | Seat) -> int:
        """The cards a side has taken, as a mask."""
        seats = self.side_seats(side)
        return self.taken[seats[0]] | self.taken[seats[-1]]

    def raw_points(self, side: int | Seat) -> int:
        """Card values and trick points a side has taken, before any moon."""
        tricks = sum(self.tricks_won[s] for s in self.side_seats(side))
        return self.rules.points_of(self.taken_by(side)) + self.rules.trick_points * tricks

    def score(self, seat: SeatLike) -> int:
        """The final hand score of a seat (its side's score with partnerships), moon applied."""
        if not self.is_over:
            raise PlayError("the hand is not over: no final score yet")
        side = self.side(Seat.of(seat))
        raw = self.raw_points(side)
        ms = self.moon_state
        M = self.moon_total
        if M <= 0 or ms in (0, 7):
            return raw
        mode = self.rules.moon
        pos = self.rules.moon_total_of(self.taken_by(side))
        if ms - 1 == side:
            return raw - pos + {"add": 0, "subtract": -M, "none": M}[mode]
        return raw + {"add": M, "subtract": 0, "none": 0}[mode]

    # -- legality ----------------------------------------------------------------------
    def legal_mask(self) -> int:
        seat = self.to_move
        if seat is None:
            return 0
        return legal_cards(self.rules, self.hands[seat], self.trick, self.first_trick, self.broken,
                      self.forced_lead)

    def legal_moves(self) -> list[Card]:
        return list(cards_of(self.legal_mask()))

    def _why_illegal(self, card: Card, seat: Seat) -> str:
        h = self.hands[seat]
        if not h >> card & 1:
            holder = self.deal.holder(card)
            if holder is None:
                return f"{seat} cannot play {card}: it is not in the deal"
            if card in self.played:
                return (f"{seat} cannot play {card}: it was already played, in trick "
                        f"{self.played.index(card) // 4 + 1}")
            return f"{seat} cannot play {card}: it is {holder}'s card"
        return rule_against(card, seat, h, self.trick, self.broken, self.forced_lead)

    def play(self, card: Card | str) -> "Position":
        trick, hands = self.trick, self.hands
        if type(card) is Card and len(trick) < 3:
            # (most of the solver's children: no trick ends, so only a hand and the trick
            # change; the rest, and every refusal, as play_all plays them)
            seat = (self.leader + len(trick)) & 3
            bit = 1 << card
            if bit & hands[seat] & legal_cards(self.rules, hands[seat], trick, len(self.played) < 4,
                                               self.broken, self.forced_lead):
                after = list(hands)
                after[seat] &= ~bit
                return Position(self.deal, self.rules, self.leader0, (*self.played, card),
                                (after[0], after[1], after[2], after[3]), (*trick, card),
                                self.leader, self.taken, self.tricks_won, self.broken)
        return self.play_all((card if isinstance(card, Card) else Card.parse(card),))

    def play_all(self, cards: str | Iterable[Card | str]) -> "Position":
        """Play a sequence (a space- or comma-separated string, or cards); errors name the card.

        The state is followed in plain ints and one position made at the end: a Monte-Carlo
        player's samples each replay dozens of cards, which position by position took longer
        than solving the sample near the end."""
        if isinstance(cards, str):
            tokens: list[Card | str] = [*cards.replace(",", " ").split()]
        elif isinstance(cards, Iterable):
            tokens = list(cards)
        else:   # (None, a lone card's index: a PlayError, as every bad play is)
            raise PlayError(f"play: expected cards (a string such as \"C2 CA\", or Cards), "
                            f"got {type(cards).__name__}")
        rules, forced = self.rules, self.forced_lead
        hands, trick, played = list(self.hands), list(self.trick), list(self.played)
        taken, won = list(self.taken), list(self.tricks_won)
        leader, broken = int(self.leader), self.broken
        queen_breaks = rules.hearts_break == "queen"

        def position() -> Position:
            return Position(self.deal, rules, self.leader0, tuple(played),
                            tuple(hands), tuple(trick), _SEATS[leader],  # type: ignore[arg-type]
                            tuple(taken), tuple(won), broken)  # type: ignore[arg-type]

        for i, tok in enumerate(tokens):
            try:
                c = tok if isinstance(tok, Card) else Card.parse(tok)
            except CardError as e:
                raise PlayError(f"play card {i + 1} (trick {i // 4 + 1}): {e}") from None
            seat = (leader + len(trick)) & 3
            bit = 1 << c
            if not (trick or hands[0] | hands[1] | hands[2] | hands[3]) or not bit & legal_cards(
                    rules, hands[seat], trick, len(played) < 4, broken, None if played else forced):
                raise position()._refusal(c)
            hands[seat] &= ~bit
            trick.append(c)
            played.append(c)
            if len(trick) == 4:
                leader = (leader + trick_winner(trick)) & 3
                won_cards = (1 << trick[0]) | (1 << trick[1]) | (1 << trick[2]) | bit
                taken[leader] |= won_cards
                won[leader] += 1
                broken = broken or breaks_hearts(won_cards, queen_breaks)
                trick = []
        return position()

    def _refusal(self, card: Card) -> PlayError:
        """Why the player to move may not play ``card`` here."""
        seat = self.to_move
        if seat is None:
            # (SPEC §4: the error says which card and where: here, after the last trick)
            return PlayError(f"after trick {len(self.played) // 4}, the last: no one can play "
                             f"{card}: the hand is already over")
        return PlayError(f"trick {self.trick_number}: {self._why_illegal(card, seat)}")

    def random_play(self, rng: random.Random, cards: int) -> "Position":
        """After up to ``cards`` random legal cards (fewer if the hand ends first): positions
        part-way through a deal, for sampling and testing."""
        p = self
        for _ in range(cards):
            if p.is_over:
                break
            p = p.play(rng.choice(p.legal_moves()))
        return p
