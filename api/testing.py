"""The real service in a subprocess, for tests and benchmarks that talk HTTP to it.

``served`` starts ``hearts-dd serve`` (gunicorn with the repo's config) on a free loopback port,
waits until ``/api/v1/health`` answers, and stops it again; its log is kept for error messages.
``started`` does the same for a service a test starts its own way.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from typing import IO, Callable, Iterator, Mapping

from .config import API_PREFIX


def free_port() -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def served(workers: int = 2, env: Mapping[str, str] | None = None,
           start_timeout: float = 30.0) -> Iterator[str]:
    """The base URL of a running service with these workers and ``HEARTS_DD_*`` settings."""
    def start(port: int, log: IO[str]) -> subprocess.Popen[bytes]:
        argv = [sys.executable, "-m", "solver.cli", "serve", "--port", str(port), "--workers", str(workers)]
        return subprocess.Popen(argv, env={**os.environ, **(env or {})}, stdout=log,
                                stderr=subprocess.STDOUT)

    with started(start, _ended, start_timeout) as (_, port, _):
        yield f"http://127.0.0.1:{port}"


@contextmanager
def started(start: Callable[[int, IO[str]], subprocess.Popen[bytes]],
            stop: Callable[[subprocess.Popen[bytes]], None], timeout: float = 30.0,
            tries: int = 5) -> Iterator[tuple[subprocess.Popen[bytes], int, IO[str]]]:
    """``start(port, log)``'s service, its port and its log, once it listens on the port
    free_port gave and answers there (``_wait_healthy``); ``stop``'d after. A port another
    program took before the service bound it (PortTaken) is no failure of the service: it is
    started again on another."""
    for tries_left in reversed(range(tries)):
        port = free_port()
        with tempfile.TemporaryFile("w+") as log:
            proc = start(port, log)
            try:
                try:
                    _wait_healthy(f"http://127.0.0.1:{port}", proc, log, timeout)
                except PortTaken:
                    if tries_left:
                        continue        # (another port, in a new service)
                    raise
                yield proc, port, log
                return
            finally:
                stop(proc)


def _ended(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if it has not ended within 15 s."""
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class PortTaken(RuntimeError):
    """Another program took the port free_port gave between its check and the service's bind."""


def _wait_healthy(base: str, proc: subprocess.Popen[bytes], log: IO[str], timeout: float,
                  ours: bool = True) -> None:
    """Until ``proc`` answers at ``base``. With ``ours``, only once its log (gunicorn's, at level
    info) says it listens there: a port free_port gave may be taken by another program before
    the service binds it, and that program's answer is not the service's. Then PortTaken."""
    deadline = time.monotonic() + timeout
    listening = f"Listening at: {base} ({proc.pid})"
    while time.monotonic() < deadline:
        exited = proc.poll() is not None
        if ours:
            # (read where it stands: a seek would move where the service writes, as they share
            # the open file)
            fd = log.fileno()
            text = os.pread(fd, os.fstat(fd).st_size, 0).decode(errors="replace")
            where = base.removeprefix("http://")
            # (serve's own check of the port, or gunicorn's bind after it)
            if f"cannot listen on {where}: Address already in use" in text or \
                    f"Connection in use: {where}" in text:
                raise PortTaken(f"{base} was taken before the service bound it")
            if listening not in text and not exited:
                time.sleep(0.1)
                continue
        if exited:
            break
        try:
            with urllib.request.urlopen(base + API_PREFIX + "/health", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    log.seek(0)
    tail = "".join(log.readlines()[-20:])
    raise RuntimeError(f"the service at {base} did not become healthy "
                       f"(exit status {proc.poll()}); its log ends:\n{tail}")
