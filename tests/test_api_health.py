"""The service's own failures, in process (``api.create_app``'s test client): a health check
that catches a wrong answer from the engine, and a bug answered as a problem without its
traceback (SPEC §5: a 5xx is for the service's faults, never for bad input)."""
from __future__ import annotations

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
