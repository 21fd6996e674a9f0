"""The plain-text report of ``hearts-dd analyze`` (solver/report.py)."""
from __future__ import annotations

import re

import pytest

from solver.analysis import Solver
from solver.cards import Seat
from solver.deal import Deal, hand_string
from solver.position import Position
from solver.report import render, render_catalogue, render_line
from solver.rules import KEYS, PRESETS, Rules, catalogue

RANKS = "23456789TJQKA"
DEAL = Deal.parse("N:.J42.32.64 T65.6..AK8 Q9.KT73.A. 32.5.T97.5")


def test_the_report_names_every_rule_that_differs_from_the_preset():
    """It once said "Rules: standard" for standard rules without the moon."""
    rules = Rules.parse({"moon": "none", "values": {"H": -1}})
    text = render(Solver(table_mb=16).analyze(Position.start(DEAL, rules)))
    assert 'Rules: standard with values={"H": -1}, moon="none"' in text
    assert "Rules: omnibus\n" in render(Solver(table_mb=16).analyze(Position.start(DEAL, Rules.parse("omnibus"))))


def test_a_trick_under_way_is_written_as_the_line_writes_it():
    pos = Position.from_play(DEAL, Rules(), "C4 C8")
    assert "Trick 1: N C4  E C8\n" in render(Solver(table_mb=16).analyze(pos))


def test_with_partnerships_the_line_is_the_side_s():
    pos = Position.start(DEAL, Rules.parse({"partnership": True}))
    solver = Solver(table_mb=16)
    steps = solver.line(pos, Seat.E)
    header = render_line(pos, Seat.E, steps).splitlines()[0]
    assert header == f"Optimal line for E/W (guarantee {solver.guarantee(pos, Seat.E)}):"


def test_the_seats_table_says_what_a_guarantee_is_and_what_was_taken():
    solver = Solver(table_mb=16)
    pos = Position.from_play(DEAL, Rules(), "C4 C8 S9 C5")
    text = render(solver.analyze(pos))
    assert "Points taken so far: N 0, E 0, S 0, W 0; hearts not broken yet\n" in text
    only_east = render(solver.analyze(pos, seats=[Seat.E]))     # (as its table: the seats asked)
    assert "Points taken so far: E 0; hearts not broken yet\n" in only_east
    assert "(guarantee: the fewest points a seat can make sure of" in text
    assert "Seat  Guarantee  Moon possible" in text
    over = pos.play_all([m.card for m in solver.line(pos, Seat.N)])
    text = render(solver.analyze(over))
    assert "Seat      Score  Took every point card" in text and "guarantee:" not in text
    text = render(solver.analyze(Position.start(DEAL, Rules.parse({"partnership": True}))))
    assert "the fewest points a side can make sure of for the whole hand" in text
    assert "against the other side;" in text


def test_a_hand_over_says_what_each_seat_took_and_who_shot_the_moon():
    """W took all 3 points and scored 0: the report said only "Score 0, Moon possible yes",
    a moon "possible" in a hand that is over, and never what was taken."""
    end = Position.from_play(Deal.parse("N:A.K.. K.A.. .Q.3. ..2.2"), Rules(), "C2 SA SK D3 D2 HK HA HQ")
    lines = render(Solver(table_mb=16).analyze(end)).splitlines()
    top = lines.index("The hand is over. Rules: standard")
    assert lines[top + 1] == "Points taken: N 0, E 0, S 0, W 3; W shot the moon"
    assert lines[top + 3:top + 8] == ["Seat      Score  Took every point card", "N             3  no",
                                      "E             3  no", "S             3  no",
                                      "W             0  yes"]
    none = render(Solver(table_mb=16).analyze(Position.from_play(
        end.deal, Rules.parse("rickety-kate"), end.played)))
    assert "Points taken: N 0, E 0, S 0, W 3\n" in none and "W             3  yes" in none


def test_the_footnote_says_what_moon_possible_means_and_no_moon_where_the_rules_have_none():
    """"Moon possible: yes" read as "a moon is still open", and under rickety-kate (no moon)
    the footnote still spoke of letting a seat shoot the moon."""
    for rules in ("standard", "rickety-kate", {"partnership": True}, "bridge"):
        text = render(Solver(table_mb=16).analyze(Position.start(DEAL, Rules.parse(rules), "N")))
        note = " ".join(text[text.index("(guarantee:"):].split(")")[0].split())
        assert "moon possible: " in note and "can make sure of taking every point card" in note, rules
        no_moon = Rules.parse(rules).moon == "none"
        assert ("shoot the moon" in note) == (not no_moon and not Rules.parse(rules).partnership), rules
        assert ("scores nothing special under these rules" in note) == no_moon, rules


def test_the_footnote_says_a_guarantee_counts_the_points_taken_so_far():
    """Beside "Points taken so far: E 13", E's guarantee of 18 read as 18 more to come: it is
    the score of the whole hand (SPEC §3), the 13 included."""
    pos = Position.from_play(DEAL, Rules(), "C4 C8 S9 C5")
    text = render(Solver(table_mb=16).analyze(pos))
    note = " ".join(text[text.index("(guarantee:"):].split())
    assert note.startswith("(guarantee: the fewest points a seat can make sure of for the whole "
                           "hand, those taken so far included, against the other three together")
    assert all(len(line) <= 79 for line in text.splitlines())


def test_the_report_and_its_line_fit_a_terminal_of_80_columns():
    """The line's footnote (87 columns) and the rules of a position under rules of many keys
    (over 100) ran past an 80-column terminal's edge, which wrapped them mid-word."""
    rules = Rules.parse({"preset": "omnibus", "moon": "subtract", "first_lead": "free",
                         "first_trick_points": True, "hearts_break": "queen", "trick_points": 1})
    pos = Position.from_play(DEAL, rules, "C4 C8", leader="N")
    solver = Solver(table_mb=16)
    text = render(solver.analyze(pos)) + "\n" + render_line(pos, Seat.S, solver.line(pos, Seat.S))
    lines = text.splitlines()
    assert all(len(line) <= 79 for line in lines), [line for line in lines if len(line) > 79]
    top = lines.index(next(line for line in lines if line.startswith("S to play, trick 1. Rules: ")))
    assert lines[top + 2] == "  trick_points=1"       # (the rules wrapped, indented)


def test_a_hand_over_with_partnerships_says_the_partners_share_the_score():
    """At the end "N 3 ... S 3" read as 6 points for N/S: the footnote that said guarantees
    were a side's is not shown once the hand is over."""
    rules = Rules.parse({"partnership": True})
    end = Position.from_play(Deal.parse("N:A.K.. K.A.. .Q.3. ..2.2"), rules, "C2 SA SK D3 D2 HK HA HQ")
    text = render(Solver(table_mb=16).analyze(end))
    assert "Points taken: N/S 0, E/W 3; E/W shot the moon\n" in text
    assert "(each partner's score is the side's: the two share it, not add it up)" in text
    alone = Position.from_play(end.deal, Rules(), end.played)
    assert "each partner" not in render(Solver(table_mb=16).analyze(alone))


def test_the_diagram_has_west_on_the_left_and_east_on_the_right():
    """Under the "W … E" row each suit's line starts with West's cards and ends with East's
    (a diagram with the two swapped read just as well), and the E stands over East's suits."""
    lines = render(Solver(table_mb=16).analyze(Position.start(DEAL))).splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("W ") and line.endswith(" E"))
    assert lines[row].rindex("E") == lines[row + 1].rindex("♠")
    west, east = (hand_string(DEAL.hands[seat]).split(".") for seat in (Seat.W, Seat.E))
    for k, (symbol, w, e) in enumerate(zip("♠♥♦♣", west, east)):
        line = lines[row + 1 + k]
        assert line.startswith(f"{symbol} {w or '-'} ") and line.endswith(f"{symbol} {e or '-'}"), line


def points_by_the_rules(cards: list[str], trick_points: int) -> int:
    """A trick's points for its winner under standard values (SPEC §2: each heart 1, SQ 13),
    with ``trick_points`` for the trick itself."""
    return sum(1 if c[0] == "H" else 13 if c == "SQ" else 0 for c in cards) + trick_points


@pytest.mark.parametrize("trick_points", [1, -1])
def test_a_line_s_tricks_carry_their_trick_points(trick_points: int):
    """With ``trick_points`` every trick scores for its winner besides its cards (SPEC §2): the
    line's "→ seat, N points" counts them, so a trick without a point card shows 1 point (or
    -1 point), and one whose points come to 0 none."""
    pos = Position.start(DEAL, Rules.parse({"trick_points": trick_points}))
    solver = Solver(table_mb=16)
    lines = render_line(pos, Seat.S, solver.line(pos, Seat.S)).splitlines()
    assert lines[-2] == "(after →: who takes the trick, and its points)"   # (no cards on the table)
    tricks = [line for line in lines if line.startswith("Trick ")]
    assert len(tricks) == 7
    for line in tricks:
        played, _, taken = line.partition("  → ")
        seats_cards = re.findall(r"\b([NESW]) ([SHDC][2-9TJQKA])\b", played)
        assert len(seats_cards) == 4, line
        led = seats_cards[0][1][0]
        winner = max((sc for sc in seats_cards if sc[1][0] == led), key=lambda sc: RANKS.index(sc[1][1]))[0]
        points = points_by_the_rules([card for _, card in seats_cards], trick_points)
        assert taken == winner + ("" if points == 0 else
                                  f", {points} point{'' if abs(points) == 1 else 's'}"), line


def test_a_line_ends_with_the_final_scores_and_who_shot_the_moon():
    """N's guarantee of 3 comes from W's moon, not from any trick N takes: the line showed W
    taking every point and never said what N scored, nor why."""
    pos = Position.start(Deal.parse("N:A.K.. K.A.. .Q.3. ..2.2"))
    solver = Solver(table_mb=16)
    steps = solver.line(pos, Seat.N)
    lines = render_line(pos, Seat.N, steps).splitlines()
    assert lines[0] == "Optimal line for N (guarantee 3):"
    assert lines[-3] == "Final scores: N 3, E 3, S 3, W 0 (W shot the moon)"
    partners = Position.start(DEAL, Rules.parse({"partnership": True}))
    end = partners.play_all([step.card for step in solver.line(partners, Seat.E)])
    lines = render_line(partners, Seat.E, solver.line(partners, Seat.E)).splitlines()
    assert lines[-3] == f"Final scores: N/S {end.score(Seat.N)}, E/W {end.score(Seat.E)}"
    assert end.score(Seat.E) == solver.guarantee(partners, Seat.E)


def test_a_line_says_the_others_play_against_the_target_not_for_themselves():
    """In N's line the other three fed W a moon, which read as their blunders: nothing said
    that they play against N (SPEC §3), or with partnerships that N's partner plays with N."""
    pos = Position.start(Deal.parse("N:A.K.. K.A.. .Q.3. ..2.2"))
    solver = Solver(table_mb=16)
    last = render_line(pos, Seat.N, solver.line(pos, Seat.N)).splitlines()[-1]
    assert last == "(N plays for its lowest score; the other three play together against it)"
    pairs = Position.start(DEAL, Rules.parse({"partnership": True}))
    last = render_line(pairs, Seat.W, solver.line(pairs, Seat.W)).splitlines()[-1]
    assert last == "(E/W play for their lowest score; N/S play against them)"


def test_the_cards_table_says_it_lists_the_legal_cards():
    """S may play two of its seven cards (no points on the first trick): the table listed two
    under "Cards for S", and the other five, in the diagram, seemed forgotten."""
    pos = Position.from_play(DEAL, Rules(), "C4 C8")
    analysis = Solver(table_mb=16).analyze(pos)
    assert len(analysis.moves) < bin(pos.hands[Seat.S]).count("1")
    assert "\nLegal cards for S   (* best)\n" in render(analysis)


def test_the_best_cards_and_only_they_are_starred():
    """``*`` marks the mover's cards whose guarantee is its best, not those that keep a moon
    possible: here two of E's five cards are best and none keeps a moon."""
    analysis = Solver(table_mb=16).analyze(Position.from_play(DEAL, Rules(), "C4 C8 S9 C5"))
    best = {str(m.card) for m in analysis.moves if m.best}
    assert best and len(best) < len(analysis.moves)
    assert best != {str(m.card) for m in analysis.moves if m.moon_possible}
    lines = render(analysis).splitlines()
    rows = lines[lines.index("Card  Guarantee  Moon possible") + 1:][:len(analysis.moves)]
    assert [row.split()[0].lstrip("*") for row in rows] == [str(m.card) for m in analysis.moves]
    assert {row.split()[0][1:] for row in rows if row.startswith("*")} == best


def test_the_diagram_fits_a_terminal_of_40_columns():
    """East's hand stood at column 36, so that on a narrow terminal its suits wrapped to the
    next line's start, under West's, where they read as West's."""
    from solver.report import diagram
    longest = Deal.parse("N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432")
    for deal in (longest, DEAL):
        assert max(len(line) for line in diagram(deal.hands).splitlines()) < 40


def test_the_rules_report_names_each_preset_and_key_and_what_it_takes() -> None:
    text = render_catalogue(catalogue())
    presets, keys = text.split("\n\nRule keys:")
    for name in PRESETS:
        assert re.search(rf"^  {re.escape(name)} +\S", presets, re.M), name
    for name in KEYS:      # its description, maybe wrapped, then what it takes
        entry = re.search(rf"^  {name} +\S.*(\n +\S.*)*", keys, re.M)
        assert entry and re.search(r"\n +(one of|true or false|an integer|a string|standard)",
                                   entry[0]), name
    assert "one of add, subtract, none; standard: add" in keys
    assert "an integer from -1000 to 1000; standard: 0" in keys


def test_the_rules_report_lists_a_string_key_without_choices() -> None:
    """Every string key has had a fixed set of choices, and the report joined them: a new key
    taking any string (a card's name, say), ``choices`` None in the catalogue, made
    ``hearts-dd rules`` crash with a TypeError (can only join an iterable)."""
    cards = {"description": "a card", "type": "string", "choices": None, "standard": "SQ"}
    keys = dict(catalogue()["keys"], card=cards)
    text = render_catalogue({**catalogue(), "keys": keys})
    assert re.search(r'^  card +a card\n +a string; standard: "SQ"$', text, re.M), text


def test_the_rules_report_fits_a_terminal_of_80_columns() -> None:
    """Its lines ran to 128 columns, and an 80-column terminal wrapped the descriptions back to
    its first column, under the names of the presets and keys."""
    lines = render_catalogue(catalogue()).splitlines()
    assert all(len(line) <= 79 for line in lines), [line for line in lines if len(line) > 79]
    wrapped = [line for line in lines if line.startswith(" " * 22) and line.strip()]
    assert wrapped and all(not line.startswith(" " * 23) for line in wrapped)


def test_the_readme_s_example_report_is_what_the_report_says() -> None:
    """README's "Without --json" example, line by line ("..." for lines left out)."""
    from pathlib import Path
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    example = readme.split("```\nTrick 10: E HJ\n", 1)[1].split("```", 1)[0]
    deal = Deal.parse("N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4")
    pos = Position.from_play(deal, Rules(), "C2 C6 C5 CT DT D7 D9 DQ CJ C4 CK CQ C3 C8 C9 H9 S4 S8 "
                             "SQ SA HK H7 HA H8 S5 SK C7 S7 DA D4 D2 DK H5 HT H4 H2 HJ")
    solver = Solver(table_mb=16)
    line = render_line(pos, Seat.E, solver.line(pos, Seat.E))
    lines = (render(solver.analyze(pos)) + "\n" + line).splitlines()
    at = lines.index("Trick 10: E HJ")
    for want in example.splitlines():
        if want != "...":
            at = lines.index(want, at + 1)      # in order, each after the one before


def test_each_preset_with_a_moon_says_what_a_moon_adds() -> None:
    """Only standard's description said "moon adds 26 to the others": under spot a moon adds
    129 (every heart at face value and SQ 25), under black-maria 43, which the list left a
    reader to take for 26."""
    for name, preset in catalogue()["presets"].items():
        rules = Rules.parse(name)
        if rules.moon == "add" and rules.moon_total > 0:
            assert f"moon adds {rules.moon_total} to the others" in preset["description"], name
            assert f"({rules.moon_total} in all)" in preset["description"], name


def test_a_short_deal_says_its_first_trick_is_trick_1() -> None:
    """An endgame set as a deal of two cards a hand is a whole hand (SPEC §1): W must lead C2
    and N may not drop HK on it, which the report left a teacher to take for the solver's
    mistakes. Until its first trick is over the report says so, and how to change it."""
    deal = Deal.parse("N:A.K.. K.A.. .Q.3. ..2.2")
    solver = Solver(table_mb=16)
    text = " ".join(render(solver.analyze(Position.start(deal))).split())
    assert ("(a deal of 2 cards a hand is a whole hand: its first trick is trick 1, so C2, the "
            "lowest club, leads; no point card on it unless a hand has nothing else; hearts are "
            "not broken. --rules first_lead, first_trick_points and hearts_break change that.)") in text
    assert "a whole hand" in render(solver.analyze(Position.from_play(deal, Rules(), "C2")))
    assert "a whole hand" not in render(solver.analyze(Position.from_play(deal, Rules(), "C2 SA SK D3")))
    free = Rules.parse({"first_lead": "free", "first_trick_points": True, "hearts_break": "none"})
    assert "a whole hand" not in render(solver.analyze(Position.start(deal, free, "N")))
    one = render(solver.analyze(Position.start(Deal.parse("N:...2 ...3 ...4 ...5"))))
    assert "(a deal of 1 card a hand is a whole hand:" in one
    from solver.report import _short_deal
    assert _short_deal(Position.start(Deal.random(1))) == []     # (13 cards: a hand as dealt)


def test_the_report_says_whether_hearts_are_broken() -> None:
    """Whether a heart may be led, which the legal cards show only by leaving hearts out (a
    teacher took a leader's missing hearts for the solver's mistake); not said under rules
    where hearts are never closed."""
    solver = Solver(table_mb=16)
    closed = Position.from_play(DEAL, Rules(), "C4 C8 S9 C5")
    assert not closed.broken
    assert "; hearts not broken yet\n" in render(solver.analyze(closed, seats=[closed.to_move]))
    hand = Deal.parse("N:A.2.. .3.2. Q.4.. J.5..")
    rules = Rules.parse({"first_lead": "free", "first_trick_points": True})
    opened = Position.from_play(hand, rules, "SA H3 SQ SJ", leader="N")
    assert opened.broken and opened.trick_number == 2
    assert "; hearts broken\n" in render(solver.analyze(opened, seats=[opened.to_move]))
    never = Position.from_play(DEAL, Rules.parse({"hearts_break": "none"}), "C4 C8 S9 C5")
    assert "Points taken so far: N 0, E 0, S 0, W 0\n" in render(solver.analyze(never))
