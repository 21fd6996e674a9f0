"""``GET /rules`` (what the rule keys and presets mean) and ``GET /health`` (can we solve?)."""
from __future__ import annotations

import time

from apiflask import APIBlueprint
from flask import Response, current_app, jsonify

from solver import package_version
from solver.analysis import Budget, Solver
from solver.deal import Deal
from solver.position import Position
from solver.rules import catalogue

from .docs import problem_responses
from .problems import problem_of
from .schemas import Health, RulesCatalogue
from .solving import allocate

bp = APIBlueprint("service", __name__, tag="Service")

# Each player holds one heart and one club: the clubs trick goes to W, who must then lead
# H4, and N's HA takes all four hearts, a moon. So N can force it and scores 0, the others 4.
HEALTH_DEAL = "N:.A..2 .2..3 .3..4 .4..5"
HEALTH_ANSWER = {"N": (0, True), "E": (4, False), "S": (4, False), "W": (4, False)}
HEALTH_SECONDS = 2.0
_HEALTH = "hearts_dd.health_solver"


@bp.get("/rules")
@bp.output(RulesCatalogue, description="presets and rule keys")
@bp.doc(operation_id="getRules", responses=problem_responses())
def rules() -> Response:
    """The rule presets and keys, with what they mean (SPEC §2)"""
    return jsonify(catalogue())


def _health_solver() -> Solver:
    solver: Solver | None = current_app.extensions.get(_HEALTH)
    if solver is None:
        solver = current_app.extensions[_HEALTH] = Solver(table_mb=1)
    return solver


@bp.get("/health")
@bp.output(Health, description="the engine solved a small endgame correctly")
@bp.doc(operation_id="getHealth", responses=problem_responses())
def health() -> Response:
    """200 when this worker can solve

    Solves a two-trick endgame with the worker's engine and checks the answer (on a small
    solver of its own: one probe after another emptied the worker's table, kept for the
    requests that ask the same again), and allocates the worker's table if no request has:
    a table beyond the worker's memory limit made every request a 503.
    """
    t0 = time.perf_counter()
    position = Position.start(Deal.parse(HEALTH_DEAL))
    try:
        with Budget(_health_solver(), HEALTH_SECONDS) as solver:
            result = solver.analyze(position)
        got = {str(s): (r.guarantee, r.moon_possible) for s, r in result.players.items()}
        if got != HEALTH_ANSWER:
            raise RuntimeError(f"wrong answer {got}")
        allocate()
    except MemoryError as e:
        current_app.logger.error("Health check failed: out of memory: %s (a smaller "
                                 "HEARTS_DD_SOLVER_TABLE_MB may fit)", str(e) or "no reason given")
        return problem_of("unavailable", f"this worker is out of memory: {e}")
    except Exception as e:
        current_app.logger.exception("health check failed")
        return problem_of("unavailable", f"the engine failed its check: {type(e).__name__}: {e}")
    return jsonify({"status": "ok", "version": package_version(), "check": HEALTH_DEAL,
                                      "seconds": round(time.perf_counter() - t0, 4)})

