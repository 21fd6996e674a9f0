"""``POST /analyze`` and ``POST /moon``: questions about one position; ``POST /analyses``: many;
``POST /samples``: the deals a player cannot tell from one (to analyse as many).

A request is read field by field (rules, deal, leader, play) so a problem names the field it
is in; only then is the solver asked, under the request's compute budget. Answers are returned
as built (``jsonify``), keys in the solver's order, not re-serialised through the models.
"""
from __future__ import annotations

from typing import Any, Callable, TypeVar

from apiflask import APIBlueprint
from flask import Response, current_app, jsonify

from solver.analysis import analyze_with_line
from solver.cards import Seat
from solver.deal import Deal
from solver.errors import HeartsError, SampleError
from solver.position import Position
from solver.position_lines import answer_batch, read_position_objects
from solver.review import review
from solver.rules import Rules
from solver.sampling import fresh_seed, samples as sampled, samples_from_view

from .docs import problem_responses
from .problems import ApiProblem
from .schemas import (AnalysesRequest, AnalysesResult, AnalyzeRequest, AnalyzeResult, MoonReport,
                      PositionRequest, SamplesRequest, SamplesResult)
from .solving import solving

bp = APIBlueprint("positions", __name__, tag="Analysis")

T = TypeVar("T")


def _read(field: str, kind: str, parse: Callable[..., T], *args: Any) -> T:
    try:
        return parse(*args)
    except HeartsError as e:
        raise ApiProblem.for_field(kind, field, str(e)) from None


def positions_of(body: PositionRequest) -> tuple[Position, Position]:
    """The start of play and the position after ``body.play``; problems name the field at fault."""
    rules = _read("rules", "invalid-rules", Rules.parse, body.rules)
    deal = _read("deal", "invalid-deal", Deal.parse, body.deal)
    start = _read("leader", "invalid-leader", Position.start, deal, rules, body.leader)
    return start, _read("play", "illegal-play", start.play_all, body.play or "")


@bp.post("/analyze")
@bp.input(AnalyzeRequest, arg_name="body")
@bp.output(AnalyzeResult, description="the same object as `hearts-dd analyze --json`")
@bp.doc(operation_id="analyze", responses=problem_responses(400, 413, 422))
def analyze(body: AnalyzeRequest) -> Response:
    """Guarantees, moon feasibility and the value of every legal card

    The answer is exactly the object `hearts-dd analyze --json` prints for the same deal, play,
    rules, leader, player and line (SPEC §4). A question the solver cannot settle within the service's
    compute budget is answered 422 with a problem of type `urn:hearts-dd:problem:budget-exceeded`.
    """
    _, position = positions_of(body)
    seats = None if body.player is None else [Seat.parse(body.player)]
    target = None if body.line is None else Seat.parse(body.line)
    with solving() as budget:       # (each call gets what is left of the budget)
        answer = analyze_with_line(budget.limited(), position, seats, target,
                                   before_line=budget.limited)
    return jsonify(answer.to_json())


@bp.post("/analyses")
@bp.input(AnalysesRequest, arg_name="body")
@bp.output(AnalysesResult, description="one answer a position, in order")
@bp.doc(operation_id="analyzeMany", responses=problem_responses(400, 413, 422))
def analyses(body: AnalysesRequest) -> Response:
    """Many positions in one request

    Each position is answered as `POST /analyze` would answer it, with its `index` and `id`
    and an `error` (null), in the order given; a position that cannot be read (a bad deal,
    rule, card or field) is answered with only its `error`, naming `positions[i]`, and never
    stops the others, as are positions the request's compute budget (shared by all of them)
    does not reach. For the deals a Monte-Carlo player samples: one request instead of one
    each (at most 1,000 positions, as many as `/samples` draws, unless the service's
    `HEARTS_DD_ANALYSES_MAX_POSITIONS` says otherwise).
    """
    # (each position costs its reading and an answer, a budget's worth of solving or not: 1 MB
    # of "{}" was 340,000 error answers, 18 MB, 300 MB of worker)
    limit = current_app.config["ANALYSES_MAX_POSITIONS"]
    if len(body.positions) > limit:
        raise ApiProblem.for_field("invalid-request", "positions", f"{len(body.positions)} "
                                   f"positions; at most {limit} a request")
    rules = _read("rules", "invalid-rules", Rules.parse, body.rules)
    player = None if body.player is None else Seat.parse(body.player)
    items = list(read_position_objects(body.positions, rules, player))
    with solving() as budget:
        answers = list(answer_batch(budget.limited(), items,
                                    "no answer within the request's compute budget",
                                    share=body.share or 0.0))
    return jsonify({"answers": answers})


@bp.post("/samples")
@bp.input(SamplesRequest, arg_name="body")
@bp.output(SamplesResult, description="the deals, as positions to send to `/analyses`")
@bp.doc(operation_id="sampleDeals", responses=problem_responses(400, 413, 422))
def samples(body: SamplesRequest) -> Response:
    """Deals a player cannot tell from this one

    For a Monte-Carlo player: `count` positions with the same rules, leader and play, the
    seat's own hand, and the cards it has not seen dealt at random to the others, each deal
    that fits what it has seen equally likely (voids and what else the rules made the play
    show, and the `known` cards). Send them to `/analyses` and compare the cards' values.
    A bot that knows only its own cards and the play sends `hand` and `seat` instead of `deal`.
    """
    seat = None if body.seat is None else Seat.parse(body.seat)
    # ("W" and "w" name one seat: the library keeps the cards of both)
    known: dict[Seat | str, str] = {name: cards for name, cards in (body.known or {}).items()}
    # a seed of its own when none is given, said in the answer, so that the draw can be repeated
    seed = fresh_seed() if body.seed is None else body.seed
    try:
        if body.hand is None:
            if body.deal is None:
                raise ApiProblem("invalid-request", "give `deal`, or `hand` with `seat`")
            _, position = positions_of(body)       # (a deal: its own problems, by field)
            drawn = sampled(position, body.count, seat, seed, known)
            seat = seat if seat is not None else position.to_move
        else:
            if body.deal is not None or seat is None:
                raise ApiProblem("invalid-request", "`hand` goes with `seat` and without `deal`")
            rules = _read("rules", "invalid-rules", Rules.parse, body.rules)
            drawn = samples_from_view(seat, body.hand, body.play or "", body.count, rules,
                                      body.leader, seed, known)
    except SampleError as e:
        if e.field is None:
            raise ApiProblem("invalid-request", e.detail) from None
        raise ApiProblem.for_field("invalid-request", e.field, e.detail) from None
    return jsonify({"seat": str(seat), "seed": seed, "positions": [q.to_json() for q in drawn]})


@bp.post("/moon")
@bp.input(PositionRequest, arg_name="body")
@bp.output(MoonReport, description="moon feasibility before the first card and after each card")
@bp.doc(operation_id="moonReport", responses=problem_responses(400, 413, 422))
def moon(body: PositionRequest) -> Response:
    """Who can force a moon, and when it was lost

    For every seat: can it make sure of taking every point card, at the start of play and
    after each card of `play`; `lost` names the card after which a seat's moon went out of
    reach for good (null if it never was forceable, or still is at the end of `play`).
    """
    start, end = positions_of(body)
    with solving() as budget:
        reviewed = review(budget, start, end.played, costs=False)
    return jsonify(reviewed.moon_report())
