"""Requests' turns at the worker's solver (api/solving.py): granted in the order asked."""
from __future__ import annotations

import signal
import threading
import time

import pytest

from api.solving import FairLock


def wait_for(condition, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_the_lock_goes_to_those_waiting_before_one_that_asks_again_at_once() -> None:
    """With threading.Lock a thread that released it and asked again at once (an annotate
    stream between two records) could take it back before those waiting woke up."""
    lock = FairLock()
    order: list[str] = []

    def take(name: str) -> None:
        with lock:
            order.append(name)

    lock.acquire()
    waiting = []
    for n, name in enumerate("abc", start=1):
        waiting.append(threading.Thread(target=take, args=(name,)))
        waiting[-1].start()
        wait_for(lambda: len(lock._waiters) == n)       # queued in this order
    lock.release()
    take("again")                                       # the releaser, asking again at once
    for t in waiting:
        t.join(30)
    assert order == ["a", "b", "c", "again"]
    lock.acquire()                                      # free again
    lock.release()


class Stop(Exception):
    pass


def _stop(signum: int, frame: object) -> None:
    raise Stop


def test_a_wait_cut_short_by_a_signal_leaves_the_lock_usable() -> None:
    """A signal's exception in a waiting main thread (gunicorn's SIGTERM handler exits) must
    not leave it in line: the lock would be handed to it and never released."""
    lock = FairLock()
    free = threading.Event()

    def hold() -> None:
        with lock:
            free.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    wait_for(lambda: lock._held)
    previous = signal.signal(signal.SIGALRM, _stop)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        with pytest.raises(Stop):
            lock.acquire()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert not lock._waiters
    free.set()
    holder.join(30)
    with lock:
        assert lock._held
    assert not lock._held


def test_release_of_an_unheld_lock_is_an_error() -> None:
    with pytest.raises(RuntimeError):
        FairLock().release()


def test_a_request_starts_from_the_solvers_own_limits_not_the_last_requests() -> None:
    """A sync worker serves every request on one thread: with no per-request limit configured
    (0 s), a request ran under what the last one's budget left there (the health check's 2 s
    capped every later request)."""
    from api import create_app
    from api.solving import budget

    app = create_app({"SOLVER_TIME_LIMIT": 0, "ANNOTATE_TIME_LIMIT": 0, "SOLVER_TABLE_MB": 8})
    assert app.test_client().get("/api/v1/health").status_code == 200
    with app.app_context():
        assert budget().limited().time_limit == 0.0
        assert budget(3.0).limited().time_limit <= 3.0
        assert budget().limited().time_limit == 0.0
