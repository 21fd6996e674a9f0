"""Reviews of recorded plays (solver/review.py): play order from PBN columns, card costs and
moon timelines checked against direct solver questions, shot the foot."""
from __future__ import annotations

import random

import pytest

from benchmarks.record_files import random_play, small_deal
from solver.analysis import Solver
from solver.cards import Card, Seat
from solver.deal import Deal
from solver.errors import HeartsError, PlayError
from solver.pbn import RecordedPlay
from solver.position import Position
from solver.review import played_by, replay, review, start_position
from solver.rules import Rules


def play(seat: str, *rows: str) -> RecordedPlay:
    return RecordedPlay(Seat.parse(seat), tuple(
        tuple(t if t in "-+" else Card.parse(t) for t in row.split()) for row in rows))


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver(table_mb=16)


# -- replay ---------------------------------------------------------------------------------------
SUITS_DEAL = Deal.parse("W:AKQJT9876543.2.. .AKQJT9876543.2. ..AKQJT9876543.2 2...AKQJT9876543")


def test_a_bridge_revoke_is_reported_with_card_and_trick():
    start = Position.start(SUITS_DEAL, Rules.parse("bridge"), Seat.W)
    r = replay(start, play("W", "SA HA DA CA"))
    assert r.cards == tuple(Card.parse(c) for c in ("SA", "HA", "DA"))
    assert r.error == "trick 1: S cannot play CA: must follow spades"


def test_the_first_player_must_be_the_hearts_leader():
    start = Position.start(SUITS_DEAL)                       # E holds C2 and leads it
    r = replay(start, play("W", "SA HA DA CA"))
    assert r.cards == () and r.error == "trick 1: the play starts with W, but E leads (holds C2)"


def test_the_winner_of_a_trick_leads_the_next_whatever_the_columns():
    deal = Deal.parse("N:A.K.. K.A.. .Q.3. ..2.2")
    start = Position.start(deal)
    r = replay(start, play("W", "C2 SA SK D3", "D2 HK HA HQ"))
    assert " ".join(map(str, r.cards)) == "C2 SA SK D3 D2 HK HA HQ" and r.error is None
    assert r.end.is_over


def test_a_continuation_mark_ends_the_play_where_it_stands_in_play_order():
    deal = Deal.parse("N:A.K.. K.A.. .Q.3. ..2.2")
    start = Position.start(deal)
    # trick 2 is led by W (won trick 1); W's '+' is next, the other columns are empty
    r = replay(start, play("W", "C2 SA SK D3", "+ - - -"))
    assert len(r.cards) == 4 and r.error is None
    late = replay(start, play("W", "C2 SA SK D3", "+ HK - -"))
    assert late.error == "trick 2: N's HK is recorded, but W's card before it is missing"
    later = replay(start, play("W", "C2 SA SK -", "D2 HK HA HQ"))
    assert later.error == "trick 2: D2 is recorded, but a card is missing before it"


def test_cards_after_the_end_of_the_hand():
    deal = Deal.parse("N:A... .A.. ..A. ...2")
    start = Position.start(deal)
    r = replay(start, play("W", "C2 SA HA DA", "C3 - - -"))
    assert r.error == "trick 2: C3 is recorded, but the hand is over"


def test_the_leader_of_trick_1():
    free = Rules.parse({"first_lead": "free"})
    deal = Deal.parse("N:A... .A.. ..A. ...2")
    assert start_position(deal, free, play_seat=Seat.S).to_move == Seat.S
    assert start_position(deal, free, Seat.E, Seat.S).to_move == Seat.E   # [HeartsLeader] wins
    assert start_position(deal, Rules(), play_seat=Seat.S).to_move == Seat.W
    with pytest.raises(PlayError, match="HeartsLeader"):
        start_position(deal, free)


# -- review against direct solver questions -----------------------------------------------------
@pytest.mark.parametrize("seed, rules", [(1, None), (2, "omnibus"), (3, '{"partnership": true}'),
                                         (4, '{"first_lead": "free", "moon": "subtract"}')])
def test_costs_and_moon_timelines_match_the_solver(solver, seed, rules):
    rng = random.Random(seed)
    r = Rules.parse(rules)
    for _ in range(4):
        deal = small_deal(rng, 4)
        leader = rng.choice(list(Seat)) if r.first_lead == "free" or not deal.all_cards >> 48 else None
        start = Position.start(deal, r, leader)
        cards = random_play(start, rng, 16)
        rv = review(solver, start, cards, solver.analyze(start))
        positions = [start]
        for c in cards:
            positions.append(positions[-1].play(c))
        for k, cost in enumerate(rv.cards):
            p, mover = positions[k], positions[k].to_move
            assert (cost.seat, cost.card) == (mover, cards[k])
            assert cost.best == solver.guarantee(p, mover)
            assert cost.guarantee == solver.guarantee(positions[k + 1], mover)
            assert cost.cost >= 0
        for seat in Seat:
            expected = [solver.moon_possible(p, seat) if not p.is_over else
                        p.moon_state == p.side(seat) + 1 for p in positions]
            assert list(rv.moon[seat].forceable) == expected, (seat, deal.pbn(), cards)
        moon_only = review(solver, start, cards, costs=False)
        assert moon_only.cards == () and moon_only.moon == rv.moon


def test_moon_line_runs_and_losing_card(solver):
    deal = Deal.parse("N:94.64..2 Q.K..JT4 7.97.8.9 T.2.732.")
    rules = Rules.parse({"first_lead": "free", "moon": "subtract"})
    start = Position.start(deal, rules, Seat.E)
    cards = [Card.parse(c) for c in "C4 C9 D3 C2 D8 D7 S4 CT S7 ST S9 SQ CJ H7 H2 H6 HK H9 D2 H4".split()]
    line = review(solver, start, cards).moon[Seat.E]
    assert line.at_start and line.at_end
    assert line.segments()[0] == (0, 0)                      # E's own C4 threw it away ...
    assert line.segments()[1][1] == len(cards)               # ... and it came back to the end
    assert line.lost_with is None and line.last_forceable == len(cards)
    j = line.to_json()
    assert j["segments"][0]["lost_with"] == {"trick": 1, "seat": "E", "card": "C4"}
    assert j["segments"][1]["given_by"]["seat"] != "E"


def test_the_moon_report_names_each_card_and_the_one_that_lost_a_moon(solver):
    """``POST /moon``'s answer: the flags after each card, and the card after which a seat's
    moon was never forceable again (that of ``MoonLine.lost_with``)."""
    deal = Deal.parse("N:94.64..2 Q.K..JT4 7.97.8.9 T.2.732.")
    start = Position.start(deal, Rules.parse({"first_lead": "free", "moon": "subtract"}), Seat.E)
    cards = "C4 C9 D3 C2".split()                          # E's own C4 throws its moon away
    rv = review(solver, start, cards, costs=False)
    got = rv.moon_report()
    assert list(got) == ["deal", "play", "rules", "start", "timeline", "lost"]
    assert (got["deal"], got["play"], got["rules"]) == (deal.pbn(), " ".join(cards), start.rules.to_dict())
    assert got["start"] == {str(s): rv.moon[s].at_start for s in Seat}
    assert [step["card"] for step in got["timeline"]] == cards
    assert got["timeline"][0] == {"index": 0, "trick": 1, "seat": "E", "card": "C4",
                                  "moon_possible": {str(s): rv.moon[s].forceable[1] for s in Seat}}
    for seat, line in rv.moon.items():
        lost = got["lost"][str(seat)]
        if line.lost_with is None:
            assert lost is None
        else:
            trick, by, card = line.lost_with
            assert lost == {"index": line.last_forceable, "trick": trick, "seat": str(by), "card": str(card)}
    assert got["lost"]["E"] == {"index": 0, "trick": 1, "seat": "E", "card": "C4"}
    # (handed back to E by the seventh card, S9; E's SQ, the eighth, loses it for good)
    later = review(solver, start, "C4 C9 ST C2 D8 D7 S9 SQ".split(), costs=False).moon_report()
    assert later["lost"]["E"] == {"index": 7, "trick": 2, "seat": "E", "card": "SQ"}


def test_shot_the_foot(solver):
    # W ends with SQ and HA (14 of the 17 points), N with the other hearts
    deal = Deal.parse("N:.AK..2 Q.Q..3 ..32.4 .2.4.5")
    start = Position.start(deal)
    r = replay(start, play("N", "C2 C3 C4 C5", "HA SQ D3 D4", "HK HQ D2 H2"))
    assert r.error is None
    rv = review(solver, start, r.cards)
    assert rv.scores == {Seat.N: 3, Seat.E: 0, Seat.S: 0, Seat.W: 14}
    assert rv.shot_the_foot == (Seat.W,)
    assert review(solver, start, r.cards[:8]).shot_the_foot is None      # only for complete plays
    assert review(solver, start, [str(c) for c in r.cards]) == rv        # the cards' names will do


def test_a_moon_shot_is_named_and_no_foot_is_shot_without_a_moon(solver):
    deal = Deal.parse("N:A.K.. K.A.. .Q.3. ..2.2")
    cards = replay(Position.start(deal), play("W", "C2 SA SK D3", "D2 HK HA HQ")).cards
    rv = review(solver, Position.start(deal), cards)           # W takes the 3 hearts
    assert rv.shot_the_moon == (Seat.W,) and rv.to_json()["shot_the_moon"] == ["W"]
    assert review(solver, Position.start(deal), cards[:4]).shot_the_moon is None
    # the foot of test_shot_the_foot, with no moon to miss: nobody shot either
    deal = Deal.parse("N:.AK..2 Q.Q..3 ..32.4 .2.4.5")
    start = Position.start(deal, Rules.parse({"moon": "none"}))
    r = replay(start, play("N", "C2 C3 C4 C5", "HA SQ D3 D4", "HK HQ D2 H2"))
    rv = review(solver, start, r.cards)
    assert rv.shot_the_foot == () and rv.shot_the_moon == ()


@pytest.mark.parametrize("costs", [True, False])
def test_a_deal_without_point_cards_has_no_moon_to_its_end(solver, costs):
    """Nobody can take every point card of a deal that has none (``moon_possible`` is false
    throughout, as the solver says); the timeline's last flag, after the last card, was known
    without a search and went untested."""
    deal = Deal.parse("N:A...2 K...3 J...4 T...5")
    start = Position.start(deal)
    r = replay(start, play("N", "C2 C3 C4 C5", "SA SK SJ ST"))
    assert r.error is None and r.end.is_over
    rv = review(solver, start, r.cards, costs=costs)
    assert not solver.analyze(start).players[Seat.N].moon_possible
    assert {seat: line.forceable for seat, line in rv.moon.items()} == {seat: (False,) * 9 for seat in Seat}
    assert rv.shot_the_moon == () and rv.shot_the_foot == ()


def test_a_costly_card_names_the_cards_that_kept_the_best(solver):
    deal = Deal.parse("N:9.2.K.A4 .A64.T.8 Q8..64.7 62.9.AJ.")
    start = Position.start(deal)
    cards = start.play_all("C4 C8 C7 S6 DT D6 DJ DK S9 H4 SQ S2").played
    costs = {str(c.card): c for c in review(solver, start, cards).cards}
    sq = costs["SQ"]                     # S gives itself the queen; S8 let it go to N's S9
    assert (sq.cost, sq.best, [str(c) for c in sq.best_cards]) == (14, 0, ["S8"])
    a = solver.analyze(start.play_all(cards[:10]), seats=[Seat.S])
    assert {m.card for m in a.moves if m.best} == set(sq.best_cards)
    assert costs["C4"].best_cards == () and costs["C4"].to_json()["best_cards"] == []
    assert [(str(c.card), c.trick) for c in review(solver, start, cards).cards] == [
        (str(card), k // 4 + 1) for k, card in enumerate(cards)]     # SQ, the 11th card: trick 3


@pytest.mark.parametrize("moon, shooters, scores", [("add", (Seat.N,), [0, 13, 13, 13]),
                                                    ("subtract", (Seat.N,), [-13, 0, 0, 0]),
                                                    ("none", (), [13, 0, 0, 0])])
def test_a_moon_shot_is_named_unless_the_rules_score_none(solver, moon, shooters, scores):
    """Under ``moon: none`` taking every point card is no moon (the check went untested: in
    the moon-none test before this one nobody took them all)."""
    start = Position.start(Deal.parse("N:A... K... Q... J..."),
                           Rules.parse({"first_lead": "free", "moon": moon}), "N")
    rv = review(solver, start, "SA SK SQ SJ")
    assert rv.shot_the_moon == shooters
    assert [rv.to_json()["scores"][str(s)] for s in Seat] == scores


def test_no_foot_without_nearly_all_points(solver):
    deal = Deal.parse("N:A.K.. K.A.. .Q.3. ..2.2")         # 3 points: a quarter is 0
    start = Position.start(deal)
    r = replay(start, play("W", "C2 SA SK D3", "D2 HK HA HQ"))
    assert review(solver, start, r.cards).shot_the_foot == ()


def test_the_foot_is_a_quarter_of_the_points_at_most(solver):
    """With 8 points in the deal a foot misses at most 2 (a quarter): N, 3 short, shot none."""
    rules = Rules.parse({"first_lead": "free", "values": {"H": 0, "SQ": 5, "SK": 3}})
    start = Position.start(Deal.parse("N:A73... K84... Q95... JT6..."), rules, "N")
    rv = review(solver, start, "S3 S4 S5 S6 ST SA S8 SQ S7 SK S9 SJ")    # N takes SQ, E SK
    assert [rv.to_json()["scores"][str(s)] for s in Seat] == [5, 3, 0, 0]
    assert rv.shot_the_foot == ()


def test_wrong_arguments_are_named_and_a_play_may_be_one_string(solver):
    """They failed deep inside ("'str' object has no attribute 'side'")."""
    start = Position.from_play(Deal.parse("N:A.2..2 K.3..3 Q.4..4 J.5..5"), {"first_lead": "free"},
                               leader="N")
    for call, words in [(lambda: review(solver, "start", []), "review: expected a Position, got str"),
                        (lambda: review("solver", start, []), "review: expected a Solver or a Budget"),
                        (lambda: replay(start, 0), "replay: expected a RecordedPlay, got int"),
                        (lambda: replay(None, play("N")), "replay: expected a Position, got NoneType")]:
        with pytest.raises(HeartsError, match=words):
            call()
    assert review(solver, start, "C2 C3 C4 C5") == review(solver, start, ["C2", "C3", "C4", "C5"])


def test_played_by_names_each_card_s_trick_and_seat_as_the_positions_do() -> None:
    """From the start of play and from part-way through a trick, under rules where the queen
    breaks hearts, each card's trick and seat as replaying it position by position gives."""
    for seed, rules in ((3, Rules()), (4, Rules.parse({"hearts_break": "queen"}))):
        whole = Position.start(Deal.random(seed), rules).random_play(random.Random(seed), 52)
        for first in (0, 6):
            start = Position.start(whole.deal, rules).play_all(whole.played[:first])
            expected, p = [], start
            for c in whole.played[first:]:
                expected.append((p.trick_number, p.to_move, c))
                p = p.play(c)
            assert played_by(start, whole.played[first:]) == expected
