"""What the solver answers (SPEC §3), as typed values: a position's analysis (each seat's
guarantee and moon flag, each card's values), bounds on a guarantee cut short, an optimal
line. The solver (``solver.analysis``) makes them; the report, the record writers and the
API read them (``to_json`` is SPEC §4's form)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from .cards import Card, Seat
from .position import Position

__all__ = ["Analysis", "Bounds", "LineStep", "MoveResult", "PlayerResult", "Questions",
           "line_json"]


class Bounds(NamedTuple):
    """What is proved of a guarantee: ``low <= guarantee <= high``, None for a side not
    proved; equal when it is solved (``Solver.guarantee_bounds``).

    >>> Bounds(3, 3).exact, Bounds(3, None).exact
    (True, False)
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
    players: dict[Seat, PlayerResult]
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
            "deal": p.deal.pbn(),
            "play": " ".join(str(c) for c in p.played),
            "rules": p.rules.to_dict(),
            "leader": str(p.leader0),
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
