"""The answers' JSON (solver/results.py): the fields the CLI's ``--json``, the API and the
position lines share."""
from __future__ import annotations

import json
import pickle

import pytest

from solver.analysis import Solver
from solver.cards import Card, Seat
from solver.deal import Deal
from solver.position import Position
from solver.position_lines import read_position_lines
from solver.results import Analysis, AnalysisWithLine, BySeat, MoveResult
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


def test_an_analysis_players_take_a_seat_as_the_library_takes_one() -> None:
    """A bot writes ``players["N"]`` as it writes ``guarantee(p, "N")``: letters and numbers
    find the seat; anything else is not in it."""
    a = Solver(table_mb=16).analyze(Position.from_play(DEAL, RULES, "C2 C3 C4", "N"),
                                     seats=["N", "W"])
    assert a.players["N"] is a.players[Seat.N] is a.players["n"] is a.players[0]
    assert a.players.get("W") is a.players[Seat.W] and a.players.get("E") is None
    assert "W" in a.players and "E" not in a.players and "NS" not in a.players
    for missing in ("E", "X", 4, None):
        with pytest.raises(KeyError):
            a.players[missing]
    assert pickle.loads(pickle.dumps(a.players)) == a.players


def test_each_card_says_whether_it_is_best_and_the_time_is_to_a_tenth_of_a_millisecond() -> None:
    p = Position.from_play(DEAL, RULES, "", "N")
    moves = [MoveResult(Card.parse("SA"), 0, True, True), MoveResult(Card.parse("H2"), 1, False)]
    got = Analysis(p, BySeat(), moves, 7, 1.234567).to_json()
    assert got["moves"] == [{"card": "SA", "guarantee": 0, "moon_possible": True, "best": True},
                            {"card": "H2", "guarantee": 1, "moon_possible": False, "best": False}]
    assert (got["nodes"], got["seconds"]) == (7, 1.2346)


def test_points_taken_are_each_seats_side_so_far() -> None:
    """With partnerships both partners show their side's points (README, ``--json``)."""
    solver = Solver(table_mb=16)
    play = "C2 C3 C4 C5 SJ SA SK SQ"                     # W takes trick 1, N the queen
    alone = Position.from_play(DEAL, RULES, play, "N")
    sides = Position.from_play(DEAL, RULES.with_(partnership=True), play, "N")
    assert solver.analyze(alone).to_json()["points_taken"] == {"N": 13, "E": 0, "S": 0, "W": 0}
    assert solver.analyze(sides).to_json()["points_taken"] == {"N": 13, "E": 0, "S": 13, "W": 0}


def test_an_answer_names_its_position_whole_leader_included() -> None:
    """Without ``leader`` a free first lead's answer (or one after trick 1) could not be asked
    again: "the rules have a free first lead: give the leader"."""
    solver = Solver(table_mb=16)
    for play, leader in [("", "S"), ("C4 C5 C2 C3", "S"), ("C3 C4", "E")]:
        p = Position.from_play(DEAL, RULES, play, leader)
        got = solver.analyze(p).to_json()
        line = json.dumps({k: got[k] for k in ("deal", "play", "rules", "leader")})
        assert got["leader"] == leader and next(read_position_lines([line])).position == p


def test_an_analysis_with_a_line_is_the_analysis_json_and_the_line_after_it() -> None:
    """``analyze --line --json`` and ``POST /analyze`` answer this one object."""
    solver = Solver(table_mb=16)
    p = Position.from_play(DEAL, RULES, "C2 C3", "N")
    a, line = solver.analyze(p), solver.line(p, Seat.E)
    assert AnalysisWithLine(a).to_json() == a.to_json()
    got = AnalysisWithLine(a, Seat.E, line).to_json()
    assert list(got) == [*a.to_json(), "line"]
    assert got["line"] == {"for": "E", "cards": [f"{st.seat}:{st.card}" for st in line]}
