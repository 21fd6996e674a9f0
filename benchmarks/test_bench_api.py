"""The HTTP API (issue 4) under gunicorn with 2 workers, on loopback: latency of
``POST /api/v1/analyze`` for endgames and for full deals, the endgames in one
``POST /api/v1/analyses`` request, and requests per second under load.

Settings from the environment:

- ``HDD_BENCH_API_REQUESTS``     endgame requests timed one after another (default 300);
- ``HDD_BENCH_API_FULL_DEALS``   full deals asked about, ``Deal.random(0..n-1)`` (default 5);
- ``HDD_BENCH_API_LOAD_SECONDS`` length of the load run (default 10);
- ``HDD_BENCH_API_CLIENTS``      concurrent connections of the load generator (default 8).

Full deals are asked for one seat, N (``"player": "N"``: the question of the "hearts one seat"
benchmark), as some whole-table analyses of a full deal take more than the server's budget of
20 s; a deal over it is answered "budget exceeded" and counted as a timeout. The load generator is a
thread pool of plain ``http.client`` connections in this process, so it shares the machine's
cores with the two workers: the figure is what two workers serve on a 2-core box, with the
client's cost included.
"""
from __future__ import annotations

import http.client
import itertools
import json
import math
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlsplit

import pytest

from api.testing import served
from solver.deal import Deal

CASES = Path(__file__).parent.parent / "tests" / "data" / "public_endgames.jsonl"
BUDGET_SECONDS = 20


def _env_int(name: str, default: int) -> int:
    text = os.environ.get(name, "").strip()
    return int(text) if text else default


REQUESTS = _env_int("HDD_BENCH_API_REQUESTS", 300)
FULL_DEALS = _env_int("HDD_BENCH_API_FULL_DEALS", 5)
LOAD_SECONDS = _env_int("HDD_BENCH_API_LOAD_SECONDS", 10)
CLIENTS = _env_int("HDD_BENCH_API_CLIENTS", 8)


@pytest.fixture(scope="module")
def address() -> Iterator[tuple[str, int]]:
    with served(workers=2, env={"HEARTS_DD_SOLVER_TIME_LIMIT": str(BUDGET_SECONDS)}) as url:
        parts = urlsplit(url)
        yield parts.hostname or "127.0.0.1", parts.port or 80


def endgame_bodies() -> list[bytes]:
    bodies = []
    for line in CASES.read_text().splitlines():
        case = json.loads(line)
        body = {"deal": case["deal"], "play": case.get("play", ""), "rules": case["rules"]}
        bodies.append(json.dumps(body).encode())
    return bodies


def analyze(address: tuple[str, int], body: bytes, path: str = "analyze") -> tuple[int, bytes]:
    """One request on a fresh connection (sync workers close it after each answer)."""
    conn = http.client.HTTPConnection(*address, timeout=BUDGET_SECONDS + 10)
    try:
        conn.request("POST", "/api/v1/" + path, body, {"Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def percentile(times: list[float], p: float) -> float:
    """Nearest rank."""
    ordered = sorted(times)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def report(capsys: Any, benchmark: Any, line: str, **figures: Any) -> None:
    benchmark.extra_info.update(figures)
    with capsys.disabled():
        print(f"\n[api] {line}")


def test_latency_endgame(benchmark, address, capsys):
    bodies = itertools.cycle(endgame_bodies())
    times: list[float] = []

    def one() -> None:
        t0 = time.perf_counter()
        status, _ = analyze(address, next(bodies))
        times.append(time.perf_counter() - t0)
        assert status == 200

    benchmark.group = "api analyze latency"
    benchmark.pedantic(one, rounds=REQUESTS, iterations=1, warmup_rounds=5)
    times = times[5:]
    p50, p99 = percentile(times, 50), percentile(times, 99)
    report(capsys, benchmark, f"endgame analyze: {len(times)} requests, p50 {p50 * 1000:.1f} ms, "
           f"p99 {p99 * 1000:.1f} ms", p50_ms=round(p50 * 1000, 2), p99_ms=round(p99 * 1000, 2))


def test_latency_full_deal(benchmark, address, capsys):
    deals = [Deal.random(seed) for seed in range(FULL_DEALS)]
    bodies = iter([json.dumps({"deal": d.pbn(), "player": "N"}).encode() for d in deals])
    times: list[float] = []
    timeouts = 0

    def one() -> None:
        nonlocal timeouts
        t0 = time.perf_counter()
        status, answer = analyze(address, next(bodies))
        times.append(time.perf_counter() - t0)
        if status == 422 and b"budget-exceeded" in answer:
            timeouts += 1
        else:
            assert status == 200, answer

    benchmark.group = "api analyze latency"
    benchmark.pedantic(one, rounds=len(deals), iterations=1, warmup_rounds=0)
    p50, p99 = percentile(times, 50), percentile(times, 99)
    per_deal = ", ".join(f"{t:.2f}" for t in times)
    report(capsys, benchmark, f"full-deal analyze (one seat): {len(times)} deals, p50 {p50:.2f} s, "
           f"p99 {p99:.2f} s, {timeouts} over the {BUDGET_SECONDS} s budget (counted at their time); "
           f"per deal: {per_deal} s", p50_s=round(p50, 3), p99_s=round(p99, 3), timeouts=timeouts,
           per_deal_s=[round(t, 3) for t in times])


def test_endgames_in_one_request(benchmark, address, capsys):
    """The endgames of ``test_latency_endgame`` as one ``POST /api/v1/analyses`` request each
    round (all 35), against the same positions one request each: time a position."""
    bodies = endgame_bodies()
    batch = json.dumps({"positions": [json.loads(b) for b in bodies]}).encode()

    def each() -> None:
        for body in bodies:
            assert analyze(address, body)[0] == 200

    def once() -> None:
        status, answer = analyze(address, batch, "analyses")
        assert status == 200 and all(a["error"] is None for a in json.loads(answer)["answers"])

    t0 = time.perf_counter()
    for _ in range(5):
        each()
    single = (time.perf_counter() - t0) / (5 * len(bodies))
    benchmark.group = "api analyses"
    benchmark.pedantic(once, rounds=20, iterations=1, warmup_rounds=2)
    many = benchmark.stats.stats.median / len(bodies)
    report(capsys, benchmark, f"{len(bodies)} endgames: one request each {single * 1000:.2f} ms a "
           f"position, all in one analyses request {many * 1000:.2f} ms a position",
           single_ms=round(single * 1000, 3), batch_ms=round(many * 1000, 3))


def test_throughput_two_workers(benchmark, address, capsys):
    bodies = endgame_bodies()
    lock = threading.Lock()
    times: list[float] = []
    failures = 0

    def client(offset: int, stop: float) -> None:
        nonlocal failures
        for body in itertools.cycle(bodies[offset:] + bodies[:offset]):
            if time.perf_counter() >= stop:
                return
            t0 = time.perf_counter()
            try:
                status, _ = analyze(address, body)
            except OSError:
                status = 0
            with lock:
                times.append(time.perf_counter() - t0)
                failures += status != 200

    def load() -> float:
        stop = time.perf_counter() + LOAD_SECONDS
        t0 = time.perf_counter()
        with ThreadPoolExecutor(CLIENTS) as pool:
            list(pool.map(client, range(CLIENTS), [stop] * CLIENTS))
        return time.perf_counter() - t0

    benchmark.group = "api throughput"
    elapsed = benchmark.pedantic(load, rounds=1, iterations=1, warmup_rounds=0)
    assert failures == 0
    rps = len(times) / elapsed
    p50, p99 = percentile(times, 50), percentile(times, 99)
    report(capsys, benchmark, f"load: {CLIENTS} clients for {elapsed:.1f} s against 2 workers: "
           f"{rps:.0f} requests/s, latency p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms",
           requests_per_second=round(rps, 1), p50_ms=round(p50 * 1000, 2), p99_ms=round(p99 * 1000, 2))
