"""The service's own failures, in process (``api.create_app``'s test client): a health check
that catches a wrong answer from the engine, and a bug answered as a problem without its
traceback (SPEC §5: a 5xx is for the service's faults, never for bad input)."""
from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from api import create_app, service
from solver.analysis import Solver

SMALL = {"deal": "N:.A..2 .2..3 .3..4 .4..5"}    # the health check's own endgame


def problem_body(resp, status: int, type_suffix: str) -> dict:
    assert resp.status_code == status, resp.get_data(as_text=True)
    assert resp.headers["Content-Type"] == "application/problem+json"
    body = resp.get_json()
    assert body["status"] == status and body["type"].endswith(type_suffix) and body["title"]
    return body


def test_health_is_unavailable_when_the_engine_answers_wrong(monkeypatch: pytest.MonkeyPatch) -> None:
    """``/health`` solves its endgame and compares the answer with the one it knows: an engine
    that answers wrong is a worker that cannot solve, a 503, not a 200 "ok". (A check that
    compared the answer with itself passed every engine.)"""
    client = create_app({}).test_client()
    assert client.get("/api/v1/health").status_code == 200      # the real engine is right
    right = service.HEALTH_ANSWER
    wrong = {**right, "N": right["E"], "E": right["N"]}           # N's moon given to E
    monkeypatch.setattr(service, "HEALTH_ANSWER", wrong)
    body = problem_body(client.get("/api/v1/health"), 503, "unavailable")
    assert "wrong answer" in body["detail"]


def test_a_health_check_keeps_the_workers_table_for_the_next_request() -> None:
    """The check solved its endgame (a moon total of 4) on the worker's solver, whose table a
    new moon total empties: one probe after another, a repeated question was solved afresh."""
    client = create_app({}).test_client()
    asked = {"deal": "N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4",
             "play": "C2 C6 C5 CT DT D7 D9 DQ CJ C4 CK CQ"}
    first = client.post("/api/v1/analyze", json=asked).get_json()["nodes"]
    assert client.get("/api/v1/health").status_code == 200
    again = client.post("/api/v1/analyze", json=asked).get_json()["nodes"]
    assert first > 100_000 and again < first // 100


def test_a_health_check_allocates_the_workers_table_before_any_request() -> None:
    """A worker whose table no request has allocated yet has it allocated by ``/health``, so
    that the check answers for what a request needs (its own endgame is solved on a small
    solver); a second check leaves the table as it is."""
    app = create_app({"SOLVER_TABLE_MB": 4})
    client = app.test_client()
    solver = app.extensions["hearts_dd.solver"][1]
    assert solver.engines == ()
    assert client.get("/api/v1/health").status_code == 200
    engines = solver.engines
    assert engines and client.get("/api/v1/health").status_code == 200
    assert solver.engines == engines


def _in_a_worker_of_too_little_memory(requests: str) -> tuple[list, list[str]]:
    """Run ``requests`` (Python, making ``client`` requests and printing a JSON answer) in a
    process whose memory limit (``ulimit -v``, 1 GiB) leaves room for Python and the app but
    not for its table of 2048 MB: the answer printed, and the message of each error logged."""

    script = ("import json\n"
              "from api import create_app\n"
              "client = create_app({'SOLVER_TABLE_MB': 2048}).test_client()\n" + requests)
    limit = 1 << 30
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parent.parent,
                         preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    return (json.loads(run.stdout),
            [line.split("] ERROR in ")[1].split(": ", 1)[1] for line in run.stderr.splitlines()])


def test_health_is_unavailable_when_the_workers_table_does_not_fit() -> None:
    """Under a memory limit (``ulimit -v``) below the worker's table, ``/health`` answered "ok"
    from its small solver while every request was a 503: now it is a 503 too, with one log line
    that names the setting to lower."""
    (status, body), errors = _in_a_worker_of_too_little_memory(
        "resp = client.get('/api/v1/health')\n"
        "print(json.dumps([resp.status_code, resp.get_json()]))\n")
    assert status == 503 and body["type"].endswith(":unavailable")
    assert body["detail"] == ("this worker is out of memory: cannot allocate a transposition "
                              "table of 2147483648 bytes")
    assert errors == ["Health check failed: out of memory: cannot allocate a transposition table "
                      "of 2147483648 bytes (a smaller HEARTS_DD_SOLVER_TABLE_MB may fit)"]


def test_a_bug_in_a_request_is_a_500_problem_without_its_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception no handler knows is the service's fault: 500 ``internal-error``, with a
    detail that points to the log and shows neither the exception's text nor a traceback."""
    client = create_app({}).test_client()
    assert client.post("/api/v1/analyze", json=SMALL).status_code == 200

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(Solver, "analyze", boom)
    resp = client.post("/api/v1/analyze", json=SMALL)
    problem_body(resp, 500, "internal-error")
    text = resp.get_data(as_text=True)
    assert "boom" not in text and "Traceback" not in text and "RuntimeError" not in text


def test_a_worker_out_of_memory_is_a_503_and_one_log_line() -> None:
    """A worker whose table is beyond its memory limit (``ulimit -v``, a worker's table allocated
    at its first request): each request was a 500 ``internal-error`` with a traceback in the
    log, and an ``annotate`` stream was cut off at its first record, while ``/health`` (a small
    solver of its own) answered "ok". Now a 503 ``unavailable``, one log line that names the
    setting to lower, and each record of a stream its error, as ``hearts-dd annotate`` gives."""
    (status, body, stream_status, stream), errors = _in_a_worker_of_too_little_memory(
        f"one = client.post('/api/v1/analyze', json={SMALL!r})\n"
        "pbn = open('data/sample.pbn', 'rb').read()\n"
        "stream = client.post('/api/v1/annotate', data=pbn, content_type='text/plain')\n"
        "print(json.dumps([one.status_code, one.get_json(), stream.status_code,\n"
        "                  stream.get_data(as_text=True)]))\n")
    assert status == 503 and body["type"].endswith(":unavailable")
    assert body["detail"] == "this worker is out of memory; the error is in its log"
    said = "Out of memory: POST /api/v1/%s: cannot allocate a transposition table of 2147483648 " \
           "bytes (a smaller HEARTS_DD_SOLVER_TABLE_MB may fit)"
    assert errors == [said % "analyze", said % "annotate"]
    records = [json.loads(line) for line in stream.splitlines()]
    assert stream_status == 200 and len(records) == 5
    assert all(r["players"] is None and r["error"].endswith(
        "not annotated: out of memory (cannot allocate a transposition table of 2147483648 bytes)")
        for r in records)
