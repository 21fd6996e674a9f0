"""hearts-dd: an exact double-dummy solver for Hearts (README.md, "Use", has the whole tour).

Start with a deal (``solver.deal.Deal``), a position in it (``solver.position.Position``: the
deal, the rules of ``solver.rules.Rules`` and the cards played) and a ``solver.analysis.Solver``
to ask about it; cards and seats are ``solver.cards.Card`` and ``Seat``, or their names:

>>> from solver.deal import Deal
>>> from solver.position import Position
>>> from solver.analysis import Solver
>>> from solver.cards import Seat
>>> p = Position.from_play(Deal.parse("N:A.K.. K.A.. .Q.3. ..2.2"), "standard", "C2")
>>> solver = Solver(table_mb=16)
>>> a = solver.analyze(p)
>>> str(p.to_move), a.players[Seat.N], [(str(m.card), m.guarantee) for m in a.moves]
('N', PlayerResult(guarantee=3, moon_possible=False), [('SA', 3)])
>>> solver.guarantee(p, "W"), [f"{step.seat}:{step.card}" for step in solver.line(p, "W")]
(0, ['N:SA', 'E:SK', 'S:D3', 'W:D2', 'N:HK', 'E:HA', 'S:HQ'])

Deals a player cannot tell apart, for a Monte-Carlo player, are ``solver.sampling``'s; the
review of a recorded play ``solver.review``'s; PBN hand records ``solver.pbn``'s. Every error
from bad input is a ``solver.errors.HeartsError``; a search cut short by a solver's limits
raises ``solver.analysis.SearchAborted``.
"""


def package_version() -> str:
    """hearts-dd's installed version ("unknown" in a checkout that was never installed): the
    API's, and what a checkpoint of ``annotate --resume`` must have been made with."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("hearts-dd")
    except PackageNotFoundError:
        return "unknown"
