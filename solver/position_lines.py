"""JSON Lines of positions, for ``hearts-dd analyze --input`` (and the same objects in a list,
for the API's ``POST /analyses``): many positions answered by one process and one table, where
a command per position would map a table and start Python each time.

A line is one JSON object with the fields of ``hearts-dd analyze``'s options: ``deal``
(required), ``play``, ``rules`` (a preset name or a rule object), ``leader`` and ``player``,
and optionally ``id``, any JSON value handed back with the answer. Blank lines are skipped.
Each answer is one JSON object: ``index`` (0-based, counting the lines that are not blank),
``id`` when given, the object of ``hearts-dd analyze --json`` (SPEC §4), and ``error`` (null,
or one line naming the input line and what is wrong with it). A bad line is answered with its
error and never stops the others.

>>> from solver.analysis import Solver
>>> deal = '"deal": "N:A..2. K..3. Q..4. .J.5.", "leader": "N"'
>>> lines = ['{%s, "play": "D2 D3"}' % deal, '', '{%s, "play": "D3"}' % deal]
>>> for out in answer_lines(Solver(), read_position_lines(lines, Rules.parse({"first_lead": "free"}))):
...     print(out["index"], out["to_move"] if out["error"] is None else out["error"])
0 S
1 line 3: trick 1: N cannot play D3: it is E's card
"""
from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .analysis import Solver
from .bounded_lines import BLANKS, MAX_LINE, bounded_lines, is_cut
from .cards import Seat
from .deal import Deal
from .errors import HeartsError, JsonError, LeaderNeeded, json_type, read_json
from .position import Position
from .results import Analysis, out_of_time
from .rules import STANDARD, Rules

__all__ = ["PositionLine", "read_position_lines", "read_position_objects", "answer_lines",
           "answer_batch"]

FIELDS = ("deal", "play", "rules", "leader", "player", "id")
#: A byte that is not UTF-8, as a file read with ``errors="surrogateescape"`` passes it on.
_UNDECODED = re.compile("[\udc80-\udcff]")
#: Positions handed to ``Solver.analyses`` at a time: enough to keep every thread busy, few
#: enough that answers stream out and memory stays flat however long the input.
CHUNK = 64


@dataclass(frozen=True)
class PositionLine:
    """One input line read: its position and seats to answer, or why it has none."""

    index: int
    where: str  # for messages: "line 3" of a file, "positions[2]" of an API request
    id: Any = None
    has_id: bool = False
    position: Position | None = None
    seats: list[Seat] | None = None  # None: every seat
    error: str | None = None


def read_position_lines(lines: Iterable[str], rules: Rules | None = None,
                        player: Seat | None = None) -> Iterator[PositionLine]:
    """The positions of JSON Lines, in order. ``rules`` and ``player`` are the defaults for
    lines without those fields (``hearts-dd analyze --rules/--player``). A line of a file
    longer than ``MAX_LINE`` is an error, not held in memory."""
    index = 0
    known: dict[str, Rules] = {"": rules or STANDARD}
    for number, text in enumerate(bounded_lines(lines), 1):
        if is_cut(text):
            yield PositionLine(index, f"line {number}", error=f"line {number}: longer than "
                               f"{MAX_LINE:,} characters: not read (not a file of positions?)")
        elif not text.strip(BLANKS):    # (as the progress bar's total counts them)
            continue
        else:
            yield _read_line(text, index, number, known, player)
        index += 1


def read_position_objects(objects: Iterable[Any], rules: Rules | None = None,
                          player: Seat | None = None) -> Iterator[PositionLine]:
    """The positions of a list of JSON values already parsed (the API's ``positions``), each
    read as a line of ``read_position_lines``; messages name ``positions[i]``."""
    known: dict[str, Rules] = {"": rules or STANDARD}
    for index, obj in enumerate(objects):
        yield _read_object(obj, index, f"positions[{index}]", known, player)


def _read_line(text: str, index: int, number: int, known: dict[str, Rules],
               default_player: Seat | None) -> PositionLine:
    where = f"line {number}"
    undecoded = _UNDECODED.search(text)
    if undecoded:       # as the API's bodies: an id must come back as it was sent
        byte = len(text[:undecoded.start()].encode("utf-8", "surrogateescape"))
        return PositionLine(index, where, error=f"{where}: not UTF-8 text (byte {byte + 1})")
    try:
        obj = read_json(text.rstrip("\r\n"))     # a column past the end, not "line 2, column 1"
    except JsonError as e:
        return PositionLine(index, where, error=f"{where}: not JSON: {e}")
    return _read_object(obj, index, where, known, default_player)


def _read_object(obj: Any, index: int, where: str, known: dict[str, Rules],
                 default_player: Seat | None) -> PositionLine:
    if not isinstance(obj, dict):
        return PositionLine(index, where, error=f"{where}: expected a JSON object, got "
                                                f"{json_type(obj)}")
    has_id = "id" in obj
    ident = obj.get("id")
    try:
        unknown = [key for key in obj if key not in FIELDS]
        if unknown:
            raise HeartsError(f"unknown field {unknown[0]!r} (a position has "
                              f"{', '.join(FIELDS)})")
        if "deal" not in obj:
            raise HeartsError("no deal")
        for key in ("deal", "play", "leader", "player"):
            if obj.get(key) is not None and not isinstance(obj[key], str):
                raise HeartsError(f"{key} must be a string, got {json_type(obj[key])}")
        rules = _rules(obj.get("rules"), known)
        deal = Deal.parse(obj["deal"])
        leader = _seat(obj, "leader")
        position = Position.from_play(deal, rules, obj.get("play") or "", leader)
        player = _seat(obj, "player")
        if player is None:
            player = default_player
    except LeaderNeeded as e:
        return PositionLine(index, where, ident, has_id, error=f'{where}: {e} ("leader" in the line)')
    except HeartsError as e:
        return PositionLine(index, where, ident, has_id, error=f"{where}: {e}")
    return PositionLine(index, where, ident, has_id, position, None if player is None else [player])


def _seat(obj: dict[str, Any], key: str) -> Seat | None:
    try:
        return Seat.parse(obj[key]) if obj.get(key) is not None else None
    except HeartsError as e:
        raise HeartsError(f"{key}: {e}") from None


def _rules(spec: Any, known: dict[str, Rules]) -> Rules:
    """The rules of a line, the same object for the same spec: a rule set works out its point
    masks and JSON form once, where every line would otherwise repeat that work."""
    try:
        key = "" if spec is None else json.dumps(spec, sort_keys=True)
    except (ValueError, RecursionError):   # nothing Rules.parse would take
        return Rules.parse(spec)
    if key not in known:
        if len(known) > 256:  # lines that each spell their rules differently: keep memory flat
            default = known[""]
            known.clear()
            known[""] = default
        known[key] = Rules.parse(spec)
    return known[key]


def answer_lines(solver: Solver, items: Iterable[PositionLine], chunk: int = CHUNK,
                 more_now: Callable[[], bool] | None = None) -> Iterator[dict[str, Any]]:
    """The answer to each line, in input order. Positions go to ``Solver.analyses`` ``chunk``
    at a time, or fewer when ``more_now`` says no more input can be read at once (a program
    that writes a question and waits for its answer). The solver's time limit holds for each
    position, and a position that runs out of time is one line's error."""
    limit = out_of_time(solver.time_limit, nodes=solver.node_limit)
    batch: list[PositionLine] = []
    for item in items:
        batch.append(item)
        if len(batch) >= chunk or (more_now is not None and not more_now()):
            yield from answer_batch(solver, batch, limit, each=True)
            batch = []
    if batch:
        yield from answer_batch(solver, batch, limit, each=True)


def answer_batch(solver: Solver, batch: list[PositionLine], why: str,
                 each: bool = False, share: float = 0.0) -> Iterator[dict[str, Any]]:
    """The answers of positions read, in order, from one ``Solver.analyses`` call: a position
    the solver's limits cut short (for each position with ``each``, else for the call, whose
    time ``share`` is shared out first) is its own error, ``why``. Each line comes as soon as
    it and those before it are answered: a progress display moves with the positions, and a
    Ctrl-C loses only the answers after the first position still searched."""
    answers = _in_order(solver, [(item.position, item.seats) for item in batch
                                 if item.position is not None], each=each, share=share)
    for item in batch:
        out: dict[str, Any] = {"index": item.index}
        if item.has_id:
            out["id"] = item.id
        if item.position is None:
            out["error"] = item.error
        elif (a := next(answers)) is None:
            out["error"] = f"{item.where}: {why}"
        else:
            out.update(a.to_json())
            out["error"] = None
        yield out
    for _ in answers:   # (none left: this ends the call's thread, and raises what it raised)
        pass


#: Positions with fewer cards left than this are answered in a batch's one call, without a
#: thread to hand each answer over as it is found: they take milliseconds, and the thread
#: cost more than that (a Monte-Carlo player's endgames, one at a time, took 2.5 times as long).
STREAM_FROM_CARDS = 32


def _in_order(solver: Solver, questions: list[tuple[Position, list[Seat] | None]],
              **options: Any) -> Iterator[Analysis | None]:
    """``solver.analyses(questions, partial=True, **options)``, each answer given as soon as it
    and those before it are found: the call runs on a thread of its own meanwhile, and is
    cancelled if the reader stops early. (Small batches are answered in one call.)"""
    if len(questions) < 2 or all(p.cards_left < STREAM_FROM_CARDS for p, _ in questions):
        yield from solver.analyses(questions, partial=True, **options)
        return
    found: dict[int, Analysis | None] = {}
    failed: list[BaseException] = []
    ended = False
    news = threading.Condition()

    def done(k: int, answer: Analysis | None) -> None:
        with news:
            found[k] = answer
            news.notify()

    limits = (solver.time_limit, solver.node_limit)    # the caller's: a Budget's are its thread's

    def call() -> None:
        nonlocal ended
        try:
            solver.thread_limits = limits
            solver.analyses(questions, partial=True, done=done, **options)
        except BaseException as e:
            failed.append(e)
        finally:
            with news:
                ended = True
                news.notify()

    thread = threading.Thread(target=call, name="hearts-dd-lines", daemon=True)
    thread.start()
    given = 0
    try:
        for k in range(len(questions)):
            with news:
                while k not in found and not ended:
                    news.wait()
                if k not in found:
                    break
                answer = found.pop(k)
            yield answer
            given += 1
    finally:
        # the reader left early (Ctrl-C, a failed write): stop the call, ours alone, once it
        # has started (a cancel before its start, or while it waits on another thread's, is lost)
        while given < len(questions) and thread.is_alive():
            solver.cancel(thread.ident)
            thread.join(0.05)
        thread.join()
    if failed:
        raise failed[0]
