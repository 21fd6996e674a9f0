"""The service's gunicorn worker: gunicorn's sync worker, with a deadline for a request's head
and its own errors as problems.

A sync worker reads a request's line and headers with no time limit: a client that stalls in
them (or never sends any) held the worker until gunicorn killed it at its worker timeout, and got a 500;
two such connections stalled a two-worker service. Here the head must arrive within
``HEAD_TIMEOUT`` seconds, or the client gets a 408 problem and the worker moves on (after up to
2 s for the client to close); a connection that begins with no HTTP (a TLS handshake) gets a
400 at once. The requests gunicorn itself refuses (a bad request line, a bad
header, one too long) got an HTML page; they get an RFC 9457 problem body, as every error of
the app does. A quick stop (SIGINT, SIGQUIT) answered the request in flight 500, with a
traceback in the log: it is answered 503 ``stopping`` (``QuickStop``).
"""
from __future__ import annotations

import json
import os
import select
import signal
import socket
import sys
import time
from datetime import datetime
from typing import Any, Callable

from gunicorn import glogging, util
from gunicorn.http.wsgi import Response, default_environ
from gunicorn.workers.sync import SyncWorker

from .kinds import KINDS, PROBLEM_JSON, PROBLEM_TYPE_KEY, TYPE_PREFIX, problem_body

#: Seconds a connection may take to send its request line and headers.
HEAD_TIMEOUT = 10.0
#: Bytes of a head looked at for its end: a longer one is gunicorn's to judge (and refuse).
_PEEK = 64 << 10
#: The bytes of a token (RFC 9110), such as a request's method.
_TOKEN = frozenset(bytes([c]) for c in b"!#$%&'*+-.^_`|~0123456789"
                   b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
#: Seconds between looks at a head that is still arriving.
_POLL = 0.05
#: Seconds at most between a waiting worker's signs of life to gunicorn's arbiter, which kills
#: a worker silent for its ``timeout``: waiting for a client is no hang.
_BEAT = 1.0


def problem_response(status: int, kind: str, title: str, detail: str) -> bytes:
    """A whole HTTP response carrying a problem, for a connection no request was read from."""
    body = json.dumps(problem_body(status, TYPE_PREFIX + kind, title, detail)).encode()
    head = (f"HTTP/1.1 {status} {title}\r\nConnection: close\r\nContent-Type: {PROBLEM_JSON}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")
    return head.encode("latin-1") + body


def _not_http(head: bytes) -> int | None:
    """The first byte of bytes that begin a connection, when it cannot begin an HTTP/1 request
    (None when it may): a request line starts with its method, a token, after any empty lines."""
    first = head.lstrip(b"\r\n")[:1]
    return None if not first or first in _TOKEN else first[0]


def head_arrives(client: socket.socket, seconds: float = HEAD_TIMEOUT,
                 beat: Callable[[], None] = lambda: None,
                 warn: Callable[[str], None] = lambda message: None) -> bool:
    """Whether a request's line and headers arrive within ``seconds`` (looked at, not read: the
    parser reads them). True also when the client closes the connection or sends more than
    ``_PEEK`` bytes of head, which gunicorn handles as before; if not, the client is answered
    408 and False returned. A connection whose first bytes are no HTTP (a TLS handshake: its
    client waits for an answer, and held the worker the whole ``seconds``) is answered 400 at
    once, and False returned. ``warn(message)`` says why, and ``beat()`` is called at least once
    a second while it waits."""
    deadline = time.monotonic() + seconds
    seen = -1
    waiting = select.poll()
    waiting.register(client, select.POLLIN)
    while (left := deadline - time.monotonic()) > 0:
        beat()
        if not waiting.poll(min(left, _BEAT) * 1000):
            continue
        try:
            head = client.recv(_PEEK, socket.MSG_PEEK)
        except OSError:
            return True                     # (the parser meets the same error and says so)
        if not head or b"\r\n\r\n" in head or b"\n\n" in head or len(head) >= _PEEK:
            # what is left of the head's time bounds the parser's reads (a head longer than
            # _PEEK, stalled past it, held the worker); pre_request then sets the body's
            client.settimeout(max(left, 0.001))
            return True
        if (first := _not_http(head)) is not None:
            warn(f"Not an HTTP request (its first byte 0x{first:02x})")
            tls = "; a TLS handshake? this service speaks plain HTTP" if first == 0x16 else ""
            _answer(client, "malformed-request", "Bad Request",
                    f"not an HTTP request: it begins with the byte 0x{first:02x}{tls}")
            return False
        if len(head) == seen:               # (bytes that wait to be read keep it readable)
            time.sleep(min(_POLL, max(0.0, left)))
        seen = len(head)
    warn(f"Request head not received within {seconds:g} s")
    status, title = KINDS["request-timeout"]
    _answer(client, "request-timeout", title,
            f"the request line and headers did not arrive within {seconds:g} s")
    return False


def _answer(client: socket.socket, kind: str, title: str, detail: str) -> None:
    """Write a problem to a connection no request was read from (a client gone: no matter)."""
    try:
        util.write_nonblock(client, problem_response(KINDS[kind][0], kind, title, detail))
    except OSError:
        pass


class BeatingSocket:
    """A request's socket whose reads wait up to ``seconds`` for the client's next bytes (then
    ``TimeoutError``: gunicorn answers 400), saying the worker is alive (``beat()``) at least
    once a second meanwhile: a body sent slowly, each piece in time, took longer than the
    worker timeout, and the worker was killed (a 500). Anything else is the socket's."""

    def __init__(self, sock: socket.socket, beat: Callable[[], None], seconds: float) -> None:
        self._sock, self._beat, self._seconds = sock, beat, seconds

    def recv(self, size: int) -> bytes:
        deadline = time.monotonic() + self._seconds
        try:
            while True:
                self._beat()
                self._sock.settimeout(max(min(deadline - time.monotonic(), _BEAT), 0.001))
                try:
                    return self._sock.recv(size)
                except TimeoutError:
                    if time.monotonic() >= deadline:
                        raise
        finally:
            self._sock.settimeout(self._seconds)    # (the answer's writes: as long as ever)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


def _refusal_kind(status: int) -> str:
    """The problem kind of gunicorn's own refusal with this status."""
    return "internal-error" if status >= 500 and status != 501 else "malformed-request"


def _write_problem(sock: socket.socket, status: int, reason: str, message: str) -> None:
    """gunicorn's error page, as a problem (``util.write_error``'s signature)."""
    util.write_nonblock(sock, problem_response(status, _refusal_kind(status), reason,
                                               message or reason))


class Logger(glogging.Logger):
    """gunicorn's logger, with ``%(problem)s`` for the access log: the ``type`` of the problem
    a request was answered with (``-`` for an answer that is none). The app's and this
    worker's own problems say it in the WSGI environ; gunicorn's refusals, which gunicorn logs
    before ``_write_problem`` writes them, while ``refusing`` is set."""

    refusing = False

    def access(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> None:
        if not environ.get(_UNANSWERED_KEY):    # (the worker logs the 503 it answers instead)
            super().access(resp, req, environ, request_time)

    def atoms(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> dict[str, Any]:
        atoms: dict[str, Any] = super().atoms(resp, req, environ, request_time)
        type_ = environ.get(PROBLEM_TYPE_KEY)
        if type_ is None and self.refusing and str(atoms["s"]).isdigit() and int(atoms["s"]) >= 400:
            type_ = TYPE_PREFIX + _refusal_kind(int(atoms["s"]))
        atoms["problem"] = type_ or "-"
        # every text a client sent, ``printable``: gunicorn refuses control characters in a
        # header's value, but not in the user name it decodes from ``Authorization: Basic``
        # (``%(u)s``): escape sequences reached the terminal of whoever tailed the log, and a
        # newline forged a line of its own; nor does it escape the bytes 0x80-0x9f of a head
        # (read as Latin-1, written as UTF-8: a terminal's C1 controls, such as CSI)
        # (imported here, in the worker: the arbiter imports none of the solver's code)
        from solver.errors import printable
        return {k: printable(v) if isinstance(v, str) else v for k, v in atoms.items()}


class QuickStop(BaseException):
    """gunicorn's quick stop (SIGINT, SIGQUIT) while a request is handled. gunicorn's own
    ``sys.exit`` from the signal handler, wherever the request was, reached the log as a
    ``SystemExit`` traceback and the client as a 500. A BaseException, but no SystemExit (which
    gunicorn logs with a traceback once an answer has begun) nor Exception (which the app would
    answer as a bug): it goes up to ``Worker.handle_error``."""


#: The WSGI environ key of a request a quick stop cut short before its answer began: gunicorn,
#: having called the app, logs its status (a 200 with no body, for a stream not yet begun),
#: where the worker answers 503 and logs that.
_UNANSWERED_KEY = "hearts_dd.unanswered"


class _Noted:
    """The app, noting in its worker each request's gunicorn response (whether its head has
    gone out: ``start_response`` is that response's method), its WSGI environ and when the app
    was called. Anything else is the app's (``worker.wsgi.config``)."""

    def __init__(self, app: Any, worker: "Worker") -> None:
        self._app, self._worker = app, worker

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        self._worker._response = getattr(start_response, "__self__", None)
        self._worker._environ = environ
        self._worker._started = datetime.now()
        return self._app(environ, start_response)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._app, name)


class Worker(SyncWorker):
    """gunicorn's sync worker with a deadline for each request's head, problem bodies for the
    requests gunicorn refuses before the app sees them, and a quick stop that answers the
    request in flight 503 ``stopping`` (or cuts off an answer begun) in one log line."""

    #: a request is being handled: a quick stop now is ``QuickStop``, not ``sys.exit``
    _handling = False
    #: a quick stop has come: the next one is not to interrupt the first one's handling
    _stopping = False
    #: gunicorn's response to the request being handled, its environ, and when the app was called
    _response: Response | None = None
    _environ: dict[str, Any] | None = None
    _started: datetime | None = None
    wsgi: Any                                       # (gunicorn's: the app it calls)

    def init_process(self) -> None:
        # gunicorn writes its refusals with util.write_error, only from Worker.handle_error:
        # in this worker process, they are problems
        util.write_error = _write_problem
        super().init_process()

    def load_wsgi(self) -> None:
        # (the app's modules are loaded here, once init_process has set the worker's signal
        # handlers: see init_signals)
        from . import solving       # (here, in the worker: see api/__init__.py)
        solving.on_budget(self.notify)
        super().load_wsgi()
        self.wsgi = _Noted(self.wsgi, self)

    def init_signals(self) -> None:
        """A quick stop also stops the search in progress at once: the engine searches without
        the GIL, and Python's handler (``handle_quit``) only ran when the search returned.
        (The engine is loaded once the worker's own handlers are set, as is the app, in
        ``load_wsgi``: loaded before, for a fifth of a second or more the arbiter's handlers,
        inherited through the fork, took a stop signal and dropped it, and a stop just after
        the start waited the whole graceful timeout for this worker.)"""
        super().init_signals()
        from solver.analysis import watch_signal
        for signum in (signal.SIGINT, signal.SIGQUIT):
            watch_signal(signum)
        self.replay_early_stops()

    def replay_early_stops(self) -> None:
        """Send this worker again the stops (SIGTERM, SIGINT, SIGQUIT) that came between the fork
        and its own handlers: the arbiter's handlers, inherited, queued them in the child's copy
        of the arbiter's queue (``pre_fork`` in api/gunicorn.conf.py) and the arbiter then waited
        its whole graceful timeout (90 s) for a worker that went on serving. What the queue held
        at the fork was the arbiter's own, still the arbiter's to handle."""
        queue = getattr(self, "arbiter_queue", None)
        if queue is None:                           # (settings without that pre_fork)
            return
        early = []
        while not queue.empty():
            early.append(queue.get_nowait())
        for signum in early[getattr(self, "queued_at_fork", 0):]:
            if signum in (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT):
                os.kill(os.getpid(), signum)

    def handle_quit(self, sig: int, frame: Any) -> None:
        if not self._handling:
            super().handle_quit(sig, frame)         # (sys.exit, as gunicorn's worker does)
        if self._stopping:                          # (Ctrl-C's SIGINT, then the arbiter's SIGQUIT)
            return
        self._stopping, self.alive = True, False
        self.cfg.worker_int(self)
        if self._environ is not None and not (self._response and self._response.headers_sent):
            self._environ[_UNANSWERED_KEY] = True
        raise QuickStop

    def handle_error(self, req: Any, client: socket.socket, addr: Any, exc: BaseException) -> None:
        if not isinstance(exc, QuickStop):
            refusing = isinstance(self.log, Logger)
            if refusing:
                self.log.refusing = True
            try:
                super().handle_error(req, client, addr, exc)
            finally:
                if refusing:
                    self.log.refusing = False
            return
        what = f"{req.method} {req.uri}" if req is not None else "a request"
        if self._response is not None and self._response.headers_sent:
            # (gunicorn has logged it with the status begun; an answer cut off must not end
            # as if whole, so the connection is closed with nothing more)
            self.log.warning("Quick stop: the answer to %s cut off", what)
            return
        self.log.warning("Quick stop: %s answered 503 unsolved", what)
        status, title = KINDS["stopping"]
        answer = problem_response(status, "stopping", title, "the server is stopping and "
                                  "dropped this request unanswered; send it again")
        if req is not None:
            resp = Response(req, client, self.cfg)
            resp.status = f"{status} {title}"
            resp.sent = len(answer.partition(b"\r\n\r\n")[2])      # (the body, as %(b)s counts)
            environ = default_environ(req, client, self.cfg)
            environ[PROBLEM_TYPE_KEY] = TYPE_PREFIX + "stopping"
            environ["REMOTE_ADDR"], environ["REMOTE_PORT"] = (
                (str(addr[0]), str(addr[1])) if isinstance(addr, tuple) else (str(addr), ""))
            self.log.access(resp, req, environ, datetime.now() - (self._started or datetime.now()))
        try:
            util.write_nonblock(client, answer)
        except OSError:
            pass

    def handle(self, listener: Any, client: socket.socket, addr: Any) -> None:
        peer = addr[0] if isinstance(addr, tuple) else addr
        if self.cfg.is_ssl or head_arrives(client, beat=self.notify, warn=lambda message:
                                           self.log.warning("%s from %s", message, peer)):
            # the arbiter's timeout runs from the last notify: waiting for the head must not
            # eat into the request's budget, which is sized against that timeout
            self.notify()
            self._response = self._environ = self._started = None
            self._handling = True
            try:
                super().handle(listener, client, addr)
            except QuickStop:       # (as the connection closed: the answer had gone out)
                pass
            finally:
                self._handling = False
            if self._stopping:
                sys.exit(0)
            return
        util.close_graceful(client)     # (a plain close with the head unread resets it;
                                        # this lingers up to 2 s for the client to close)
