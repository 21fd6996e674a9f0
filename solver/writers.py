"""Output formats of ``hearts-dd annotate``: jsonl (SPEC §6), csv, pbn and text.

Every writer takes ``(record, result)`` pairs in input order and writes bytes to a binary
stream. The pbn writer copies each game byte for byte and adds hearts-dd's annotation tags at
its end; annotation tags already there (an earlier run) are removed first, so annotating an
annotated file gives the same file again.
"""
from __future__ import annotations

import csv
import io
import json
import re
import textwrap
from typing import Any, BinaryIO, Sequence

from .cards import Card, Seat
from .errors import HeartsError, printable, printable_json
from .pbn import (BOM, FILE_MARK, PASS_DIRECTIONS, Record, encoding_of, ends_a_game, escape,
                  line_end, starts_a_file)
from .position import trick_winner
from .report import value_table
from .rules import Rules

__all__ = ["FORMATS", "Writer", "format_for", "make_writer", "annotation_lines"]

SEATS = [str(s) for s in Seat]


class Writer:
    """Base: ``write`` each pair, then ``close`` (flushes; the stream stays open)."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.headed = False     # what is written once, at the start (csv's header, a legend)

    def write(self, record: Record, result: dict[str, Any]) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self.out.flush()

    def resume(self, last: Record, tail: bytes) -> None:
        """Go on after an output that already holds the records up to ``last`` (a resumed run)
        and ends with ``tail`` (its last ``TAIL`` bytes or fewer): what a writer writes once, at
        the start, is not written again, and what it looks back on is as if it had written it."""
        self.headed = True


class JsonlWriter(Writer):
    """One JSON object per line, the keys of SPEC §6 first (``printable_json``)."""

    def write(self, record: Record, result: dict[str, Any]) -> None:
        self.out.write(printable_json(result).encode("utf-8") + b"\n")


CSV_COLUMNS = (["index", "file", "line", "board", "deal", "rules", "leader", "error"]
               + [f"{s}_{k}" for s in SEATS for k in ("guarantee", "moon_possible")]
               + ["play"] + [f"{s}_cost" for s in SEATS] + [f"{s}_moon_lost" for s in SEATS]
               + [f"{s}_score" for s in SEATS] + ["shot_the_foot", "shot_the_moon"])


_FORMULA = re.compile(r"[=+\-@][^\n]|[\t\r]")


def _cell(value: Any) -> Any:
    """A text cell a spreadsheet would run as a formula (a file name or ``[Board]`` from the
    input, such as ``=HYPERLINK(...)``) gets a leading ``'``, as spreadsheets themselves write
    text that looks like a formula; a lone ``-`` (standard input) stays as it is. A text cell
    is ``printable`` (a ``[Board]``'s escape sequences reached the terminal as they were)."""
    if not isinstance(value, str):
        return value
    return f"'{printable(value)}" if _FORMULA.match(value) else printable(value)


def csv_row(result: dict[str, Any]) -> dict[str, Any]:
    """One flat row: costs summed per seat, a lost moon as ``trick:card``, text cells that
    would be formulas escaped."""
    row: dict[str, Any] = {k: result.get(k) for k in CSV_COLUMNS[:CSV_COLUMNS.index("error") + 1]}
    if isinstance(row["rules"], dict):
        row["rules"] = json.dumps(row["rules"])
    for seat in SEATS:
        p = (result.get("players") or {}).get(seat, {})
        row[f"{seat}_guarantee"] = p.get("guarantee")
        row[f"{seat}_moon_possible"] = p.get("moon_possible")
    row["play"] = result.get("play")
    rv = result.get("review")
    if rv:
        for seat in SEATS:
            row[f"{seat}_cost"] = sum(c["cost"] for c in rv["cards"] if c["seat"] == seat)
            lost = rv["moon"][seat]["lost_with"]
            row[f"{seat}_moon_lost"] = f"{lost['trick']}:{lost['card']}" if lost else ""
            row[f"{seat}_score"] = (rv["scores"] or {}).get(seat)
        for key in ("shot_the_foot", "shot_the_moon"):
            seats = rv[key]
            row[key] = " ".join(seats) if seats is not None else None
    return {k: _cell(v) for k, v in row.items()}


class CsvWriter(Writer):
    """One row per record, with a header line (written with the first row, or at the close of
    a run without records: making a writer writes nothing, so only the run's writes can fail)."""

    def __init__(self, out: BinaryIO) -> None:
        super().__init__(out)
        self.text = io.TextIOWrapper(out, encoding="utf-8", newline="", write_through=True)
        self.csv = csv.DictWriter(self.text, CSV_COLUMNS, lineterminator="\n")

    def _head(self) -> None:
        if not self.headed:
            self.csv.writeheader()
            self.headed = True

    def write(self, record: Record, result: dict[str, Any]) -> None:
        self._head()
        self.csv.writerow(csv_row(result))

    def close(self) -> None:
        self._head()
        self.text.flush()
        self.text.detach()
        super().close()


def _table(name: str, columns: Sequence[tuple[str, int]], rows: list[list[Any]]) -> list[str]:
    """A PBN table tag: ``[NameTable "Col\\2R;..."]`` and its rows, right-aligned by width (a
    column's width grows to its widest value: rules with large values score in thousands)."""
    columns = [(c, max([w, *(len(str(row[i])) for row in rows)]) if w > 1 else w)
               for i, (c, w) in enumerate(columns)]
    spec = ";".join(f"{c}\\{w}R" if w > 1 else c for c, w in columns)
    lines = [f'[{name} "{spec}"]']   # column widths keep their single backslash, as PBN files do
    for row in rows:
        lines.append(" ".join(str(v).rjust(w) for v, (_, w) in zip(row, columns)))
    return lines


def _yes(flag: bool) -> str:
    return "Yes" if flag else "No"


def annotation_lines(result: dict[str, Any]) -> list[str]:
    """hearts-dd's tags for one result (their names are ``solver.pbn.ANNOTATION_TAGS``)."""
    lines: list[str] = []
    players = result.get("players")
    if players and all("guarantee" in p for p in players.values()):
        lines += _table("HeartsOptimumTable", [("Seat", 1), ("Guarantee", 3), ("MoonPossible", 1)],
                        [[s, p["guarantee"], _yes(p["moon_possible"])] for s, p in players.items()])
    rv = result.get("review")
    if rv:
        if rv["cards"]:
            lines += _table("HeartsPlayCostTable",
                            [("Trick", 2), ("Seat", 1), ("Card", 1), ("Guarantee", 3), ("Best", 3),
                             ("Cost", 3), ("BestCards", 1)],
                            [[c["trick"], c["seat"], c["card"], c["guarantee"], c["best"], c["cost"],
                              ",".join(c["best_cards"]) or "-"] for c in rv["cards"]])
        rows = []
        for seat, m in rv["moon"].items():
            lost = m["lost_with"]
            last = m["last_forceable"]
            rows.append([seat, _yes(m["at_start"]), _yes(m["at_end"]), "-" if last is None else last,
                         "-" if lost is None else f"{lost['trick']}:{lost['card']}"])
        lines += _table("HeartsMoonTable", [("Seat", 1), ("AtStart", 1), ("AtEnd", 1),
                                            ("LastForceable", 2), ("LostWith", 1)], rows)
        if rv["scores"] is not None:
            lines.append(f"[HeartsScore {escape(';'.join(f'{s} {v}' for s, v in rv['scores'].items()))}]")
            lines.append(f"[HeartsShotTheMoon {escape(''.join(rv['shot_the_moon']))}]")
            lines.append(f"[HeartsShotTheFoot {escape(''.join(rv['shot_the_foot']))}]")
    if result.get("error"):
        # the tag sits in the game it is about; line numbers would shift as annotations grow
        message = _LINE_PREFIX.sub(r"\1", result["error"])
        lines.append(f"[HeartsError {escape(message)}]")
    return lines


_LINE_PREFIX = re.compile(r"(^|; )line \d+: ")


class PbnWriter(Writer):
    """The input, byte for byte, with each game's annotation tags replaced by new ones. Where
    a file's last game ends without a blank line and another file's games follow, a newline or
    two keep the two games apart; and where that file does not open with a ``% PBN`` line, one
    is written, so that its games take no values or boards the file before it gave its own
    (``pbn.starts_a_file``), read again."""

    def __init__(self, out: BinaryIO) -> None:
        super().__init__(out)
        self._tail = b"\n\n"     # the last bytes written
        self._last: tuple[str | None, int] | None = None     # the last record's file and line

    def write(self, record: Record, result: dict[str, Any]) -> None:
        data = record.before + annotated_game(record, result) + record.after
        last, self._last = self._last, (record.source, record.line)
        # another input starts: another file, or the same again (its lines start over)
        if last is not None and (last[0] != record.source or last[1] >= record.line) \
                and not starts_a_file(data):
            bom = BOM if data.startswith(BOM) else b""      # (a reader takes it off a game)
            data = bom + FILE_MARK + line_end(data) + data[len(bom):]
        if not ends_a_game(self._tail):
            newline = line_end(self._tail + data)
            data = (newline if self._tail.endswith((b"\n", b"\r")) else newline * 2) + data
        self.out.write(data)
        self._tail = (self._tail + data)[-TAIL:]

    def resume(self, last: Record, tail: bytes) -> None:
        super().resume(last, tail)
        self._tail = (b"\n\n" + tail)[-TAIL:]
        self._last = (last.source, last.line)


#: The last bytes written that a writer looks back on (the pbn writer, to keep games apart).
TAIL = 256


def annotated_game(record: Record, result: dict[str, Any]) -> bytes:
    raw = _without(record.raw, record.annotation_spans)
    newline = line_end(record.raw)
    encoding = encoding_of(record.raw)
    lines = annotation_lines(result)
    if not lines or record.open_comment:
        return raw      # (tags after an open { would be comment text, read as none next time)
    if raw and not raw.endswith((b"\n", b"\r")):
        raw += newline
    text = newline.decode().join(lines) + newline.decode()
    return raw + text.encode(encoding, errors="replace")


def _without(raw: bytes, spans: Sequence[tuple[int, int]]) -> bytes:
    """``raw`` without the byte spans (which do not overlap, as a record's annotation spans
    never do), joined once: cut out one by one, each cut copied the rest of the game, which
    took time quadratic in the number of spans."""
    kept, pos = [], 0
    for start, end in sorted(spans):
        kept.append(raw[pos:start])
        pos = end
    kept.append(raw[pos:])
    return b"".join(kept)


class TextWriter(Writer):
    """A readable report, a few lines per record, after a legend of the terms."""

    def write(self, record: Record, result: dict[str, Any]) -> None:
        head = "" if self.headed else "\n".join(TEXT_LEGEND) + "\n\n"
        self.headed = True
        self.out.write((head + "\n".join(text_report(result)) + "\n\n").encode("utf-8"))


#: What the text report's numbers mean (SPEC §3), written once at its top.
TEXT_LEGEND = [
    "Guarantee: the fewest points a seat (with partnerships, a side) can make sure",
    "  of, with every card seen, against all the others playing together (who may",
    "  let one of them shoot the moon).",
    "Moon possible: it can make sure of taking every point card (can force a moon).",
    "A card's cost: the points it added to its player's guarantee; in brackets, the",
    "  card(s) that kept the best, and that best guarantee.",
    "Play: each trick after the seat that led it, then -> the seat that took it.",
    "Shot the foot: took every point card but a few (missed at most 3 points' worth,",
    "  and at most a quarter of them), so no moon: nearly all the points instead.",
    "An end position (fewer than 13 cards a hand) is played as a whole hand: its",
    "  first trick is trick 1 (the lowest club leads, no points on it, hearts",
    "  unbroken, as the rules say for trick 1).",
]

#: The text report's lines fit a terminal of 80 columns: wider, the terminal wrapped them
#: itself, splitting a card's name ("(H" at a line's end, "Q kept 1)" at the next one's start)
#: and losing the indent that lines a record's wrapped lines up. (A record's place, text from
#: the input, is as long as it is, as is a word longer than a line.)
WIDTH = 79


def record_place(result: dict[str, Any]) -> str:
    """``Record 3 (games.pbn line 20, board 2)``: where a result's record is."""
    source = f"{result['file']} " if result.get("file") else ""
    board = f", board {result['board']}" if result.get("board") else ""
    return f"Record {result['index']} ({source}line {result['line']}{board})"


def text_report(result: dict[str, Any]) -> list[str]:
    """The text report's lines for one result, ``printable``: the input's text in them (a
    ``[Board]``, a file's name) cannot write escape sequences to a terminal, nor add lines."""
    return [printable(line) for line in _text_report(result)]


def _text_report(result: dict[str, Any]) -> list[str]:
    lines = [record_place(result)]
    if result.get("deal"):
        leads = f", {result['leader']} leads" if result.get("leader") else ""
        # (no rules: never read, or not read for this record; its error says which)
        rules = f"   rules: {rules_text(result['rules'])}" if result.get("rules") is not None else ""
        line = f"  {result['deal']}{rules}{leads}"
        if len(line) > WIDTH and rules + leads:     # (the rules on a line of their own)
            line = f"  {result['deal']}\n  {(rules + leads).lstrip(' ,')}"
        lines += line.split("\n")
    passing = result.get("pass")
    if passing:
        # who gave which cards to whom: "N SJ DQ CJ" left it to guess whether N gave or got them
        step = PASS_DIRECTIONS.get(passing["direction"], 0)
        passed = [f"{seat} gave {cards} to {Seat.parse(seat).next(step)}"
                  for seat, cards in passing["cards"].items()]
        if passing["direction"] == "hold":
            lines.append("  No passing (hold)")
        elif passed:
            lines += _wrapped(f"  Passing {passing['direction']}: ", passed, "; ")
        else:
            lines.append(f"  Passing {passing['direction']}")
    players = result.get("players")
    if players:
        lines += value_table("Seat", ((seat, p.get("guarantee", ""), p["moon_possible"])
                                      for seat, p in players.items()), indent="  ")
    rv = result.get("review")
    if rv:
        lines += _play_lines(result["play"], rv["complete"], rv["cards"])
        costly = [c for c in rv["cards"] if c["cost"]]
        if rv["cards"]:
            lines += _wrapped("  Costly cards: ", [_cost(c) for c in costly] or ["none"], ", ")
        lines += [wrapped for line in moon_story(rv)
                  for wrapped in textwrap.wrap(f"  Moon: {line}", WIDTH, subsequent_indent=" " * 8,
                                               break_long_words=False, break_on_hyphens=False)]
        if rv["scores"] is not None:
            scores = _scores_text(rv["scores"], result.get("rules"))
            shots = [f"{'/'.join(rv[key])} {words}" for key, words in
                     (("shot_the_moon", "shot the moon"), ("shot_the_foot", "shot the foot"))
                     if rv[key]]
            lines.append(f"  Scores: {scores}" + "".join(f"; {shot}" for shot in shots))
    if result.get("error"):
        lines += textwrap.wrap(f"  Error: {result['error']}", WIDTH, subsequent_indent=" " * 9,
                               break_long_words=False, break_on_hyphens=False)
    return lines


def _scores_text(scores: dict[str, int], rules: str | dict[str, Any] | None) -> str:
    """``N 0, E 26, S 26, W 26``; with partnerships by side, ``N/S 3, E/W 0``: each partner
    scores the side's total, and "N 3, S 3" read as 6 for the side."""
    try:
        partners = rules is not None and Rules.parse(rules).partnership
    except HeartsError:
        partners = False
    if partners and scores.get("N") == scores.get("S") and scores.get("E") == scores.get("W"):
        return f"N/S {scores['N']}, E/W {scores['E']}"
    return ", ".join(f"{s} {v}" for s, v in scores.items())


def _play_lines(play: str | None, complete: bool, reviewed: list[dict[str, Any]]) -> list[str]:
    """The recorded play trick by trick (``|`` between tricks), each after the seat that led it
    (who played each card follows; read aloud, the cards alone did not say) and before ``->``
    and the seat that took it, wrapped; where it stops short of the end, how far it goes."""
    cards = (play or "").split()
    if not cards:
        return ["  Play: (no legal card)"]
    led = {c["trick"]: c["seat"] for c in reversed(reviewed)}
    tricks = [cards[k:k + 4] for k in range(0, len(cards), 4)]
    lines = _wrapped("  Play: ", [(f"{led[n]} " if n in led else "") + " ".join(t)
                                  + (f" -> {_taker(led[n], t)}" if n in led and len(t) == 4 else "")
                                  for n, t in enumerate(tricks, start=1)], " | ")
    if not complete:
        n, k = (len(cards) - 1) // 4 + 1, len(cards) % 4
        where = f"trick {n}" if k == 0 else f"{k} card{'s' if k > 1 else ''} of trick {n}"
        lines.append(f"  (the recorded play stops after {where}: no final scores)")
    return lines


def _taker(leader: str, trick: list[str]) -> str:
    """Who took a trick of four cards (in play order) that ``leader`` led: the highest card of
    the suit led. Shown after it: the last trick's taker, and who took the queen, were not to
    be read anywhere in the report."""
    return str(Seat.parse(leader).next(trick_winner([Card.parse(name) for name in trick])))


def _wrapped(head: str, items: list[str], sep: str, width: int = WIDTH) -> list[str]:
    """``head`` and the items joined by ``sep``, in lines of up to ``width`` characters (an
    item is never split), the lines after the first indented under the first item."""
    lines, line = [], head
    for k, item in enumerate(items):
        piece = item + (sep.rstrip() if k < len(items) - 1 else "")
        if line.strip() and line != head and len(line) + len(piece) > width:
            lines.append(line.rstrip())
            line = " " * len(head)
        line += piece + (" " if k < len(items) - 1 else "")
    return lines + [line.rstrip()]


def _cost(c: dict[str, Any]) -> str:
    """``S SQ at trick 3 +14 (S8 kept 0)``: a costly card, and the cards that kept the best."""
    best = c["best_cards"]
    if len(best) > 1:
        named = f"{', '.join(best[:-1])} or {best[-1]}"
    else:
        named = "".join(best)
    return f"{c['seat']} {c['card']} at trick {c['trick']} +{c['cost']}" + (
        f" ({named} kept {c['best']})" if named else "")


def rules_text(rules: str | dict[str, Any]) -> str:
    """A result's rules (a preset's name, or the whole rule object) as ``Rules.describe`` says
    them."""
    return rules if isinstance(rules, str) else Rules.parse(rules).describe()


def moon_story(review: dict[str, Any]) -> list[str]:
    """One phrase per seat (per side, where partners share the moon) that could force a moon
    at some point of the recorded play."""
    seats_by_story: dict[str, list[str]] = {}   # only partners can share one: their side's moon
    end = "to the end" if review.get("complete") else "to the end of the recorded play"
    for seat, m in review["moon"].items():
        runs = []
        for run in m["segments"]:
            given, lost = run["given_by"], run["lost_with"]
            since = "from the start" if given is None else \
                f"from {given['seat']}'s {given['card']} at trick {given['trick']}"
            until = end if lost is None else f"until {lost['seat']}'s {lost['card']} at trick {lost['trick']}"
            runs.append(f"{since} {until}")
        if runs:
            seats_by_story.setdefault(", then ".join(runs), []).append(seat)
    out = [f"{'/'.join(seats)} could force it {story}" for story, seats in seats_by_story.items()]
    return out or ["nobody could force one during the recorded play"]


def moon_line(result: dict[str, Any]) -> str:
    """``Record 3 (games.pbn line 20, board 2): at the start: W; W could force it ...``,
    ``printable``."""
    parts = []
    players = result.get("players")
    if players is not None:
        seats = [s for s, p in players.items() if p["moon_possible"]]
        # (two seats only as partners, whose side the story calls "E/W": one side)
        parts.append("at the start: " + ("/".join(seats) if seats else "nobody"))
    rv = result.get("review")
    if rv:
        parts += moon_story(rv)
        if rv.get("shot_the_moon"):
            parts.append(f"{'/'.join(rv['shot_the_moon'])} shot the moon")
    if result.get("error"):
        parts.append(f"error: {result['error']}")
    return printable(f"{record_place(result)}: " + "; ".join(parts))   # (one line: text_report)


FORMATS: dict[str, type[Writer]] = {"jsonl": JsonlWriter, "csv": CsvWriter, "pbn": PbnWriter,
                                    "text": TextWriter}
_SUFFIXES = {".jsonl": "jsonl", ".json": "jsonl", ".csv": "csv", ".pbn": "pbn", ".txt": "text"}


def format_for(path: str | None) -> str:
    """The format an output file's name asks for; jsonl when it says nothing."""
    if path:
        for suffix, fmt in _SUFFIXES.items():
            if path.lower().endswith(suffix):
                return fmt
    return "jsonl"


def make_writer(fmt: str, out: BinaryIO) -> Writer:
    """The writer of format ``fmt`` (one of ``FORMATS``) to the binary stream ``out``."""
    if fmt not in FORMATS:
        raise HeartsError(f"unknown format {fmt!r} (expected one of {', '.join(sorted(FORMATS))})")
    return FORMATS[fmt](out)
