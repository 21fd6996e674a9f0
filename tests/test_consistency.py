"""The solver's answers agree with themselves one card deeper (SPEC §3).

For every seat P, a position's guarantee is the lowest (P's side to move) or highest (another
side to move) of its children's guarantees, and its moon flag the OR (P's side) or AND (the
others) of theirs; the card values listed by `analyze` are the children's values for the
player to move; and `line()` walks from the position to a final score equal to the guarantee.
Checked on full deals (standard rules, seats the engine solves in seconds) and on many
mid-game positions with 5 to 8 tricks to go.
"""
from __future__ import annotations

import random

import pytest

from endgames import Scenario, random_endgame
from solver.analysis import Solver
from solver.results import Analysis
from solver.cards import Card, Seat
from solver.deal import Deal
from solver.position import Position
from solver.rules import Rules

MID_GAME_RULES: dict[str, tuple[dict, int]] = {  # rule set: (spec, positions checked)
    "standard": ({"preset": "standard"}, 60),
    "omnibus": ({"preset": "omnibus"}, 15),
    "spot-subtract": ({"preset": "spot", "moon": "subtract"}, 15),
    "partnership": ({"partnership": True, "trick_points": 1}, 15),
    "bridge": ({"preset": "bridge"}, 15),
    "free-queen": ({"first_lead": "free", "hearts_break": "queen", "moon": "none"}, 15),
}

# (seed of Deal.random, seat): full deals whose seat the engine answers in a few seconds
FULL_DEALS = [(7, Seat.S), (5, Seat.E), (1, Seat.E)]


def same_side(pos: Position, a: Seat, b: Seat) -> bool:
    return pos.side(a) == pos.side(b)


def assert_values_follow_children(pos: Position, answer: Analysis,
                                  children: dict[Card, Analysis], where: str) -> None:
    mover = pos.to_move
    assert mover is not None
    assert set(children) == set(pos.legal_moves()), where
    for seat, result in answer.players.items():
        own = same_side(pos, seat, mover)
        values = [child.players[seat].guarantee for child in children.values()]
        flags = [child.players[seat].moon_possible for child in children.values()]
        assert result.guarantee == (min(values) if own else max(values)), f"{where}: {seat}'s guarantee"
        assert result.moon_possible == (any(flags) if own else all(flags)), f"{where}: {seat}'s moon flag"


def assert_card_values_are_children(answer: Analysis, children: dict[Card, Analysis], where: str) -> None:
    mover = answer.position.to_move
    assert mover is not None
    listed = {m.card: (m.guarantee, m.moon_possible) for m in answer.moves}
    expected = {card: (child.players[mover].guarantee, child.players[mover].moon_possible)
                for card, child in children.items()}
    assert listed == expected, where
    best = min(g for g, _ in listed.values())
    assert {m.card for m in answer.moves if m.best} == {c for c, (g, _) in listed.items() if g == best}
    assert best == answer.players[mover].guarantee, where


def assert_line_reaches_guarantee(solver: Solver, pos: Position, target: Seat, where: str,
                                  check_steps: bool = True) -> None:
    guarantee = solver.guarantee(pos, target)
    line = solver.line(pos, target)
    assert len(line) == _cards_left(pos), where
    for step in line:
        assert step.seat == pos.to_move, where
        assert step.value == guarantee, where
        pos = pos.play(step.card)
        if check_steps:
            assert solver.guarantee(pos, target) == guarantee, f"{where}: after {step.card}"
    assert pos.is_over
    assert pos.score(target) == guarantee, f"{where}: the line ends on another score"


def _cards_left(pos: Position) -> int:
    return sum(bin(h).count("1") for h in pos.hands)


def mid_game_scenarios(name: str) -> list[Scenario]:
    spec, count = MID_GAME_RULES[name]
    rng = random.Random(f"consistency/{name}")
    out = []
    while len(out) < count:
        scenario = random_endgame(spec, rng, rng.randint(17, 32))
        if scenario is not None:
            out.append(scenario)
    return out


@pytest.mark.parametrize("name", MID_GAME_RULES)
def test_mid_game_values_follow_children(name: str) -> None:
    solver = Solver(table_mb=32)
    rng = random.Random(f"consistency/{name}/targets")
    for scenario in mid_game_scenarios(name):
        where = f"[{name}] {scenario}"
        pos = scenario.position()
        answer = solver.analyze(pos)
        children = {card: solver.analyze(pos.play(card), moves=False) for card in pos.legal_moves()}
        assert_values_follow_children(pos, answer, children, where)
        assert_card_values_are_children(answer, children, where)
        assert_line_reaches_guarantee(solver, pos, Seat(rng.randrange(4)), where)


@pytest.mark.parametrize("seed, seat", FULL_DEALS, ids=[f"deal{s}-{p}" for s, p in FULL_DEALS])
def test_full_deal_trick_one_follows_children(seed: int, seat: Seat) -> None:
    """From the deal: the forced C2 lead keeps the value; after it, the value is the best of
    the second player's cards for the mover's side (worst for the others)."""
    solver = Solver()
    start = Position.start(Deal.random(seed), Rules())
    where = f"Deal.random({seed}) for {seat}"
    value = solver.guarantee(start, seat)
    (lead,) = start.legal_moves()
    after_lead = start.play(lead)
    assert solver.guarantee(after_lead, seat) == value, where
    mover = after_lead.to_move
    assert mover is not None
    children = [solver.guarantee(after_lead.play(card), seat) for card in after_lead.legal_moves()]
    assert value == (min(children) if same_side(after_lead, mover, seat) else max(children)), where
    moon = solver.moon_possible(start, seat)
    moons = [solver.moon_possible(after_lead.play(card), seat) for card in after_lead.legal_moves()]
    assert moon == (any(moons) if same_side(after_lead, mover, seat) else all(moons)), where


def test_full_deal_card_values_and_line() -> None:
    """Deal.random(7): South moves second; its listed card values are its children's values,
    and South's optimal line from the deal ends on South's guarantee."""
    solver = Solver()
    start = Position.start(Deal.random(7), Rules())
    pos = start.play(start.legal_moves()[0])
    assert pos.to_move == Seat.S
    answer = solver.analyze(pos, seats=[Seat.S])
    children = {card: solver.analyze(pos.play(card), seats=[Seat.S], moves=False)
                for card in pos.legal_moves()}
    listed = {m.card: m.guarantee for m in answer.moves}
    assert listed == {card: child.players[Seat.S].guarantee for card, child in children.items()}
    assert min(listed.values()) == answer.players[Seat.S].guarantee
    assert_line_reaches_guarantee(solver, start, Seat.S, "Deal.random(7) for S", check_steps=False)
