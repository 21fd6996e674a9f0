"""Per-deal time distributions: median, p90, max and mean over the deals of one category,
and ratios between categories.

pytest-benchmark's statistics are per benchmark (here: per deal); the targets of issues 2 and
5 are about the spread over deals, so each category's per-deal times are collected here.
A deal that hits the time limit counts as "more than its time": any figure it decides is
shown as a lower bound (``≥``), and a ratio of bounds keeps the direction it can still claim.

>>> d = Distribution("x", [Timing(0, 0.2, 0.2), Timing(1, 0.1, 0.1), Timing(2, 30.0, 29.0, timed_out=True)])
>>> str(d.median), str(d.worst), str(d.mean)
('0.200 s', '≥ 30.0 s', '≥ 10.1 s')
>>> str(ratio(d.median, Figure(0.1))), str(ratio(Figure(3.0), d.worst)), ratio(d.worst, d.mean)
('2.0×', '≤ 0.10×', None)

The median of an even number of deals is the mean of the two middle ones, not the lower of them:

>>> even = Distribution("y", [Timing(i, t, t) for i, t in enumerate([0.1, 0.2, 0.5, 0.9])])
>>> str(even.median), str(even.percentile(50))
('0.350 s', '0.200 s')
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

EXACT, AT_LEAST, AT_MOST = "=", "≥", "≤"


@dataclass(frozen=True)
class Timing:
    """Time of one category on one deal: wall clock, and the CPU time of the process (the same
    on a quiet machine with one solver thread; less when other processes take the CPU)."""

    seed: int
    wall: float
    cpu: float
    timed_out: bool = False

    def on(self, clock: str) -> float:
        return self.cpu if clock == "cpu" else self.wall


@dataclass(frozen=True)
class Figure:
    """A number of seconds (or a ratio), exact or only a bound."""

    value: float
    bound: str = EXACT

    def __str__(self) -> str:
        return _prefix(self.bound) + _seconds(self.value)

    def to_json(self) -> dict[str, float | str]:
        return {"value": round(self.value, 6), "bound": self.bound}


class Distribution:
    """The per-deal times of one category, on one clock (``wall`` or ``cpu``)."""

    def __init__(self, category: str, timings: Iterable[Timing], clock: str = "wall") -> None:
        self.category = category
        self.clock = clock
        # timeouts sort last whatever their measured time: they were stopped, not finished
        self.timings = sorted(timings, key=lambda t: (t.timed_out, t.on(clock)))

    @property
    def timeouts(self) -> int:
        return sum(t.timed_out for t in self.timings)

    def percentile(self, p: float) -> Figure:
        """Nearest-rank percentile: the smallest time at or above ``p`` percent of the deals."""
        t = self.timings[max(0, math.ceil(p / 100 * len(self.timings)) - 1)]
        return Figure(t.on(self.clock), AT_LEAST if t.timed_out else EXACT)

    @property
    def median(self) -> Figure:
        """The middle deal's time, or the mean of the two middle deals' for an even count."""
        n = len(self.timings)
        low, high = self.timings[(n - 1) // 2], self.timings[n // 2]
        return Figure((low.on(self.clock) + high.on(self.clock)) / 2, AT_LEAST if high.timed_out else EXACT)

    @property
    def p90(self) -> Figure:
        return self.percentile(90)

    @property
    def worst(self) -> Figure:
        return self.percentile(100)

    @property
    def mean(self) -> Figure:
        total = sum(t.on(self.clock) for t in self.timings)
        return Figure(total / len(self.timings), AT_LEAST if self.timeouts else EXACT)

    def to_json(self) -> dict[str, object]:
        return {
            "deals": len(self.timings), "timeouts": self.timeouts,
            "median": self.median.to_json(), "p90": self.p90.to_json(),
            "max": self.worst.to_json(), "mean": self.mean.to_json(),
            "clock": self.clock,
            "per_deal": [{"seed": t.seed, "wall": round(t.wall, 6), "cpu": round(t.cpu, 6), "timed_out": t.timed_out}
                         for t in sorted(self.timings, key=lambda t: t.seed)],
        }


class Ratio(Figure):
    """How many times one figure is another."""

    def __str__(self) -> str:
        digits = 2 if self.value < 1 else 1 if self.value < 10 else 0
        return f"{_prefix(self.bound)}{self.value:.{digits}f}×"


def ratio(numerator: Figure, denominator: Figure) -> Ratio | None:
    """``numerator / denominator``, with the bound that still holds; None when none does."""
    flip = {EXACT: EXACT, AT_LEAST: AT_MOST, AT_MOST: AT_LEAST}
    bounds = {numerator.bound, flip[denominator.bound]} - {EXACT}
    if len(bounds) > 1 or denominator.value <= 0:
        return None
    return Ratio(numerator.value / denominator.value, bounds.pop() if bounds else EXACT)


def _prefix(bound: str) -> str:
    return "" if bound == EXACT else bound + " "


def _seconds(s: float) -> str:
    if s < 1:
        return f"{s * 1000:.1f} ms" if s < 0.1 else f"{s:.3f} s"
    return f"{s:.1f} s" if s < 100 else f"{s:.0f} s"
