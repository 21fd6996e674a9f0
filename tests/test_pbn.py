"""The PBN reader and writer (solver/pbn.py): conformance files, the format's corners, streaming,
round trips, and fuzzed input that never makes the reader raise."""
from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from benchmarks.record_files import endgame_file
from solver.cards import Card, Seat
from solver.deal import Deal
from solver import pbn
from solver.bounded_lines import MAX_LINE
from solver.errors import HeartsError
from solver.pbn import Passing, RecordedPlay, count_games, error_text, game_text, read_records
from solver.rules import Rules
from solver.writers import annotated_game

PBN = Path(__file__).parent / "data" / "pbn"


def read(data: bytes | str) -> list:
    return list(read_records(io.BytesIO(data.encode() if isinstance(data, str) else data)))


def headers(path: Path) -> dict[int, int]:
    """Game number -> line of the file's ``% ===== game N =====`` comments."""
    out = {}
    for number, line in enumerate(path.read_bytes().split(b"\n"), 1):
        if m := re.match(rb"% =+ game (\d+) =+", line):
            out[int(m.group(1))] = number
    return out


def by_game(path: Path) -> dict[int, object]:
    """Each numbered game's record (the one that starts at its header line)."""
    records = {r.line: r for r in read(path.read_bytes())}
    return {game: records[line] for game, line in headers(path).items() if line in records}


# -- conformance files (tests/data/pbn, from github.com/timheilman/bridge-pbn, MIT) ------------
@pytest.mark.parametrize("name, games", [("correct_10.pbn", 31), ("correct_20.pbn", 46),
                                         ("correct_21.pbn", 2)])
def test_every_game_of_the_correct_files_is_read_without_error(name, games):
    path = PBN / name
    records = read(path.read_bytes())
    assert len(records) == games == count_games(io.BytesIO(path.read_bytes()))
    assert [r.errors for r in records] == [[]] * games
    assert [r.index for r in records] == list(range(games))
    lines = path.read_bytes().split(b"\n")
    assert all(lines[r.line - 1][:1] in (b"%", b"[") for r in records)   # each starts a game


def test_correct_files_deals_plays_and_inheritance():
    games = by_game(PBN / "correct_10.pbn")
    first = games[1]
    assert first.deal == Deal.parse("N:.63.AKQ987.A9732 A8654.KQ5.T.QJT6 J973.J98742.3.K4 KQT2.AT.J6542.85")
    assert first.play.seat == Seat.W and len(first.play.tricks) == 7
    assert first.play.tricks[-1] == ("-", "-", "-", Card.parse("H2"))
    # game 2 gives only N and S; the same board's deal (game 1) supplies the rest
    assert games[2].deal == first.deal
    assert games[2].play == first.play                      # {comments}, $NAG, =note= skipped
    assert games[4].tags["East"] == '\\"\\""\\  \\a'       # \" and \\ escapes, others kept
    assert games[4].tags["South"].startswith(" \xa0 ¡ ¢ £")   # Latin-1
    assert games[22].tags["Event"] == "use new lines"       # a tag pair across lines
    assert games[25].missing_deal() == (  # (the line of the [Deal], not of the game's first tag)
        "line 316: the [Deal] gives only the hands of N S (all four are needed)")
    games20 = by_game(PBN / "correct_20.pbn")
    assert games20[2].tags["Event"] == "Autumn regional"   # "##" header value
    assert games20[2].tags["West"] == "?"                   # "#": the previous game's value
    assert games20[16].tags["Event"].startswith("International")
    assert games20[27].play.tricks[3] == (Card.parse("S3"), Card.parse("C3"), "+", Card.parse("SA"))
    assert games20[31].deal.hand_size == 12                  # an end position


# Which error each broken game must report. The other games of these files break rules of
# bridge-only tags (Vulnerable, Contract, Auction, Score..., table columns) that hearts-dd
# does not read, so they read without error: the last test below pins that too.
BROKEN = {
    "errors_10.pbn": {2: "has no value", 3: "double quotes", 4: "tab character", 11: "unknown rank",
                      12: "SK appears twice", 13: "W has 14 cards", 14: "same number of cards",
                      15: "same number of cards", 16: "single spaces", 17: "W has 14 cards",
                      18: "no cards", 23: "text outside a tag", 28: "Site appears twice",
                      45: "more than one suffix", 46: "NAG $1 is for calls", 47: "note reference",
                      48: "bad card 'S1'", 49: "^R must precede a card", 59: "NAG $2 is for calls",
                      62: "cannot be inherited",
                      73: "bad card 'CS'", 74: "closing quote is missing"},
    "errors_20.pbn": {7: "more than one '+'", 12: "closing quote is missing", 13: "closing quote is missing",
                      16: "'%' is only allowed", 17: "'[' without a tag name",
                      18: "']' without a tag", 19: "comment is not closed", 20: "'}' without a '{'"},
    "errors_21.pbn": {},
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_files_report_each_error_in_its_own_record(name):
    path = PBN / name
    games = by_game(path)
    assert set(headers(path)) == set(games)   # reading went on, each game its own record
    for game, words in BROKEN[name].items():
        errors = games[game].errors
        assert any(words in e for e in errors), (game, errors)
        assert all(re.match(r"line \d+: ", e) and "\n" not in e for e in errors)
    untouched = {g: r.errors for g, r in games.items() if g not in BROKEN[name] and r.errors}
    assert untouched == {}


def test_the_game_numbers_of_errors_10_line_up_even_after_a_stray_line():
    records = read((PBN / "errors_10.pbn").read_bytes())
    assert len(records) == 75                                  # game 23 is split by its blank line
    assert records[22].errors == ["line 95: text outside a tag: 'bad'"]


@pytest.mark.parametrize("name, games", [
    ("three_test_records.pbn", 3), ("three_test_records_crlf.pbn", 3),
    ("test_record_with_empty_line_in_comment.pbn", 1),       # a blank line inside { } keeps the game
    ("test_record_with_single_line_curly_comment.pbn", 2),   # a line of blanks and tabs ends it
    ("test_record_with_lots_of_curlies.pbn", 2),             # braces do not nest
    ("test_record_with_escape_in_comment.pbn", 1),           # % inside { } is comment text
])
def test_game_boundaries(name, games):
    records = read((PBN / name).read_bytes())
    assert len(records) == games
    assert all(r.errors == [] for r in records)


DEAL_TAG = '[Deal "N:A... .A.. ..A. ...A"]\n'


@pytest.mark.parametrize("opening", ["{ forgot to close\n", '[Event {"x"]\n'])
def test_an_unclosed_comment_does_not_swallow_the_games_after_it(opening):
    games = "".join(f'[Board "{b}"]\n{DEAL_TAG}\n' for b in range(1, 51))
    records = read('[Board "0"]\n' + DEAL_TAG + opening + "\n% next\n" + games)
    assert [r.tags.get("Board") for r in records] == [str(b) for b in range(51)]
    assert any("comment is not closed" in e for e in records[0].errors), records[0].errors
    assert [r.errors for r in records[1:]] == [[]] * 50
    assert all(r.deal is not None for r in records[1:])
    assert count_games(io.BytesIO(('[Board "0"]\n' + opening + "\n" + games).encode())) == 51


def test_an_unclosed_comment_between_games_is_reported_not_dropped():
    text = '[Board "1"]\n' + DEAL_TAG + '\n{ open\n[Board "2"]\n' + DEAL_TAG + '\n[Board "3"]\n' + DEAL_TAG
    records = read(text)
    assert [r.tags.get("Board") for r in records] == ["1", None, "3"]
    assert records[1].errors[0] == "line 4: { comment is not closed (a '}' missing?)"
    assert count_games(io.BytesIO(text.encode())) == 3


def test_a_comment_may_hold_blank_lines_and_brackets_that_are_no_tags():
    [r] = read(DEAL_TAG + "{ one\n\n  two [x] \n\n[note] three\n\n  [1] four }\n[Event \"e\"]\n")
    assert r.errors == [] and r.tags["Event"] == "e"


def test_games_are_counted_as_they_are_read_whatever_the_encoding():
    nbsp = (DEAL_TAG + "\n\u00a0\n\n" + DEAL_TAG).encode()     # a line of a UTF-8 space only
    assert count_games(io.BytesIO(nbsp)) == len(read(nbsp)) == 2


@pytest.mark.parametrize("header", ['[Deal "##x"]', '[Ev-ent "##x"]', '[Event "##x\ty"]'])
def test_a_header_game_with_a_bad_tag_is_counted_as_the_record_it_is_read_as(header):
    """A game of ``##`` values alone that the reader reports (a tag PBN forbids to inherit, a
    bad tag name, a tab) is a record; ``count_games`` took it for a header game, no record."""
    data = (header + "\n\n" + DEAL_TAG).encode()
    records = read(data)
    assert len(records) == 2 and records[0].errors
    assert count_games(io.BytesIO(data)) == 2


def test_a_header_game_with_a_comment_left_open_is_counted_as_the_record_it_is_read_as():
    """The reader reports a { comment left open, so the game is a record, not a header game:
    ``count_games`` skipped the comment and took the game for a header."""
    data = ('[Event "##x"] {\n\n' + DEAL_TAG).encode()
    records = read(data)
    assert len(records) == 2 and "comment is not closed" in records[0].errors[0]
    assert count_games(io.BytesIO(data)) == 2


@pytest.mark.parametrize("section", ["l", '"text" word', "; note\nword"])
def test_a_header_game_with_section_data_is_counted_as_no_record(section):
    """A header game's tag may have section data (read without an error, the game still a
    header): ``count_games`` counted it as a game, one more than were read."""
    data = (f'[Event "##x"] {section}\n\n' + DEAL_TAG).encode()
    [record] = read(data)
    assert record.tags["Event"] == "x" and record.errors == []
    assert count_games(io.BytesIO(data)) == 1


def test_a_stray_closing_brace_is_reported():
    [r] = read(DEAL_TAG + "[Event \"e\"] }\n")
    assert r.errors == ["line 2: '}' without a '{'"]


def test_utf8_outside_tag_values_and_suit_symbols_in_the_play():
    [r] = read(DEAL_TAG + '[Play "N"]\n♠A ♥a ♦A ♣A\n*\n')
    assert r.errors == [] and r.play.tricks == ((Card.parse("SA"), Card.parse("HA"), Card.parse("DA"),
                                                 Card.parse("CA")),)
    [bad] = read("héllo\n" + DEAL_TAG)
    assert bad.errors == ["line 1: text outside a tag: 'héllo'"]


def test_a_dos_end_of_file_mark_is_no_game():
    assert len(read(DEAL_TAG + "\x1a")) == 1 and read(DEAL_TAG + "\n\x1a\n")[0].errors == []
    # (files joined as they were, each with its mark: the mark's line ends the game before it)
    assert [r.line for r in read(DEAL_TAG + "\x1a\n" + DEAL_TAG)] == [1, 3]


def test_a_percent_line_opens_no_comment():
    """Its ``{`` is text: the blank line after it ends the game, and the next game's comment
    is a comment of its own."""
    records = read(DEAL_TAG + "% a note {\n\n{ the next\ngame }\n" + DEAL_TAG)
    assert [(r.line, r.errors) for r in records] == [(1, []), (4, [])]


def test_an_empty_deal_tag_is_said_to_be_empty():
    [r] = read('[Deal ""]\n')
    assert r.errors == [] and r.missing_deal() == "line 1: the [Deal] is empty"


def test_a_comment_open_past_its_lines_keeps_the_game_going_no_more(monkeypatch):
    """Past ``MAX_COMMENT_LINES`` a blank line ends the game again: the text after it is read
    (here an error of its own record), not taken silently as more of the comment."""
    monkeypatch.setattr(pbn, "MAX_COMMENT_LINES", 5)
    records = read(DEAL_TAG + "{ never closed\n" + "x\n" * 6 + "\ny\n\n" + DEAL_TAG)
    assert [(r.line, r.errors) for r in records] == [
        (1, ["line 2: { comment is not closed (a '}' missing?)"]),
        (10, ["line 10: text outside a tag: 'y'"]), (12, [])]


def test_a_long_string_reads_in_little_memory():
    import tracemalloc
    value = "x" * 2_000_000
    tracemalloc.start()
    try:
        [r] = read(f'[Event "{value}"]\n[Event "{value}\n')
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert r.tags["Event"] == value and "closing quote is missing" in r.errors[-1]
    assert peak < 60_000_000        # the input's own copies; no per-character regex stack


def _peak(read: object) -> int:
    import tracemalloc
    tracemalloc.start()
    try:
        read()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("between", [b"\n", b" \n", b"; note\n\n"])
def test_lines_between_games_read_in_little_memory(between):
    """A run of empty lines, or of comment-only games, between two games was held as a list of
    lines and joined: about 90 bytes of memory for each byte of empty lines (1 MB of them,
    89 MB), 44 for comments; a run may be any length."""
    run = between * (200_000 // len(between))
    data = (DEAL_TAG + "\n\n").encode() + run + DEAL_TAG.encode()
    records: list = []
    assert _peak(lambda: records.extend(read_records(io.BytesIO(data)))) < 4 * len(run)
    assert len(records) == 2 and b"".join(r.before + r.raw + r.after for r in records) == data
    assert _peak(lambda: count_games(io.BytesIO(data))) < 2 * len(run)


def test_counting_a_game_of_many_tokens_takes_little_memory():
    """count_games listed a game's tokens to see whether it had any but comments: 71 bytes
    of memory for each byte of a game of one-character words."""
    data = (DEAL_TAG + "\n[Play \"N\"]\n" + "- " * 200_000 + "\n").encode()
    assert _peak(lambda: count_games(io.BytesIO(data))) < 6 * len(data)


def test_a_game_of_many_small_tokens_reads_in_little_memory():
    """A game's tokens were listed as tuples (about 130 bytes of memory each) and every
    section's words kept with their lines: a 1 MB section of one-letter words after a [Note]
    took 110 MB, one after a [Play] 120 MB (a game may hold 16 MiB)."""
    words = "a " * 50_000 + "\n"  # as many bytes a byte as at 200_000, in a quarter of the time
    data = (DEAL_TAG + '[Note "x"]\n' + words).encode()
    records: list = []
    assert _peak(lambda: records.extend(read_records(io.BytesIO(data)))) < 20 * len(data)
    assert records[0].sections["Note"] == words.strip() and records[0].errors == []
    play = (DEAL_TAG + '[Play "N"]\n' + "- " * 50_000 + "\n").encode()
    records.clear()
    assert _peak(lambda: records.extend(read_records(io.BytesIO(play)))) < 80 * len(play)
    assert len(records[0].play.tricks) == 12_500


def test_a_game_of_many_errors_or_lines_reads_in_little_memory():
    """Every error of a game was held until the first MAX_ERRORS were kept (a 1 MB game of
    repeated tags: 17 MB of them), every line start was a list's int (36 bytes a line), and a
    game's lines were joined in one b"".join (80 bytes a line more)."""
    data = (DEAL_TAG + '[A ""]' * 25_000 + "\n").encode()  # as many bytes a byte as at 100_000
    records: list = []
    assert _peak(lambda: records.extend(read_records(io.BytesIO(data)))) < 66 * len(data)
    assert len(records[0].errors) == pbn.MAX_ERRORS and records[0].more_errors == 24_999 - pbn.MAX_ERRORS
    lines = (DEAL_TAG + "; x\n" * 50_000).encode()
    assert _peak(lambda: count_games(io.BytesIO(lines))) < 16 * len(lines)
    assert _peak(lambda: records.extend(read_records(io.BytesIO(lines)))) < 25 * len(lines)


def test_a_line_past_the_limit_is_cut_reported_and_the_games_after_it_read():
    """A file without line ends (a binary file by mistake) was held whole as one line."""
    long_line = '[Event "' + "x" * (MAX_LINE + 10) + '"]\r\n'
    data = (DEAL_TAG + "\n" + '[Board "2"]\n' + long_line + DEAL_TAG + "\n" + '[Board "3"]\n' + DEAL_TAG).encode()
    records = read(data)
    assert [r.line for r in records] == [1, 3, 7] and count_games(io.BytesIO(data)) == 3
    assert records[1].errors[0] == f"line 4: longer than {MAX_LINE:,} bytes: cut there (not a PBN file?)"
    assert records[1].raw.endswith(b"x" * 100 + b"\r\n" + DEAL_TAG.encode()) and len(records[1].raw) < MAX_LINE + 100
    assert records[2].tags["Board"] == "3" and not records[2].errors


def test_a_cut_line_without_a_game_is_still_reported():
    records = read(b"%" + b"\r" * (MAX_LINE + 1) + b"\n\n" + DEAL_TAG.encode())
    assert len(records) == 2 and records[0].errors == [
        f"line 1: longer than {MAX_LINE:,} bytes: cut there (not a PBN file?)"]   # its CRs no line ends
    assert records[1].line == 3 and records[1].deal is not None


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32-le"])
def test_a_line_past_the_limit_is_cut_in_utf16_and_utf32_too(encoding):
    data = (";" + "é" * (MAX_LINE + 5) + "\r\n" + DEAL_TAG + "\n;" + "x" * (MAX_LINE + 1)).encode(encoding)
    first, second = read(data)
    assert [first.errors, second.errors] == [[f"line {n}: longer than {MAX_LINE:,} bytes: cut there "
                                              f"(not a PBN file?)"] for n in (1, 4)]
    assert first.deal is not None and first.raw.endswith(b"\xc3\xa9\r\n" + DEAL_TAG.encode())
    assert len(first.raw) < 3 * MAX_LINE and second.raw == b";" + b"x" * (MAX_LINE - 1)


def test_a_game_past_the_limit_ends_there_and_the_next_starts(monkeypatch):
    monkeypatch.setattr(pbn, "MAX_GAME_BYTES", 1000)
    data = ('[Event "x"]\n' + "{c}\n" * 300 + "\n" + DEAL_TAG).encode()    # 1211 bytes, then a game
    records = read(data)
    assert [r.line for r in records] == [1, 303] and count_games(io.BytesIO(data)) == 2
    assert records[0].errors == ["line 249: a game longer than 1,000 bytes ends there "
                                 "(no blank line between games? not a PBN file?)"]
    assert records[1].before.startswith(b"{c}") and records[1].deal is not None and not records[1].errors
    assert b"".join(r.before + r.raw + r.after for r in records) == data


def test_games_up_to_counts_games_not_the_comments_between_them():
    """A comment between games, a blank line after it, counted as a game: the service refused
    a body of 8 games, each after such a comment, as 'more than 10 games' (its
    HEARTS_DD_ANNOTATE_MAX_RECORDS 10), and 6,000 small ones under the default 10,000."""
    body = "".join(f"% game {i}\n\n{{ its comment }}\n\n; and more\n\n{DEAL_TAG}\n" for i in range(8)).encode()
    assert len(read(body)) == count_games(io.BytesIO(body)) == 8
    assert pbn.games_up_to(io.BytesIO(body), 10) == 8
    assert pbn.games_up_to(io.BytesIO(b"{ open\n\n" + DEAL_TAG.encode()), 10) == 2   # (as read)


def test_a_game_reports_at_most_twenty_errors():
    [r] = read(DEAL_TAG + '[Play "N"]\n' + "S1 " * 500 + "\n")
    assert len(r.errors) == 20 and r.more_errors == 480
    assert error_text(r.errors, r.more_errors).endswith("; and 480 more errors")
    assert error_text(["x"], 1) == "x; and 1 more error" and error_text([]) is None


def test_crlf_and_lf_files_give_the_same_records():
    lf = read((PBN / "three_test_records.pbn").read_bytes())
    crlf = read((PBN / "three_test_records_crlf.pbn").read_bytes())
    assert lf == crlf and [r.line for r in lf] == [r.line for r in crlf]


# -- the format's corners -----------------------------------------------------------------------
@pytest.mark.parametrize("encoding", ["utf-8", "latin-1"])
def test_utf8_and_latin1_values(encoding):
    [r] = read('[Site "Liège"]\n[Deal "E:- A.K.Q.J 2.3.4.5 -"]\n'.encode(encoding))
    assert r.tags["Site"] == "Liège"


@pytest.mark.parametrize("encoding, mark", [
    ("utf-16", False), ("utf-16-be", True), ("utf-16-le", True), ("utf-32", False),
    ("utf-32-be", True), ("utf-32-le", True), ("utf-16-be", False), ("utf-16-le", False),
    ("utf-32-be", False), ("utf-32-le", False)])
def test_utf16_and_utf32_with_or_without_a_byte_order_mark_read_as_utf8(encoding, mark):
    """Windows' "Unicode" text: its bytes split at 0x0A were no lines, and every tag was bad
    (UTF-32's mark, FF FE 00 00, was taken for UTF-16's)."""
    text = "\n" + (PBN / "three_test_records.pbn").read_text(encoding="utf-8") + (
        '\n[Site "Liège"]\n[Deal "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. -"]\n')
    data = ("\ufeff" if mark else "").encode(encoding) + text.encode(encoding)
    got, want = read(data), read(text.encode("utf-8"))
    assert [(r.tags, r.deal, r.errors, r.line) for r in got] == [(r.tags, r.deal, r.errors, r.line)
                                                                  for r in want]
    assert got[-1].tags["Site"] == "Liège"
    assert count_games(io.BytesIO(data)) == len(got)        # (a progress bar's total)


@given(st.lists(st.sampled_from([b"a", b"\r", b"\n", b"\r\n"]), max_size=12).map(b"".join))
def test_line_ends_split_as_the_plain_rule_says(data):
    """Each CR that no LF follows (after any more CRs) ends a line; CR CR LF is one line end. The
    rule as a plain regular expression, which took time quadratic in a run of CRs."""
    lines = re.findall(rb"[^\n]*\n|[^\n]+\Z", data)
    plain = [part for line in lines for part in re.split(rb"(?<=\r)(?!\r*\n)", line) if part]
    assert list(pbn._split_lines([data])) == plain
    text = data.decode()
    assert pbn._decode(data) == re.sub("\r(?!\r*\n)", "\n", text)
    assert pbn._LINE_END.sub(b"\n", data) == re.sub(rb"\r*\n|\r", b"\n", data)


def test_a_long_run_of_crs_reads_in_time_linear_in_its_length():
    """A run of 40,000 CRs took 0.7 s and 400,000 over a minute: each CR looked at those after it."""
    import time
    for tail in (b"\n", b"x\n"):
        started = time.process_time()  # (its own CPU time: not the machine's load)
        records = read(b'[Event "x"]' + b"\r" * 400_000 + tail + DEAL_TAG.encode())
        assert time.process_time() - started < 10 and len(records) == (1 if tail == b"\n" else 2)
    assert pbn.line_end(b"\r" * 400_000 + b"x") == b"\r" and not pbn.ends_a_game(b"\r" * 400_000 + b"x")


def test_lone_cr_line_ends_read_as_lf():
    """A classic Mac's text: the file was one line to the reader, and no game at all."""
    text = (PBN / "three_test_records.pbn").read_bytes().replace(b"\r\n", b"\n")
    data = text.replace(b"\n", b"\r")
    got, want = read(data), read(text)
    assert len(want) == 3
    assert [(r.tags, r.deal, r.play, r.errors, r.line) for r in got] == [
        (r.tags, r.deal, r.play, r.errors, r.line) for r in want]
    assert count_games(io.BytesIO(data)) == 3


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_a_classic_mac_file_past_the_line_limit_reads_every_game(encoding):
    """Lone CRs were split off only after a line was cut at MAX_LINE: a classic Mac's file of
    over 4 MiB was one line cut there, and every game in it lost but a broken first one."""
    game = (PBN / "three_test_records.pbn").read_bytes().replace(b"\r\n", b"\n").decode().strip("\n")
    games = MAX_LINE // len(game) + 2
    text = "\n\n".join([game] * games) + "\n"
    data = text.replace("\n", "\r").encode(encoding)
    got = read(data)
    want = read(text.encode())
    assert len(got) == len(want) == 3 * games
    assert [(r.tags, r.deal, r.errors, r.line) for r in got[-3:]] == [
        (r.tags, r.deal, r.errors, r.line) for r in want[-3:]]
    assert not any(r.errors for r in got) and count_games(io.BytesIO(data)) == 3 * games


def test_a_cut_line_ended_by_a_lone_cr_ends_there():
    """A line past the limit that a lone CR ends is cut there; the lines after it are read."""
    deal = DEAL_TAG.strip().encode()
    data = b'[Event "' + b"x" * (MAX_LINE + 10) + b'"]\r' + deal + b"\r\r" + deal
    first, second = read(data)
    assert first.errors[0] == f"line 1: longer than {MAX_LINE:,} bytes: cut there (not a PBN file?)"
    assert first.deal is not None and second.line == 4 and second.deal is not None


@pytest.mark.parametrize("end", [b"\r\n", b"\r\r\n", b"\r"])
def test_every_line_end_counts_lines_as_lf_does(end):
    """CR CR LF (CR LF text written again in text mode) is one line end, as it always was: read
    as a lone CR and then an LF, it put errors three lines further down each game."""
    text = (b'[Event "a"]\n[Deal "N:A... K... Q..."]\n\n[Event "b"]\n[Deal "N:A... K... Q... J..."]\n'
            b'[Play "N"]\nSA SK XX SJ\n')
    want = [r.errors for r in read(text)]
    assert want == [["line 2: [Deal] expected 4 hands separated by spaces, found 3"],
                    ["line 7: [Play] bad card 'XX'"]]
    assert [r.errors for r in read(text.replace(b"\n", end))] == want


def test_a_bom_and_a_deal_from_any_seat_with_one_hand_missing():
    [r] = read(b'\xef\xbb\xbf% header\n[Deal "S:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. -"]\n')
    assert r.errors == []
    suit = {seat: r.deal.hands[seat] for seat in Seat}
    assert suit == {Seat.S: 0x1FFF, Seat.W: 0x1FFF << 16, Seat.N: 0x1FFF << 32,
                    Seat.E: 0x1FFF << 48}                      # E, the "-" hand: every club


def test_partial_deal_only_borrows_an_agreeing_deal_of_the_same_board():
    full = '[Board "4"]\n[Deal "N:A.K.Q.J 2.3.4.5 3.4.5.6 4.5.6.7"]\n\n'
    same = '[Board "4"]\n[Deal "N:A.K.Q.J - - -"]\n\n'
    clash = '[Board "4"]\n[Deal "N:2.K.Q.J - - -"]\n\n'
    other = '[Board "5"]\n[Deal "N:A.K.Q.J - - -"]\n'
    records = read(full + same + clash + other)
    assert records[1].deal == records[0].deal
    assert records[2].deal is None and records[2].partial_hands[Seat.N] is not None
    assert records[3].deal is None


@pytest.mark.parametrize("deal, words", [
    ("N:... - - -", "no cards"),                # (not "gives only the hands of N": it gives none)
    ("N:AKQJT98765432... .AKQJT98765432.. .AKQJT98765432.. -", "card HA appears twice"),
    ("N:AKQJT98765432... - - AKQJT98765432...", "card SA appears twice"),
])
def test_a_deal_with_a_hand_missing_is_checked_as_a_whole_one(deal, words):
    """The hands given are checked before a missing hand is filled in or the deal is left
    partial: a card given twice is named (a hand filled in would get the rest of the deck),
    and hands given empty hold no cards (not "only the hands of N")."""
    [r] = read(f'[Deal "{deal}"]\n')
    assert r.deal is None and any(words in e for e in r.errors), r.errors


def test_a_game_without_a_deal_takes_none():
    [r] = read('[Event "x"]\n')
    assert r.deal is None and r.missing_deal() == "line 1: the game has no [Deal]"


def test_inheritance_hash_and_double_hash():
    text = ('[Event "##Club night"]\n[Date "2024.01.01"]\n[Deal "N:A... .A.. ..A. ...A"]\n\n'
            '[Date "#"]\n[Board "2"]\n\n'
            '[Event "Day two"]\n\n'
            '[Event "#"]\n\n'
            '[Site "x"]\n')
    r = read(text)
    assert [x.tags.get("Event") for x in r] == ["Club night", "Club night", "Day two", "Day two", None]
    assert r[1].tags["Date"] == "2024.01.01"
    assert "Deal" not in r[1].tags                              # Deal is never inherited


def test_play_columns_annotations_and_the_end_marks():
    text = ('[Deal "N:A... .A.. ..A. ...A"]\n[Play "e"]\n'
            'ha! =1= $200 ;comment\n{c} da sa ^R CA\n- + - -\n*\n[Note "1:x"]\n')
    [r] = read(text)
    assert r.errors == []
    assert r.play == RecordedPlay(Seat.E, ((Card.parse("HA"), Card.parse("DA"), Card.parse("SA"), Card.parse("CA")),
                                           ("-", "+", "-", "-")))
    assert r.play.line == 2


def with_play(section: str, first: str = "N"):
    """The one record of a small deal with ``[Play "first"]`` and ``section``."""
    [r] = read(f'[Deal "N:AK... .AK.. ..AK. ...AK"]\n[Play "{first}"]\n{section}\n')
    return r


@pytest.mark.parametrize("section, words", [
    ("SA HA DA CA\nSK HK DK CK + - - -\nS2", "in a trick after the '+'"),
    ("SA * HA", "after the closing '*'"),
    ('"SA"', "unexpected string"),
    ("S10 ^X", "bad irregularity"),
    ("SA ! ?", "more than one suffix"),
    ("SA $7 $8", "more than one suffix"),         # (NAGs 7 to 12 are suffixes)
    ("SA $256", "bad NAG '$256'"),
    ("SA $6", "NAG $6 is for calls"),
    ("SA =33=", "bad note reference '=33='"),
    ("SA =1= =2=", "more than one note reference"),
    ("SA HA DA ^R", "^R at the end of the section"),
    ("SA ^R - DA", "^R must precede a card, not '-'"),
])
def test_play_section_errors(section, words):
    r = with_play(section)
    assert any(words in e for e in r.errors), r.errors


@pytest.mark.parametrize("section", [
    "SA! $255 =32= HA $7 =1= DA ^R CA",      # each mark at the top of its range, one a card
    "^R SA ^L H10 D10 C10",                  # an irregularity marks one card only; 10 for T
    "SA HA DA CA\n+ - - -",
])
def test_play_sections_within_the_rules_read_without_error(section):
    r = with_play(section)
    assert r.errors == [] and r.play.tricks[0][0] == Card.parse("SA")


def test_an_empty_play_tag_without_a_section_is_no_play():
    r = with_play("", first="")
    assert r.errors == [] and r.play is None


def test_cards_after_the_closing_star_are_one_error():
    r = with_play("SA * HA DA CA")
    assert [e for e in r.errors if "after the closing" in e] == ["line 3: [Play] 'HA' after the closing '*'"]


def test_a_bad_card_of_the_play_keeps_its_place_in_the_trick():
    """The cards after it stay with the seats that played them."""
    r = with_play("SA HX DA CA")
    assert any("bad card 'HX'" in e for e in r.errors), r.errors
    assert r.play.tricks == ((Card.parse("SA"), "-", Card.parse("DA"), Card.parse("CA")),)


def test_a_string_left_open_in_the_play_at_a_crlf_line_end_is_an_error_of_one_line():
    """The message showed the string as it was, with the CR of the CR LF that ended it: the
    error was two lines, and the [HeartsError] tag written of it split across them, read back
    as a string not closed and text of the game."""
    [r] = read(b'[Deal "N:AK... .AK.. ..AK. ...AK"]\r\n[Play "N"]\r\n"SA\r\n')
    assert r.errors == ["line 3: string is not closed", "line 3: [Play] unexpected string '\"SA\\r'"]
    annotated = annotated_game(r, {"error": error_text(r.errors)})
    [again] = read(annotated)
    assert again.tags["HeartsError"].endswith("unexpected string '\"SA\\r'")
    assert again.sections == {} and again.errors == r.errors


def test_a_tag_without_its_closing_bracket_ends_at_its_value_not_at_the_comments_after_it():
    """Its end was that of the comments after it: an annotation tag so cut was removed with
    them, and where one was a { comment left open, the game written back was the rest of its
    tag line alone, or nothing, and the game was lost (a record fewer read back)."""
    data = b'[E "1"]\n\n[HeartsOptimumTable ""{ note'
    records = read(data)
    assert records[1].annotation_spans == ((0, 22),)
    kept = annotated_game(records[1], {"error": "line 3: x"})
    assert kept == b"{ note" and len(read(data[:9] + kept)) == 2


def test_absurd_rules_are_an_error_not_a_crash():
    """Nesting past every Python's limit: 3.13's json takes about 10000 levels (3.11's 1000),
    so 5000 were parsed there and the error was the text ending early, not the nesting."""
    [r] = read(b'[HeartsRules "{\\"a\\": ' + b"[" * 50000 + b'"]\n')
    assert r.errors == ["line 1: [HeartsRules] rules are not valid JSON: nested too deeply"]
    [long] = read(b'[HeartsRules "' + b"x" * 5000 + b'"]\n')
    assert len(long.errors[0]) < 250 and "unknown preset" in long.errors[0]


def test_hearts_tags():
    [r] = read('[Deal "N:A... .A.. ..A. ...A"]\n[HeartsRules "{\\"preset\\": \\"spot\\"}"]\n'
               '[HeartsLeader "w"]\n')
    assert r.rules.preset == "spot" and r.leader == Seat.W and r.errors == []
    [bad] = read('[HeartsRules "hearts-of-gold"]\n[HeartsLeader "X"]\n[HeartsPass "sideways"]\n')
    assert len(bad.errors) == 3
    assert "unknown preset 'hearts-of-gold'" in bad.errors[0]
    assert "[HeartsLeader] must be N, E, S or W, got 'X'" in bad.errors[1]
    assert "[HeartsPass] must be left, right, across or hold" in bad.errors[2]


def test_passed_cards_must_be_in_the_receivers_hands():
    deal = "N:AKQ.AKQJT.AK.AKQ JT9.987.QJT9.JT9 8765.654.876.876 432.32.5432.5432"
    good = "N:J..Q.J 8.6.8. 4..5.5 A.K..A"        # N passed SJ DQ CJ left, to E, who holds them
    [r] = read(f'[Deal "{deal}"]\n[HeartsPass "left"]\n[HeartsPassed "{good}"]\n')
    assert r.errors == [] and r.passing.receiver(Seat.N) == Seat.E
    assert r.passing.to_json()["cards"]["N"] == "SJ DQ CJ"
    [wrong] = read(f'[Deal "{deal}"]\n[HeartsPass "right"]\n[HeartsPassed "{good}"]\n')
    assert wrong.errors == ["line 3: [HeartsPassed] N passed SJ to W, but the [Deal] gives it to E"]
    [across] = read(f'[Deal "{deal}"]\n[HeartsPass "across"]\n[HeartsPassed "{good}"]\n')
    assert [Passing("across").receiver(s) for s in Seat] == [Seat.S, Seat.W, Seat.N, Seat.E]
    assert across.errors == ["line 3: [HeartsPassed] N passed SJ to S, but the [Deal] gives it to E"]
    [held] = read(f'[Deal "{deal}"]\n[HeartsPass "hold"]\n[HeartsPassed "{good}"]\n')
    assert "'hold'" in held.errors[0]
    # an end position: a passed card played already is in no hand ("gives it to None")
    [end] = read('[Deal "N:AKT76.K.2. Q42.2.74.6 .4.AK83.Q3 .A763.T9.T"]\n[HeartsPass "left"]\n'
                 '[HeartsPassed "N:J..Q.J - - -"]\n')
    assert end.errors == [] and end.passing is not None
    [kept] = read('[Deal "N:AKT76.K.2. Q42.2.74.6 .4.AK83.Q3 .A763.T9.T"]\n[HeartsPass "right"]\n'
                  '[HeartsPassed "N:2..Q.J - - -"]\n')       # S2 is still E's: not passed to W
    assert kept.errors == ["line 3: [HeartsPassed] N passed S2 to W, but the [Deal] gives it to E"]
    [alone] = read(f'[Deal "{deal}"]\n[HeartsPassed "{good}"]\n')
    assert alone.errors == ["line 2: [HeartsPassed] needs a [HeartsPass] tag (left, right or across)"]
    # the passed cards are read as the [Deal] is, with the same messages
    for passed, error in [("X:J..Q.J 8.6.8. 4..5.5 A.K..A", "unknown first seat 'X'"),
                          ("N:J..Q.J  8.6.8. 4..5.5 A.K..A", "hands must be separated by single spaces"),
                          ("N:J..Q.J 8.6.8. 4..5.5", "expected 4 hands separated by spaces, found 3")]:
        [bad] = read(f'[Deal "{deal}"]\n[HeartsPass "left"]\n[HeartsPassed "{passed}"]\n')
        assert bad.errors[0] == f"line 3: [HeartsPassed] {error}"
    # three cards each, none passed by two seats
    for passed, error in [("N:J..Q. 8.6.8. 4..5.5 A.K..A", "N passed 2 cards (3 expected)"),
                          ("N:J..Q.J 8.6.8. 4..5.5 A.K..AK", "W passed 4 cards (3 expected)"),
                          ("N:J..Q.J J.6.8. 4..5.5 A.K..A", "card SJ passed twice")]:
        [bad] = read(f'[Deal "{deal}"]\n[HeartsPass "left"]\n[HeartsPassed "{passed}"]\n')
        assert bad.errors == [f"line 3: [HeartsPassed] {error}"] and bad.passing is None


def test_reading_streams_one_game_at_a_time():
    pulled = 0

    def lines():
        nonlocal pulled
        for board in range(1, 1_000_000):
            pulled += 1
            yield f'[Board "{board}"]\n'.encode()
            yield b'[Deal "N:A... .A.. ..A. ...A"]\n'
            yield b"\n"

    records = read_records(lines())
    assert next(records).tags["Board"] == "1"
    assert next(records).tags["Board"] == "2"
    assert pulled <= 4          # the reader holds the game it is on and the one it just read


# -- writing and round trips ---------------------------------------------------------------------
def test_game_text_round_trip_of_generated_records():
    data = endgame_file(30, seed=3, hand_size=5, play_cards=13, rules="omnibus")
    records = read(data)
    assert all(r.errors == [] and r.play is not None for r in records)
    again = read("\n".join(r.to_pbn() for r in records))
    assert again == records


@pytest.mark.parametrize("name", ["correct_10.pbn", "correct_20.pbn", "correct_21.pbn", "three_test_records.pbn"])
def test_round_trip_of_the_conformance_files(name):
    records = read((PBN / name).read_bytes())
    assert read("\n".join(r.to_pbn() for r in records)) == records


def test_record_bytes_add_up_to_the_input():
    data = (PBN / "correct_10.pbn").read_bytes()
    records = read(data)
    assert b"".join(r.before + r.raw + r.after for r in records) == data


def test_escapes_are_written_back():
    tags = {"Event": 'say "hi" \\ bye', "Deal": "N:A... .A.. ..A. ...A"}
    [r] = read(game_text(tags))
    assert r.tags == tags


# -- fuzzing ------------------------------------------------------------------------------------
PIECES = st.sampled_from([b"[", b"]", b'"', b"\\", b"{", b"}", b";", b"%", b"\n", b"\r\n", b" ", b"\t",
                          b"#", b"##", b"-", b"+", b"*", b"^R", b"$", b"=1=", b"!", b"Deal", b"Play",
                          b"HeartsRules", b"HeartsPassed", b"N:", b"AKQ", b".", b"SA", b"10", b"\xe9",
                          b"\xc3\xa9", b"\xef\xbb\xbf", b"W", b"\xb2", b"\xd9\xa1", b"=\xb2=", b"$\xb2",
                          b'[HeartsRules "', b'[HeartsPassed "', b"[[[[[[[[", b'{\\"values\\": '])
SAMPLE = (PBN / "correct_10.pbn").read_bytes()[:3000]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.binary(max_size=400), st.lists(PIECES, max_size=80).map(b"".join)))
@example(b"\x00\x00\x00\x01")
@example(b"\x01\x00\x00\x00\x00")     # (UTF-32 cut short at the end: its last byte was dropped)
def test_fuzzed_input_never_raises(data):
    """The records' bytes add up to the input, or, for a stream read as UTF-16 or UTF-32 (which
    four bytes such as 00 00 00 01 look like), to its text in UTF-8."""
    records = read(data)
    encoding = pbn.wide_encoding(data[:4])
    if records:
        assert b"".join(r.before + r.raw + r.after for r in records) == (
            data.decode(encoding, "replace").encode() if encoding else data)
    for r in records:
        assert all(isinstance(e, str) and "\n" not in e for e in r.errors)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_mutated_real_files_never_raise(data):
    cut = data.draw(st.integers(0, len(SAMPLE)))
    insert = data.draw(st.lists(PIECES, max_size=5).map(b"".join))
    drop = data.draw(st.integers(0, 20))
    mutated = SAMPLE[:cut] + insert + SAMPLE[cut + drop:]
    records = read(mutated)
    assert b"".join(r.before + r.raw + r.after for r in records) == mutated


def test_a_text_file_or_other_lines_are_named_not_an_attribute_error():
    """Reading a file opened in text mode failed with "'str' object has no attribute
    'startswith'"."""
    with pytest.raises(HeartsError, match="got a line of str .open the file in binary mode"):
        list(read_records(['[Deal "N:A... K... Q... J..."]\n']))
    with pytest.raises(HeartsError, match="lines of bytes, got a line of int"):
        count_games([1, 2])


def _whole_lines_plain(text: str, start: int, end: int) -> tuple[int, int]:
    """``_whole_lines`` as it was: each span read its whole line (time quadratic in a line of
    many annotation tags)."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end + 1
    if not text[line_start:start].strip() and not text[end:line_end].strip():
        start, end = line_start, line_end
    return start, end


@given(st.lists(st.sampled_from(["a", "é", " ", "\t", "\n", "\r", "\x0b", "\x1c", "\x85", "\xa0",
                                 "\u2028", "\u3000"]), max_size=14).map("".join), st.data())
def test_annotation_spans_widen_to_whole_lines_as_the_plain_rule_says(text, data):
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert pbn._whole_lines(text, start, end, lambda pos: pos, text[::-1]) == \
        _whole_lines_plain(text, start, end)


@given(st.lists(st.sampled_from(["a", "é", "€", "\U0001f0a1"]), max_size=10).map("".join),
       st.lists(st.integers(0, 10), max_size=8), st.booleans())
def test_byte_offsets_in_any_order_are_those_of_the_text_before(text, places, bom):
    offsets = pbn._ByteOffsets(text, 3 * bom, text.isascii())
    for pos in places:
        pos = min(pos, len(text))
        assert offsets(pos) == 3 * bom + len(text[:pos].encode("utf-8"))


@pytest.mark.parametrize("separator", [b"\n", b" "])
def test_many_annotation_tags_read_in_time_linear_in_their_number(separator):
    """A game of 55,000 annotation tags with one "é" took 54 s to read (each tag's byte offset
    encoded the text before it), and a line of them 35 s at 4 MB (each read its whole line)."""
    import time
    head = '[Event "é"]\n'.encode() + DEAL_TAG.encode()
    tag = b'[HeartsScore "1"]'
    count = 40_000
    started = time.process_time()  # (its own CPU time: not the machine's load)
    [record] = read(head + (tag + separator) * count)
    assert time.process_time() - started < 10
    if separator == b"\n":      # each tag its own line, removed whole
        want = [(len(head) + k * 18, len(head) + (k + 1) * 18) for k in range(count)]
    else:                       # a line of them, removed whole too (with the blanks between)
        want = [(len(head), len(head) + count * 18)]
    assert list(record.annotation_spans) == want


@pytest.mark.parametrize("between", [b" ", b"", b"\t \t"])
def test_annotation_tags_sharing_a_line_are_removed_with_it(between):
    """Two annotation tags on one line were each removed alone (neither had the line to
    itself), and the blanks left behind were a semi-empty line: annotated again, the game was
    split there, its new annotation tags a second game without a [Deal]."""
    game = DEAL_TAG.encode() + b'[HeartsScore "N 1"]' + between + b'[HeartsShotTheMoon ""]\n'
    [record] = read(game)
    assert record.annotation_spans == ((len(DEAL_TAG), len(game)),)
    again = read(annotated_game(record, {"error": "line 2: x"}))
    assert [(r.deal, r.tags) for r in again] == [(record.deal, {"Deal": record.tags["Deal"],
                                                                "HeartsError": "x"})]


def test_lines_given_in_memory_after_many_empty_ones_read_in_linear_time():
    """Lines given as a list (not a stream) were joined again for each while the reader looked
    for the first four bytes: 100,000 empty ones first took 48 s."""
    import time
    started = time.process_time()  # (its own CPU time: not the machine's load)
    records = list(read_records([b""] * 200_000 + [b'[Event "x"]\n', DEAL_TAG.encode()]))
    assert time.process_time() - started < 5
    assert [(r.tags["Event"], r.line, r.errors) for r in records] == [("x", 200_001, [])]


@given(st.lists(st.lists(st.tuples(st.sampled_from(["Event", "Site", "Deal", "Board"]),
                                   st.sampled_from(["v", "w", "#", "##x", "##y", ""])),
                         min_size=1, max_size=4), max_size=5))
def test_inherited_tags_resolve_as_the_plain_rule_says(games):
    """``#`` and ``##`` as _resolve_tags read them before MAX_DEFAULTS (a game's defaults then
    added one by one), with as few tags as any real file inherits. A game of defaults alone
    (every value ``##``, no [Deal], no tag twice) is a header: no record, its values kept."""
    data = "\n".join("".join(f'[{name} "{value}"]\n' for name, value in game) for game in games)
    last: dict = {}
    defaults: dict = {}
    want = []
    for game in games:
        names = [name for name, _ in game]
        header = ("Deal" not in names and len(set(names)) == len(names)
                  and all(value.startswith("##") for _, value in game))
        resolved: dict = {}
        for name, value in game:
            if name in resolved:
                continue
            if value == "#" or value.startswith("##"):
                if name in pbn.NOT_INHERITED:
                    value = ""
                elif value == "#":
                    value = last.get(name, "")
                    defaults.pop(name, None)
                else:
                    value = value[2:]
                    defaults[name] = value
            elif name in defaults:
                defaults[name] = value
            resolved[name] = value
        for name, value in defaults.items():
            resolved.setdefault(name, value)
        last.update(resolved)
        if not header:
            want.append(list(resolved.items()))
    assert [list(r.tags.items()) for r in read(data.encode())] == want


def test_a_header_game_of_defaults_is_no_record_and_gives_its_values_to_the_games_after_it():
    """PBN's header game ("##" values, no [Deal] or [Play]) read as a game without a [Deal]:
    every file that began with one had a broken record."""
    data = ('% header game\n[Event "##Club"]\n[HeartsRules "##omnibus"]\n\n[Board "1"]\n'
            + DEAL_TAG + '\n[Board "2"]\n[Event "#"]\n' + DEAL_TAG).encode()
    first, second = records = list(read_records(io.BytesIO(data)))
    assert [(r.index, r.line, r.errors) for r in records] == [(0, 5, []), (1, 8, [])]
    assert first.rules == Rules.parse("omnibus") and first.tags["Event"] == "Club"
    assert second.tags["Event"] == "Club" and second.rules == Rules.parse("omnibus")
    assert first.before.startswith(b"% header game") and count_games(io.BytesIO(data)) == 2
    assert b"".join(r.before + r.raw + r.after for r in records) == data
    # a game of defaults that has a problem, a value of its own, a [Deal] or a [Play] is a game
    for game in ('[Event "##Club"]\n[Event "x"]\n', '[Event "##Club"]\n[Play "N"]\n*\n',
                 '[Event "##Club"]\n[HeartsRules "nonsense"\n', '[Event "##Club"]\n[Board "3"]\n'):
        got = read((game + "\n" + DEAL_TAG).encode())
        assert len(got) == 2 and (got[0].errors or got[0].missing_deal()), game
        assert count_games(io.BytesIO((game + "\n" + DEAL_TAG).encode())) == 2


def test_a_pbn_line_opens_a_file_whose_games_inherit_nothing_from_those_before():
    first = '[Event "##Club"]\n[HeartsRules "##omnibus"]\n[Board "3"]\n' + DEAL_TAG
    later = '[Board "3"]\n[Deal "N:A... - - -"]\n'
    carried = read(first + "\n" + later)
    assert carried[1].rules == Rules.parse("omnibus") and carried[1].deal is not None
    for mark in ("% PBN 2.1\n", "% PBN 2.1\n% EXPORT\n\n", "\n%PBN 2.0\r\n"):
        _, fresh = read(first + "\n" + mark + later)
        assert fresh.rules is None and "Event" not in fresh.tags and fresh.deal is None, mark
    _, inside = read(first + "\n" + later + "% PBN 2.1\n")         # (after the game's tags)
    assert inside.rules == Rules.parse("omnibus")
    for text in ("{\n% PBN 2.1\n}\n", "% PBN notes: board 3 was replayed\n"):
        _, kept = read(first + "\n" + text + later)    # (comment text; a comment, no version)
        assert kept.rules == Rules.parse("omnibus"), text


def test_a_deal_missing_says_why_a_board_or_a_tag_in_another_case_did_not_give_it():
    [lower] = read('[deal "N:A... .A.. ..A. ...A"]\n')
    assert lower.missing_deal() == ("line 1: the game has no [Deal] (tag names are "
                                    "case-sensitive: [deal] is not [Deal])")
    full = '[Board "7"]\n[Deal "N:AKJ86.7..K .Q82.AJ9.2 92.T64.Q3. T.A.T8.653"]\n\n'
    _, other = read(full + '[Board "7"]\n[Deal "N:AKT76.K.2. - - -"]\n')
    assert other.errors == [] and other.missing_deal() == (
        "line 5: the [Deal] gives only the hands of N (all four are needed; board 7 read before "
        "has other hands there)")
    _, same = read(full + '[Board "7"]\n[Deal "N:AKJ86.7..K - - -"]\n')
    assert same.errors == [] and same.deal is not None


def test_play_rows_after_a_tag_inside_the_play_are_reported_not_dropped_silently():
    """A [Note] put beside the row it annotates ends the [Play] section (PBN), and the rows
    after it were lost without a word."""
    deal = '[Deal "N:AKT76.K.2. Q42.2.74.6 .4.AK83.Q3 .A763.T9.T"]\n'
    [cut] = read(deal + '[Play "S"]\nC3 CT ST C6 =1=\n[Note "1:nice"]\nDA D9 D2 D4\n*\n')
    assert cut.errors == ["line 5: play after the [Note] tag is not read: a tag ends the [Play] "
                          "section (put [Note] after the play's '*')"]
    assert len(cut.play.tricks) == 1
    [fine] = read(deal + '[Play "S"]\nC3 CT ST C6 =1=\nDA D9 D2 D4\n*\n[Note "1:nice"]\n'
                  '[OptimumResultTable "Declarer;Denomination\\2R;Result\\2R"]\nN S 7\n')
    assert fine.errors == [] and len(fine.play.tricks) == 2
    [words] = read(deal + '[Play "S"]\nC3 CT ST C6\n*\n[Note "1:the club ace"]\n{CA}\n')
    assert words.errors == []
    [ended] = read(deal + '[Play "S"]\nC3 CT ST C6 *\n[Note "1:good"]\nDA D9 D2 D4\n')
    assert ended.errors == ["line 5: cards after the play's '*', in the [Note] tag's section, "
                            "are not read"]


def test_tags_past_the_most_inherited_with_double_hash_stay_in_their_game():
    names = [f"T{k}" for k in range(pbn.MAX_DEFAULTS + 2)]
    first, later = read("".join(f'[{name} "##{name}"]\n' for name in names) + DEAL_TAG
                        + '\n[Event "x"]\n' + DEAL_TAG)
    assert [first.tags[name] for name in names] == names
    assert list(later.tags) == ["Event", "Deal"] + names[:pbn.MAX_DEFAULTS]
    assert first.errors[0] == (f"line {pbn.MAX_DEFAULTS + 1}: tag T{pbn.MAX_DEFAULTS}: more than "
                               f"{pbn.MAX_DEFAULTS} tags are inherited with '##': its value is not "
                               f"carried to later games")
    assert len(first.errors) == 2 and later.errors == []


def test_many_tags_inherited_by_many_games_read_in_linear_time():
    """Each of 10,000 games after 10,000 "##" tags held them all: 17 s (and a 1 MB file of
    them, minutes)."""
    import time
    started = time.process_time()  # (its own CPU time: not the machine's load)
    records = read("".join(f'[T{k} "##v"]\n' for k in range(10_000)) + DEAL_TAG
                   + '\n[Event "x"]\n' * 10_000)
    assert time.process_time() - started < 5
    assert len(records) == 10_001 and len(records[-1].tags) == 1 + pbn.MAX_DEFAULTS


@pytest.mark.parametrize("stream", ["data/sample.pbn", b'[Deal "N:A... .A.. ..A. ...A"]\n'])
def test_a_name_or_bytes_given_whole_is_refused_with_what_to_pass(stream: object) -> None:
    """A file's name was read as lines of one character each (the message blamed a "line of
    str") and bytes as lines of ints ("got a line of int")."""
    with pytest.raises(HeartsError, match=r"got (str|bytes) \(a file: open\(name, 'rb'\); "
                                          r"text in memory: io.BytesIO\(data\)\)"):
        next(read_records(stream))  # type: ignore[arg-type]
