"""The type hints of the library, the API and the benchmarks agree with the code (mypy, set up
in pyproject.toml): a caller of the typed Python API can rely on them."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_finds_no_errors(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    errors = [line for line in run.stdout.splitlines() if ": error:" in line]
    assert run.returncode == 0 and not errors, run.stdout + run.stderr


def test_the_engines_stub_matches_the_compiled_module(tmp_path: Path) -> None:
    """``solver/_search.pyi`` types the Cython engine's Python API (``SearchAborted``'s fields
    among them); stubtest compares its names and parameters with the module as built (not the
    types, nor attributes set in ``__init__``)."""
    allow = tmp_path / "allow.txt"
    allow.write_text("solver._search.__reduce_cython__\nsolver._search.__setstate_cython__\n"
                     "solver._search.__test__\n")   # Cython's own, not ours
    run = subprocess.run([sys.executable, "-m", "mypy.stubtest", "solver._search",
                          "--allowlist", str(allow), "--mypy-config-file", "pyproject.toml"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr


CALLER = '''
from typing import assert_type

from solver.analysis import Solver
from solver.results import Analysis, PlayerResult
from solver.cards import Seat
from solver.deal import Deal
from solver.position import Position

solver = Solver()
pos = Position.start(Deal.random(1), {"preset": "omnibus"})
solver.prepare({"preset": "standard"})
partial: bool = bool(len(pos.played))
some: list[Analysis | None] = solver.analyses([(pos, None)], partial=partial)
positional: list[Analysis | None] = solver.analyses([(pos, [Seat.N])], True, True)
whole: list[Analysis] = solver.analyses([(pos, None)])
values: list[int | None] = solver.guarantees([(pos, Seat.N)], partial=partial)
one: int = solver.guarantee(pos, "N")
solver.analyze(pos, Seat.N)

from solver.sampling import samples, samples_from_view, weigh_cards
known = {"E": "SQ H2 H3"}
by_seat = {Seat.E: ["SQ", "H2"]}
samples(pos, 2, known=known)
samples_from_view("N", pos.deal.hands[Seat.N], "", 2, known=by_seat)
weigh_cards(solver, pos, 2, known=known)
# a seat as its number, as every call takes one at run time
solver.guarantee(pos, 2), solver.guarantees([(pos, 2)]), solver.guarantee_bounds([(pos, 0)])
solver.moon_possible(pos, 3), solver.line(pos, 1), solver.analyze(pos, 2), samples(pos, 1, seat=3)
a = solver.analyze(pos)
by_letter: int = a.players["N"].guarantee + a.players[0].guarantee + a.players[Seat.N].guarantee
assert_type(a.players.get("N"), PlayerResult | None)
assert_type(a.players.get(Seat.E, a.players["N"]), PlayerResult)
assert_type(a.players.get(2, 0), PlayerResult | int)
'''


def test_a_callers_typical_uses_type_check_under_strict(tmp_path: Path) -> None:
    """Uses a Monte-Carlo player's code makes: a run-time flag for ``partial``, rules as a
    mapping, one seat for ``analyze``, known cards in a dict of seat letters or seats (the key
    type of a ``Mapping`` is invariant: ``Mapping[Seat | str, ...]`` refused both), a seat's
    answer by ``players.get`` (typed, not Any). Under ``mypy --strict``, as a bot author checks
    its own code: the library's modules are then checked as strictly when mypy finds them as
    source (from the repository, or through ``MYPYPATH`` as the README says), and an error
    there would be the caller's to silence."""
    script = tmp_path / "caller.py"
    script.write_text(CALLER)
    run = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir",
                          str(tmp_path / "cache"), str(script)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
