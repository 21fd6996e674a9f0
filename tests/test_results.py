"""The answers' JSON (solver/results.py): the fields the CLI's ``--json``, the API and the
position lines share."""
from __future__ import annotations

from solver.analysis import Solver
from solver.deal import Deal
from solver.position import Position
from solver.rules import Rules

DEAL = Deal.parse("N:A.2..2 K.3..3 Q.4..4 J.5..5")
RULES = Rules.parse({"first_lead": "free"})


def test_the_trick_is_counted_from_1_and_null_once_the_hand_is_over() -> None:
    solver = Solver(table_mb=16)
    for play, trick, to_move in [("", 1, "N"), ("C2 C3 C4", 1, "W"), ("C2 C3 C4 C5", 2, "W"),
                                 ("C2 C3 C4 C5 SJ SA SK SQ H2 H3 H4 H5", None, None)]:
        got = solver.analyze(Position.from_play(DEAL, RULES, play, "N")).to_json()
        assert (got["trick"], got["to_move"]) == (trick, to_move), play
        assert got["play"] == play


def test_points_taken_are_each_seats_side_so_far() -> None:
    """With partnerships both partners show their side's points (README, ``--json``)."""
    solver = Solver(table_mb=16)
    play = "C2 C3 C4 C5 SJ SA SK SQ"                     # W takes trick 1, N the queen
    alone = Position.from_play(DEAL, RULES, play, "N")
    sides = Position.from_play(DEAL, RULES.with_(partnership=True), play, "N")
    assert solver.analyze(alone).to_json()["points_taken"] == {"N": 13, "E": 0, "S": 0, "W": 0}
    assert solver.analyze(sides).to_json()["points_taken"] == {"N": 13, "E": 0, "S": 13, "W": 0}
