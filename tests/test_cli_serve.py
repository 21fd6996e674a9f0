"""``hearts-dd serve``'s checks before gunicorn starts (solver/cli_serve.py), and the service's
behaviour as an operator meets it: signals, reloads, its log."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Iterator

import pytest

import api.testing
from api.testing import _wait_healthy, free_port, served, started
from solver.cli_serve import gunicorn_argv, gunicorn_config, gunicorn_env_args

from signals import busy, children, family_cpu

ROOT = Path(__file__).resolve().parents[1]

#: a budget the slow question below never fits in, and a question that takes longer than it
SLOW_ENV = {"HEARTS_DD_SOLVER_TIME_LIMIT": "8", "HEARTS_DD_ANNOTATE_TIME_LIMIT": "8"}
SLOW = json.dumps({"deal": "N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4",
                   "rules": "spot"}).encode()


def serve(*args: str, env: dict[str, str] | None = None, timeout: float = 20) -> subprocess.CompletedProcess[str]:
    """``hearts-dd serve`` with these arguments, stopped (SIGTERM) if it is still running after
    ``timeout`` seconds: a check that fails lets gunicorn start."""
    proc = subprocess.Popen([sys.executable, "-m", "solver.cli", "serve", "--port", str(free_port()), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.mark.parametrize("level", ["nope", "warn", ""])
def test_a_log_level_gunicorn_does_not_know_is_refused(monkeypatch, level: str) -> None:
    """gunicorn took ``--log-level nope`` and logged at "info", unsaid."""
    monkeypatch.setenv("GUNICORN_CMD_ARGS", f"--log-level '{level}'")
    with pytest.raises(ValueError, match=f"^--log-level {level}: expected one of critical, error, "
                                         "warning, info, debug$"):
        gunicorn_env_args()


@pytest.mark.parametrize("level", ["debug", "WARNING"])
def test_the_log_levels_gunicorn_knows_are_taken(monkeypatch, level: str) -> None:
    monkeypatch.setenv("GUNICORN_CMD_ARGS", f"--log-level {level}")
    gunicorn_env_args()     # (taken: no ValueError)


def test_serve_refuses_a_bad_log_level_in_one_line() -> None:
    p = serve(env={"GUNICORN_CMD_ARGS": "--log-level nope"})
    assert p.returncode == 2 and p.stdout == "", p
    assert p.stderr == ("hearts-dd: error: serve: GUNICORN_CMD_ARGS: --log-level nope: expected one of "
                        "critical, error, warning, info, debug\n")


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    address: tuple[str, int]
    log: IO[str]

    def log_text(self) -> str:
        self.log.seek(0)
        return self.log.read()

    def worker(self) -> int:
        """The id of the only worker (``running(workers=1)``)."""
        [pid] = children(self.proc.pid)
        return pid


@contextmanager
def running(env: dict[str, str] | None = None, workers: int = 1) -> Iterator[Server]:
    """``hearts-dd serve`` (gunicorn's arbiter, once serve has exec'd it) with its log, for
    signals sent to it; stopped with SIGKILL of the whole group if it outlives the test."""
    def start(port: int, log: IO[str]) -> subprocess.Popen[bytes]:
        return subprocess.Popen([sys.executable, "-m", "solver.cli", "serve", "--port", str(port),
                                 "--workers", str(workers)], env={**os.environ, **(env or {})},
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    with started(start, stop, 30) as (proc, port, log):
        yield Server(proc, ("127.0.0.1", port), log)


def ask(address: tuple[str, int], body: bytes = SLOW) -> socket.socket:
    """A connection that has sent ``POST /analyze`` with ``body``."""
    s = socket.create_connection(address, timeout=30)
    s.sendall(b"POST /api/v1/analyze HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    return s


def answer(s: socket.socket) -> tuple[int, bytes, bytes]:
    """Status, head and body of the answer on ``s`` (0 when there is none)."""
    data = b""
    with s:
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return (int(head.split()[1]) if head else 0), head, body


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGQUIT])
def test_a_stop_as_the_workers_start_ends_the_service_at_once(signum: int) -> None:
    """A worker loaded the engine (a fifth of a second or more) before it set its signal
    handlers: a stop the arbiter passed on meanwhile met the arbiter's own handlers, inherited
    through the fork, and was dropped, and the arbiter waited its whole graceful timeout (90 s)
    for a worker that went on serving. (Sent as the workers' boot lines appear; that timeout
    made 600 s here, so that a bound a loaded machine's slow stop stays well within tells it
    apart.)"""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "solver.cli", "serve", "--port", str(port),
                             "--workers", "2"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True,
                            env={**os.environ, "GUNICORN_CMD_ARGS": "--graceful-timeout 600"})
    try:
        assert proc.stderr is not None
        booted = 0
        for line in proc.stderr:
            booted += "Booting worker" in line
            if booted == 2:
                break
        proc.send_signal(signum)
        start = time.monotonic()
        proc.wait(timeout=180)
        assert time.monotonic() - start < 120       # (a fifth of the graceful timeout)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        proc.stderr.close()


#: gunicorn settings: the service's, and a first worker that is sent a stop (the signal
#: below) after the fork and before it sets its own signal handlers
EARLY_STOP_CONF = """\
_ours = {{"__file__": {path!r}, "__name__": "hearts_dd_settings"}}
exec(compile(open({path!r}).read(), {path!r}, "exec"), _ours)
globals().update({{k: v for k, v in _ours.items() if not k.startswith("__")}})

def post_fork(server, worker):
    import os
    if worker.age == 1:
        os.kill(os.getpid(), {signum})
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGQUIT])
def test_a_stop_sent_to_a_worker_before_its_handlers_are_set_is_not_lost(tmp_path: Path,
                                                                          signum: int) -> None:
    """The race of the test above, made certain: between the fork and the worker's own handlers
    (gunicorn's ``post_fork`` hook runs then), the arbiter's handlers, inherited, queued a stop
    in the child's copy of the arbiter's queue and the worker went on serving. Now the worker
    sends it to itself again once its handlers are set, and ends."""
    conf = tmp_path / "early_stop.conf.py"
    conf.write_text(EARLY_STOP_CONF.format(path=str(gunicorn_config()), signum=int(signum)))
    argv = gunicorn_argv("127.0.0.1", free_port(), 1)
    argv[argv.index("--config") + 1] = str(conf)
    with tempfile.TemporaryFile("w+") as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline, text = time.monotonic() + 120, ""     # (one serving never exits)
            while time.monotonic() < deadline:
                log.seek(0)
                text = log.read()
                booted = [line.rsplit(" ", 1)[-1] for line in text.splitlines()
                          if "Booting worker with pid: " in line]
                if booted and f"Worker exiting (pid: {booted[0]})" in text:
                    break
                time.sleep(0.1)
            else:
                pytest.fail(f"the first worker went on serving:\n{text}")
        finally:
            stop(proc)
    assert "Traceback" not in text, text


def test_a_quick_stop_answers_the_request_being_solved_503_without_a_traceback() -> None:
    """It was answered 500, after the search in progress ended, and a SystemExit traceback
    went to the log."""
    with running(SLOW_ENV) as server:
        s = ask(server.address)
        busy(server.worker(), 1.0)                  # (a CPU second into the solving)
        start, sent_at = time.monotonic(), family_cpu(server.proc.pid)
        server.proc.send_signal(signal.SIGINT)
        status, head, body = answer(s)
        took = family_cpu(server.proc.pid) - sent_at     # (CPU: the search's 8 s fails)
        assert time.monotonic() - start < 60        # (a backstop)
        server.proc.wait(20)
        log = server.log_text()
    assert status == 503 and b"application/problem+json" in head, (head, body, log)
    assert json.loads(body)["type"] == "urn:hearts-dd:problem:stopping"
    assert took < 3, took
    assert "Traceback" not in log and "SystemExit" not in log, log
    assert "Quick stop: POST /api/v1/analyze answered 503 unsolved" in log
    assert '"POST /api/v1/analyze HTTP/1.1" 503 176 ' in log
    assert "s urn:hearts-dd:problem:stopping\n" in log


def test_a_quick_stop_before_a_stream_begins_is_logged_once_as_its_503() -> None:
    """annotate's answer is a stream, its head sent with its first record: a quick stop while
    that record was solved was answered 503, but the log had two lines for the request, a 200
    of no bytes (gunicorn's, as the app had returned its stream) and the 503."""
    pbn = (b'[Board "1"]\n[Deal "N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 '
           b'J865.AQ92.KT8.T4"]\n[HeartsRules "spot"]\n\n')
    with running(SLOW_ENV) as server:
        s = socket.create_connection(server.address, timeout=30)
        s.sendall(b"POST /api/v1/annotate HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                  b"Content-Length: %d\r\n\r\n" % len(pbn) + pbn)
        busy(server.worker(), 1.0)                  # (a CPU second into the first record)
        server.proc.send_signal(signal.SIGINT)
        status, head, body = answer(s)
        server.proc.wait(20)
        log = server.log_text()
    assert status == 503 and json.loads(body)["type"] == "urn:hearts-dd:problem:stopping"
    lines = [line for line in log.splitlines() if '"POST /api/v1/annotate' in line]
    assert len(lines) == 1 and '" 503 176 ' in lines[0], log


@pytest.mark.parametrize("change, words", [
    ("timeout = 12", "at least 5 s below the worker timeout (12 s)"),
    ("raw_env = ['HEARTS_DD_SOLVER_TIME_LIMIT=abc']", "setting SOLVER_TIME_LIMIT: expected a number"),
])
def test_a_reload_with_settings_the_workers_refuse_keeps_the_service(tmp_path, change: str, words: str) -> None:
    """gunicorn stopped the old workers, the new ones refused to boot, and the whole service
    stopped ("Worker failed to boot"); now the reload keeps the settings before it."""
    conf = tmp_path / "gunicorn.conf.py"
    conf.write_text(gunicorn_config().read_text())

    def start(port: int, log: IO[str]) -> subprocess.Popen[bytes]:
        argv = [sys.executable, "-m", "gunicorn", "--config", str(conf), "--bind",
                f"127.0.0.1:{port}", "--workers", "1"]
        return subprocess.Popen(argv, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)

    with started(start, stop, 30) as (proc, port, log):
        try:
            conf.write_text(conf.read_text() + f"\n{change}\n")
            proc.send_signal(signal.SIGHUP)
            deadline = time.monotonic() + 10
            while "Booting worker" not in log_after(log, "Handling signal: hup") \
                    and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
            time.sleep(1.0)             # (a worker that refuses to boot takes less)
            assert proc.poll() is None, log_after(log, "")
            _wait_healthy(f"http://127.0.0.1:{port}", proc, log, 10)
        finally:
            stop(proc)
        text = log_after(log, "Handling signal: hup")
    assert text.count("Reload refused, the service keeps its previous settings: ") == 1, text
    assert words in text and "Traceback" not in text, text


def test_a_reload_whose_code_refuses_the_previous_settings_too_says_so(tmp_path) -> None:
    """The reload went back to the previous settings, and said the service kept them, when the
    code installed since (a budget's default past the timeout) refused those too: the new
    workers failed to boot, and the service stopped."""
    package = tmp_path / "api"
    package.mkdir()
    for source in (ROOT / "api").glob("*.py"):
        (package / source.name).write_text(source.read_text())

    def start(port: int, log: IO[str]) -> subprocess.Popen[bytes]:
        argv = [sys.executable, "-m", "gunicorn", "--config", str(package / "gunicorn.conf.py"),
                "--bind", f"127.0.0.1:{port}", "--workers", "1"]
        return subprocess.Popen(argv, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})   # (api: the copy)

    with started(start, stop, 30) as (proc, port, log):
        try:
            config = package / "config.py"
            new = config.read_text().replace('Setting(60.0, float, 0, 3600, "seconds of solving',
                                             'Setting(88.0, float, 0, 3600, "seconds of solving')
            assert new != config.read_text()
            config.write_text(new)
            proc.send_signal(signal.SIGHUP)
            proc.wait(30)
        finally:
            stop(proc)
        text = log_after(log, "Handling signal: hup")
    assert "keeps its previous settings" not in text, text
    assert ("Reload: the workers will refuse to start with the code installed now, with the new "
            "settings as with the previous ones: request budgets (SOLVER_TIME_LIMIT 88 s, "
            "ANNOTATE_TIME_LIMIT 60 s) must be set") in text, text


def log_after(log: IO[str], mark: str) -> str:
    """The log from the end of ``mark`` on (all of it for "")."""
    log.seek(0)
    return log.read().partition(mark)[2] if mark else log.read()


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL for the whole group."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def assert_answered_at_once(server: Server) -> None:
    """The next quick question is answered within CPU seconds of the service: its worker is
    not still solving (which takes the budget's 8 s of CPU, however loaded the machine)."""
    start, used = time.monotonic(), family_cpu(server.proc.pid)
    status, _, _ = answer(ask(server.address, json.dumps(
        {"deal": "N:.A..2 .2..3 .3..4 .4..5"}).encode()))
    used = family_cpu(server.proc.pid) - used
    assert status == 200 and used < 3 and time.monotonic() - start < 60, (used, server.log_text())


def test_a_client_gone_stops_the_search_of_its_request() -> None:
    """A client that closed its connection (gave up waiting) left its worker solving for the
    whole budget, for nobody: the next request waited as long, here on the only worker."""
    with running(env=SLOW_ENV) as server:
        ask(server.address).close()
        time.sleep(1)
        assert_answered_at_once(server)
        text = server.log_text()
    assert "Client gone: POST /api/v1/analyze stopped unsolved" in text
    assert text.count("urn:hearts-dd:problem:client-gone") == 1, text
    assert "budget-exceeded" not in text and "Traceback" not in text


def test_a_client_gone_stops_an_annotate_stream() -> None:
    """A client that closed its connection during annotate's stream left its worker solving
    the record to the end of its budget, then the next ones, for nobody. Its access log line
    says so, as a request's does (it said "-", as for a stream sent whole)."""
    pbn = (b'[Board "1"]\n[Deal "N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 '
           b'J865.AQ92.KT8.T4"]\n[HeartsRules "spot"]\n\n') * 2
    with running(SLOW_ENV) as server:
        s = socket.create_connection(server.address, timeout=30)
        s.sendall(b"POST /api/v1/annotate HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                  b"Content-Length: %d\r\n\r\n" % len(pbn) + pbn)
        busy(server.worker(), 1.0)                  # (a CPU second into the first record)
        s.close()
        time.sleep(1.0)
        assert_answered_at_once(server)
        text = server.log_text()
    assert "Client gone: POST /api/v1/annotate stopped after 0 records" in text, text
    assert [line.rsplit(" ", 1)[1] for line in text.splitlines() if "POST /api/v1/annotate" in line
            and " 200 " in line] == ["urn:hearts-dd:problem:client-gone"], text
    assert "Traceback" not in text, text


def test_a_binary_upgrade_starts_an_arbiter_that_serves() -> None:
    """SIGUSR2, gunicorn's upgrade on the fly: the new arbiter's workers failed to boot ("No
    module named 'http.server'": gunicorn ran its ``__main__.py`` as a script, whose folder
    hid the standard library's ``http``), and the upgrade ended there. Here the new arbiter
    answers once the old one has stopped."""
    with running() as server:
        server.proc.send_signal(signal.SIGUSR2)
        deadline = time.monotonic() + 30
        while server.log_text().count("Booting worker") < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        masters = [int(line.rsplit("(", 1)[1].rstrip(")")) for line in server.log_text().splitlines()
                   if "Listening at" in line]
        assert len(masters) == 2 and masters[0] == server.proc.pid, server.log_text()
        try:
            stop(server.proc)       # (the new arbiter takes over the listening socket)
            status = 0
            while not status and time.monotonic() < deadline:
                try:
                    with socket.create_connection(server.address, timeout=10) as s:
                        s.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                        status = answer(s)[0]
                except OSError:
                    time.sleep(0.2)
        finally:
            with suppress(ProcessLookupError):
                os.kill(masters[1], signal.SIGTERM)
            while Path(f"/proc/{masters[1]}").exists() and time.monotonic() < deadline + 15:
                time.sleep(0.1)
        assert status == 200, server.log_text()
        assert "Worker failed to boot" not in server.log_text()


def test_the_access_log_names_the_problem_type_of_each_error() -> None:
    """It gave a 422's seconds but not which 422 it was (a bad deal, or the budget)."""
    def send(address: tuple[str, int], raw: bytes) -> int:
        with socket.create_connection(address, timeout=30) as s:
            s.sendall(raw)
            return answer(s)[0]

    bad_deal = json.dumps({"deal": "N:AKQ"}).encode()
    with running({"HEARTS_DD_SOLVER_NODE_LIMIT": "1000"}) as server:
        statuses = [answer(ask(server.address, SLOW))[0], answer(ask(server.address, bad_deal))[0],
                    send(server.address, b"GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n"),
                    send(server.address, b"GET /api/v1/rules HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n"),
                    send(server.address, b"GET /api/v1/rules HTTP/1.1\r\nHost: x\r\n\r\n")]
        time.sleep(0.3)                             # (the last line written)
        lines = [line for line in server.log_text().splitlines() if "\" 200 " in line or "\" 4" in line]
    assert statuses == [422, 422, 404, 400, 200]
    ends = [line.rsplit(" ", 2)[-2:] for line in lines[-5:]]
    assert [end[1] for end in ends] == ["urn:hearts-dd:problem:budget-exceeded",
                                        "urn:hearts-dd:problem:invalid-deal", "about:blank",
                                        "urn:hearts-dd:problem:malformed-request", "-"], lines
    assert all(end[0].endswith("s") and float(end[0][:-1]) >= 0 for end in ends), lines


@pytest.mark.parametrize("option, problem", [
    ("--access-logfile {tmp}/no/access.log", "--access-logfile {tmp}/no/access.log: no directory {tmp}/no"),
    ("--error-logfile {tmp}", "--error-logfile {tmp}: is a directory"),
    ("--pid {tmp}/no/x.pid", "--pid {tmp}/no/x.pid: no directory {tmp}/no"),
    ("--log-config {tmp}/none.ini", "--log-config {tmp}/none.ini: no such readable file"),
    ("--log-file={tmp}/no/error.log", "--log-file {tmp}/no/error.log: no directory {tmp}/no"),
    ("-p {tmp}/no/x.pid", "-p {tmp}/no/x.pid: no directory {tmp}/no"),
    ("--error-log {tmp}/no/e.log", "--error-logfile {tmp}/no/e.log: no directory {tmp}/no"),
    # (gunicorn met these only as it listened, or forked a worker: a traceback, exit 1 or 255)
    ("--certfile {tmp}/no/cert.pem", "--certfile {tmp}/no/cert.pem: no such readable file"),
    ("--keyfile {tmp}/key.pem", "--keyfile {tmp}/key.pem: no such readable file"),
    ("--worker-tmp-dir {tmp}/no", "--worker-tmp-dir {tmp}/no: no such directory"),
])
def test_files_gunicorn_could_not_open_are_refused(monkeypatch, tmp_path, option: str, problem: str) -> None:
    """gunicorn said so in two lines (a blank one, then "Error: Error: ...") with exit status
    1, or for the pid file only after it had started listening."""
    monkeypatch.setenv("GUNICORN_CMD_ARGS", option.format(tmp=tmp_path))
    with pytest.raises(ValueError) as caught:
        gunicorn_env_args()
    assert str(caught.value) == problem.format(tmp=tmp_path)
    assert not (tmp_path / "no").exists()


def test_files_gunicorn_can_open_are_taken(monkeypatch, tmp_path) -> None:
    (tmp_path / "log.ini").write_text("")
    monkeypatch.setenv("GUNICORN_CMD_ARGS", f"--access-logfile {tmp_path}/a.log --error-logfile - "
                                            f"--pid {tmp_path}/x.pid --log-config {tmp_path}/log.ini "
                                            f"--worker-tmp-dir {tmp_path}")
    gunicorn_env_args()     # (taken: no ValueError)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.ini"]      # (nothing created)


def test_a_file_there_that_cannot_be_written_is_refused(monkeypatch, tmp_path) -> None:
    """A pid file left read-only by an earlier run: gunicorn said so only once it had started.
    (Root may write any file: for it, the kernel's answer is stood in for, as for another user.)"""
    pid = tmp_path / "x.pid"
    pid.write_text("")
    pid.chmod(0o444)
    access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: access(path, mode) and not (
        Path(path) == pid and mode & os.W_OK))
    monkeypatch.setenv("GUNICORN_CMD_ARGS", f"--pid {pid}")
    with pytest.raises(ValueError, match=f"^--pid {pid}: not writable$"):
        gunicorn_env_args()


@pytest.mark.parametrize("host, bind", [("127.0.0.1", "127.0.0.1:8000"), ("::1", "[::1]:8000"),
                                        ("localhost", "localhost:8000")])
def test_gunicorn_is_bound_to_the_host_and_port_an_ipv6_address_in_brackets(host, bind) -> None:
    argv = gunicorn_argv(host, 8000, 3)
    assert argv[argv.index("--bind") + 1] == bind and argv[-2:] == ["--workers", "3"]
    assert "--workers" not in gunicorn_argv(host, 8000, None)


def test_no_writable_temporary_directory_is_refused_unless_one_is_given(monkeypatch, tmp_path) -> None:
    """With /tmp, /var/tmp and the working directory read-only (a read-only container), gunicorn
    logged a page of traceback as it forked the first worker (its heartbeat file) and stopped,
    exit status 255. (A test cannot make them so for root: tempfile's search is stood in for.)"""
    import tempfile
    from solver.cli_serve import settings_problem

    def none_usable() -> str:
        raise FileNotFoundError(2, "No usable temporary directory found in ['/tmp', '/var/tmp']")

    monkeypatch.setattr(tempfile, "gettempdir", none_usable)
    monkeypatch.delenv("GUNICORN_CMD_ARGS", raising=False)
    assert settings_problem() == (
        "no writable temporary directory for the workers' heartbeat files (TMPDIR, /tmp, /var/tmp, "
        "the working directory): set TMPDIR, or GUNICORN_CMD_ARGS='--worker-tmp-dir /dev/shm'")
    monkeypatch.setenv("GUNICORN_CMD_ARGS", f"--worker-tmp-dir={tmp_path}")
    assert settings_problem() is None


def test_the_arbiter_imports_none_of_the_app() -> None:
    """gunicorn's arbiter imported the worker class, ``api.worker``, and with it the whole app
    (``api/__init__.py`` built it): the workers a reload (SIGHUP) forked served the old code,
    unsaid. What the arbiter imports (the config file, the worker and logger classes) now
    leaves the app and the solver to the workers."""
    probe = (f"import runpy, sys\n"
             f"from gunicorn.config import Config\n"
             f"conf = runpy.run_path({str(gunicorn_config())!r})\n"
             f"cfg = Config()\n"
             f"cfg.set('worker_class', conf['worker_class'])\n"
             f"cfg.set('logger_class', conf['logger_class'])\n"
             f"assert cfg.worker_class.__name__ == 'Worker' and cfg.logger_class.__name__ == 'Logger'\n"
             f"print(sorted(m for m in sys.modules if m.split('.')[0] in ('flask', 'apiflask', 'solver')"
             f" or m in ('api.app', 'api.problems', 'api.solving', 'api.config')))\n")
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert p.returncode == 0 and p.stdout == "[]\n", p


def test_threads_the_workers_would_not_run_are_refused(monkeypatch) -> None:
    """gunicorn runs threads for its sync worker by name only: ``--threads 4`` started the
    service's workers as before, one request at a time each, unsaid."""
    for threads in (2, 4):
        monkeypatch.setenv("GUNICORN_CMD_ARGS", f"--threads {threads}")
        with pytest.raises(ValueError, match=f"^--threads {threads}: each worker serves one request "
                                             r"at a time \(give serve --workers instead\)$"):
            gunicorn_env_args()
    monkeypatch.setenv("GUNICORN_CMD_ARGS", "--threads 1")
    gunicorn_env_args()     # (taken: no ValueError)


def test_gunicorn_started_with_the_config_file_refuses_a_bad_log_level() -> None:
    """Without ``hearts-dd serve`` (which checks first) gunicorn took ``--log-level nope`` and
    logged at "info"."""
    argv = [sys.executable, "-m", "gunicorn", "--config", str(gunicorn_config()), "--bind",
            f"127.0.0.1:{free_port()}", "--workers", "1", "--log-level", "nope"]
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        stop(proc)
        out, err = proc.communicate()
    assert proc.returncode == 2, err
    errors = [line for line in err.splitlines() if "[ERROR]" in line]
    assert len(errors) == 1 and errors[0].endswith(
        "--log-level nope: expected one of critical, error, warning, info, debug"), err
    assert "Booting worker" not in err


REFUSALS = [([], {"HEARTS_DD_SOLVER_TIME_LIMIT": "abc"}, "setting SOLVER_TIME_LIMIT"),
            ([], {"HEARTS_DD_SOLVER_TIME_LIMIT": "86"}, "at least 5 s below the worker timeout"),
            ([], {"HEARTS_DD_ANNOTATE_TIME_LIMIT": "0"}, "must be set (not 0)"),
            ([], {"GUNICORN_CMD_ARGS": "--timeout 12"}, "below the worker timeout (12 s)"),
            ([], {"GUNICORN_CMD_ARGS": "--graceful-timeout 9"}, "graceful timeout (9 s)"),
            ([], {"GUNICORN_CMD_ARGS": "-t abc"}, "GUNICORN_CMD_ARGS: argument -t/--timeout"),
            ([], {"GUNICORN_CMD_ARGS": "--no-such"}, "GUNICORN_CMD_ARGS: unrecognized"),
            ([], {"GUNICORN_CMD_ARGS": "--name 'x"}, "GUNICORN_CMD_ARGS: No closing"),
            ([], {"GUNICORN_CMD_ARGS": "--timeout -1"}, "--timeout -1: Value must be positive"),
            ([], {"GUNICORN_CMD_ARGS": "--workers 0"}, "--workers 0: no worker would answer"),
            ([], {"GUNICORN_CMD_ARGS": "--chdir /no/such/dir"}, "--chdir /no/such/dir:"),
            ([], {"GUNICORN_CMD_ARGS": "--user no-such-user"}, "--user no-such-user:"),
            ([], {"GUNICORN_CMD_ARGS": "--worker-class nosuch"}, "no such worker class"),
            ([], {"GUNICORN_CMD_ARGS": "--bind 127.0.0.1:1"}, "give serve's --host and --port"),
            ([], {"HEARTS_DD_SOLVER_TIMELIMT": "5"}, "did you mean HEARTS_DD_SOLVER_TIME_LIMIT"),
            (["--host", ""], {}, "--host is empty"), (["--host", " "], {}, "--host is empty"),
            (["--host", "999.1.1.1"], {}, "cannot resolve --host '999.1.1.1'"),
            (["--host", "[fe80::zz]"], {}, "cannot resolve --host 'fe80::zz'")]


def test_serve_refuses_what_gunicorn_would_retry_or_log_pages_about(monkeypatch) -> None:
    """One line and exit 2 before gunicorn starts: a port in use (one this test holds), an
    empty host (gunicorn would listen everywhere), a host that is no address, a bad setting.
    The port in use through the installed command's process; the others in-process (the same
    checks, the same ``fail``: test_serve_refuses_a_bad_log_level_in_one_line shows that line
    and status from a real process), where gunicorn, had a check let it through, is not run."""
    from click.testing import CliRunner

    from solver.cli import cli

    def no_gunicorn(path: str, argv: list[str]) -> None:
        raise AssertionError(f"serve started gunicorn: {argv}")

    monkeypatch.setattr(os, "execv", no_gunicorn)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        p = subprocess.run([str(Path(sys.executable).with_name("hearts-dd")), "serve", "--port", port],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 2 and p.stdout == "", p
        assert p.stderr.count("\n") == 1 and f"cannot listen on 127.0.0.1:{port}" in p.stderr, p.stderr
        for args, env, words in [(["--port", port], {}, f"cannot listen on 127.0.0.1:{port}"), *REFUSALS]:
            # (the port free_port gives, as serve() in this file does: 8000 may be in use)
            more = [] if args[:1] == ["--port"] else ["--port", str(free_port())]
            r = CliRunner().invoke(cli, ["serve", *args, *more], env={"GUNICORN_CMD_ARGS": None, **env})
            assert r.exit_code == 2 and r.stdout == "", (args, env, r.output, r.exception)
            assert r.stderr.count("\n") == 1 and r.stderr.startswith("hearts-dd: error: serve: "), r.stderr
            assert words in r.stderr, r.stderr


def test_workers_refuse_budgets_beyond_a_timeout_given_to_gunicorn():
    """Gunicorn started with the config file but without ``hearts-dd serve``, which checks
    the budgets first: each worker checks them against the timeout gunicorn gives it."""
    argv = gunicorn_argv("127.0.0.1", free_port(), 1) + ["--timeout", "10"]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and "at least 5 s below the worker timeout (10 s)" in p.stderr


def test_serve_help_lists_the_settings_with_their_defaults() -> None:
    """It said "see api/config.py", a file a user of the installed command never sees."""
    from api.config import DEFAULTS
    p = subprocess.run([sys.executable, "-m", "solver.cli", "serve", "--help"], capture_output=True,
                       text=True, timeout=60, env={**os.environ, "COLUMNS": "80"})
    assert p.returncode == 0 and max(map(len, p.stdout.splitlines())) <= 80, p.stdout
    for name, default in DEFAULTS.items():
        shown = f"{default:g}" if isinstance(default, float) else str(default)
        assert f"HEARTS_DD_{name}={shown}\n" in p.stdout, name
    assert "worker timeout is 90 s" in p.stdout



def test_serve_runs_its_own_packages_from_a_directory_with_an_api_of_its_own(tmp_path) -> None:
    """Started where a directory ``api`` (or ``solver``) is, as in many a web project, the
    workers imported that one and failed to boot ("No module named 'api.worker'"), and a
    reload's check (``python -m api.config``) failed: gunicorn imports from its working
    directory first. The installed command is run, as a user runs it."""
    for name in ("api", "solver"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f"raise ImportError('the wrong {name}')\n")

    def start(port: int, log: IO[str]) -> subprocess.Popen[bytes]:
        return subprocess.Popen([str(Path(sys.executable).with_name("hearts-dd")), "serve", "--port",
                                 str(port), "--workers", "1"], cwd=tmp_path, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)

    with started(start, stop, 30) as (proc, port, log):
        try:
            proc.send_signal(signal.SIGHUP)
            deadline = time.monotonic() + 20
            while "Booting worker" not in log_after(log, "Handling signal: hup") \
                    and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
            _wait_healthy(f"http://127.0.0.1:{port}", proc, log, 10)
        finally:
            stop(proc)
        text, reloaded = log_after(log, ""), log_after(log, "Handling signal: hup")
    assert "Booting worker" in reloaded, text
    assert "the wrong" not in text and "Traceback" not in text, text


def test_serve_imports_nothing_from_the_working_directory(tmp_path) -> None:
    """``hearts-dd serve`` ran ``python -m gunicorn``, which puts the working directory first
    on the import path: a ``gunicorn.py`` there (or ``selectors.py``, a module gunicorn imports
    as it starts) ran instead, as the user who started the service in a directory others can
    write to (a shared upload directory, /tmp)."""
    marker = tmp_path / "ran"
    for name in ("gunicorn", "selectors", "setproctitle"):
        (tmp_path / f"{name}.py").write_text(
            f"open({str(marker)!r}, 'a').write({name!r} + chr(10))\n")

    def start(port: int, log: IO[str]) -> subprocess.Popen[bytes]:
        # (-P: as the hearts-dd script runs, with no working directory on its path)
        argv = [sys.executable, "-P", "-m", "solver.cli", "serve", "--port", str(port), "--workers", "1"]
        return subprocess.Popen(argv, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True, env={**os.environ, "PYTHONPATH": str(ROOT)})

    with started(start, stop, 30):
        pass
    assert not marker.exists(), marker.read_text()


def test_a_port_taken_before_the_service_binds_it_is_not_mistaken_for_the_service(monkeypatch):
    """free_port's port is free when it looks, not when the service binds it: another program
    there, answering 200 to the health check, was taken for the service (whose bind failed).
    The service counts as up only once its own log says it listens there; else another port."""
    class Health(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Length", "8")
            self.end_headers()
            self.wfile.write(b"not ours")

        def log_message(self, *args):
            pass

    squatter = ThreadingHTTPServer(("127.0.0.1", 0), Health)
    taken = squatter.server_address[1]
    ports = iter([taken])
    monkeypatch.setattr(api.testing, "free_port", lambda: next(ports, None) or free_port())
    thread = threading.Thread(target=squatter.serve_forever)
    thread.start()
    try:
        with served(workers=1) as base:
            assert base != f"http://127.0.0.1:{taken}"
            with urllib.request.urlopen(base + "/api/v1/health", timeout=10) as resp:
                assert resp.status == 200 and resp.read() != b"not ours"
    finally:
        squatter.shutdown()
        squatter.server_close()
        thread.join()


def test_this_files_own_services_start_again_on_another_port_when_theirs_was_taken(monkeypatch):
    """The services this file starts its own way (``running``, the reload tests) waited for
    their own "Listening at" line, but a port taken by another program before the service
    bound it ended the test (PortTaken) where ``served`` starts its service again on another
    port. Both now start through ``api.testing.started``."""
    real_free_port = free_port
    squatter = socket.socket()
    squatter.bind(("127.0.0.1", 0))
    squatter.listen()
    taken = squatter.getsockname()[1]
    ports = iter([taken])

    def port() -> int:
        return next(ports, None) or real_free_port()

    # (wherever the service's port is taken from: api.testing's, or this file's own import)
    monkeypatch.setattr(api.testing, "free_port", port)
    monkeypatch.setitem(globals(), "free_port", port)
    with squatter, running() as server:
        assert server.address[1] != taken
        with urllib.request.urlopen(f"http://127.0.0.1:{server.address[1]}/api/v1/health", timeout=10) as resp:
            assert resp.status == 200
        assert f"Listening at: http://127.0.0.1:{server.address[1]} ({server.proc.pid})" in server.log_text()
