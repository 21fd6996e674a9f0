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
from contextlib import contextmanager
from typing import Iterator

from flask import Flask, current_app

from solver.analysis import Solver
from solver.review import Budget

_EXTENSION = "hearts_dd.solver"


def init_app(app: Flask) -> None:
    """Give the app its solver (engines and tables are allocated on first use)."""
    app.extensions[_EXTENSION] = (threading.Lock(), Solver(table_mb=app.config["SOLVER_TABLE_MB"]))


@contextmanager
def solving(seconds: float | None = None) -> Iterator[Budget]:
    """The app's solver for one request, under the configured budget (or ``seconds``).

    Held under a lock for the whole request: its budget is set on the shared solver's limits,
    which a threaded server's other requests would otherwise change under it.
    """
    config = current_app.config
    lock, solver = current_app.extensions[_EXTENSION]
    with lock:
        yield Budget(solver, config["SOLVER_TIME_LIMIT"] if seconds is None else seconds,
                     config["SOLVER_NODE_LIMIT"])
