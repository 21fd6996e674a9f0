"""Answers (SPEC §3): guarantees, moon feasibility, card values and optimal lines.

>>> from solver.deal import Deal
>>> d = Deal.parse("N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432")
>>> a = Solver().analyze(Position.start(d, leader="N", rules=Rules.parse({"first_lead": "free"})))
>>> a.players[Seat.N].guarantee, a.players[Seat.N].moon_possible, a.players[Seat.E].guarantee
(0, True, 26)
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from .cards import Card, Seat, cards_of
from .position import Position
from .rules import Rules
from ._search import Engine, SearchAborted

__all__ = ["Solver", "Analysis", "PlayerResult", "MoveResult", "LineStep", "SearchAborted"]

_MOON_MODES = {"add": 0, "subtract": 1, "none": 2}
_BREAK = {"hearts": 0, "queen": 1, "none": 2}
DEFAULT_TABLE_MB = 128


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

    def to_json(self) -> dict[str, Any]:
        p = self.position
        return {
            "deal": p.deal.pbn(),
            "play": " ".join(str(c) for c in p.played),
            "rules": p.rules.to_dict(),
            "to_move": str(p.to_move) if p.to_move is not None else None,
            "trick": p.trick_number if not p.is_over else None,
            "players": {str(s): {"guarantee": r.guarantee, "moon_possible": r.moon_possible}
                        for s, r in self.players.items()},
            "moves": [{"card": str(m.card), "guarantee": m.guarantee,
                       "moon_possible": m.moon_possible, "best": m.best} for m in self.moves],
            "nodes": self.nodes,
            "seconds": round(self.seconds, 4),
        }


class Solver:
    """Exact answers for positions under one rule set at a time; keeps one engine (and so one
    transposition table) per rule set, reused across questions.

    ``node_limit`` / ``time_limit`` bound every search; past them ``SearchAborted`` is raised.
    """

    def __init__(self, table_mb: int = DEFAULT_TABLE_MB, node_limit: int = 0,
                 time_limit: float = 0.0) -> None:
        self.table_mb = table_mb
        self.node_limit = node_limit
        self.time_limit = time_limit
        self._engine: Engine | None = None
        self._rules: Rules | None = None
        self._deadline = 0.0
        self._depth = 0

    # -- engine plumbing -------------------------------------------------------------
    def _engine_for(self, p: Position) -> Engine:
        if self._engine is None or self._rules != p.rules:
            r = p.rules
            self._engine = None  # free the old table before allocating the new one
            self._engine = Engine(list(r.values), _MOON_MODES[r.moon], r.trick_points,
                                  r.partnership, _BREAK[r.hearts_break], r.first_trick_points,
                                  int(Card.parse("SQ")), self.table_mb << 20)
            self._rules = r
        self._engine.set_moon_total(p.moon_total)
        return self._engine

    def _args(self, p: Position) -> tuple:
        fl = p.forced_lead
        return (p.hands, [int(c) for c in p.trick], int(p.leader), p.broken, p.first_trick,
                int(fl) if fl is not None else -1)

    @contextmanager
    def _question(self) -> Iterator[None]:
        """The time limit covers one public call, however many searches it makes."""
        if self._depth == 0:
            self._deadline = time.monotonic() + self.time_limit
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1

    def _budget(self) -> dict[str, Any]:
        if not self.time_limit:
            return {"node_limit": self.node_limit}
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise SearchAborted("time budget exhausted")
        return {"node_limit": self.node_limit, "seconds": left}

    @property
    def nodes(self) -> int:
        return self._engine.nodes if self._engine is not None else 0

    # -- questions -------------------------------------------------------------------
    def value_to_go(self, p: Position, side: int, guess: int = 0) -> int:
        e = self._engine_for(p)
        return e.value(*self._args(p), p.moon_state, side, guess=guess, **self._budget())

    def guarantee(self, p: Position, seat: Seat | str, guess: int | None = None) -> int:
        """The lowest score ``seat`` can make sure of (its side's, with partnerships)."""
        side = p.side(Seat.parse(seat) if isinstance(seat, str) else seat)
        raw = p.raw_points(side)
        g = 0 if guess is None else guess - raw
        with self._question():
            return raw + self.value_to_go(p, side, g)

    def moon_possible(self, p: Position, seat: Seat | str) -> bool:
        side = p.side(Seat.parse(seat) if isinstance(seat, str) else seat)
        e = self._engine_for(p)
        with self._question():
            return e.moon(*self._args(p), p.moon_state, side, **self._budget())

    def move_groups(self, p: Position) -> list[tuple[Card, list[Card]]]:
        """Legal cards of the player to move, grouped into runs of equivalent cards."""
        if p.is_over:
            return []
        e = self._engine_for(p)
        return [(Card.from_index(rep), list(cards_of(run))) for rep, run in e.move_groups(*self._args(p))]

    def analyze(self, p: Position, seats: Iterable[Seat] | None = None, moves: bool = True) -> Analysis:
        """Guarantee and moon flag for ``seats`` (default all), and every legal card's values."""
        with self._question():
            return self._analyze(p, seats, moves)

    def _analyze(self, p: Position, seats: Iterable[Seat] | None, moves: bool) -> Analysis:
        t0 = time.perf_counter()
        n0 = self.nodes
        wanted = list(Seat) if seats is None else [Seat(s) for s in seats]
        by_side: dict[int, PlayerResult] = {}
        players: dict[Seat, PlayerResult] = {}
        for seat in wanted:
            side = p.side(seat)
            if side not in by_side:
                by_side[side] = PlayerResult(self.guarantee(p, seat), self.moon_possible(p, seat))
            players[seat] = by_side[side]
        results: list[MoveResult] = []
        mover = p.to_move
        if moves and mover is not None:
            side = p.side(mover)
            base = by_side.get(side)
            rows: list[MoveResult] = []
            groups = self.move_groups(p)
            for rep, run in groups:
                if len(groups) == 1 and base is not None:
                    # a forced choice: the card's values are the position's own
                    g, m = base.guarantee, base.moon_possible
                else:
                    child = p.play(rep)
                    g = self.guarantee(child, mover, guess=base.guarantee if base else None)
                    m = self.moon_possible(child, mover)
                rows.extend(MoveResult(c, g, m) for c in run)
            best = min(r.guarantee for r in rows)
            results = sorted((MoveResult(r.card, r.guarantee, r.moon_possible, r.guarantee == best)
                              for r in rows), key=lambda r: (r.card.suit, -r.card.rank))
        return Analysis(p, players, results, self.nodes - n0, time.perf_counter() - t0)

    def line(self, p: Position, target: Seat | str) -> list[LineStep]:
        """An optimal continuation to the end for ``target``: its side minimises its score,
        the others maximise it."""
        with self._question():
            return self._line(p, target)

    def _line(self, p: Position, target: Seat | str) -> list[LineStep]:
        t = Seat.parse(target) if isinstance(target, str) else target
        tside = p.side(t)
        out: list[LineStep] = []
        value = self.guarantee(p, t)
        while not p.is_over:
            mover = p.to_move
            assert mover is not None
            for rep, _run in self.move_groups(p):
                child = p.play(rep)
                if self.guarantee(child, t, guess=value) == value:
                    out.append(LineStep(mover, rep, value))
                    p = child
                    break
            else:  # pragma: no cover - the value is always reached by some child
                raise AssertionError("no child reaches the position's value")
        return out
