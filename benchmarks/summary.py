"""The record of one benchmark run: per-category distributions, the comparisons the issues set
targets for, peak memory, and the machine, written as a markdown table and as JSON.
"""
from __future__ import annotations

import datetime
import functools
import json
import os
import platform
import subprocess
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from .seeded_deals import Settings
from .timings import Distribution, Figure, Ratio, Timing, ratio

HEARTS_ONE = "hearts one seat"
HEARTS_FOUR = "hearts four seats"
HEARTS_TRICK2 = "hearts trick-2 cards"
BRIDGE_ONE = "bridge one leader"
BRIDGE_FOUR = "bridge four leaders"
DDS_ONE = "DDS one leader"
DDS_FOUR = "DDS four leaders"

CATEGORIES = {
    HEARTS_ONE: "standard rules, full deal: N's guarantee",
    HEARTS_FOUR: "standard rules, full deal: all four guarantees + moon flags",
    HEARTS_TRICK2: "standard rules, start of trick 2: the mover's values and every legal card's",
    BRIDGE_ONE: "our notrump-bridge mode, N leads: N+S's tricks",
    BRIDGE_FOUR: "our notrump-bridge mode, the four leaders in one call (`Solver.guarantees`)",
    DDS_ONE: "DDS `SolveBoard`, notrump, N leads",
    DDS_FOUR: "DDS `CalcAllTables`, notrump only (four leaders)",
}

# (numerator, denominator, target from issues 2 and 5)
COMPARISONS = [
    (HEARTS_FOUR, DDS_FOUR, "≤ 1.0× (first milestone 2.0×)"),
    (BRIDGE_ONE, DDS_ONE, "≤ 1.0×"),
    (BRIDGE_FOUR, DDS_FOUR, "≤ 1.0×"),
    (HEARTS_TRICK2, HEARTS_FOUR, "≤ 3×"),
]

MEMORY_TARGET_MB = 256


@dataclass(frozen=True)
class PeakMemory:
    """Peak resident set of one process that analysed one deal."""

    seed: int
    megabytes: float
    seconds: float
    timed_out: bool


@dataclass(frozen=True)
class Comparison:
    ours: str
    reference: str
    target: str
    of_means: Ratio | None
    of_medians: Ratio | None


@dataclass
class RunRecord:
    settings: Settings
    timings: dict[str, list[Timing]] = field(default_factory=dict)
    memory: PeakMemory | None = None

    def add(self, category: str, timing: Timing) -> None:
        self.timings.setdefault(category, []).append(timing)

    def distributions(self) -> dict[str, Distribution]:
        """Categories measured in this run, in the order of ``CATEGORIES``."""
        return {c: Distribution(c, self.timings[c], self.settings.clock) for c in CATEGORIES if c in self.timings}

    def comparisons(self) -> list["Comparison"]:
        """The ``COMPARISONS`` whose two categories were both measured."""
        dists = self.distributions()
        return [Comparison(n, dn, target, ratio(dists[n].mean, dists[dn].mean),
                           ratio(dists[n].median, dists[dn].median))
                for n, dn, target in COMPARISONS if n in dists and dn in dists]

    def cpu_share(self) -> float | None:
        """Total CPU time over total wall time of the measured solves: a check on contention."""
        timings = [t for ts in self.timings.values() for t in ts]
        wall = sum(t.wall for t in timings)
        return sum(t.cpu for t in timings) / wall if wall > 0 else None

    @property
    def empty(self) -> bool:
        return not self.timings and self.memory is None

    # -- output ------------------------------------------------------------------------
    def markdown(self) -> str:
        s = self.settings
        m = machine()
        limit = f"{s.time_limit:g} s" if s.time_limit else "none"
        lines = [
            f"Run of {m['date']}" + (f" at commit {m['commit'][:10]}" if m["commit"] else ""),
            "",
            f"Machine: {m['cpu']}, {m['cores']} cores; {m['system']}; Python {m['python']}; "
            f"endplay {m['endplay']}.",
            f"Deals: {s.deals} seeded random deals (seeds {s.seeds.start}–{s.seeds.stop - 1}); "
            f"per-deal limit of our categories: {limit} (wall clock); our solver on {s.threads} thread(s); "
            f"times below: {'CPU time of the process' if s.clock == 'cpu' else 'wall clock'}.",
        ]
        share = self.cpu_share()
        if share is not None:
            lines.append(f"CPU time / wall time over the measured solves: {share:.2f} (about 1.0 on a quiet "
                         "machine with one solver thread; lower means other processes took the CPU).")
        lines.append("")
        dists = self.distributions()
        if dists:
            lines += ["| category | what is timed | deals | timeouts | median | p90 | max | mean | max/median |",
                      "|---|---|---|---|---|---|---|---|---|"]
            for name, d in dists.items():
                spread = ratio(d.worst, d.median)
                lines.append(f"| {name} | {CATEGORIES[name]} | {len(d.timings)} | {d.timeouts} | {d.median} "
                             f"| {d.p90} | {d.worst} | {d.mean} | {_text(spread)} |")
            rows = self.comparisons()
            if rows:
                lines += ["", "| ours / reference | target | ratio of means | ratio of medians |",
                          "|---|---|---|---|"]
                lines += [f"| {c.ours} / {c.reference} | {c.target} | {_text(c.of_means)} | {_text(c.of_medians)} |"
                          for c in rows]
            if HEARTS_ONE in dists:
                one = dists[HEARTS_ONE]
                lines += ["", f"Issue 2 target, {HEARTS_ONE}: median {one.median} (target < 200 ms), "
                              f"max {one.worst} (target ≤ 30 s)."]
        if self.memory:
            mem = self.memory
            within = "time limit reached, " if mem.timed_out else ""
            lines += ["", f"Peak RSS of one process analysing deal {mem.seed} (standard rules, four seats "
                          f"and cards, {within}{Figure(mem.seconds)}): {mem.megabytes:.0f} MB "
                          f"(target ≤ {MEMORY_TARGET_MB} MB)."]
        return "\n".join(lines) + "\n"

    def to_json(self) -> dict[str, object]:
        dists = self.distributions()
        return {
            "machine": machine(),
            "cpu_share": self.cpu_share(),
            "settings": {"deals": self.settings.deals, "first_seed": self.settings.first_seed,
                         "time_limit": self.settings.time_limit, "threads": self.settings.threads,
                         "clock": self.settings.clock},
            "categories": {name: {"timed": CATEGORIES[name], **d.to_json()} for name, d in dists.items()},
            "comparisons": [{"ours": c.ours, "reference": c.reference, "target": c.target,
                             "ratio_of_means": _json(c.of_means), "ratio_of_medians": _json(c.of_medians)}
                            for c in self.comparisons()],
            "peak_memory": None if self.memory is None else {
                "seed": self.memory.seed, "megabytes": round(self.memory.megabytes, 1),
                "seconds": round(self.memory.seconds, 3), "timed_out": self.memory.timed_out},
        }

    def write(self, directory: Path) -> tuple[Path, Path]:
        directory.mkdir(parents=True, exist_ok=True)
        md, js = directory / "summary.md", directory / "summary.json"
        md.write_text(self.markdown(), encoding="utf-8")
        js.write_text(json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return md, js


@functools.cache
def machine() -> dict[str, Any]:
    """What the figures were measured on, for the README table."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).parent, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    try:
        endplay = metadata.version("endplay")
    except metadata.PackageNotFoundError:
        endplay = "not installed"
    return {
        "date": datetime.date.today().isoformat(), "cpu": cpu,
        "cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "system": f"{platform.system()} {platform.release()}", "python": platform.python_version(),
        "endplay": endplay, "commit": commit,
    }


def _text(r: Figure | None) -> str:
    return "?" if r is None else str(r)


def _json(r: Figure | None) -> dict[str, float | str] | None:
    return None if r is None else r.to_json()
