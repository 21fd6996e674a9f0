"""The service's gunicorn worker (api/worker.py): a deadline for a request's head, and
gunicorn's own refusals as problem bodies."""
from __future__ import annotations

import json
import logging
import os
import queue
import signal
import socket
import threading
import time
from typing import Iterator
from urllib.parse import urlsplit

import pytest

from api import create_app
from api.testing import served
from api.worker import HEAD_TIMEOUT, Worker, head_arrives


def _logging_state() -> dict[str, tuple[list[logging.Handler], int, bool]]:
    """Every logger's own handlers (less pytest's capture, which it attaches to each
    non-propagating logger and takes off again itself), level and ``propagate``."""
    from _pytest.logging import LogCaptureHandler
    loggers = [logging.getLogger(), *(logger for logger in logging.root.manager.loggerDict.values()
                                       if isinstance(logger, logging.Logger))]
    return {logger.name: ([h for h in logger.handlers if not isinstance(h, LogCaptureHandler)],
                          logger.level, logger.propagate) for logger in loggers}


@pytest.fixture(autouse=True)
def _no_logging_left_behind() -> Iterator[None]:
    """Each test leaves the process's loggers as it found them: a handler left installed (on
    gunicorn's loggers, say, by a ``Logger`` made in the test) writes to a stream the test
    captured and has since closed, for every later test that logs there."""
    before = _logging_state()
    yield
    unset: tuple[list[logging.Handler], int, bool] = ([], logging.NOTSET, True)  # (a new logger's)
    left = {name: (before.get(name, unset), state) for name, state in _logging_state().items()
            if state != before.get(name, unset)}
    assert not left, f"loggers changed and not put back (before, after): {left}"


@pytest.fixture
def gunicorn_loggers() -> Iterator[None]:
    """gunicorn's loggers put back as they were after the test: a ``glogging.Logger`` sets
    their handlers (on the standard streams as they are then: pytest's captured ones), level
    and ``propagate`` for the whole process."""
    names = ("gunicorn.error", "gunicorn.access")
    kept = {name: (list(logging.getLogger(name).handlers), logging.getLogger(name).level,
                   logging.getLogger(name).propagate) for name in names}
    yield
    for name, (handlers, level, propagate) in kept.items():
        logger = logging.getLogger(name)
        for handler in logger.handlers:
            if handler not in handlers:
                handler.close()
        logger.handlers[:] = handlers
        logger.setLevel(level)
        logger.propagate = propagate


def response(sock: socket.socket) -> tuple[int, dict]:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert b"Content-Type: application/problem+json" in head
    return int(head.split()[1]), json.loads(body)


@pytest.mark.parametrize("sent", [b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", b"GET / HTTP/1.1\nHost: x\n\n",
                                  b"\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n", b""])
def test_a_whole_head_or_a_closed_connection_goes_on_at_once(sent: bytes) -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(sent)
        if not sent:
            theirs.shutdown(socket.SHUT_WR)
        start = time.monotonic()
        # "at once": well short of the head's whole time, which it would otherwise wait out; a
        # minute, of which the half is far past the delays of a loaded machine (1 s was not)
        assert head_arrives(ours, 60)
        assert time.monotonic() - start < 30
        assert ours.recv(100) == sent[:100]             # looked at, not read


def test_a_head_sent_in_pieces_goes_on_when_it_ends() -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        pieces = [b"GET / HTTP/1.1\r\n", b"Host: x\r\n", b"\r\n"]
        sender = threading.Thread(target=lambda: [(theirs.sendall(p), time.sleep(0.2)) for p in pieces])
        sender.start()
        assert head_arrives(ours, 5)
        sender.join()


def test_a_head_longer_than_is_looked_at_goes_on_with_what_is_left_of_its_time() -> None:
    """A head past the part looked at, then stalled, held the worker until gunicorn killed it:
    the parser's reads now time out where the head's time ends."""
    ours, theirs = socket.socketpair()
    with ours, theirs:
        long_head = b"GET / HTTP/1.1\r\n" + b"X-Long: " + b"a" * (70 << 10)
        threading.Thread(target=theirs.sendall, args=(long_head,), daemon=True).start()
        assert head_arrives(ours, 5)
        assert 0 < ours.gettimeout() <= 5


@pytest.mark.parametrize("sent, byte, hint", [
    (bytes.fromhex("16030100a5010000a10303") + bytes(32), "0x16", "; a TLS handshake?"),
    (b"\r\n\x00GET / HTTP/1.1", "0x00", ""),
])
def test_a_connection_that_begins_with_no_http_is_answered_400_at_once(sent: bytes, byte: str,
                                                                       hint: str) -> None:
    """A TLS handshake sent to the plain port (a client or probe given https://) waits for the
    server's: it held the worker for the whole deadline of a head, then got a 408."""
    said: list[str] = []
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(sent)
        start = time.monotonic()
        assert not head_arrives(ours, 60, warn=said.append)   # (at once: see the test above)
        assert time.monotonic() - start < 30
        ours.shutdown(socket.SHUT_WR)
        status, body = response(theirs)
    assert status == 400 and body["type"].endswith("malformed-request")
    assert body["detail"].startswith(f"not an HTTP request: it begins with the byte {byte}{hint}")
    assert said == [f"Not an HTTP request (its first byte {byte})"]


def test_a_head_that_stops_arriving_is_answered_408() -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        start = time.monotonic()
        said: list[str] = []
        assert not head_arrives(ours, 0.5, warn=said.append)
        # its own time, not less; nor much more: not HEAD_TIMEOUT's 10 s, nor for ever (beyond
        # that, only a loaded machine's delays, which 2 s did not always cover)
        assert 0.5 <= time.monotonic() - start < HEAD_TIMEOUT / 2
        assert said == ["Request head not received within 0.5 s"]
        ours.shutdown(socket.SHUT_WR)
        status, body = response(theirs)
    assert status == 408 and body["type"].endswith("request-timeout") and "0.5 s" in body["detail"]


@pytest.fixture(scope="module")
def address():
    with served(workers=1) as url:
        parts = urlsplit(url)
        yield parts.hostname, parts.port


@pytest.mark.parametrize("head, status, words", [
    (b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n", 400, "CONTENT-LENGTH"),
    (b"P@ST /api/v1/analyze HTTP/1.1\r\nHost: x\r\n\r\n", 400, "P@ST"),
    (b"GET /api/v1/health HTTP/9.9\r\nHost: x\r\n\r\n", 400, "HTTP"),
    (b"GET /api/v1/health?" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "too large"),
])
def test_requests_gunicorn_refuses_are_problems(address, head: bytes, status: int, words: str) -> None:
    """They were gunicorn's HTML pages."""
    with socket.create_connection(address, timeout=30) as s:
        s.sendall(head)
        got, body = response(s)
    assert got == status == body["status"] and words in body["detail"]
    assert body["type"].endswith("malformed-request")


@pytest.mark.parametrize("status, reason, kind", [
    (400, "Bad Request", "malformed-request"), (501, "Not Implemented", "malformed-request"),
    (500, "Internal Server Error", "internal-error")])
def test_each_error_page_of_gunicorn_is_a_problem_of_its_kind(status: int, reason: str, kind: str) -> None:
    """gunicorn writes every page of its own through ``util.write_error``: a 500 (with no
    message) for an error in itself, which is no fault of the request."""
    from api.kinds import TYPE_PREFIX
    from api.worker import _write_problem
    ours, theirs = socket.socketpair()
    with ours, theirs:
        _write_problem(theirs, status, reason, "")
        theirs.shutdown(socket.SHUT_WR)
        got, body = response(ours)
    assert (got, body["type"], body["title"], body["detail"]) == (status, TYPE_PREFIX + kind, reason, reason)


def test_the_document_names_the_statuses_of_those_refusals() -> None:
    """It gave the kind's status alone, 400, where gunicorn's refusals keep theirs (414 above)."""
    text = create_app().test_client().get("/openapi.json").get_json()["components"]["schemas"][
        "Problem"]["description"]
    malformed = text.split("malformed-request` (")[1].split(": ")[0]
    assert all(str(status) in malformed for status in (400, 414, 431))


def test_a_stalled_head_does_not_hold_the_only_worker_for_long(address) -> None:
    """A client that never finished its headers held the worker until gunicorn killed it
    (30 s, a 500): the next request waited as long."""
    with socket.create_connection(address, timeout=60) as stalled:
        stalled.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\n")
        time.sleep(0.5)
        start = time.monotonic()
        with socket.create_connection(address, timeout=60) as s:
            s.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = s.recv(100)
        # (the head's 10 s and a 2 s linger after the 408, far from gunicorn's worker timeout)
        assert answer.startswith(b"HTTP/1.1 200") and time.monotonic() - start < 25
        status, body = response(stalled)
    assert status == 408


def test_waiting_for_a_slow_client_does_not_get_the_worker_killed() -> None:
    """The worker said it was alive once, as a head came: a body sent in pieces (each in time)
    and then the whole budget outlived gunicorn's timeout, and the worker was killed mid-solve
    (a 500); so was one waiting 10 s for a head under a timeout below that (no 408). Now it
    says so while it waits for a client, and as a budget starts."""
    env = {"HEARTS_DD_SOLVER_TIME_LIMIT": "3", "HEARTS_DD_ANNOTATE_TIME_LIMIT": "3",
           "GUNICORN_CMD_ARGS": "--timeout 9 --graceful-timeout 9"}
    body = json.dumps({"deal": "N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 "
                               "J865.AQ92.KT8.T4", "rules": "spot"}).encode()   # past 3 s
    got: dict[str, tuple[int, dict]] = {}

    def stalled_head(address: tuple[str, int]) -> None:
        with socket.create_connection(address, timeout=60) as s:
            s.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\n")       # and no more
            got["head"] = response(s)

    with served(workers=2, env=env) as url:
        parts = urlsplit(url)
        address = (parts.hostname or "", parts.port or 0)
        head = threading.Thread(target=stalled_head, args=(address,))
        head.start()
        with socket.create_connection(address, timeout=60) as s:
            s.sendall(b"POST /api/v1/analyze HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                      b"\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % len(body))
            part = len(body) // 4 + 1
            for k in range(4):                      # 10.5 s of body (past the 9 s), then 3 s
                time.sleep(3.5 if k else 0)
                s.sendall(body[k * part:(k + 1) * part])
            got["body"] = response(s)
        head.join(60)
    assert got["head"][0] == 408, got
    status, answer = got["body"]
    assert status == 422 and answer["type"].endswith("budget-exceeded"), answer


def test_the_access_log_escapes_what_a_client_sent(capsys, gunicorn_loggers) -> None:
    """A user name in ``Authorization: Basic`` (base64: gunicorn's check of a header's
    characters lets it through) came into the access line as it decodes (``%(u)s``): escape
    sequences to the terminal of whoever tails the log, a newline forging a line of its own.
    A byte 0x9b of a header came out as U+009B, a terminal's CSI. Escaped now
    (solver.errors.printable); an ordinary line is as gunicorn writes it."""
    import base64
    from datetime import timedelta
    from types import SimpleNamespace

    from gunicorn.config import Config

    from api.worker import Logger

    cfg = Config()
    cfg.set("accesslog", "-")
    cfg.set("access_log_format", '%(h)s %(l)s %(u)s "%(r)s" %(s)s "%(a)s" %(problem)s')
    log = Logger(cfg)
    user = base64.b64encode(b"x\x1b]52;c;eA==\x07\nFORGED 1.2.3.4 - - \"GET /admin\" 200:pw").decode()

    def line(**headers: str) -> str:
        environ = {"REQUEST_METHOD": "GET", "RAW_URI": "/api/v1/health", "SERVER_PROTOCOL": "HTTP/1.1",
                   "REMOTE_ADDR": "127.0.0.1", **{f"HTTP_{k.upper()}": v for k, v in headers.items()}}
        req = SimpleNamespace(headers=[(k.upper(), v) for k, v in headers.items()])
        resp = SimpleNamespace(status="200 OK", headers=[], sent=87)
        capsys.readouterr()
        log.access(resp, req, environ, timedelta(seconds=0.01))
        return capsys.readouterr().out

    assert line(user_agent="curl/8") == '127.0.0.1 - - "GET /api/v1/health HTTP/1.1" 200 "curl/8" -\n'
    forged = line(authorization=f"Basic {user}", user_agent="ua\xc2\x9b2J")
    assert forged == ('127.0.0.1 - x\\x1b]52;c;eA==\\x07\\x0aFORGED 1.2.3.4 - - \\"GET /admin\\" 200 '
                      '"GET /api/v1/health HTTP/1.1" 200 "ua\xc2\\x9b2J" -\n')


def test_only_the_stops_that_came_after_the_fork_are_sent_again(monkeypatch) -> None:
    """What the arbiter's queue held at the fork is the arbiter's to handle (its own SIGTERM
    would otherwise be a second one for this worker); of what came after, only the stops."""
    sent: list[int] = []
    monkeypatch.setattr(os, "kill", lambda pid, signum: sent.append(signum))
    worker = Worker.__new__(Worker)
    worker.arbiter_queue = queue.SimpleQueue()
    for signum in (signal.SIGTERM, signal.SIGHUP):          # (queued before the fork)
        worker.arbiter_queue.put(signum)
    worker.queued_at_fork = 2
    for signum in (signal.SIGCHLD, signal.SIGQUIT, signal.SIGHUP, signal.SIGTERM):
        worker.arbiter_queue.put(signum)
    worker.replay_early_stops()
    assert sent == [signal.SIGQUIT, signal.SIGTERM]
    assert worker.arbiter_queue.empty()
