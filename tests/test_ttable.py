"""The transposition table lets one entry answer every position that agrees with the searched
one on the cards the search relied on. A wrong reliance set shows up only when such a
neighbour is probed later, which random positions from unrelated deals rarely do. Here each
position comes with neighbours that differ only in who holds which remaining cards of a suit
(the point cards included); all are solved through one shared solver, in shuffled order, and
each must match a solver of its own."""
from __future__ import annotations

import random

import pytest

from brute import Game
from endgames import Scenario, leader_for, play_down, random_endgame
from solver._search import Engine
from solver.analysis import Solver, new_engine
from solver.results import Analysis
from solver.cards import Card
from solver.deal import Deal
from solver.errors import HeartsError
from solver.position import Position
from solver.rules import Rules
from test_bruteforce import RULE_SETS

QUEEN_BREAKS_UNVALUED = {"values": {"SQ": 0, "SK": 13}, "hearts_break": "queen"}
RULES = {**RULE_SETS, "queen-breaks-unvalued": QUEEN_BREAKS_UNVALUED}
FAMILIES = 40          # base positions per rule set
NEIGHBOURS = 6         # positions with cards swapped, per base position


def neighbour(pos: Position, rng: random.Random) -> Position | None:
    """``pos`` with one to three swaps of same-suit cards between hands that still hold the
    suit; None when the new hands make the cards already played illegal."""
    hands = list(pos.deal.hands)
    for _ in range(rng.randint(1, 3)):
        suit = rng.randrange(4)
        lane = 0x1FFF << (16 * suit)
        holders = [s for s in range(4) if pos.hands[s] & lane]
        if len(holders) < 2:
            continue
        a, b = rng.sample(holders, 2)
        # cards still in hand and not yet swapped
        x = rng.choice([c for c in range(64) if (pos.hands[a] & hands[a] & lane) >> c & 1] or [-1])
        y = rng.choice([c for c in range(64) if (pos.hands[b] & hands[b] & lane) >> c & 1] or [-1])
        if x < 0 or y < 0:
            continue
        hands[a] ^= (1 << x) | (1 << y)
        hands[b] ^= (1 << x) | (1 << y)
    try:
        return Position.from_play(Deal(tuple(hands)), pos.rules, pos.played, pos.leader0)
    except HeartsError:
        return None


def holding_back(rng: random.Random):
    """A card chooser that keeps SQ and the hearts while it can: hearts stay unbroken with SQ
    still out, where SQ matters without being worth anything."""
    queen = int(Card.parse("SQ"))

    def choose(game: Game, legal: list[int]) -> int:
        return rng.choice([c for c in legal if c != queen and c >> 4 != 1] or legal)
    return choose


def endgame(rules_spec: dict, rng: random.Random) -> Scenario:
    cards_left = rng.randint(12, 20)
    if rules_spec is not QUEEN_BREAKS_UNVALUED:
        return random_endgame(rules_spec, rng, cards_left)
    deal = Deal.random(rng)
    start = Scenario(deal, rules_spec, (), leader_for(deal, Rules.parse(rules_spec), rng))
    return play_down(start, rng, cards_left, holding_back(rng))


def answers(result: Analysis) -> dict:
    """The answers only: the work counters differ with a table that already knows things."""
    return {k: v for k, v in result.to_json().items() if k not in ("nodes", "seconds")}


@pytest.mark.parametrize("name", RULES)
def test_shared_table_answers_neighbours_like_a_fresh_one(name: str) -> None:
    rng = random.Random(f"ttable/{name}")
    positions: list[Position] = []
    while len(positions) < FAMILIES * (NEIGHBOURS + 1):
        scenario = endgame(RULES[name], rng)
        base = Position.from_play(scenario.deal, scenario.rules, scenario.play_text,
                                  scenario.leader)
        family = [base] + [n for n in (neighbour(base, rng) for _ in range(NEIGHBOURS)) if n]
        positions += family
    rng.shuffle(positions)
    shared = Solver(table_mb=8, threads=1)
    differ = []
    for pos in positions:
        got = answers(shared.analyze(pos))
        if got != answers(Solver(table_mb=1, threads=1).analyze(pos)):
            differ.append(f'--deal "{pos.deal.pbn()}" --play "{" ".join(map(str, pos.played))}"')
    assert not differ, (f"{len(differ)} of {len(positions)} differ with a shared table:\n"
                        + "\n".join(differ[:5]))


def test_wrapped_generations_forget_old_entries() -> None:
    """Clearing the table starts a new generation, numbered up to 255; the clear after that zeroes
    every bucket's tags and numbering starts again. Entries stored under one moon total give
    wrong values under another: when the numbering comes round to their generation again,
    they must not answer."""
    rules = Rules.parse({"preset": "standard"})
    rng = random.Random("ttable/wrap")
    positions = []
    while len(positions) < 30:
        s = random_endgame({"preset": "standard"}, rng, 20, moon=True)
        if s is not None:
            positions.append(Position.from_play(s.deal, s.rules, s.play_text, s.leader))

    def values(e: Engine) -> list[int]:
        return [e.value(*Solver._args(p), p.moon_state, p.side(p.to_move)) for p in positions]

    shared = new_engine(rules, 1 << 20)
    shared.set_moon_total(26)  # a clear: generation 2
    before = values(shared)
    shared.set_moon_total(10)  # generation 3
    for _ in range(254):       # 4, ..., 255, the wrap to 1, then 2 again
        shared.clear()
    fresh = new_engine(rules, 1 << 20)
    fresh.set_moon_total(10)
    expected = values(fresh)
    assert before != expected, "no position where the moon total matters: the test proves nothing"
    assert values(shared) == expected


@pytest.mark.parametrize("table_bytes", [0, 16, 64, 5000])
def test_a_table_below_one_bucket_and_the_cache_still_has_them(table_bytes: int) -> None:
    """The table takes at least one bucket and one cache slot: below the cache's size the
    budget less the cache wrapped round (unsigned) and the engine asked for exabytes, a
    MemoryError (found by the native-safety audit; ``Solver`` asks for 1 MB or more)."""
    rules = Rules.parse({"preset": "standard"})
    rng = random.Random("ttable/tiny")
    positions = []
    while len(positions) < 5:
        s = random_endgame({"preset": "standard"}, rng, 16)
        if s is not None:
            positions.append(Position.from_play(s.deal, s.rules, s.play_text, s.leader))
    tiny, fresh = new_engine(rules, table_bytes), new_engine(rules, 1 << 20)
    for e in (tiny, fresh):
        e.set_moon_total(26)
    for p in positions:
        args = (*Solver._args(p), p.moon_state, p.side(p.to_move))
        assert tiny.value(*args) == fresh.value(*args)
