"""The plain-text report of ``hearts-dd analyze`` (solver/report.py)."""
from __future__ import annotations

from solver.analysis import Solver
from solver.cards import Seat
from solver.deal import Deal
from solver.position import Position
from solver.report import render, render_line
from solver.rules import Rules

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
    assert "Points taken so far: N 0, E 0, S 0, W 0\n" in text
    assert "(guarantee: the fewest points a seat can make sure of" in text
    assert "Seat  Guarantee  Moon possible" in text
    over = pos.play_all([m.card for m in solver.line(pos, Seat.N)])
    text = render(solver.analyze(over))
    assert "Seat      Score  Moon possible" in text and "guarantee:" not in text
    text = render(solver.analyze(Position.start(DEAL, Rules.parse({"partnership": True}))))
    assert "the fewest points a side can make sure of against the other side" in text
