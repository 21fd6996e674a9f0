"""Shared plumbing of the full-deal benchmarks: settings from the environment, one benchmark per
(category, deal), and the summary over deals printed and written at the end of the run.

The summary goes to ``$HDD_BENCH_REPORT`` (a directory; default ``.benchmarks/`` at the
project root) as ``summary.md`` and ``summary.json``.
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable, TypeVar

import pytest

from solver.analysis import SearchAborted, Solver
from solver.rules import Rules

from .seeded_deals import STANDARD, SettingError, Settings
from .summary import RunRecord
from .timings import Timing

REPORT_ENV = "HDD_BENCH_REPORT"
_RECORD = pytest.StashKey[RunRecord]()

Answer = TypeVar("Answer")


def pytest_configure(config: pytest.Config) -> None:
    try:
        settings = Settings.from_env()
    except SettingError as e:
        raise pytest.UsageError(str(e)) from None
    config.stash[_RECORD] = RunRecord(settings)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test that takes ``seed`` runs once per deal of the run."""
    if "seed" in metafunc.fixturenames:
        seeds = list(metafunc.config.stash[_RECORD].settings.seeds)
        metafunc.parametrize("seed", seeds, ids=[f"seed{s}" for s in seeds])


@pytest.fixture(scope="session")
def record(pytestconfig: pytest.Config) -> RunRecord:
    return pytestconfig.stash[_RECORD]


@pytest.fixture(scope="session")
def settings(record: RunRecord) -> Settings:
    return record.settings


@pytest.fixture(scope="session")
def prepared() -> dict[Rules, Solver]:
    """The run's solver, kept from deal to deal; one set of tables at a time."""
    return {}


@pytest.fixture
def solver(settings: Settings, prepared: dict[Rules, Solver], request: pytest.FixtureRequest) -> Solver:
    """A solver whose tables were allocated and mapped before any timing, as DDS's memory is
    (``dds_oracle.warm_up``), and cleared for each deal as DDS's is (``dds_oracle.forget``):
    every measured solve starts from an empty table, node for node as a fresh solver's, without
    paying for the memory's set-up (``test_table_setup`` times that). The module's ``RULES``
    (default standard) say which rules to prepare for."""
    rules = getattr(request.module, "RULES", STANDARD)
    if rules not in prepared:
        prepared.clear()
        prepared[rules] = Solver(threads=settings.threads)
        prepared[rules].prepare(rules)
    s = prepared[rules]
    s.time_limit = settings.time_limit
    s.clear()
    return s


@pytest.fixture
def measure(benchmark, record: RunRecord, seed: int) -> Callable[[str, Callable[[], Answer]], Answer | None]:
    """``measure(category, solve)``: time one call of ``solve`` on this deal, once.

    One round, no warm-up: a second round would find the answer in the table. A
    ``SearchAborted`` (the per-deal time limit) is recorded as a timeout and gives None.
    """
    def run(category: str, solve: Callable[[], Answer]) -> Answer | None:
        def timed() -> Answer | None:
            start, cpu_start = time.perf_counter(), time.process_time()
            try:
                answer: Answer | None = solve()
            except SearchAborted:
                answer = None
            record.add(category, Timing(seed, time.perf_counter() - start, time.process_time() - cpu_start,
                                        timed_out=answer is None))
            return answer

        benchmark.group = category
        benchmark.extra_info["seed"] = seed
        answer: Answer | None = benchmark.pedantic(timed, rounds=1, iterations=1, warmup_rounds=0)
        return answer

    return run


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    record = config.stash.get(_RECORD, None)
    if record is None or record.empty:
        return
    terminalreporter.write_sep("=", "hearts-dd: per-deal distributions")
    terminalreporter.write(record.markdown())
    directory = Path(os.environ.get(REPORT_ENV) or config.rootpath / ".benchmarks")
    md, js = record.write(directory)
    terminalreporter.write_line(f"summary written to {md} and {js}")
