"""Annotation jobs (solver/batch.py): the SPEC §6 object, errors that keep results, rules and
leader precedence, time limits, input order and bounded memory. (Identical output on one
process, a process pool and a local Dask cluster: tests/test_cli_records.py.)"""
from __future__ import annotations

import gc
import io
import logging
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from contextlib import ExitStack

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.record_files import endgame_file, small_deal
from solver.analysis import SearchAborted, Solver
from solver.cards import Seat, cards_of
from solver import batch
from solver.batch import AnnotateOptions, annotate_record, annotate_stream
from solver.deal import Deal
from solver.errors import HeartsError
from solver.pbn import Record, read_records
from solver.position import Position
from solver.rules import Rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SPEC_KEYS = ["index", "deal", "players", "error"]


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver(table_mb=16)


def one(text: str, solver: Solver, **options) -> dict:
    [record] = read_records(io.BytesIO(text.encode()))
    return annotate_record(record, AnnotateOptions(**options), solver)


def test_the_spec_object(solver):
    deal = "N:AKQJ.AKQJT9.A.AK T98.876.KQJ.QJT9 765.54.T9876.876 432.32.5432.5432"
    result = one(f'[Board "9"]\n[Deal "{deal}"]\n', solver)
    assert list(result)[:4] == SPEC_KEYS
    assert result["deal"] == deal and result["error"] is None and result["board"] == "9"
    expected = Solver(table_mb=16).analyze(Position.start(Deal.parse(deal)))
    assert result["players"] == {str(s): {"guarantee": r.guarantee, "moon_possible": r.moon_possible}
                                 for s, r in expected.players.items()}
    assert result["leader"] == "W" and result["rules"] == "standard"
    assert result["play"] is None and result["review"] is None


def test_an_unreadable_record_has_a_null_deal_and_an_error(solver):
    result = one('[Event "x"]\n[Deal "N:AK.. .AK.. ..AK."]\n', solver)
    assert result["deal"] is None and result["players"] is None
    assert result["error"] == "line 2: [Deal] expected 4 hands separated by spaces, found 3"
    assert one('[Event "no deal"]\n', solver)["error"] == "line 1: the game has no [Deal]"


def test_an_illegal_recorded_card_is_an_error_but_the_deal_is_still_annotated(solver):
    text = ('[Deal "N:A.K.. K.A.. .Q.3. ..2.2"]\n[Play "W"]\n'
            'C2 SA SK D3\n'
            'D2 HK HQ HA\n')            # E's column has S's HQ
    result = one(text, solver)
    assert result["error"] == "line 4: [Play] trick 2: E cannot play HQ: it is S's card"   # its row
    assert result["players"] is not None                       # the position before the first card
    assert result["play"] == "C2 SA SK D3 D2 HK"                # the legal part of the play ...
    assert [c["card"] for c in result["review"]["cards"]] == ["C2", "SA", "SK", "D3", "D2", "HK"]
    assert result["review"]["complete"] is False                # ... reviewed as far as it goes


def test_the_passing_a_record_gives_is_in_its_object(solver):
    """``[HeartsPass]`` and ``[HeartsPassed]``: who gave which cards, for the writers to show."""
    deal = "N:AKQ.AKQJT.AK.AKQ JT9.987.QJT9.JT9 8765.654.876.876 432.32.5432.5432"
    passed = "N:J..Q.J 8.6.8. 4..5.5 A.K..A"
    result = one(f'[Deal "{deal}"]\n[HeartsPass "left"]\n[HeartsPassed "{passed}"]\n', solver)
    assert result["error"] is None and result["pass"] == {"direction": "left", "cards": {
        "N": "SJ DQ CJ", "E": "S8 H6 D8", "S": "S4 D5 C5", "W": "SA HK CA"}}
    assert "pass" not in one(f'[Deal "{deal}"]\n', solver)


def test_rules_come_from_the_tag_then_the_option_then_standard(solver):
    deal = '[Deal "N:A.K.. K.A.. .Q.3. ..2.2"]\n'
    assert one(deal, solver)["rules"] == "standard"
    assert one(deal, solver, rules=Rules.parse("spot"))["rules"] == "spot"
    assert one(deal + '[HeartsRules "omnibus"]\n', solver, rules=Rules.parse("spot"))["rules"] == "omnibus"
    custom = one(deal + '[HeartsRules "{\\"moon\\": \\"none\\"}"]\n', solver)
    assert custom["rules"]["moon"] == "none"
    spot = one(deal + '[HeartsRules "spot"]\n', solver)["players"]
    assert spot != one(deal, solver)["players"]                 # the rules reached the solver


def test_leaders_with_a_free_first_lead(solver):
    free = '[HeartsRules "{\\"first_lead\\": \\"free\\"}"]\n[Deal "N:A.K.. K.A.. .Q.3. ..2.2"]\n'
    assert one(free + '[HeartsLeader "S"]\n', solver)["leader"] == "S"
    assert one(free + '[Play "E"]\nSK - - -\n', solver)["leader"] == "E"
    missing = one(free, solver)
    assert missing["players"] is None and "HeartsLeader" in missing["error"]


def test_a_leader_the_rules_overrule_is_an_error_on_its_line_and_the_rules_leader_leads(solver):
    text = '[Event "x"]\n[Deal "N:.A..2 .2..3 .3..4 .4..5"]\n[HeartsLeader "E"]\n'
    result = one(text, solver)
    assert result["error"] == "line 3: [HeartsLeader] leader E given, but N holds C2 and must lead it"
    assert result["leader"] == "N" and result["players"] == one(text[:-19], solver)["players"]


def test_a_record_whose_rules_cannot_be_read_is_not_analysed_under_others(solver):
    text = '[Deal "N:.A..2 .2..3 .3..4 .4..5"]\n[HeartsRules "{\\"moon\\": \\"subtrct\\"}"]\n'
    result = one(text, solver, rules=Rules.parse("rickety-kate"))
    assert result["deal"] == "N:.A..2 .2..3 .3..4 .4..5" and result["error"].startswith("line 2: [HeartsRules]")
    assert result["players"] is None and result["rules"] is None and result["leader"] is None


def test_a_time_limit_gives_up_the_record_with_an_error():
    deal = Deal.random(3).pbn()
    result = one(f'[Deal "{deal}"]\n', Solver(table_mb=16), time_limit=0.05)
    assert result["deal"] == deal and result["players"] is None
    assert result["error"] == "line 1: no answer within the time limit of 0.05 s"


def test_a_time_limit_in_the_review_says_so_and_keeps_the_start(solver, monkeypatch):
    def out_of_time(*args, **kwargs):
        raise SearchAborted("time budget exhausted")

    monkeypatch.setattr(batch, "review", out_of_time)
    text = '[Deal "N:.A..2 .2..3 .3..4 .4..5"]\n[Play "N"]\nC2 C3 C4 C5\n'
    result = one(text, solver, time_limit=5)
    assert result["players"]["N"] == {"guarantee": 0, "moon_possible": True}
    assert result["error"] == "line 1: no answer within the time limit of 5 s (in the review of the play)"


def test_moon_only(solver):
    text = '[Deal "N:94.64..2 Q.K..JT4 7.97.8.9 T.2.732."]\n[HeartsLeader "E"]\n' \
           '[HeartsRules "{\\"first_lead\\": \\"free\\"}"]\n[Play "E"]\nC4 C9 D3 C2\n'
    result = one(text, solver, moon_only=True)
    assert result["players"]["E"] == {"moon_possible": True}
    assert result["review"]["cards"] == []
    assert result["review"]["moon"]["E"]["lost_with"] == {"trick": 1, "seat": "E", "card": "C4"}


# -- streams --------------------------------------------------------------------------------------
def results(data: bytes, **kwargs) -> list[dict]:
    return [r for _, r in annotate_stream(read_records(io.BytesIO(data)), **kwargs)]


def test_a_process_pool_gives_the_serial_results_in_input_order():
    data = endgame_file(200, seed=11, hand_size=3, play_cards=12)
    serial = results(data)
    assert [r["index"] for r in serial] == list(range(200))
    assert all(r["error"] is None and r["review"]["complete"] for r in serial)
    assert results(data, jobs=2, chunk_size=3) == serial


@pytest.mark.parametrize("jobs", [1, 2])
def test_only_a_bounded_window_of_records_is_in_flight(jobs):
    data = endgame_file(400, seed=5, hand_size=3)
    pulled = 0

    def counted():
        nonlocal pulled
        for record in read_records(io.BytesIO(data)):
            pulled += 1
            yield record

    stream = annotate_stream(counted(), jobs=jobs, chunk_size=4)
    first_record, _ = next(stream)
    assert first_record.index == 0
    assert pulled <= 4 * 4 * jobs + 4          # four chunks per worker, plus the one being cut
    stream.close()                             # stops the workers


def test_in_this_process_each_chunk_comes_out_before_the_next_is_read():
    """A record read from a pipe is answered before the next is waited for (four chunks were
    read ahead, as for a pool)."""
    read = []

    def records():
        for record in read_records(io.BytesIO(endgame_file(40, seed=2, hand_size=2))):
            read.append(record.index)
            yield record

    stream = annotate_stream(records(), chunk_size=3)
    next(stream)
    assert read == [0, 1, 2]
    stream.close()


def test_records_keep_their_file_bytes_through_the_workers():
    data = endgame_file(20, seed=2, hand_size=3, play_cards=4)
    pairs = list(annotate_stream(read_records(io.BytesIO(data)), jobs=2, chunk_size=3))
    assert b"".join(r.before + r.raw + r.after for r, _ in pairs) == data
    assert [r.index for r, _ in pairs] == [res["index"] for _, res in pairs] == list(range(20))


def test_workers_start_with_a_safe_import_path_and_leave_the_environment_as_it_was(monkeypatch):
    """The pool's processes start with PYTHONSAFEPATH (test_cli_records shows what for); set
    for good, a program calling the library lost the working directory from the import path of
    every Python it started afterwards."""
    monkeypatch.delenv("PYTHONSAFEPATH", raising=False)
    data = endgame_file(4, seed=3, hand_size=3, play_cards=4)
    assert len(list(annotate_stream(read_records(io.BytesIO(data)), jobs=2, chunk_size=2))) == 4
    assert "PYTHONSAFEPATH" not in os.environ
    with batch._processes_starting():
        assert os.environ["PYTHONSAFEPATH"] == "1"
    assert "PYTHONSAFEPATH" not in os.environ


def test_dask_needs_a_reachable_scheduler(quick_dask):
    with pytest.raises(HeartsError, match="cannot reach the Dask scheduler"):
        next(annotate_stream(iter([]), dask="tcp://127.0.0.1:1"))


def test_dask_not_installed_is_one_line_naming_the_extra(monkeypatch):
    """--dask is an optional extra: without it, what to install, not an ImportError."""
    monkeypatch.setitem(sys.modules, "dask.distributed", None)     # (import fails: not installed)
    with pytest.raises(HeartsError, match=r"^--dask needs the dask extra: pip install 'hearts-dd\[dask\]'$"):
        next(annotate_stream(iter([]), dask="local"))


# -- never raising ------------------------------------------------------------------------------
RULES = [None, "omnibus", "spot", "bridge", '{\\"first_lead\\": \\"free\\"}', '{\\"partnership\\": true}',
         '{\\"hearts_break\\": \\"none\\", \\"first_trick_points\\": true}', "nonsense"]
FUZZ_SOLVER = Solver(table_mb=4)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_annotating_any_small_record_never_raises(data):
    rng = random.Random(data.draw(st.integers(0, 10**6)))
    deal = small_deal(rng, data.draw(st.integers(1, 4)))
    cards = [str(c) for c in cards_of(deal.all_cards)] + ["-", "+", "SA", "C2", "H5"]
    rows = data.draw(st.lists(st.lists(st.sampled_from(cards), min_size=1, max_size=5), max_size=5))
    text = f'[Deal "{deal.pbn(data.draw(st.sampled_from(list(Seat))))}"]\n'
    if rules := data.draw(st.sampled_from(RULES)):
        text += f'[HeartsRules "{rules}"]\n'
    if data.draw(st.booleans()):
        text += f'[HeartsLeader "{data.draw(st.sampled_from("NESWX"))}"]\n'
    if rows or data.draw(st.booleans()):
        text += f'[Play "{data.draw(st.sampled_from("NESW"))}"]\n' + "\n".join(" ".join(r) for r in rows) + "\n"
    result = one(text, FUZZ_SOLVER)
    assert list(result)[:4] == SPEC_KEYS and result["deal"] is not None
    assert result["error"] is None or "\n" not in result["error"]
    assert (result["players"] is None) == (result["leader"] is None)


# -- workers that die -----------------------------------------------------------------------------
def test_a_chunk_whose_worker_dies_runs_again_on_a_fresh_pool():
    """A killed worker (the out-of-memory killer, say) used to leave its chunk waited for, and
    the run hung."""
    records = list(read_records(io.BytesIO(endgame_file(6, seed=3, hand_size=5, play_cards=4))))
    runner = batch._Processes(2)
    try:
        wait = runner.submit(records, AnnotateOptions())
        first = runner.pool
        for process in list(first._processes.values()):    # started by the submit, still busy
            process.kill()
        assert wait() == [r for _, r in annotate_stream(iter(records))]
        assert runner.pool is not first
    finally:
        runner.close()


def test_a_pool_whose_feeding_thread_died_is_one_line_not_a_wait_for_ever():
    """Out of memory, a pool's manager thread dies when it cannot start its queue's feeder
    thread, and the chunks it held never finish."""
    from concurrent.futures import Future
    from types import SimpleNamespace
    dead = threading.Thread(target=lambda: None)
    dead.start()
    dead.join()
    with pytest.raises(HeartsError, match="^the worker pool stopped: out of memory"):
        batch._Processes._result(Future(), SimpleNamespace(_executor_manager_thread=dead))


@pytest.mark.parametrize("where, failure, words", [
    ("resource_tracker", BlockingIOError(11, "Resource temporarily unavailable"),
     "cannot start worker processes: Resource temporarily unavailable (fewer --jobs may fit, or "
     "a higher limit on processes, ulimit -u)"),
    ("submit", OSError(24, "Too many open files"),
     "cannot start worker processes: Too many open files (fewer --jobs may fit, or a higher "
     "limit on open files, ulimit -n)"),
    ("submit", FileNotFoundError(2, "No usable temporary directory found in ['/tmp']"),
     "cannot start worker processes: No usable temporary directory found in ['/tmp'] (fewer "
     "--jobs may fit, or a writable temporary directory, TMPDIR)"),
    ("submit", EOFError(),
     "cannot start worker processes: the fork server could not start one (fewer --jobs may fit, "
     "or a higher limit on processes, ulimit -u)"),
])
def test_worker_processes_the_system_will_not_start_are_one_line(monkeypatch, where, failure, words):
    """Under a limit on processes (``ulimit -u``, a container's) the resource tracker's or a
    worker's fork failed: the CLI said it could not write its output, or (the fork server's
    end, an EOFError, which click takes for the end of input) "interrupted", exit 130."""
    from concurrent.futures import ProcessPoolExecutor

    def refuse(*args, **kwargs):
        raise failure

    if where == "resource_tracker":
        monkeypatch.setattr(batch.resource_tracker, "ensure_running", refuse)
    else:
        monkeypatch.setattr(ProcessPoolExecutor, "submit", refuse)
    with pytest.raises(HeartsError) as raised:
        batch._Processes(2)
    assert str(raised.value) == words


def test_workers_that_cannot_start_fail_the_run_in_one_line(tmp_path):
    """Each worker imports the main module again: a script that starts the pool outside
    ``if __name__ == "__main__":`` kills every worker so, which once lost each record in turn
    as "its worker process died"."""
    script = tmp_path / "unguarded.py"
    script.write_text("import io\n"
                      "from solver.batch import annotate_stream\n"
                      "from solver.pbn import read_records\n"
                      "games = read_records(io.BytesIO(b'[Deal \"N:.A..2 .2..3 .3..4 .4..5\"]\\n'))\n"
                      "for record, result in annotate_stream(games, jobs=2):\n"
                      "    print(result['error'])\n")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert run.returncode == 1 and run.stdout == ""
    # (the workers' tracebacks, Python's own, come before it, and a fork server's that races
    # the run's exit may come after it: a fresh clone's run once ended in "Bad file descriptor")
    assert run.stderr.splitlines().count(
        "solver.errors.HeartsError: no worker process could start (out of memory? a script must "
        'start the workers under if __name__ == "__main__":)') == 1
    guarded = script.read_text().replace("games =", "if __name__ == '__main__':\n    games =").replace(
        "for record", "    for record").replace("    print", "        print")
    script.write_text(guarded)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert (run.returncode, run.stdout) == (0, "None\n"), run.stderr


class _Dying(batch._Processes):
    def _submit(self, records, options):     # a chunk that kills every worker it is sent to
        return self.pool.submit(os._exit, 9), self.pool


def test_a_chunk_that_kills_its_workers_twice_is_reported_in_its_records_and_the_run_goes_on():
    records = list(read_records(io.BytesIO(b'[Board "7"]\n[Deal "N:.A..2 .2..3 .3..4 .4..5"]\n\n'
                                           b'[Deal "N:.A..2 .2..3 .3..4"]\n')))
    runner = _Dying(2)
    try:
        lost = runner.submit(records, AnnotateOptions(rules=Rules.parse("omnibus")))()
        assert [r["deal"] for r in lost] == ["N:.A..2 .2..3 .3..4 .4..5", None]
        assert all(r["players"] is None for r in lost)
        # the record as read, as far as reading goes (it kept only its place and deal)
        assert (lost[0]["rules"], lost[0]["leader"], lost[0]["board"]) == ("omnibus", "N", "7")
        assert lost[0]["error"] == "line 1: not annotated: its worker process died (killed, or out of memory)"
        assert lost[1]["error"].startswith("line 4: [Deal]") and lost[1]["error"].endswith("out of memory)")
        fine = batch._Processes._submit(runner, records[:1], AnnotateOptions())[0].result()
        assert fine[0]["players"] is not None                # the pool after them works
    finally:
        runner.close()


# -- a Dask cluster that fails ----------------------------------------------------------------------
class _Failing:
    """A Dask client whose chunks all end in ``error`` (``status`` "error": raised by the
    chunk on its worker), and whose scheduler has ``workers`` (None: it never answers)."""

    def __init__(self, error: Exception, status: str = "lost", workers: int | None = 1) -> None:
        self.error, self.status, self.workers = error, status, workers
        self.scheduler = self

    def submit(self, *args, **kwargs):
        return self

    def result(self, timeout=None):
        raise self.error

    def identity(self, n_workers=-1):
        if self.workers is None:     # a scheduler stopped (SIGSTOP), its connection still open
            threading.Event().wait()
        return {"workers": {f"tcp://127.0.0.1:{port}": {} for port in range(self.workers)}}

    scheduler_info = identity

    def sync(self, func, *args, callback_timeout=None, **kwargs):
        """As Dask's: ``func``'s answer, unless it takes longer than ``callback_timeout``."""
        answer: list = []
        asking = threading.Thread(target=lambda: answer.append(func(*args, **kwargs)), daemon=True)
        asking.start()
        asking.join(callback_timeout)
        if not answer:
            raise TimeoutError
        return answer[0]


def _dask_runner(client) -> batch._Dask:
    distributed = pytest.importorskip("dask.distributed")
    runner = batch._Dask.__new__(batch._Dask)
    runner.killed, runner.client, runner.cluster = distributed.KilledWorker, client, None
    runner._levels = {}
    return runner


def test_a_dask_run_quietens_dask_and_asyncio_for_itself_only(monkeypatch):
    """Dask's and asyncio's loggers are set to CRITICAL and its VersionMismatchWarning ignored
    while a run starts and goes, and given back as they were when it ends: they were set for
    good in the process that started it (a library user's), and a warnings filter was added
    at each run."""
    distributed = pytest.importorskip("dask.distributed")
    from distributed.versions import VersionMismatchWarning
    names = ["distributed", "distributed.client", "asyncio"]
    levels = {name: logging.getLogger(name).level for name in names}     # (the test's: put back)
    for name, level in zip(names, [logging.WARNING, logging.INFO, logging.NOTSET]):
        logging.getLogger(name).setLevel(level)
    seen: list = []

    class Client:       # a local cluster's client, whose scheduler is of another version
        def __init__(self, cluster):
            seen.append({name: logging.getLogger(name).level for name in names})
            warnings.warn("versions differ", VersionMismatchWarning)

        def scheduler_info(self):
            return {"workers": {"tcp://127.0.0.1:1": {"nthreads": 1}}}

        def close(self):
            pass

    class LocalCluster:
        def __init__(self, **kwargs):
            pass

        close = Client.close

    monkeypatch.setattr(distributed, "Client", Client)
    monkeypatch.setattr(distributed, "LocalCluster", LocalCluster)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            filters = list(warnings.filters)
            runner = batch._Dask("local", 1)
            assert {name: logging.getLogger(name).level for name in names} == \
                dict.fromkeys(names, logging.CRITICAL)      # (during the run)
            runner.close()
            assert list(warnings.filters) == filters
        assert [w.message for w in caught] == [] and runner.window == 4
        assert seen == [dict.fromkeys(names, logging.CRITICAL)]
        assert [logging.getLogger(name).level for name in names] == \
            [logging.WARNING, logging.INFO, logging.NOTSET]
    finally:
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


def test_a_dask_chunk_that_kept_killing_workers_is_reported_in_its_records():
    distributed = pytest.importorskip("dask.distributed")
    records = list(read_records(io.BytesIO(b'[Deal "N:.A..2 .2..3 .3..4 .4..5"]\n')))
    runner = _dask_runner(_Failing(distributed.KilledWorker("annotate_chunk-1", "worker", 3), "error"))
    [lost] = runner.submit(records, AnnotateOptions())()
    assert lost["error"] == "line 1: not annotated: its Dask worker died (killed, or out of memory)"


def test_a_lost_dask_cluster_is_one_line_not_an_output_error():
    from distributed.comm.core import CommClosedError          # an OSError: it read as the output's
    records = list(read_records(io.BytesIO(b'[Deal "N:.A..2 .2..3 .3..4 .4..5"]\n')))
    runner = _dask_runner(_Failing(CommClosedError("in <TCP (closed)>: Stream is closed")))
    with pytest.raises(HeartsError, match=r"^lost the Dask cluster: in <TCP \(closed\)>: Stream is closed$"):
        runner.submit(records, AnnotateOptions())()


@pytest.mark.parametrize("failure, why", [
    (MemoryError("cannot allocate a transposition table"), "cannot allocate a transposition table"),
    (MemoryError(), "MemoryError"),     # (as Python raises it: no words, so its type's name)
])
def test_a_dask_chunk_that_failed_on_its_worker_is_reported_in_its_records(failure, why):
    records = list(read_records(io.BytesIO(b'[Deal "N:.A..2 .2..3 .3..4 .4..5"]\n')))
    runner = _dask_runner(_Failing(failure, "error"))
    [lost] = runner.submit(records, AnnotateOptions())()
    assert lost["error"] == f"line 1: not annotated: {why}"


def test_a_dask_scheduler_whose_workers_all_left_is_one_line_not_a_wait_for_ever(quick_dask):
    records = list(read_records(io.BytesIO(b'[Deal "N:.A..2 .2..3 .3..4 .4..5"]\n')))
    runner = _dask_runner(_Failing(TimeoutError(), "pending", workers=0))
    with pytest.raises(HeartsError, match="^the Dask scheduler has had no workers for 1 s"):
        runner.submit(records, AnnotateOptions())()


def test_a_dask_scheduler_that_stopped_answering_is_one_line_not_a_wait_for_ever(quick_dask):
    """A scheduler stopped (SIGSTOP) mid-run, or the network to it gone with its connection
    still open: the run waited for ever, without a word."""
    records = list(read_records(io.BytesIO(b'[Deal "N:.A..2 .2..3 .3..4 .4..5"]\n')))
    runner = _dask_runner(_Failing(TimeoutError(), "pending", workers=None))
    failed: list = []

    def wait() -> None:
        try:
            runner.submit(records, AnnotateOptions())()
        except HeartsError as e:
            failed.append(str(e))

    waiting = threading.Thread(target=wait, daemon=True)
    waiting.start()
    waiting.join(10)
    assert failed == ["lost the Dask cluster: its scheduler has not answered for 1 s"]


@pytest.fixture
def quick_dask(monkeypatch):
    pytest.importorskip("dask.distributed")
    monkeypatch.setattr(batch, "DASK_CONNECT_TIMEOUT", 1.0)
    yield
    # A client a failed connection left half made is closed by its __del__ when collected.
    # Collected inside another client's start, which holds dask's class-wide LoopRunner lock,
    # that close waits for the lock for ever: the whole suite hung once, in the next test's
    # LocalCluster. Collected here, it closes at once.
    for thread in threading.enumerate():
        if thread.name == "hearts-dd Dask connect":
            thread.join(15)
    gc.collect()


@pytest.mark.parametrize("greeting, why", [
    (None, "no answer within 1 s"),                              # a web server: waits to be asked
    (b"SSH-2.0-OpenSSH_9.6\r\n" * 4, "what answers there does not speak Dask's protocol"),
])
def test_an_address_without_a_dask_scheduler_is_one_line(quick_dask, greeting, why):
    from dask.distributed import Client
    # (the connection accepted is closed with the server, once the client has given up on it)
    with socket.socket() as server, ExitStack() as accepted:
        server.bind(("127.0.0.1", 0))
        server.listen()
        address = "tcp://127.0.0.1:%d" % server.getsockname()[1]
        if greeting:
            def greet(said: bytes) -> None:
                accepted.enter_context(server.accept()[0]).sendall(said)
            threading.Thread(target=greet, args=(greeting,), daemon=True).start()
        with pytest.raises(HeartsError) as e:
            batch._connect(Client, address)
    assert str(e.value) == f"cannot reach the Dask scheduler at {address!r}: {why}"


def test_a_dask_scheduler_without_workers_is_one_line(quick_dask, monkeypatch):
    """(3 s, not quick_dask's 1: it failed twice on a machine loaded by two test runs at
    once, where the client's connection alone may take over the 1 s.)"""
    monkeypatch.setattr(batch, "DASK_CONNECT_TIMEOUT", 3.0)
    from dask.distributed import Client, LocalCluster
    with LocalCluster(n_workers=0, dashboard_address=None, processes=False) as cluster:
        with pytest.raises(HeartsError, match="has no workers .none joined within 3 s.$"):
            batch._connect(Client, cluster.scheduler_address)


def test_chunks_by_default_hold_as_many_records_as_their_deals_allow() -> None:
    """Eight at a time, a file of a few full deals went to one worker while the others idled:
    full deals now go alone, small endgames up to eight at a time, each card more a hand
    halving that; a chunk holds no more than its largest deal allows."""
    rng = random.Random(5)

    def records(*sizes: int) -> list[Record]:
        return [Record({}, deal=small_deal(rng, n) if n else None) for n in sizes]

    def lengths(*sizes: int, size: int | None = None) -> list[int]:
        return [len(chunk) for chunk in batch._chunks(records(*sizes), size)]

    assert lengths(*[4] * 10) == [8, 2]
    assert lengths(13, 13, 13) == [1, 1, 1]
    assert lengths(4, 4, 4, 13, 4) == [3, 1, 1]
    assert lengths(6, 6, 6) == [2, 1]
    assert lengths(5, 5, 5, 5, 5) == [4, 1]
    assert lengths(4, 4, 4, 6, 4) == [3, 2]
    assert lengths(0, 0, 7) == [2, 1]                  # (a record without a deal: no search)
    assert lengths(13, 13, 13, size=8) == [3]           # a size given is kept


def test_a_record_whose_reading_fails_when_not_annotated_keeps_its_place(monkeypatch):
    """A record left unannotated is read again in the parent; what broke its worker may break
    that too, and the run must go on with the record's error."""
    [record] = read_records(io.BytesIO(b'[Board "3"]\n[Deal "N:.A..2 .2..3 .3..4 .4..5"]\n'))

    def broken(*args):
        raise RuntimeError("a reader's bug")

    monkeypatch.setattr(batch, "_read", broken)
    lost = batch.not_annotated(record, "its worker process died")
    assert (lost["board"], lost["deal"], lost["rules"], lost["players"]) == ("3", "N:.A..2 .2..3 .3..4 .4..5", None, None)
    assert lost["error"] == "line 1: not annotated: its worker process died"


def test_jobs_by_default_are_the_cores_this_process_may_use(monkeypatch) -> None:
    """Not the machine's: a batch system's job (taskset, a cgroup's cpuset) may have fewer."""
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 5, 7})
    assert batch.default_jobs() == 3


def test_a_worker_keeps_its_solver_across_chunks_but_not_across_table_sizes(monkeypatch) -> None:
    """One solver a worker, its table allocated once; a later run in the same process that asks
    for another table size (a library caller's) gets a solver of that size, not the last one's."""
    monkeypatch.setattr(batch, "_SOLVERS", {})
    first = batch._solver(1)
    assert batch._solver(1) is first
    assert batch._solver(2).table_mb == 2 and list(batch._SOLVERS) == [2]


def test_a_record_not_annotated_keeps_the_count_of_its_errors_beyond_those_listed() -> None:
    """A game of 25 repeated tags holds 20 errors and counts 4 more: left unannotated, its error
    counts them too, as the annotated record's does."""
    text = '[Deal "N:.A..2 .2..3 .3..4 .4..5"]\n' + '[A ""]\n' * 25
    [record] = read_records(io.BytesIO(text.encode()))
    assert record.more_errors == 4
    annotated = batch.annotate_record(record, AnnotateOptions(), Solver(table_mb=1))["error"]
    lost = batch.not_annotated(record, "its worker process died")["error"]
    listed = annotated.removesuffix("; and 4 more errors")
    assert lost == listed + "; line 1: not annotated: its worker process died; and 4 more errors"


def test_a_worker_killed_while_the_next_chunk_is_sent_is_not_a_traceback() -> None:
    """A worker killed (the OOM killer) while the run was between two waits, sending its next
    chunk, broke the pool under that ``submit``: BrokenProcessPool came out of it as a
    traceback, and a --resume run of hours stopped there. The pool is rebuilt, as a wait does."""
    records = list(read_records(io.BytesIO(endgame_file(6, seed=3, hand_size=5, play_cards=4))))
    runner = batch._Processes(2)
    try:
        broken = runner.pool
        assert runner.submit(records[:3], AnnotateOptions())()      # the workers are up
        for process in list(broken._processes.values()):
            process.kill()
        deadline = time.monotonic() + 30
        while not broken._broken:       # (the pool's thread sees the death, then the submit)
            assert time.monotonic() < deadline
            time.sleep(0.02)
        wait = runner.submit(records, AnnotateOptions())
        assert wait() == [r for _, r in annotate_stream(iter(records))]
        assert runner.pool is not broken
    finally:
        runner.close()


def _lost(pool) -> None:
    """``pool``'s workers killed (the OOM killer), and the pool seen broken."""
    for process in list(pool._processes.values()):
        process.kill()
    deadline = time.monotonic() + 30
    while not pool._broken:         # (the pool's thread sees the death)
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_a_fresh_pool_lost_in_turn_before_the_lost_pools_chunks_are_sent_again_is_rebuilt():
    """The pool lost twice: its chunks are sent again, each from its wait, to the fresh pool,
    and that one was lost too (killed again) before the last of them was sent.
    BrokenProcessPool came out of that wait as a traceback, and a --resume run of hours ended
    there ("hearts-dd: N records kept in OUT.part", then the traceback, exit 1). The chunk goes
    to a third pool, as a submit's does, and the run goes on."""
    records = list(read_records(io.BytesIO(endgame_file(6, seed=3, hand_size=5, play_cards=4))))
    expected = [r for _, r in annotate_stream(iter(records))]
    runner = batch._Processes(1)
    try:
        first = runner.pool
        for process in list(first._processes.values()):  # held: no chunk is done before the
            os.kill(process.pid, signal.SIGSTOP)          # loss (one was, in a fresh clone's run)
        waits = [runner.submit(records[i:i + 2], AnnotateOptions()) for i in (0, 2, 4)]
        _lost(first)
        results = waits[0]()                # sent again, to a fresh pool
        second = runner.pool
        assert second is not first
        _lost(second)                       # lost in turn: the next chunk of the first is sent
        results += waits[1]() + waits[2]()  # again to a third
        assert runner.pool not in (first, second)
        assert results == expected
    finally:
        runner.close()


_CLOSE_INTERRUPTED = """
import io, os, signal, sys, threading, time
from concurrent.futures import process
from benchmarks.record_files import endgame_file
from solver.batch import annotate_stream
from solver.pbn import read_records

class Gone(BaseException):
    pass

def gone(signum, frame):
    raise Gone()

signal.signal(signal.SIGUSR1, gone)
join = process._ExecutorManagerThread.join
internals = process._ExecutorManagerThread.join_executor_internals
main = threading.main_thread().ident

def slow(self):                     # (the pool's thread ending its workers: 0.5 s)
    time.sleep(0.5)
    internals(self)

def interrupted(self, *args):       # the signal comes as this thread waits for the pool's (once)
    process._ExecutorManagerThread.join = join
    threading.Timer(0.1, signal.pthread_kill, (main, signal.SIGUSR1)).start()
    return join(self, *args)

process._ExecutorManagerThread.join_executor_internals = slow
process._ExecutorManagerThread.join = interrupted
try:
    for _ in annotate_stream(read_records(io.BytesIO(endgame_file(20, hand_size=3))), jobs=2):
        pass
except Gone:
    print("gone", file=sys.stderr)
"""


def test_a_stop_while_the_pool_shuts_down_ends_its_workers() -> None:
    """A signal whose handler raises (``ReaderGone`` for ``annotate | head -n 200`` whose reader
    left as the 200th record went out, a Ctrl-C) while the pool is being shut down at the end
    of a run: the wait for the pool's thread was cut short, its workers were left waiting
    for work, and the process hung at exit joining them (still there after 20 s; killed)."""
    proc = subprocess.Popen([sys.executable, "-c", _CLOSE_INTERRUPTED], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        out, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        pytest.fail("still running 20 s after the run was stopped")
    assert proc.returncode == 0 and err.decode().strip() == "gone"
