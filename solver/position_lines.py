"""JSON Lines of positions, for ``hearts-dd analyze --input`` (and the same objects in a list,
for the API's ``POST /analyses``): many positions answered by one process and one table, where
a command per position would map a table and start Python each time.

A line is one JSON object with the fields of ``hearts-dd analyze``'s options: ``deal``
(required), ``play``, ``rules`` (a preset name or a rule object), ``leader`` and ``player``,
and optionally ``id``, any JSON value handed back with the answer. Blank lines are skipped.
Each answer is one JSON object: ``index`` (0-based, counting the lines that are not blank),
``id`` when given, the object of ``hearts-dd analyze --json`` (SPEC §4), and ``error`` (null,
or one line naming the input line and what is wrong with it). A bad line is answered with its
error and never stops the others. ``LineInput`` reads such lines from a stream as they come.

>>> from solver.analysis import Solver
>>> deal = '"deal": "N:A..2. K..3. Q..4. .J.5.", "leader": "N"'
>>> lines = ['{%s, "play": "D2 D3"}' % deal, '', '{%s, "play": "D3"}' % deal]
>>> for out in answer_lines(Solver(), read_position_lines(lines, Rules.parse({"first_lead": "free"}))):
...     print(out["index"], out["to_move"] if out["error"] is None else out["error"])
0 S
1 line 3: trick 1: N cannot play D3: it is E's card
"""
from __future__ import annotations

import codecs
import io
import json
import os
import re
import select
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any, BinaryIO

from .analysis import Solver
from .bounded_lines import BLANKS, MAX_LINE, bounded_lines, count_lines, is_cut
from .cards import Seat
from .deal import Deal
from .errors import HeartsError, JsonError, LeaderNeeded, json_type, read_json
from .pbn import wide_encoding
from .position import Position
from .results import Analysis, out_of_time
from .rules import STANDARD, Rules

__all__ = ["LineInput", "PositionLine", "read_position_lines", "read_position_objects", "answer_lines",
           "answer_batch"]

FIELDS = ("deal", "play", "rules", "leader", "player", "id")
#: A byte that is not UTF-8, as a file read with ``errors="surrogateescape"`` passes it on.
_UNDECODED = re.compile("[\udc80-\udcff]")
#: What ``LineInput`` reads in place of a unit that is not UTF-16 or UTF-32 (a lone surrogate):
#: a character no decoder gives (surrogateescape's start at U+DC80).
_NOT_WIDE = "\udc00"
#: Positions handed to ``Solver.analyses`` at a time: enough to keep every thread busy, few
#: enough that answers stream out and memory stays flat however long the input.
CHUNK = 64


def _mark_not_wide(error: UnicodeError) -> tuple[str, int]:
    """The codec error handler "hearts-dd-not-wide": ``_NOT_WIDE`` for what does not decode."""
    if not isinstance(error, UnicodeDecodeError):
        raise error
    return _NOT_WIDE, error.end


codecs.register_error("hearts-dd-not-wide", _mark_not_wide)


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
    longer than ``MAX_LINE`` is an error, not held in memory. Lines are text: a whole text
    in one string, or bytes, is refused at once (their "lines" would be characters or ints)."""
    index = 0
    known: dict[str, Rules] = {"": rules or STANDARD}
    if isinstance(lines, (str, bytes, bytearray)):
        raise HeartsError(f"expected lines of text, got {type(lines).__name__}"
                          " (a file: open(name); text in memory: text.splitlines())")
    for number, text in enumerate(bounded_lines(lines), 1):
        if not isinstance(text, str):
            raise HeartsError(f"expected lines of text, got a line of {type(text).__name__}"
                              + (" (open the file in text mode, or read it with LineInput)"
                                 if isinstance(text, (bytes, bytearray)) else ""))
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
    if _NOT_WIDE in text:   # likewise (its id came back with U+FFFD for a lone surrogate)
        return PositionLine(index, where, error=f"{where}: not UTF-16 or UTF-32 text (column "
                                                f"{text.index(_NOT_WIDE) + 1})")
    line = text.rstrip("\r\n")     # a column past the end, not "line 2, column 1"
    try:
        obj = read_json(line)
    except JsonError as e:
        # JSON takes a CR for a space: a file whose lines end in CR alone is one line
        hint = (" (its lines end in CR alone? JSON Lines ends each line with LF)"
                if "\r" in line and str(e).startswith("Extra data") else "")
        return PositionLine(index, where, error=f"{where}: not JSON: {e}{hint}")
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
                 more_now: Callable[[], bool] | None = None) -> Generator[dict[str, Any], None, None]:
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


class LineInput:
    """The text lines of a binary stream (standard input, a file) read from its descriptor, for
    ``analyze --input``, which can say whether a line is there to be read without waiting
    (``more_now``). A buffered text stream reads ahead where ``select`` does not see it: the
    lines a bot wrote at once, its sampled deals, were then solved one at a time, one thread
    busy. UTF-8 with an optional BOM, bytes that are not UTF-8 passed on as surrogates, or
    Windows' "Unicode" text (UTF-16, as PowerShell's ``>`` writes, or UTF-32: read as UTF-8,
    each line was 'not UTF-8 text' and the zero byte after each newline another line; what
    does not decode there is marked ``_NOT_WIDE``), told from the first bytes as the PBN reader
    tells it; lines ending at "\\n" alone (a lone "\\r" is JSON whitespace)."""

    BLOCK = 1 << 16

    def __init__(self, stream: IO[bytes]) -> None:
        self.name = getattr(stream, "name", "-")
        self._stream = stream
        try:
            self._fd: int | None = stream.fileno()
        except (OSError, ValueError):   # (no descriptor: read as a file, its reads then fail)
            self._fd = None
        self._decode: Callable[..., str] | None = None     # (once the first bytes tell which)
        self._head = b""
        self._text = ""
        self._start = 0     # where the next line starts in _text
        self._ended = False

    def readline(self, limit: int = -1, /) -> str:
        """The next line with its "\\n", or its first ``limit`` characters; "" at the end."""
        seen = self._start      # (the text before it holds no line end: not searched again)
        while True:
            end = self._text.find("\n", seen)
            cut = -1 if limit < 0 else self._start + limit
            if end >= 0 and (cut < 0 or end < cut):
                return self._take(end + 1)
            if cut >= 0 and len(self._text) >= cut:
                return self._take(cut)
            if self._ended:
                return self._take(len(self._text))
            seen = len(self._text) - self._start
            self._text = self._text[self._start:]
            self._start = 0
            self._fill()

    def __iter__(self) -> Iterator[str]:
        return iter(self.readline, "")

    def _fill(self) -> None:
        """One read of the stream added to the text (waiting only if nothing is there)."""
        data = (os.read(self._fd, self.BLOCK) if self._fd is not None
                else self._stream.read(self.BLOCK))
        self._ended = not data
        if self._decode is None:
            self._head += data
            # (a whole line with no zero byte is no UTF-16 or UTF-32: a short first line,
            # "{}", is answered without waiting for the bytes after it)
            short_line = b"\n" in self._head and b"\0" not in self._head
            if len(self._head) < 4 and not self._ended and not short_line:
                return
            wide = wide_encoding(self._head[:4])
            self._decode = codecs.getincrementaldecoder(wide or "utf-8")(
                "hearts-dd-not-wide" if wide else "surrogateescape").decode
            data, self._head = self._head, b""
            # the BOM taken off here, whole (the head holds 4 bytes, or all there are): the
            # "utf-8-sig" decoder kept an input of 1 or 2 bytes that begin one, 0xEF, waiting
            # for the rest, and the end lost them, a line that was 'not UTF-8 text' read as none
            if not wide and data.startswith(codecs.BOM_UTF8):
                data = data[len(codecs.BOM_UTF8):]
        self._text += self._decode(data, final=self._ended)

    def _take(self, end: int) -> str:
        line = self._text[self._start:end]
        self._start = end
        return line

    @staticmethod
    def count(stream: BinaryIO) -> int:
        """The lines of a file, not blank, as this reads them (a progress bar's total): those
        of its text in UTF-16 or UTF-32, whose bytes split at each 0x0A are no lines (the total
        was twice the lines, and one more).

        >>> LineInput.count(io.BytesIO("{}\\n\\n{}\\n".encode("utf-16")))
        2
        """
        wide = wide_encoding(stream.read(4))
        stream.seek(0)
        if wide is None:
            return count_lines(stream)
        text = io.TextIOWrapper(stream, encoding=wide, errors="replace", newline="\n")
        try:
            return count_lines(_Utf8(text))
        finally:
            text.detach()

    def ended_within(self, seconds: float) -> bool:
        """Whether the input ends, with no other position's line before its end, within
        ``seconds``: the program driving ``analyze --input -`` closed it, done asking."""
        deadline = time.monotonic() + seconds
        while True:
            if self._head.strip(BLANKS.encode()) or self._text[self._start:].strip(BLANKS):
                return False
            if self._ended:
                return True
            left = deadline - time.monotonic()
            if self._fd is None or left <= 0 or not select.select([self._fd], [], [], left)[0]:
                return False
            self._fill()

    def more_now(self) -> bool:
        """Whether a position's line (or the end) can be read without waiting: one read ahead
        already, or on the descriptor (or no descriptor to ask). Blank lines do not count: a
        question followed by one waited for the next question."""
        scan = self._start
        while True:
            end = self._text.find("\n", scan)
            if end >= 0:
                if self._text[scan:end].strip(BLANKS):
                    return True
                scan = end + 1
            elif self._ended or self._fd is None or len(self._text) - scan >= self.BLOCK:
                return True
            elif select.select([self._fd], [], [], 0)[0]:
                self._fill()    # (what is there: the lines after it, if any, are read in turn)
            else:
                return False


class _Utf8:
    """A text stream read as UTF-8 bytes (for ``count_lines``)."""

    def __init__(self, text: IO[str]) -> None:
        self._text = text

    def read(self, size: int) -> bytes:
        return self._text.read(size).encode("utf-8")
