"""PBN hand records: a streaming reader that never stops at a bad game, and a writer.

Modelled on python-chess's ``pgn``: ``read_records`` yields one ``Record`` per game, in file
order, with its first line number; whatever is wrong with a game goes into ``record.errors``
(one line each, naming the line) and reading continues with the next game. Only the current
game is held in memory, so files of any length stream through.

What is read (PBN 2.1 import format, see docs/hand-records.md): tag pairs with ``\\"`` escapes,
``;`` and ``{...}`` comments, ``%`` escape lines, games separated by semi-empty lines, CRLF or
LF, UTF-8 or Latin-1, ``#`` / ``##`` tag inheritance, a ``[Deal]`` with any first seat and
``-`` for unknown hands, the ``[Play]`` section, and the Hearts tags (``HeartsRules``,
``HeartsLeader``, ``HeartsPass``, ``HeartsPassed``). Everything else (auction, contract, tables,
notes) is kept as it is but not interpreted.

>>> text = b'''[Board "7"]
... [Deal "N:AK... .AK.. ..AK. ...AK"]
... [HeartsRules "{\\\\"first_lead\\\\": \\\\"free\\\\"}"]
... [Play "W"]
... CA SA HA DA
... *
... '''
>>> [r] = read_records(io.BytesIO(text))
>>> r.line, r.tags["Board"], r.rules.first_lead, r.play.seat, r.errors
(1, '7', 'free', <Seat.W: 3>, [])
>>> [str(c) for c in r.play.tricks[0]]
['CA', 'SA', 'HA', 'DA']
>>> [bad] = read_records(io.BytesIO(b'[Event "x"]\\n[Deal "N:AK.. .AK.. ..AK."]\\n'))
>>> bad.deal, bad.errors
(None, ['line 2: [Deal] expected 4 hands separated by spaces, found 3'])
"""
from __future__ import annotations

import codecs
import io
import re
from array import array
from bisect import bisect_right
from collections import OrderedDict
from dataclasses import dataclass, field
from itertools import chain, islice
from typing import Any, BinaryIO, Callable, Iterable, Iterator, Literal, Mapping, Sequence, Union

from .bounded_lines import MAX_LINE, CutBytes, is_cut
from .cards import (DECK, RANKS, SUIT_SYMBOLS, SUITS, VARIATIONS, Card, Seat, ascii_upper,
                    card_letters, cards_of)
from .deal import Deal, parse_hand
from .errors import DealError, HeartsError, shortened
from .rules import Rules

__all__ = ["Record", "RecordedPlay", "Passing", "read_records", "count_games", "game_text",
           "escape", "error_text", "ends_a_game", "ANNOTATION_TAGS"]

#: Tags hearts-dd writes when annotating; re-annotation removes them before adding new ones.
ANNOTATION_TAGS = frozenset({"HeartsOptimumTable", "HeartsPlayCostTable", "HeartsMoonTable",
                             "HeartsShotTheMoon", "HeartsShotTheFoot", "HeartsScore", "HeartsError"})
#: Tags whose value PBN forbids to inherit with "#" or "##" (PBN 2.1 §4.8).
NOT_INHERITED = frozenset({"Dealer", "Vulnerable", "Deal", "Declarer", "Contract", "Auction",
                           "Play", "Note"})
PASS_DIRECTIONS = {"left": 1, "across": 2, "right": 3, "hold": 0}
#: How many recent boards are remembered for games that share a board's deal (two tables).
BOARD_MEMORY = 64
#: A { comment still open after this many lines no longer keeps the game going.
MAX_COMMENT_LINES = 1000
#: A game's bytes held at most (with its last line, up to ``MAX_LINE`` more): a game that runs
#: on ends there, so that a file of no games is not held whole.
MAX_GAME_BYTES = 16 << 20
#: Errors reported for one game; the rest are counted (a mangled file can hold thousands).
MAX_ERRORS = 20
#: Tags whose "##" value is carried to the games after it (real files carry a handful: Event,
#: Site, Date, Scoring): every game holds each, so 20,000 of them and 50,000 small games after
#: (1 MB) took minutes to read. A "##" tag past these gives its value to its own game alone
#: (and an error says so).
MAX_DEFAULTS = 64

BOM = b"\xef\xbb\xbf"
Slot = Union[Card, Literal["-", "+"]]


@dataclass(frozen=True)
class RecordedPlay:
    """A ``[Play "SEAT"]`` section: one row per trick, columns clockwise from ``seat``.

    Columns are *not* play order: who led each trick follows from the rules in force (see
    ``solver.review.replay``). A slot is a card, ``"-"`` (not played or unknown) or ``"+"``
    (the next card to play, PBN's continuation mark).
    """

    seat: Seat
    tricks: tuple[tuple[Slot, Slot, Slot, Slot], ...] = ()
    line: int = field(default=0, compare=False)   # of the [Play] tag
    #: the line each trick's row starts on (empty when not read from a file)
    trick_lines: tuple[int, ...] = field(default=(), compare=False)

    def rows(self) -> list[str]:
        return [" ".join(str(s) for s in trick) for trick in self.tricks]

    def line_of(self, trick: int) -> int:
        """The line of trick ``trick`` (from 1), or of the tag when it is not known."""
        return self.trick_lines[trick - 1] if 0 < trick <= len(self.trick_lines) else self.line


@dataclass(frozen=True)
class Passing:
    """``[HeartsPass "left"]`` and ``[HeartsPassed ...]``: who passed what before play began."""

    direction: str
    cards: tuple[int | None, int | None, int | None, int | None] = (None, None, None, None)

    def receiver(self, seat: Seat) -> Seat:
        return seat.next(PASS_DIRECTIONS[self.direction])

    def to_json(self) -> dict[str, Any]:
        return {"direction": self.direction,
                "cards": {str(s): " ".join(str(c) for c in cards_of(m))
                          for s, m in zip(Seat, self.cards) if m is not None}}


@dataclass
class Record:
    """One game of a PBN file, as read. Fields marked ``compare=False`` locate it in its file."""

    tags: dict[str, str]
    deal: Deal | None = None
    play: RecordedPlay | None = None
    rules: Rules | None = None
    leader: Seat | None = None
    passing: Passing | None = None
    errors: list[str] = field(default_factory=list)
    #: the line of the ``[HeartsLeader]`` tag, for an error the rules find in it later
    leader_line: int = field(default=1, compare=False)
    #: hands of a ``[Deal]`` that gives fewer than four (None for each missing hand)
    partial_hands: tuple[int | None, ...] | None = None
    #: section data after each tag, verbatim (comments included), for tags that have some
    sections: dict[str, str] = field(default_factory=dict)
    index: int = field(default=0, compare=False)
    line: int = field(default=1, compare=False)
    #: the file it was read from, where the reader's caller names one
    source: str | None = field(default=None, compare=False)
    #: the game's own lines, byte for byte; ``before`` the non-game lines that preceded it
    raw: bytes = field(default=b"", compare=False, repr=False)
    before: bytes = field(default=b"", compare=False, repr=False)
    #: the blank lines that ended the game
    after: bytes = field(default=b"", compare=False, repr=False)
    #: byte spans in ``raw`` of earlier hearts-dd annotation tags with their section data
    annotation_spans: tuple[tuple[int, int], ...] = field(default=(), compare=False, repr=False)
    #: whether the game's text ends inside a { comment left open: text after it is comment
    open_comment: bool = field(default=False, compare=False, repr=False)
    #: problems found beyond the MAX_ERRORS in ``errors`` (see ``error_text``)
    more_errors: int = field(default=0, compare=False)
    #: the line of the ``[Deal]`` tag (the game's first line where it has none of its own)
    deal_line: int = field(default=0, compare=False)
    #: whether a partial ``[Deal]`` differs from the deal of its board read before
    board_differs: bool = field(default=False, compare=False)

    @property
    def board(self) -> str | None:
        return self.tags.get("Board") or None

    @property
    def rules_unknown(self) -> bool:
        """Whether its ``[HeartsRules]`` could not be read: then nothing about it can be
        worked out (other rules would give other values)."""
        return self.rules is None and bool(self.tags.get("HeartsRules", "").strip())

    def missing_deal(self) -> str | None:
        """Why there is no deal to analyze, unless a reading error already says it (else None)."""
        if self.deal is not None:
            return None
        if self.partial_hands is not None:
            given = " ".join(str(s) for s, h in zip(Seat, self.partial_hands) if h is not None)
            return (f"line {self.deal_line or self.line}: the [Deal] gives only the hands of "
                    f"{given} (all four are needed" + (
                        f"; board {self.board} read before has other hands there)"
                        if self.board_differs else ")"))
        if "Deal" not in self.tags:
            other = next((name for name in self.tags if name.lower() == "deal"), None)
            return f"line {self.line}: the game has no [Deal]" + (
                f" (tag names are case-sensitive: [{other}] is not [Deal])" if other else "")
        if not self.tags["Deal"].strip():
            return f"line {self.deal_line or self.line}: the [Deal] is empty"
        return None

    def to_pbn(self) -> str:
        """The game in PBN: its tags in order, each followed by its section (the play re-written)."""
        return game_text(self.tags, self.play, self.sections)

    def stripped(self) -> "Record":
        """The record without its file bytes: what a worker process needs."""
        return Record(self.tags, self.deal, self.play, self.rules, self.leader, self.passing,
                      list(self.errors), self.leader_line, self.partial_hands, {}, self.index,
                      self.line, self.source, more_errors=self.more_errors,
                      deal_line=self.deal_line, board_differs=self.board_differs)


# -- writing --------------------------------------------------------------------------------
def escape(value: str) -> str:
    """A tag value as a PBN string token: quotes and backslashes escaped."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def game_text(tags: Mapping[str, str], play: RecordedPlay | None = None,
              sections: Mapping[str, str] | None = None) -> str:
    """PBN text of one game (no trailing blank line): ``[Name "value"]`` lines, sections after.

    >>> print(game_text({"Deal": "N:A... .A.. ..A. ...A"}, RecordedPlay(Seat.S, ((Card.parse("HA"), "-", "-", "-"),))), end="")
    [Deal "N:A... .A.. ..A. ...A"]
    [Play "S"]
    HA - - -
    *
    """
    sections = sections or {}
    lines = []
    for name, value in tags.items():
        if name == "Play":
            continue
        lines.append(f"[{name} {escape(value)}]")
        if sections.get(name):
            lines.append(sections[name])
    if play is not None:
        lines.append(f'[Play "{play.seat}"]')
        lines += play.rows()
        lines.append("*")
    return "\n".join(lines) + "\n"


# -- splitting a byte stream into games -------------------------------------------------------
@dataclass
class _Chunk:
    line: int                      # 1-based number of the first line
    lines: list[bytes]             # the game's lines
    #: the semi-empty lines after it, joined as they come: a list of them took about 90
    #: bytes of memory for each byte of a run of empty lines, which may be any length
    blank: bytearray
    problems: list[str] = field(default_factory=list)   # lines cut, a game cut short
    size: int = 0                  # bytes of ``lines``
    blanks: int = 0                # lines in ``blank`` (an empty one, of lines given in memory, too)


# strings as possessive runs: ``(?:[^"]|\\.)*`` took about 230 bytes of memory per character
_STRING = r'"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+'
_SCAN = re.compile(_STRING + r'"?|;[^\n]*|\{|\}')
_TAG_LINE = re.compile(r'[ \t]*\[[A-Za-z0-9_]+[ \t]+"')      # [Name "value"], not "[note] text"
_SEMI_EMPTY = " \t\r\n\x0b\x0c\x1a"    # \x1a: the DOS end-of-file mark some files end with


def _brace_state(text: str, in_brace: bool) -> bool:
    """Whether a { comment is open at the end of the line, given the state at its start."""
    pos = 0
    if not in_brace and text.startswith("%"):
        return False
    while True:
        if in_brace:
            end = text.find("}", pos)
            if end < 0:
                return True
            in_brace, pos = False, end + 1
            continue
        m = _SCAN.search(text, pos)
        if m is None:
            return False
        tok = m.group()
        if tok == "{":
            in_brace = True
        pos = m.end()


def wide_encoding(head: bytes) -> str | None:
    """The encoding of a stream of 2- or 4-byte characters, told by its byte-order mark or,
    without one, by the zero bytes around its first character (an ASCII one, in any PBN file,
    and any JSON Lines file of positions); None for any other stream.

    >>> [wide_encoding("[E".encode(e)) for e in ("utf-16-le", "utf-32-be", "utf-8", "utf-32")]
    ['utf-16-le', 'utf-32-be', None, 'utf-32']
    """
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):   # (before UTF-16's: FF FE)
        return "utf-32"
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    return _WIDE_BY_ZEROS.get(tuple(byte == 0 for byte in head[:4]))


_WIDE_BY_ZEROS: dict[tuple[bool, ...], str] = {
    (False, True, True, True): "utf-32-le", (True, True, True, False): "utf-32-be",
    (False, True, False, True): "utf-16-le", (True, False, True, False): "utf-16-be"}


def _utf8_lines(stream: BinaryIO | Iterable[bytes]) -> Iterator[bytes]:
    """The stream's lines, none held past ``MAX_LINE`` (``_split_lines``); a stream of UTF-16 or
    UTF-32 (Windows' "Unicode" text, whose bytes split at each 0x0A were no lines) decoded and
    given as UTF-8 lines, which the reader reads like any other.

    >>> text = '[Event "é"]' + chr(10) + chr(10)
    >>> [line.decode() for line in _utf8_lines(io.BytesIO(text.encode("utf-16")))] == text.splitlines(True)
    True
    """
    read = getattr(stream, "read", None)
    if read is None:                    # lines in memory, as a library caller may give them
        if isinstance(stream, (str, bytes, bytearray)):   # (whose "lines" are characters or ints)
            raise HeartsError(f"expected a binary file or lines of bytes, got {type(stream).__name__}"
                              " (a file: open(name, 'rb'); text in memory: io.BytesIO(data))")
        lines = iter(stream)
        first = next(lines, None)
        if first is None:
            return
        _check_bytes(first)
        # the head's size counted, not the head joined again for each line: a run of empty
        # lines at the start took time quadratic in its length (100,000 of them, 48 s)
        head, size = [first], len(first)
        while size < 4 and (more := next(lines, None)) is not None:
            head.append(more)
            size += len(more)
        encoding = wide_encoding(b"".join(head))
        yield from _wide_lines(chain(head, lines), encoding) if encoding else chain(head, lines)
        return
    start = read(4)
    _check_bytes(start)
    encoding = wide_encoding(start)
    if encoding:
        yield from _wide_lines(chain([start], iter(lambda: read(1 << 16), b"")), encoding)
    else:
        # (a line at a time, as it comes: a program that writes a game and waits for its
        # annotation before it writes the next gets it)
        prefixed = _Prefixed(start, stream)
        yield from _split_lines(iter(lambda: prefixed.readline(MAX_LINE + 1), b""))


def _check_bytes(data: object) -> None:
    if not isinstance(data, (bytes, bytearray)):
        hint = " (open the file in binary mode, 'rb')" if isinstance(data, str) else ""
        raise HeartsError(f"expected a binary file or lines of bytes, got a line of "
                          f"{type(data).__name__}{hint}")


def _wide_lines(blocks: Iterable[bytes], encoding: str) -> Iterator[bytes]:
    """Lines of ``blocks`` of text in ``encoding``, as UTF-8, split and cut as ``_split_lines``
    splits and cuts them (no character cut in two). A character cut short at the end is U+FFFD,
    as any bad bytes are: the decoder is told the end once every block is decoded (told before,
    as the lines were set up, it dropped them).

    >>> data = ("[" + chr(10)).encode("utf-32-le") + bytes([1])
    >>> list(_wide_lines([data], "utf-32-le")) == [b"[" + bytes([10]), chr(0xFFFD).encode()]
    True
    """
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")

    def text() -> Iterator[bytes]:
        for block in blocks:
            yield decoder.decode(block).encode("utf-8")
        yield decoder.decode(b"", final=True).encode("utf-8")

    yield from _split_lines(text(), whole_chars=True)


class _Prefixed:
    """A binary stream whose first bytes were read already: ``readline`` gives them back first."""

    def __init__(self, start: bytes, stream: Any) -> None:
        self.start, self.stream = start, stream

    def readline(self, limit: int) -> bytes:
        if not self.start:
            first: bytes = self.stream.readline(limit)
            return first
        end = min(self.start.find(b"\n") + 1 or len(self.start), limit)
        line, self.start = self.start[:end], self.start[end:]
        if line.endswith(b"\n") or len(line) == limit or self.start:
            return line
        rest: bytes = self.stream.readline(limit - len(line))
        return line + rest


# A CR ends a line alone where no LF follows it (after any more CRs: CR CR LF, from CR LF text
# written again in text mode, is one line end, as it always was). Runs of CRs are matched from
# their start and whole (possessive): a long run took time quadratic in its length.
_LONE_CRS_TEXT = re.compile("(?<!\r)\r++(?!\n)")
_LINE_END = re.compile(rb"(?<!\r)\r*+\n|\r")


_CR_OR_LF = re.compile(rb"[\r\n]")
_CRS = re.compile(rb"\r*")


def _split_lines(blocks: Iterable[bytes], limit: int = MAX_LINE,
                 whole_chars: bool = False) -> Iterator[bytes]:
    """The lines of a byte stream given in blocks of any size: each ends at an LF (with the CRs
    before it: CR LF, CR CR LF) or at a lone CR (a classic Mac's line end: a CR that no LF
    follows after any more CRs; each CR of such a run ends a line; ``_decode`` reads it as LF).
    A line of more than ``limit`` bytes is given cut short (``CutBytes``: its first ``limit``
    bytes, with ``whole_chars`` no UTF-8 character cut in two, and its line end), the rest of
    it skipped: memory stays bounded however long a line. Lone CRs end lines before the limit
    is applied: a classic Mac's file of over ``limit`` bytes was one line cut there, and every
    game after its first 4 MiB was lost.

    >>> list(_split_lines([b"a" + bytes([13]), bytes([13, 10]) + b"b" + bytes([13]) + b"c"]))
    [b'a\\r\\r\\n', b'b\\r', b'c']
    >>> [type(line).__name__ for line in _split_lines([b"abcdef" + bytes([13]) + b"x"], 4)]
    ['CutBytes', 'bytes']
    """
    line = bytearray()  # the line so far, without its end (at most ``limit`` bytes of it)
    cut = False         # the line is longer than ``limit``: the rest of it is skipped
    crs = 0             # CRs at the end of what was read, not known yet to end a line alone

    def finish(end: bytes, before: int = 0) -> bytes:
        """The line with its end: ``end`` after ``before`` CRs (counted with the line's bytes,
        as a reader of lines ending in LF counts them)."""
        nonlocal line, cut
        if cut or len(line) + before > limit:
            kept = bytes(line[:limit])
            if whole_chars:
                kept = kept.decode("utf-8", "ignore").encode("utf-8")
            whole: bytes = CutBytes(kept + (b"\r" if before else b"") + end)
        else:
            whole = bytes(line) + b"\r" * before + end
        line, cut = bytearray(), False
        return whole

    for block in blocks:
        if not block:
            continue
        if not (line or cut or crs) and block.find(b"\n") == len(block) - 1 \
                and len(block) <= limit + 1 and b"\r" not in block.rstrip(b"\r\n"):
            yield block         # (a whole line of LF or CR LF text: most lines)
            continue
        pos, size = 0, len(block)
        while pos < size:
            if crs:
                run = _CRS.match(block, pos)
                assert run is not None      # (it matches no CR too)
                crs += run.end() - pos
                pos = run.end()
                if pos == size:
                    break       # (an LF may follow in the next block)
                if block[pos] == 10:
                    pos += 1
                    yield finish(b"\n", crs)
                else:
                    yield finish(b"\r")
                    for _ in range(crs - 1):
                        yield b"\r"
                crs = 0
                continue
            found = _CR_OR_LF.search(block, pos)
            end = size if found is None else found.start()
            if not cut:
                room = limit - len(line)
                line += block[pos:min(end, pos + room)]
                cut = end - pos > room
            if found is None:
                break
            pos = end + 1
            if block[end] == 10:
                yield finish(b"\n")
            else:
                crs = 1
    if crs:
        yield finish(b"\r")
        for _ in range(crs - 1):
            yield b"\r"
    elif line or cut:
        yield finish(b"")


def _chunks(stream: BinaryIO | Iterable[bytes]) -> Iterator[_Chunk]:
    """Games as line groups: a semi-empty line outside a { comment ends a game (PBN 2.1 §3).

    A { comment may hold semi-empty lines, but one left open would swallow every game after
    it: a tag line after a semi-empty line inside a comment ends the game before that
    semi-empty line (its reader reports the open comment), and the next game starts there.
    Memory stays bounded whatever the stream holds: a line is cut at ``MAX_LINE`` bytes, and a
    game ends at ``MAX_GAME_BYTES`` (each with a problem its record reports).
    """
    current: _Chunk | None = None
    in_brace = False
    brace_lines = 0
    gap = reopen = -1     # in a comment: where in current.lines its last run of semi-empty
                          # lines starts, and the first line after that run
    for number, line in enumerate(_utf8_lines(stream), 1):
        text = line.decode("latin-1")
        if number == 1 and line.startswith(BOM):
            text = text[len(BOM):]
        blank = not text.strip(_SEMI_EMPTY) and not is_cut(line)
        if not in_brace and blank:
            if current is None:
                current = _Chunk(number, [], bytearray())
            current.blank += line
            current.blanks += 1
            continue
        if in_brace and current is not None:
            if blank:
                if gap < 0 or reopen >= 0:
                    gap, reopen = len(current.lines), -1
            elif gap >= 0 and reopen < 0:
                reopen = len(current.lines)
            if reopen >= 0 and _TAG_LINE.match(text):
                carried = current.lines[reopen:]
                yield _Chunk(current.line, current.lines[:gap],
                             bytearray().join(current.lines[gap:reopen]), current.problems,
                             blanks=reopen - gap)
                current = _Chunk(current.line + reopen, carried, bytearray(),
                                 size=sum(map(len, carried)))
                in_brace = False
                for held in carried:
                    in_brace = _brace_state(held.decode("latin-1"), in_brace)
                brace_lines = 0
                gap = reopen = -1
        if current is not None and current.lines and current.blanks and not in_brace:
            yield current
            current = None
        if current is None:
            current = _Chunk(number, [], bytearray())
        elif not current.lines and current.blanks:
            # leading blank lines of the file: a chunk of its own, without a game
            yield current
            current = _Chunk(number, [], bytearray())
        if in_brace:
            current.lines.extend(map(bytes, current.blank.splitlines(keepends=True)))
            current.blank, current.blanks = bytearray(), 0
            brace_lines += 1
        current.lines.append(line)
        current.size += len(line)
        if is_cut(line):
            current.problems.append(f"line {number}: longer than {MAX_LINE:,} bytes: cut there "
                                    f"(not a PBN file?)")
        if current.size > MAX_GAME_BYTES:
            current.problems.append(f"line {number}: a game longer than {MAX_GAME_BYTES:,} bytes "
                                    f"ends there (no blank line between games? not a PBN file?)")
            yield current
            current, in_brace, brace_lines, gap, reopen = None, False, 0, -1, -1
            continue
        in_brace = _brace_state(text, in_brace)
        if in_brace:
            if brace_lines > MAX_COMMENT_LINES:
                in_brace = False
        else:
            brace_lines = 0
            gap = reopen = -1
    if current is not None:
        if in_brace:
            current.lines.extend(map(bytes, current.blank.splitlines(keepends=True)))
            current.blank, current.blanks = bytearray(), 0
        yield current


def _joined(lines: list[bytes], group: int = 4096) -> bytes:
    """``b"".join(lines)``, ``group`` lines at a time: a join makes an 80-byte record of each
    item first, 40 bytes of memory for each byte of a game of 2-byte lines.

    >>> _joined([b"a", b"b", b"c"], 2)
    b'abc'
    """
    if len(lines) <= group:
        return b"".join(lines)
    return b"".join([b"".join(lines[k:k + group]) for k in range(0, len(lines), group)])


def line_end(raw: bytes) -> bytes:
    """The line end a game's text uses, as its first line ends: CR LF, LF, or a lone CR (a
    classic Mac's).

    >>> line_end(b"a" + bytes([13, 10]) + b"b"), line_end(b"a" + bytes([10, 13])), line_end(b"a")
    (b'\\r\\n', b'\\n', b'\\n')
    """
    first = _LINE_END.search(raw)
    if first is None or first.group() == b"\n":
        return b"\n"
    return b"\r\n" if first.group().endswith(b"\n") else b"\r"


def ends_a_game(data: bytes) -> bool:
    """Whether ``data`` ends with a whole semi-empty line, which ends a game (``_chunks``)."""
    data = _LINE_END.sub(b"\n", data)
    if not data.endswith(b"\n"):
        return False
    _, newline, last = data[:-1].rpartition(b"\n")
    return bool(newline) and not last.decode("latin-1").strip(_SEMI_EMPTY)


#: The line a PBN file opens with (``% PBN 2.1``): the games after it are a file of their own.
FILE_MARK = b"% PBN 2.1"
_FILE_MARK = re.compile(r"%[ \t]*PBN[ \t]+\d+(\.\d+)*[ \t]*$")


def starts_a_file(data: bytes) -> bool:
    """Whether a ``% PBN 2.1`` line (PBN's version line, any version) comes before the first
    tag of ``data`` (a game's lines, or the lines between games), outside { comments }: it
    opens a file, whose games take no inherited values or boards from the games before it, so
    files joined one after another read as they did apart.

    >>> starts_a_file(b"% PBN 2.1\\n% EXPORT\\n[Event \\"x\\"]\\n"), starts_a_file(b"[Event \\"x\\"]\\n% PBN\\n")
    (True, False)
    """
    for kind, tok, _, _ in _lex(_decode(data)):
        if kind == "escape":
            if _FILE_MARK.match(tok.rstrip("\r")):
                return True
        elif kind != "comment":
            return False
    return False


def count_games(stream: BinaryIO | Iterable[bytes]) -> int:
    """How many games a file holds, without interpreting them (for a progress bar's total)."""
    return sum(1 for c in _chunks(stream)
               if c.lines and (c.problems or _is_record(_decode(_joined(c.lines)))))


def games_up_to(stream: BinaryIO | Iterable[bytes], limit: int) -> int:
    """How many games a file holds, header games too, counted no further than ``limit + 1``
    and without reading them: for a service to refuse a body of too many games before it
    reads one (``count_games`` lexes every game; 1 MiB of ``*`` games is 350,000 of them). A
    game is lexed only up to its first token that is no comment (``_is_game``): comments
    between games, a blank line after them, are no game (each counted as one, a body of 8
    games after such comments was refused as "more than 10 games").

    >>> games_up_to([b'[Deal "x"]\\n', b"\\n", b"*\\n", b"\\n", b"% x\\n", b"\\n", b"*\\n"], 1)
    2
    """
    games = (c for c in _chunks(stream)
             if c.lines and (c.problems or _is_game(_decode(_joined(c.lines)))))
    return sum(1 for _ in islice(games, limit + 1))


def _is_record(text: str) -> bool:
    """Whether a game's text, read, gives a record: a game, and not a header game."""
    return _is_game(text) and not _is_header(_tag_values(_lex(text)))


def _is_header(tags: Iterable[tuple[str, str]]) -> bool:
    """Whether a game's tags (names and values as written) make a game of defaults alone,
    PBN's header game (``[Event "##Club night"]``, ``[HeartsRules "##omnibus"]``): every value
    a ``##`` one, no tag twice (and none malformed: a name ""). It gives the games after it
    their values and is no game to annotate; a game with a value of its own (a ``[Board]``
    that lost its ``[Deal]``) is one, and is reported. So is a game whose tags the reader
    finds wrong (a bad name, a tab in the value, ``##`` for a tag PBN forbids to inherit):
    ``count_games`` counted such a game as a header, and a progress bar's total fell short."""
    seen: set[str] = set()
    for name, value in tags:
        if (not _TAG_NAME.fullmatch(name) or name in seen or not value.startswith("##")
                or "\t" in value or name in NOT_INHERITED):
            return False
        seen.add(name)
    return bool(seen)


_TAG_NAME = re.compile(r"[A-Za-z0-9_]+")


def _tag_values(tokens: Iterable[tuple[str, str, int, int]]) -> Iterator[tuple[str, str]]:
    """The name and value of each ``[Name "value"]`` of a game's tokens (comments between
    them skipped, and a tag's section data, which the reader takes without an error: a header
    game with some was counted as a game by ``count_games`` and read as none), and
    ``("", "")`` for anything else, for ``_is_header`` without reading the game."""
    state, name, value = "", "", ""
    tagged = False      # a tag read: words and strings after it are its section's
    for kind, tok, _, _ in tokens:
        if kind in ("comment", "escape"):
            if _open_comment(kind, tok):    # (reported: the game is no header)
                yield "", ""
            continue
        if state == "" and tagged and (kind == "word" and "%" not in tok
                                       or kind == "string" and _closed(tok)):
            continue
        if state == "" and kind == "open":
            state = "name"
        elif state == "name" and kind == "word":
            state, name = "value", tok
        elif state == "value" and kind == "string" and _closed(tok):
            state, value = "close", _unescape(tok)
        elif state == "close" and kind == "close":
            state, tagged = "", True
            yield name, value
        else:
            state = ""
            yield "", ""
    if state:
        yield "", ""


def _is_game(text: str) -> bool:
    """Comments and % lines alone (``{ No game }``) are no game; any other token makes one, and
    so does a { comment left open, which may hide a game's tags (it is reported)."""
    return _is_game_of(_lex(text))   # (its tokens not listed: a list of a game's many small
                                     # ones took over 60 bytes of memory for each byte)


def _is_game_of(tokens: Iterable[tuple[str, str, int, int]]) -> bool:
    return any(kind not in ("comment", "escape") or _open_comment(kind, tok) for kind, tok, _, _ in tokens)


def _open_comment(kind: str, tok: str) -> bool:
    return kind == "comment" and tok.startswith("{") and not tok.endswith("}")


# -- tokens ------------------------------------------------------------------------------------
_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<escape>^%[^\n]*)
  | (?P<comment>;[^\n]*|\{[^}]*\}?)
  | (?P<string>""" + _STRING + r""""?)
  | (?P<open>\[)
  | (?P<close>\])
  | (?P<stray>\})
  | (?P<word>[^\s\[\]{}";]+)
""", re.X | re.M)


def _lex(text: str) -> Iterator[tuple[str, str, int, int]]:
    """Tokens of a game's text, whitespace left out: (kind, text, start, end)."""
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind != "ws":
            yield kind, m.group(), m.start(), m.end()  # type: ignore[misc]


_KINDS = ("escape", "comment", "string", "open", "close", "stray", "word")
_KIND_CODES = {kind: code for code, kind in enumerate(_KINDS)}


class _Tokens:
    """A game's tokens (``_lex``'s), each kept as a kind's code and two offsets, its text cut
    out when asked for: a list of them as tuples took about 130 bytes of memory for each
    token, over 60 for each byte of a game of one-character words (and a game may hold 16 MiB)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.kinds = bytearray()
        self.spans = array("q")     # start and end of each
        self.open_comments: list[int] = []      # where each { comment left open starts
        self.game = False           # whether there is a game: see _is_game_of
        for m in _TOKEN.finditer(text):
            kind = m.lastgroup
            if kind != "ws":
                self.kinds.append(_KIND_CODES[kind])  # type: ignore[index]
                self.spans.extend(m.span())
                if kind not in ("comment", "escape"):
                    self.game = True
                elif _open_comment(kind, m.group()):
                    self.game = True
                    self.open_comments.append(m.start())

    def __len__(self) -> int:
        return len(self.kinds)

    def __getitem__(self, i: int) -> tuple[str, str, int, int]:
        start, end = self.spans[2 * i], self.spans[2 * i + 1]
        return _KINDS[self.kinds[i]], self.text[start:end], start, end


_CLOSED_STRING = re.compile(_STRING + '"')


def _closed(token: str) -> bool:
    return _CLOSED_STRING.fullmatch(token) is not None


def _unescape(token: str) -> str:
    body = token[1:-1] if len(token) >= 2 and token.endswith('"') else token[1:]
    return re.sub(r'\\(["\\])', r"\1", body)


# -- reading -------------------------------------------------------------------------------------
@dataclass
class _Tag:
    name: str
    value: str
    start: int          # offset of "[" in the game text
    end: int            # offset just after "]"
    line: int
    section_end: int = -1
    #: section tokens with their lines (of a [Play] tag: no other section is read so)
    words: list[tuple[str, int]] = field(default_factory=list)


class _Context:
    """What one game may take from earlier ones: inherited tag values and same-board deals."""

    def __init__(self) -> None:
        self.last: dict[str, str] = {}
        self.defaults: dict[str, str] = {}
        self.boards: OrderedDict[str, Deal] = OrderedDict()

    def remember(self, tags: Mapping[str, str], deal: Deal | None) -> None:
        self.last.update(tags)
        board = tags.get("Board")
        if board and deal is not None:
            self.boards[board] = deal
            self.boards.move_to_end(board)
            while len(self.boards) > BOARD_MEMORY:
                self.boards.popitem(last=False)


def read_records(stream: BinaryIO | Iterable[bytes], first_index: int = 0) -> Iterator[Record]:
    """Every game of a PBN byte stream, in order; never raises for bad content.

    Lines that belong to no game (comments between games, blank lines) travel with the next
    record as ``before``, or with the last one as part of ``after``, so that the records'
    bytes together are the whole stream. A ``% PBN`` line starts a file anew (``starts_a_file``).
    """
    context = _Context()
    before = bytearray()    # (joined as they come: a list of lines took about 90 bytes of
                            # memory for each byte of a run of empty lines or comments)
    index = first_index
    pending: Record | None = None
    for chunk in _chunks(stream):
        raw = _joined(chunk.lines)
        if chunk.lines and starts_a_file(raw):
            context = _Context()
        record = _read_game(raw, chunk.line, context, chunk.problems) if chunk.lines else None
        if record is None:
            before += raw
            before += chunk.blank
            continue
        if pending is not None:
            yield pending
        record.index = index
        record.before = bytes(before)
        record.after = bytes(chunk.blank)
        before = bytearray()
        index += 1
        pending = record
    if pending is not None:
        pending.after += before
        yield pending


def _decoded(raw: bytes) -> tuple[str, str]:
    """A game's text and encoding: UTF-8 when it is valid UTF-8, else Latin-1 (decided per
    game, so that one game's stray byte does not change how the others read)."""
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return raw.decode("latin-1"), "latin-1"


def encoding_of(raw: bytes) -> str:
    """A game's encoding, for a writer adding to it.

    >>> encoding_of("Café".encode()), encoding_of("Café".encode("latin-1"))
    ('utf-8', 'latin-1')
    """
    return _decoded(raw)[1]


def _decode(raw: bytes) -> str:
    """A game's text, without a BOM, its lone CR line ends read as LF (one character for one:
    no place in the text moves)."""
    text = _decoded(raw[len(BOM):] if raw.startswith(BOM) else raw)[0]
    return _LONE_CRS_TEXT.sub(lambda run: "\n" * len(run.group()), text) if "\r" in text else text


def _read_game(raw: bytes, first_line: int, context: _Context,
               problems: Sequence[str] = ()) -> Record | None:
    """A game's record; None for text that holds no game (and no ``problems`` of its lines),
    and for a header game of defaults (``_is_header``), whose values it keeps for the games
    after it."""
    body = raw[len(BOM):] if raw.startswith(BOM) else raw
    offset0 = len(raw) - len(body)
    text = _decode(body)
    one_per_byte = len(text) == len(body)
    line_starts = array("q", [0])   # (a list took 36 bytes a line, an array takes 8)
    line_starts.extend(m.end() for m in re.finditer("\n", text))
    byte_offset = _ByteOffsets(text, offset0, one_per_byte)

    def line_of(pos: int) -> int:
        return first_line + bisect_right(line_starts, pos) - 1

    errors = _Errors(problems)
    tags: list[_Tag] = []
    stray_reported = False
    # a [Play] tag read; its '*' read; a card after its section reported
    has_play = play_ended = play_cut = False
    tokens = _Tokens(text)
    if not problems and not tokens.game:
        return None
    open_comments = tokens.open_comments
    for start in open_comments:     # wherever they are, tags included
        errors.append(f"line {line_of(start)}: {{ comment is not closed (a '}}' missing?)")
    i = 0
    while i < len(tokens):
        kind, tok, start, end = tokens[i]
        i += 1
        if kind in ("comment", "escape"):
            continue
        if kind == "open":
            tag, i = _read_tag(tokens, i, start, line_of, errors)
            if tag is not None:
                tags.append(tag)
                has_play = has_play or tag.name == "Play"
            continue
        if kind == "stray":
            errors.append(f"line {line_of(start)}: '}}' without a '{{'")
            continue
        if kind == "string" and not _closed(tok):
            errors.append(f"line {line_of(start)}: string is not closed")
        if not tags:
            if not stray_reported:
                errors.append(f"line {line_of(start)}: text outside a tag: {tok[:20]!r}")
                stray_reported = True
            continue
        if kind == "close":
            errors.append(f"line {line_of(start)}: ']' without a tag")
            continue
        if kind == "word" and "%" in tok:
            errors.append(f"line {line_of(start)}: '%' is only allowed at the start of a line")
        if tags[-1].name == "Play":    # (the only section read word by word)
            tags[-1].words.append((tok, line_of(start)))
            play_ended = play_ended or "*" in tok
        elif (kind == "word" and has_play and not play_cut and tags[-1].name != "Auction"
              and not tags[-1].name.endswith("Table") and _is_card(tok)):
            name = tags[-1].name
            errors.append(f"line {line_of(start)}: " + (
                f"cards after the play's '*', in the [{name}] tag's section, are not read"
                if play_ended else f"play after the [{name}] tag is not read: a tag ends the "
                f"[Play] section (put [{name}] after the play's '*')"))
            play_cut = True
        tags[-1].section_end = end

    record = Record(tags={}, line=first_line, raw=raw, open_comment=bool(open_comments))
    header = not errors and _is_header((t.name, t.value) for t in tags)
    _resolve_tags(record, tags, context, errors, text)
    if header and not errors:
        context.remember(record.tags, None)
        return None
    backwards = text[::-1] if any(t.name in ANNOTATION_TAGS for t in tags) else ""
    record.annotation_spans = tuple(_whole_lines(text, start, end, byte_offset, backwards)
                                    for start, end in _annotation_runs(text, tags))
    _interpret(record, tags, context, errors)
    record.errors = [shortened(e, 240) for e in errors]
    record.more_errors = errors.more
    context.remember(record.tags, record.deal)
    return record


class _Errors(list[str]):
    """A game's errors: the first ``MAX_ERRORS`` kept, the others only counted (a game of
    160,000 repeated tags, 1 MB, held an error line for each, 17 MB, to keep 20)."""

    def __init__(self, first: Iterable[str] = ()) -> None:
        super().__init__()
        self.more = 0
        for error in first:
            self.append(error)

    def append(self, error: str) -> None:
        if len(self) < MAX_ERRORS:
            super().append(error)
        else:
            self.more += 1


class _ByteOffsets:
    """The offset in a game's bytes of a place in its text (``offset0``: the BOM's length),
    counted on from the place asked for last: its annotation tags, asked for in file order,
    cost one pass over the text (each encoded from the text's start took time quadratic in
    their number: 54 s for a 1 MB game of 55,000 tags with one "é")."""

    def __init__(self, text: str, offset0: int, one_per_byte: bool) -> None:
        self.text, self.offset0, self.one_per_byte = text, offset0, one_per_byte
        self.pos = self.bytes = 0       # the place asked for last, and its bytes from the start

    def __call__(self, pos: int) -> int:
        if self.one_per_byte:
            return self.offset0 + pos
        if pos >= self.pos:
            self.bytes += len(self.text[self.pos:pos].encode("utf-8"))
        else:
            self.bytes -= len(self.text[pos:self.pos].encode("utf-8"))
        self.pos = pos
        return self.offset0 + self.bytes


_SPACES = re.compile(r"[^\S\n]++")     # whitespace that does not end the line


def _past_spaces(text: str, pos: int) -> int:
    """Where the whitespace at ``pos`` that does not end the line ends (``pos`` without any)."""
    m = _SPACES.match(text, pos)
    return m.end() if m else pos


def _annotation_runs(text: str, tags: Sequence[_Tag]) -> Iterator[tuple[int, int]]:
    """The text spans of a game's annotation tags (with their sections), those with only
    blanks between them as one: a line of two (``[HeartsScore "..."] [HeartsShotTheMoon ""]``),
    each widened alone, widened neither, and its blanks left behind a semi-empty line, which
    split the game in two when it was annotated again."""
    run: tuple[int, int] | None = None
    for t in tags:
        if t.name not in ANNOTATION_TAGS:
            if run is not None:
                yield run
            run = None
            continue
        end = t.section_end if t.section_end > 0 else t.end
        if run is not None and _past_spaces(text, run[1]) == t.start:
            run = (run[0], end)
        else:
            if run is not None:
                yield run
            run = (t.start, end)
    if run is not None:
        yield run


def _whole_lines(text: str, start: int, end: int, byte_offset: Callable[[int], int],
                 backwards: str) -> tuple[int, int]:
    """Widen a span to whole lines when nothing else shares them (so removal leaves no gap).

    Only the blanks next to the span are read (after it in ``text``, before it in ``backwards``,
    the text reversed): finding its line's ends, then stripping the line around it, read the
    whole line for each span, which took time quadratic in a line of many annotation tags."""
    after = _past_spaces(text, end)
    if after == len(text) or text[after] == "\n":
        before = len(text) - _past_spaces(backwards, len(text) - start)
        if before == 0 or text[before - 1] == "\n":
            start, end = before, min(after + 1, len(text))
    return byte_offset(start), byte_offset(end)


def _read_tag(tokens: _Tokens, i: int, start: int, line_of: Callable[[int], int],
              errors: list[str]) -> tuple[_Tag | None, int]:
    """``[`` was read at tokens[i-1]; read ``Name "value" ]``. Returns the tag and next index."""
    line = line_of(start)

    def skip_to_close(j: int) -> int:
        while j < len(tokens) and tokens[j][0] not in ("close", "open"):
            j += 1
        return j + 1 if j < len(tokens) and tokens[j][0] == "close" else j

    j = i
    while j < len(tokens) and tokens[j][0] in ("comment", "escape"):
        j += 1
    if j >= len(tokens) or tokens[j][0] != "word":
        errors.append(f"line {line}: '[' without a tag name")
        return None, skip_to_close(j)
    name = tokens[j][1]
    if not _TAG_NAME.fullmatch(name):
        errors.append(f"line {line}: bad tag name {name[:20]!r}")
        return None, skip_to_close(j + 1)
    j += 1
    while j < len(tokens) and tokens[j][0] in ("comment", "escape"):
        j += 1
    if j >= len(tokens) or tokens[j][0] == "close":
        errors.append(f"line {line}: tag {name} has no value")
        return None, skip_to_close(j)
    kind, tok, vstart, vend = tokens[j]
    if kind != "string":
        errors.append(f"line {line}: tag {name}: value must be in double quotes")
        return None, skip_to_close(j)
    if not _closed(tok):
        errors.append(f"line {line_of(vstart)}: tag {name}: the value's closing quote is missing")
        return None, skip_to_close(j + 1)
    value = _unescape(tok)
    if "\t" in value:
        errors.append(f"line {line}: tag {name}: tab character in the value")
    j += 1
    while j < len(tokens) and tokens[j][0] in ("comment", "escape"):
        j += 1
    if j >= len(tokens) or tokens[j][0] != "close":
        errors.append(f"line {line}: tag {name}: ']' is missing")
        # the tag ends at its value: the comments after it are not its own (an annotation
        # tag's span reached over them, and a writer removed them with it)
        return _Tag(name, value, start, vend, line), j
    return _Tag(name, value, start, tokens[j][3], line), j + 1


def _resolve_tags(record: Record, tags: list[_Tag], context: _Context, errors: list[str],
                  text: str) -> None:
    """Inheritance (``#``, ``##``), duplicates, and each tag's verbatim section text.

    ``#`` takes the tag's value from the nearest earlier game that had it; ``##text`` gives
    ``text`` to this game and every later game that lacks the tag. A later plain value
    replaces that default (PBN's "redefine in the middle of the file"); ``#`` ends it.
    """
    resolved: dict[str, str] = {}
    sections: dict[str, str] = {}
    for n, t in enumerate(tags):
        value = t.value
        if t.name in resolved:
            if t.name != "Note":
                errors.append(f"line {t.line}: tag {t.name} appears twice (the first is used)")
            continue
        if value == "#" or value.startswith("##"):
            if t.name in NOT_INHERITED:
                errors.append(f"line {t.line}: tag {t.name} cannot be inherited with '#'")
                value = ""
            elif value == "#":
                value = context.last.get(t.name, "")
                context.defaults.pop(t.name, None)
            else:
                value = value[2:]
                if t.name in context.defaults or len(context.defaults) < MAX_DEFAULTS:
                    context.defaults[t.name] = value
                else:
                    errors.append(f"line {t.line}: tag {t.name}: more than {MAX_DEFAULTS} tags "
                                  f"are inherited with '##': its value is not carried to later games")
        elif t.name in context.defaults:
            context.defaults[t.name] = value
        resolved[t.name] = value
        t.value = value
        end = tags[n + 1].start if n + 1 < len(tags) else len(text)
        section = text[t.end:end].strip().replace("\r\n", "\n")
        if section and t.name != "Play":
            sections[t.name] = section
    resolved.update(context.defaults)   # (a tag of its own that has a default gave it its value)
    record.tags = resolved
    record.sections = sections


def _interpret(record: Record, tags: list[_Tag], context: _Context, errors: list[str]) -> None:
    """The tags hearts-dd uses: Deal, Play and the Hearts tags."""
    first: dict[str, _Tag] = {}
    for t in tags:
        first.setdefault(t.name, t)
    if "Deal" in first:
        t = first["Deal"]
        record.deal_line = t.line
        if t.value:
            _read_deal(record, t.value, t.line, context, errors)
    if "Play" in first:
        record.play = _read_play(first["Play"], errors)
    if rules := record.tags.get("HeartsRules", "").strip():
        try:
            record.rules = Rules.parse(rules)
        except HeartsError as e:
            errors.append(f"line {_line(first, 'HeartsRules', record)}: [HeartsRules] {e}")
    if leader := record.tags.get("HeartsLeader", "").strip():
        record.leader_line = _line(first, "HeartsLeader", record)
        try:
            record.leader = Seat.parse(leader)
        except HeartsError:
            errors.append(f"line {record.leader_line}: [HeartsLeader] must be N, E, S or W, "
                          f"got {leader!r}")
    _read_passing(record, first, errors)


def error_text(errors: Sequence[str], more: int = 0) -> str | None:
    """A record's problems as one line (None for none); ``more`` not listed are counted."""
    if more:
        errors = [*errors, f"and {more} more error{'s' if more > 1 else ''}"]
    return "; ".join(errors) if errors else None


def _line(first: Mapping[str, _Tag], name: str, record: Record) -> int:
    return first[name].line if name in first else record.line


# -- the deal ----------------------------------------------------------------------------------
def _four_hands(value: str, where: str, errors: list[str]) -> list[int | None] | None:
    """The four hands of a PBN deal string ("N:hand hand hand hand", "-" for a hand not
    given) as masks by seat, or None after recording why they cannot be read."""
    v = value.strip()
    first = Seat.N
    if len(v) >= 2 and v[1] == ":":
        if ascii_upper(v[0]) not in "NESW":
            errors.append(f"{where} unknown first seat {v[0]!r}")
            return None
        first = Seat.parse(v[0])
        v = v[2:]
    parts = v.split(" ")
    if "" in parts:
        errors.append(f"{where} hands must be separated by single spaces")
        parts = [p for p in parts if p]
    if len(parts) != 4:
        errors.append(f"{where} expected 4 hands separated by spaces, found {len(parts)}")
        return None
    hands: list[int | None] = [None] * 4
    try:
        for i, part in enumerate(parts):
            hands[first.next(i)] = None if part == "-" else parse_hand(part)
    except DealError as e:
        errors.append(f"{where} {e}")
        return None
    return hands


def _read_deal(record: Record, value: str, line: int, context: _Context, errors: list[str]) -> None:
    where = f"line {line}: [Deal]"
    hands = _four_hands(value, where, errors)
    if hands is None:
        return
    given = [(s, h) for s, h in zip(Seat, hands) if h is not None]
    if not given or not any(h for _, h in given):
        errors.append(f"{where} no cards")
        return
    seen = 0
    for seat, h in given:
        n = bin(h).count("1")
        if n > 13:
            errors.append(f"{where} {seat} has {n} cards")
            return
        if seen & h:
            errors.append(f"{where} card {next(cards_of(seen & h))} appears twice")
            return
        seen |= h
    sizes = {bin(h).count("1") for _, h in given}
    if len(sizes) > 1:
        counts = ", ".join(f"{s}={bin(h).count('1')}" for s, h in given)
        errors.append(f"{where} hands must hold the same number of cards ({counts})")
        return
    missing = [s for s in Seat if hands[s] is None]
    if len(missing) == 1 and sizes == {13}:
        hands[missing[0]] = DECK & ~seen
        missing = []
    if missing:
        board = record.tags.get("Board")
        same = context.boards.get(board) if board else None
        if same is not None and all(h is None or h == same.hands[s] for s, h in zip(Seat, hands)):
            record.deal = same
        else:
            record.partial_hands = tuple(hands)
            record.board_differs = same is not None
        return
    try:
        record.deal = Deal(tuple(hands))  # type: ignore[arg-type]
    except HeartsError as e:
        errors.append(f"{where} {e}")


# -- the play section --------------------------------------------------------------------------
_PLAY_PART = re.compile(r"""
    (?P<card>[A-Za-z0-9""" + "".join(SUIT_SYMBOLS) + VARIATIONS + r"""-]+)
  | (?P<suffix>[!?]+)
  | (?P<note>=[^=\s]*=?)
  | (?P<nag>\$[A-Za-z0-9]*)
  | (?P<irregular>\^.?)
  | (?P<star>\*)
  | (?P<plus>\+)
  | (?P<other>.)
""", re.X)
_SUFFIXES = {"!", "?", "!!", "??", "!?", "?!"}
_ASCII_NUMBER = re.compile(r"[0-9]{1,6}")


def _read_play(tag: _Tag, errors: list[str]) -> RecordedPlay | None:
    value = tag.value.strip()
    try:
        seat = Seat.parse(value)
    except HeartsError:
        if value == "" and not tag.words:
            return None
        errors.append(f"line {tag.line}: [Play] the first player must be N, E, S or W, got {value!r}")
        return None
    slots: list[Slot] = []
    starts: list[int] = []  # the line of each trick's first slot
    card_marks = 0          # suffixes or card NAGs after the last card
    notes = 0
    irregular = ""
    plus_seen = False
    plus_trick = 0
    ended = False
    after_end_reported = False
    for word, line in tag.words:
        if word.startswith('"'):
            # (shown as repr: a string left open at a CR LF line end held the CR, which split
            # the error's line, and the [HeartsError] tag of it written back)
            errors.append(f"line {line}: [Play] unexpected string {word[:20]!r}")
            continue
        for m in _PLAY_PART.finditer(word):
            kind, tok = m.lastgroup, m.group()
            if ended:
                if not after_end_reported:
                    errors.append(f"line {line}: [Play] {tok!r} after the closing '*'")
                    after_end_reported = True
                continue
            if kind in ("card", "plus") and len(slots) % 4 == 0:
                starts.append(line)
            if kind == "card":
                if irregular and tok == "-":
                    errors.append(f"line {line}: [Play] {irregular} must precede a card, not '-'")
                irregular = ""
                if tok == "-":
                    slots.append("-")
                else:
                    try:
                        card = _play_card(tok)
                    except ValueError:
                        errors.append(f"line {line}: [Play] bad card {tok!r}")
                        slots.append("-")
                        continue
                    if plus_seen and len(slots) // 4 > plus_trick:
                        errors.append(f"line {line}: [Play] card {card} in a trick after the '+'")
                    slots.append(card)
                card_marks = notes = 0
            elif kind == "suffix":
                card_marks += 1
                if tok not in _SUFFIXES:
                    errors.append(f"line {line}: [Play] bad suffix {tok!r}")
                elif card_marks > 1:
                    errors.append(f"line {line}: [Play] a card has more than one suffix")
            elif kind == "nag":
                number = tok[1:]
                if not _ASCII_NUMBER.fullmatch(number) or int(number) > 255:
                    errors.append(f"line {line}: [Play] bad NAG {tok!r} (expected $0 to $255)")
                elif 1 <= int(number) <= 6 or int(number) == 13:
                    errors.append(f"line {line}: [Play] NAG {tok} is for calls, not cards")
                elif 7 <= int(number) <= 12:
                    card_marks += 1
                    if card_marks > 1:
                        errors.append(f"line {line}: [Play] a card has more than one suffix")
            elif kind == "note":
                notes += 1
                inner = tok[1:-1] if tok.endswith("=") and len(tok) > 1 else ""
                if not _ASCII_NUMBER.fullmatch(inner) or not 1 <= int(inner) <= 32:
                    errors.append(f"line {line}: [Play] bad note reference {tok!r} (expected =1= to =32=)")
                elif notes > 1:
                    errors.append(f"line {line}: [Play] a card has more than one note reference")
            elif kind == "irregular":
                if tok not in ("^R", "^L"):
                    errors.append(f"line {line}: [Play] bad irregularity {tok!r} (expected ^R or ^L)")
                elif irregular:
                    errors.append(f"line {line}: [Play] {irregular} must precede a card, not {tok}")
                irregular = tok
            elif kind == "star":
                ended = True
            elif kind == "plus":
                if plus_seen:
                    errors.append(f"line {line}: [Play] more than one '+'")
                plus_seen = True
                plus_trick = len(slots) // 4
                slots.append("+")
            else:
                errors.append(f"line {line}: [Play] unexpected character {tok!r}")
    if irregular:
        errors.append(f"line {tag.line}: [Play] {irregular} at the end of the section")
    while len(slots) % 4:
        slots.append("-")
    tricks = tuple(tuple(slots[i:i + 4]) for i in range(0, len(slots), 4))
    return RecordedPlay(seat, tricks, tag.line, tuple(starts))  # type: ignore[arg-type]


def _is_card(token: str) -> bool:
    try:
        _play_card(token)
    except ValueError:
        return False
    return True


def _play_card(token: str) -> Card:
    """A card of the play section: suit letter (or symbol, as SPEC §1 allows) then rank."""
    t = card_letters(token)
    if len(t) < 2 or t[0] not in SUITS or t[1:] not in (*RANKS, "10"):
        raise ValueError(token)
    return Card.parse(t)


# -- Hearts tags -------------------------------------------------------------------------------
def _read_passing(record: Record, first: Mapping[str, _Tag], errors: list[str]) -> None:
    direction = record.tags.get("HeartsPass", "").strip().lower()
    passed = record.tags.get("HeartsPassed", "").strip()
    if not direction and not passed:
        return
    line = _line(first, "HeartsPass" if "HeartsPass" in first else "HeartsPassed", record)
    if not direction:
        errors.append(f"line {line}: [HeartsPassed] needs a [HeartsPass] tag (left, right or across)")
        return
    if direction not in PASS_DIRECTIONS:
        errors.append(f"line {line}: [HeartsPass] must be left, right, across or hold, "
                      f"got {record.tags.get('HeartsPass', '')!r}")
        return
    cards: list[int | None] = [None] * 4
    if passed:
        line = _line(first, "HeartsPassed", record)
        if direction == "hold":
            errors.append(f"line {line}: [HeartsPassed] given, but [HeartsPass] is 'hold'")
            return
        read = _four_hands(passed, f"line {line}: [HeartsPassed]", errors)
        if read is None:
            return
        cards = read
        seen = 0
        for seat, m in zip(Seat, cards):
            if m is None:
                continue
            n = m.bit_count()
            if n != 3:
                errors.append(f"line {line}: [HeartsPassed] {seat} passed {n} card{'' if n == 1 else 's'} "
                              "(3 expected)")
                return
            if seen & m:
                errors.append(f"line {line}: [HeartsPassed] card {next(cards_of(seen & m))} passed twice")
                return
            seen |= m
    passing = Passing(direction, tuple(cards))  # type: ignore[arg-type]
    if record.deal is not None:
        for seat, m in zip(Seat, cards):
            if m is None:
                continue
            to = passing.receiver(seat)
            for c in cards_of(m & ~record.deal.hands[to]):
                holder = record.deal.holder(c)
                if holder is None:      # (an end position: played before it)
                    continue
                errors.append(f"line {line}: [HeartsPassed] {seat} passed {c} to {to}, "
                              f"but the [Deal] gives it to {holder}")
                return
    record.passing = passing
