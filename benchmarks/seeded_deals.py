"""The benchmark workload: seeded random full deals, the positions asked about, and the
settings that size a run.

Every category (ours and DDS's) walks the same deals, so per-deal times line up across
categories. The size of a run comes from the environment, so the full set and a quick check
run the same code:

- ``HDD_BENCH_DEALS``      number of deals (default 20);
- ``HDD_BENCH_SEED``       seed of the first deal (default 0; deal *i* is ``Deal.random(seed + i)``);
- ``HDD_BENCH_TIME_LIMIT`` seconds one deal may take in one of our categories before it is
  recorded as a timeout (default 30, the issue-2 ceiling; 0 means no limit);
- ``HDD_BENCH_THREADS``    threads of our solver (default 1; DDS solves one deal on one thread);
- ``HDD_BENCH_CLOCK``      ``wall`` (default) or ``cpu``: the clock of the summary tables. CPU
  time of the process is steadier on a shared machine; with one thread it is the solve's time.

>>> Settings.from_env({"HDD_BENCH_DEALS": "3", "HDD_BENCH_SEED": "7"}).seeds
range(7, 10)
>>> Settings.from_env({"HDD_BENCH_DEALS": "many"})
Traceback (most recent call last):
...
benchmarks.seeded_deals.SettingError: HDD_BENCH_DEALS='many': expected a whole number
>>> Settings.from_env({"HDD_BENCH_SEED": "-1"})
Traceback (most recent call last):
...
benchmarks.seeded_deals.SettingError: HDD_BENCH_SEED=-1: cannot be negative (Deal.random refuses it)
"""
from __future__ import annotations

import os
import random
from dataclasses import dataclass
from typing import Callable, Mapping, TypeVar

from solver.cards import Seat
from solver.deal import Deal
from solver.position import Position
from solver.rules import Rules

DEALS_ENV = "HDD_BENCH_DEALS"
SEED_ENV = "HDD_BENCH_SEED"
TIME_LIMIT_ENV = "HDD_BENCH_TIME_LIMIT"
THREADS_ENV = "HDD_BENCH_THREADS"
CLOCK_ENV = "HDD_BENCH_CLOCK"
CLOCKS = ("wall", "cpu")

STANDARD = Rules.parse("standard")
BRIDGE = Rules.parse("bridge")


class SettingError(ValueError):
    """A benchmark setting in the environment is not usable."""


@dataclass(frozen=True)
class Settings:
    deals: int = 20
    first_seed: int = 0
    time_limit: float = 30.0
    threads: int = 1
    clock: str = "wall"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Settings":
        env = os.environ if env is None else env
        default = cls()
        settings = cls(deals=_read(env, DEALS_ENV, default.deals, int),
                       first_seed=_read(env, SEED_ENV, default.first_seed, int),
                       time_limit=_read(env, TIME_LIMIT_ENV, default.time_limit, float),
                       threads=_read(env, THREADS_ENV, default.threads, int),
                       clock=env.get(CLOCK_ENV, "").strip().lower() or default.clock)
        if settings.deals < 1:
            raise SettingError(f"{DEALS_ENV}={settings.deals}: need at least one deal")
        if settings.first_seed < 0:
            raise SettingError(f"{SEED_ENV}={settings.first_seed}: cannot be negative (Deal.random refuses it)")
        if settings.time_limit < 0:
            raise SettingError(f"{TIME_LIMIT_ENV}={settings.time_limit:g}: cannot be negative (0 = no limit)")
        if settings.threads < 1:
            raise SettingError(f"{THREADS_ENV}={settings.threads}: need at least one thread")
        if settings.clock not in CLOCKS:
            raise SettingError(f"{CLOCK_ENV}={settings.clock!r}: expected one of {', '.join(CLOCKS)}")
        return settings

    @property
    def seeds(self) -> range:
        return range(self.first_seed, self.first_seed + self.deals)


Number = TypeVar("Number", int, float)


def _read(env: Mapping[str, str], name: str, default: Number, kind: Callable[[str], Number]) -> Number:
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        return kind(text)
    except ValueError:
        expected = "a whole number" if kind is int else "a number"
        raise SettingError(f"{name}={text!r}: expected {expected}") from None


def hearts_start(seed: int, rules: Rules = STANDARD) -> Position:
    """Deal ``seed`` before the first card, under standard rules (or ``rules``; N leads where
    the first lead is free)."""
    return Position.start(Deal.random(seed), rules, "N" if rules.first_lead == "free" else None)


def hearts_trick_two(seed: int) -> Position:
    """Deal ``seed`` under standard rules at the start of trick 2, after a seeded random trick 1.

    Random legal cards rather than a fixed rule (say, lowest card) so the first tricks vary
    the way real ones do: some deals break with a discard, some keep all suits.
    """
    return hearts_start(seed).random_play(random.Random(f"trick 1 of deal {seed}"), 4)


def hearts_midgame(seed: int, tricks_to_go: int) -> Position:
    """Deal ``seed`` under standard rules after seeded random legal play, ``tricks_to_go``
    tricks before the end."""
    rng = random.Random(f"play of deal {seed} to {tricks_to_go} tricks")
    return hearts_start(seed).random_play(rng, 4 * (13 - tricks_to_go))


def bridge_start(seed: int, leader: Seat) -> Position:
    """Deal ``seed`` in notrump-bridge mode (SPEC §2) with ``leader`` on lead."""
    return Position.start(Deal.random(seed), BRIDGE, leader=leader)
