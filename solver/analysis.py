"""Answers (SPEC §3): guarantees, moon feasibility, card values and optimal lines.

>>> from solver.deal import Deal
>>> d = Deal.parse("N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432")
>>> a = Solver().analyze(Position.start(d, leader="N", rules=Rules.parse({"first_lead": "free"})))
>>> a.players[Seat.N].guarantee, a.players[Seat.N].moon_possible, a.players[Seat.E].guarantee
(0, True, 26)
"""
from __future__ import annotations

import concurrent.futures
import functools
import math
import numbers
import os
import queue
import signal
import threading
import time
import weakref
from concurrent.futures import Future
from contextlib import AbstractContextManager, contextmanager
from itertools import groupby
from typing import (Any, Callable, Iterable, Iterator, Literal, Mapping, NamedTuple, Sequence,
                    TypeVar, cast, overload)

from .cards import Card, Seat, SeatLike, cards_of, mask_of
from .errors import HeartsError
from .position import Position
from .results import (Analysis, AnalysisWithLine, Bounds, BySeat, LineStep, MoveResult, PlayerResult,
                      Questions, line_json)
from .rules import Rules
from ._search import Engine, SearchAborted, interrupts, watch_ctrl_c
from ._search import watch_signal as _watch_signal

# (the answers' types live in solver.results; named here too, where callers found them first)
__all__ = ["Budget", "Solver", "SearchAborted", "Watch", "Seats", "Done", "Analysis", "AnalysisWithLine",
           "Bounds", "LineStep", "MoveResult", "PlayerResult", "Questions", "analyze_with_line",
           "line_json", "watch_signal"]

#: Bounds on one guarantee as they are proved: (low, high), None for none yet.
Report = Callable[[int | None, int | None], None]
#: ``Solver.analyze``'s live view of its questions: (question, low, high).
Watch = Callable[[str, int | None, int | None], None]
#: ``analyze``'s seats: one seat (a Seat, its letter or its number), several, or None for all.
Seats = Iterable[SeatLike] | Seat | int | None
#: A many-question call's word on each question as it is answered: (its index, its answer).
Done = Callable[[int, Any], None]

# the engine's codes for the rules: _state.pxd's MOON_* and BREAK_*, kept equal by hand
# (tests/test_analysis.py checks them)
_MOON_MODES = {"add": 0, "subtract": 1, "none": 2}
_BREAK = {"hearts": 0, "queen": 1, "none": 2}
DEFAULT_TABLE_MB = 224
#: The table of each solver of a batch's workers and of the service's: many of them share the
#: machine's memory, and a record or a request is mostly a smaller question than a whole deal.
WORKER_TABLE_MB = 64
#: ``guarantee``'s guess may be any value a score can take (and is a hint: a wrong one is slow).
GUESS_RANGE = 1_000_000
#: The largest table the command and the service accept (the library's own limit is higher,
#: for a caller that knows its machine).
MAX_TABLE_MB = 4096
_SHARER_BYTES = 1 << 20  # the table an engine allocates before it shares another's
# Handing a question to another thread costs tens of microseconds, more than solving a
# position near the end. Questions go to several threads, and searches lend idle engines as
# helpers, from PARALLEL_FROM_CARDS cards left; a list of ``guarantees`` questions or of
# positions to ``analyses``, whose hand-offs overlap, from PARALLEL_LIST_FROM_CARDS; a mover's
# cards, whose values its own solve mostly left in the table, from PARALLEL_CARDS_FROM
# (benchmarks/README.md, "Near the end").
PARALLEL_FROM_CARDS = 25
PARALLEL_LIST_FROM_CARDS = 21
PARALLEL_CARDS_FROM = 29


def new_engine(rules: Rules, table_bytes: int) -> Engine:
    """An engine for ``rules`` with a table of ``table_bytes``."""
    return Engine(list(rules.values), _MOON_MODES[rules.moon], rules.trick_points,
                  rules.partnership, _BREAK[rules.hearts_break], rules.first_trick_points,
                  int(Card.parse("SQ")), table_bytes)


def _setting(name: str, value: Any, low: float, high: float, real: bool = False,
             below: bool = False) -> Any:
    """A Solver argument, checked: an integer (or with ``real`` any real number, not NaN, as a
    float; numpy's too) from ``low`` to ``high`` (or to below it)."""
    kind: Any = numbers.Real if real else numbers.Integral
    if isinstance(value, bool) or not isinstance(value, kind) or value != value:
        raise HeartsError(f"Solver {name}: expected {'a number' if real else 'an integer'}, got {value!r}")
    if not (low <= value < high if below else low <= value <= high):
        span = f"{low:g} to below {high:g}" if below else f"{low:g}..{high:g}"
        raise HeartsError(f"Solver {name}: {value!r} is out of range ({span})")
    if real:
        try:
            return float(value)
        except OverflowError:       # a number too large for a float: an endless limit
            return math.inf
    return int(value)


def _position(p: Any) -> Position:
    """``p``, checked to be a Position: a wrong argument is named, not an attribute missing
    deep inside."""
    if not isinstance(p, Position):
        raise HeartsError(f"expected a Position, got {type(p).__name__}")
    return p


def _seats(seats: Seats) -> list[Seat] | None:
    """``analyze``'s ``seats``: one (a seat, its letter or its number, as ``guarantee`` takes
    it) or several, or None for all."""
    if seats is None:
        return None
    if isinstance(seats, numbers.Integral):  # a Seat, an int, numpy's
        return [Seat.of(cast(int, seats))]
    if not isinstance(seats, Iterable):
        raise HeartsError(f"seats: expected a seat or seats, got {type(seats).__name__}")
    return [Seat.of(s) for s in seats]


#: a question of the many-question calls: a position and its seats (or its line's target)
Question = tuple[Position, Any]


def _questions(questions: Iterable[Any], second: str) -> list[Question]:
    """The (position, ``second``) pairs of a many-question call, checked."""
    if isinstance(questions, (str, bytes, Position)) or not isinstance(questions, Iterable):
        raise HeartsError(f"expected (position, {second}) pairs, got {type(questions).__name__}")
    pairs: list[Question] = []
    for i, q in enumerate(questions):
        if not (isinstance(q, (tuple, list)) and len(q) == 2 and isinstance(q[0], Position)):
            raise HeartsError(f"question {i}: expected a (position, {second}) pair, got {q!r:.80}")
        pairs.append((q[0], q[1]))
    return pairs


F = TypeVar("F", bound=Callable[..., Any])


def _one_call_at_a_time(method: F) -> F:
    """A public Solver call, run while no other thread's call is: the engines, their table and
    the current rules are the solver's one state. Calls from several threads wait their turn
    (a solver per thread runs them at once); a call from inside one (a watch function's) is
    refused, as it would search on an engine in the middle of a search."""
    @functools.wraps(method)
    def call(self: Solver, *args: Any, **kwargs: Any) -> Any:
        me = threading.get_ident()
        if self._caller == me or getattr(self._local, "pooled", False):
            raise HeartsError(f"Solver.{method.__name__} called inside another call of the same "
                              "solver (from its watch function?): use another solver there")
        with self._calls:
            self._caller = me
            try:
                self._recover_engines()
                return method(self, *args, **kwargs)
            finally:
                self._caller = None

    return cast(F, call)


_solvers: weakref.WeakSet[Solver] = weakref.WeakSet()

#: a job for a solver's threads, or None to end the thread that takes it
_Job = tuple[Future[None], Callable[[], None]] | None


class _Threads:
    """A solver's threads for its questions in parallel: daemon threads, not a
    ThreadPoolExecutor's, which the interpreter waits for at exit and which takes no work once
    the main thread has ended. A program exiting with a search under way in a daemon thread
    waited for it (minutes), and a thread still solving after the main one ended got a
    RuntimeError."""

    def __init__(self, count: int) -> None:
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        for i in range(count):
            threading.Thread(target=_serve, args=(self._jobs,), name=f"hearts-dd_{i}",
                             daemon=True).start()
        # the threads hold the queue, not this: they end when the solver drops it
        weakref.finalize(self, _end, self._jobs, count).atexit = False

    def submit(self, fn: Callable[[], None]) -> Future[None]:
        future: Future[None] = Future()
        self._jobs.put((future, fn))
        return future


def _serve(jobs: queue.SimpleQueue[_Job]) -> None:
    while (job := jobs.get()) is not None:
        future, fn = job
        if future.set_running_or_notify_cancel():
            try:
                future.set_result(fn())
            except BaseException as e:
                future.set_exception(e)
        del job, future, fn     # (an idle thread keeps no solver alive)


def _end(jobs: queue.SimpleQueue[_Job], count: int) -> None:
    for _ in range(count):
        jobs.put(None)


class _Lending(NamedTuple):
    """What an engine asks a solver for helpers by (``Engine.set_lender``): the solver's own
    private methods, so that they are no part of its API."""

    lend: Callable[[], Engine | None]
    give_back: Callable[[Engine], None]
    invite: Callable[[Engine], None]
    uninvite: Callable[[Engine], None]


def watch_signal(signum: int) -> None:
    """Let ``signum`` stop every search at once, as Ctrl-C does, and its handler then run: a
    program's own handler (SIGTERM's, say) otherwise runs only once the search in progress
    ends. Install the handler first (``signal.signal``); setting one again undoes this."""
    try:
        handler, name = signal.getsignal(signum), signal.Signals(signum).name
    except (ValueError, TypeError):
        raise HeartsError(f"watch_signal: {signum!r} is not a signal") from None
    if not callable(handler):
        raise HeartsError(f"watch_signal: {name} has no Python handler to run: install one "
                          "(signal.signal) first")
    _watch_signal(signum)


def _after_fork_in_child() -> None:
    """A child forked while another thread was in a solver's call gets that solver empty: the
    thread is not in the child, and its engines, borrowed and mid-search, never come back. (Its
    lock says so: ``_caller`` is not yet set as a call takes it, nor still as it lets go.) So
    does one whose last parallel call a second Ctrl-C left with jobs still stopping."""
    me = threading.get_ident()
    for solver in list(_solvers):
        if solver._calls.locked() and solver._caller != me or (
                solver._jobs_out and not solver._calls.locked()):
            solver._reset()


os.register_at_fork(after_in_child=_after_fork_in_child)


class Solver:
    """Exact answers for positions under one rule set at a time.

    Keeps one engine per thread, all sharing one transposition table of ``table_mb``, and
    reuses them across questions while the rules stay the same. With ``threads`` > 1,
    ``analyze`` answers its independent questions (seats, cards) in parallel, as ``guarantees``
    does those it is given, and a search gets any idle engine as its helper thread, pass by
    pass; the engine releases the GIL while it searches.

    ``time_limit`` bounds every public call and ``node_limit`` each search it makes; past them
    ``SearchAborted`` is raised, with the bounds on the seat's guarantee that the finished
    passes proved (``low``, ``high``). A call takes the limits as it starts; a ``Budget``
    sets them for the calls of its own thread only (``thread_limits``).

    One call runs at a time: calls from several threads wait their turn (make a solver per
    thread to run them at once), and a watch function cannot ask its own solver. A copy or a
    pickle of a solver is a new solver with the same settings (a ``Budget``'s limits, its
    thread's, are not among them): the tables are a cache, not state.
    """

    def __init__(self, table_mb: int = DEFAULT_TABLE_MB, node_limit: int = 0,
                 time_limit: float = 0.0, threads: int = 1) -> None:
        self._table_mb: int = _setting("table_mb", table_mb, 1, 1 << 16)
        self._threads: int = _setting("threads", threads, 1, 256)
        self._reset()
        self.node_limit = node_limit
        self.time_limit = time_limit
        _solvers.add(self)

    def _reset(self) -> None:
        """No engines, tables or pool yet: as new."""
        self._calls = threading.Lock()
        self._caller: int | None = None  # the thread whose call is running
        self._engines: list[Engine] = []
        # last in, first out: questions one after another keep to one engine and its caches
        self._free: queue.LifoQueue[Engine] = queue.LifoQueue()
        self._rules: Rules | None = None
        self._retired_nodes = 0
        self._retired_trick_nodes = 0
        self._deadline = 0.0
        self._call_limits = (0.0, 0)  # time and node limits of the call in progress (_start)
        self._interrupts = -1    # interrupts() when the call in progress began (_start)
        self._cancelled = False  # cancel() was called during the call in progress
        self._moon_total: int | None = None
        self._waiting = 0  # questions of a parallel _map not yet started
        self._jobs_out = 0  # jobs of a parallel _map not yet over (each holds an engine)
        self._jobs: list[Future[None]] = []     # the last parallel _map's
        self._invited: list[Engine] = []  # engines whose pass in progress would take a helper
        self._lock = threading.Lock()  # for _waiting, _invited and meters, changed by pool threads
        # per thread: whether it is one of the pool's (whose _map calls run in line) and the
        # count its searches' nodes are charged to (see _metered)
        self._local = threading.local()
        self._pool: _Threads | None = None
        self._pool_pid = 0

    def __reduce__(self) -> tuple[type[Solver], tuple[int, int, float, int]]:
        return Solver, (self.table_mb, self._node_limit, self._time_limit, self.threads)

    def __repr__(self) -> str:
        # its settings, as a copy or a pickle keeps them (not an address)
        return (f"Solver(table_mb={self.table_mb}, node_limit={self._node_limit}, "
                f"time_limit={self._time_limit!r}, threads={self.threads})")

    @property
    def table_mb(self) -> int:
        """The transposition table's size (MB), shared by the solver's threads."""
        return self._table_mb

    @property
    def threads(self) -> int:
        """Threads that search, each with an engine over the one table."""
        return self._threads

    @property
    def node_limit(self) -> int:
        """Nodes one search may visit (0: no limit), checked every 1,024 nodes; this thread's
        own while a ``Budget`` of it is in force. Setting it sets the solver's, for every
        thread, and drops this thread's own."""
        own: int | None = getattr(self._local, "node_limit", None)
        return self._node_limit if own is None else own

    @node_limit.setter
    def node_limit(self, value: int) -> None:
        self._node_limit = _setting("node_limit", value, 0, 1 << 62)
        self._local.node_limit = None

    @property
    def time_limit(self) -> float:
        """Seconds one public call may take (0: no limit); this thread's own while a ``Budget``
        of it is in force. Setting it sets the solver's, for every thread, and drops this
        thread's own."""
        own: float | None = getattr(self._local, "time_limit", None)
        return self._time_limit if own is None else own

    @time_limit.setter
    def time_limit(self, value: float) -> None:
        self._time_limit = _setting("time_limit", value, 0, math.inf, real=True)
        self._local.time_limit = None

    @property
    def thread_limits(self) -> tuple[float | None, int | None]:
        """This thread's own time and node limits (None: the solver's), as a ``Budget`` sets
        them: they hold for the calls of this thread only, so that another thread's call,
        waiting for its turn, keeps its own. Setting them checks both before either is set."""
        return getattr(self._local, "time_limit", None), getattr(self._local, "node_limit", None)

    @thread_limits.setter
    def thread_limits(self, limits: tuple[float | None, int | None]) -> None:
        seconds, nodes = limits
        self._local.time_limit, self._local.node_limit = (
            None if seconds is None else _setting("time_limit", seconds, 0, math.inf, real=True),
            None if nodes is None else _setting("node_limit", nodes, 0, 1 << 62))

    @property
    def engines(self) -> tuple[Engine, ...]:
        """The engines of the current rules, one per thread: for tools that read their counters
        or set their search settings (``python -m benchmarks.nodes --alternate``)."""
        return tuple(self._engines)

    # -- engine plumbing -------------------------------------------------------------
    def _set_rules(self, rules: Rules) -> None:
        """Engines (and tables) for ``rules``, replacing those of other rules."""
        if self._rules is not rules and self._rules != rules:
            # none for any rules until all are made: after a MemoryError, the next call under
            # the old rules found no engine (an IndexError, or with threads a wait for ever);
            # after a Ctrl-C in the queue's constructor (Python), the old engines in the old
            # queue and no list of them, which a new moon total then never reached
            self._rules = None
            self._moon_total = None
            self._retired_nodes += sum(e.nodes for e in self._engines)
            self._retired_trick_nodes += sum(e.trick_nodes for e in self._engines)
            self._engines = []  # free the old tables before allocating new ones
            self._free = queue.LifoQueue()
            for i in range(self.threads):
                e = new_engine(rules, self.table_mb << 20 if i == 0 else _SHARER_BYTES)
                if i:
                    e.share_table(self._engines[0])
                self._engines.append(e)
            for e in reversed(self._engines):  # the table's owner first
                self._free.put(e)
            self._rules = rules

    def _use(self, p: Position) -> None:
        """Engines set up for the position's rules and moon total. Called before questions are
        answered in parallel, so that only one thread ever changes them."""
        self._set_rules(p.rules)
        if p.moon_total != self._moon_total:
            # a new total empties the shared table: the owner first, the sharers follow. None
            # until all have it: a Ctrl-C during a clear (KeyboardInterrupt once it returns)
            # left engines with the new total while the solver noted the old one
            self._moon_total = None
            for e in self._engines:
                e.set_moon_total(p.moon_total)
            self._moon_total = p.moon_total

    def _engine(self, p: Position) -> AbstractContextManager[Engine]:
        """Borrow an idle engine set up for the position's rules and moon total."""
        self._use(p)
        if self.threads == 1:
            # nothing to lend or wait for: the queue's locks would cost more than small searches
            return _Metered(self._engines[0], getattr(self._local, "meter", None))
        return self._borrowed(p)

    @contextmanager
    def _borrowed(self, p: Position) -> Iterator[Engine]:
        """An idle engine of a solver with several, lent to other searches while it searches
        far enough from the end."""
        meter = getattr(self._local, "meter", None)
        own = getattr(self._local, "own", None)     # a pool thread's engine (see _map)
        if own is not None:
            self._local.own = None      # (a question inside a question takes another)
        free = self._free
        e = own if own is not None else free.get()
        before = e.nodes
        try:
            e.set_lender(_Lending(self._lend, self._give_back, self._invite, self._uninvite)
                         if p.cards_left >= PARALLEL_FROM_CARDS else None)
            yield e
        finally:
            # (unless abandoned: a Ctrl-C between the engine's taking and the with block's
            # start leaves this generator to the garbage collector, which closes it at any
            # later moment; the idle engines were all put back since (_recover_engines), this
            # one perhaps searching now, and its lender taken or it given back twice)
            if own is not None or free is self._free:
                e.set_lender(None)
                if meter is not None:
                    with self._lock:
                        meter[0] += e.nodes - before
                if own is not None:
                    self._local.own = own
                else:
                    self._give_back(e)

    @contextmanager
    def _metered(self) -> Iterator[list[int]]:
        """A count of the nodes searched for one question from here on, on whichever threads
        (``_map`` hands it on): a solver's total would count the other questions of a parallel
        ``analyses`` too."""
        outer = getattr(self._local, "meter", None)
        meter = self._local.meter = [0]
        try:
            yield meter
        finally:
            self._local.meter = outer

    def _recover_engines(self) -> None:
        """Every engine idle again, between calls: a Ctrl-C raises KeyboardInterrupt wherever
        the main thread is when its search returns, often as a helper it had lent is given
        back, which was then lost (a two-thread solver went on with one). Only once no job of a
        parallel call still holds one (a second Ctrl-C leaves them finishing)."""
        # (a second Ctrl-C cut short the last call's wait for its jobs: they are stopping, and
        # until they have, their searches run on engines this call would set up anew)
        if self._jobs:
            if self._pool_pid == os.getpid():   # (a child has not the threads to wait for)
                concurrent.futures.wait(self._jobs)
            self._jobs = []
        # (nor the queue's lock, held by nobody between calls: a Ctrl-C raised inside the
        # queue's Condition.__enter__, after it took the lock, left it held, and every later
        # call waited for it for ever)
        if self.threads > 1 and not self._jobs_out and (
                self._free.mutex.locked() or self._free.qsize() < len(self._engines)):
            self._free = queue.LifoQueue()
            for e in reversed(self._engines):  # the table's owner first
                self._free.put(e)
        if self._invited and not self._jobs_out:
            self._invited = []      # (an engine a Ctrl-C left there, of these rules or others)

    def _lend(self) -> Engine | None:
        """An idle engine to help a search for one pass, unless questions still waiting to
        start in parallel will want it (see Engine.set_lender)."""
        if self._waiting:
            return None
        try:
            return self._free.get_nowait()
        except queue.Empty:
            return None

    def _give_back(self, e: Engine) -> None:
        """Take back an idle engine, and have it join a pass that asked for help (if no
        question waits to start)."""
        self._free.put(e)
        while self._invited and not self._waiting:
            try:
                helper = self._free.get_nowait()
            except queue.Empty:
                return
            # pool threads invite, uninvite and give back at once: test and take under the lock
            with self._lock:
                searcher = self._invited.pop(0) if self._invited else None
            if searcher is None or not searcher.join_pass(helper):
                self._free.put(helper)

    def _invite(self, e: Engine) -> None:
        """``e``'s pass in progress may take a helper that falls idle (_give_back)."""
        with self._lock:
            self._invited.append(e)

    def _uninvite(self, e: Engine) -> None:
        """``e``'s pass is over."""
        with self._lock:
            if e in self._invited:
                self._invited.remove(e)

    @_one_call_at_a_time
    def prepare(self, rules: Rules | str | Mapping[str, Any] | None = None) -> None:
        """Allocate the tables for ``rules`` (a Rules, or what ``Rules.parse`` reads) or empty
        those there are, and have the system map their memory now. A fresh table is otherwise
        mapped page by page during the first searches, which can take a tenth of a second:
        worth doing once before timing or serving many solves."""
        self._set_rules(rules if isinstance(rules, Rules) else Rules.parse(rules))
        for e in self._engines:
            e.touch()

    @_one_call_at_a_time
    def clear(self) -> None:
        """Forget what earlier solves learnt (tables, move-ordering history), keeping the memory:
        the next solve runs, node for node, as on a fresh solver. Entries of other deals are
        never wrong, so clearing is needed only for repeatable measurements."""
        for e in self._engines:
            e.clear()

    @staticmethod
    def _args(p: Position) -> tuple[Sequence[int], list[int], int, bool, bool, int]:
        """The position as the engine's calls take it (hands to forced lead)."""
        fl = p.forced_lead
        return (p.hands, [int(c) for c in p.trick], int(p.leader), p.broken, p.first_trick,
                int(fl) if fl is not None else -1)

    def _start(self) -> None:
        """The time limit covers one public call, however many searches it makes, and so does
        Ctrl-C: one that stopped an earlier call is forgotten."""
        self._call_limits = (self.time_limit, self.node_limit)     # (the calling thread's)
        self._deadline = time.monotonic() + self._call_limits[0]
        self._interrupts = interrupts()
        self._cancelled = False
        for e in self._engines:
            e.set_cancelled(False)
        watch_ctrl_c()

    def cancel(self, caller: int | None = None) -> None:
        """Stop the call in progress, from another thread (a player's clock, say): it raises
        SearchAborted("search cancelled") as when its time is up, or with ``partial`` answers
        None for what it had not finished. A call that starts later is not affected. With
        ``caller`` (a thread's ident), only a call that thread made is stopped: another
        thread's call, which it may be waiting on, goes on."""
        if caller is not None and self._caller != caller:
            return
        self._cancelled = True
        for e in self._engines:
            e.set_cancelled(True)

    def _budget(self) -> dict[str, Any]:
        if self._cancelled:
            raise SearchAborted("search cancelled")
        seconds, nodes = self._call_limits
        if not seconds:
            return {"node_limit": nodes, "interrupts": self._interrupts}
        left = (getattr(self._local, "deadline", 0.0) or self._deadline) - time.monotonic()
        if left <= 0:
            raise SearchAborted("time budget exhausted")
        return {"node_limit": nodes, "seconds": left, "interrupts": self._interrupts}

    def _map(self, fn: Callable[[Any], Any], items: list[Any], parallel: bool) -> list[Any]:
        """``fn`` of each item, on the solver's threads if ``parallel`` (searches of positions
        near the end take less time than handing them to another thread). Each thread takes
        the next item as it falls free, so a slow question does not hold up the rest; after an
        error no further item is started. Each thread keeps one engine for all its items, and
        gives it back (to help another's search) only when no item is left to start: lent
        between two questions of an item, it would hold up the item's next question until the
        pass it helps ended (an easy position waited out a hard one's time limit)."""
        # (a pool thread's own questions run in line: the other threads are busy with theirs)
        pooled = getattr(self._local, "pooled", False)
        if self.threads == 1 or len(items) < 2 or not parallel or pooled:
            return [fn(x) for x in items]
        results: list[Any] = [None] * len(items)
        todo = iter(enumerate(items))
        failed: list[BaseException] = []
        over = False  # the call has ended (Ctrl-C, say): start no more items
        meter = getattr(self._local, "meter", None)
        deadline = getattr(self._local, "deadline", 0.0)
        self._waiting = len(items)

        width = min(self.threads, len(items))

        def work() -> None:
            self._local.pooled = True
            self._local.width = width       # (the questions this thread's run takes at once)
            self._local.meter = meter
            self._local.deadline = deadline
            self._local.own = own = self._free.get()
            try:
                while not failed:
                    with self._lock:
                        i, x = next(todo, (-1, None)) if not over else (-1, None)
                        if i < 0:
                            return
                        self._waiting -= 1
                    try:
                        results[i] = fn(x)
                    except BaseException as e:
                        failed.append(e)
                        # the call ends with this error: the other threads' searches, whose
                        # answers nobody will see, stop now rather than run on (for minutes)
                        for engine in self._engines:
                            engine.set_cancelled(True)
            finally:
                self._local.own = None
                self._give_back(own)
                with self._lock:
                    self._jobs_out -= 1

        if self._pool is None or self._pool_pid != os.getpid():
            # kept for the solver's life (starting threads for each call cost more than the
            # searches of a position near the end of a hand), but not across a fork, which
            # leaves the pool's threads behind
            self._pool = _Threads(self.threads)
            self._pool_pid = os.getpid()
        with self._lock:
            self._jobs_out += width
        jobs = self._jobs = [self._pool.submit(work) for _ in range(width)]
        try:
            for job in jobs:
                job.result()
        finally:
            with self._lock:
                over = True
                self._waiting = 0
            # a call left early (Ctrl-C, which stops their searches too) waits for the items
            # its threads are on: they hold engines that the next call may set up anew
            concurrent.futures.wait(jobs)
            self._jobs = []     # (all over: the next call has none to wait for)
            # an error's traceback holds the frame of ``work``, which holds ``failed``: kept in
            # it, the cycle kept the solver and its table alive until a garbage collection
            error = failed[0] if failed else None
            failed.clear()
            if error is not None:
                for engine in self._engines:     # (what a cancel() meant is the call's)
                    engine.set_cancelled(self._cancelled)
        if error is not None:
            try:
                raise error
            finally:
                error = None    # (nor through this frame, which the traceback holds too)
        return results

    @property
    def nodes(self) -> int:
        """Search nodes visited so far by this solver."""
        return self._retired_nodes + sum(e.nodes for e in self._engines)

    @property
    def trick_nodes(self) -> int:
        """Of ``nodes``, those at trick boundaries: the positions DDS counts as its nodes."""
        return self._retired_trick_nodes + sum(e.trick_nodes for e in self._engines)

    @property
    def helper_nodes(self) -> int:
        """Nodes searched by helper threads for the current rules (not in ``nodes``)."""
        return sum(e.helper_nodes for e in self._engines)

    # -- one search each ---------------------------------------------------------------
    def _value_to_go(self, p: Position, side: int, guess: int = 0, report: Report | None = None,
                     ) -> int:
        total = _points_left(p) if side == 1 else None
        if total is not None:
            # the two sides share a fixed total: side 1 gets what side 0 leaves, from searches
            # for side 0 only, whose table entries every question about the deal then shares
            try:
                return total - self._value_to_go(p, 0, total - guess,
                                                 report and _carried(report, total, -1))
            except SearchAborted as e:
                raise _bounded(e, total, -1) from None
        with self._engine(p) as engine:
            return engine.value(*self._args(p), p.moon_state, side, guess=guess, report=report,
                                **self._budget())

    def _guarantee(self, p: Position, side: int, guess: int | None = None,
                   report: Report | None = None) -> int:
        """``report``: called with the bounds proved as the search goes (see Watch)."""
        raw = p.raw_points(side)
        try:
            value = raw + self._value_to_go(p, side, 0 if guess is None else guess - raw,
                                            report and _carried(report, raw, 1))
        except SearchAborted as e:
            raise _bounded(e, raw, 1, p.side_name(side)) from None
        if report:
            report(value, value)
        return value

    def _moon(self, p: Position, side: int) -> bool:
        state = p.moon_state
        if state not in (0, side + 1) or p.moon_total <= 0:
            return False  # another side has a point card already, or there are none
        with self._engine(p) as e:
            return e.moon(*self._args(p), state, side, **self._budget())

    # -- questions -------------------------------------------------------------------
    @_one_call_at_a_time
    def guarantee(self, p: Position, seat: SeatLike, guess: int | None = None) -> int:
        """The lowest score ``seat`` can make sure of (its side's, with partnerships).
        ``guess``, a value it is likely near (a parent position's, say), is where the search's
        null-window passes start: a good one saves passes, a bad one only costs them."""
        self._start()
        if guess is not None:
            guess = _setting("guess", guess, -GUESS_RANGE, GUESS_RANGE)
        return self._guarantee(_position(p), p.side(Seat.of(seat)), guess)

    @overload
    def guarantees(self, questions: Iterable[tuple[Position, SeatLike]],
                   partial: Literal[False] = False, share: float = 0.0) -> list[int]: ...

    @overload
    def guarantees(self, questions: Iterable[tuple[Position, SeatLike]],
                   partial: Literal[True], share: float = 0.0) -> list[int | None]: ...

    @overload
    def guarantees(self, questions: Iterable[tuple[Position, SeatLike]],
                   partial: bool, share: float = 0.0) -> list[int | None]: ...

    @_one_call_at_a_time
    def guarantees(self, questions: Iterable[tuple[Position, SeatLike]],
                   partial: bool = False, share: float = 0.0) -> list[int] | list[int | None]:
        """``guarantee`` of each (position, seat), searched in parallel on the solver's threads
        over one table, as ``analyze`` answers its seats: the four leaders of a bridge deal (a
        row of DDS's table), or the deals a Monte-Carlo player samples. Questions under other
        rules or moon totals than the one before wait for those before them. The time limit
        covers the whole call: a question the limits cut short ends it (``SearchAborted``, whose
        ``question`` is that question's index), or with ``partial`` is answered None (a
        player's time for its turn: what was solved in time).
        Questions start in the order given, one a thread: when as many hard questions as
        threads come first, the call's time runs out before the later ones start. Put the
        questions most wanted first, or give ``share`` (with ``partial``, below 1) the part of
        the time to share out evenly first: each question gets its part of that, and those it
        did not settle are asked again in order with the rest of the time. A question easy for
        its part is then answered wherever it stands; the first ones have only the rest, so
        with many hard questions and time to spare fewer are answered (``analyses`` with
        ``each`` gives each its own limit; without a time limit there is nothing to share).

        >>> from solver.deal import Deal
        >>> d, bridge = Deal.parse("N:AK.Q.. Q.AK.. J.J.A. T.T..A"), Rules.parse("bridge")
        >>> leaders = [(Position.start(d, bridge, leader), leader) for leader in "NESW"]
        >>> [-g for g in Solver(threads=2).guarantees(leaders)]  # the leader's side's tricks
        [2, 2, 3, 3]
        """
        _share(share, partial)
        self._start()
        return self._each(lambda q: self._guarantee(q[0], q[0].side(Seat.of(q[1]))),
                          _questions(questions, "seat"), (lambda e: None) if partial else None,
                          share)

    @_one_call_at_a_time
    def guarantee_bounds(self, questions: Iterable[tuple[Position, SeatLike]],
                         share: float = 0.0) -> list[Bounds]:
        """``guarantees(questions, partial=True, share=share)`` with what the limits left
        proved of each guarantee instead of None: a player sampling deals for its turn keeps
        the hard deals' bounds rather than only the easy deals' values. A solved question's
        bounds are equal.

        >>> from solver.deal import Deal
        >>> hard = Position.start(Deal.random(19))        # N's guarantee: 6, in about 5 M nodes
        >>> Solver(table_mb=16, node_limit=300_000).guarantee_bounds([(hard, "N")])
        [Bounds(low=5, high=None)]
        """
        _share(share, True)
        self._start()

        def ask(q: tuple[Position, SeatLike]) -> Bounds:
            value = self._guarantee(q[0], q[0].side(Seat.of(q[1])))
            return Bounds(value, value)

        return self._each(ask, _questions(questions, "seat"), lambda e: Bounds(e.low, e.high),
                          share)

    @_one_call_at_a_time
    def moon_possible(self, p: Position, seat: SeatLike) -> bool:
        """Can ``seat`` (its side) make sure of taking every point card of the deal?"""
        self._start()
        return self._moon(_position(p), p.side(Seat.of(seat)))

    @_one_call_at_a_time
    def move_groups(self, p: Position) -> list[tuple[Card, list[Card]]]:
        """Legal cards of the player to move, grouped into runs of equivalent cards."""
        return self._move_groups(_position(p))

    def _move_groups(self, p: Position) -> list[tuple[Card, list[Card]]]:
        if p.is_over:
            return []
        with self._engine(p) as e:
            groups = e.move_groups(*self._args(p))
        return [(Card.from_index(rep), list(cards_of(run))) for rep, run in groups]

    @_one_call_at_a_time
    def questions(self, p: Position, seats: Seats = None,
                  moves: bool = True) -> Questions:
        """The questions ``analyze`` would ask, named as its ``watch`` names them: the sides'
        guarantees, then the mover's cards it searches (none for a forced choice, whose values
        are the position's), for a display of its progress.

        >>> from solver.deal import Deal
        >>> d = Deal.parse("N:A.2.A.3 K.3.K.2 Q.4.Q.4 J.5.J.5")
        >>> p = Position.start(d, {"first_lead": "free"}, "N")
        >>> Solver().questions(p, "N"), Solver().questions(p, "E")
        (Questions(sides=['N'], cards=['C3', 'DA', 'SA']), Questions(sides=['E'], cards=[]))
        """
        p = _position(p)
        wanted = _seats(seats)
        sides, groups = self._plan(p, list(Seat) if wanted is None else wanted, moves)
        return Questions([p.side_name(side) for side in sides],
                         [str(rep) for rep, _ in groups] if len(groups) > 1 else [])

    def _plan(self, p: Position, wanted: list[Seat], moves: bool,
              ) -> tuple[list[int], list[tuple[Card, list[Card]]]]:
        """The sides ``analyze`` solves, and the mover's card groups whose values it gives
        (more than one: each is searched)."""
        sides = sorted({p.side(s) for s in wanted})
        mover = p.to_move
        if not moves or mover is None or p.side(mover) not in sides:
            return sides, []
        return sides, self._move_groups(p)

    @_one_call_at_a_time
    def analyze(self, p: Position, seats: Seats = None,
                moves: bool = True, watch: Watch | None = None) -> Analysis:
        """Guarantee and moon flag for ``seats`` (default all), and every legal card's values
        when the player to move is one of them (or its partner): asked for one seat, the
        work stays that seat's, where the mover's cards would cost a solve each. ``moves=False``
        leaves the cards out (the guarantees and moon flags alone).

        ``watch`` (for a live display of a long solve) is called, from the searching threads,
        with each guarantee's bounds as they are proved: ``watch(question, low, high)``, the
        question being a side's seats ("N", or "N/S" with partnerships) or one of the mover's
        cards ("C2"), a bound None while nothing is proved, and low == high once answered."""
        self._start()
        if watch is not None and not callable(watch):
            raise HeartsError(f"watch: expected a function, got {type(watch).__name__}")
        return self._analyze(_position(p), _seats(seats), moves, watch)

    @overload
    def analyses(self, questions: Iterable[tuple[Position, Seats]],
                 moves: bool = True, partial: Literal[False] = False, each: bool = False,
                 share: float = 0.0, done: Done | None = None) -> list[Analysis]: ...

    @overload
    def analyses(self, questions: Iterable[tuple[Position, Seats]],
                 moves: bool = True, *, partial: Literal[True], each: bool = False,
                 share: float = 0.0, done: Done | None = None,
                 ) -> list[Analysis | None]: ...

    @overload
    def analyses(self, questions: Iterable[tuple[Position, Seats]],
                 moves: bool = True, partial: bool = False, each: bool = False,
                 share: float = 0.0, done: Done | None = None,
                 ) -> list[Analysis | None]: ...

    @_one_call_at_a_time
    def analyses(self, questions: Iterable[tuple[Position, Seats]],
                 moves: bool = True, partial: bool = False, each: bool = False,
                 share: float = 0.0, done: Done | None = None,
                 ) -> list[Analysis] | list[Analysis | None]:
        """``analyze`` of each (position, seats), in the order given: on the solver's threads,
        each taking the next position as it falls free, over one table (``moves`` as for
        ``analyze``). For many positions, the deals a Monte-Carlo player samples at one turn
        say, this keeps every thread busy where one position's questions alone are too small to
        share out. Positions under other rules or moon totals than the one before wait for
        those before them; the time limit covers the whole call, or with ``each`` each position
        from its start (with ``partial``, as for ``guarantees``: a position the limits cut short
        is answered None; ``share`` as there, for a limit that covers the whole call). ``done``, if given, is called (from the
        solver's threads) as each position gets its answer, with the position's index in
        ``questions`` and its answer: for a progress display, or to keep what was answered of a
        call that a Ctrl-C ends.

        >>> from solver.deal import Deal
        >>> d = Deal.parse("N:K.QJ.. Q.AK.. A.T.2. T.2..A")
        >>> rules = Rules.parse({"first_lead": "free", "hearts_break": "none"})
        >>> leads = [(Position.start(d, rules, leader), ["N"]) for leader in "NESW"]
        >>> [(a.players[Seat.N].guarantee, [str(m.card) for m in a.moves])
        ...  for a in Solver(threads=2).analyses(leads)]
        [(0, ['SK']), (13, []), (0, []), (0, [])]
        """
        _share(share, partial, each)
        if done is not None and not callable(done):
            raise HeartsError(f"done: expected a function, got {type(done).__name__}")
        self._start()

        def one(q: tuple[Position, Seats]) -> Analysis:
            if each and self._call_limits[0]:
                self._local.deadline = time.monotonic() + self._call_limits[0]
            try:
                return self._analyze(q[0], _seats(q[1]), moves)
            finally:
                self._local.deadline = 0.0

        return self._each(one, _questions(questions, "seats"), (lambda e: None) if partial else None,
                          share, done)

    def _each(self, ask: Callable[[Any], Any], questions: list[tuple[Any, ...]],
              cut_short: Callable[[SearchAborted], Any] | None = None,
              share: float = 0.0, done: Done | None = None) -> list[Any]:
        """``ask`` of each question (a tuple whose first item is its position), in order, on
        the solver's threads. A question the limits cut short ends the call, or with
        ``cut_short`` is answered ``cut_short(e)``; ``share`` of the call's time is first shared
        out evenly (see ``_shared``); ``done(index, answer)`` follows each answer."""
        numbered = [(*q, i) for i, q in enumerate(questions)]
        if cut_short is None:
            return self._runs(_then(_naming(ask, len(questions)), done), numbered)
        if share and self._call_limits[0] and len(questions) > 1:
            return self._shared(ask, questions, cut_short, share, done or (lambda i, a: None))
        return self._runs(_then(_unnumbered(_unless_cut_short(ask, self._interrupts, cut_short)),
                                done), numbered)

    def _runs(self, ask: Callable[[Any], Any], questions: list[tuple[Any, ...]]) -> list[Any]:
        """``ask`` of each question, on the solver's threads; a run under other rules or moon
        totals than the one before waits for it."""
        answers: list[Any] = []
        for _, run in groupby(questions, key=lambda q: (q[0].rules, q[0].moon_total)):
            same = list(run)
            self._use(same[0][0])
            answers += self._map(ask, same,
                                 any(q[0].cards_left >= PARALLEL_LIST_FROM_CARDS for q in same))
        return answers

    def _shared(self, ask: Callable[[Any], Any], questions: list[tuple[Any, ...]],
                cut_short: Callable[[SearchAborted], Any], share: float,
                done: Done) -> list[Any]:
        """``ask`` of each question in two rounds. In the first, ``share`` of the call's time is
        shared out: each question, as it starts, gets an equal part of the time the threads
        that take them at once have left in the first round, less what the questions under way
        hold, so that an easy question late in the list is answered even when hard ones come
        first. In the second, the questions that ran out of their share (and any cut short by
        the node limit after it ran out) are asked again, in order, with the rest of the call's
        time, as without ``share`` (where the rules stay the same, the table keeps what the
        first round found): when every question is hard, the first ones are still answered."""
        mark = self._interrupts
        first_end = time.monotonic() + share * (self._deadline - time.monotonic())
        unstarted = [len(questions)]
        running: dict[int, float] = {}      # the questions under way: where each one's share ends
        again: list[int] = []

        def first(question: tuple[Any, ...]) -> Any:
            i = question[-1]
            with self._lock:
                now = time.monotonic()
                left = unstarted[0]
                unstarted[0] -= 1
                at_once = self._local.width if getattr(self._local, "pooled", False) else 1
                # the threads' time to the round's end, less what the questions under way hold
                free = at_once * (first_end - now) - sum(max(0.0, e - now) for e in running.values())
                # (the last of an uneven wave may run past the round's end, not the call's)
                running[i] = end = min(self._deadline, now + max(0.0, free) / left)
            self._local.deadline = end
            try:
                answer = ask(question[:-1])
            except SearchAborted as e:
                if interrupts() != mark:
                    raise
                if time.monotonic() >= end:
                    with self._lock:
                        again.append(i)
                    return cut_short(e)         # (its answer is the second round's)
                answer = cut_short(e)
            finally:
                self._local.deadline = 0.0
                with self._lock:
                    del running[i]
            done(i, answer)
            return answer

        answers = self._runs(first, [(*q, i) for i, q in enumerate(questions)])
        again.sort()
        second = _unnumbered(_unless_cut_short(ask, mark, cut_short))

        def final(question: tuple[Any, ...]) -> Any:
            i = question[-1]
            answers[i] = _tighter(answers[i], second(question))
            done(i, answers[i])
            return answers[i]

        self._runs(final, [(*questions[i], i) for i in again])
        return answers

    def _analyze(self, p: Position, wanted: list[Seat] | None, moves: bool,
                 watch: Watch | None = None) -> Analysis:
        t0 = time.perf_counter()
        with self._metered() as meter:
            self._use(p)
            players, results = self._answers(p, list(Seat) if wanted is None else wanted, moves,
                                             watch)
        return Analysis(p, players, results, meter[0], time.perf_counter() - t0)

    def _answers(self, p: Position, wanted: list[Seat], moves: bool, watch: Watch | None,
                 ) -> tuple[BySeat[PlayerResult], list[MoveResult]]:
        def for_question(name: str) -> Report | None:
            return watch and functools.partial(watch, name)

        def seat_values(side: int) -> PlayerResult:
            report = for_question(p.side_name(side))
            return PlayerResult(self._guarantee(p, side, report=report), self._moon(p, side))

        sides, groups = self._plan(p, wanted, moves)
        answers = self._map(seat_values, sides, p.cards_left >= PARALLEL_FROM_CARDS)
        by_side = dict(zip(sides, answers))
        players = BySeat({seat: by_side[p.side(seat)] for seat in wanted})
        results: list[MoveResult] = []
        if groups:
            side = p.side(cast(Seat, p.to_move))
            base = by_side[side]
            if len(groups) == 1:
                # a forced choice: the card's values are the position's own
                values = [(base.guarantee, base.moon_possible)]
            else:
                guess = base.guarantee

                def card_values(rep: Card) -> tuple[int, bool]:
                    child = p.play(rep)
                    try:
                        return (self._guarantee(child, side, guess, for_question(str(rep))),
                                self._moon(child, side))
                    except SearchAborted as e:
                        # bounds on one card's value are not the seat's
                        raise SearchAborted(str(e)) from None

                # the solve above left most of the children's values in the table: their
                # questions are small until far from the end
                values = self._map(card_values, [rep for rep, _ in groups],
                                   p.cards_left >= PARALLEL_CARDS_FROM)
            rows = [MoveResult(c, g, m) for (_, run), (g, m) in zip(groups, values) for c in run]
            best = min(r.guarantee for r in rows)
            results = sorted((MoveResult(r.card, r.guarantee, r.moon_possible, r.guarantee == best)
                              for r in rows), key=lambda r: (r.card.suit, -r.card.rank))
        return players, results

    @_one_call_at_a_time
    def line(self, p: Position, target: SeatLike) -> list[LineStep]:
        """An optimal continuation to the end for ``target``: its side minimises its score,
        the others maximise it. Where several cards keep the value, the first in
        ``move_groups``' order is played: clubs, diamonds, hearts, spades, each suit from the
        top down, a run of equivalent cards from its lowest (the same line whatever the
        threads or what the table holds).

        After one exact solve, each step only asks "does this card keep the value?", a single
        null-window pass per card tried, answered mostly from the table the solve filled."""
        self._start()
        p = _position(p)
        t = Seat.of(target)
        tside = p.side(t)
        out: list[LineStep] = []
        value = self._guarantee(p, tside)
        while not p.is_over:
            mover = p.to_move
            assert mover is not None
            minimizing = p.side(mover) == tside
            for rep, _run in self._move_groups(p):
                child = p.play(rep)
                if self._keeps(child, tside, value, minimizing):
                    out.append(LineStep(mover, rep, value))
                    p = child
                    break
            else:  # pragma: no cover - the value is always reached by some child
                raise AssertionError("no child reaches the position's value")
        return out

    def _keeps(self, child: Position, side: int, value: int, minimizing: bool) -> bool:
        """Is ``child``'s guarantee ``value`` (its parent's), i.e. the card played optimal? A
        child of a minimising move can only be worse (higher), of a maximising one lower."""
        if child.is_over:
            return self._guarantee(child, side) == value
        raw = child.raw_points(side)
        beta = value - raw + (1 if minimizing else 0)
        with self._engine(child) as e:
            v = e.probe(*self._args(child), child.moon_state, side, beta, **self._budget())
        return v < beta if minimizing else v >= beta


class _Metered:
    """The one engine of a one-thread solver, its nodes added to the question's meter (if
    any) when the search is done: a generator's context manager cost more than the searches
    near the end."""

    __slots__ = ("engine", "meter", "before")

    def __init__(self, engine: Engine, meter: list[int] | None) -> None:
        self.engine, self.meter, self.before = engine, meter, engine.nodes

    def __enter__(self) -> Engine:
        return self.engine

    def __exit__(self, *exc: object) -> None:
        if self.meter is not None:
            self.meter[0] += self.engine.nodes - self.before


class _Saved(threading.local):
    def __init__(self) -> None:
        self.stack: list[tuple[float | None, int | None]] = []


class Budget:
    """One deadline for many solver calls: ``with budget as solver: solver.analyze(...)``.

    The solver's own ``time_limit`` bounds a single call; this sets it, call by call, to the
    time left (0 seconds: no deadline, and each call keeps the time limit it had), and
    ``nodes`` (if given) as each search's node limit, and raises ``SearchAborted`` once no time
    is left. The limits hold for the calls of this thread only (``Solver.thread_limits``).
    Leaving the ``with`` restores the limits before it; ``limited()`` sets them for good (a
    solver serving one request at a time).
    """

    def __init__(self, solver: Solver, seconds: float = 0.0, nodes: int | None = None) -> None:
        if not isinstance(solver, Solver):    # (checked here, not at the first call inside)
            raise HeartsError(f"Budget: expected a Solver, got {type(solver).__name__}")
        seconds = _setting("budget seconds", seconds, -math.inf, math.inf, real=True)
        self.solver = solver
        self.nodes = None if nodes is None else _setting("budget nodes", nodes, 0, 1 << 62)
        self.deadline = time.monotonic() + seconds if seconds > 0 else 0.0
        self._saved = _Saved()      # the limits each thread's ``with`` replaced, its own

    def limited(self) -> Solver:
        """The solver, limited to what is left of the budget."""
        return self._limited()[0]

    def _limited(self) -> tuple[Solver, tuple[float | None, int | None]]:
        left = None
        if self.deadline:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise SearchAborted("time budget exhausted")
        before = self.solver.thread_limits
        self.solver.thread_limits = (before[0] if left is None else left,
                                     before[1] if self.nodes is None else self.nodes)
        return self.solver, before

    def __enter__(self) -> Solver:
        solver, saved = self._limited()     # (which changes nothing when it raises)
        self._saved.stack.append(saved)
        return solver

    def __exit__(self, *exc: object) -> None:
        self.solver.thread_limits = self._saved.stack.pop()


def analyze_with_line(solver: Solver, p: Position, seats: Seats = None,
                      target: SeatLike | None = None, watch: Watch | None = None,
                      before_line: Callable[[], object] | None = None) -> AnalysisWithLine:
    """``solver.analyze(p, seats, watch=watch)`` and, for ``target``, ``solver.line(p, target)``:
    what ``hearts-dd analyze --line`` and ``POST /analyze`` answer, made once for both.
    ``before_line()`` runs between the two, for a caller whose one time limit covers both
    (the line gets what is left).
    """
    analysis = solver.analyze(p, seats=seats, watch=watch)
    if target is None:
        return AnalysisWithLine(analysis)
    if before_line is not None:
        before_line()
    return AnalysisWithLine(analysis, Seat.of(target), solver.line(p, target))


def _points_left(p: Position) -> int | None:
    """The points still to be taken, when they go to two sides and no moon changes them (the
    game is then constant-sum: bridge play among others); else None."""
    if not p.rules.partnership or p.rules.moon != "none":
        return None
    cards = p.hands[0] | p.hands[1] | p.hands[2] | p.hands[3] | mask_of(p.trick)
    return p.rules.points_of(cards) + p.rules.trick_points * (cards.bit_count() // 4)


def _unless_cut_short(ask: Callable[[Any], Any], mark: int,
                      otherwise: Callable[[SearchAborted], Any]) -> Callable[[Any], Any]:
    """``ask``, answering ``otherwise(e)`` where the limits cut it short; a Ctrl-C since
    ``interrupts()`` was ``mark`` is no limit, and still ends the call."""
    def answer(question: Any) -> Any:
        try:
            return ask(question)
        except SearchAborted as e:
            if interrupts() != mark:
                raise
            return otherwise(e)

    return answer


def _naming(ask: Callable[[Any], Any], count: int) -> Callable[[Any], Any]:
    """``ask`` of a question tuple whose last item is its index in the call; a question the
    limits cut short says which it was (``SearchAborted.question``, and in its message)."""
    def answer(question: tuple[Any, ...]) -> Any:
        try:
            return ask(question[:-1])
        except SearchAborted as e:
            raise SearchAborted(f"{e} (question {question[-1] + 1} of {count})", e.low, e.high,
                                e.who, question[-1]) from None

    return answer


def _unnumbered(ask: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``ask`` of a question tuple whose last item is its index in the call."""
    return lambda question: ask(question[:-1])


def _then(ask: Callable[[Any], Any], done: Done | None) -> Callable[[Any], Any]:
    """``ask`` of a numbered question, calling ``done(index, answer)`` (if any) once it has
    answered."""
    if done is None:
        return ask

    def answer(question: tuple[Any, ...]) -> Any:
        result = ask(question)
        done(question[-1], result)
        return result

    return answer


def _share(share: Any, partial: bool, each: bool = False) -> None:
    """A many-question call's ``share``, checked: a part of the time below 1 (which would
    leave none for the second round), for ``partial`` answers to questions under one limit."""
    _setting("share", share, 0, 1, real=True, below=True)
    if share and not partial:
        raise HeartsError("Solver share: needs partial answers (partial=True): without them the "
                          "first question cut short by its share would end the call")
    if share and each:
        raise HeartsError("Solver share: with each, every question has a time limit of its own")


def _tighter(first: Any, second: Any) -> Any:
    """The better of two answers to one question: the second unless it is None, or of two
    ``Bounds`` the tighter of each."""
    if isinstance(first, Bounds) and isinstance(second, Bounds):
        return Bounds(first.low if second.low is None else
                      second.low if first.low is None else max(first.low, second.low),
                      first.high if second.high is None else
                      second.high if first.high is None else min(first.high, second.high))
    return first if second is None else second


def _carry(low: int | None, high: int | None, offset: int,
           sign: int) -> tuple[int | None, int | None]:
    """Bounds on a value carried to bounds on ``offset + sign * value`` (a flip swaps them)."""
    if sign < 0:
        low, high = high, low
    return (None if low is None else offset + sign * low,
            None if high is None else offset + sign * high)


def _carried(report: Report, offset: int, sign: int) -> Report:
    """``report`` of bounds on ``offset + sign * value``."""
    return lambda low, high: report(*_carry(low, high, offset, sign))


def _bounded(e: SearchAborted, offset: int, sign: int, who: str | None = None) -> SearchAborted:
    """``e`` with its bounds carried through ``offset + sign * value``."""
    return SearchAborted(str(e), *_carry(e.low, e.high, offset, sign), who or e.who)
