"""``POST /api/v1/annotate`` through a real gunicorn server: the same output as
``hearts-dd annotate`` for the same PBN text, streamed, and problems for bad requests.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import requests
from click.testing import CliRunner

from api import create_app
from api.testing import served
from record_files import endgame_file
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


def post(base_url: str, body: bytes, **params: str | list[str]) -> requests.Response:
    return requests.post(base_url + "/api/v1/annotate", params=params, data=body, timeout=60,
                         headers={"Content-Type": "application/x-pbn"})


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


@pytest.mark.parametrize("fmt", ["pbn", "csv"])
def test_other_formats_are_what_the_cli_writes(base_url, tmp_path, fmt):
    resp = post(base_url, PBN, format=fmt)
    assert resp.status_code == 200
    assert resp.headers["Content-Type"].split(";")[0] == {"pbn": "application/x-pbn", "csv": "text/csv"}[fmt]
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


def test_records_past_the_request_budget_get_an_error_line_each():
    app = create_app({"ANNOTATE_TIME_LIMIT": 1e-6})
    resp = app.test_client().post("/api/v1/annotate", data=PBN)
    assert resp.status_code == 200
    lines = [json.loads(line) for line in resp.get_data().splitlines()]
    assert [line["index"] for line in lines] == list(range(10))
    assert all("compute budget of 1e-06 s ran out" in line["error"] for line in lines)
    assert all(line["players"] is None for line in lines)


def test_a_record_stopped_by_the_node_limit_says_so():
    """It said "no answer within the time limit of 2 s" after a millisecond."""
    app = create_app({"SOLVER_TIME_LIMIT": 2.0, "SOLVER_NODE_LIMIT": 1000})
    body = f'[Deal "{Deal.random(19).pbn()}"]\n'.encode()
    [line] = [json.loads(x) for x in app.test_client().post("/api/v1/annotate", data=body).get_data().splitlines()]
    assert line["error"] == "line 1: no answer within the limits of 2 s and 1000 nodes per search"
