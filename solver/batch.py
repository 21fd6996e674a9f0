"""Annotation jobs: records in, one result per record out, in input order, on many cores.

``annotate_record`` turns one ``solver.pbn.Record`` into the SPEC §6 object (plus the play
review). ``annotate_stream`` runs it over a stream of records in chunks: in this process
(``jobs=1``), in a pool of worker processes, or on a Dask cluster (``dask="local"`` or a
scheduler address; needs the ``dask`` extra). Only a bounded window of chunks is in flight,
so memory stays flat however long the input; results come back in input order.

What "annotated" means for one record (docs/hand-records.md):

- ``players``: guarantee and moon feasibility of every seat at the position before the first
  card (SPEC §6), under the record's ``[HeartsRules]``, else the ``rules`` option, else standard;
- with a ``[Play]`` section, the recorded cards in play order, and their ``review`` (costs,
  moon timeline, shot the foot) as far as the play is legal;
- ``error``: ``null``, or every problem of the record joined in one line. A record with an
  error may still carry results: a recorded play that breaks the rules is reported there
  while ``players`` (and the review of the legal part of the play) are still given.
"""
from __future__ import annotations

import errno
import logging
import multiprocessing
import os
import select
import signal
import threading
import time
import warnings
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from dataclasses import dataclass
from itertools import islice
from multiprocessing import resource_tracker
from typing import Any, Callable, Generator, Iterable, Iterator, NoReturn, TypeVar

from .analysis import WORKER_TABLE_MB, Budget, SearchAborted, Solver
from .cards import Card, Seat
from .errors import HeartsError, shortened
from .pbn import Record, error_text
from .position import Position
from .results import out_of_time
from .review import replay, review, start_position
from .rules import STANDARD, Rules

#: a chunk of records' results, one JSON object each
Results = list[dict[str, Any]]
T = TypeVar("T")

__all__ = ["AnnotateOptions", "annotate_record", "annotate_chunk", "annotate_stream",
           "not_annotated", "default_jobs"]

#: Seconds to wait for a Dask scheduler before giving up.
DASK_CONNECT_TIMEOUT = 10.0


@dataclass(frozen=True)
class AnnotateOptions:
    """How to annotate; sent to every worker, so it stays small and picklable."""

    rules: Rules | None = None      # for records without [HeartsRules]; None: standard
    review: bool = True             # review a recorded play (costs, moon timeline, foot)
    moon_only: bool = False         # only moon questions (the ``moon`` command): no guarantees
    time_limit: float = 0.0         # seconds per record, 0: none
    table_mb: int = WORKER_TABLE_MB  # transposition table of each worker's solver
    out_of_time: str = ""           # a record's error when time_limit cuts it short, if not
                                    # the limit's own words (a budget's rest, as in the API)


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _unanswered(record: Record) -> dict[str, Any]:
    """A record's result object before any answer: where it is, and its deal."""
    out: dict[str, Any] = {"index": record.index, "deal": None, "players": None, "error": None}
    if record.source is not None:
        out["file"] = record.source
    out.update(line=record.line, board=record.board, rules=None, leader=None, play=None, review=None)
    if record.passing is not None:
        out["pass"] = record.passing.to_json()
    if record.deal is not None:
        out["deal"] = record.deal.pbn()
    return out


def _read(record: Record, options: AnnotateOptions) -> tuple[dict[str, Any], list[str],
                                                             Position | None, tuple[Card, ...]]:
    """A record as read, before any search: its result object with the deal, rules, leader and
    play filled in, its errors so far, the position to solve from (None: nothing to solve) and
    the cards of its play."""
    out = _unanswered(record)
    errors = list(record.errors)
    deal = record.deal
    if deal is None:
        problem = record.missing_deal()
        if problem:
            errors.append(problem)
        return out, errors, None, ()
    if record.rules_unknown:
        return out, errors, None, ()
    rules = record.rules or options.rules or STANDARD
    out["rules"] = rules.to_json()
    play_seat = record.play.seat if record.play is not None else None
    try:
        start = start_position(deal, rules, record.leader, play_seat)
    except HeartsError as e:
        if record.leader is None:
            errors.append(f"line {record.line}: {e}")
            return out, errors, None, ()
        errors.append(f"line {record.leader_line}: [HeartsLeader] {e}")  # the rules' leader leads
        start = start_position(deal, rules, None, play_seat)
    out["leader"] = str(start.to_move)
    cards: tuple[Card, ...] = ()
    if record.play is not None:
        played = replay(start, record.play)
        cards = played.cards
        out["play"] = " ".join(str(c) for c in cards)
        if played.error:
            errors.append(f"line {record.play.line_of(played.trick) or record.line}: [Play] {played.error}")
    return out, errors, start, cards


def annotate_record(record: Record, options: AnnotateOptions, solver: Solver) -> dict[str, Any]:
    """The result object of one record (SPEC §6 keys first). Never raises for bad records."""
    out, errors, start, cards = _read(record, options)
    if start is None:
        return _finish(out, errors, record.more_errors)
    budget = Budget(solver, options.time_limit)
    stage = ""      # what the time limit would cut short, beyond the start's values
    try:
        if options.moon_only:
            with budget as s:
                out["players"] = {str(seat): {"moon_possible": s.moon_possible(start, seat)}
                                  for seat in Seat}
            analysis = None
        else:
            with budget as s:
                analysis = s.analyze(start, moves=bool(cards) and options.review)
            out["players"] = analysis.players_json()
        if record.play is not None and (options.review or options.moon_only):
            stage = " (in the review of the play)"
            out["review"] = review(budget, start, cards, analysis,
                                   costs=not options.moon_only).to_json()
    except SearchAborted:
        # (without the bounds proved so far: how far a search got is the machine's, and a
        # file annotated twice should come out the same)
        why = options.out_of_time or out_of_time(options.time_limit, nodes=solver.node_limit)
        errors.append(f"line {record.line}: {why}{stage}")
    return _finish(out, errors, record.more_errors)


def _finish(out: dict[str, Any], errors: list[str], more: int = 0) -> dict[str, Any]:
    out["error"] = error_text(errors, more)
    return out


def not_annotated(record: Record, why: str, options: AnnotateOptions | None = None) -> dict[str, Any]:
    """The result object of a record left unannotated (a dead worker, no memory, a budget spent):
    the record as read (``options``' rules for one without its own), its errors, and ``why``."""
    try:
        out, errors, _, _ = _read(record, options or AnnotateOptions())
    except Exception:   # (what broke its worker may break its reading: the place is enough)
        out, errors = _unanswered(record), list(record.errors)
    return _finish(out, [*errors, f"line {record.line}: not annotated: {why}"], record.more_errors)


def _lost(records: list[Record], why: str, options: AnnotateOptions) -> Results:
    return [not_annotated(r, why, options) for r in records]


# -- workers ------------------------------------------------------------------------------------
_SOLVERS: dict[int, Solver] = {}


def _solver(table_mb: int) -> Solver:
    """One solver per worker process, kept across chunks so its tables are allocated once."""
    if table_mb not in _SOLVERS:
        _SOLVERS.clear()
        _SOLVERS[table_mb] = Solver(table_mb=table_mb)
    return _SOLVERS[table_mb]


def annotate_chunk(records: list[Record], options: AnnotateOptions) -> Results:
    """The unit of work sent to a worker: a few records, their results in the same order."""
    solver = _solver(options.table_mb)
    results = []
    for record in records:
        try:
            results.append(annotate_record(record, options, solver))
        except MemoryError as e:    # the table (--table-mb) or a search beyond the memory limit
            results.append(not_annotated(record, f"out of memory ({e})", options))
    return results


_STOPS = {signal.SIGTERM, signal.SIGHUP}
#: The signals that stop a run: the command unwinds on them (solver.cli), leaving no half-written
#: output (SIGXCPU: the soft limit on CPU time, ulimit -St, as a batch system's job limit sets it)
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGXCPU)


def _worker_signals(parent: int) -> None:
    """Workers leave Ctrl-C and a hang-up to the parent, which stops them itself, with SIGTERM
    (blocked in the fork server they come from: see _servers_shielded). A parent killed
    outright (SIGKILL, the OOM killer) cannot, and the fork server lives as long as its
    workers: each worker ends itself once ``parent`` is gone, rather than search on for
    minutes for nobody."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)
    with suppress(RuntimeError):    # (no thread to spare, under a limit on processes: the
        # worker still works, and ends with the pool as ever; a traceback and "no worker
        # process could start" ended the run)
        threading.Thread(target=_end_with, args=(parent,), name="hearts-dd parent watch",
                         daemon=True).start()


def _end_with(pid: int) -> None:
    """Wait for process ``pid`` to end (its pidfd becomes readable; where there is none, look
    every second), then end this process."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = -1
    if fd >= 0:
        select.select([fd], [], [])
    else:
        while True:
            time.sleep(1.0)
            try:
                os.kill(pid, 0)
            except (ProcessLookupError, PermissionError):    # (its number now another's)
                break
            except OSError:
                pass
    os._exit(128 + signal.SIGTERM)


@contextmanager
def signals_blocked(signals: Iterable[int]) -> Iterator[None]:
    """``signals`` held back in this thread meanwhile, and taken once the block ends (blocking,
    unlike ignoring, leaves the handlers as they are and loses no signal)."""
    kept = signal.pthread_sigmask(signal.SIG_BLOCK, signals)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, kept)


def _servers_shielded() -> AbstractContextManager[None]:
    """SIGTERM and SIGHUP blocked while a pool starts its server processes, which keep the mask
    for life: a signal sent to the whole process group then leaves the fork server and the
    resource tracker alive, and the parent, which stops the pool, does not wait on a pool that
    lost them."""
    return signals_blocked(_STOPS)


@contextmanager
def _start_shielded() -> Iterator[None]:
    """While the processes of a run start (a pool and its fork server, or a local Dask cluster,
    imported and started): they ignore Ctrl-C (a disposition, unlike a mask, outlives their
    exec; a Ctrl-C to the process group made one starting interpreter, or each Dask worker,
    print a traceback) and keep SIGTERM and SIGHUP blocked as _servers_shielded has them.
    Ctrl-C is blocked here too, so that one pressed meanwhile stays pending (a blocked signal is
    held even while ignored) and stops the run once they are up; for Dask from before its import,
    so that the threads it starts (numpy's among them) block it as well rather than take and drop
    it; and with the resource tracker started first, as its start unblocks those signals in the
    thread that starts it."""
    if threading.current_thread() is not threading.main_thread():
        with _servers_shielded():   # (dispositions are set from the main thread only)
            yield
        return
    with _servers_shielded():
        resource_tracker.ensure_running()
    kept_mask = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS | {signal.SIGINT})
    kept = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, kept)
        signal.pthread_sigmask(signal.SIG_SETMASK, kept_mask)


#: Open files a pool needs besides two for each worker: its queues' pipes, the fork server's
#: and the resource tracker's, and those that starting a worker holds for a moment.
POOL_FILES = 12
_LIMIT_HINTS = {errno.EMFILE: "or a higher limit on open files, ulimit -n",
                errno.ENFILE: "or fewer files open on the system",
                errno.EAGAIN: "or a higher limit on processes, ulimit -u",
                errno.ENOMEM: "or a smaller --table-mb",
                # (the fork server's socket is made in one, and none is writable)
                errno.ENOENT: "or a writable temporary directory, TMPDIR"}


def _files_problem(jobs: int) -> str | None:
    """Why ``jobs`` worker processes would run out of open files, if they would: past the
    limit (``ulimit -n``), a worker's start failed half-way, the fork server and the workers
    already started printed tracebacks, and the run said it could not write its output."""
    try:
        import resource
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        open_now = len(os.listdir("/proc/self/fd")) - 1     # (less the listing's own)
    except (ImportError, OSError):     # (not Linux: no check)
        return None
    need = open_now + 2 * jobs + POOL_FILES
    if soft == resource.RLIM_INFINITY or need <= soft:
        return None
    return (f"{jobs} worker processes need about {need} open files, and this process may open "
            f"{soft} (ulimit -n): fewer --jobs may fit")


@contextmanager
def _processes_starting() -> Iterator[None]:
    """Worker processes (or the pool's own) that the system will not start are one line that
    says so: the run said it could not write its output ("Resource temporarily unavailable",
    under a limit on processes), or that it was interrupted (exit 130). They start with a safe
    import path (``_safe_import_path``)."""
    try:
        with _safe_import_path():
            yield
    except OSError as e:
        hint = _LIMIT_HINTS.get(e.errno or 0, "")
        raise HeartsError(f"cannot start worker processes: {e.strerror or e} "
                          f"(fewer --jobs may fit{', ' + hint if hint else ''})") from None
    except EOFError:    # the fork server ended, unable to fork a worker (click took this EOF
        # for the end of the user's input: "interrupted", exit 130)
        raise HeartsError("cannot start worker processes: the fork server could not start one "
                          f"(fewer --jobs may fit, {_LIMIT_HINTS[errno.EAGAIN]})") from None


@contextmanager
def _safe_import_path() -> Iterator[None]:
    """The Python processes started meanwhile (the pool's fork server and resource tracker, a
    local Dask cluster's) import nothing from the working directory: ``PYTHONSAFEPATH``, as
    Python's ``-P``, unless the environment sets it. They run ``python -c``, which puts the
    directory first on the import path, before the standard library: ``hearts-dd annotate``
    (several jobs by default) run in a directory holding a stranger's ``multiprocessing.py``
    ran that file. A worker's import path is still this process's own. Set for the start alone:
    a program calling the library keeps its environment (a test run's later ``python -m``
    lost the working directory)."""
    if "PYTHONSAFEPATH" in os.environ:
        yield
        return
    os.environ["PYTHONSAFEPATH"] = "1"
    try:
        yield
    finally:
        os.environ.pop("PYTHONSAFEPATH", None)


class _Runner:
    """Where chunks run: ``submit`` returns a function that waits for the chunk's results.
    ``window`` chunks may be in flight at once (here, in this process, one: each is done by
    the time it is submitted, and waits for nothing)."""

    window = 1

    def submit(self, records: list[Record], options: AnnotateOptions) -> Callable[[], Results]:
        result = annotate_chunk(records, options)
        return lambda: result

    def close(self) -> None:
        pass

    def terminate(self) -> None:
        pass


def _started() -> None:
    """A worker's first task: it ran, so workers can start."""


class _Processes(_Runner):
    """A pool of worker processes. A worker that dies (killed, out of memory) takes the pool
    with it: each chunk the pool held runs once more on a fresh pool, and a chunk that breaks
    that one too is reported in its records' errors, so the run goes on either way."""

    LOST = "its worker process died (killed, or out of memory)"

    def __init__(self, jobs: int) -> None:
        methods = multiprocessing.get_all_start_methods()
        self.context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
        self.jobs = jobs
        self.window = 4 * jobs
        problem = _files_problem(jobs)
        if problem:
            raise HeartsError(problem)
        self.pool = self._new_pool()
        try:
            self._check_workers_start()
        except BaseException:   # (a Ctrl-C held while the workers started, raised now)
            self._stop(self.pool)
            raise

    def _check_workers_start(self) -> None:
        """Fail the run in one line when no worker can start, rather than every record: a
        worker imports the main module again, and a script that starts a pool outside
        ``if __name__ == "__main__":`` makes each worker die doing so."""
        with _processes_starting(), _start_shielded():  # the first submit starts the fork server
            started = self.pool.submit(_started)
        try:
            self._result(started, self.pool)
        except BrokenProcessPool:
            self._stop(self.pool)
            raise HeartsError("no worker process could start (out of memory? a script must start "
                              'the workers under if __name__ == "__main__":)') from None

    # a pool starts the resource tracker, and its first submit the fork server (_start_shielded),
    # and a submit the workers, forked from the fork server with its signals (_servers_shielded)
    def _new_pool(self) -> ProcessPoolExecutor:
        with _processes_starting(), _start_shielded():
            return ProcessPoolExecutor(self.jobs, mp_context=self.context, initializer=_worker_signals,
                                       initargs=(os.getpid(),))

    def _submit(self, records: list[Record], options: AnnotateOptions) -> tuple[Future[Results], ProcessPoolExecutor]:
        with _servers_shielded(), _processes_starting():   # (a submit starts workers as needed)
            return self.pool.submit(annotate_chunk, records, options), self.pool

    def _send(self, records: list[Record],
              options: AnnotateOptions) -> tuple[Future[Results], ProcessPoolExecutor]:
        """The chunk sent to the pool; to a fresh one when the pool broke since it was last
        waited on (a worker died between two waits, or, as a chunk of a pool lost before is
        sent again, the fresh pool it goes to was lost in turn): rebuilt as a wait does."""
        try:
            return self._submit(records, options)
        except BrokenProcessPool:
            self._stop(self.pool)
            self.pool = self._new_pool()
            return self._submit(records, options)

    def submit(self, records: list[Record], options: AnnotateOptions) -> Callable[[], Results]:
        first = self._send(records, options)

        def wait() -> Results:
            future, pool = first
            for attempt in (1, 2):
                try:
                    return self._result(future, pool)
                except BrokenProcessPool:
                    if pool is self.pool:
                        self._stop(pool)
                        self.pool = self._new_pool()
                    if attempt == 1:
                        future, pool = self._send(records, options)
                except HeartsError:
                    raise
                except Exception as e:  # annotate_chunk raises none of its own: say what did
                    return _lost(records, _one_line(e), options)
            return _lost(records, self.LOST, options)

        return wait

    @staticmethod
    def _result(future: Future[T], pool: ProcessPoolExecutor) -> T:
        """The chunk's results, unless the thread that feeds the pool is gone: it dies when it
        cannot start a thread of its own (out of memory), and its futures wait for ever."""
        while True:
            try:
                return future.result(timeout=1)
            except TimeoutError:
                feeder = getattr(pool, "_executor_manager_thread", None)
                if feeder is not None and not feeder.is_alive() and not future.done():
                    raise HeartsError("the worker pool stopped: out of memory, or too many "
                                      "processes? (fewer --jobs, a smaller --table-mb, or a "
                                      "higher ulimit -u may fit)") from None

    @staticmethod
    def _stop(pool: ProcessPoolExecutor) -> None:
        """Stop a pool's workers now, whatever they are doing."""
        processes = list((getattr(pool, "_processes", None) or {}).values())  # (None once shut down)
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        for process in processes:
            process.join()

    def close(self) -> None:
        self.pool.shutdown()

    def terminate(self) -> None:
        self._stop(self.pool)


class _Dask(_Runner):
    LOST = "its Dask worker died (killed, or out of memory)"

    def __init__(self, address: str, jobs: int) -> None:
        self.cluster: Any = None
        self._levels: dict[str, int] = {}   # the loggers' levels before the run quietened them
        try:
            with _safe_import_path(), _start_shielded() if address == "local" else nullcontext():
                self._start(address, jobs)
        except BaseException:   # (a Ctrl-C held while a local cluster started, raised now)
            self.close()
            raise

    def _start(self, address: str, jobs: int) -> None:
        try:
            from dask.distributed import Client, KilledWorker, LocalCluster
            from distributed.versions import VersionMismatchWarning
        except ImportError:
            raise HeartsError("--dask needs the dask extra: pip install 'hearts-dd[dask]'") from None
        self.killed = KilledWorker
        # Dask logs to our stderr, whose one line is the run's summary: a heartbeat that meets
        # the scheduler already closing at the end of a run, a key gathered again, or the
        # client's tries to reconnect are no news to a user (what fails reaches us as an
        # exception). Its loggers have levels of their own, set when it was imported.
        # A chunk waited for past a second (a slow record, no workers) and then cancelled (Ctrl-C,
        # a cluster lost) leaves Dask's inner wait to fail unread: asyncio then printed a
        # traceback, "Task exception was never retrieved ... AllExit", before our one line.
        # Only for the run: close() gives them back their levels, as the process (a library
        # user's, a test's) may log through them after it.
        for name in [*logging.root.manager.loggerDict, "asyncio"]:
            if name.split(".")[0] in ("distributed", "asyncio") and name not in self._levels:
                logger = logging.getLogger(name)
                self._levels[name] = logger.level
                logger.setLevel(logging.CRITICAL)
        # (the client's check of the versions, as it connects: only there, not process-wide)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=VersionMismatchWarning)
            self._start_client(address, jobs, Client, LocalCluster)
        workers = self.client.scheduler_info().get("workers", {})
        self.window = 4 * max(1, sum(w.get("nthreads", 1) for w in workers.values()))

    def _start_client(self, address: str, jobs: int, Client: Any, LocalCluster: Any) -> None:
        if address == "local":
            # No dashboard, and the scheduler's own HTTP server on a free port: on its default
            # one, 8787, it warned whenever another cluster ran on the machine.
            try:
                self.cluster = LocalCluster(
                    n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None,
                    silence_logs=logging.CRITICAL, scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
                self.client = Client(self.cluster)
            except Exception as e:      # (out of memory, mostly: its threads or processes)
                raise HeartsError(f"cannot start a local Dask cluster: {_one_line(e)}") from None
        else:
            self.client = _connect(Client, address)

    def submit(self, records: list[Record], options: AnnotateOptions) -> Callable[[], Results]:
        future = self.client.submit(annotate_chunk, records, options, pure=False)

        def wait() -> Results:
            idle_since = None       # when the scheduler was last seen without workers
            while True:
                try:
                    results: Results = future.result(timeout=1)
                    return results
                except TimeoutError:
                    if self._workers():
                        idle_since = None
                    elif idle_since is None:
                        idle_since = time.monotonic()
                    elif time.monotonic() - idle_since > DASK_CONNECT_TIMEOUT:
                        raise HeartsError(f"the Dask scheduler has had no workers for "
                                          f"{DASK_CONNECT_TIMEOUT:g} s (they left, or could not "
                                          f"run hearts-dd: is it installed where they run?)") from None
                except self.killed:     # the scheduler gave up on the chunk: it kept killing workers
                    return _lost(records, self.LOST, options)
                except Exception as e:
                    if future.status == "error":    # the chunk failed on its worker
                        return _lost(records, _one_line(e), options)
                    _lost_cluster(e)

        return wait

    def _workers(self) -> int:
        """The scheduler's workers. A scheduler that does not answer (stopped, or the network to
        it gone, its connection still open) is lost: asked without a limit, it held the run for
        ever, and ``scheduler_info`` gives the last answer when the scheduler cannot be reached."""
        try:
            info = self.client.sync(self.client.scheduler.identity, n_workers=-1,
                                    callback_timeout=DASK_CONNECT_TIMEOUT)
        except TimeoutError:
            raise HeartsError(f"lost the Dask cluster: its scheduler has not answered for "
                              f"{DASK_CONNECT_TIMEOUT:g} s") from None
        except Exception as e:
            _lost_cluster(e)
        return len(info.get("workers", {}))

    def close(self) -> None:
        try:
            with suppress(Exception):   # a cluster already gone has nothing to close
                self.client.close()
                if self.cluster is not None:
                    self.cluster.close()
        finally:
            for name, level in self._levels.items():
                logging.getLogger(name).setLevel(level)
            self._levels = {}

    terminate = close


def _lost_cluster(e: Exception) -> NoReturn:
    why = getattr(e, "reason", None) or _one_line(e)    # (a cancelled chunk's reason)
    raise HeartsError(f"lost the Dask cluster: {why}") from None


def _connect(client: Callable[..., Any], address: str) -> Any:
    """A client of the scheduler at ``address``, with one line for whatever stands in the way:
    no scheduler there, something else there, or a scheduler with no workers."""
    made: list[Any] = []
    failed: list[BaseException] = []

    def make() -> None:
        try:
            made.append(client(address, timeout=f"{DASK_CONNECT_TIMEOUT}s"))
        except BaseException as e:
            failed.append(e)

    # the client's timeout covers reaching the address, not the handshake after it: a peer that
    # accepts and then says nothing (a web server) would hold the client for ever
    maker = threading.Thread(target=make, name="hearts-dd Dask connect", daemon=True)
    maker.start()
    maker.join(DASK_CONNECT_TIMEOUT + 1)
    if not made:
        why = (f"no answer within {DASK_CONNECT_TIMEOUT:g} s" if not failed else
               "what answers there does not speak Dask's protocol" if isinstance(failed[0], MemoryError)
               else _one_line(failed[0]))
        raise HeartsError(f"cannot reach the Dask scheduler at {address!r}: {why}")
    c = made[0]
    try:
        c.wait_for_workers(1, timeout=DASK_CONNECT_TIMEOUT)
    except Exception:
        with suppress(Exception):
            c.close()
        raise HeartsError(f"the Dask scheduler at {address!r} has no workers (none joined within "
                          f"{DASK_CONNECT_TIMEOUT:g} s)") from None
    return c


def _one_line(e: BaseException) -> str:
    return shortened(" ".join(str(e).split()) or type(e).__name__, 200)


#: The most records a chunk holds when its size is left to the deals (``chunk_size=None``).
AUTO_CHUNK = 8


def _records_a_chunk(record: Record) -> int:
    """How many records like this one a chunk may hold: 8 of the smallest deals (4 cards a
    hand or fewer; a chunk saves the hand-over per record), half as many for each card more,
    and a full deal alone: it takes seconds, and a chunk of them keeps the other workers idle
    (a file of a few games ran on one worker)."""
    if record.deal is None:
        return AUTO_CHUNK
    cards = max(hand.bit_count() for hand in record.deal.hands)
    return max(1, AUTO_CHUNK >> max(0, cards - 4))


def _chunks(records: Iterable[Record], size: int | None) -> Iterator[list[Record]]:
    """``records`` in chunks of ``size``, or of as many as their deals allow (``size`` None)."""
    if size is not None:
        it = iter(records)
        while fixed := list(islice(it, size)):
            yield fixed
        return
    chunk: list[Record] = []
    least = AUTO_CHUNK
    for record in records:
        limit = _records_a_chunk(record)
        if chunk and len(chunk) >= min(least, limit):
            yield chunk
            chunk, least = [], AUTO_CHUNK
        chunk.append(record)
        least = min(least, limit)
        if len(chunk) >= least:
            yield chunk
            chunk, least = [], AUTO_CHUNK
    if chunk:
        yield chunk


def annotate_stream(records: Iterable[Record], options: AnnotateOptions = AnnotateOptions(),
                    jobs: int = 1, dask: str | None = None,
                    chunk_size: int | None = None,
                    ) -> Generator[tuple[Record, dict[str, Any]], None, None]:
    """Each record with its result, in input order.

    ``jobs`` > 1 runs a process pool of that size; ``dask`` ("local" or "tcp://host:8786")
    runs on a Dask cluster instead (``jobs`` is then the size of a local cluster). Records go
    to the workers ``chunk_size`` at a time, or by default as many as their deals' size allows
    (full deals one at a time, up to ``AUTO_CHUNK`` small endgames). At most four chunks per
    worker are in flight (one in this process). Closing the iterator early stops the workers.
    """
    runner: _Runner
    if dask:
        runner = _Dask(dask, jobs)
    elif jobs > 1:
        runner = _Processes(jobs)
    else:
        runner = _Runner()
    window = runner.window
    pending: deque[tuple[list[Record], Callable[[], Results]]] = deque()
    finished = False
    try:
        for chunk in _chunks(records, chunk_size):
            pending.append((chunk, runner.submit([r.stripped() for r in chunk], options)))
            while len(pending) >= window:
                yield from _zip_results(*pending.popleft())
        while pending:
            yield from _zip_results(*pending.popleft())
        finished = True
    finally:
        if finished:
            try:
                runner.close()
            except BaseException:
                # cut short (a signal whose handler raises: ReaderGone as the reader of the last
                # record leaves, a Ctrl-C): a pool's workers were left waiting for work, and the
                # process hung at exit joining them
                runner.terminate()
                raise
        else:
            runner.terminate()


def _zip_results(chunk: list[Record], wait: Callable[[], Results]) -> Iterator[tuple[Record, dict[str, Any]]]:
    yield from zip(chunk, wait())
