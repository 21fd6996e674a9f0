"""Memory per process (issue 5: at most 256 MB): peak RSS of a process analysing a full deal."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .seeded_deals import Settings
from .summary import MEMORY_TARGET_MB, PeakMemory, RunRecord

ROOT = Path(__file__).resolve().parent.parent
PEAK_MEMORY_MODULE = "benchmarks.peak_memory"


def test_peak_memory(benchmark, record: RunRecord, settings: Settings) -> None:
    seed = settings.first_seed
    # the child's own limit, plus its start-up and the table's release
    timeout = settings.time_limit + 60 if settings.time_limit else None

    def child() -> PeakMemory:
        out = subprocess.run([sys.executable, "-m", PEAK_MEMORY_MODULE, str(seed), str(settings.time_limit)],
                             cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        if out.returncode != 0:
            pytest.fail(f"{PEAK_MEMORY_MODULE} exited with {out.returncode}: {out.stderr.strip()[-500:]}")
        return PeakMemory(**json.loads(out.stdout))

    benchmark.group = "peak memory"
    record.memory = benchmark.pedantic(child, rounds=1, iterations=1)
    assert record.memory.megabytes <= MEMORY_TARGET_MB
