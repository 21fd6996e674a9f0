"""The Python API of SPEC §3–§4: answer shapes, the end of the hand, seat selection, limits,
and answers that do not depend on what the same solver was asked before or on threads."""
from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import gc
import os
import random
import math
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Callable

import pytest

from endgames import Scenario, random_endgame
from benchmarks.record_files import small_deal
from solver.analysis import Budget, SearchAborted, Solver, _tighter, analyze_with_line, watch_signal
from solver._search import Engine
from solver.results import Analysis, Bounds, PlayerResult
from solver.errors import HeartsError
from solver.cards import Card, Seat
from solver.deal import Deal
from solver.position import Position
from solver import analysis
from solver.rules import HEARTS_BREAK, MOON_MODES, Rules
from test_bruteforce import RULE_SETS

SAMPLE = Deal.parse("N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4")


def endgames(spec: dict, count: int, seed: str, cards: tuple[int, int] = (9, 20)) -> list[Position]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s: Scenario | None = random_endgame(spec, rng, rng.randint(*cards))
        if s is not None:
            out.append(s.position())
    return out


def answers(solver: Solver, pos: Position) -> tuple:
    return answers_for(solver.analyze(pos))


def answers_for(a: Analysis) -> tuple:
    return ({s: (r.guarantee, r.moon_possible) for s, r in a.players.items()},
            [(m.card, m.guarantee, m.moon_possible, m.best) for m in a.moves])


def test_one_seat_may_be_asked_for_alone_or_in_a_list() -> None:
    solver = Solver(table_mb=16)
    for pos in endgames({}, 3, "one seat"):
        assert answers_for(solver.analyze(pos, Seat.E)) == answers_for(solver.analyze(pos, ["E"]))


@pytest.mark.parametrize("settings, words", [
    ({"time_limit": -1}, "Solver time_limit: -1 is out of range"),
    ({"time_limit": float("nan")}, "Solver time_limit: expected a number"),
    ({"table_mb": 0}, "Solver table_mb: 0 is out of range"),
    ({"table_mb": 1.5}, "Solver table_mb: expected an integer"),
    ({"threads": 0}, "Solver threads: 0 is out of range"),
    ({"threads": "2"}, "Solver threads: expected an integer"),
    ({"node_limit": 2 ** 70}, "Solver node_limit"),
])
def test_solver_settings_are_checked_when_it_is_made(settings: dict, words: str) -> None:
    with pytest.raises(HeartsError, match=re.escape(words)):
        Solver(**settings)


def test_solver_settings_at_the_ends_of_their_ranges_are_taken() -> None:
    solver = Solver(table_mb=1, threads=256, node_limit=2 ** 62, time_limit=math.inf)
    assert (solver.node_limit, solver.time_limit) == (2 ** 62, math.inf)
    pos = endgames({}, 1, "range ends")[0]
    expected = Solver(table_mb=16).guarantee(pos, Seat.N)
    for guess in (analysis.GUESS_RANGE, -analysis.GUESS_RANGE):
        assert solver.guarantee(pos, Seat.N, guess=guess) == expected


def test_numpy_numbers_are_numbers() -> None:
    """A Monte-Carlo player's settings often come out of numpy (float32 times, int64 sizes)."""
    np = pytest.importorskip("numpy")
    solver = Solver(time_limit=np.float32(1.5), table_mb=np.int64(4), threads=np.int32(2))
    assert (solver.time_limit, solver.table_mb, solver.threads) == (1.5, 4, 2)
    assert type(solver.table_mb) is int and type(solver.time_limit) is float
    small = endgames({}, 2, "numpy")
    assert solver.guarantees([(p, "N") for p in small], partial=True, share=np.float32(0.3)) \
        == Solver(table_mb=4).guarantees([(p, "N") for p in small])
    with pytest.raises(HeartsError, match="Solver share: expected a number"):
        solver.guarantees([(p, "N") for p in small], partial=True, share=np.bool_(True))


def test_limits_set_later_are_checked_too() -> None:
    """The limits are meant to be set between calls (a budget per request): as checked as at
    the start, where a string or NaN once failed or meant no limit only at the next search."""
    solver = Solver(time_limit=10 ** 400)    # more seconds than a float holds: no limit
    assert solver.time_limit == float("inf")
    for name, value, words in [("time_limit", "x", "expected a number"),
                               ("time_limit", float("nan"), "expected a number"),
                               ("time_limit", -1, "-1 is out of range"), ("node_limit", 1.5, "expected an integer")]:
        with pytest.raises(HeartsError, match=f"Solver {name}: {words}"):
            setattr(solver, name, value)
    with pytest.raises(AttributeError):
        solver.threads = 2                  # type: ignore[misc]  # the engines are made for it


def test_wrong_arguments_are_named() -> None:
    """They once failed deep inside: "'NoneType' object has no attribute 'rules'"."""
    solver = Solver(table_mb=16)
    pos = endgames({}, 1, "arguments")[0]
    for call, words in [(lambda: solver.analyze(None), "expected a Position, got NoneType"),
                        (lambda: solver.analyze(pos.deal), "expected a Position, got Deal"),
                        (lambda: solver.guarantee("N", pos), "expected a Position, got str"),
                        (lambda: solver.line(None, "N"), "expected a Position"),
                        (lambda: solver.guarantees([pos]), "question 0: expected a (position, seat) pair"),
                        (lambda: solver.guarantees(None), "expected (position, seat) pairs, got NoneType"),
                        (lambda: solver.analyses([(pos, None), (pos,)]), "question 1: expected a (position, seats) pair"),
                        (lambda: solver.analyze(pos, watch=5), "watch: expected a function, got int"),
                        (lambda: solver.analyses([(pos, None)], done=5), "done: expected a function, got int"),
                        (lambda: solver.guarantee(pos, "N", guess=10 ** 30), "Solver guess: 10000"),
                        (lambda: solver.guarantee(pos, "N", guess=math.nan), "Solver guess: expected an integer"),
                        (lambda: solver.guarantee(pos, "N", guess="6"), "Solver guess: expected an integer")]:
        with pytest.raises(HeartsError, match=re.escape(words)):
            call()
    assert solver.guarantees([]) == [] and answers(solver, pos) == answers(Solver(table_mb=16), pos)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_watch_function_cannot_ask_its_own_solver(threads: int) -> None:
    """It would search on an engine in the middle of a search (its own thread's)."""
    solver = Solver(table_mb=16, threads=threads)
    pos = endgames({}, 1, "nested", cards=(32, 32))[0]
    with pytest.raises(HeartsError, match=r"^Solver.guarantee called inside another call of the same solver"):
        solver.analyze(pos, watch=lambda question, low, high: solver.guarantee(pos, "N"))
    assert answers(solver, pos) == answers(Solver(table_mb=16), pos)


def test_a_copy_or_a_pickle_is_a_new_solver_with_the_same_settings() -> None:
    """The tables are a cache: a copy sharing the first solver's engines would let two calls
    run on them at once."""
    import copy
    import pickle
    pos = endgames({}, 1, "copy")[0]
    solver = Solver(table_mb=16, node_limit=10 ** 9, time_limit=30, threads=2)
    expected = answers(solver, pos)
    for other in (copy.copy(solver), copy.deepcopy(solver), pickle.loads(pickle.dumps(solver))):
        assert other.engines == () and other.engines is not solver.engines
        assert (other.table_mb, other.node_limit, other.time_limit, other.threads) == (16, 10 ** 9, 30, 2)
        assert answers(other, pos) == expected


@pytest.mark.parametrize("threads", [1, 2])
def test_one_solver_shared_by_several_threads_answers_each_as_alone(threads: int) -> None:
    """Calls from several threads take turns. They once ran at once on the one engine: wrong
    answers, then a crash, and a rule change under another's search."""
    specs = [{}, {"preset": "omnibus"}, {"moon": "subtract", "partnership": True}, {}]
    work = [endgames(spec, 40, f"shared{i}", cards=(12, 20)) for i, spec in enumerate(specs)]
    expected = [[answers(Solver(table_mb=16), pos) for pos in positions] for positions in work]
    shared = Solver(table_mb=16, threads=threads)
    got: list[list[tuple]] = [[] for _ in work]
    failures: list[BaseException] = []

    def ask(i: int) -> None:
        try:
            got[i] = [answers(shared, pos) for pos in work[i]]
        except BaseException as e:
            failures.append(e)

    callers = [threading.Thread(target=ask, args=(i,)) for i in range(len(work))]
    for t in callers:
        t.start()
    for t in callers:
        t.join()
    assert failures == [] and got == expected


def test_json_has_the_spec_shape_with_a_row_for_every_legal_card() -> None:
    solver = Solver(table_mb=16)
    for pos in endgames({}, 10, "json"):
        out = solver.analyze(pos).to_json()
        assert out["to_move"] == str(pos.to_move)
        assert set(out["players"]) == {"N", "E", "S", "W"}
        for seat in out["players"].values():
            assert type(seat["guarantee"]) is int and type(seat["moon_possible"]) is bool
        assert [m["card"] for m in out["moves"]] == [str(c) for c in pos.legal_moves()]
        best = min(m["guarantee"] for m in out["moves"])
        assert all(m["best"] == (m["guarantee"] == best) for m in out["moves"])
        assert best == out["players"][out["to_move"]]["guarantee"]


def test_at_the_end_of_the_hand_the_guarantee_is_the_score() -> None:
    deal = Deal.parse("N:A..2. K..3. Q..4. .J.5.")
    rules = Rules.parse({"first_lead": "free"})
    pos = Position.from_play(deal, rules, "D2 D3 D4 D5 HJ SA SK SQ", "N")
    result = Solver().analyze(pos)
    assert result.to_move is None and result.moves == []
    assert {s: r.guarantee for s, r in result.players.items()} == {s: pos.score(s) for s in Seat}
    out = result.to_json()
    assert out["to_move"] is None and out["moves"] == []


def test_a_forced_choice_s_cards_carry_the_position_s_moon_flag() -> None:
    """N's two hearts are one choice (its values are the seat's, not searched again), and
    either takes both tricks with every point card: each card, like N, can force the moon."""
    deal = Deal.parse("N:.AK.. .QJ.. ..AK. ..QJ.")
    pos = Position.from_play(deal, Rules.parse({"first_lead": "free"}), "HQ DA DQ", "E")
    solver = Solver(table_mb=16)
    result = solver.analyze(pos)
    assert result.players[Seat.N] == PlayerResult(0, True)
    assert [m.card for m in result.moves] == [Card.parse("HA"), Card.parse("HK")]
    for move in result.moves:
        child = solver.analyze(pos.play(move.card), moves=False).players[Seat.N]
        assert (move.guarantee, move.moon_possible) == (child.guarantee, child.moon_possible) == (0, True)


@pytest.mark.parametrize("rules, taken", [
    ("standard", {"N": 0, "E": 13, "S": 1, "W": 4}),
    ({"partnership": True}, {"N": 1, "E": 17, "S": 1, "W": 17}),
    ({"trick_points": 1}, {"N": 1, "E": 14, "S": 3, "W": 6}),
])
def test_json_has_the_points_taken_so_far(rules: str | dict, taken: dict) -> None:
    """Six tricks of SAMPLE: W takes CT's trick, S DQ's, N CK's, S H9's (1), E SA's over SQ
    (13), W HA's with four hearts (4)."""
    pos = Position.from_play(SAMPLE, Rules.parse(rules), "C2 C6 C5 CT DT D7 D9 DQ CJ C4 CK CQ "
                             "C3 C8 C9 H9 S4 S8 SQ SA HK H7 HA H8", None)
    assert Solver(table_mb=16).analyze(pos, ["N"], moves=False).to_json()["points_taken"] == taken


def test_single_questions_agree_with_analyze() -> None:
    solver = Solver(table_mb=16)
    for pos in endgames({"preset": "omnibus"}, 6, "single"):
        full = solver.analyze(pos)
        fresh = Solver(table_mb=16)
        for seat in Seat:
            assert fresh.guarantee(pos, seat) == full.players[seat].guarantee
            assert fresh.moon_possible(pos, seat) == full.players[seat].moon_possible
        only_east = fresh.analyze(pos, seats=[Seat.E], moves=False)
        assert list(only_east.players) == [Seat.E] and only_east.moves == []
        assert only_east.players[Seat.E] == full.players[Seat.E]


def test_one_seat_gets_its_cards_only_when_its_side_is_to_move() -> None:
    """Asked for one seat, the work is that seat's: the mover's cards would cost a solve each."""
    solver = Solver(table_mb=16)
    for spec in ({}, {"partnership": True}):
        for pos in endgames(spec, 4, f"one seat {spec}"):
            full = solver.analyze(pos)
            for seat in Seat:
                one = solver.analyze(pos, seats=[seat])
                assert one.players == {seat: full.players[seat]}
                mine = pos.side(seat) == pos.side(pos.to_move)
                assert one.moves == (full.moves if mine else [])


@pytest.mark.usefixtures("parallel_at_any_size")
def test_many_questions_at_once_agree_with_single_ones() -> None:
    """``guarantees`` answers in the order asked, on two threads, across deals, rule sets and
    moon totals (a change of either waits for the questions before it)."""
    specs = [{}, {}, {"preset": "omnibus"}, {"preset": "bridge"}, {}]
    positions = [pos for i, spec in enumerate(specs) for pos in endgames(spec, 3, f"many{i}")]
    # seven cards a hand: their point cards, and so the moon total, vary from deal to deal
    positions[1:1] = [Position.start(small_deal(random.Random(seed), 7)) for seed in (1, 2)]
    questions = [(pos, seat) for pos in positions for seat in (Seat.N, "w")]
    expected = [Solver(table_mb=16).guarantee(pos, seat) for pos, seat in questions]
    kinds = [(pos.rules, pos.moon_total) for pos, _ in questions]
    assert sum(a != b for a, b in zip(kinds, kinds[1:])) >= 5  # six runs of one kind
    assert Solver(table_mb=16, threads=2).guarantees(questions) == expected
    assert Solver(table_mb=16).guarantees(questions) == expected
    assert Solver().guarantees([]) == []


@pytest.mark.usefixtures("parallel_at_any_size")
@pytest.mark.parametrize("threads", [1, 2])
def test_many_positions_analyzed_at_once_agree_with_single_ones(threads: int) -> None:
    """``analyses`` answers in the order asked, each position for its own seats, across rule
    sets and moon totals, and charges each analysis the nodes of its own searches."""
    specs = [{}, {"preset": "spot"}, {"partnership": True}, {}]
    positions = [pos for i, spec in enumerate(specs) for pos in endgames(spec, 4, f"analyses{i}")]
    positions[2:2] = [Position.start(small_deal(random.Random(seed), 6)) for seed in (3, 4)]
    seats: list[list[Seat | str] | None] = [None, ["E"], [Seat.S, "n"]]
    questions = [(pos, seats[i % 3]) for i, pos in enumerate(positions)]
    expected = [answers_for(Solver(table_mb=16).analyze(pos, asked)) for pos, asked in questions]
    solver = Solver(table_mb=16, threads=threads)
    before = solver.nodes
    got = solver.analyses(questions)
    assert [answers_for(a) for a in got] == expected
    assert [a.position for a in got] == positions
    assert sum(a.nodes for a in got) == solver.nodes - before > 0
    one = Solver(table_mb=16, threads=threads)  # its seats and cards on both threads
    assert one.analyze(positions[0]).nodes == one.nodes > 0
    assert solver.analyses([]) == []
    with pytest.raises(SearchAborted):
        Solver(time_limit=0.001, threads=threads).analyses([(Position.start(SAMPLE), None)] * 2)


@pytest.mark.parametrize("threads", [1, 2])
def test_partial_answers_leave_out_only_what_the_limits_cut_short(threads: int) -> None:
    """With ``partial``, a question cut short is None and the others are answered: under a
    node limit (per search) those after it too, under a time limit (the call's) what was solved
    before the time ran out."""
    easy = endgames({}, 2, "partial")
    hard = Position.start(Deal.random(2))  # N's guarantee takes seconds
    questions = [(easy[0], None), (hard, ["N"]), (easy[1], None)]
    expected = [answers_for(Solver(table_mb=16).analyze(p, asked)) for p, asked in questions[::2]]
    by_nodes = Solver(table_mb=16, node_limit=20_000, threads=threads)
    got = by_nodes.analyses(questions, partial=True)
    assert got[1] is None and [answers_for(a) for a in got[::2]] == expected  # type: ignore[arg-type]
    seats = [(p, asked[0] if asked else Seat.E) for p, asked in questions]
    assert by_nodes.guarantees(seats, partial=True)[1] is None
    with pytest.raises(SearchAborted):
        by_nodes.analyses(questions)
    by_time = Solver(table_mb=16, time_limit=0.3, threads=1).analyses(questions, partial=True)
    assert answers_for(by_time[0]) == expected[0] and by_time[1:] == [None, None]  # type: ignore[arg-type]


@pytest.mark.parametrize("threads", [1, 2])
def test_guarantee_bounds_keep_what_the_limits_left_proved(threads: int) -> None:
    easy = endgames({}, 3, "bounds")
    hard = Position.start(Deal.random(19))                      # N's guarantee is 6
    questions = [(easy[0], Seat.N), (hard, Seat.N), (easy[1], Seat.E), (easy[2], "W")]
    exact = Solver(table_mb=16).guarantees(questions)
    assert Solver(table_mb=16, threads=threads).guarantee_bounds(questions) == [
        Bounds(v, v) for v in [*exact[:1], 6, *exact[2:]]]
    got = Solver(table_mb=16, node_limit=300_000, threads=threads).guarantee_bounds(questions)
    low, high = got[1]
    assert not got[1].exact and (low, high) != (None, None)
    assert (low is None or low <= 6) and (high is None or high >= 6)
    assert [b for k, b in enumerate(got) if k != 1] == [Bounds(v, v) for k, v in enumerate(exact) if k != 1]
    assert all(b.exact for k, b in enumerate(got) if k != 1)


def test_a_position_beside_a_hard_one_keeps_its_engine_between_its_questions() -> None:
    """Two threads, the hard position first: the easy one's guarantee took 0.7 s, after which
    its engine went to help the hard search and its moon question waited for an engine until
    the time limit (a probe found it answered None, and `analyze --input` said "no answer").
    The limit is wall-clock time: with the cores busy with other processes (the suite's other
    workers) the easy one's 1 s of CPU took over 5 s; 10 s, still far below the hard one's 20 s
    and more, so that a moon question left waiting for an engine still gets None."""
    hard, easy = Position.start(Deal.random(79)), Position.start(Deal.random(19))
    solver = Solver(table_mb=16, time_limit=10, threads=2)
    got = solver.analyses([(hard, ["N"]), (easy, ["N"])], partial=True)
    assert got[0] is None and got[1] is not None
    assert got[1].players[Seat.N] == PlayerResult(6, False)


class NodeClock:
    """``time.monotonic`` for solver.analysis in a test, run on the nodes its searches visit,
    ``RATE`` a second, and each search's time limit given to the engine as that many nodes:
    time an unloaded machine's threads would take, which no other process can take from the
    test (on wall-clock time, a thread of ours starved to a fifth of a core left a question
    unanswered that it answers in a twentieth of its time). Each thread has a clock of its
    own, moved on by the nodes of the engines it holds; a parallel run's threads start from
    their caller's time, and the caller goes on from the latest of theirs, as it waits for
    them all. A thread that waits moves its clock on with ``sleep``. No engine is lent as a
    helper: a helper's nodes are no thread's, and whether one joins a pass hangs on real time
    (once in a whole suite's run, the easy question behind hard ones went unanswered)."""
    RATE = 2_000_000

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self._local = threading.local()
        self._lock = threading.Lock()
        self._turns = threading.Condition(self._lock)
        self._run, self._started, self._latest = 0, 0, 0   # a parallel run's: its number, nodes
        # a parallel run's threads: where each acts next (its clock), None once it has ended;
        # the items no thread has taken yet, those in hand, the threads yet to take their first
        self._at: dict[int, int | None] = {}
        self._unstarted, self._absent = 0, 0
        self._inside: set[int] = set()
        real_engine, real_budget, real_map = Solver._engine, Solver._budget, Solver._map
        clock = self

        @contextlib.contextmanager
        def engine(solver: Solver, p: Position) -> Any:
            clock._all_started()
            with real_engine(solver, p) as e:
                clock._nodes()
                clock._local.held.append([e, e.nodes])
                try:
                    yield e
                finally:
                    clock._nodes()
                    clock._local.held.pop()

        def budget(solver: Solver) -> dict[str, Any]:
            limits = real_budget(solver)
            if "seconds" in limits:     # (+ 1: the clock reads at least the end once they are spent)
                nodes = math.ceil(limits.pop("seconds") * self.RATE) + 1
                limits["node_limit"] = min(limits["node_limit"] or nodes, nodes)
            return limits

        def map_(solver: Solver, fn: Callable[[Any], Any], items: list[Any], parallel: bool) -> list[Any]:
            if solver.threads == 1 or len(items) < 2 or not parallel or getattr(solver._local, "pooled", False):
                return real_map(solver, fn, items, parallel)     # (in line: on this thread's clock)
            now = self._nodes()
            with self._lock:
                self._run, self._started, self._latest = self._run + 1, now, now
                self._at, self._inside = {}, set()
                self._unstarted, self._absent = len(items), min(solver.threads, len(items))
            try:
                return real_map(solver, self._in_turn(fn), items, parallel)
            finally:
                with self._lock:
                    self._at = {}       # (the caller's sleeps after it: in line)
                self._local.now = max(self._nodes(), self._latest)

        monkeypatch.setattr(analysis, "PARALLEL_FROM_CARDS", 53)    # (no position has more cards)
        monkeypatch.setattr(Solver, "_engine", engine)
        monkeypatch.setattr(Solver, "_budget", budget)
        monkeypatch.setattr(Solver, "_map", map_)
        monkeypatch.setattr(analysis, "time", type("Time", (), {
            "monotonic": staticmethod(self.monotonic), "perf_counter": staticmethod(time.perf_counter)}))

    def _nodes(self) -> int:
        """This thread's time, in nodes, with what the engines it holds have searched since."""
        local = self._local
        if getattr(local, "run", None) != self._run:    # a pool thread's first look in a run
            local.run, local.now, local.held = self._run, self._started, getattr(local, "held", [])
        for held in local.held:
            local.now += held[0].nodes - held[1]
            held[1] = held[0].nodes
        with self._lock:
            self._latest = max(self._latest, local.now)
        return local.now

    def monotonic(self) -> float:
        return self._nodes() / self.RATE

    def _all_started(self) -> None:
        """In a parallel run, a thread's search waits until every thread of the run has taken
        an item, as each takes its first at the run's start however late it really starts.
        Else a thread started late (on a loaded machine; a pool thread held back 1 s does it
        every time) found the other had taken every item, each on a later clock and so with a
        smaller share, and the last, easy question got none: a whole suite's run failed so."""
        with self._turns:
            if threading.get_ident() in self._at:
                assert self._turns.wait_for(lambda: not (self._absent and self._unstarted), timeout=120), \
                    f"a thread of the run never took an item: {self._absent} to start"

    def sleep(self, seconds: float) -> None:
        """``time.sleep`` on this thread's clock. In a parallel run it returns only once no
        other thread of the run can act before the time it wakes (each is as far on, asleep
        until then or later, or ended), as threads that really sleep wake in turn: without
        that, a thread that woke on its own clock could start its next item before another,
        sleeping less, had started its own."""
        me, wakes = threading.get_ident(), self._nodes() + max(0, math.ceil(seconds * self.RATE))
        self._local.now = wakes
        with self._turns:
            self._latest = max(self._latest, wakes)
            if me not in self._at:
                return          # (in line, on the caller's thread: no other to wait for)
            self._at[me] = wakes
            self._turns.notify_all()
            assert self._turns.wait_for(lambda: self._first(me, wakes), timeout=120), \
                f"no turn for a sleeper till {wakes}: {self._at}, {self._absent} to start"

    def _first(self, me: int, wakes: int) -> bool:
        """Whether no thread of the run but ``me`` can act before ``wakes`` (lock held)."""
        if self._absent and self._unstarted and self._started < wakes:
            return False        # (a thread yet to start takes an item at the run's start)
        return all(at is None or at >= wakes for thread, at in self._at.items() if thread != me)

    def _in_turn(self, fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """``fn`` for a parallel run's items, each thread's place in the run kept for ``sleep``."""
        def item(x: Any) -> Any:
            me, now = threading.get_ident(), self._nodes()
            with self._turns:
                self._absent -= me not in self._at
                self._unstarted -= 1
                self._at[me] = now
                self._inside.add(me)
                if not self._unstarted:     # the threads between items find none: ended
                    self._at.update({t: None for t in self._at if t not in self._inside})
                self._turns.notify_all()
            try:
                return fn(x)
            finally:
                now = self._nodes()
                with self._turns:
                    self._inside.discard(me)
                    self._at[me] = now if self._unstarted else None
                    self._turns.notify_all()
        return item


@pytest.mark.parametrize("threads", [1, 2])
def test_a_shared_time_reaches_an_easy_question_behind_hard_ones(
        threads: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """More hard questions than threads first: in order, the easy one at the end never starts
    before the call's time is spent; with ``share``, each question first gets its part, so the
    easy one is answered, and the first is still answered in the second round. The call's time
    is counted in nodes (NodeClock): 8 s of 2M nodes, where the first takes 5.4M alone (1 s),
    the easy one 26 and each hard one far over 20M; on wall-clock time the machine's other work
    (the suite's other workers, their servers and pools) left the first unanswered."""
    first, easy = Position.start(Deal.random(19)), endgames({}, 1, "shared")[0]
    hard = [Position.start(Deal.random(seed)) for seed in (79, 43, 2)]   # each takes 20 s or more
    questions = [(first, Seat.N), *[(p, Seat.N) for p in hard], (easy, Seat.E)]
    expected = Solver(table_mb=16).guarantee(easy, Seat.E)
    NodeClock(monkeypatch)
    solver = Solver(table_mb=16, time_limit=8, threads=threads)
    assert solver.guarantees(questions, partial=True) == [6, None, None, None, None]
    solver.clear()
    assert solver.guarantees(questions, partial=True, share=0.1) == [6, None, None, None, expected]
    solver.clear()
    bounds = solver.guarantee_bounds(questions, share=0.1)
    assert [b.exact for b in bounds] == [True, False, False, False, True]
    assert bounds[0] == Bounds(6, 6) and bounds[-1] == Bounds(expected, expected)
    solver.clear()
    got = solver.analyses([(p, ["N"]) for p, _ in questions[:-1]] + [(easy, ["E"])], moves=False,
                          partial=True, share=0.1)
    assert [a is None for a in got] == [False, True, True, True, False]
    assert got[-1].players[Seat.E].guarantee == expected  # type: ignore[union-attr]


@pytest.mark.parametrize("cards, count, at_once", [(16, 4, 1), (52, 5, 2), (52, 3, 2)])
def test_each_question_gets_an_equal_part_of_the_first_round(
        cards: int, count: int, at_once: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Questions that all use their whole part: each gets the first round's time over the
    questions, times the threads the list really runs on (two far from the end, one near it,
    where a list stays on the caller's). The last question once got a part of its own thread's
    time only, and the first ones nearly the whole round. The time is the NodeClock's: on
    wall-clock time, a thread held up by the machine's other work started its next question
    late, and the parts came out uneven."""
    positions = [Position.start(Deal.random(seed)) for seed in range(count)] if cards == 52 else \
        endgames({}, count, f"share {cards}", cards=(cards, cards))
    clock = NodeClock(monkeypatch)
    solver = Solver(table_mb=16, time_limit=2, threads=2)
    shares: dict[int, float] = {}

    def hard(p: Position, *args, **kwargs) -> Analysis:
        end = solver._local.deadline
        if end:     # the first round: its part, all used; the second: no time to ask again
            shares[positions.index(p)] = end - clock.monotonic()
            clock.sleep(end - clock.monotonic())
        raise SearchAborted("search budget exhausted")

    monkeypatch.setattr(solver, "_analyze", hard)
    assert solver.analyses([(p, ["N"]) for p in positions], partial=True, share=0.5) == [None] * count
    assert sorted(shares) == list(range(count))
    for share in shares.values():
        assert share == pytest.approx(2 * 0.5 * at_once / count, abs=0.1)


@pytest.mark.parametrize("threads", [1, 2])
def test_done_follows_each_answer_in_either_round(threads: int) -> None:
    """Once a position, answered or given up, with the answer the call returns for it, with or
    without a share of the time (a position asked again in the second round counts once, with
    its final answer): a progress display's count, and what a stopped call had answered."""
    questions = [(Position.start(Deal.random(79)), ["N"]), *[(p, None) for p in endgames({}, 3, "done")]]
    for share in (0, 0.3):
        told: list[tuple[int, Analysis | None]] = []
        got = Solver(table_mb=16, time_limit=1, threads=threads).analyses(
            questions, partial=True, share=share, done=lambda i, a: told.append((i, a)))
        assert got[0] is None and len(told) == len(questions)
        assert {i: id(a) for i, a in told} == {i: id(a) for i, a in enumerate(got)}
    told = []
    got = Solver(table_mb=16, threads=threads).analyses(questions[1:],
                                                      done=lambda i, a: told.append((i, a)))
    assert sorted((i, id(a)) for i, a in told) == [(i, id(a)) for i, a in enumerate(got)]


def test_the_better_of_two_rounds_answers() -> None:
    assert _tighter(Bounds(3, None), Bounds(None, 9)) == Bounds(3, 9)
    assert _tighter(Bounds(4, 10), Bounds(3, 8)) == Bounds(4, 8)
    assert _tighter(Bounds(4, None), Bounds(None, None)) == Bounds(4, None)
    assert _tighter(None, 5) == _tighter(5, None) == 5


@pytest.mark.parametrize("cancel_at", [0.3, 2.5])
def test_a_call_cancelled_in_either_round_ends_at_once(cancel_at: float) -> None:
    """Four hard questions on two threads, a first round of 2 s (1 s each): cancelled in it, or
    in the second round, the call ends within a few hundredths of a second. Measured as the
    process's CPU time from the cancel on, which a loaded machine does not stretch (it did the
    wall-clock time from the start, with the timer's thread late and ours slow to end): a cancel
    ignored would search on to the call's end, 1.5 s and more on each of two threads."""
    questions = [(Position.start(Deal.random(seed)), Seat.N) for seed in (79, 43, 2, 3)]
    solver = Solver(table_mb=16, time_limit=4, threads=2)
    cancelled: list[float] = []

    def cancel() -> None:
        cancelled.append(time.process_time())
        solver.cancel()

    timer = threading.Timer(cancel_at, cancel)
    timer.start()
    assert solver.guarantees(questions, partial=True, share=0.5) == [None] * 4
    ended = time.process_time()
    timer.join()
    assert cancelled and cancelled[0] <= ended, "the cancel came after the call's end"
    assert ended - cancelled[0] < 0.3, "the call went on searching after its cancel"


@pytest.mark.parametrize("kwargs, message", [
    ({"share": 0.5}, "needs partial answers"),
    ({"share": 0.5, "partial": True, "each": True}, "time limit of its own"),
    ({"share": 1, "partial": True}, "1 is out of range (0 to below 1)"),
    ({"share": -0.1, "partial": True}, "out of range"),
    ({"share": float("nan"), "partial": True}, "expected a number"),
    ({"share": True, "partial": True}, "expected a number"),
    ({"share": "half", "partial": True}, "expected a number"),
])
def test_share_refuses_what_it_cannot_do(kwargs: dict, message: str) -> None:
    with pytest.raises(HeartsError, match=re.escape(message)):
        Solver(table_mb=1).analyses([(Position.start(SAMPLE), None)], **kwargs)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_time_limit_for_each_position_or_for_the_whole_call(threads: int) -> None:
    """With ``each``, a position after one that ran out of time still gets the whole limit;
    without it, the limit is the call's and is spent."""
    full = Position.start(SAMPLE)
    small = endgames({}, 2, "each", cards=(8, 12))
    questions = [(full, None), (small[0], None), (full, None), (small[1], None)]
    solver = Solver(table_mb=16, time_limit=0.05, threads=threads)
    each = solver.analyses(questions, partial=True, each=True)
    assert [a is None for a in each] == [True, False, True, False]
    assert answers_for(each[3]) == answers(Solver(table_mb=16), small[1])  # type: ignore[arg-type]
    assert solver.analyses(questions, partial=True)[3] is None


def test_a_list_of_positions_goes_to_the_threads_only_far_from_the_end(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The solver's threads analyse whole positions from PARALLEL_LIST_FROM_CARDS cards left;
    nearer the end the caller's thread answers them all (handing them over would cost more)."""
    for cards, pooled in ((16, False), (24, True)):
        positions = endgames({}, 6, f"list {cards}", cards=(cards, cards))
        solver = Solver(table_mb=16, threads=2)
        threads: set[str] = set()
        analyze_one = solver._analyze

        def recorded(*args, **kwargs) -> Analysis:
            threads.add(threading.current_thread().name.split("_")[0])
            return analyze_one(*args, **kwargs)

        monkeypatch.setattr(solver, "_analyze", recorded)
        got = solver.analyses([(pos, [pos.to_move]) for pos in positions])
        assert [answers_for(a) for a in got] == [answers_for(Solver(table_mb=16).analyze(
            pos, [pos.to_move])) for pos in positions]
        assert threads == ({"hearts-dd"} if pooled else {threading.current_thread().name})


@pytest.mark.usefixtures("parallel_at_any_size")
def test_the_four_leaders_of_a_bridge_deal_at_once() -> None:
    deal = small_deal(random.Random(5), 7)
    leaders = [(Position.start(deal, Rules.parse("bridge"), leader), leader) for leader in Seat]
    expected = [Solver(table_mb=16).guarantee(p, leader) for p, leader in leaders]
    assert Solver(table_mb=16, threads=2).guarantees(leaders) == expected
    with pytest.raises(SearchAborted):
        Solver(time_limit=0.001, threads=2).guarantees([(Position.start(SAMPLE), s) for s in Seat])


def test_a_call_cut_short_names_the_question() -> None:
    """Without ``partial``, the question the limits cut short ends the call and is named."""
    easy = small_deal(random.Random(5), 3)
    questions = [(Position.start(easy), Seat.N), (Position.start(easy), Seat.E),
                 (Position.start(SAMPLE), Seat.N), (Position.start(easy), Seat.S)]
    with pytest.raises(SearchAborted, match=r"\(question 3 of 4\)$") as cut:
        Solver(table_mb=16, node_limit=2000).guarantees(questions)
    assert cut.value.question == 2


def test_a_second_thread_works_only_far_from_the_end() -> None:
    """Near the end a question takes less time than handing it to another thread: a
    two-thread solver answers there on one engine, and from PARALLEL_FROM_CARDS on both."""
    def others_work(solver: Solver) -> int:
        """Nodes searched by engines other than the busiest, as main searches or helpers."""
        return sum(sorted(e.nodes for e in solver.engines)[:-1]) + solver.helper_nodes

    near = Solver(table_mb=16, threads=2)
    for pos in endgames({}, 4, "near", cards=(8, 20)):
        assert answers(near, pos) == answers(Solver(table_mb=16), pos)
    assert others_work(near) == 0
    far = Solver(table_mb=16, threads=2)
    for pos in endgames({}, 2, "far", cards=(32, 32)):
        assert answers(far, pos) == answers(Solver(table_mb=16), pos)
    assert others_work(far) > 0


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="needs signal.pthread_kill")
def test_ctrl_c_interrupts_a_search_and_the_next_question_runs() -> None:
    """SIGINT during a long search raises KeyboardInterrupt soon after, not when the search
    would have ended; a caller that catches it can go on asking.

    Python's own handler is set again first, as code that swaps in a handler of its own and
    then restores Python's does: that unhooks the search's handler, which each question
    hooks again (else the search would run on to its end, seconds later)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        solver = Solver(table_mb=16)
        assert threading.main_thread().ident == threading.get_ident()
        assert _interrupted(solver) < 5
        small = endgames({}, 1, "after ctrl-c")[0]
        assert answers(solver, small) == answers(Solver(table_mb=16), small)
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")  # (3.12+: the point)
def test_a_two_thread_solver_still_answers_in_a_forked_child() -> None:
    """A fork copies the solver but not its pool's threads: the child must start its own
    (it used to wait for threads that were not there)."""
    pos = endgames({}, 1, "fork", cards=(32, 32))[0]
    solver = Solver(table_mb=16, threads=2)
    _child_answers(solver, pos, answers(solver, pos), clear=True)


def _child_answers(solver: Solver, pos: Position, expected: dict, clear: bool = False) -> None:
    """Fork, and in the child ask ``solver`` (cleared first if ``clear``) about ``pos``: the
    child must give ``expected`` within a minute."""
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only with the expected answers
        ok = False
        try:
            if clear:
                solver.clear()
            ok = answers(solver, pos) == expected
        finally:
            os._exit(0 if ok else 1)
    deadline = time.monotonic() + 60
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    if done[0] == 0:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked child's solver did not answer within 60 s")
    assert os.waitstatus_to_exitcode(done[1]) == 0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")  # (3.12+: the point)
@pytest.mark.parametrize("threads", [1, 2])
def test_a_child_forked_while_another_thread_searches_gets_the_solver_anew(threads: int) -> None:
    """The searching thread is not in the child, nor are the engines it had borrowed: the
    child once waited for them for ever."""
    pos = endgames({}, 1, "fork mid-search", cards=(24, 24))[0]
    expected = answers(Solver(table_mb=16), pos)
    solver = Solver(table_mb=16, threads=threads)
    busy = threading.Event()

    def search() -> None:
        hard = Position.start(Deal.random(2))   # many seconds: in its call when we fork
        busy.set()
        try:
            solver.guarantee(hard, Seat.N)
        except SearchAborted:
            pass

    searcher = threading.Thread(target=search)
    solver.time_limit = 3
    searcher.start()
    busy.wait()
    time.sleep(0.3)
    pid = _fork_asking(solver, pos, expected)
    try:
        assert _exit_code(pid) == 0
    finally:
        searcher.join()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")  # (3.12+: the point)
def test_a_child_forked_as_another_thread_enters_a_call_gets_the_solver_anew() -> None:
    """A call takes the solver's lock, then says whose call it is: a child forked in between
    (or as a call ends, in the other order) found the lock taken for ever."""
    pos = endgames({}, 1, "fork on entry")[0]
    solver = Solver(table_mb=16)
    expected = answers(solver, pos)
    taken, forked = threading.Event(), threading.Event()

    def entering() -> None:
        with solver._calls:     # as a call does, before it names its thread
            taken.set()
            forked.wait(60)

    other = threading.Thread(target=entering)
    other.start()
    taken.wait(60)
    pid = _fork_asking(solver, pos, expected)
    forked.set()
    try:
        assert _exit_code(pid) == 0
    finally:
        other.join()


def _fork_asking(solver: Solver, pos: Position, expected: tuple) -> int:
    """Fork a child that asks ``solver`` about ``pos`` without a time limit, and exits 0 when
    it gets ``expected`` (killed after 60 s: a child that waits for ever); the child's pid."""
    pid = os.fork()
    if pid == 0:
        ok = False
        try:
            signal.alarm(60)
            solver.time_limit = 0
            ok = answers(solver, pos) == expected
        finally:
            os._exit(0 if ok else 1)
    return pid


def _exit_code(pid: int) -> int:
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _script(text: str) -> subprocess.CompletedProcess:
    """``text`` run by another Python (in this one's environment), its output captured."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(text)], capture_output=True,
                          text=True, timeout=120,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


_HALFWAY = """
    import threading, time
    from solver.analysis import Solver
    from solver.deal import Deal
    from solver.position import Position

    def halfway(seed):          # 28 cards left: questions the solver's threads share out
        p = Position.start(Deal.random(seed))
        for _ in range(24):
            p = p.play(p.legal_moves()[0])
        return [(p, "N")]
    questions = halfway(1) + halfway(2)
"""


def test_a_program_exits_while_a_daemon_thread_is_in_a_parallel_call() -> None:
    """The solver's threads were a ThreadPoolExecutor's, which the interpreter waits for at
    exit: a program ending with a search under way in a daemon thread hung until it was over
    (here a ``done`` that never returns stands for a search of minutes)."""
    run = _script(_HALFWAY + """
    solver = Solver(table_mb=16, threads=2)
    started = threading.Event()

    def endless(i, answer):
        started.set()
        time.sleep(3600)

    threading.Thread(target=solver.analyses, args=(questions,), kwargs={"done": endless},
                     daemon=True).start()
    assert started.wait(60)
    print("main thread over")
    """)
    assert (run.returncode, run.stdout) == (0, "main thread over\n"), run.stderr


def test_a_thread_solving_after_the_main_thread_ended_still_gets_answers() -> None:
    """A ThreadPoolExecutor takes no work once the main thread has ended: a program whose
    threads go on solving after it got RuntimeError from every parallel call."""
    run = _script(_HALFWAY + """
    expected = [Solver(table_mb=16).guarantee(p, s) for p, s in questions]
    solver = Solver(table_mb=16, threads=2)

    def later():
        while threading.main_thread().is_alive():
            time.sleep(0.01)
        solver.clear()
        print(solver.guarantees(questions) == expected)

    threading.Thread(target=later).start()
    """)
    assert (run.returncode, run.stdout) == (0, "True\n"), run.stderr


@pytest.mark.parametrize("threads, made", [(1, 0), (2, 0), (2, 1)])
def test_a_solver_whose_new_tables_could_not_be_allocated_answers_under_its_old_rules(
        monkeypatch: pytest.MonkeyPatch, threads: int, made: int) -> None:
    """A MemoryError while making the engines of new rules (after ``made`` of them) left the
    solver without engines but still set up for its old rules: the next call under them found
    none, an IndexError, or with threads a wait for ever."""
    import solver.analysis
    omnibus, real = Rules.parse("omnibus"), solver.analysis.new_engine
    count = [0]

    def short_of_memory(rules: Rules, table_bytes: int) -> object:
        if rules == omnibus:
            count[0] += 1
            if count[0] > made:
                raise MemoryError("cannot allocate a transposition table")
        return real(rules, table_bytes)

    monkeypatch.setattr(solver.analysis, "new_engine", short_of_memory)
    pos = endgames({}, 1, "short of memory")[0]
    expected = answers(Solver(table_mb=16), pos)
    ours = Solver(table_mb=16, threads=threads)
    assert answers(ours, pos) == expected
    with pytest.raises(MemoryError):
        ours.guarantee(Position.start(SAMPLE, omnibus), Seat.N)
    got: list[tuple] = []
    again = threading.Thread(target=lambda: got.append(answers(ours, pos)), daemon=True)
    again.start()
    again.join(60)
    assert got == [expected]


def test_a_solver_dropped_after_a_parallel_call_was_cut_short_frees_its_table_at_once() -> None:
    """The error of a parallel call was kept in a list that the frames of its traceback held:
    the cycle kept the solver and its table (224 MB by default) until the garbage collector
    ran, and the tables of a solver made next, or of new rules, were allocated beside it."""
    solver = Solver(table_mb=16, threads=2, node_limit=10_000)
    gone = weakref.ref(solver)
    collecting = gc.isenabled()
    gc.disable()
    try:
        try:
            solver.analyze(Position.start(Deal.random(43)))    # the seats on both threads
        except SearchAborted:
            pass
        else:
            pytest.fail("not cut short")
        del solver
        assert gone() is None
    finally:
        if collecting:
            gc.enable()


def test_an_error_in_one_question_of_a_parallel_call_stops_the_others_at_once() -> None:
    """A watch function that failed on E's question ended ``analyze`` only once N's search, on
    the other thread, was over: four minutes for this deal, all for an answer it dropped."""
    def failing(question: str, low: int | None, high: int | None) -> None:
        if question == "E":
            raise ValueError("a watch function's own bug")

    solver = Solver(table_mb=16, threads=2)
    start = time.monotonic()
    with pytest.raises(ValueError, match="a watch function's own bug"):
        solver.analyze(Position.start(Deal.random(43)), watch=failing)
    assert time.monotonic() - start < 20
    pos = endgames({}, 1, "after a failed parallel call", cards=(24, 28))[0]
    assert answers(solver, pos) == answers(Solver(table_mb=16), pos)


def moon_total_pair() -> tuple[Position, Position]:
    """Two one-trick deals of moon totals 4 and 17 (the second holds the queen), N on lead:
    N shoots either way, and E's guarantee is the total."""
    rules = Rules.parse({"first_lead": "free"})
    hearts = Position.start(Deal.parse("N:A.A.. 2.2.. 3.3.. 4.4.."), rules, "N")
    queen = Position.start(Deal.parse("N:A.A.. Q.2.. 3.3.. 4.4.."), rules, "N")
    assert (hearts.moon_total, queen.moon_total) == (4, 17)
    return hearts, queen


@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_as_engines_take_a_new_moon_total_leaves_none_with_it(monkeypatch, threads) -> None:
    """A Ctrl-C during the table's clear for a new moon total raises KeyboardInterrupt once the
    engine has the total but before the solver notes it: the solver still thought its engines
    had the old one, and the next question under it was answered with the new (E's guarantee
    17, the moon total of the interrupted question, for 4)."""
    armed = [False]

    class Interrupted(Engine):
        def set_moon_total(self, total: int) -> None:
            super().set_moon_total(total)
            if armed[0]:
                armed[0] = False
                raise KeyboardInterrupt     # as the pending signal is raised on return

    monkeypatch.setattr(analysis, "new_engine", lambda rules, size: Interrupted(
        list(rules.values), analysis._MOON_MODES[rules.moon], rules.trick_points,
        rules.partnership, analysis._BREAK[rules.hearts_break], rules.first_trick_points,
        int(Card.parse("SQ")), size))
    hearts, queen = moon_total_pair()
    solver = Solver(table_mb=1, threads=threads)
    assert solver.guarantee(hearts, Seat.E) == 4     # N shoots: E gets the moon total
    armed[0] = True
    with pytest.raises(KeyboardInterrupt):
        solver.guarantee(queen, Seat.E)
    assert solver.guarantee(hearts, Seat.E) == 4
    assert solver.guarantee(queen, Seat.E) == 17


def test_ctrl_c_that_leaves_the_free_engines_queue_locked_does_not_hang_the_next_call() -> None:
    """A Ctrl-C landing as the main thread takes an engine from the queue of idle ones (a
    KeyboardInterrupt raised in the queue's Condition.__enter__, just after it took the lock)
    leaves the queue's lock held: the next call of the two-thread solver waited for it for
    ever (found by SIGALRM, watched, at random moments of many small calls)."""
    pos = endgames({}, 1, "after a leaked queue lock", cards=(20, 24))[0]
    want = Solver(table_mb=1).guarantee(pos, Seat.N)
    solver = Solver(table_mb=1, threads=2)
    solver.guarantee(pos, Seat.N)
    solver._free.mutex.acquire()    # as the interrupted __enter__ leaves it
    answer: list[int] = []
    caller = threading.Thread(target=lambda: answer.append(solver.guarantee(pos, Seat.N)),
                              daemon=True)
    caller.start()
    caller.join(20)
    assert answer == [want], "the call after the leaked lock hung"


def test_ctrl_c_as_the_engines_of_new_rules_are_made_leaves_the_solver_with_none(monkeypatch) -> None:
    """A Ctrl-C in the idle queue's constructor (Python) while engines for new rules were
    made left the old rules noted, the old engines in the old queue and the list of engines
    empty: back under the old rules, a new moon total reached no engine (E's guarantee 4, the
    old total, for 17)."""
    armed = [False]
    real = analysis.queue.LifoQueue

    class Interrupted(real):
        def __init__(self) -> None:
            if armed[0]:
                armed[0] = False
                raise KeyboardInterrupt
            super().__init__()

    monkeypatch.setattr(analysis.queue, "LifoQueue", Interrupted)
    hearts, queen = moon_total_pair()
    other = Position.start(hearts.deal, Rules.parse({"first_lead": "free", "moon": "none"}), "N")
    solver = Solver(table_mb=1, threads=2)
    assert solver.guarantee(hearts, Seat.E) == 4
    armed[0] = True
    with pytest.raises(KeyboardInterrupt):
        solver.guarantee(other, Seat.E)
    assert solver.guarantee(queen, Seat.E) == 17


def test_an_engine_whose_taking_a_ctrl_c_cut_off_is_not_given_back_again_later() -> None:
    """A Ctrl-C between ``_engine``'s taking of an engine and the with block's start leaves
    its generator to the garbage collector, which closes it at any later moment: after the
    next call had put every engine back, it gave that one back again (two threads could take
    it) and took its lender while it searched for another question."""
    pos = endgames({}, 1, "an abandoned engine", cards=(20, 24))[0]
    want = Solver(table_mb=1).guarantee(pos, Seat.N)
    solver = Solver(table_mb=1, threads=2)
    solver.guarantee(pos, Seat.N)
    abandoned = solver._engine(pos)
    taken = abandoned.__enter__()       # (and no __exit__, as the interrupted with leaves it)
    assert solver.guarantee(pos, Seat.N) == want
    del abandoned
    gc.collect()
    idle = list(solver._free.queue)
    assert len(idle) == len({id(e) for e in idle}) == len(solver._engines), "given back twice"
    assert any(e is taken for e in idle)
    assert solver.guarantee(pos, Seat.N) == want


def test_a_two_thread_solver_keeps_both_engines_after_ctrl_c() -> None:
    """KeyboardInterrupt is raised wherever the main thread is when its search returns: often
    as it gave back the engine it had lent its search as a helper, which was lost. The solver
    went on with one engine, for good: no helper, no two questions at once."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    watch_signal(signal.SIGINT)
    try:
        solver = Solver(table_mb=16, threads=2)
        for _ in range(3):
            _interrupted(solver)
            pos = endgames({}, 1, "after ctrl-c, two engines")[0]
            assert answers(solver, pos) == answers(Solver(table_mb=16), pos)
            assert solver._free.qsize() == 2
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupted(solver: Solver) -> float:
    """Ask ``solver`` a question of many seconds (N's guarantee in seed 2) and press Ctrl-C
    0.3 s into it; the seconds until KeyboardInterrupt came."""
    hard = Position.start(Deal.random(2))
    timer = threading.Timer(0.3, signal.pthread_kill, (threading.get_ident(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            solver.guarantee(hard, Seat.N)
    finally:
        timer.cancel()
    return time.monotonic() - start


def test_a_watched_signal_s_own_handler_runs_at_once_not_when_the_search_ends() -> None:
    """A program's handler of its own (here SIGUSR1's) ran only once a search ended, seconds
    later; watched (``watch_signal``), the signal stops the search as Ctrl-C does, and the
    handler runs then."""
    ran: list[float] = []

    def handler(signum: int, frame: object) -> None:
        ran.append(time.monotonic())
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGUSR1, handler)
    try:
        watch_signal(signal.SIGUSR1)
        hard = Position.start(Deal.random(2))   # N's guarantee takes many seconds
        timer = threading.Timer(0.3, signal.pthread_kill,
                                (threading.main_thread().ident, signal.SIGUSR1))
        start = time.monotonic()
        timer.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                Solver(table_mb=16).guarantee(hard, Seat.N)
        finally:
            timer.cancel()
        assert len(ran) == 1 and ran[0] - start < 3
    finally:
        signal.signal(signal.SIGUSR1, previous)


def test_a_signal_without_a_python_handler_cannot_be_watched() -> None:
    """Watched first and handled after, a signal stopped nothing, and said nothing either."""
    previous = signal.signal(signal.SIGUSR2, signal.SIG_DFL)
    try:
        with pytest.raises(HeartsError, match="watch_signal: SIGUSR2 has no Python handler to run: "
                                              "install one"):
            watch_signal(signal.SIGUSR2)
    finally:
        signal.signal(signal.SIGUSR2, previous)
    for bad in (0, 999, "SIGTERM"):
        with pytest.raises(HeartsError, match=f"watch_signal: {bad!r} is not a signal"):
            watch_signal(bad)  # type: ignore[arg-type]


def test_ctrl_c_during_a_parallel_call_stops_its_threads_before_it_returns() -> None:
    """The threads of a parallel ``analyses`` went on with their questions after Ctrl-C had
    ended the call, into the next one, which found no idle engine to help its search."""
    solver = Solver(table_mb=16, threads=2)
    _ctrl_c_in_a_parallel_call(solver, 0.5)
    assert solver._waiting == 0 and solver._lend() is not None
    pos = endgames({}, 1, "after a parallel ctrl-c")[0]
    assert answers(solver, pos) == answers(Solver(table_mb=16), pos)


def _ctrl_c_in_a_parallel_call(solver: Solver, after: float) -> None:
    """Ctrl-C ``after`` seconds into a parallel ``analyses`` of four whole deals."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    watch_signal(signal.SIGINT)    # as at import, where the test runner might have ignored it
    try:
        many = [(Position.start(Deal.random(seed)), None) for seed in (2, 4, 11, 43)]
        timer = threading.Timer(after, signal.pthread_kill, (threading.get_ident(), signal.SIGINT))
        timer.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                solver.analyses(many, partial=True)
        finally:
            timer.cancel()
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("ask", [
    lambda solver, pos: solver.guarantee(pos, Seat.N),
    lambda solver, pos: solver.analyses([(pos, ["N"])], partial=True),
], ids=["guarantee", "partial"])
def test_a_search_in_another_thread_stopped_by_ctrl_c_says_so(ask: Callable) -> None:
    """Only the main thread gets KeyboardInterrupt; a search elsewhere once said its budget
    was spent, where it had none, and with ``partial`` answered None, which is for questions
    the limits cut short."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    watch_signal(signal.SIGINT)
    stopped: list[BaseException] = []
    over = threading.Event()

    def search() -> None:
        try:
            ask(Solver(table_mb=16), Position.start(Deal.random(2)))
        except SearchAborted as e:
            stopped.append(e)
        finally:
            over.set()

    try:
        threading.Thread(target=search).start()
        timer = threading.Timer(0.3, signal.pthread_kill, (threading.get_ident(), signal.SIGINT))
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            while not over.is_set():
                time.sleep(0.05)    # (an interrupted Thread.join can leave the thread as if over)
        assert over.wait(10) and [str(e) for e in stopped] == ["search interrupted"]
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_ctrl_c_is_not_erased_by_another_threads_questions() -> None:
    """Each question once cleared the process's Ctrl-C flag as it began: a thread asking small
    questions all the time erased the Ctrl-C before the main thread's long search saw it."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    small = endgames({}, 1, "busy neighbour")[0]
    done = threading.Event()

    def neighbour() -> None:
        solver = Solver(table_mb=16)
        while not done.is_set():
            with contextlib.suppress(SearchAborted):
                solver.guarantee(small, Seat.N)

    busy = threading.Thread(target=neighbour)
    busy.start()
    try:
        timer = threading.Timer(0.3, signal.pthread_kill, (threading.get_ident(), signal.SIGINT))
        start = time.monotonic()
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            Solver(table_mb=16).guarantee(Position.start(Deal.random(2)), Seat.N)
        assert time.monotonic() - start < 5
    finally:
        done.set()
        busy.join()
        signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("threads", [1, 2])
def test_cancel_stops_the_call_in_progress_from_another_thread(threads: int) -> None:
    """A player's clock thread stops a long call: SearchAborted at once, or with ``partial``
    None for what was not finished; the solver then answers the next call in full."""
    solver = Solver(table_mb=16, threads=threads)
    hard = Position.start(Deal.random(2))  # N's guarantee takes many seconds
    small = endgames({}, 2, "cancel")
    solver.cancel()                        # between calls: no effect on the next one
    assert answers(solver, small[0]) == answers(Solver(table_mb=16), small[0])
    start = time.monotonic()
    threading.Timer(0.3, solver.cancel).start()
    with pytest.raises(SearchAborted, match="search cancelled"):
        solver.guarantee(hard, Seat.N)
    assert time.monotonic() - start < 5
    threading.Timer(0.3, solver.cancel).start()
    got = solver.analyses([(small[0], None), (hard, ["N"]), (small[1], None)], partial=True)
    assert got[1] is None and got[0] is not None and answers_for(got[0]) == answers(Solver(table_mb=16), small[0])
    assert answers(solver, small[1]) == answers(Solver(table_mb=16), small[1])


def test_partners_share_their_answers() -> None:
    solver = Solver(table_mb=16)
    for pos in endgames({"partnership": True}, 6, "partners"):
        result = solver.analyze(pos)
        assert result.players[Seat.N] == result.players[Seat.S]
        assert result.players[Seat.E] == result.players[Seat.W]


@pytest.mark.usefixtures("parallel_at_any_size")
def test_answers_do_not_depend_on_earlier_questions_or_threads() -> None:
    """One solver switching rule sets back and forth, and two threads, answer as fresh ones."""
    specs = [{}, {"preset": "spot", "moon": "subtract"}, {"partnership": True, "trick_points": 2}]
    cases = [(spec, pos) for i, spec in enumerate(specs) for pos in endgames(spec, 4, f"reuse{i}")]
    shared = Solver(table_mb=16)
    threaded = Solver(table_mb=16, threads=2)
    for spec, pos in cases + cases[::-1]:
        expected = answers(Solver(table_mb=16), pos)
        assert answers(shared, pos) == expected, spec
        assert answers(threaded, pos) == expected, spec


@pytest.mark.parametrize("name", RULE_SETS)
def test_a_table_shared_by_a_position_and_its_children_answers_as_a_cleared_one(name: str) -> None:
    """Siblings differ in a card or two, so their table entries are the ones most likely to
    match each other's positions: an entry relying on too few cards shows up as a sibling's
    answer that a cleared table does not give (as one did, through a run of equal cards
    reused from a sibling, 2026-12-05)."""
    rng = random.Random(f"shared table/{name}")
    shared, cleared = Solver(table_mb=16), Solver(table_mb=16)
    for pos in endgames(RULE_SETS[name], 40, f"shared table/{name}"):
        family = [pos] + [pos.play(c) for c in pos.legal_moves()]
        family += [child.play(rng.choice(child.legal_moves())) for child in family[1:]
                   if not child.is_over]
        rng.shuffle(family)
        for q in family:
            if q.is_over:
                continue
            for seat in rng.sample(list(Seat), 2):
                cleared.clear()
                assert shared.guarantee(q, seat) == cleared.guarantee(q, seat), \
                    f"{seat}: --deal \"{q.deal.pbn()}\" --play \"{' '.join(map(str, q.played))}\""


def test_a_cleared_solver_searches_node_for_node_as_a_fresh_one() -> None:
    """``clear`` forgets the tables and the move-ordering history, ``prepare`` maps the memory:
    after either, a solve repeats a fresh solver's search exactly (the benchmarks rely on it)."""
    positions = endgames({}, 6, "clear", cards=(24, 32))
    reused = Solver(table_mb=16)
    reused.prepare(positions[0].rules)
    for pos in positions + positions[::-1]:
        fresh = Solver(table_mb=16)
        expected = fresh.guarantee(pos, Seat.N)
        reused.clear()
        before, tricks_before = reused.nodes, reused.trick_nodes
        assert reused.guarantee(pos, Seat.N) == expected
        assert reused.nodes - before == fresh.nodes
        assert reused.trick_nodes - tricks_before == fresh.trick_nodes


MOON_CUT_SPECS: tuple[dict, ...] = ({}, {"moon": "subtract"}, {"partnership": True})


@functools.cache
def moon_cut_positions(i: int) -> list[Position]:
    return endgames(MOON_CUT_SPECS[i], 4, f"moon-cut{i}", cards=(32, 40))


@functools.cache
def default_guarantees(i: int, k: int) -> dict[Seat, int]:
    """A default solver's answers, the reference both cuts below are held to: found once."""
    default = Solver(table_mb=16)
    return {seat: default.guarantee(moon_cut_positions(i)[k], seat) for seat in Seat}


@pytest.mark.parametrize("proof_cut", [0, 1])
def test_passes_cut_short_for_the_moon_search_keep_the_answer(proof_cut: int) -> None:
    """While the root's search for another side's moon is unsettled, a pass that outgrows its
    budget stops for the search's retry and then runs again from the table (Engine.value).
    With a first budget of one node (limits are checked every 1024 nodes) passes are cut short
    all the time, and every answer must still be a default solver's; ``proof_cut`` 1 cuts the
    full pass after a failed narrowed one too."""
    cuts = 0
    for i, spec in enumerate(MOON_CUT_SPECS):
        for k, pos in enumerate(moon_cut_positions(i)):
            cut = Solver(table_mb=16)
            cut.prepare(pos.rules)
            for e in cut.engines:
                e.moon_nodes = 1
                e.proof_cut = proof_cut
            for seat in Seat:
                assert cut.guarantee(pos, seat) == default_guarantees(i, k)[seat], (spec, seat)
            cuts += sum(e.moon_cuts for e in cut.engines)
    assert cuts >= 10


def test_trick_nodes_count_the_positions_at_trick_boundaries() -> None:
    """DDS counts only the positions at trick boundaries; ``trick_nodes`` counts the same
    (``benchmarks/nodes.py --dds`` sets the two side by side): some of the nodes, not all."""
    s = Solver(table_mb=1)
    for pos in endgames({}, 6, "tricks", cards=(8, 20)):
        before, tricks_before = s.nodes, s.trick_nodes
        s.guarantee(pos, Seat.N)
        # a position the bounds settle at once is a boundary node and nothing more
        assert 0 < s.trick_nodes - tricks_before <= s.nodes - before
    assert s.trick_nodes < s.nodes


def test_node_and_time_limits_abort_the_search() -> None:
    start = Position.start(SAMPLE)
    with pytest.raises(SearchAborted):
        Solver(node_limit=1000).guarantee(start, Seat.N)
    with pytest.raises(SearchAborted):
        Solver(time_limit=0.01).analyze(start)


@pytest.mark.parametrize("spec", [{}, {"partnership": True, "moon": "none"}, {"preset": "bridge"}])
def test_a_search_cut_short_reports_bounds_that_hold(spec: dict) -> None:
    """What the finished passes proved brackets the exact answer, for either side of a
    constant-sum game too (side 1's bounds are side 0's turned round)."""
    exact = Solver(table_mb=16)
    bounded = 0
    for pos in endgames(spec, 10, f"bounds {spec}", cards=(28, 40)):
        for seat in (Seat.N, Seat.E):
            value = exact.guarantee(pos, seat)
            who = "/".join(str(s) for s in Seat if pos.side(s) == pos.side(seat))
            for limit in (3_000, 30_000):
                try:
                    assert Solver(table_mb=16, node_limit=limit).guarantee(pos, seat) == value
                except SearchAborted as e:
                    assert e.who == who
                    assert e.low is None or e.low <= value
                    assert e.high is None or value <= e.high
                    bounded += e.low is not None or e.high is not None
    assert bounded > 0


@pytest.mark.usefixtures("parallel_at_any_size")
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("spec", [{}, {"moon": "subtract", "values": {"DJ": -10}},
                                  {"partnership": True, "moon": "none"}, {"preset": "bridge"}])
def test_a_watch_sees_bounds_that_close_in_on_each_answer(spec: dict, threads: int) -> None:
    """Each question's bounds, as the passes prove them, only tighten, always bracket the
    answer, and end at it: the seats' and each card's (a side's seats named together with
    partnerships, whose side 1 has side 0's bounds turned round)."""
    intermediate = 0
    for pos in endgames(spec, 6, f"watch {spec}", cards=(28, 40)):
        seen: dict[str, list[tuple[int | None, int | None]]] = {}
        lock = threading.Lock()

        def watch(question: str, low: int | None, high: int | None) -> None:
            with lock:
                seen.setdefault(question, []).append((low, high))

        a = Solver(table_mb=16, threads=threads).analyze(pos, watch=watch)
        finals = {"/".join(str(s) for s in pos.side_seats(pos.side(seat))): r.guarantee
                  for seat, r in a.players.items()}
        rows = {str(m.card): m.guarantee for m in a.moves}
        groups = Solver().move_groups(pos)
        assert set(seen) == set(finals) | ({str(rep) for rep, _ in groups} if len(groups) > 1
                                           else set())
        asked = Solver().questions(pos)         # what a progress display expects
        assert sorted(seen) == sorted(asked.sides + asked.cards)
        for question, bounds in seen.items():
            value = finals.get(question, rows.get(question))
            assert bounds[-1] == (value, value), question
            lows = [lo for lo, _ in bounds if lo is not None]
            highs = [hi for _, hi in bounds if hi is not None]
            assert lows == sorted(lows) and highs == sorted(highs, reverse=True), question
            assert all(lo <= value for lo in lows) and all(value <= hi for hi in highs), question
            intermediate += len(bounds) > 1
    assert intermediate > 0


def test_seats_are_read_alike_by_analyze_analyses_and_questions() -> None:
    """One seat, several, none or all: the same for each call (``analyses`` took no Seat, and
    ``questions`` read no seats as all four)."""
    p = Position.start(Deal.parse("N:A.2.A.3 K.3.K.2 Q.4.Q.4 J.5.J.5"), {"first_lead": "free"}, "N")
    solver = Solver(table_mb=16)
    for seats in (Seat.E, "N", ["N", Seat.S], [], None):
        one, [many] = solver.analyze(p, seats), solver.analyses([(p, seats)])
        asked = solver.questions(p, seats)
        assert one.players == many.players and one.moves == many.moves
        assert sorted(asked.sides) == sorted({p.side_name(p.side(s)) for s in one.players})
        assert bool(asked.cards) == bool(one.moves)


def test_the_line_is_legal_and_names_its_seats() -> None:
    solver = Solver(table_mb=16)
    for pos in endgames({"preset": "black-maria"}, 4, "line"):
        line = solver.line(pos, Seat.W)
        for step in line:
            assert step.seat == pos.to_move and step.card in pos.legal_moves()
            pos = pos.play(step.card)
        assert pos.is_over and isinstance(line[0].card, Card)


def test_the_rule_codes_the_solver_passes_are_the_engine_s() -> None:
    """``new_engine`` passes the moon mode and hearts break as ``_MOON_MODES`` and ``_BREAK``
    number them; the engine reads them as ``_state.pxd``'s MOON_* and BREAK_* (kept equal by
    hand: a drift would solve every position under other rules)."""
    pxd = (Path(analysis.__file__).parent / "_state.pxd").read_text()
    codes = {name: int(value) for name, value in
             re.findall(r"^\s+((?:MOON|BREAK)_[A-Z]+) = (\d+)\b", pxd, re.MULTILINE)}
    assert set(analysis._MOON_MODES) == set(MOON_MODES) and set(analysis._BREAK) == set(HEARTS_BREAK)
    for prefix, modes in (("MOON_", analysis._MOON_MODES), ("BREAK_", analysis._BREAK)):
        for mode, code in modes.items():
            assert codes.get(prefix + mode.upper()) == code, (prefix + mode.upper(), code)


def test_an_analysis_with_a_line_runs_before_line_between_the_two() -> None:
    """``before_line`` is where a front end's one time limit gives the line what is left."""
    solver = Solver(table_mb=16)
    pos = endgames({"preset": "black-maria"}, 1, "line")[0]
    calls: list[str] = []
    alone = analyze_with_line(solver, pos, before_line=lambda: calls.append("before"))
    assert (alone.target, alone.line, calls) == (None, None, [])      # no line asked: no call
    got = analyze_with_line(solver, pos, ["W"], "W", watch=lambda *q: calls.append("watch"),
                            before_line=lambda: calls.append("before"))
    assert calls[-1] == "before" and calls[:-1] and set(calls[:-1]) == {"watch"}
    assert got.target == Seat.W and got.line == solver.line(pos, "W")
    assert got.analysis.players == solver.analyze(pos, ["W"]).players


def test_a_budget_covers_many_calls() -> None:
    solver = Solver(table_mb=1)
    budget = Budget(solver, 0.05)
    with budget as s:
        assert s.time_limit <= 0.05
    assert solver.time_limit == 0.0                          # restored after each call
    time.sleep(0.06)
    with pytest.raises(SearchAborted):
        with budget:
            pass


def test_a_budget_limits_the_calls_of_its_own_thread_only():
    """A budget set the solver's limits for every thread: another thread's call, waiting for
    its turn, ran under them and was cut short though it had asked for no limit."""
    solver = Solver(table_mb=16)
    whole = Position.start(Deal.random(2))
    mid = whole.random_play(random.Random(1), 16)            # 9 tricks to go: about 0.1 s
    budget_set, asked = threading.Event(), threading.Event()
    cut: list[SearchAborted] = []

    def budgeted() -> None:
        with Budget(solver, 1e-3) as s:
            budget_set.set()
            asked.wait(60)
            try:
                s.guarantee(whole, "N")                      # a whole deal: far past 1 ms
            except SearchAborted as e:
                cut.append(e)

    other = threading.Thread(target=budgeted)
    other.start()
    assert budget_set.wait(60)
    assert solver.time_limit == 0.0
    time.sleep(2e-3)                                         # (the budget's time is up)
    try:
        value = solver.guarantee(mid, "N")
    finally:
        asked.set()
        other.join(60)
    assert value == Solver(table_mb=16).guarantee(mid, "N") and len(cut) == 1
    assert solver.time_limit == 0.0


def test_a_budget_entered_on_two_threads_restores_each_threads_own_limits():
    """Its saved limits were one stack for every thread: the thread leaving first restored the
    other's."""
    solver = Solver(table_mb=16)
    shared = Budget(solver, 100.0)
    entered, left = threading.Event(), threading.Event()
    after: list[tuple[float, int]] = []

    def other() -> None:
        solver.thread_limits = (42.0, 42)
        with shared:
            entered.set()
            left.wait(60)
        after.append((solver.time_limit, solver.node_limit))

    thread = threading.Thread(target=other)
    thread.start()
    with shared:
        assert entered.wait(60)
    left.set()
    thread.join(60)
    assert (solver.time_limit, solver.node_limit) == (0.0, 0) and after == [(42.0, 42)]


def test_a_budget_that_cannot_be_entered_changes_no_limit():
    solver = Solver(table_mb=16)
    with pytest.raises(HeartsError):
        with Budget(solver, 5.0, nodes=-1):
            pass
    assert (solver.time_limit, solver.node_limit) == (0.0, 0)


def test_a_thread_s_own_limits_hold_for_it_alone_and_are_checked_together() -> None:
    solver = Solver(table_mb=1, time_limit=5.0, node_limit=7)
    solver.thread_limits = (1.5, None)
    assert (solver.time_limit, solver.node_limit, solver.thread_limits) == (1.5, 7, (1.5, None))
    seen: list[tuple[float, int]] = []
    thread = threading.Thread(target=lambda: seen.append((solver.time_limit, solver.node_limit)))
    thread.start()
    thread.join(60)
    assert seen == [(5.0, 7)]
    with pytest.raises(HeartsError, match="node_limit"):
        solver.thread_limits = (2.0, -1)
    assert solver.thread_limits == (1.5, None)
    solver.thread_limits = (None, None)
    assert (solver.time_limit, solver.node_limit) == (5.0, 7)


def test_analyze_takes_one_seat_as_a_number_too_as_guarantee_does() -> None:
    """``analyze(p, 2)`` failed with TypeError ('int' object is not iterable), where
    ``guarantee(p, 2)`` answers for S."""
    p = Position.start(Deal.parse("N:A.K.. K.A.. .Q.3. ..2.2"))
    solver = Solver(table_mb=1)
    assert list(solver.analyze(p, 2).players) == list(solver.analyze(p, "S").players) == [Seat.S]
    assert list(solver.analyses([(p, 2)])[0].players) == [Seat.S]
    with pytest.raises(HeartsError, match="seats: expected a seat or seats, got float"):
        solver.analyze(p, 2.0)  # type: ignore[arg-type]
    with pytest.raises(HeartsError, match="unknown seat 7"):
        solver.analyze(p, 7)


def test_a_solvers_repr_shows_its_settings() -> None:
    """A solver's repr was ``<solver.analysis.Solver object at 0x...>``."""
    solver = Solver(table_mb=1, node_limit=500, time_limit=2.5, threads=2)
    assert repr(solver) == "Solver(table_mb=1, node_limit=500, time_limit=2.5, threads=2)"
    assert repr(eval(repr(solver))) == repr(solver)


def test_a_budget_checks_its_arguments_as_it_is_made() -> None:
    """``Budget("x", 1)`` was made, and failed at its first use with AttributeError ('str'
    object has no attribute 'thread_limits'); ``Budget(solver, "5")`` with TypeError."""
    solver = Solver(table_mb=1)
    with pytest.raises(HeartsError, match="Budget: expected a Solver, got str"):
        Budget("x", 1)  # type: ignore[arg-type]
    with pytest.raises(HeartsError, match="seconds: expected a number, got '5'"):
        Budget(solver, "5")  # type: ignore[arg-type]
    with pytest.raises(HeartsError, match="nodes: expected an integer, got '9'"):
        Budget(solver, 1, "9")  # type: ignore[arg-type]
    with Budget(solver, 0) as limited:
        assert limited is solver


def _second_ctrl_c(solver: Solver, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C in a parallel call of ``solver``, and a second one during its wait for its jobs,
    which are then still stopping (each takes half a second more, as a search may)."""
    give_back = Solver._give_back

    def slow_give_back(self: Solver, e: Engine) -> None:
        if getattr(self._local, "pooled", False):
            time.sleep(0.5)
        give_back(self, e)

    real_wait = concurrent.futures.wait
    waits: list[int] = []

    def second_ctrl_c(fs: Any, *args: Any, **kwargs: Any) -> Any:
        if not waits:
            waits.append(1)
            raise KeyboardInterrupt     # the second Ctrl-C, during the call's wait
        return real_wait(fs, *args, **kwargs)

    monkeypatch.setattr(Solver, "_give_back", slow_give_back)
    monkeypatch.setattr(concurrent.futures, "wait", second_ctrl_c)
    try:
        _ctrl_c_in_a_parallel_call(solver, 0.3)
    finally:
        monkeypatch.setattr(Solver, "_give_back", give_back)
    assert waits and solver._jobs_out, "the call's wait for its jobs was not cut short"


def test_a_call_after_a_second_ctrl_c_waits_for_the_last_calls_jobs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A second Ctrl-C cut short a parallel call's wait for its jobs, which were still stopping
    on their engines: the next call set those engines up anew (rules, moon total, table) under
    their searches. It now waits for them first."""
    solver = Solver(table_mb=16, threads=2)
    _second_ctrl_c(solver, monkeypatch)
    jobs_out_at_use: list[int] = []
    use = Solver._use

    def watched_use(self: Solver, p: Position) -> None:
        jobs_out_at_use.append(self._jobs_out)
        use(self, p)

    monkeypatch.setattr(Solver, "_use", watched_use)
    pos = endgames({}, 1, "after a second ctrl-c")[0]
    assert answers(solver, pos) == answers(Solver(table_mb=16), pos)
    assert jobs_out_at_use and jobs_out_at_use[0] == 0
    assert solver._free.qsize() == 2


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")  # (3.12+: the point)
def test_a_child_forked_while_a_cut_short_calls_jobs_stop_gets_the_solver_anew(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The jobs' threads are not in the child, nor do the engines they hold come back there:
    the child's next parallel call waited for ever for an idle engine."""
    pos = endgames({}, 1, "fork after a second ctrl-c", cards=(32, 32))[0]
    expected = answers(Solver(table_mb=16), pos)
    solver = Solver(table_mb=16, threads=2)
    _second_ctrl_c(solver, monkeypatch)
    _child_answers(solver, pos, expected)


def test_a_line_takes_the_first_card_that_keeps_the_value_whatever_the_table() -> None:
    """Where several cards keep the target's guarantee, a line takes the first in a fixed
    order (README, "Same input, same output"): clubs, diamonds, hearts, spades, each suit from
    the top down, a run of equivalent cards counting as one and played from its lowest (the
    order of ``move_groups``). So a line, like the values and ``best`` marks, is the same from
    a fresh one-thread solver as from a two-thread one whose 1 MB table other positions filled."""
    warm = Solver(table_mb=1, threads=2)
    order = lambda c: (-c.suit, -c.rank)        # noqa: E731
    for i in range(8):
        # (32 cards left: far enough from the end for the second thread to search too)
        p = Position.start(Deal.random(900 + i)).random_play(random.Random(i), 20)
        fresh = Solver(table_mb=16)
        expected = fresh.analyze(p)
        got = warm.analyze(p)
        assert (got.players, got.moves) == (expected.players, expected.moves)
        for seat in Seat:
            line = Solver(table_mb=16).line(p, seat)
            assert warm.line(p, seat) == line
            q = p
            for step in line:
                groups = fresh.move_groups(q)
                assert [rep for rep, _ in groups] == sorted((rep for rep, _ in groups), key=order)
                assert all(rep == min(run, key=lambda c: c.rank) for rep, run in groups)
                kept = [rep for rep, _ in groups
                        if fresh.guarantee(q.play(rep), seat) == step.value]
                assert step.card == kept[0], (p.deal.pbn(), p.played, seat, q.played)
                q = q.play(step.card)


def test_the_readme_s_python_example_runs_as_its_comments_say() -> None:
    """README's "From Python" block, run as written: a user's first contact with the library."""
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    block = readme.split("```python\n", 1)[1].split("```", 1)[0]
    names: dict[str, Any] = {}
    exec(block, names)
    result, pos = names["result"], names["pos"]
    assert result.players[Seat.N] == result.players["N"] == result.players[0]
    assert isinstance(result.players["N"], PlayerResult) and result.moves
    assert {m.card for m in result.moves} == set(pos.legal_moves())
