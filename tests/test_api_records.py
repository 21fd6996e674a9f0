"""``POST /api/v1/annotate`` through a real gunicorn server: the same output as
``hearts-dd annotate`` for the same PBN text, streamed, and problems for bad requests.
"""
from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest
import requests
from click.testing import CliRunner
from werkzeug.serving import make_server

from api import create_app
from api.testing import served
from benchmarks.record_files import endgame_file
from solver.cli_records import annotate
from solver.deal import Deal

# endgame records (4 cards a hand), some with a recorded play, one broken game between them
PBN = endgame_file(6, seed=3, hand_size=4, play_cards=7) + b'\n[Event "broken"]\n[Deal "N:AK.. .AK.. ..AK."]\n\n' \
    + endgame_file(3, seed=4, hand_size=3, rules="omnibus")


@pytest.fixture(scope="module")
def base_url() -> Any:
    with served(workers=2) as url:
        yield url


def cli_output(tmp_path: Path, fmt: str, *options: str) -> bytes:
    source = tmp_path / "in.pbn"
    source.write_bytes(PBN)
    result = CliRunner().invoke(annotate, [str(source), "--format", fmt, "--jobs", "1", *options])
    assert result.exit_code == 1, result.output  # the broken game is an error record
    return result.stdout_bytes


def post(base_url: str, body: bytes, stream: bool = False, **params: str | list[str]) -> requests.Response:
    return requests.post(base_url + "/api/v1/annotate", params=params, data=body, timeout=60,
                         headers={"Content-Type": "application/x-pbn"}, stream=stream)


def test_jsonl_is_what_the_cli_writes_streamed(base_url, tmp_path):
    resp = post(base_url, PBN)
    assert resp.status_code == 200
    assert resp.headers["Content-Type"] == "application/jsonl"
    assert resp.headers.get("Transfer-Encoding") == "chunked"  # streamed, not buffered
    lines = [json.loads(line) for line in resp.content.splitlines()]
    assert lines == [json.loads(line) for line in cli_output(tmp_path, "jsonl").splitlines()]
    assert [line["index"] for line in lines] == list(range(10))
    assert [line["error"] is not None for line in lines] == [False] * 6 + [True] + [False] * 3
    assert any(line["review"] for line in lines), "recorded plays are reviewed"


def test_the_document_offers_the_body_as_bytes_too(base_url):
    """The document gave the PBN body as text/plain alone, which openapi-python-client (for
    one) cannot send: its client had no annotate. Sent as bytes, it is answered the same."""
    spec = create_app().test_client().get("/openapi.json").get_json()
    content = spec["paths"]["/api/v1/annotate"]["post"]["requestBody"]["content"]
    assert content["application/octet-stream"]["schema"] == {"type": "string", "format": "binary"}
    assert content["text/plain"]["schema"] == {"type": "string"}
    answers = [requests.post(base_url + "/api/v1/annotate", data=PBN, timeout=60,
                             headers={"Content-Type": media}) for media in content]
    assert [a.status_code for a in answers] == [200, 200]
    assert answers[0].content == answers[1].content


def test_the_document_s_query_parameters_admit_only_what_a_query_string_can_send(base_url):
    """``rules`` was documented as a preset or null; a query string has no null, and what a
    client sends for one (``?rules=``, ``?rules=null``) is refused 422: leave it out instead."""
    spec = create_app().test_client().get("/openapi.json").get_json()
    for param in spec["paths"]["/api/v1/annotate"]["post"]["parameters"]:
        schema = param["schema"]
        named = schema.get("$ref", "").removeprefix("#/components/schemas/")
        kind = spec["components"]["schemas"][named]["type"] if named else schema["type"]
        assert kind == "string" and "anyOf" not in schema, param
        assert schema.get("default", "") is not None, param
        assert not param["required"]
    for null in ("", "null"):
        resp = post(base_url, PBN, rules=null)
        assert resp.status_code == 422 and "rules: unknown value" in resp.json()["detail"]


@pytest.mark.parametrize("fmt", ["jsonl", "pbn", "csv", "text"])
def test_a_buffering_proxy_is_told_to_pass_each_record_on(base_url, fmt):
    """nginx buffers a proxied answer by default: through it, a client got every record at the
    end (four records of 11 cards a hand: the first after 7 s with the rest, where the service
    wrote it after 2.5 s). The stream asks for no buffering in the header nginx honours."""
    resp = post(base_url, PBN, format=fmt)
    assert resp.status_code == 200
    assert resp.headers.get("X-Accel-Buffering") == "no"


@pytest.mark.parametrize("fmt", ["pbn", "csv", "text"])
def test_other_formats_are_what_the_cli_writes(base_url, tmp_path, fmt):
    resp = post(base_url, PBN, format=fmt)
    assert resp.status_code == 200
    assert resp.headers["Content-Type"].split(";")[0] == {
        "pbn": "application/x-pbn", "csv": "text/csv", "text": "text/plain"}[fmt]
    assert resp.content == cli_output(tmp_path, fmt)


def test_rules_for_records_without_a_rules_tag(base_url, tmp_path):
    resp = post(base_url, PBN, rules="spot")
    assert resp.status_code == 200
    assert resp.content.splitlines() == cli_output(tmp_path, "jsonl", "--rules", "spot").splitlines()
    assert {json.loads(line)["rules"] for line in resp.content.splitlines()} >= {"spot", "omnibus"}


@pytest.mark.parametrize("body, params, status, kind, words", [
    (b"", {}, 422, "invalid-pbn", "body: no PBN game"),
    (PBN, {"rules": "hearts-deluxe"}, 422, "invalid-request", 'rules: unknown value "hearts-deluxe"'),
    (PBN, {"rules": '{"moon": "none"}'}, 422, "invalid-request", "rules: unknown value"),
    (PBN, {"format": "xml"}, 422, "invalid-request", "format: unknown value \"xml\""),
    (PBN, {"colour": "red"}, 422, "invalid-request", "colour: is not a known field"),
    (PBN, {"format": ["pbn", "csv"]}, 422, "invalid-request", "format: given more than once"),
    (PBN, {"rules": ["omnibus", "zz"]}, 422, "invalid-request", "rules: given more than once"),
    (b"[Event \"big\"]\n" + b";" * (1 << 20), {}, 413, "too-large", "1048576 bytes"),
])
def test_bad_request_is_a_problem(base_url, body, params, status, kind, words):
    resp = post(base_url, body, **params)
    assert resp.status_code == status, resp.text
    assert resp.headers["Content-Type"] == "application/problem+json"
    problem = resp.json()
    assert problem["type"].endswith(kind)
    assert words in problem["detail"]


@pytest.mark.parametrize("solver_limit", [10.0, 0.0])
def test_a_record_the_request_budget_cuts_short_names_the_budget(solver_limit):
    """Its error gave "the time limit of 0.998846 s", what was left of the budget, which
    nobody had set; the records after it named the budget."""
    app = create_app({"ANNOTATE_TIME_LIMIT": 0.3, "SOLVER_TIME_LIMIT": solver_limit,
                      "SOLVER_TABLE_MB": 8})
    hard = f'[Deal "{Deal.random(3).pbn()}"]\n\n'.encode()  # a full deal: seconds to solve
    lines = [json.loads(line) for line in
             app.test_client().post("/api/v1/annotate", data=hard * 2).get_data().splitlines()]
    assert lines[0]["error"] == ("line 1: the request's compute budget of 0.3 s ran out; send "
                                 "fewer records at a time")
    assert lines[1]["error"] == ("line 3: not annotated: the request's compute budget of 0.3 s "
                                 "ran out; send fewer records at a time")


def test_a_record_its_own_limit_cuts_short_names_that_limit():
    app = create_app({"ANNOTATE_TIME_LIMIT": 100.0, "SOLVER_TIME_LIMIT": 0.3, "SOLVER_TABLE_MB": 8})
    hard = f'[Deal "{Deal.random(3).pbn()}"]\n\n'.encode()
    line = json.loads(app.test_client().post("/api/v1/annotate", data=hard).get_data())
    assert line["error"] == "line 1: no answer within the time limit of 0.3 s"


def test_records_past_the_request_budget_get_an_error_line_each():
    app = create_app({"ANNOTATE_TIME_LIMIT": 1e-6})
    resp = app.test_client().post("/api/v1/annotate", data=PBN)
    assert resp.status_code == 200
    lines = [json.loads(line) for line in resp.get_data().splitlines()]
    assert [line["index"] for line in lines] == list(range(10))
    assert all("compute budget of 1e-06 s ran out" in line["error"] for line in lines)
    assert all(line["players"] is None for line in lines)


@pytest.mark.parametrize("config, words", [
    ({"SOLVER_TIME_LIMIT": 2.0}, "no answer within the limits of 2 s and 1000 nodes per search"),
    ({"SOLVER_TIME_LIMIT": 0, "ANNOTATE_TIME_LIMIT": 100.0},     # (the request's budget its limit)
     "the request's compute budget of 100 s ran out; send fewer records at a time (or the node "
     "limit of 1000 nodes per search)"),
])
def test_a_record_stopped_by_the_node_limit_says_so(config, words):
    """It said "no answer within the time limit of 2 s" after a millisecond."""
    app = create_app({**config, "SOLVER_NODE_LIMIT": 1000})
    body = f'[Deal "{Deal.random(19).pbn()}"]\n'.encode()
    [line] = [json.loads(x) for x in app.test_client().post("/api/v1/annotate", data=body).get_data().splitlines()]
    assert line["error"] == f"line 1: {words}"


def test_a_stream_waiting_for_its_client_holds_no_solver():
    """The stream held the worker's solver from its first record to its last, also while its
    client had not read on: another request to the worker waited for the whole stream."""
    app = create_app()
    whole = app.test_client().post("/api/v1/annotate", data=PBN).get_data()
    stream = app.test_client().post("/api/v1/annotate", data=PBN, buffered=False)
    chunks = iter(stream.response)
    got = [next(chunks)]                            # the first record; the client reads no more
    answers: list[Any] = []
    other = threading.Thread(target=lambda: answers.append(app.test_client().get("/api/v1/health")),
                             daemon=True)
    other.start()
    other.join(60)
    try:
        assert answers and answers[0].status_code == 200, "health waited for the stream"
        got.extend(chunks)
    finally:
        stream.close()
    assert b"".join(got) == whole                   # the stream goes on where it was, in order


# records of 9 cards a hand, each reviewed: about 0.1 s each on an idle core
SLOW_PBN = endgame_file(30, seed=5, hand_size=9, play_cards=36)


@pytest.fixture(scope="module")
def threaded_url() -> Iterator[str]:
    """The app in a threaded server (werkzeug's, as ``flask run`` serves it)."""
    server = make_server("127.0.0.1", 0, create_app(), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(30)


def test_short_requests_are_answered_between_a_streams_records(threaded_url):
    """In a threaded server, a short request waits for the record being solved, not for the
    whole stream (each record takes the solver in turn)."""
    lines: list[bytes] = []
    started = threading.Event()

    def read_stream() -> None:
        with post(threaded_url, SLOW_PBN, stream=True) as resp:
            assert resp.status_code == 200
            for line in resp.iter_lines():
                lines.append(line)
                started.set()

    reader = threading.Thread(target=read_stream, daemon=True)
    reader.start()
    assert started.wait(60)
    health = requests.get(threaded_url + "/api/v1/health", timeout=60)
    seen_at_health = len(lines)
    analyses = requests.post(threaded_url + "/api/v1/analyses", timeout=60, json={
        "positions": [{"deal": "N:.A..2 .2..3 .3..4 .4..5", "id": "short"}]})
    seen_at_analyses = len(lines)
    reader.join(120)
    assert health.status_code == 200 and health.json()["status"] == "ok"
    assert analyses.status_code == 200 and analyses.json()["answers"][0]["error"] is None
    assert len(lines) == 30 and [json.loads(x)["index"] for x in lines] == list(range(30))
    assert all(json.loads(x)["error"] is None for x in lines)
    # answered while the stream went on, each after at most a record or two of it
    assert seen_at_health < 30 and seen_at_analyses < 30, (seen_at_health, seen_at_analyses)


def test_a_stream_says_its_worker_is_alive_between_reading_a_record_and_solving_it(monkeypatch):
    """Reading 1 MiB of PBN takes seconds (about 5 for the slowest text), no part of any budget:
    after a record that spent the stream's budget, the worker was killed at its timeout reading
    the next one. Each reading and each solving now starts on a beat of its own, until one past
    the budget (a client reading slowly would hold the worker a write's timeout a record)."""
    import api.records
    import api.solving
    events: list[str] = []
    monkeypatch.setattr(api.solving, "_heartbeats", [lambda: events.append("beat")])
    read, solve = api.records.read_records, api.records.annotate_record

    def reading(*args: Any) -> Iterator[Any]:
        for record in read(*args):
            events.append("read")
            yield record

    def solving(*args: Any) -> Any:
        events.append("solve")
        return solve(*args)

    monkeypatch.setattr(api.records, "read_records", reading)
    monkeypatch.setattr(api.records, "annotate_record", solving)
    resp = create_app({}).test_client().post("/api/v1/annotate", data=PBN)
    assert resp.status_code == 200 and resp.get_data().count(b"\n") == events.count("solve") == 10
    steps = [e for k, e in enumerate(events) if e != "beat" or events[k - 1] != "beat"]
    assert steps == ["read", "beat"] + ["solve", "beat", "read", "beat"] * 9 + ["solve", "beat"]
    events.clear()
    resp = create_app({"ANNOTATE_TIME_LIMIT": 1e-6}).test_client().post("/api/v1/annotate",
                                                                          data=PBN)
    assert resp.get_data().count(b"\n") == 10 and events.count("beat") == 2   # (its start's too)


def test_the_annotate_body_has_its_own_limit_not_the_json_bodies_one():
    """``ANNOTATE_MAX_BYTES`` bounds a PBN body, whichever of the two limits is larger."""
    short = len(PBN) - 1
    for config, status in [({"ANNOTATE_MAX_BYTES": short}, 413),
                           ({"ANNOTATE_MAX_BYTES": len(PBN), "MAX_CONTENT_LENGTH": short}, 200)]:
        resp = create_app(config).test_client().post("/api/v1/annotate", data=PBN)
        assert resp.status_code == status, config
        if status == 413:
            assert resp.get_json()["detail"] == f"request body is larger than the limit of {short} bytes"


def test_a_body_of_more_games_than_the_setting_is_refused_before_any_is_read():
    """Each game gets its line, read and written past the budget too: 1 MiB of ``*`` games was
    350,000 error lines, 79 MB of answer and 25 s of a worker."""
    client = create_app({"ANNOTATE_MAX_RECORDS": 10}).test_client()
    resp = client.post("/api/v1/annotate", data=PBN)
    assert resp.status_code == 200 and resp.get_data().count(b"\n") == 10
    resp = client.post("/api/v1/annotate", data=PBN + b"\n*\n")
    assert resp.status_code == 413 and resp.get_json()["detail"] == (
        "body: more than 10 games; at most 10 a request (send fewer at a time)")
    resp = create_app({}).test_client().post("/api/v1/annotate", data=b"*\n\n" * 10_001)
    assert resp.status_code == 413 and "at most 10000 a request" in resp.get_json()["detail"]
