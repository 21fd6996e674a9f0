"""gunicorn settings for the hearts-dd API; ``hearts-dd serve`` runs gunicorn with this file.

Solving is CPU-bound, so: sync workers, one per core, each with its own solver and
transposition table. The request budgets (``api.config``) must stay well below ``timeout`` so a
worker answers "budget exceeded" long before gunicorn would kill it: each worker checks that
at start-up and refuses to boot otherwise. Workers are recycled after ``max_requests`` (with
jitter, so they do not all restart at once). Command-line options override these values.
"""
import os
import sys

wsgi_app = "api:create_app()"
bind = "127.0.0.1:8000"
workers = os.cpu_count() or 1
worker_class = "sync"
timeout = 30
graceful_timeout = 10
max_requests = 1000
max_requests_jitter = 100
accesslog = "-"
# gunicorn >= 27 opens a runtime control socket at one fixed path per user; two servers on
# one host would clash over it, and the service needs none
control_socket_disable = True

# seconds between the longest request budget and the worker timeout
BUDGET_MARGIN = 5


def post_worker_init(worker) -> None:  # type: ignore[no-untyped-def]
    """Refuse to serve when a request could outlive the worker timeout."""
    config = worker.wsgi.config
    longest = max(config["SOLVER_TIME_LIMIT"], config["ANNOTATE_TIME_LIMIT"])
    if not 0 < min(config["SOLVER_TIME_LIMIT"], config["ANNOTATE_TIME_LIMIT"]) \
            or longest > worker.cfg.timeout - BUDGET_MARGIN:
        worker.log.error("request budgets (SOLVER_TIME_LIMIT %g s, ANNOTATE_TIME_LIMIT %g s) must be "
                         "set and at least %d s below the worker timeout (%d s)",
                         config["SOLVER_TIME_LIMIT"], config["ANNOTATE_TIME_LIMIT"], BUDGET_MARGIN,
                         worker.cfg.timeout)
        sys.exit(3)  # gunicorn's "worker failed to boot": the arbiter stops
