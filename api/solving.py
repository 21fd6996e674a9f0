"""The worker's solver, and the compute budget each request runs under.

A gunicorn sync worker answers one request at a time, so each app keeps one ``Solver``, reused
by every request: the engine keeps its transposition table while the rule set stays the same.
The solver allocates its engines on first use, after the fork, so no table is shared between
worker processes.

A request's budget covers all its questions together: every solver call is given the seconds
left, and the engine itself stops (``SearchAborted``) when they run out.
"""
from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Iterator

from flask import Flask, current_app

from solver.analysis import Analysis, LineStep, SearchAborted, Solver
from solver.cards import Seat
from solver.position import Position

_EXTENSION = "hearts_dd.solver"


class BudgetedSolver:
    """The solver calls the API makes, each limited to what is left of one request's budget.

    ``seconds`` (0: none) is for the whole request, ``nodes`` (0: none) for each search.
    """

    def __init__(self, solver: Solver, seconds: float, nodes: int) -> None:
        self.solver = solver
        self.seconds = seconds
        self.nodes = nodes
        self.deadline = time.monotonic() + seconds if seconds > 0 else 0.0

    def limited(self) -> Solver:
        """The solver, limited to the rest of the budget; ``SearchAborted`` when none is left."""
        left = self.deadline - time.monotonic() if self.deadline else 0.0
        if self.deadline and left <= 0:
            raise SearchAborted("time budget exhausted")
        self.solver.time_limit = left
        self.solver.node_limit = self.nodes
        return self.solver

    def analyze(self, position: Position, seats: list[Seat] | None = None) -> Analysis:
        return self.limited().analyze(position, seats)

    def line(self, position: Position, seat: Seat) -> list[LineStep]:
        return self.limited().line(position, seat)

    def moon_possible(self, position: Position, seat: Seat) -> bool:
        return self.limited().moon_possible(position, seat)


def init_app(app: Flask) -> None:
    """Give the app its solver (engines and tables are allocated on first use)."""
    app.extensions[_EXTENSION] = (threading.Lock(), Solver(table_mb=app.config["SOLVER_TABLE_MB"]))


@contextmanager
def solving(seconds: float | None = None) -> Iterator[BudgetedSolver]:
    """The app's solver for one request, under the configured budget (or ``seconds``).

    Held under a lock, so a threaded server never runs two searches on one engine.
    """
    config = current_app.config
    lock, solver = current_app.extensions[_EXTENSION]
    with lock:
        yield BudgetedSolver(solver, config["SOLVER_TIME_LIMIT"] if seconds is None else seconds,
                             config["SOLVER_NODE_LIMIT"])
