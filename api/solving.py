"""The worker's solver, and the compute budget each request runs under.

Each app keeps one ``Solver``, reused by every request: the engine keeps its transposition
table while the rule set stays the same. The solver allocates its engines on first use, after
the fork, so no table is shared between worker processes.

A request's budget covers all its questions together: every solver call is given the seconds
left, and the engine itself stops (``SearchAborted``) when they run out.

Requests take turns at the solver (``turn``), in the order they ask (a solver runs one call at
a time, but its own lock is not fair); a budget's limits are those of its request's thread
alone (``solver.analysis.Budget``). Most requests hold it for the whole of their solving
(``solving``); a stream of many answers (``POST /annotate``) takes a turn per record, so that
in a threaded server (``flask run``, say) a short request waits for at most one record, not for
the whole stream, and a client reading the stream slowly holds no solver. Under ``hearts-dd
serve`` (gunicorn's sync workers) a worker serves one request at a time anyway: a stream holds
its worker to the end, and other requests go to the other workers.
"""
from __future__ import annotations

import select
import threading
from collections import deque
from contextlib import contextmanager
from typing import Callable, Iterator

from flask import Flask, current_app, request

from solver.analysis import Budget, Solver

_EXTENSION = "hearts_dd.solver"
#: The WSGI environ key set when the client of a request being solved has closed its connection.
CLIENT_GONE_KEY = "hearts_dd.client_gone"
#: Seconds between looks at the connection of a request being solved.
_WATCH = 0.2


class FairLock:
    """A lock granted in the order it was asked for.

    ``threading.Lock`` is not: a thread that releases it and asks again at once, as an annotate
    stream does between records, may take it back before a waiting thread wakes, again and
    again. Here ``release`` hands the lock to the longest waiter, if any.
    """

    def __init__(self) -> None:
        self._state = threading.Lock()
        self._held = False
        self._waiters: deque[threading.Lock] = deque()

    def acquire(self) -> None:
        with self._state:
            if not self._held:
                self._held = True
                return
            handed = threading.Lock()
            handed.acquire()
            self._waiters.append(handed)
        try:
            handed.acquire()            # released by ``release``: the lock is now ours
        except BaseException:           # (a signal's exception while waiting, in the main thread)
            with self._state:
                if handed in self._waiters:
                    self._waiters.remove(handed)
                    raise
            self.release()              # handed over as the exception came: pass it on
            raise

    def release(self) -> None:
        with self._state:
            if not self._held:
                raise RuntimeError("release of an unheld FairLock")
            if self._waiters:
                self._waiters.popleft().release()   # still held, by the next in line
            else:
                self._held = False

    def __enter__(self) -> None:
        self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


_heartbeats: list[Callable[[], None]] = []


def on_budget(beat: Callable[[], None]) -> None:
    """Have ``beat()`` called as each request's budget starts: gunicorn's worker says it is
    alive then (``api.worker``), so that its timeout, which the budgets are sized against, runs
    from there, not from when the request's head came (a body sent slowly ate into it, and the
    worker was killed mid-solve)."""
    _heartbeats.append(beat)


def alive() -> None:
    """Say the worker is alive (``on_budget``'s beats): as a budget starts, and between the
    records of a stream (``api.records``)."""
    for beat in _heartbeats:
        beat()


def init_app(app: Flask) -> None:
    """Give the app its solver (engines and tables are allocated on first use)."""
    app.extensions[_EXTENSION] = (FairLock(), Solver(table_mb=app.config["SOLVER_TABLE_MB"]))


def budget(seconds: float | None = None) -> Budget:
    """A request's budget on the app's solver: the configured one (or ``seconds``), from now.

    Call the solver only in a ``turn``. The request starts from the solver's own limits (none),
    not from what an earlier request's ``limited()`` left on this thread (a sync worker serves
    every request on one).
    """
    config = current_app.config
    _, solver = current_app.extensions[_EXTENSION]
    solver.thread_limits = (None, None)
    alive()
    return Budget(solver, config["SOLVER_TIME_LIMIT"] if seconds is None else seconds,
                  config["SOLVER_NODE_LIMIT"])


def allocate() -> None:
    """Allocate the worker's table now if no request has yet (``MemoryError`` when it does not
    fit): ``/health`` asks, so that a worker that cannot solve any request does not say ok."""
    _, solver = current_app.extensions[_EXTENSION]
    if not solver.engines:
        with turn():
            if not solver.engines:
                solver.prepare()


@contextmanager
def turn() -> Iterator[None]:
    """The app's solver is this request's until the block ends (after those that asked first)."""
    lock, _ = current_app.extensions[_EXTENSION]
    with lock:
        yield


@contextmanager
def solving(seconds: float | None = None) -> Iterator[Budget]:
    """The app's solver for the whole of one request, under its budget (``budget``), until its
    client goes (``client_watched``)."""
    with turn():
        request_budget = budget(seconds)
        with client_watched(request_budget.solver):
            yield request_budget


@contextmanager
def client_watched(solver: Solver) -> Iterator[None]:
    """Stop this thread's calls of ``solver`` once the request's client has closed its
    connection (a client that gave up waiting, or a proxy whose client did), noting it in the
    environ (``CLIENT_GONE_KEY``): the search went on for the whole budget, holding the worker,
    for an answer nobody would read. Under gunicorn, on Linux (a socket's end closed: POLLRDHUP)."""
    sock = request.environ.get("gunicorn.socket")
    hangup = getattr(select, "POLLRDHUP", 0)
    if sock is None or not hangup:
        yield
        return
    environ, caller, done = request.environ, threading.get_ident(), threading.Event()

    def watch() -> None:
        looking = select.poll()
        looking.register(sock, hangup)
        while not done.wait(_WATCH):
            if looking.poll(0):
                environ[CLIENT_GONE_KEY] = True
                solver.cancel(caller)       # (again at each look: the request's next call too)

    watcher = threading.Thread(target=watch, name="hearts-dd client watch", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()
