"""The benchmarks' per-deal distributions (``benchmarks/timings.py``), which the issues' targets
are read from: their doctests, and the median around timeouts."""
from __future__ import annotations

import doctest

import pytest

from benchmarks import seeded_deals, timings
from benchmarks.timings import AT_LEAST, EXACT, Distribution, Timing


def test_the_harness_doctests_pass() -> None:
    for module in (timings, seeded_deals):
        failed, tried = doctest.testmod(module)
        assert tried > 0 and failed == 0, module.__name__


def times(*walls: float, timeouts: int = 0) -> Distribution:
    ts = [Timing(i, w, w) for i, w in enumerate(walls)]
    ts += [Timing(len(walls) + i, 30.0, 30.0, timed_out=True) for i in range(timeouts)]
    return Distribution("x", ts)


def test_the_median_of_an_even_count_is_the_mean_of_the_middle_two() -> None:
    d = times(0.4, 0.1, 0.3, 0.2)
    assert (d.median.value, d.median.bound) == (0.25, EXACT)
    assert times(0.3, 0.1, 0.2).median.value == 0.2


def test_a_timeout_in_the_middle_makes_the_median_a_lower_bound() -> None:
    d = times(0.1, 0.2, timeouts=2)  # middle two: 0.2 s and a timeout
    assert d.median.bound == AT_LEAST and abs(d.median.value - 15.1) < 1e-9
    assert times(0.1, 0.2, 0.3, 0.4, timeouts=1).median.bound == EXACT


def test_a_negative_first_seed_is_refused_up_front() -> None:
    """Deal.random refuses a negative seed: every benchmark would error, deal by deal."""
    with pytest.raises(seeded_deals.SettingError, match="HDD_BENCH_SEED=-1"):
        seeded_deals.Settings.from_env({"HDD_BENCH_SEED": "-1"})
