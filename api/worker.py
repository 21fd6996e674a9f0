"""The service's gunicorn worker: gunicorn's sync worker, with a deadline for a request's head
and its own errors as problems.

A sync worker reads a request's line and headers with no time limit: a client that stalls in
them (or never sends any) held the worker until gunicorn killed it, 30 s later, and got a 500;
two such connections stalled a two-worker service. Here the head must arrive within
``HEAD_TIMEOUT`` seconds, or the client gets a 408 problem and the worker moves on (after up to
2 s for the client to close). The requests gunicorn itself refuses (a bad request line, a bad
header, one too long) got an HTML page; they get an RFC 9457 problem body, as every error of
the app does.
"""
from __future__ import annotations

import json
import select
import socket
import time
from typing import Any, Callable

from gunicorn import util
from gunicorn.workers.sync import SyncWorker

from . import solving
from .problems import KINDS, PROBLEM_JSON, TYPE_PREFIX, problem_body

#: Seconds a connection may take to send its request line and headers.
HEAD_TIMEOUT = 10.0
#: Bytes of a head looked at for its end: a longer one is gunicorn's to judge (and refuse).
_PEEK = 64 << 10
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


def head_arrives(client: socket.socket, seconds: float = HEAD_TIMEOUT,
                 beat: Callable[[], None] = lambda: None) -> bool:
    """Whether a request's line and headers arrive within ``seconds`` (looked at, not read: the
    parser reads them). True also when the client closes the connection or sends more than
    ``_PEEK`` bytes of head, which gunicorn handles as before; if not, the client is answered
    408 and False returned. ``beat()`` is called at least once a second while it waits."""
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
        if len(head) == seen:               # (bytes that wait to be read keep it readable)
            time.sleep(min(_POLL, max(0.0, left)))
        seen = len(head)
    status, title = KINDS["request-timeout"]
    try:
        util.write_nonblock(client, problem_response(
            status, "request-timeout", title,
            f"the request line and headers did not arrive within {seconds:g} s"))
    except OSError:
        pass
    return False


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


def _write_problem(sock: socket.socket, status: int, reason: str, message: str) -> None:
    """gunicorn's error page, as a problem (``util.write_error``'s signature)."""
    kind = "internal-error" if status >= 500 and status != 501 else "malformed-request"
    util.write_nonblock(sock, problem_response(status, kind, reason, message or reason))


class Worker(SyncWorker):
    """gunicorn's sync worker with a deadline for each request's head, and problem bodies for
    the requests gunicorn refuses before the app sees them."""

    def init_process(self) -> None:
        # gunicorn writes its refusals with util.write_error, only from Worker.handle_error:
        # in this worker process, they are problems
        util.write_error = _write_problem
        solving.on_budget(self.notify)
        super().init_process()

    def handle(self, listener: Any, client: socket.socket, addr: Any) -> None:
        if self.cfg.is_ssl or head_arrives(client, beat=self.notify):
            # the arbiter's timeout runs from the last notify: waiting for the head must not
            # eat into the request's budget, which is sized against that timeout
            self.notify()
            super().handle(listener, client, addr)
            return
        self.log.warning("Request head not received within %g s from %s", HEAD_TIMEOUT,
                         addr[0] if isinstance(addr, tuple) else addr)
        util.close_graceful(client)     # (a plain close with the head unread resets it;
                                        # this lingers up to 2 s for the client to close)
