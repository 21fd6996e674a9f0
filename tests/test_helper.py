"""A helper thread (Engine.set_helper, set_lender) searches each large pass alongside the main
search, through the table both share: it may change how fast an answer comes, never the answer.
Here the helpers start at once and take their own order at every node, in small tables where
the two threads fight over the same buckets, and every value must match a single thread's."""
from __future__ import annotations

import queue
import random
import threading

import pytest

from endgames import play_down, random_endgame, small_scenario
from solver import analysis
from solver.analysis import SearchAborted, Solver, new_engine
from solver.cards import Seat
from solver.deal import Deal
from solver.position import Position
from solver.rules import Rules
from test_bruteforce import RULE_SETS

POSITIONS = 6          # per rule set
pytestmark = pytest.mark.usefixtures("parallel_at_any_size")


def eager(solver: Solver, rules: Rules) -> Solver:
    """Helpers that start after the first thousand nodes and take their own order (the first
    card kept, the rest reversed; the others' two cards in a trick swapped) at every node, the
    target's cards too after 500 nodes, so that even small searches run two threads and both
    orders; both threads' others sweep their cards (_search._sweep) at every node, so that
    narrowed entries are shared too, and the target looks up its cards' trick ends (the lazy
    ETC) at every size."""
    solver.prepare(rules)
    for e in solver.engines:
        e.spawn_nodes = 0
        e.helper_from = 1
        e.helper_pairs_from = 1
        e.helper_all_nodes = 500
        e.sweep_from = 0
        e.etc_from = 0
    return solver


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_a_helper_changes_no_value(name: str) -> None:
    rng = random.Random(f"helper-{name}")
    rules = Rules.parse(RULE_SETS[name])
    single = Solver(table_mb=4)
    helped = eager(Solver(table_mb=2, threads=2), rules)
    done = 0
    # larger positions until a helper has run: small ones may finish before it starts
    while done < POSITIONS or (done < 40 and not helped.helper_nodes):
        s = random_endgame(RULE_SETS[name], rng, min(48, rng.randint(20, 28) + 2 * done))
        if s is None:
            continue
        pos = s.position()
        for seat in Seat:
            assert helped.guarantee(pos, seat) == single.guarantee(pos, seat), (name, s, seat)
        done += 1
    assert helped.helper_nodes > 0, "no helper ever ran"


def test_a_helper_that_finishes_first_answers_the_pass() -> None:
    """The helper's search of a pass is as good as the main one's: whichever ends first
    answers it (Engine.helper_answers counts the helper's), the values stay those of one
    thread."""
    rng = random.Random("first")
    helped = eager(Solver(table_mb=2, threads=2), Rules.parse({}))
    single = Solver(table_mb=4)
    done = 0
    while done < POSITIONS:
        s = random_endgame({}, rng, rng.randint(28, 36))
        if s is None:
            continue
        pos = s.position()
        for seat in Seat:
            assert helped.guarantee(pos, seat) == single.guarantee(pos, seat), (s, seat)
        done += 1
    assert sum(e.helper_answers for e in helped.engines) > 0, "the main search always ended first"


def test_idle_engines_help_the_last_questions_of_a_parallel_analysis() -> None:
    """Seats and cards answered two at a time: once no question waits to start, an engine
    that falls idle is lent to the other's next pass."""
    rng = random.Random("lent")
    rules = Rules.parse({})
    helped = eager(Solver(table_mb=2, threads=2), rules)
    single = Solver(table_mb=4)
    done = 0
    while done < 8:
        s = random_endgame({}, rng, rng.randint(28, 36))
        if s is None:
            continue
        pos = s.position()
        a, b = helped.analyze(pos), single.analyze(pos)
        assert a.players == b.players and a.moves == b.moves, s
        done += 1
    assert helped.helper_nodes > 0, "no engine was ever lent"


def owner_and_helper() -> tuple:
    """Two engines of standard rules over one table: its owner, and a sharer to help it."""
    rules = Rules.parse({})
    owner, helper = new_engine(rules, 2 << 20), new_engine(rules, 1 << 20)
    helper.share_table(owner)
    return owner, helper


class LateLender:
    """Lends nothing at a pass's start, then has ``helper`` join each pass that invites one
    from another thread, as a solver does when an engine falls idle."""

    def __init__(self, helper) -> None:
        self.helper = helper
        self.invites: queue.Queue = queue.Queue()
        self.joined = 0

    def lend(self):
        return None

    def invite(self, e) -> None:
        self.invites.put(e)

    def uninvite(self, e) -> None:
        pass

    def give_back(self, e) -> None:
        assert e is self.helper

    def serve(self) -> None:
        while (e := self.invites.get()) is not None:
            self.joined += e.join_pass(self.helper)


class EagerLender(LateLender):
    """Has ``helper`` join each pass from inside ``invite``, as another thread's ``give_back``
    can: the lender is Python, which the GIL may leave at any bytecode."""

    def invite(self, e) -> None:
        self.joined += e.join_pass(self.helper)


class InterruptedLender(EagerLender):
    """An ``EagerLender`` out of whose ``where`` ("invite" or "uninvite") a KeyboardInterrupt
    comes once, as a Ctrl-C's does out of the first Python the engine calls after its search
    stopped (or wherever the main thread is)."""

    def __init__(self, helper, where: str) -> None:
        super().__init__(helper)
        self.where = where
        self.given: list = []

    def invite(self, e) -> None:
        super().invite(e)
        self._interrupt("invite")

    def uninvite(self, e) -> None:
        self._interrupt("uninvite")

    def give_back(self, e) -> None:
        self.given.append(e)

    def _interrupt(self, where: str) -> None:
        if where == self.where:
            self.where = ""
            raise KeyboardInterrupt


@pytest.mark.parametrize("where", ["invite", "uninvite"])
def test_a_ctrl_c_out_of_the_lender_leaves_no_helper_running_or_attached(where: str) -> None:
    """The helper that joined is stopped and given back, and the engine's next searches run
    without it: one left attached was armed again by the next pass while it also served from
    the idle engines, two threads on one engine (a wrong answer after a Ctrl-C)."""
    owner, helper = owner_and_helper()
    rng = random.Random(f"interrupted {where}")
    s = None
    while s is None:
        s = random_endgame({}, rng, 36)
    pos = s.position()
    args = (*Solver._args(pos), pos.moon_state, 0)
    for e in (owner, helper):
        e.set_moon_total(pos.moon_total)
    lender = InterruptedLender(helper, where)
    owner.set_lender(lender)
    with pytest.raises(KeyboardInterrupt):
        owner.value(*args)
    owner.set_lender(None)
    assert lender.joined == 1 and lender.given == [helper]
    helped = owner.helper_nodes
    assert owner.value(*args) + pos.raw_points(0) == Solver(table_mb=4).guarantee(pos, Seat.N)
    assert owner.helper_nodes == helped, "a helper still attached searched"


@pytest.mark.parametrize("lender_kind", [LateLender, EagerLender])
def test_a_helper_joins_a_pass_in_progress(lender_kind: type[LateLender]) -> None:
    """A helper joined while the pass was still setting out was armed a second time, its
    running search's state rewritten and a second thread started on it (most values wrong)."""
    owner, helper = owner_and_helper()
    # a helper takes the orders of the search it helps
    owner.helper_from = 1
    owner.helper_pairs_from = 1
    owner.helper_all_nodes = 500
    lender = lender_kind(helper)
    server = threading.Thread(target=lender.serve)
    server.start()
    rng = random.Random("join")
    try:
        for _ in range(6):
            s = None
            while s is None:
                s = random_endgame({}, rng, 36)
            pos = s.position()
            owner.set_moon_total(pos.moon_total)
            helper.set_moon_total(pos.moon_total)
            owner.set_lender(lender)
            got = owner.value(*Solver._args(pos), pos.moon_state, 0)
            owner.set_lender(None)
            p0 = pos.raw_points(0)
            assert got + p0 == Solver(table_mb=4).guarantee(pos, Seat.N), s
    finally:
        lender.invites.put(None)
        server.join()
    assert lender.joined > 0 and owner.joins == lender.joined and owner.helper_nodes > 0


def test_a_helped_search_stops_its_helper_when_its_budget_runs_out() -> None:
    """The budget counts the main search's nodes; the helper stops with it, and the engines
    answer the next question as usual."""
    rules = Rules.parse({})
    solver = eager(Solver(table_mb=8, threads=2, node_limit=8_000_000), rules)
    with pytest.raises(SearchAborted):
        solver.guarantee(Position.start(Deal.random(2), rules), Seat.N)
    assert solver.helper_nodes > 0
    rng = random.Random("after-abort")
    s = None
    while s is None:
        s = random_endgame({}, rng, 28)
    pos = s.position()
    assert solver.guarantee(pos, Seat.E) == Solver(table_mb=8).guarantee(pos, Seat.E)


def test_only_an_engine_sharing_the_table_can_help() -> None:
    rules = Rules.parse({})
    owner, other, sharer = (new_engine(rules, 1 << 20) for _ in range(3))
    sharer.share_table(owner)
    with pytest.raises(ValueError):
        owner.set_helper(other)
    with pytest.raises(ValueError):
        owner.set_helper(owner)
    with pytest.raises(ValueError):
        sharer.share_table(owner)
    owner.set_helper(sharer)
    sharer.set_helper(owner)


def test_a_two_thread_solver_of_a_tiny_table_answers_every_rule_set_in_turn_like_fresh_ones(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """One solver asked everything in turn: two threads over a table of 128 KB (below the
    1 MB a Solver allows, so that these positions of five to eight tricks to go crowd it),
    positions under every rule set and small deals of other moon totals, shuffled, twice
    over with a clear between, then all at once. Rules, moon totals and tables switch between
    questions, entries are replaced under pressure and the helpers share buckets: each answer
    must still be a fresh solver's."""
    rng = random.Random("helper/one solver for all")
    positions = []
    for spec in RULE_SETS.values():
        s = None
        while s is None:
            s = random_endgame(spec, rng, rng.randint(20, 32), moon=rng.random() < 0.3)
        small = play_down(small_scenario(spec, rng, 5), rng, 20 - rng.randint(0, 3))
        assert small is not None
        positions += [x.position() for x in (s, small)]
    rng.shuffle(positions)
    expected = [Solver(table_mb=16).analyze(p) for p in positions]
    assert len({(p.rules, p.moon_total) for p in positions}) > len(RULE_SETS)
    real = analysis.new_engine
    monkeypatch.setattr(analysis, "new_engine", lambda rules, size: real(rules, min(size, 128 << 10)))
    shared = Solver(table_mb=1, threads=2)
    helped = 0      # (helper_nodes counts for the rules in use: added up after each call)
    for round_ in range(2):
        for i in rng.sample(range(len(positions)), len(positions)):
            got = shared.analyze(positions[i])
            helped += shared.helper_nodes
            assert (got.players, got.moves) == (expected[i].players, expected[i].moves), (
                round_, positions[i].deal.pbn(), positions[i].played, positions[i].rules)
        shared.clear()
    for got, want in zip(shared.analyses([(p, None) for p in positions]), expected):
        assert (got.players, got.moves) == (want.players, want.moves), (want.position.deal.pbn(),
                                                                        want.position.played)
    assert helped + shared.helper_nodes > 0, "no helper ever ran"
    # (with a table of 1 MB, about 0.95 times the fresh solvers' nodes; with this one, 1.15)
    assert shared.nodes > 1.05 * 3 * sum(a.nodes for a in expected), "the table was never crowded"
