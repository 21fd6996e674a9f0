"""Plain-text rendering of analyses: the deal as a diagram, the seats, the cards to choose from,
an optimal line trick by trick, the status line of a solve under way, the cards weighed
over sampled deals, and the rules' presets and keys."""
from __future__ import annotations

import json
import textwrap
from typing import Any, Iterable, Mapping, Sequence

from .results import Analysis, LineStep
from .cards import Seat, mask_of
from .deal import hand_string
from .position import Position
from .review import shot_the_moon
from .rules import VALUE_LIMIT, Rules
from .sampling import Weighing

_SYMBOL = "♠♥♦♣"     # by suit, as SUITS


def _suit_lines(mask: int) -> list[str]:
    return [f"{symbol} {ranks or '-'}" for symbol, ranks in zip(_SYMBOL, hand_string(mask).split("."))]


#: The column of East's hand in the diagram: past West's longest suit line ("♠ " and 13 cards),
#: and no further, so that the diagram fits a terminal of 40 columns (wider, East's suits
#: wrapped to the start of the next line, under West's).
EAST = 20


def diagram(hands: tuple[int, int, int, int]) -> str:
    """North on top, West and East beside each other, South below."""
    n, e, s, w = (_suit_lines(h) for h in hands)
    pad = " " * (EAST // 2)
    out = [f"{pad}N"] + [pad + line for line in n]
    out.append("W" + " " * (EAST - 1) + "E")
    out += [f"{wl:<{EAST}}{el}" for wl, el in zip(w, e)]
    out += [f"{pad}S"] + [pad + line for line in s]
    return "\n".join(out)


def value_table(head: str, rows: Iterable[tuple[object, object, bool]], indent: str = "",
                column: str = "Guarantee", moon: str = "Moon possible") -> list[str]:
    """Rows of ``(name, guarantee, moon possible)`` under a ``head`` column: the one layout of
    the seats' table (and the cards') wherever a report shows one (``column`` and ``moon``:
    the second and third columns' names).

    >>> print("\\n".join(value_table("Seat", [("N", 3, False), ("E", 26, True)])))
    Seat  Guarantee  Moon possible
    N             3  no
    E            26  yes
    """
    return [f"{indent}{head:<4}  {column:>9}  {moon}"] + [
        f"{indent}{str(name):<6}{str(value):>9}  {'yes' if moon else 'no'}" for name, value, moon in rows]


def guarantee_means(rules: Rules) -> str:
    """The seats' table's footnote: what a guarantee is (SPEC §3: the score of the whole hand,
    the points taken so far counted in, which beside "Points taken so far" read as the points
    still to come), which a 26 beside every seat's "no" moon would otherwise leave a reader to
    guess, and what "moon possible" says (forcing a moon, not a moon still open; under rules
    without one, a moon scores nothing).

    >>> print(guarantee_means(Rules.parse("rickety-kate")))
    (guarantee: the fewest points a seat can make sure of for the whole hand, those
     taken so far included, against the other three together;
     moon possible: it can make sure of taking every point card, which scores
     nothing special under these rules)
    """
    if rules.partnership:
        who, against, it = "a side", "the other side", "the side"
    else:
        who, against, it = "a seat", "the other three together", "it"
    moon = rules.moon != "none" and not rules.partnership
    guarantee = (f"(guarantee: the fewest points {who} can make sure of for the whole hand, those "
                 f"taken so far included, against {against}"
                 + (", who may let one of them shoot the moon;" if moon else ";"))
    possible = f"moon possible: {it} can make sure of taking every point card" + (
        ", which scores nothing special under these rules)" if rules.moon == "none" else ")")
    return "\n".join(textwrap.wrap(guarantee, WIDTH, subsequent_indent=" ")
                     + textwrap.wrap(possible, WIDTH, initial_indent=" ", subsequent_indent=" "))


def render(a: Analysis) -> str:
    p = a.position
    lines = [diagram(p.hands), ""]
    if p.trick:
        lines.append(_trick_line(p))
    sides = sorted({p.side(s) for s in a.players})
    taken = ", ".join(f"{p.side_name(side)} {p.raw_points(side)}" for side in sides)
    if p.to_move is None:
        # the scores below are after any moon: say who took what, and who shot it
        shooters = shot_the_moon(p)
        lines += _wrap(f"The hand is over. Rules: {p.rules.describe()}")
        lines.append(f"Points taken: {taken}" + (f"; {'/'.join(map(str, shooters))} shot the moon"
                                                 if shooters else ""))
    else:
        lines += _wrap(f"{p.to_move} to play, trick {p.trick_number}. Rules: {p.rules.describe()}")
        if p.trick_number > 1:
            # (whether a heart may be led: a leader's hearts missing from its legal cards
            # otherwise read as the solver's mistake)
            hearts = ("" if p.rules.hearts_break == "none" else
                      "; hearts broken" if p.broken else "; hearts not broken yet")
            lines.append(f"Points taken so far: {taken}{hearts}")
        lines += _short_deal(p)
    # (over, "moon possible" is whether the seat took every point card)
    lines += [""] + value_table("Seat", ((s, r.guarantee, r.moon_possible) for s, r in a.players.items()),
                                column="Score" if p.is_over else "Guarantee",
                                moon="Took every point card" if p.is_over else "Moon possible")
    if not p.is_over:
        lines.append(guarantee_means(p.rules))
    elif p.rules.partnership:       # ("N 3 ... S 3" read as 6 for the side)
        lines.append("(each partner's score is the side's: the two share it, not add it up)")
    if a.moves:
        # (legal: a hand that must follow suit has cards in the diagram that are not listed)
        lines += ["", f"Legal cards for {p.to_move}   (* best)"] + value_table(
            "Card", ((("*" if m.best else " ") + str(m.card), m.guarantee, m.moon_possible) for m in a.moves))
    elif p.to_move is not None:  # analyze leaves them out when the mover's side was not asked
        lines += ["", f"{p.to_move}'s cards not valued: asked for {', '.join(map(str, a.players))} only"]
    lines += ["", f"{a.nodes} nodes in {a.seconds:.3f} s"]
    return "\n".join(lines)


def _short_deal(p: Position) -> list[str]:
    """On the first trick of a deal of fewer than 13 cards a hand (an endgame set as a deal),
    what trick 1's rules make of it: the hands are where play starts (SPEC §1), so the lowest
    club must lead, points may not go on the first trick and hearts are unbroken, which a
    reader setting a mid-hand study took for the solver's mistakes."""
    size = p.deal.hand_size
    if size >= 13 or not p.first_trick:
        return []
    rules = []
    if p.forced_lead is not None:
        rules.append(f"{p.forced_lead}, the lowest club, leads")
    if not p.rules.first_trick_points:
        rules.append("no point card on it unless a hand has nothing else")
    if p.rules.hearts_break != "none":
        rules.append("hearts are not broken")
    if not rules:
        return []
    return _wrap(f"(a deal of {size} card{'s' if size > 1 else ''} a hand is a whole hand: its first "
                 f"trick is trick 1, so {'; '.join(rules)}. --rules first_lead, "
                 "first_trick_points and hearts_break change that.)")


def _trick_line(p: Position) -> str:
    """The cards of the trick in progress, each with its player."""
    return f"Trick {p.trick_number}: " + "  ".join(f"{p.leader.next(i)} {c}" for i, c in enumerate(p.trick))


def render_weighing(p: Position, w: Weighing, seed: int | None = None,
                    from_view: bool = False) -> str:
    """``analyze --samples``: the mover's hand and trick, and its cards weighed over the deals
    it cannot tell apart, best first (``from_view``: drawn from its own cards and the play,
    with no deal to tell them from)."""
    hand = "  ".join(_suit_lines(p.hands[w.seat]))
    lines = [f"{w.seat} to play, trick {p.trick_number}, holding {hand}"]
    if p.trick:
        lines.append(_trick_line(p))
    lines += _wrap(f"Its cards over {w.drawn} deals "
                   + ("that fit its cards and the play" if from_view else
                      "it cannot tell from this one")
                   + (f" (seed{_UNBROKEN}{seed})" if seed is not None else "")
                   + (f", {w.answered} of them analysed in time:" if w.answered < w.drawn else ":"))
    lines += ["", "Card  Mean guarantee  Best in"]
    lines += [f"{str(c.card):<4}  {c.mean:>14.2f}  {c.best_in} of {w.answered}" for c in w.cards]
    lines.append("(a card's guarantee in each deal, averaged; best in a deal: no card's was lower\n"
                 " there, so cards that tie all count)")
    if w.answered < w.drawn:
        lines.append("(the means leave out the deals not analysed in time, which are the harder)")
    return "\n".join(lines)


#: What a line's signs mean (read aloud, the arrow and the brackets said nothing).
_ON_TABLE, _WINNER = "in brackets: cards on the table", "after →: who takes the trick, and its points"


def render_line(start: Position, target: Seat, steps: Sequence[LineStep]) -> str:
    """An optimal line trick by trick: the cards in order of play (those already on the table
    in brackets), who wins the trick and the points it carries; then the final scores.

    >>> from solver.analysis import Solver
    >>> from solver.deal import Deal
    >>> from solver.rules import Rules
    >>> d = Deal.parse("N:Q.2.. A.3.. K.4.. J.5..")
    >>> p = Position.start(d, Rules.parse({"first_lead": "free"}), "N").play("SQ")
    >>> print(render_line(p, Seat.E, Solver().line(p, Seat.E)))
    Optimal line for E (guarantee 13):
    Trick 1  (N SQ)  E SA  S SK  W SJ  → E, 13 points
    Trick 2  E H3  S H4  W H5  N H2  → W, 4 points
    Final scores: N 0, E 13, S 0, W 4
    (in brackets: cards on the table; after →: who takes the trick, and its points)
    (E plays for its lowest score; the other three play together against it)
    """
    who = start.side_name(start.side(target))     # with partnerships, the side's line
    if not steps:
        return f"Optimal line for {who}: the hand is over."
    lines = [f"Optimal line for {who} (guarantee {steps[0].value}):"]
    p = start
    row = [f"({p.leader.next(i)} {c})" for i, c in enumerate(p.trick)]
    for step in steps:
        row.append(f"{step.seat} {step.card}")
        number, trick = p.trick_number, p.trick + (step.card,)
        p = p.play(step.card)
        if len(trick) == 4:
            points = p.rules.points_of(mask_of(trick)) + p.rules.trick_points
            row.append(f"→ {p.leader}" + ("" if not points else
                                          f", {points} point{'' if abs(points) == 1 else 's'}"))
            lines.append(f"Trick {number:<3}" + "  ".join(row))
            row = []
    if p.is_over:       # (a guarantee made by another seat's moon shows only here)
        lines.append(final_scores(p))
    lines.append("(" + "; ".join([_ON_TABLE, _WINNER] if start.trick else [_WINNER]) + ")")
    lines.append(_sides_of_line(start, target))
    return "\n".join(lines)


def _sides_of_line(start: Position, target: Seat) -> str:
    """Who plays how in a line (SPEC §3): the others' cards are chosen against the target, not
    for their own scores, which a reader would otherwise take for their mistakes."""
    if start.rules.partnership:
        us, them = (start.side_name(side) for side in (start.side(target), 1 - start.side(target)))
        return f"({us} play for their lowest score; {them} play against them)"
    return f"({target} plays for its lowest score; the other three play together against it)"


def final_scores(end: Position) -> str:
    """The scores of a hand that is over, by side, moon applied, and who shot the moon: a
    line's points trick by trick do not show a guarantee that another seat's moon makes.

    >>> from solver.deal import Deal
    >>> end = Position.from_play(Deal.parse("N:A.K.. K.A.. .Q.3. ..2.2"), None, "C2 SA SK D3 D2 HK HA HQ")
    >>> final_scores(end)
    'Final scores: N 3, E 3, S 3, W 0 (W shot the moon)'
    """
    sides = sorted({end.side(seat) for seat in Seat})
    scores = ", ".join(f"{end.side_name(side)} {end.score(end.side_seats(side)[0])}" for side in sides)
    shooters = shot_the_moon(end)
    return f"Final scores: {scores}" + (f" ({'/'.join(map(str, shooters))} shot the moon)"
                                        if shooters else "")


def _span(low: int | None, high: int | None) -> str:
    if low is not None and low == high:
        return str(low)
    if low is not None and high is not None:
        return f"{low}–{high}"
    if low is None and high is None:
        return "…"
    return f"≥ {low}" if low is not None else f"≤ {high}"


def status_line(bounds: Mapping[str, tuple[int | None, int | None]], seats: list[str],
                cards: int, seconds: float | None) -> str:
    """One line of what an analysis under way has proved (``Solver.analyze``'s ``watch``):
    each of ``seats``' guarantee, its bounds while it is searched; how many of the mover's
    ``cards`` (questions that are not seats) are valued; the time taken, if ``seconds``.

    >>> status_line({"N": (6, 6), "E": (19, None), "S": (None, 12), "C2": (5, 5), "C3": (4, None)},
    ...             ["N", "E", "S", "W"], 3, 14.2)
    'N 6 · E ≥ 19 · S ≤ 12 · W … · cards 1/3 · 14 s'
    """
    parts = [f"{seat} {_span(*bounds.get(seat, (None, None)))}" for seat in seats]
    if cards:
        valued = sum(1 for q, (low, high) in list(bounds.items())
                     if q not in seats and low is not None and low == high)
        parts.append(f"cards {valued}/{cards}")
    return " · ".join(parts + ([] if seconds is None else [f"{seconds:.0f} s"]))


def render_catalogue(catalogue: Mapping[str, Any]) -> str:
    """``rules.catalogue()`` as ``hearts-dd rules`` prints it: each preset and what it is,
    then each rule key, what it means, what it takes and its standard value.

    >>> from solver.rules import catalogue
    >>> print("\\n".join(render_catalogue(catalogue()).splitlines()[1:3]))
      standard            hearts 1 each, SQ 13 (26 in all); moon adds 26 to the
                          others
    """
    presets, keys = catalogue["presets"], catalogue["keys"]
    width = max(map(len, [*presets, *keys])) + 2
    lines = ["Presets: --rules NAME"]
    for name, p in presets.items():
        lines += _column(f"  {name:<{width}}", p["description"])
    lines += ["", "Rule keys: --rules JSON, a preset and what differs from it, e.g.",
              "  " + json.dumps({"preset": "omnibus", "moon": "none", "values": {"H": 2}})]
    for name, key in keys.items():     # (a blank line between keys: their text is wrapped)
        lines += [""] + _column(f"  {name:<{width}}", key["description"])
        lines += _column(" " * (width + 2), _takes(key))
    return "\n".join(lines)


#: The width of the reports' wrapped text (``hearts-dd rules``, the seats' footnote): a
#: terminal of 80 columns, which wrapped longer lines back to its first column.
WIDTH = 79


#: A space the lines are not broken at ("(seed" at a line's end, the number on the next read
#: as no seed, and a search for "(seed N)" missed it).
_UNBROKEN = "\0"


def _wrap(text: str) -> list[str]:
    """A sentence of a report in lines of ``WIDTH``, those after the first indented."""
    return [line.replace(_UNBROKEN, " ") for line in
            textwrap.wrap(text, WIDTH, subsequent_indent="  ", break_long_words=False,
                          break_on_hyphens=False)]


def _column(head: str, text: str) -> list[str]:
    """``head`` then ``text`` wrapped in the column that starts after it."""
    return textwrap.wrap(text, WIDTH, initial_indent=head, subsequent_indent=" " * len(head),
                         break_long_words=False, break_on_hyphens=False)


def _takes(key: Mapping[str, Any]) -> str:
    """What a rule key takes and its standard value, in words."""
    standard = key["standard"]
    if key["type"] == "object":
        return "standard: the preset's values"
    if key["type"] == "boolean":
        return f"true or false; standard: {json.dumps(standard)}"
    if key["type"] == "integer":
        return f"an integer from {-VALUE_LIMIT} to {VALUE_LIMIT}; standard: {standard}"
    if key["choices"] is None:      # a string of no fixed set, such as a card's name
        return f"a {key['type']}; standard: {json.dumps(standard)}"
    return f"one of {', '.join(key['choices'])}; standard: {standard}"
