"""What the solver answers (SPEC §3), as typed values: a position's analysis (each seat's
guarantee and moon flag, each card's values), bounds on a guarantee cut short, an optimal
line; and the one-line message of a question cut short, with what it had proved. The solver
(``solver.analysis``) makes them; the report, the record writers and the API read them
(``to_json`` is SPEC §4's form)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar, overload

from ._search import SearchAborted
from .cards import Card, Seat, SeatLike
from .errors import CardError
from .position import Position

__all__ = ["Analysis", "AnalysisWithLine", "Bounds", "BySeat", "LineStep", "MoveResult",
           "PlayerResult", "Questions", "line_json", "out_of_time", "proven_so_far"]


class Bounds(NamedTuple):
    """What is proved of a guarantee: ``low <= guarantee <= high``, None for a side not
    proved; equal when it is solved (``Solver.guarantee_bounds``).

    >>> Bounds(3, 3).exact, Bounds(3, None).exact, Bounds(None, None).exact
    (True, False, False)
    """
    low: int | None
    high: int | None

    @property
    def exact(self) -> bool:
        return self.low is not None and self.low == self.high


class Questions(NamedTuple):
    """What ``Solver.analyze`` asks, by the names its ``watch`` reports them under: the sides'
    guarantees ("N", or "N/S" with partnerships) and the mover's cards it searches ("C2")."""
    sides: list[str]
    cards: list[str]


_V = TypeVar("_V")
_D = TypeVar("_D")


class BySeat(dict[Seat, _V]):
    """A dict keyed by seats that also takes a seat's letter or number as a key, as every
    other call of the library takes a seat, so that ``analysis.players["N"]`` works.

    >>> d = BySeat({Seat.N: 3})
    >>> d["N"], d["n"], d[0], d.get("E"), d.get("E", 0), "N" in d, "X" in d
    (3, 3, 3, None, 0, True, False)
    >>> d["X"]
    Traceback (most recent call last):
    KeyError: 'X'
    """

    def __getitem__(self, key: SeatLike) -> _V:
        seat = _seat_or_none(key)
        if seat is None:
            raise KeyError(key)
        return dict.__getitem__(self, seat)

    def __contains__(self, key: object) -> bool:
        seat = _seat_or_none(key)
        return seat is not None and dict.__contains__(self, seat)

    # (typed as dict.get is: with no overloads a caller's ``players.get("N")`` was Any)
    @overload
    def get(self, key: object, default: None = None) -> _V | None: ...

    @overload
    def get(self, key: object, default: _V) -> _V: ...

    @overload
    def get(self, key: object, default: _D) -> _V | _D: ...

    def get(self, key: object, default: Any = None) -> Any:
        seat = _seat_or_none(key)
        return default if seat is None else dict.get(self, seat, default)


def _seat_or_none(key: object) -> Seat | None:
    try:
        return Seat.of(key)  # type: ignore[arg-type]
    except CardError:
        return None


@dataclass(frozen=True)
class PlayerResult:
    guarantee: int
    moon_possible: bool


@dataclass(frozen=True)
class MoveResult:
    card: Card
    guarantee: int
    moon_possible: bool
    best: bool = False


@dataclass(frozen=True)
class LineStep:
    """One card of an optimal line; ``value`` is the target's guarantee, which every step of
    an optimal line keeps (so the same at each)."""
    seat: Seat
    card: Card
    value: int


@dataclass(frozen=True)
class Analysis:
    position: Position
    #: Each seat asked about, by Seat, letter ("N") or number.
    players: BySeat[PlayerResult]
    moves: list[MoveResult]
    nodes: int
    seconds: float

    @property
    def to_move(self) -> Seat | None:
        return self.position.to_move

    def players_json(self) -> dict[str, dict[str, Any]]:
        """The seats' answers as SPEC §4's ``players``."""
        return {str(s): {"guarantee": r.guarantee, "moon_possible": r.moon_possible}
                for s, r in self.players.items()}

    def to_json(self) -> dict[str, Any]:
        p = self.position
        return {
            **p.to_json(),
            "to_move": str(p.to_move) if p.to_move is not None else None,
            "trick": p.trick_number if not p.is_over else None,
            "points_taken": {str(seat): p.raw_points(p.side(seat)) for seat in Seat},
            "players": self.players_json(),
            "moves": [{"card": str(m.card), "guarantee": m.guarantee,
                       "moon_possible": m.moon_possible, "best": m.best} for m in self.moves],
            "nodes": self.nodes,
            "seconds": round(self.seconds, 4),
        }


def line_json(target: Seat, steps: list[LineStep]) -> dict[str, Any]:
    """A line as ``hearts-dd analyze --line --json`` prints it and the API answers it."""
    return {"for": str(target), "cards": [f"{st.seat}:{st.card}" for st in steps]}


@dataclass(frozen=True)
class AnalysisWithLine:
    """An analysis and, if one was asked for, ``target``'s optimal line
    (``analysis.analyze_with_line``): one answer for ``analyze --line`` and ``POST /analyze``."""
    analysis: Analysis
    target: Seat | None = None
    line: list[LineStep] | None = None

    def to_json(self) -> dict[str, Any]:
        """The analysis' SPEC §4 object, with ``line`` after the rest when there is one."""
        out = self.analysis.to_json()
        if self.target is not None and self.line is not None:
            out["line"] = line_json(self.target, self.line)
        return out


def out_of_time(seconds: float, e: SearchAborted | None = None, nodes: int = 0) -> str:
    """The one-line error of a question the limits cut short (the time limit, and the node
    limit of each search if there is one), with what it had proved.

    >>> out_of_time(2.0, SearchAborted("x", None, 12, "W"))
    "no answer within the time limit of 2 s; so far W's guarantee is at most 12"
    >>> out_of_time(2.0, nodes=1000), out_of_time(0, nodes=1000)
    ('no answer within the limits of 2 s and 1000 nodes per search', 'no answer within the node limit of 1000 nodes per search')
    """
    if nodes and seconds:
        limits = f"the limits of {seconds:g} s and {nodes} nodes per search"
    else:
        limits = f"the node limit of {nodes} nodes per search" if nodes else f"the time limit of {seconds:g} s"
    return f"no answer within {limits}" + (proven_so_far(e) if e else "")


def proven_so_far(e: SearchAborted) -> str:
    """What a search cut short had proved of the guarantee asked, for its one-line message
    (or nothing).

    >>> proven_so_far(SearchAborted("x", 6, None, "N")), proven_so_far(SearchAborted("x", None, None, "N"))
    ("; so far N's guarantee is at least 6", '')
    """
    if e.who is None or (e.low is None and e.high is None):
        return ""
    if e.low is not None and e.high is not None:
        span = f"between {e.low} and {e.high}"
    else:
        span = f"at least {e.low}" if e.low is not None else f"at most {e.high}"
    return f"; so far {e.who}'s guarantee is {span}"
