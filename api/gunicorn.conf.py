"""gunicorn settings for the hearts-dd API; ``hearts-dd serve`` runs gunicorn with this file.

Solving is CPU-bound, so: sync workers, one per core, each serving one request at a time (an
``annotate`` stream holds its worker until it ends) with its own solver and transposition
table (``api.worker.Worker``: gunicorn's sync worker, with a deadline for a request's head and
its own refusals as problem bodies). The request budgets (``api.config``)
must stay well below ``timeout`` so a worker answers "budget exceeded" long before gunicorn
would kill it (the worker tells the arbiter it is alive while it waits for a client's head or
body, and as a request's budget starts), and below
``graceful_timeout`` so a request in flight when the server stops still gets its whole answer:
each worker checks that at start-up and refuses to boot otherwise (a reload, SIGHUP, with such
settings keeps the previous ones: ``on_reload``). A client that sends its body
too slowly gets a 400 after ``BODY_TIMEOUT`` seconds of silence, and one that does not send its
request line and headers within ``api.worker.HEAD_TIMEOUT`` seconds a 408, instead of holding a
worker until gunicorn kills it (facing untrusted clients, a buffering proxy in front still
helps, as for any sync worker: each slow client holds a worker for those seconds). Workers are
recycled after ``max_requests`` (with jitter, so they do not all restart at once).
Command-line options override these values.
"""
import os
import sys
from pathlib import Path
from typing import Any

#: the directory that holds this ``api`` package and ``solver`` (site-packages, or a checkout)
HOME = str(Path(__file__).resolve().parents[1])


def _installed_first() -> None:
    """Import ``api`` and ``solver`` from ``HOME``, before the working directory: gunicorn puts
    that first on the import path (``python -m`` and its ``chdir``), and a directory of the
    user's named ``api`` or ``solver`` (a web project's often is) was imported instead, the
    workers failing to boot ("No module named 'api.worker'"). The working directory moves to
    the end of the path, where modules of the user's that gunicorn's settings name are still
    found; ``HOME`` keeps its place (site-packages after the standard library), or comes first
    when it is on no path (an editable install's import hook)."""
    from gunicorn.util import getcwd    # (gunicorn's own spelling of it, which it looks for)
    cwd = getcwd()
    sys.path[:] = [p for p in sys.path if p not in ("", cwd)]
    if HOME not in sys.path:
        sys.path.insert(0, HOME)
    sys.path.append(cwd)                # (not on the path at all, gunicorn puts it back first)


_installed_first()

wsgi_app = "api:create_app()"
bind = "127.0.0.1:8000"
workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
worker_class = "api.worker.Worker"
# above the budgets (60 s, api/config.py) by more than BUDGET_MARGIN
timeout = 90
graceful_timeout = 90
max_requests = 1000
max_requests_jitter = 100
accesslog = "-"
# gunicorn's default line, the seconds each request took (a budget's 422 from a quick one), and
# the type of the problem answered, if any (api.worker.Logger's atom: which 422 it was)
access_log_format = ('%(h)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s" %(L)ss '
                     '%(problem)s')
logger_class = "api.worker.Logger"
# gunicorn >= 27 opens a runtime control socket at one fixed path per user; two servers on
# one host would clash over it, and the service needs none
control_socket_disable = True

# seconds between the longest request budget and the worker timeout (and the graceful one)
BUDGET_MARGIN = 5
# seconds a worker waits for the next bytes of a request body
BODY_TIMEOUT = 10


def post_worker_init(worker: Any) -> None:
    """Refuse to serve when a request could outlive the worker timeout or a graceful stop
    (``hearts-dd serve`` checks the same before it starts gunicorn, with this file's values)."""
    from api.config import budget_problem
    problem = budget_problem(worker.wsgi.config, worker.cfg.timeout, worker.cfg.graceful_timeout,
                             BUDGET_MARGIN)
    if problem:
        worker.log.error("%s", problem)
        sys.exit(3)  # gunicorn's "worker failed to boot": the arbiter stops


def on_starting(server: Any) -> None:
    """Refuse a log level gunicorn does not know, which it takes as "info", unsaid (``hearts-dd
    serve`` says so before it starts gunicorn; this is for gunicorn started with this file).
    A binary upgrade (SIGUSR2) starts the new arbiter as ``python -m gunicorn``, as this one
    was: gunicorn ran ``sys.argv`` again, under ``-m`` its ``__main__.py`` as a script, whose
    folder, gunicorn's package, came first on the path, where its ``http`` hid the standard
    library's (every worker of the new arbiter failed to boot: "No module named 'http.server'",
    a page of log, and no upgrade)."""
    from gunicorn.glogging import Logger
    main = Path(sys.argv[0]) if sys.argv else Path()
    if main.name == "__main__.py" and main.parent.name == "gunicorn":
        # (-P: not the working directory first either, as ``hearts-dd serve`` starts it)
        server.START_CTX["args"] = [sys.executable, "-P", "-m", "gunicorn", *sys.argv[1:]]
    if server.cfg.loglevel.lower() not in Logger.LOG_LEVELS:
        server.log.error("--log-level %s: expected one of %s", server.cfg.loglevel,
                         ", ".join(Logger.LOG_LEVELS))
        if server.pidfile is not None:      # (written just before)
            server.pidfile.unlink()
        sys.exit(2)


def startup_problem(cfg: Any) -> str | None:
    """What the workers' start-up check (``post_worker_init``) will refuse in gunicorn's
    settings ``cfg`` and the ``HEARTS_DD_*`` environment: asked in a child process, with the
    code the new workers will run (the arbiter imports none of the app: api/__init__.py)."""
    import subprocess
    try:
        asked = subprocess.run([sys.executable, "-m", "api.config", str(cfg.timeout),
                                str(cfg.graceful_timeout), str(BUDGET_MARGIN)],
                               capture_output=True, text=True, timeout=60,
                               cwd=HOME)    # (-m imports from there first, as the workers do)
    except (OSError, subprocess.SubprocessError) as e:
        raise RuntimeError(f"the settings could not be checked: {e}") from None
    if asked.returncode:        # (the new code's own failure, which the new workers will meet)
        last = (asked.stderr.strip().splitlines() or ["no message"])[-1]
        raise RuntimeError(f"the settings could not be checked: {last}")
    return asked.stdout.strip() or None


def when_ready(server: Any) -> None:
    """The settings the service started with: a reload that fails the checks goes back to them."""
    server.hearts_dd_settled = server.cfg


def on_reload(server: Any) -> None:
    """A reload (SIGHUP) whose settings the workers would refuse keeps the ones before it, with
    one line in the log: gunicorn had stopped the old workers by the time the new ones failed
    to boot, and then the whole service ("Worker failed to boot"). Called in the arbiter with
    the reloaded settings in place, before it starts the new workers."""
    previous = getattr(server, "hearts_dd_settled", None)
    try:
        problem = startup_problem(server.cfg)
    except RuntimeError as e:       # (going back to the previous settings would not help)
        server.log.warning("Reload: %s", e)
        problem = None
    if problem is None or previous is None:
        server.hearts_dd_settled = server.cfg
        return
    for key in server.cfg.env:      # (the reloaded raw_env, which gunicorn put in os.environ)
        if key in server.cfg.env_orig:
            os.environ[key] = server.cfg.env_orig[key]
        else:
            os.environ.pop(key, None)
    server.app.cfg = previous
    server.setup(server.app)        # (which puts the previous raw_env back)
    try:        # (the new workers run the code installed now: it may refuse those too)
        again = startup_problem(previous)
    except RuntimeError:
        again = None
    if again is None:
        server.log.error("Reload refused, the service keeps its previous settings: %s", problem)
    else:
        server.log.error("Reload: the workers will refuse to start with the code installed now, "
                         "with the new settings as with the previous ones: %s",
                         problem if again == problem else f"{problem} (before: {again})")


def pre_fork(server: Any, worker: Any) -> None:
    """Hand the new worker the arbiter's signal queue and how much it held before the fork:
    until the worker sets its own handlers (``api.worker.Worker.init_signals``), the arbiter's,
    inherited through the fork, put a stop sent to the worker in the child's copy of that queue,
    where nothing read it (``api.worker.Worker.replay_early_stops``)."""
    worker.arbiter_queue = server.SIG_QUEUE
    worker.queued_at_fork = server.SIG_QUEUE.qsize()


def pre_request(worker: Any, req: Any) -> None:
    """A body read that waits ``BODY_TIMEOUT`` s for the client fails (a 400 problem); while it
    waits, the worker says it is alive (``api.worker.BeatingSocket``)."""
    from api.worker import BeatingSocket
    sock = getattr(req.unreader, "sock", None)
    if sock is not None:
        sock.settimeout(BODY_TIMEOUT)
        req.unreader.sock = BeatingSocket(sock, worker.notify, BODY_TIMEOUT)
