"""Samples of the deals a player cannot tell apart: each fits the play by the brute-force
oracle's rules (not the solver's), and each deal that fits is equally likely."""
from __future__ import annotations

import itertools
import json
import random
import re
from collections import Counter

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from brute import Game
from endgames import play_down, random_endgame, small_scenario
from solver import sampling
from solver.cards import Card, Seat, cards_of
from solver.deal import Deal, hand_string
from solver.errors import HeartsError, SampleError
from solver.position import Position
from solver.rules import Rules
from solver.analysis import Solver
from solver.report import render_weighing
from solver.results import Analysis, MoveResult
from solver.cli import _known_cards, cli
from solver.sampling import samples, samples_from_view, weigh_cards, weigh_deals, weigh_view
from test_bruteforce import RULE_SETS


def fits(p: Position, deal: Deal) -> bool:
    """Whether ``p``'s play is legal in ``deal`` with the same first leader, by the oracle."""
    try:
        game = Game(deal, p.rules, p.leader0 if p.rules.first_lead == "free" else None)
    except ValueError:
        return False
    if game.leader != p.leader0:
        return False
    for c in p.played:
        if not game.legal_mask() >> c & 1:
            return False
        game.play(c)
    return True


def the_deals_that_fit(p: Position, seat: Seat, known: dict[Seat, Card] | None = None) -> set[Deal]:
    """Every way to deal the cards ``seat`` has not seen, kept where the play fits (and each
    ``known`` card is its seat's)."""
    others = [s for s in Seat if s != seat]
    unseen = [c for s in others for c in cards_of(p.hands[s])]
    played = {s: p.deal.hands[s] & ~p.hands[s] for s in Seat}
    sizes = [p.hands[s].bit_count() for s in others]
    out = set()
    for first in itertools.combinations(unseen, sizes[0]):
        rest = [c for c in unseen if c not in first]
        for second in itertools.combinations(rest, sizes[1]):
            third = [c for c in rest if c not in second]
            hands = dict(zip(others, (first, second, third)))
            deal = Deal(tuple(played[s] | (p.hands[s] if s == seat else sum(c.mask for c in hands[s]))
                              for s in Seat))  # type: ignore[arg-type]
            if fits(p, deal) and all(deal.holder(c) == s for s, c in (known or {}).items()):
                out.add(deal)
    return out


def assert_uniform(got: list[Position], fitting: set[Deal], what: str) -> None:
    """Every deal that fits drawn, and none more often than chance allows (chi-square, 5 sigma)."""
    counts = Counter(q.deal for q in got)
    assert set(counts) == fitting, what
    expected = len(got) / len(fitting)
    chi2 = sum((n - expected) ** 2 / expected for n in counts.values())
    df = len(fitting) - 1
    assert chi2 < df + 5 * (2 * df) ** 0.5, f"{what}: chi2 {chi2:.1f}, df {df}"


@pytest.mark.parametrize("name", RULE_SETS)
def test_every_sample_fits_the_play_with_no_draw_refused(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the play shows (voids, a heart led before hearts broke, points given on trick 1)
    is worked out before drawing: a draw the replay refuses would mean one was missed."""
    monkeypatch.setattr(sampling, "TRIES", 0)
    rng = random.Random(f"fit {name}")
    checked = 0
    while checked < 30:
        if rng.random() < 0.5:
            scenario = random_endgame(RULE_SETS[name], rng, rng.randint(4, 51))
        else:
            start = small_scenario(RULE_SETS[name], rng, rng.randint(2, 5))
            scenario = play_down(start, rng, rng.randint(1, 4 * len(list(cards_of(start.deal.hands[0])))))
        if scenario is None:
            continue
        p = scenario.position()
        seat = Seat(rng.randrange(4))
        for q in samples(p, 20, seat, seed=rng.randrange(1 << 30)):
            assert q.hands[seat] == p.hands[seat] and q.played == p.played and q.leader0 == p.leader0
            assert [h.bit_count() for h in q.hands] == [h.bit_count() for h in p.hands]
            assert fits(p, q.deal), f"{scenario} seen by {seat}: {q.deal.pbn()}"
            assert Deal(q.deal.hands) == q.deal    # (made without Deal's checks)
        checked += 1


@pytest.mark.parametrize("played, with_known", [((5, 10), False), ((0, 2), False), ((3, 8), True)])
@pytest.mark.parametrize("name", ["standard", "omnibus", "queen-breaks", "no-break", "free-lead",
                                  "first-trick-points", "partnership", "custom-negative"])
def test_each_deal_that_fits_is_as_likely(name: str, played: tuple[int, int], with_known: bool) -> None:
    """Small positions whose fitting deals the test counts out: the samples reach every one,
    and no other, about equally often (a chi-squared statistic within five of its standard
    deviations; seeded, so it cannot flake). At the start of a hand, the lowest club stays
    with the first leader; a known card (another seat's, as the real deal has it) stays put."""
    rng = random.Random(f"uniform {name} {played} {with_known}")
    cases = 0
    while cases < 4:
        start = small_scenario(RULE_SETS[name], rng, 3 if played[0] == 0 else rng.randint(3, 4))
        scenario = play_down(start, rng, start.cards_left - rng.randint(*played))
        if scenario is None:
            continue
        p = scenario.position()
        seat = Seat(rng.randrange(4))
        known: dict[Seat, Card] = {}
        if with_known:
            other = rng.choice([s for s in Seat if s != seat and p.hands[s]])
            known[other] = rng.choice(list(cards_of(p.hands[other])))
        fitting = the_deals_that_fit(p, seat, known)
        if not 2 <= len(fitting) <= 600:
            continue
        draws = 30 * len(fitting)
        got = samples(p, draws, seat, seed=cases, known={s: [c] for s, c in known.items()})
        assert_uniform(got, fitting, f"{scenario} seen by {seat}")
        cases += 1


def test_a_heart_led_before_hearts_broke_shows_a_hand_of_hearts() -> None:
    """W leads a heart on trick 1 (a free lead): it held nothing else, so every sample gives W
    three of the five hearts N has not seen, and each three-heart hand turns up."""
    deal = Deal.parse("N:A.2.A.A K.3.K.K Q.4.Q.Q .AKQJ..")
    p = Position.from_play(deal, {"first_lead": "free"}, "HA", "W")
    hearts = Card.parse("H2").mask * 0x1FFF
    west = {q.hands[Seat.W] for q in samples(p, 200, "N", seed=1)}
    assert all(h & ~hearts == 0 and h.bit_count() == 3 for h in west) and len(west) == 10


def test_known_cards_stay_with_their_seat() -> None:
    p = Position.start(Deal.random(3))
    seat = p.to_move
    assert seat is not None
    other = seat.next()
    passed = list(cards_of(p.deal.hands[other]))[:3]
    for q in samples(p, 20, seat, seed=4, known={str(other): passed}):
        assert all(q.deal.holder(c) == other for c in passed)
    assert len({q.deal for q in samples(p, 20, seat, seed=4)}) == 20


@pytest.mark.parametrize("known, words", [
    ({"E": "SA"}, "is in N's own hand"),
    ({"E": "XX"}, "XX"),
    ({"Q": "SA"}, "samples: known: unknown seat 'Q'"),
    ({"N": "SK"}, "known card SK of N is not in N's hand"),
    ({"E": 5}, "samples: known E: expected cards, got 5"),
    ({"E": "H3", "S": "H3"}, "known card H3 given for both E and S"),
])
def test_known_cards_that_cannot_be_are_named(known: dict, words: str) -> None:
    deal = Deal.parse("N:A.2.A.A3 K.3.K.K4 Q.4.Q.Q5 J.AKQ..2")
    p = Position.from_play(deal, {"first_lead": "free"}, "", "N")
    with pytest.raises(SampleError, match=words) as refused:
        samples(p, 1, "N", known=known)
    assert refused.value.field == "known"      # (what the API's problem points at)


def test_a_known_card_cannot_take_the_first_lead_from_its_leader() -> None:
    p = Position.start(Deal.parse("N:A.2.A.A3 K.3.K.K4 Q.4.Q.Q5 J.AKQ..2"))    # W leads C2
    with pytest.raises(HeartsError, match="known card C2 of S: C2 leads the first trick, so W holds it"):
        samples(p, 1, "N", known={"S": "C2"})


def test_a_known_card_played_by_another_or_against_the_play_is_refused() -> None:
    deal = Deal.parse("N:A.2.A.A3 K.3.K.K4 Q.4.Q.Q5 J.AKQ..2")
    p = Position.from_play(deal, {"first_lead": "free"}, "CA CK CQ", "N")   # W to play, has C2
    with pytest.raises(HeartsError, match="known card CK of S was played by E"):
        samples(p, 1, "N", known={"S": "CK"})
    p = Position.from_play(deal, {"first_lead": "free"}, "CA CK CQ C2 SA SK SQ SJ", "N")
    with pytest.raises(HeartsError, match="known card D5 of S"):  # not in the deal
        samples(p, 1, "N", known={"S": "D5"})
    # W showed out of clubs at trick 3 (DK on S's C9): a club of W's is against the play
    full = Deal.parse("N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4")
    p = Position.from_play(full, Rules(), "C2 CA C5 C4 C6 CJ CT C3 C9 DK")
    with pytest.raises(SampleError, match="^samples: known card CQ of W does not fit the play$") as refused:
        samples(p, 1, "N", known={"W": "CQ"})
    assert refused.value.field == "known"
    assert all(q.deal.holder(Card.parse("CQ")) == Seat.E for q in samples(p, 5, "N", known={"E": "CQ"}))


def test_known_cards_for_one_seat_named_twice_are_all_kept() -> None:
    p = Position.start(Deal.random(3))
    other = Seat.E if p.to_move != Seat.E else Seat.W
    a, b = list(cards_of(p.deal.hands[other]))[:2]
    for q in samples(p, 10, seed=1, known={str(other): [a], other: [b, a]}):
        assert q.deal.holder(a) == q.deal.holder(b) == other


def test_analyze_samples_keeps_the_known_cards() -> None:
    p = Position.start(Deal.random(7)).random_play(random.Random(2), 30)
    mover = p.to_move
    assert mover is not None
    other = mover.next()
    cards = list(cards_of(p.hands[other]))[:2]
    args = ["analyze", "--deal", p.deal.pbn(), "--play", " ".join(map(str, p.played)), "--samples",
            "5", "--seed", "2", "--table-mb", "16", "--json", "--known", f"{other}:{cards[0]}",
            "--known", f"{str(other).lower()}:{cards[1]}"]
    expected = weigh_cards(Solver(table_mb=16), p, 5, seed=2, known={other: cards}).to_json()
    assert json.loads(CliRunner().invoke(cli, args).output) == {**expected, "seed": 2}


def test_samples_repeat_with_a_seed_and_check_their_arguments() -> None:
    p = Position.start(Deal.random(5)).random_play(random.Random(5), 9)
    assert samples(p, 5, seed=11) == samples(p, 5, seed=11) != samples(p, 5, seed=12)
    assert samples(p, 0) == []
    for bad, words in [(-1, "count"), (1.5, "count"), (True, "count")]:
        with pytest.raises(HeartsError, match=words):
            samples(p, bad)  # type: ignore[arg-type]
    for seed in (-5, 1.5, [1], True):
        with pytest.raises(HeartsError, match="seed must be a whole number from 0"):
            samples(p, 1, seed=seed)  # type: ignore[arg-type]
    with pytest.raises(HeartsError, match="known E: expected cards"):
        samples(p, 1, "N", known={"E": b"SQ"})
    for solver, position, words in [(None, p, "expected a Solver"), (Solver(table_mb=1), None, "a Position")]:
        with pytest.raises(HeartsError, match=words):
            weigh_cards(solver, position, 1)  # type: ignore[arg-type]
    with pytest.raises(HeartsError, match="Solver share"):
        weigh_cards(Solver(table_mb=1), p, 1, share=-1)
    with pytest.raises(HeartsError, match="expected a Position"):
        samples("N:...", 1)  # type: ignore[arg-type]
    over = Position.from_play(Deal.parse("N:A... K... Q... J..."), {"first_lead": "free"},
                              "SA SK SQ SJ", "N")
    with pytest.raises(SampleError, match="the hand is over") as refused:
        samples(over, 1)
    assert refused.value.field == "seat"
    assert samples(over, 2, "E") == [over, over]


def test_cards_weighed_are_the_means_of_the_samples_analyses() -> None:
    """Each card's mean and count of deals where it was best, against the deals' analyses one
    by one; best first."""
    p = Position.start(Deal.random(7)).random_play(random.Random(2), 30)
    seat = p.to_move
    assert seat is not None
    ticks: list[int] = []
    w = weigh_cards(Solver(table_mb=16), p, 12, seed=5, done=lambda: ticks.append(1))
    assert len(ticks) == 12
    values = [{m.card: m.guarantee for m in Solver(table_mb=16).analyze(q, [seat]).moves}
              for q in samples(p, 12, seed=5)]
    assert (w.seat, w.drawn, w.answered) == (seat, 12, 12)
    assert {c.card: (c.mean, c.best_in) for c in w.cards} == {
        card: (sum(v[card] for v in values) / 12, sum(v[card] == min(v.values()) for v in values))
        for card in values[0]}
    assert [c.mean for c in w.cards] == sorted(c.mean for c in w.cards)
    assert {c["card"] for c in w.to_json()["cards"]} == {str(c) for c in p.legal_moves()}


def test_a_weighing_keeps_its_first_deal_for_a_report() -> None:
    """``analyze --samples`` shows the mover's hand and trick from deal 1 (the same in every
    deal), without drawing the deals itself."""
    p = Position.start(Deal.random(7)).random_play(random.Random(2), 30)
    seat = p.to_move
    assert seat is not None
    solver = Solver(table_mb=16, time_limit=0.000001)   # (no deal need be answered)
    first = weigh_cards(solver, p, 3, seed=5).first_deal
    assert first == samples(p, 3, seed=5)[0]
    assert first is not None and first.played == p.played and first.hands[seat] == p.hands[seat]
    assert weigh_deals(solver, seat, [p]).first_deal is p
    assert weigh_deals(solver, seat, []).first_deal is None


def test_a_card_s_mean_is_over_the_deals_answered_not_those_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    """Deals the limits cut short are left out of the means, so each mean divides by the deals
    answered: dividing by those drawn counts every deal not answered as a guarantee of 0."""
    p = Position.start(Deal.random(7)).random_play(random.Random(2), 30)
    seat = p.to_move
    assert seat is not None
    analyses = Solver.analyses
    cut_short = {1, 4, 5, 9}

    def some_cut_short(self, questions, *args, **kwargs):
        answers = analyses(self, questions, *args, **kwargs)
        return [None if i in cut_short else a for i, a in enumerate(answers)]

    monkeypatch.setattr(Solver, "analyses", some_cut_short)
    w = weigh_cards(Solver(table_mb=16), p, 12, seed=5)
    monkeypatch.undo()
    kept = [q for i, q in enumerate(samples(p, 12, seed=5)) if i not in cut_short]
    values = [{m.card: m.guarantee for m in Solver(table_mb=16).analyze(q, [seat]).moves} for q in kept]
    assert (w.drawn, w.answered) == (12, 8)
    assert {c.card: c.mean for c in w.cards} == {card: sum(v[card] for v in values) / 8 for card in values[0]}
    assert any(c.mean for c in w.cards)


def test_cards_with_equal_means_are_ordered_by_the_deals_they_were_best_in(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Best first: of two cards with the same mean, the one that was best in more deals comes
    first. Here A's guarantees over three deals are 0, 0, 3 and B's 1, 1, 1: both average 1,
    A was best in two deals and B in one; B is listed first in each deal's answer."""
    p = Position.start(Deal.random(7)).random_play(random.Random(2), 30)
    a, b = p.legal_moves()[:2]

    def answered(self, questions, *args, **kwargs):
        out = []
        for (q, _), (ga, gb) in zip(questions, [(0, 1), (0, 1), (3, 1)]):
            moves = [MoveResult(b, gb, False, gb <= ga), MoveResult(a, ga, False, ga <= gb)]
            out.append(Analysis(q, {}, moves, 0, 0.0))
        return out

    monkeypatch.setattr(Solver, "analyses", answered)
    w = weigh_cards(Solver(table_mb=1), p, 3, seed=1)
    assert [(c.card, c.mean, c.best_in) for c in w.cards] == [(a, 1.0, 2), (b, 1.0, 1)]


def test_cards_weighed_under_a_time_limit_leave_out_the_deals_not_analysed() -> None:
    p = Position.start(Deal.random(2))       # its deals take seconds each
    w = weigh_cards(Solver(table_mb=16, time_limit=0.05), p, 4, seed=1)
    assert (w.drawn, w.answered, w.cards) == (4, 0, [])
    text = " ".join(render_weighing(p, w).split())
    assert "Its cards over 4 deals it cannot tell from this one, 0 of them analysed in time:" in text
    assert "(the means leave out the deals not analysed in time, which are the harder)" in text
    with pytest.raises(HeartsError, match="the hand is over"):
        over = Position.from_play(Deal.parse("N:A... K... Q... J..."), {"first_lead": "free"},
                                  "SA SK SQ SJ", "N")
        weigh_cards(Solver(table_mb=1), over, 2)


def test_analyze_samples_prints_the_weighing() -> None:
    p = Position.start(Deal.random(7)).random_play(random.Random(2), 30)
    args = ["analyze", "--deal", p.deal.pbn(), "--play", " ".join(map(str, p.played)),
            "--samples", "6", "--seed", "3", "--table-mb", "16"]
    expected = weigh_cards(Solver(table_mb=16), p, 6, seed=3).to_json()
    expected = {"seat": expected.pop("seat"), "samples": expected.pop("samples"), "seed": 3,
                **expected}
    result = CliRunner().invoke(cli, [*args, "--json"])
    assert result.exit_code == 0 and json.loads(result.output) == expected
    text = CliRunner().invoke(cli, args).output
    assert f"{p.to_move} to play, trick {p.trick_number}" in text and "(seed 3)" in text
    assert "in time" not in text        # (every deal analysed: no deal left out to speak of)
    best = expected["cards"][0]
    assert f"{best['card']:<4}  {best['mean_guarantee']:>14.2f}  {best['best_in']} of 6" in text


def test_analyze_samples_without_a_seed_says_the_seed_it_drew() -> None:
    """A run of ``--samples`` without ``--seed`` could not be repeated: the deals came from the
    system's randomness and nothing said which. It now draws a seed, says it (``seed`` in the
    JSON, "(seed N)" in the text), and that seed given back repeats the run exactly, from a
    position or from a seat's view."""
    p = Position.start(Deal.random(7)).random_play(random.Random(2), 30)
    seat = p.to_move
    assert seat is not None
    play = ["--play", " ".join(map(str, p.played))]
    for where in (["--deal", p.deal.pbn()],
                  ["--hand", f"{seat}:{hand_string(p.deal.hands[seat])}", "--leader", str(p.leader0)]):
        args = ["analyze", *where, *play, "--samples", "4", "--table-mb", "16"]
        runs = [CliRunner().invoke(cli, [*args, "--json"]) for _ in range(2)]
        assert all(r.exit_code == 0 for r in runs), runs[0].output
        first, second = (json.loads(r.output) for r in runs)
        assert list(first)[:3] == ["seat", "samples", "seed"]
        assert isinstance(first["seed"], int) and 0 <= first["seed"] < 2 ** 63
        assert first["seed"] != second["seed"]          # (a fresh seed each run)
        for run in (first, second):
            again = CliRunner().invoke(cli, [*args, "--seed", str(run["seed"]), "--json"])
            assert again.exit_code == 0 and json.loads(again.output) == run
        text = CliRunner().invoke(cli, args).output
        found = re.search(r"\(seed (\d+)\)", text)
        assert found, text
        assert CliRunner().invoke(cli, [*args, "--seed", found[1]]).output == text


def test_a_done_that_is_no_function_is_named() -> None:
    p = Position.start(Deal.random(7)).random_play(random.Random(2), 40)
    with pytest.raises(HeartsError, match="weigh_cards: done: expected a function, got int"):
        weigh_cards(Solver(table_mb=1), p, 2, seed=1, done=5)  # type: ignore[arg-type]


@given(st.lists(st.tuples(st.sampled_from("NESWnesw"), st.text("SQH2 :", max_size=4)), max_size=6))
def test_known_options_of_a_seat_join_as_added_one_by_one(options) -> None:
    plain: dict = {}
    for seat, cards in options:
        plain[Seat.parse(seat)] = f"{plain.get(Seat.parse(seat), '')} {cards}"
    assert _known_cards(tuple(f"{seat}:{cards}" for seat, cards in options)) == plain


def test_many_known_options_read_in_time_linear_in_their_number() -> None:
    """250,000 ``--known`` options for one seat took 11 s: each copied the cards before it."""
    import time
    started = time.process_time()  # (its own CPU time: not the machine's load)
    assert _known_cards(("E:x",) * 250_000) == {Seat.E: " x" * 250_000}
    assert time.process_time() - started < 3


def view_of(p: Position, seat: Seat) -> dict:
    """What ``seat`` sees of ``p`` at the table: the cards it was dealt, the play, the rules and
    the first leader."""
    return dict(seat=seat, hand=p.deal.hands[seat], play=p.played, rules=p.rules, leader=p.leader0)


@pytest.mark.parametrize("name", RULE_SETS)
def test_a_view_of_a_position_draws_what_samples_draws(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """From a seat's view alone (the hand it was dealt, given as a mask, a PBN hand or card
    names; the play; the rules; the first leader), the same deals as ``samples`` draws from
    the position for the same seed: one constraint system, each deal that fits as likely. The
    real deal always fits: no view taken from a real position is refused, nor any draw."""
    monkeypatch.setattr(sampling, "TRIES", 0)
    rng = random.Random(f"view {name}")
    rules = RULE_SETS[name]
    for case in range(8):
        leader = Seat(rng.randrange(4)) if Rules.parse(rules).first_lead == "free" else None
        p = Position.start(Deal.random(rng.randrange(1 << 30)), rules, leader).random_play(
            rng, rng.choice([0, 1, 4, rng.randrange(52), 51, 52]))
        seat = Seat(rng.randrange(4))
        view = view_of(p, seat)
        view["hand"] = [view["hand"], hand_string(view["hand"]),
                        " ".join(map(str, cards_of(view["hand"])))][case % 3]
        view["play"] = " ".join(map(str, p.played)) if case % 2 else p.played
        got = samples_from_view(**view, count=6, seed=case)
        assert got == samples(p, 6, seat, seed=case), f"{name} {p.deal.pbn()} {p.played} by {seat}"
        for q in got:
            assert q.deal.hands[seat] == p.deal.hands[seat] and q.played == p.played
            assert q.rules == p.rules and q.leader0 == p.leader0


@pytest.mark.parametrize("name", ["standard", "queen-breaks", "free-lead", "first-trick-points",
                                  "custom-negative"])
def test_each_deal_that_fits_a_view_is_as_likely(name: str) -> None:
    """Late in full deals, where the deals that fit can be counted out: drawn from the view,
    every one (the real deal among them) and no other turns up, about equally often."""
    rng = random.Random(f"view uniform {name}")
    rules = RULE_SETS[name]
    cases = 0
    while cases < 3:
        leader = Seat(rng.randrange(4)) if Rules.parse(rules).first_lead == "free" else None
        p = Position.start(Deal.random(rng.randrange(1 << 30)), rules, leader).random_play(
            rng, rng.randint(42, 46))
        seat = Seat(rng.randrange(4))
        fitting = the_deals_that_fit(p, seat)
        assert p.deal in fitting
        if not 2 <= len(fitting) <= 300:
            continue
        draws = 30 * len(fitting)
        got = samples_from_view(**view_of(p, seat), count=draws, seed=cases)
        assert_uniform(got, fitting, f"{p.deal.pbn()} {p.played} by {seat}")
        cases += 1


def test_before_the_first_lead_the_two_of_clubs_may_be_with_any_other_seat() -> None:
    """Nothing played and no leader given: a seat without the 2 of clubs has not seen who holds
    it, and each other seat does (and leads) about a third of the time; given, it stays."""
    deal = Deal.random(11)
    holder = deal.holder("C2")
    seat = holder.next()
    hand = deal.hands[seat]
    leaders = Counter(q.leader0 for q in samples_from_view(seat, hand, "", 300, seed=1))
    assert set(leaders) == set(Seat) - {seat} and all(70 < n < 130 for n in leaders.values())
    assert all(q.deal.holder("C2") == q.leader0 for q in samples_from_view(seat, hand, "", 30, seed=1))
    assert {q.leader0 for q in samples_from_view(seat, hand, [], 30, leader=holder, seed=2)} == {holder}
    own = samples_from_view(holder, deal.hands[holder], "", 5, seed=3)   # its own 2 of clubs
    assert {q.leader0 for q in own} == {holder}


# S's hand in the cases below, W leading the 2 of clubs to N, E and S
SOUTH = "AK32.A2.A2.AKQJ5"


@pytest.mark.parametrize("kwargs, field, message", [
    (dict(hand="AK32.A2.A2.AKQJ"), "hand", "hand: expected the 13 cards S was dealt, got 12"),
    (dict(hand="SA SK SA"), "hand", "hand: card SA appears twice"),
    (dict(hand="AK32.A2.A2.AKQJX"), "hand", "hand: hand 'AK32.A2.A2.AKQJX': unknown rank 'X'"),
    (dict(hand=5.5), "hand", "hand: expected cards, got 5.5"),
    (dict(hand=(1 << 13) - 1 | 1 << 13), "hand", "hand: 0x3fff holds bits that are no card"),
    (dict(seat="Q"), "seat", "seat: unknown seat 'Q'"),
    (dict(rules={"moon": "maybe"}), "rules", "rules: "),
    (dict(play="C2 C3 CX"), "play", "play card 3 (trick 1): cannot read card 'CX'"),
    (dict(play="C2 C3 C4 C5 C2"), "play", "play card 5 (trick 2): C2 was already played, as card 1"),
    (dict(play="C2 C3 CA"), "play", "play card 3 (trick 1): E played CA, which is in S's hand"),
    (dict(play="C2 C3 C4 C9"), "play", "play card 4 (trick 1): S played C9, which S was not dealt"),
    (dict(play="C2 C3 C4 D2"), "play", "play card 4 (trick 1): S cannot play D2: must follow clubs"),
    (dict(play="C3"), "play", "play card 1 (trick 1): W cannot lead C3: C2 must lead the first trick"),
    (dict(play="C2 D9 C3 C5 CA C7 C6"), "play",
     "play card 2 (trick 1): N cannot play D9: must follow clubs (N plays C6 later)"),
    (dict(play="C2 C3 SQ C5 DA D4 D5 D3"), "play",
     "play card 3 (trick 1): E cannot discard SQ: no point cards on the first trick (E plays D3 later)"),
    (dict(play="C2 C3 C4 C5 HA"), "play", "play card 5 (trick 2): S cannot lead HA (hearts are not broken)"),
    (dict(play="C2", leader=None), "leader", "give the leader: the seat that led C2 to the first trick"),
    (dict(leader="S"), "leader", "leader S given, but S was not dealt C2, which leads the first trick"),
    (dict(hand="AK32.A2.A2.AKQJ2", leader="E"), "leader", "leader E given, but S holds C2 and must lead it"),
    (dict(leader="X"), "leader", "leader: unknown seat 'X'"),
    (dict(rules={"first_lead": "free"}, leader=None), "leader", "the rules have a free first lead: give the leader"),
])
def test_a_view_that_cannot_be_is_refused_naming_the_argument(kwargs: dict, field: str, message: str) -> None:
    view = dict(seat="S", hand=SOUTH, play="", rules=None, leader="W")
    view.update(kwargs)
    with pytest.raises(SampleError) as refused:
        samples_from_view(**view, count=1)  # type: ignore[arg-type]
    assert refused.value.field == field
    assert str(refused.value).startswith("samples_from_view: " + message)
    assert "\n" not in str(refused.value)


def test_a_view_of_a_play_that_fits_no_deal_is_refused() -> None:
    """With a free lead S leads its top spade and nobody follows: the six spades S has not seen
    fit no hand. Each card is legal from some hand; together they fit no deal."""
    view = dict(seat="S", hand="AKQJT98.A.AKQ.AK", rules={"first_lead": "free"}, leader="S")
    with pytest.raises(SampleError, match="^samples_from_view: no deal fits the play$") as refused:
        samples_from_view(**view, play="SA D2 D3 D4", count=1)
    assert refused.value.field == "play"
    hearts = "HK HQ HJ HT H9 H8 H7 H6 H5 H4 H3 H2"
    with pytest.raises(SampleError, match="no deal fits the play and the known cards") as refused:
        samples_from_view(**view, play="", count=1, known={"E": hearts + " C2 C3"})   # 14 cards
    assert refused.value.field == "known"
    spades = Card.parse("S2").mask * 0b11111     # S2..S6: with W, the only seat that followed
    got = samples_from_view(**view, play="SA S7 D3 D4", count=3, known={"E": hearts})
    assert len(got) == 3 and all(q.deal.hands[Seat.W] & spades == spades for q in got)


def test_a_view_checks_its_count_seed_and_known_cards() -> None:
    view = dict(seat="S", hand=SOUTH, play="C2 C3 C4", leader="W")
    for bad in (-1, 1.5, True):     # (SampleErrors, as the docstring says, with their field)
        with pytest.raises(SampleError, match="samples_from_view: count must be a whole number") as e:
            samples_from_view(**view, count=bad)  # type: ignore[arg-type]
        assert e.value.field == "count"
    with pytest.raises(SampleError, match="samples_from_view: seed must be a whole number from 0") as e:
        samples_from_view(**view, count=1, seed=-1)  # type: ignore[arg-type]
    assert e.value.field == "seed"
    for known, words in [({"E": "SA"}, "known card SA of E is in S's own hand"),
                         ({"W": "C3"}, "known card C3 of W was played by N"),
                         ({"E": "C2"}, "known card C2 of E was played by W")]:
        with pytest.raises(SampleError, match=words) as refused:
            samples_from_view(**view, count=1, known=known)  # type: ignore[arg-type]
        assert refused.value.field == "known"
    assert samples_from_view(**view, count=0) == []


def test_a_view_weighs_the_cards_as_its_position_does() -> None:
    """``weigh_view`` and ``analyze --hand --samples`` from a seat's view alone give what
    ``weigh_cards`` gives from the position the view was taken of (the same deals, seed for
    seed), under a rule set with a free lead too."""
    for rules, plays in ((None, 30), ({"preset": "omnibus", "first_lead": "free"}, 21)):
        p = Position.start(Deal.random(7), rules, "E").random_play(random.Random(2), plays)
        seat = p.to_move
        assert seat is not None
        expected = weigh_cards(Solver(table_mb=16), p, 5, seed=4).to_json()
        view = view_of(p, seat)
        assert weigh_view(Solver(table_mb=16), **view, count=5, seed=4).to_json() == expected
        args = ["analyze", "--hand", f"{seat}:{hand_string(view['hand'])}",
                "--play", " ".join(map(str, p.played)), "--leader", str(p.leader0),
                "--rules", json.dumps(p.rules.to_dict()), "--samples", "5", "--seed", "4",
                "--table-mb", "16"]
        result = CliRunner().invoke(cli, [*args, "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.output) == {**expected, "seed": 4}, result.output
        text = CliRunner().invoke(cli, args).output
        assert f"{seat} to play, trick {p.trick_number}" in text
        assert "5 deals that fit its cards and the play (seed 4)" in text


def test_a_hand_given_with_its_seat_says_so() -> None:
    """The command's --hand is "S:KQ97.Q9.AK54.J75", the library's and the service's `hand` the
    cards alone: given with the seat, it was "unknown rank 'S' in S", the seat's letter read as
    a spade's rank."""
    for hand in ("S:KQ97.Q9.AK54.J75", " s : KQ97.Q9.AK54.J75"):
        with pytest.raises(SampleError, match="^samples_from_view: hand: give the cards alone, "
                           "without the seat") as e:
            samples_from_view("S", hand, "", 1, seed=1)
        assert e.value.field == "hand"


def test_a_view_whose_first_leader_is_not_known_does_not_say_whose_turn_it_is() -> None:
    """With nothing played and C2 not in its hand, the seat is not to play, but whose turn it
    is was read off the deals drawn: "it is N's turn" or "it is E's turn" as the seed drew them,
    said of a card nobody knows the holder of."""
    deal = Deal.random(11)
    seat = deal.holder("C2").next()
    messages = set()
    for seed in range(6):
        with pytest.raises(SampleError) as e:
            weigh_view(Solver(table_mb=1), seat, deal.hands[seat], "", 1, seed=seed)
        messages.add(str(e.value))
        assert e.value.field == "seat"
    assert messages == {f"weigh_view: {seat} is not to play (the holder of C2 leads trick 1, "
                        "and it is not in its hand)"}


def test_weighing_needs_the_seat_to_play_in_every_deal_with_the_same_cards() -> None:
    deal = Deal.random(11)
    holder = deal.holder("C2")
    seat = holder.next()
    solver = Solver(table_mb=1)
    for leader, turn in ((None, "the holder of C2 leads trick 1"), (holder, f"it is {holder}'s turn")):
        with pytest.raises(SampleError, match=f"^weigh_view: {seat} is not to play \\({turn}") as e:
            weigh_view(solver, seat, deal.hands[seat], "", 3, leader=leader, seed=1)
        assert e.value.field == "seat"
    p = Position.start(deal).random_play(random.Random(1), 47)
    mover = p.to_move
    assert mover is not None
    other = samples(p, 1, mover, seed=1)[0]
    with pytest.raises(SampleError, match=f"{mover.next()} is not to play \\(it is {mover}'s turn\\)"):
        weigh_deals(solver, mover.next(), [p, other])
    # another play (here one card more): a card's mean would count deals it was not in
    over = p.play_all(" ".join(map(str, p.legal_moves()[:1])))
    with pytest.raises(SampleError, match="weigh_deals: deal 2: its play differs from deal 1's") as e:
        weigh_deals(solver, mover, [p, over])
    assert e.value.field == "deals"
    changed = next(q for k in range(20) for q in samples(p, 1, mover.next(), seed=k)
                   if q.hands[mover] != p.hands[mover])
    with pytest.raises(SampleError, match="deal 2: .* holds other cards than in deal 1") as e:
        weigh_deals(solver, mover, [p, changed])
    assert e.value.field == "deals"
    with pytest.raises(HeartsError, match="deal 2: expected a Position, got str"):
        weigh_deals(solver, mover, [p, "N:..."])  # type: ignore[list-item]
    for bad in (None, p, "N:..."):
        with pytest.raises(HeartsError, match="weigh_deals: deals: expected positions"):
            weigh_deals(solver, mover, bad)  # type: ignore[arg-type]
    assert weigh_deals(solver, mover, []).to_json() == {"seat": str(mover), "samples": 0,
                                                        "answered": 0, "cards": []}


def test_a_view_whose_own_card_in_trick_1_shows_the_leader_needs_no_leader() -> None:
    """The play showed who led the 2 of clubs (where the seat's own card fell in trick 1),
    yet the leader had to be given, by every bot at every turn from trick 2 on."""
    p = Position.start(Deal.random(7)).random_play(random.Random(2), 30)
    for seat in Seat:
        view = view_of(p, seat)
        if view["hand"] & Card.parse("C2").mask:
            continue
        without = {**view, "leader": None}
        assert samples_from_view(**without, count=3, seed=1) == samples_from_view(**view, count=3, seed=1)
    with pytest.raises(SampleError, match="give the leader"):     # not played yet: not shown
        samples_from_view("S", SOUTH, "C2 C3", 1)


def test_with_a_free_first_lead_the_seat_s_own_card_in_trick_1_shows_the_leader_too() -> None:
    """The leader was inferred from the seat's own card in trick 1 only when the 2 of clubs
    led: with a free first lead it had to be given still, at every turn."""
    rules = Rules.parse({"first_lead": "free"})
    p = Position.start(Deal.random(7), rules, leader=Seat.E).random_play(random.Random(2), 9)
    for seat in Seat:
        view = view_of(p, seat)
        without = {**view, "leader": None}
        assert samples_from_view(**without, count=3, seed=1) == samples_from_view(**view, count=3, seed=1)
    with pytest.raises(SampleError, match="free first lead: give the leader"):
        samples_from_view("S", SOUTH, "", 1, rules=rules)


@pytest.mark.parametrize("given, words, field", [
    ({"hand": -1}, "hand: -0x1 holds bits that are no card", "hand"),
    ({"hand": "SA SA"}, "hand: card SA appears twice", "hand"),
    ({"hand": 5.0}, "hand: expected cards, got 5.0", "hand"),
    ({"play": 5}, "play: expected cards, got 5", "play"),
    ({"play": b"C2"}, "play: expected cards, got b'C2'", "play"),
])
def test_a_view_checks_its_hand_and_play(given: dict, words: str, field: str) -> None:
    """The seat's own cards and the play as the library takes them (text, cards or a mask):
    each refused with its field, as the API's problem points at it."""
    view = {"seat": "S", "hand": SOUTH, "play": "", "leader": "W", **given}
    with pytest.raises(SampleError) as refused:
        samples_from_view(**view, count=1)  # type: ignore[arg-type]
    assert str(refused.value) == f"samples_from_view: {words}" and refused.value.field == field


@pytest.mark.parametrize("name", ["standard", "first-trick-points", "queen-breaks", "free-lead"])
def test_a_draw_replays_the_play_once_and_gives_each_deal_a_replay_s_state(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The deals drawn share the play and so the state it leaves but the hands (the trick, who
    leads, the cards taken, hearts broken): the play is replayed on the first alone and only
    checked on the others (a replay each took most of a draw's time late in a hand), and each
    deal's state is what a replay of its own gives."""
    rng = random.Random(f"replay once {name}")
    rules = RULE_SETS[name]
    replays = []
    real_play_all = Position.play_all

    def counted(self: Position, cards: object) -> Position:
        replays.append(cards)
        return real_play_all(self, cards)  # type: ignore[arg-type]

    for case in range(6):
        leader = Seat(rng.randrange(4)) if Rules.parse(rules).first_lead == "free" else None
        p = Position.start(Deal.random(rng.randrange(1 << 30)), rules, leader).random_play(
            rng, rng.choice([5, 21, 37, 44, 51]))
        replays.clear()
        monkeypatch.setattr(Position, "play_all", counted)
        got = samples(p, 20, seed=case)
        monkeypatch.setattr(Position, "play_all", real_play_all)
        assert len(replays) == 1, f"{len(replays)} replays for 20 deals"
        for q in got:
            r = Position.from_play(q.deal, q.rules, q.played, q.leader0)
            assert (q.hands, q.trick, q.leader, q.taken, q.tricks_won, q.broken, q.to_move) == (
                r.hands, r.trick, r.leader, r.taken, r.tricks_won, r.broken, r.to_move)


def test_a_draw_that_breaks_the_play_is_still_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check of the play on each deal drawn is the net under the constraints worked out
    before drawing: with them dropped (any unseen card to any seat), the deals that come out
    still all fit the play, the others refused and drawn again."""
    monkeypatch.setattr(sampling, "_allowed", lambda sight, known, name="samples": [
        0 if s == sight.observer else
        sight.deck & ~sight.dealt & ~sum(c.mask for c in sight.played) for s in Seat])
    monkeypatch.setattr(sampling, "TRIES", 100_000)
    rng = random.Random(7)
    p = Position.start(Deal.random(11)).random_play(rng, 30)
    got = samples(p, 30, seed=3)
    assert all(fits(p, q.deal) for q in got)


def test_the_readme_s_samples_from_view_example_has_s_to_play() -> None:
    """README's bot example: S analyses its cards in the deals drawn, so S must be to play in
    them. Its play once ended trick 1 ("C2 CJ CQ CK"), N to lead: ``analyses`` of S gave no
    cards and ``weigh_view`` refused the view."""
    from pathlib import Path
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    call = re.search(r"`(samples_from_view\([^`]*\))`", readme)
    assert call is not None
    deals = eval(call.group(1), {"samples_from_view": samples_from_view})
    assert deals and {p.to_move for p in deals} == {Seat.S}
