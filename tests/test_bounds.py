"""The static rules behind the engine's bounds (solver/_bounds.pxd), each claim checked by plain
search on random positions built to make the rules fire.

A bound that claims too much gives a wrong answer only in the rare positions where the
outcome it rules out is also the best one, so comparing final answers (test_bruteforce.py)
can miss it for a long time: the first version of the moon guard was wrong for that reason.
Here each claim is checked on its own: the engine says what it claims at a trick boundary
(``Engine.claims``), or inside a trick (``Engine.trick_claim``, ``trick_lost_claim``,
``shot_lost_claim``), and an AND/OR search over every card sequence (``forced``) tries to
refute it. Each claim is checked again after the cards below the ones it relied on are dealt
anew among the same hands (suit lengths kept), as the transposition table will reuse it there.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

import brute
from endgames import dealt_round, leader_for
from solver.analysis import Solver
from solver.cards import DECK, Card, Seat, cards_of
from solver.deal import Deal
from solver.position import Position, first_leader
from solver.rules import Rules

# After trick 1 and with hearts open: only following suit restricts a card.
OPEN_PLAY = {"first_lead": "free", "first_trick_points": True, "hearts_break": "none"}
POINT_RULES = {
    "standard": {},
    "spot": {"preset": "spot"},
    "custom": {"values": {"H": 2, "SQ": 0, "SK": 7, "DJ": -10, "C": -1}},
    "partnership": {"partnership": True},
}
TRICK_RULES = {
    "bridge": {"preset": "bridge"},
    "tricks-minus": {"values": {"H": 0, "SQ": 0}, "trick_points": -1},
}
POSITIONS = 400  # per rule set


def forced(game: brute.Game, team: Callable[[int], bool], goal: Callable[[brute.Game], bool | None]) -> bool:
    """Can the seats for which ``team`` holds, playing together, make ``goal`` true whatever
    the others play? ``goal`` is asked after every trick and at the end: True or False settles
    the line, None plays on."""
    if not game.trick:
        settled = goal(game)
        if settled is not None:
            return settled
        assert not game.is_over, "the goal must settle the line by the end of the hand"
    ours = team(game.to_move)
    for card in brute.bits(game.legal_mask()):
        game.play(card)
        result = forced(game, team, goal)
        game.undo()
        if result == ours:
            return result
    return not ours


def random_position(rng: random.Random, rules: Rules) -> tuple[Deal, Seat]:
    """Two to four cards a hand from two or three suits rich in point cards, and a leader."""
    size = rng.choice((2, 3, 3, 4))
    suits = rng.sample(range(4), rng.choice((2, 2, 3)))
    if rules.point_mask and rng.random() < 0.7:
        suits = sorted({0, 1} | set(suits[:1]))  # spades (SQ) and hearts
    pool = [c for c in cards_of(DECK) if c.suit in suits]
    chosen = rng.sample(pool, 4 * size)
    return dealt_round(chosen), Seat(rng.randrange(4))


def redeal_below(deal: Deal, relied: int, rng: random.Random) -> Deal:
    """The same hands' suit lengths and the same owners of every card at or above the lowest
    relied-on card of its suit; the cards below it dealt anew among their holders."""
    hands = list(deal.hands)
    for suit in range(4):
        lane = 0x1FFF << (16 * suit)
        cut = relied & lane
        floor = (cut & -cut) if cut else 1 << (16 * suit + 13)
        low = [c for c in brute.bits(deal.all_cards & lane) if (1 << c) < floor]
        owners = [next(s for s in range(4) if hands[s] >> c & 1) for c in low]
        rng.shuffle(owners)
        for s in range(4):
            hands[s] &= ~sum(1 << c for c in low)
        for c, s in zip(low, owners):
            hands[s] |= 1 << c
    return Deal(tuple(hands))  # type: ignore[arg-type]


def redeal_trick(deal: Deal, leader: Seat, trick: list[int], relied: int,
                 rng: random.Random) -> tuple[Deal, list[int]]:
    """``redeal_below`` for a position inside a trick: the deal before it dealt anew below the
    cards relied on, and the trick's cards, each one below them then a small card of the same
    suit from the same hand (the table would reuse a claim there)."""
    again = redeal_below(deal, relied, rng)
    trick_again: list[int] = []
    for i, card in enumerate(trick):
        seat = (int(leader) + i) % 4
        if not again.hands[seat] >> card & 1:
            lane = 0x1FFF << (card & ~15)
            cut = relied & lane
            small = again.hands[seat] & lane & ((cut & -cut) - 1)
            small &= ~sum(1 << c for c in trick_again)
            card = rng.choice(list(brute.bits(small)))
        trick_again.append(card)
    return again, trick_again


def after(deal: Deal, rules: Rules, leader: Seat, cards: list[int]) -> brute.Game:
    """The game of ``deal`` once ``cards`` have been played."""
    game = brute.Game(deal, rules, leader)
    for card in cards:
        game.play(card)
    return game


@dataclass
class TrickCase:
    """A random position one to three cards into its first trick, and a target side."""
    deal: Deal
    leader: Seat
    trick: list[int]
    target: int
    game: brute.Game  # after the trick's cards


def trick_cases(rules: Rules, rng: random.Random) -> Iterator[TrickCase]:
    """2 * POSITIONS such positions under ``rules``."""
    sides = 2 if rules.partnership else 4
    for _ in range(2 * POSITIONS):
        deal, leader = random_position(rng, rules)
        game = brute.Game(deal, rules, leader)
        trick = random_trick(rng, game, (1, 2, 2, 3, 3))
        yield TrickCase(deal, leader, trick, rng.randrange(sides), game)


def random_trick(rng: random.Random, game: brute.Game, counts: tuple[int, ...]) -> list[int]:
    """Play ``rng.choice(counts)`` random legal cards of the first trick of ``game``."""
    trick: list[int] = []
    for _ in range(rng.choice(counts)):
        trick.append(rng.choice(list(brute.bits(game.legal_mask()))))
        game.play(trick[-1])
    return trick


def took(game: brute.Game, seat: int, cards: int) -> bool:
    return game.point_cards[game.side[seat]] & cards == cards


def engine_claims(solver: Solver, deal: Deal, rules: Rules, leader: Seat, moon: int,
                  target: int) -> dict:
    with solver._engine(Position.start(deal, rules, leader)) as engine:
        return engine.claims(list(deal.hands), int(leader), True, moon, target)


def refutations(deal: Deal, leader: Seat, rules: Rules, solver: Solver, target: int,
                moon: int, claims: dict | None = None) -> list[str]:
    """Each claim of the engine at this position that plain search refutes: the claims it
    makes here, or ``claims`` made at another position that agrees on what they relied on."""
    pos_game = lambda: brute.Game(deal, rules, leader)  # noqa: E731
    if claims is None:
        claims = engine_claims(solver, deal, rules, leader, moon, target)
    side = [s % 2 if rules.partnership else s for s in range(4)]
    mine = lambda seat: side[seat] == side[target]  # noqa: E731
    points = deal.all_cards & rules.point_mask
    wrong = []

    def check(name: str, holds: bool) -> None:
        if not holds:
            wrong.append(f"{name}: deal {deal.pbn()}, {leader} leads, target {Seat(target)}, "
                         f"moon state {moon}: {claims}")

    if claims["cannot_win"][0]:
        # everyone together cannot make the target's side win a trick
        check("cannot_win", not forced(pos_game(), lambda s: True,
                                       lambda g: True if g.tricks_won[side[target]] else
                                       (False if g.is_over else None)))
    if claims["can_duck"][0]:
        check("can_duck", not forced(pos_game(), lambda s: not mine(s),
                                     lambda g: True if g.tricks_won[side[target]] else
                                     (False if g.is_over else None)))
    for x, card in claims["guards"].items():
        # x keeps none of its point cards of the guarded suit (the guard names the lowest)
        lane = 0x1FFF << (card.bit_length() - 1 & ~15)
        own = deal.hands[x] & lane & rules.point_mask
        check(f"guard of seat {Seat(x)}", not forced(
            pos_game(), lambda s: not mine(s),
            lambda g: True if took(g, x, own) else
            (False if own & ~(g.hands[x] | g.point_cards[side[x]]) else None)))
    if claims["others_blocked"][0] and points:
        shooters = [x for x in range(4) if not mine(x) and (moon == 0 or moon == side[x] + 1)]

        def someone_shoots(g: brute.Game) -> bool | None:
            owners = {s for s in range(4) if g.point_cards[side[s]]}
            if any(mine(s) for s in owners) or len({side[s] for s in owners}) > 1:
                return False
            if g.is_over:
                return any(took(g, x, points) for x in shooters)
            return None
        check("others_blocked", not forced(pos_game(), lambda s: not mine(s), someone_shoots))
    if claims["leads_a_point"][0]:
        lead_side = side[int(leader)]
        check("leads_a_point", forced(
            pos_game(), lambda s: side[s] == lead_side,
            lambda g: bool(g.point_cards[lead_side]) if g.cards_played >= 4 else None))
    qt = claims["quick_tricks"][0]
    if qt and not rules.point_mask and rules.trick_points < 0:
        lead_side = side[int(leader)]
        check(f"quick_tricks={qt}", forced(
            pos_game(), lambda s: side[s] == lead_side,
            lambda g: True if g.tricks_won[lead_side] >= qt else (False if g.is_over else None)))
    most = claims["lead_side_max"][0]
    if most is not None and not rules.point_mask and rules.trick_points < 0:
        lead_side = side[int(leader)]
        # the other side, playing together, keeps the leader's side below most + 1 tricks
        check(f"lead_side_max={most}", not forced(
            pos_game(), lambda s: side[s] == lead_side,
            lambda g: True if g.tricks_won[lead_side] > most else (False if g.is_over else None)))
    return wrong


def run(name: str, spec: dict) -> tuple[int, dict[str, int], list[str]]:
    rules = Rules.parse({**spec, **OPEN_PLAY})
    rng = random.Random(f"bounds/{name}")
    solver = Solver(table_mb=1)
    fired: dict[str, int] = {}
    wrong: list[str] = []
    for _ in range(POSITIONS):
        deal, leader = random_position(rng, rules)
        target = rng.randrange(2 if rules.partnership else 4)
        target_seat = target
        moon = rng.choice([0, 0] + [x + 1 for x in range(2 if rules.partnership else 4) if x != target])
        for d in (deal, None):
            if d is None:
                # the same claims where the cards below what they relied on lie elsewhere
                c = engine_claims(solver, deal, rules, leader, moon, target_seat)
                relied = c["can_duck"][1] | c["others_blocked"][1] | c["cannot_win"][1] \
                    | c["quick_tricks"][1] | c["lead_side_max"][1] | c["leads_a_point"][1] \
                    | sum(c["guards"].values())
                d = redeal_below(deal, relied, rng)
            c = engine_claims(solver, d, rules, leader, moon, target_seat)
            for k in ("cannot_win", "can_duck", "others_blocked", "leads_a_point"):
                fired[k] = fired.get(k, 0) + bool(c[k][0])
            fired["guards"] = fired.get("guards", 0) + len(c["guards"])
            fired["quick_tricks"] = fired.get("quick_tricks", 0) + bool(c["quick_tricks"][0])
            if c["lead_side_max"][0] is not None:
                short = c["lead_side_max"][0] < d.hand_size
                fired["lead_side_max"] = fired.get("lead_side_max", 0) + short
            wrong += refutations(d, leader, rules, solver, target_seat, moon)
            if d is not deal:
                # the first deal's claims, where the table would reuse them
                wrong += refutations(d, leader, rules, solver, target_seat, moon, c0)
            else:
                c0 = c
    return POSITIONS, fired, wrong


@pytest.mark.parametrize("name", POINT_RULES)
def test_point_rules_claims_hold(name: str) -> None:
    _, fired, wrong = run(name, POINT_RULES[name])
    assert not wrong, f"{len(wrong)} refuted claims:\n" + "\n".join(wrong[:5])
    # the positions must make the rules fire, or this test checks nothing
    if name == "partnership":  # duck and guards are single-seat rules
        assert fired["cannot_win"] >= 10, fired
    else:
        assert min(fired["can_duck"], fired["guards"], fired["others_blocked"],
                   fired["leads_a_point"]) >= 20, fired


def start_position(rng: random.Random, rules: Rules) -> tuple[Deal, Seat, Seat]:
    """The start of a hand of two to four cards a hand in clubs, spades and hearts, its
    leader, and a target other than the leader that holds no club: when a club leads trick 1,
    the rules of the first trick choose among its discards."""
    pool = [c for c in cards_of(DECK) if c.suit in (0, 1, 3)]
    clubs = 0x1FFF << 48
    while True:
        size = rng.choice((2, 3, 3, 4))
        chosen = rng.sample(pool, 4 * size)
        deal = dealt_round(chosen)
        leader = first_leader(deal, rules, leader_for(deal, rules, rng))
        void = [s for s in Seat if s != leader and not deal.hands[s] & clubs]
        if void:
            return deal, leader, rng.choice(void)


@pytest.mark.parametrize("name", POINT_RULES)
def test_point_rules_claims_hold_at_the_start_of_a_hand(name: str) -> None:
    """Trick 1 has rules of its own: the lowest club may have to lead, hearts are not yet
    broken, and a seat may not give a point card while it holds another it may play. The duck
    and the moon guards rest on the target discarding as it likes (its highest card of a
    suit), so the engine makes no such claim there; any claim it does make at the start of a
    hand must hold under those rules. (Made there, the guard's claims are wrong in about one
    of these positions in 200, the duck's in one in 1,000: the positions are many and cheap.)"""
    rng = random.Random(f"bounds/start/{name}")
    solver = Solver(table_mb=1)
    fired: dict[str, int] = {}
    wrong: list[str] = []
    for first_lead in ("free", "C2"):
        rules = Rules.parse({**POINT_RULES[name], "first_lead": first_lead})
        for _ in range(6 * POSITIONS):
            deal, leader, seat = start_position(rng, rules)
            start = Position.start(deal, rules, leader)
            target = int(seat) & 1 if rules.partnership else int(seat)
            forced_lead = -1 if start.forced_lead is None else int(start.forced_lead)
            with solver._engine(start) as engine:
                c = engine.claims(list(deal.hands), int(leader), False, 0, target, True,
                                  forced_lead)
            for k in ("cannot_win", "can_duck", "others_blocked", "leads_a_point"):
                fired[k] = fired.get(k, 0) + bool(c[k][0])
            fired["guards"] = fired.get("guards", 0) + len(c["guards"])
            wrong += refutations(deal, leader, rules, solver, target, 0, c)
    assert not wrong, f"{len(wrong)} refuted claims:\n" + "\n".join(wrong[:5])
    assert min(fired["cannot_win"], fired["leads_a_point"]) >= 20, fired


@pytest.mark.parametrize("name", TRICK_RULES)
def test_trick_rules_claims_hold(name: str) -> None:
    _, fired, wrong = run(name, TRICK_RULES[name])
    assert not wrong, f"{len(wrong)} refuted claims:\n" + "\n".join(wrong[:5])
    assert fired["quick_tricks"] >= 50 and fired["cannot_win"] >= 10, fired
    if name == "bridge":
        assert fired["lead_side_max"] >= 20, fired


@pytest.mark.parametrize("hearts_break", ["none", "hearts"])
def test_trick_claims_hold(hearts_break: str) -> None:
    """Bridge play, one to three cards of a trick played: the side to play, or the other side,
    takes the tricks the engine claims for it (trick_then_cash), also where the cards below
    those it relied on lie elsewhere, each card of the trick below them then a small card of
    the same suit from the same hand (the table would reuse the claim there). With hearts
    closed until broken, the first trick of these positions is played before hearts are
    broken: a claim that counted on leading hearts next would be refuted."""
    rules = Rules.parse({**TRICK_RULES["bridge"], **OPEN_PLAY, "hearts_break": hearts_break})
    rng = random.Random(f"bounds/trick/{hearts_break}")
    solver = Solver(table_mb=1)
    fired, wrong = 0, []
    for _ in range(2 * POSITIONS):
        deal, leader = random_position(rng, rules)
        trick = random_trick(rng, brute.Game(deal, rules, leader), (1, 1, 2, 3))
        mover = rng.random() < 0.5
        with solver._engine(Position.start(deal, rules, leader)) as engine:
            claim, relied = engine.trick_claim(list(deal.hands), int(leader), trick,
                                               hearts_break == "none", mover)
        if not claim:
            continue
        fired += 1
        again, trick_again = redeal_trick(deal, leader, trick, relied, rng)
        side = (int(leader) + len(trick) + (not mover)) % 2
        for d, cards in ((deal, trick), (again, trick_again)):
            game = after(d, rules, leader, cards)
            if not forced(game, lambda s: s % 2 == side,
                          lambda g: True if g.tricks_won[side] >= claim else
                          (False if g.is_over else None)):
                wrong.append(f"{d.pbn()}, {leader} leads, trick "
                             f"{[str(Card.from_index(c)) for c in cards]}: claimed {claim}")
    assert not wrong, f"{len(wrong)} refuted claims:\n" + "\n".join(wrong[:5])
    assert fired >= (100 if hearts_break == "none" else 0), fired


def value_to_go(game: brute.Game, rules: Rules, target: int, moon: int, total: int) -> int:
    """What the target's side took in ``game`` (played from the position on), scored as the
    engine would score it from there with moon state ``moon`` before it (0: nobody had taken a
    point card, 1 + side: only that side had, 7: several had) and ``total`` points in the
    deal: another side that had them all and took the rest shoots. The target's own moon only
    lowers its score, so it is left out: a bound the test then refutes is wrong all the same."""
    value = game.card_points[target]
    shooters = game.sides if moon == 0 and game.points else [moon - 1] if moon <= 4 else []
    if rules.moon == "add" and any(x != target and game.point_cards[x] == game.points
                                   for x in shooters):
        value = game.low_points[target] + total
    return value + rules.trick_points * game.tricks_won[target]


def keyed_exactly(rules: Rules) -> int:
    """The cards the table's key places exactly whatever a bound relied on: in each suit, those
    whose value is not the suit's commonest (the sum of the values still held must not change
    where the table reuses a bound)."""
    out = 0
    for suit in range(4):
        cards = range(16 * suit, 16 * suit + 13)
        values = [rules.values[c] for c in cards]
        common = max(values, key=values.count)
        out |= sum(1 << c for c in cards if rules.values[c] != common)
    return out


@pytest.mark.parametrize("name", POINT_RULES)
def test_trick_lost_claims_hold(name: str) -> None:
    """One to three cards of a trick played, the moon dead, or alive but for whom the trick's
    point cards go to: the target takes no more than trick_lost claims (its points from the
    trick on, no moon applying), also where the cards below those it relied on lie elsewhere,
    each card of the trick below them then a small card of the same suit from the same hand
    (the table would reuse the claim there)."""
    rules = Rules.parse({**POINT_RULES[name], **OPEN_PLAY})
    rng = random.Random(f"bounds/trick-lost/{name}")
    solver = Solver(table_mb=1)
    fired, relied_on, wrong = 0, 0, []
    for case in trick_cases(rules, rng):
        deal, leader, trick, target = case.deal, case.leader, case.trick, case.target
        moon = rng.choice([7, 7, 0] + [x + 1 for x in range(2 if rules.partnership else 4)])
        # the side that has every point card so far may have taken some already
        total = case.game.moon_total + (rng.choice((0, 1, 3)) if moon else 0)
        with solver._engine(Position.start(deal, rules, leader)) as engine:
            engine.set_moon_total(total)
            claim = engine.trick_lost_claim(list(deal.hands), int(leader), trick, moon, target)
        if claim is None:
            continue
        most, relied = claim
        fired += 1
        relied_on += bool(relied)
        again, trick_again = redeal_trick(deal, leader, trick,
                                          relied | keyed_exactly(rules), rng)
        for d, cards in ((deal, trick), (again, trick_again)):
            game = after(d, rules, leader, cards)
            if forced(game, lambda s: game.side[s] != target,
                      lambda g: value_to_go(g, rules, target, moon, total) > most
                      if g.is_over else None):
                wrong.append(f"{d.pbn()}, {leader} leads, trick "
                             f"{[str(Card.from_index(c)) for c in cards]}, target "
                             f"{target}, moon state {moon}: claimed at most {most}")
    assert not wrong, f"{len(wrong)} refuted claims:\n" + "\n".join(wrong[:5])
    assert fired >= 100 and relied_on >= 20, (fired, relied_on)


@pytest.mark.parametrize("name", POINT_RULES)
def test_shot_lost_claims_hold(name: str) -> None:
    """One to three cards of a trick played: where shot_lost says the target's side can no
    longer take every point card, no play of anyone's makes it take them, also where the cards
    below those it relied on lie elsewhere (as the table would reuse the claim)."""
    rules = Rules.parse({**POINT_RULES[name], **OPEN_PLAY})
    rng = random.Random(f"bounds/shot-lost/{name}")
    solver = Solver(table_mb=1)
    fired, relied_on, wrong = 0, 0, []
    for case in trick_cases(rules, rng):
        deal, leader, trick, target = case.deal, case.leader, case.trick, case.target
        with solver._engine(Position.start(deal, rules, leader)) as engine:
            relied = engine.shot_lost_claim(list(deal.hands), int(leader), trick, target)
        if relied is None:
            continue
        fired += 1
        relied_on += bool(relied)
        again, trick_again = redeal_trick(deal, leader, trick, relied | keyed_exactly(rules),
                                          rng)
        for d, cards in ((deal, trick), (again, trick_again)):
            game = after(d, rules, leader, cards)
            if forced(game, lambda s: True,
                      lambda g: g.point_cards[target] == g.points if g.is_over else None):
                wrong.append(f"{d.pbn()}, {leader} leads, trick "
                             f"{[str(Card.from_index(c)) for c in cards]}, target {target}")
    assert not wrong, f"{len(wrong)} refuted claims:\n" + "\n".join(wrong[:5])
    assert fired >= 100 and relied_on >= 20, (fired, relied_on)


def test_the_guard_counts_cards_above_the_point_card() -> None:
    """West leads S2 towards North's SA S9: if North wins with SA, East's SQ beats S9 later; if
    North plays S9, East's SQ takes the trick at once. Pairing North's spades against East's
    (A over Q, 9 over 8) wrongly said East could never win SQ, and the moon that gives North 14
    was left out."""
    deal = Deal.parse("N:A9..96.6 Q8..73.K .2.8542. 2..A.985")
    rules = Rules.parse({"first_lead": "free", "first_trick_points": True})
    pos_play = "C5 C6 CK H2 D7 D8 DA D9"
    expected = brute.analyze(deal, rules, pos_play.split(), Seat.W)
    got = Solver().analyze(Position.from_play(deal, rules, pos_play, Seat.W), moves=False)
    assert expected.players[Seat.N].guarantee == 14
    assert got.players[Seat.N].guarantee == 14
