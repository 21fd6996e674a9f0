"""The HTTP API (SPEC §5) through a real gunicorn server on a loopback port.

Good requests must give exactly what ``hearts-dd analyze --json`` prints; every kind of bad
input must give a 4xx ``application/problem+json`` body naming the field and the problem.
The server runs with a node budget that endgames never reach and full deals always do.
"""
from __future__ import annotations

import json
import random
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import requests
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

from api import create_app
from api.testing import served
from benchmarks.record_files import small_deal
from solver.analysis import Solver
from solver.cards import Seat, cards_of
from solver.cli import cli
from solver.deal import Deal, hand_string
from solver.position import Position
from solver.rules import PRESETS, KEYS, Rules

DATA = Path(__file__).parent / "data"
CASES = [json.loads(line) for f in sorted(DATA.glob("public_*.jsonl")) for line in f.read_text().splitlines()]
FULL_DEAL = "N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4"
# per search: these endgames need at most a few thousand nodes, a full 13-trick deal far more
NODE_BUDGET = 50_000
VOLATILE = ("nodes", "seconds")


@pytest.fixture(scope="module")
def base_url() -> Any:
    with served(workers=2, env={"HEARTS_DD_SOLVER_NODE_LIMIT": str(NODE_BUDGET)}) as url:
        yield url


def request_of(case: dict[str, Any]) -> dict[str, Any]:
    body = {"deal": case["deal"], "play": case.get("play", "")}
    for key in ("rules", "leader"):
        if case.get(key) is not None:
            body[key] = case[key]
    return body


def cli_answer(body: dict[str, Any]) -> dict[str, Any]:
    args = ["analyze", "--deal", body["deal"], "--play", body.get("play", ""), "--json"]
    if "rules" in body:
        args += ["--rules", json.dumps(body["rules"])]
    for key in ("leader", "player", "line"):
        if key in body:
            args += [f"--{key}", body[key]]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def without_volatile(answer: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in answer.items() if k not in VOLATILE}


def post(base_url: str, path: str, **kwargs: Any) -> requests.Response:
    return requests.post(base_url + "/api/v1/" + path, timeout=30, **kwargs)


def assert_problem(resp: requests.Response, status: int, type_suffix: str, *words: str) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    assert resp.headers["Content-Type"] == "application/problem+json"
    body = resp.json()
    assert body["status"] == status
    assert body["type"].endswith(type_suffix)
    assert body["title"]
    for word in words:
        assert word in body["detail"], body["detail"]
    assert "Traceback" not in resp.text
    return body


# -- good requests -------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_analyze_answers_as_the_cli(base_url, case):
    body = request_of(case)
    resp = post(base_url, "analyze", json=body)
    assert resp.status_code == 200, resp.text
    assert resp.headers["Content-Type"] == "application/json"
    got, expected = resp.json(), cli_answer(body)
    assert without_volatile(got) == without_volatile(expected)
    assert list(got) == list(expected), "same keys in the same order"


@pytest.mark.parametrize("player", ["N", "E", "S", "W"])
def test_analyze_for_one_player_answers_as_the_cli(base_url, player):
    body = dict(request_of(CASES[0]), player=player)
    resp = post(base_url, "analyze", json=body)
    assert resp.status_code == 200, resp.text
    assert list(resp.json()["players"]) == [player]
    assert without_volatile(resp.json()) == without_volatile(cli_answer(body))


@pytest.mark.parametrize("case", CASES[:4], ids=[c["id"] for c in CASES[:4]])
def test_analyze_with_a_line_answers_as_the_cli(base_url, case):
    body = dict(request_of(case), line="S")
    resp = post(base_url, "analyze", json=body)
    assert resp.status_code == 200, resp.text
    got = resp.json()
    assert got["line"]["for"] == "S" and got["line"]["cards"]
    assert without_volatile(got) == without_volatile(cli_answer(body))


def test_seats_and_presets_in_either_case_and_no_play_as_the_command_line_takes_them(base_url):
    """As ``hearts-dd analyze`` and the positions of ``/analyses`` take them."""
    case = next(c for c in CASES if c.get("leader"))
    body = dict(request_of(case), player="N", line="E")
    loose = dict(body, leader=body["leader"].lower(), player="n", line="e")
    if isinstance(body.get("rules"), str):
        loose["rules"] = body["rules"].upper()
    got = post(base_url, "analyze", json=loose)
    assert got.status_code == 200, got.text
    assert without_volatile(got.json()) == without_volatile(post(base_url, "analyze", json=body).json())
    none = post(base_url, "analyze", json={"deal": FULL_DEAL, "play": None, "rules": {"preset": "Omnibus"},
                                           "player": "n"})
    assert none.status_code == 422 and "budget" in none.text      # read, then over the test budget
    spelled = {"preset": " Standard", "moon": "ADD", "hearts_break": "Queen", "first_lead": "Free"}
    got = post(base_url, "analyze", json=dict(body, rules=spelled))
    assert got.status_code == 200, got.text
    assert without_volatile(got.json()) == without_volatile(cli_answer(dict(body, rules=spelled)))
    assert 'unknown value "north"' in post(base_url, "analyze", json=dict(body, player="north")).json()["detail"]


def test_a_line_for_no_seat_is_a_problem(base_url):
    assert_problem(post(base_url, "analyze", json={"deal": FULL_DEAL, "line": "X"}), 422,
                   "invalid-request", "line:")


def test_analyses_answers_each_position_as_analyze_in_order(base_url):
    bodies = [request_of(case) for case in CASES]
    resp = post(base_url, "analyses", json={"positions": [dict(b, id=[i]) for i, b in enumerate(bodies)]})
    assert resp.status_code == 200, resp.text
    answers = resp.json()["answers"]
    assert [(a["index"], a["id"], a["error"]) for a in answers] == [(i, [i], None) for i in range(len(bodies))]
    for answer, body in zip(answers, bodies):
        expected = without_volatile(post(base_url, "analyze", json=body).json())
        assert {k: v for k, v in without_volatile(answer).items() if k in expected} == expected


def test_analyses_answers_the_good_positions_and_names_the_bad_ones(base_url):
    good = request_of(CASES[0])
    positions = [good, {**good, "play": good["play"] + " XX"}, 5, {"deal": FULL_DEAL, "colour": 1},
                 {"deal": FULL_DEAL.replace("T4", "KT4")}, {**good, "player": "N"}, {"deal": FULL_DEAL},
                 {**good, "rules": '{"trick_points": 1' + "0" * 5000 + "}"}, {**good, "rules": "[" * 20000}]
    resp = post(base_url, "analyses", json={"positions": positions})
    assert resp.status_code == 200, resp.text
    answers = resp.json()["answers"]
    assert [a["index"] for a in answers] == list(range(len(positions)))
    errors = [a["error"] for a in answers]
    assert errors[0] is None and errors[5] is None
    assert errors[1].startswith("positions[1]: ") and "XX" in errors[1]
    assert errors[2] == "positions[2]: expected a JSON object, got number"
    assert errors[3].startswith("positions[3]: unknown field 'colour'")
    assert errors[4].startswith("positions[4]: ") and "CK appears twice" in errors[4]
    # a full deal is over the node budget: its own error, the others answered
    assert errors[6] == "positions[6]: no answer within the request's compute budget"
    assert errors[7] == "positions[7]: rules are not valid JSON: a number has too many digits"
    assert errors[8] == "positions[8]: rules are not valid JSON: nested too deeply"
    assert list(answers[5]["players"]) == ["N"]
    assert without_volatile(answers[0]) == {**without_volatile(post(base_url, "analyze", json=good).json()),
                                            "index": 0, "error": None}


def test_analyses_defaults_apply_to_positions_without_their_own(base_url):
    body = request_of(CASES[0])
    plain = {k: v for k, v in body.items() if k not in ("rules", "player")}
    resp = post(base_url, "analyses", json={"positions": [plain, {**plain, "rules": "standard"}],
                                            "rules": "omnibus", "player": "S"})
    assert resp.status_code == 200, resp.text
    first, second = resp.json()["answers"]
    assert first["rules"]["preset"] == "omnibus" and second["rules"]["preset"] == "standard"
    assert list(first["players"]) == list(second["players"]) == ["S"]


@pytest.mark.parametrize("body, kind, words", [
    ({}, "invalid-request", ["positions: is required"]),
    ({"positions": []}, "invalid-request", ["positions"]),
    ({"positions": [{"deal": FULL_DEAL}], "rules": {"moon": "never"}}, "invalid-request",
     ["rules.moon: unknown value \"never\"; expected 'add', 'subtract' or 'none'"]),
    ({"positions": [{"deal": FULL_DEAL}], "player": "Q"}, "invalid-request", ["player"]),
    ({"positions": [{"deal": FULL_DEAL}], "share": 1}, "invalid-request", ["share"]),
    ({"positions": [{"deal": FULL_DEAL}], "share": "half"}, "invalid-request", ["share"]),
    ({"positions": [{"deal": FULL_DEAL}], "plaer": "S"}, "invalid-request", ["plaer"]),   # (a typo)
])
def test_analyses_request_faults_are_problems(base_url, body, kind, words):
    assert_problem(post(base_url, "analyses", json=body), 422, kind, *words)


def test_fifty_concurrent_requests_are_all_answered_correctly(base_url):
    picked = [CASES[i % len(CASES)] for i in range(50)]
    expected = [without_volatile(cli_answer(request_of(c))) for c in picked]
    with ThreadPoolExecutor(max_workers=50) as pool:
        responses = list(pool.map(lambda c: post(base_url, "analyze", json=request_of(c)), picked))
    assert [r.status_code for r in responses] == [200] * 50
    assert [without_volatile(r.json()) for r in responses] == expected


def test_moon_timeline_follows_the_solver(base_url):
    """Small random deals and random play: every flag, and the card named as lost, as the library says."""
    solver = Solver()
    flags = lambda p: {str(s): solver.moon_possible(p, s) for s in Seat}  # noqa: E731
    losses = 0
    for seed in range(6):
        rng = random.Random(seed)
        deal = small_deal(rng, 5)
        rules = Rules.parse(["standard", "omnibus", "spot", {"partnership": True}][seed % 4])
        leader = None if deal.all_cards & (0xFFFF << 48) else "N"  # no clubs: someone must be named
        start = Position.start(deal, rules, leader)
        end = start.random_play(rng, 12)
        body = {"deal": deal.pbn(), "play": " ".join(map(str, end.played)), "rules": rules.to_dict(),
                **({"leader": leader} if leader else {})}
        resp = post(base_url, "moon", json=body)
        assert resp.status_code == 200, resp.text
        report = resp.json()

        assert report["start"] == flags(start)
        position, lost = start, {str(s): None for s in Seat}
        before = report["start"]
        for index, (step, card) in enumerate(zip(report["timeline"], end.played, strict=True)):
            assert (step["index"], step["card"], step["seat"]) == (index, str(card), str(position.to_move))
            position = position.play(card)
            assert step["moon_possible"] == flags(position)
            for seat, possible in step["moon_possible"].items():
                if before[seat] and not possible:
                    lost[seat] = {k: step[k] for k in ("index", "trick", "seat", "card")}
                elif possible:
                    lost[seat] = None
            before = step["moon_possible"]
        assert report["lost"] == lost, seed
        losses += sum(v is not None for v in lost.values())
    assert losses, "some random play should throw a forceable moon away"


def test_rules_lists_every_preset_and_key_with_settings_that_parse_back(base_url):
    resp = requests.get(base_url + "/api/v1/rules", timeout=10)
    assert resp.status_code == 200
    catalogue = resp.json()
    assert list(catalogue["presets"]) == list(PRESETS)
    assert list(catalogue["keys"]) == list(KEYS)
    for name, preset in catalogue["presets"].items():
        # "values" lists every non-zero card: over all-zero suits it rebuilds the preset
        settings = dict(preset["rules"], preset="standard",
                        values={"S": 0, "H": 0, "D": 0, "C": 0, **preset["rules"]["values"]})
        assert Rules.parse(settings).values == Rules.parse(name).values, name
        assert Rules.parse(preset["rules"]) == Rules.parse(name), name
    assert catalogue["keys"]["moon"]["choices"] == ["add", "subtract", "none"]
    from click.testing import CliRunner

    from solver.cli import cli
    assert json.loads(CliRunner().invoke(cli, ["rules", "--json"]).stdout) == catalogue


def test_health_and_documents(base_url):
    health = requests.get(base_url + "/api/v1/health", timeout=10)
    assert health.status_code == 200 and health.json()["status"] == "ok"
    spec = requests.get(base_url + "/openapi.json", timeout=10).json()
    assert {"/api/v1/analyze", "/api/v1/moon", "/api/v1/annotate", "/api/v1/rules",
            "/api/v1/health"} <= set(spec["paths"])
    assert "Problem" in spec["components"]["schemas"]
    docs = requests.get(base_url + "/docs", timeout=10)
    assert docs.status_code == 200 and "text/html" in docs.headers["Content-Type"]


# -- bad requests --------------------------------------------------------------------------
def json_body(obj: Any) -> dict[str, Any]:
    return {"data": json.dumps(obj), "headers": {"Content-Type": "application/json"}}


BAD_REQUESTS = {
    "not JSON": ({"data": "{deal: 1", "headers": {"Content-Type": "application/json"}},
                 400, "invalid-json", "not valid JSON", "line 1, column 2"),
    "empty body": ({"data": b""}, 400, "invalid-json", "empty"),
    "not UTF-8": ({"data": b'{"deal": "\xff"}'}, 400, "invalid-json", "UTF-8"),
    "nested too deeply": ({"data": "[" * 30000 + "]" * 30000}, 400, "invalid-json", "deeply"),
    "a huge number": ({"data": '{"deal": 1' + "0" * 5000 + "}"}, 400, "invalid-json",
                      "request body is not valid JSON: a number has too many digits"),
    "not an object": (json_body(["deal"]), 422, "invalid-request", "body: expected an object, got array"),
    "missing deal": (json_body({"play": ""}), 422, "invalid-request", "deal: is required"),
    "deal of wrong type": (json_body({"deal": 5}), 422, "invalid-request", "deal: expected a string, got number"),
    "play of wrong type": (json_body({"deal": FULL_DEAL, "play": ["C2"]}), 422, "invalid-request",
                           "play: expected a string, got array"),
    "unknown field": (json_body({"deal": FULL_DEAL, "plya": "C2"}), 422, "invalid-request",
                      "plya: is not a known field"),
    "malformed deal": (json_body({"deal": "N:AK.. ... ... ..."}), 422, "invalid-deal", "deal:", "hand"),
    "duplicate card": (json_body({"deal": FULL_DEAL.replace("T4", "KT4")}), 422, "invalid-deal",
                       "deal:", "CK appears twice"),
    "illegal card in play": (json_body({"deal": FULL_DEAL, "play": "C2 CA C5 C4 HK"}), 422,
                             "illegal-play", "play:", "trick 2", "HK"),
    "card not in the deal": (json_body({"deal": FULL_DEAL, "play": "C2 CA C5 C4 DX"}), 422,
                             "illegal-play", "play:", "DX"),
    "unknown rule key": (json_body({"deal": FULL_DEAL, "rules": {"mooon": "add"}}), 422,
                         "invalid-request", "rules.mooon: is not a known field"),
    "unknown rule value": (json_body({"deal": FULL_DEAL, "rules": {"moon": "sometimes"}}), 422,
                           "invalid-request", "rules.moon:", "sometimes"),
    "rule of wrong type": (json_body({"deal": FULL_DEAL, "rules": {"trick_points": "1"}}), 422,
                           "invalid-request", "rules.trick_points: expected an integer, got string"),
    "unknown preset": (json_body({"deal": FULL_DEAL, "rules": "hearts-deluxe"}), 422,
                       "invalid-request", "rules:", "hearts-deluxe"),
    "unknown card in values": (json_body({"deal": FULL_DEAL, "rules": {"values": {"ZZ": 1}}}), 422,
                               "invalid-rules", "rules:", "'ZZ'"),
    "unknown leader": (json_body({"deal": FULL_DEAL, "leader": "X"}), 422, "invalid-request", "leader:"),
    "wrong leader": (json_body({"deal": FULL_DEAL, "leader": "E"}), 422, "invalid-leader",
                     "leader:", "N holds C2"),
    "free lead without leader": (json_body({"deal": FULL_DEAL, "rules": {"first_lead": "free"}}), 422,
                                 "invalid-leader", "leader:"),
    "too large": (json_body({"deal": FULL_DEAL, "play": "C2 " * 400_000}), 413, "too-large", "1048576 bytes"),
}


@pytest.mark.parametrize("path", ["analyze", "moon"])
@pytest.mark.parametrize("kind", list(BAD_REQUESTS))
def test_bad_request_is_a_problem_naming_field_and_fault(base_url, path, kind):
    kwargs, status, type_suffix, *words = BAD_REQUESTS[kind]
    assert_problem(post(base_url, path, **kwargs), status, type_suffix, *words)


def test_validation_problem_lists_every_field(base_url):
    body = assert_problem(post(base_url, "analyze", json={"deal": 1, "rules": {"moon": 2, "x": 0}}),
                          422, "invalid-request")
    assert {e["field"] for e in body["errors"]} == {"deal", "rules.moon", "rules.x"}


@pytest.mark.parametrize("path, body", [
    ("analyze", {"deal": FULL_DEAL, "leader": "X" * 100_000}),
    ("analyze", {"deal": FULL_DEAL, "rules": {"moon": "X" * 100_000}}),
    ("analyze", {"deal": FULL_DEAL, "X" * 100_000: 1}),
    ("samples", {"deal": FULL_DEAL, "known": {"E": 1, "X" * 100_000: 1}}),
])
def test_a_validation_problem_echoes_no_long_value_or_key(path, body):
    """A value outside a list (a leader, a rule) or a key of the request's own (an unknown
    field) came back whole in the detail and again in ``errors``: 1 MB sent, 2 MB answered."""
    resp = create_app({}).test_client().post(f"/api/v1/{path}", json=body)
    assert resp.status_code == 422 and len(resp.get_data()) < 2000, len(resp.get_data())
    assert "characters left out" in resp.get_json()["detail"] or "X…" in resp.get_json()["detail"]


def test_a_validation_problem_lists_the_first_problems_and_counts_the_rest():
    """Each unknown key is a problem: 90,000 of them in 1 MB were answered with 7.5 MB."""
    body = {"deal": FULL_DEAL, **{f"k{i}": 0 for i in range(5000)}}
    resp = create_app({}).test_client().post("/api/v1/analyze", json=body)
    assert resp.status_code == 422 and len(resp.get_json()["errors"]) == 20
    assert resp.get_json()["detail"].endswith("; and 4980 more problems")
    assert len(resp.get_data()) < 10_000


def test_search_over_budget_is_a_problem_not_a_dead_worker(base_url):
    body = assert_problem(post(base_url, "analyze", json={"deal": FULL_DEAL}), 422, "budget-exceeded",
                          f"{NODE_BUDGET} nodes")
    assert "fewer cards" in body["detail"]
    assert requests.get(base_url + "/api/v1/health", timeout=10).status_code == 200


@pytest.mark.parametrize("method, path, status", [
    ("GET", "/api/v1/analyze", 405), ("DELETE", "/api/v1/rules", 405), ("GET", "/api/v1/nothing", 404),
])
def test_wrong_method_or_path_is_a_problem(base_url, method, path, status):
    resp = requests.request(method, base_url + path, timeout=10)
    body = assert_problem(resp, status, "about:blank")
    if status == 405:
        allowed = resp.headers["Allow"]
        assert "POST" in allowed or "GET" in allowed
        assert body["detail"] == f"{method} is not allowed here; allowed: {allowed}"
    else:
        assert body["detail"] == f"no resource at {path}"


def raw_request(base_url: str, head: bytes, body: bytes, half_close: bool = False) -> tuple[float, int, dict]:
    """Seconds to the answer, its status and its problem body: for what requests cannot send."""
    host, port = base_url.rsplit("/", 1)[1].split(":")
    start = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=60) as s:
        s.sendall(b"POST /api/v1/analyze HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  + head + b"\r\n" + body)
        if half_close:
            s.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    status_line, _, rest = answer.partition(b"\r\n")
    return time.monotonic() - start, int(status_line.split()[1]), json.loads(rest.partition(b"\r\n\r\n")[2])


def chunked(data: bytes) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(data[i:i + 8192]), data[i:i + 8192])
                    for i in range(0, len(data), 8192)) + b"0\r\n\r\n"


CHUNKED = b"Transfer-Encoding: chunked\r\n"


@pytest.mark.parametrize("name, head, body, half_close, status, words", [
    ("a bad chunk", CHUNKED, b"zz\r\n{}\r\n0\r\n\r\n", False, 400, "Invalid chunk size"),
    ("chunked over the limit", CHUNKED, chunked(json.dumps({"deal": "x" * 1_100_000}).encode()), False, 413,
     "larger than the limit"),
    ("shorter than said", b"Content-Length: 100\r\n", b'{"deal": "x"}', True, 400, "ended after 13 of its 100"),
    ("not NaN", b"Content-Length: 26\r\n", b'{"deal": "x", "play": NaN}', False, 400, "NaN is not a JSON number"),
])
def test_bodies_that_cannot_be_read_whole_are_problems(base_url, name, head, body, half_close, status, words):
    _, got, problem_body = raw_request(base_url, head, body, half_close)
    assert got == status and words in problem_body["detail"], problem_body
    good = json.dumps({"deal": CASES[0]["deal"], "play": CASES[0]["play"]}).encode()
    resp = requests.post(base_url + "/api/v1/analyze", data=iter([good]), timeout=30,   # chunked
                         headers={"Content-Type": "application/json"})
    assert resp.status_code == 200, resp.text             # a chunked body within the limit is read


def test_a_body_that_stops_arriving_is_a_problem_in_seconds_not_a_killed_worker(base_url):
    seconds, status, body = raw_request(base_url, b"Content-Length: 1000\r\n", b'{"deal":')
    assert status == 400 and body["type"].endswith("incomplete-body")
    assert seconds < 15                                   # (not gunicorn killing the worker)


CARDISH = "NESW:.- AKQJT98765432shdcSHDC♠♥♦♣10xyz"
FUZZ_APP = create_app({"SOLVER_NODE_LIMIT": 20_000})  # in-process; any solve stops at once


@given(deal=st.one_of(st.text(CARDISH, max_size=70), st.sampled_from([FULL_DEAL, CASES[0]["deal"]])),
       play=st.text(CARDISH, max_size=30), rules=st.sampled_from([None, *PRESETS, {"moon": "none"}]),
       leader=st.sampled_from([None, "N", "E", "S", "W"]))
@settings(max_examples=300, deadline=None)
def test_no_deal_or_play_text_makes_a_server_error(deal, play, rules, leader):
    body = {"deal": deal, "play": play, "rules": rules, "leader": leader}
    resp = FUZZ_APP.test_client().post("/api/v1/analyze", json=body)
    assert resp.status_code in (200, 422), resp.get_data(as_text=True)
    if resp.status_code == 422:
        assert resp.get_json()["detail"]


def test_time_budget_stops_the_search():
    app = create_app({"SOLVER_TIME_LIMIT": 0.001})
    resp = app.test_client().post("/api/v1/analyze", json={"deal": FULL_DEAL})
    assert resp.status_code == 422
    assert resp.get_json()["type"].endswith("budget-exceeded")
    assert "0.001 s" in resp.get_json()["detail"]


def test_samples_keep_the_seat_s_view_and_go_straight_to_analyses():
    client = create_app({}).test_client()
    body = request_of(CASES[0])
    seen = Position.from_play(Deal.parse(body["deal"]), Rules.parse(body.get("rules")),
                              body["play"], body.get("leader"))
    resp = client.post("/api/v1/samples", json={**body, "count": 5, "seed": 3})
    assert resp.status_code == 200, resp.get_data(as_text=True)
    out = resp.get_json()
    assert out["seat"] == str(seen.to_move) and len(out["positions"]) == 5
    assert out == client.post("/api/v1/samples", json={**body, "count": 5, "seed": 3}).get_json()
    for p in out["positions"]:
        assert p["play"] == " ".join(map(str, seen.played)) and p["leader"] == str(seen.leader0)
        assert Deal.parse(p["deal"]).hands[seen.to_move] == seen.deal.hands[seen.to_move]
    answers = client.post("/api/v1/analyses", json={"positions": out["positions"]}).get_json()["answers"]
    assert [a["error"] for a in answers] == [None] * 5
    north = client.post("/api/v1/samples", json={**body, "count": 2, "seat": "N"}).get_json()
    assert north["seat"] == "N"       # (N is seat 0: it once read as no seat given)
    other = (seen.to_move or Seat.N).next()
    cards = list(cards_of(seen.hands[other]))[:2]
    both = client.post("/api/v1/samples", json={**body, "count": 5, "known": {
        str(other): str(cards[0]), str(other).lower(): str(cards[1])}}).get_json()
    assert all(Deal.parse(p["deal"]).holder(c) == other for p in both["positions"] for c in cards)


def test_samples_from_a_seat_s_hand_are_those_of_its_position() -> None:
    """A bot sends its hand (the cards it was dealt) and the play instead of a deal: the same
    deals as from the position, seed for seed."""
    client = create_app({}).test_client()
    p = Position.start(Deal.random(7), "omnibus").random_play(random.Random(2), 30)
    seat = p.to_move
    assert seat is not None
    body = {"play": " ".join(map(str, p.played)), "rules": "omnibus", "count": 4, "seed": 9}
    expected = client.post("/api/v1/samples", json={**body, "deal": p.deal.pbn()}).get_json()
    resp = client.post("/api/v1/samples", json={**body, "hand": hand_string(p.deal.hands[seat]),
                                                "seat": str(seat), "leader": str(p.leader0)})
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.get_json() == expected and expected["seat"] == str(seat)


def test_samples_without_a_seed_say_the_seed_they_drew() -> None:
    """A request without ``seed`` drew deals no later request could draw again: the answer now
    says the seed it drew (and, with one, the seed given), and that seed sent back gives the
    same deals, from a deal or from a seat's hand."""
    client = create_app({}).test_client()
    p = Position.start(Deal.random(7)).random_play(random.Random(2), 30)
    seat = p.to_move
    assert seat is not None
    for where in ({"deal": p.deal.pbn()},
                  {"hand": hand_string(p.deal.hands[seat]), "seat": str(seat),
                   "leader": str(p.leader0)}):
        body = {**where, "play": " ".join(map(str, p.played)), "count": 6}
        first, second = (client.post("/api/v1/samples", json=body).get_json() for _ in range(2))
        assert list(first) == ["seat", "seed", "positions"], first
        assert isinstance(first["seed"], int) and 0 <= first["seed"] < 2 ** 63
        assert first["seed"] != second["seed"] and first["positions"] != second["positions"]
        for answer in (first, second):
            again = client.post("/api/v1/samples", json={**body, "seed": answer["seed"]})
            assert again.status_code == 200 and again.get_json() == answer
        assert client.post("/api/v1/samples", json={**body, "seed": 5}).get_json()["seed"] == 5


def test_the_most_samples_one_request_draws_can_be_sent_on_to_analyses() -> None:
    """``count`` goes up to 1,000, but a body over 64 KiB (about 185 positions) was refused 413."""
    client = create_app({"SOLVER_TIME_LIMIT": 0.001}).test_client()   # (answers are not the point)
    drawn = client.post("/api/v1/samples", json={"deal": FULL_DEAL, "count": 1000, "seed": 1})
    resp = client.post("/api/v1/analyses", json={"positions": drawn.get_json()["positions"]})
    assert resp.status_code == 200 and len(resp.get_json()["answers"]) == 1000


def test_analyses_takes_as_many_positions_as_its_setting() -> None:
    """Each position costs its reading and an answer, in the budget or not: 1 MB of ``{}`` was
    340,000 positions, answered with 18 MB of errors. By default as many as samples draws."""
    client = create_app({"ANALYSES_MAX_POSITIONS": 3}).test_client()
    resp = client.post("/api/v1/analyses", json={"positions": [{}] * 3})
    assert resp.status_code == 200 and len(resp.get_json()["answers"]) == 3
    resp = client.post("/api/v1/analyses", json={"positions": [{}] * 4})
    assert resp.status_code == 422
    assert resp.get_json()["detail"] == "positions: 4 positions; at most 3 a request"
    resp = create_app({}).test_client().post("/api/v1/analyses", json={"positions": [{}] * 1001})
    assert resp.status_code == 422 and "at most 1000" in resp.get_json()["detail"]


@pytest.mark.parametrize("limit", [3, 1000])
def test_the_document_gives_the_most_positions_analyses_takes(limit: int) -> None:
    """The document set no ``maxItems`` on ``positions``: a client checking a request against
    it sent 1,001 positions and was refused 422 "at most 1000"."""
    client = create_app({} if limit == 1000 else {"ANALYSES_MAX_POSITIONS": limit}).test_client()
    spec = client.get("/openapi.json").get_json()
    positions = spec["components"]["schemas"]["AnalysesRequest"]["properties"]["positions"]
    assert (positions["minItems"], positions["maxItems"]) == (1, limit)
    assert client.post("/api/v1/analyses", json={"positions": [{}] * limit}).status_code == 200
    assert client.post("/api/v1/analyses", json={"positions": [{}] * (limit + 1)}).status_code == 422


@pytest.mark.parametrize("body, field, words", [
    ({"hand": "KQ97.Q9.AK54.J75", "play": "C2"}, None, "`hand` goes with `seat` and without `deal`"),
    ({"hand": "KQ97.Q9.AK54.J75", "seat": "S", "deal": FULL_DEAL}, None, "`hand` goes with `seat`"),
    ({"play": "C2"}, None, "give `deal`, or `hand` with `seat`"),
    ({"hand": "KQ97.Q9.AK54.J7", "seat": "S"}, "hand", "expected the 13 cards S was dealt, got 12"),
    ({"hand": "KQ97.Q9.AK54.J75", "seat": "S", "play": "C2"}, "leader", "give the leader"),
    ({"hand": "KQ97.Q9.AK54.J75", "seat": "S", "play": "C2 CJ", "leader": "W"}, "play",
     "card 2 (trick 1): N played CJ, which is in S's hand"),
    ({"hand": "KQ97.Q9.AK54.J75", "seat": "S", "rules": {"moon": "x"}}, "rules", ""),
])
def test_samples_from_a_hand_name_what_is_wrong(body: dict, field: str | None, words: str) -> None:
    resp = create_app({}).test_client().post("/api/v1/samples", json=body)
    assert resp.status_code == 422
    detail = resp.get_json()["detail"]
    assert words in detail and (field is None or detail.startswith(f"{field}")), detail


@pytest.mark.parametrize("extra, field, words", [
    ({"count": 0}, "count", "greater than or equal to 1"),
    ({"count": 1001}, "count", "less than or equal to 1000"),
    ({"known": {"E": "ZZ"}}, "known", "E: cannot read card 'ZZ'"),
    ({"known": {"E": "C2"}}, "known", "card C2 of E"),
    ({"seat": "X"}, "seat", "X"),
    ({"known": {"X": "SA"}}, "known", "unknown seat 'X'"),
    ({"play": "", "seat": "N", "known": {"E": "ZZ"}}, "known", "cannot read card 'ZZ'"),
    ({"seed": 2 ** 63}, "seed", "less than 9223372036854775808"),
])
def test_samples_name_what_is_wrong(extra, field, words):
    body = {"deal": FULL_DEAL, "play": "C2 C6 C5 CT", **extra}
    resp = create_app({}).test_client().post("/api/v1/samples", json=body)
    assert resp.status_code == 422
    assert resp.get_json()["detail"].startswith(f"{field}") and words in resp.get_json()["detail"]


@pytest.mark.parametrize("path, body, field, limit", [
    ("analyze", {"deal": "N:" + "A" * 300}, "deal", 256),
    ("analyze", {"deal": FULL_DEAL, "play": "C2 " * 400}, "play", 1024),
    ("samples", {"deal": "N:" + "A" * 300}, "deal", 256),
    ("samples", {"hand": "A" * 300, "seat": "S"}, "hand", 256),
])
def test_a_field_past_its_length_is_refused_before_it_is_read(path, body, field, limit):
    """As the document's maxLength says: refused naming the field, not read as a deal or a play."""
    resp = create_app({}).test_client().post(f"/api/v1/{path}", json=body)
    assert resp.status_code == 422
    assert resp.get_json()["detail"] == f"{field}: string should have at most {limit} characters"


def _request_examples() -> list[Any]:
    """Each request body the document gives as an example: each of a body's own, and its first
    with the example of one of its fields in that field's place."""
    spec = create_app().test_client().get("/openapi.json").get_json()
    schemas = spec["components"]["schemas"]
    out = []
    for path, operations in spec["paths"].items():
        for operation in operations.values():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body is None:
                continue
            name = body["schema"]["$ref"].rsplit("/", 1)[1]
            examples = schemas[name].get("examples", [])
            out += [pytest.param(path, e, id=f"{name} example {i}") for i, e in enumerate(examples)]
            for field, schema in schemas[name]["properties"].items():
                for branch in [schema, *schema.get("anyOf", [])]:
                    out += [pytest.param(path, {**examples[0], field: e}, id=f"{name}.{field} {e}")
                            for e in branch.get("examples", [])]
    return out


@pytest.mark.parametrize("path, body", _request_examples())
def test_every_example_in_the_document_is_answered(path: str, body: dict[str, Any]) -> None:
    """The example of samples' ``known``, ``{"E": "SQ H2 H3"}``, fitted neither example
    position: with the deal, SQ was played by N; with the hand, SQ is in S's. And ``hand``
    went with the example's ``deal`` (schemathesis sends the two together)."""
    resp = create_app({"SOLVER_NODE_LIMIT": NODE_BUDGET}).test_client().post(path, json=body)
    assert resp.status_code == 200, resp.get_json()


def test_samples_take_a_count_and_seed_written_as_whole_numbers_with_a_point():
    """The document's ``count`` and ``seed`` are JSON Schema integers, which 3.0 is (a number
    without a fraction), as a rule value of 2.0 is 2 (``Rules.parse``); they were refused 422,
    "expected an integer, got number"."""
    client = create_app({}).test_client()
    body = {"deal": FULL_DEAL, "play": "C2 C6 C5 CT"}
    whole = client.post("/api/v1/samples", json={**body, "count": 3, "seed": 7})
    pointed = client.post("/api/v1/samples", json={**body, "count": 3.0, "seed": 7.0})
    assert whole.status_code == pointed.status_code == 200, pointed.get_data(as_text=True)
    assert pointed.data == whole.data
    for extra, words in (({"count": 2.5}, "count: expected an integer, got number"),
                         ({"count": 1001.0}, "count: input should be less than or equal to 1000"),
                         ({"seed": -1.0}, "seed: input should be greater than or equal to 0"),
                         ({"seed": 2.0 ** 60}, "seed: expected an integer, got number")):
        resp = client.post("/api/v1/samples", json={**body, **extra})
        assert resp.status_code == 422 and resp.get_json()["detail"] == words, resp.get_json()


def test_analyses_share_the_budget_to_reach_an_easy_position_behind_a_hard_one():
    app = create_app({"SOLVER_TIME_LIMIT": 2.0})
    hard, easy = {"deal": Deal.random(79).pbn(), "player": "N"}, request_of(CASES[0])
    for share, reached in ((0, False), (None, False), (0.2, True)):
        resp = app.test_client().post("/api/v1/analyses", json={"positions": [hard, easy], "share": share})
        first, second = resp.get_json()["answers"]
        assert first["error"] == "positions[0]: no answer within the request's compute budget"
        assert (second["error"] is None) is reached


def test_budget_problem_says_what_was_proved():
    app = create_app({"SOLVER_NODE_LIMIT": 300_000})
    resp = app.test_client().post("/api/v1/analyze", json={"deal": Deal.random(19).pbn()})
    assert resp.status_code == 422
    assert "so far N's guarantee is at least " in resp.get_json()["detail"]
