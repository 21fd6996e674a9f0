"""The output formats (solver/writers.py): the wording of the moon story and the rules, and
the csv and pbn columns of an annotated record."""
from __future__ import annotations

import csv
import io
import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver.analysis import Solver
from solver.batch import AnnotateOptions, annotate_record, not_annotated
from solver.errors import HeartsError
from solver.pbn import Record, read_records
from solver.writers import (TEXT_LEGEND, CsvWriter, PbnWriter, TextWriter, Writer, _without,
                            annotated_game, annotation_lines, format_for, make_writer, moon_line,
                            moon_story, rules_text, text_report)

NEVER = {"at_start": False, "at_end": False, "last_forceable": None, "lost_with": None, "segments": []}


def story(moon: dict, complete: bool = True) -> list[str]:
    return moon_story({"moon": {seat: moon.get(seat, NEVER) for seat in "NESW"}, "complete": complete})


def forceable(*segments: dict) -> dict:
    return {**NEVER, "segments": list(segments)}


HANDED = {"from": 20, "to": 24, "given_by": {"trick": 5, "seat": "W", "card": "H8"}, "lost_with": None}
LOST = {"from": 0, "to": 3, "given_by": None, "lost_with": {"trick": 1, "seat": "E", "card": "C4"}}


def test_a_moon_handed_over_names_the_card_and_its_trick():
    """The last card of trick 5 hands it over: the story once said "from trick 6 (handed over
    by W's H8)", against "W H8 at trick 5" in the costly cards of the same report."""
    assert story({"N": forceable(HANDED)}) == ["N could force it from W's H8 at trick 5 to the end"]
    assert story({"E": forceable(LOST)}) == ["E could force it from the start until E's C4 at trick 1"]
    assert story({}) == ["nobody could force one during the recorded play"]


def test_a_play_recorded_in_part_ends_where_its_record_does():
    assert story({"N": forceable(HANDED)}, complete=False) == [
        "N could force it from W's H8 at trick 5 to the end of the recorded play"]


def test_partners_who_share_the_moon_are_one_side_in_the_story():
    both = forceable(LOST)
    assert story({"E": both, "W": both, "N": forceable(HANDED)}) == [
        "N could force it from W's H8 at trick 5 to the end",
        "E/W could force it from the start until E's C4 at trick 1"]


def test_rules_are_named_by_preset_and_what_differs():
    assert rules_text("omnibus") == "omnibus"
    assert rules_text({"preset": "standard", "moon": "none", "partnership": False}) == \
        'standard with moon="none"'


def test_a_record_not_annotated_shows_its_rules_and_one_whose_rules_are_unreadable_none():
    """A record left unannotated (a worker out of memory) said "rules: not read", the words
    of a [HeartsRules] tag that cannot be read, though its rules were fine."""
    record = next(read_records(io.BytesIO(b'[Deal "N:.A97.Q4.5 A84..3.86 .J.972.A4 9.854.J.K"]\n')))
    lines = text_report(not_annotated(record, "out of memory"))
    assert lines[1] == "  N:.A97.Q4.5 A84..3.86 .J.972.A4 9.854.J.K   rules: standard, S leads"
    assert lines[-1] == "  Error: line 1: not annotated: out of memory"
    bad = next(read_records(io.BytesIO(b'[Deal "N:.A97.Q4.5 A84..3.86 .J.972.A4 9.854.J.K"]\n'
                                       b'[HeartsRules "nonsense"]\n')))
    lines = text_report(annotate_record(bad, AnnotateOptions(), Solver(table_mb=1)))
    error = " ".join(line.strip() for line in lines[lines.index(next(
        line for line in lines if line.startswith("  Error: "))):])
    assert "rules" not in lines[1] and "HeartsRules" in error
    assert all(len(line) <= 79 for line in lines)       # (the error wrapped, as every line)


def result(cards: list[dict], play: str, scores: dict | None, **shots: list[str]) -> dict:
    review = {"cards": cards, "moon": {seat: NEVER for seat in "NESW"}, "complete": scores is not None,
              "scores": scores, "shot_the_moon": shots.get("moon", []),
              "shot_the_foot": shots.get("foot", [])}
    return {"index": 0, "line": 1, "deal": "N:...", "rules": "standard", "leader": "N",
            "play": play, "review": review, "error": None}


def cost(card: str, extra: int, kept: int, *best: str) -> dict:
    return {"trick": 3, "seat": "S", "card": card, "guarantee": kept + extra, "best": kept,
            "cost": extra, "best_cards": list(best)}


def test_a_costly_card_says_which_cards_kept_the_best():
    lines = text_report(result([cost("SQ", 14, 0, "S8"), cost("C3", 8, 18, "SK", "ST", "S2"),
                                cost("H9", 1, 2, "D2", "D3", "D4", "D5"), cost("S2", 0, 0)],
                               "C2 C3", None))
    costly = next(line for line in lines if "Costly" in line)
    assert costly == "  Costly cards: S SQ at trick 3 +14 (S8 kept 0),"
    assert lines[lines.index(costly) + 1] == " " * 16 + "S C3 at trick 3 +8 (SK, ST or S2 kept 18),"
    assert lines[lines.index(costly) + 2].strip() == "S H9 at trick 3 +1 (D2, D3, D4 or D5 kept 2)"


def test_the_play_goes_by_tricks_and_says_where_it_stops():
    cards = " ".join(f"{s}{r}" for s in "SHDC" for r in "AKQJT98765432")
    lines = text_report(result([], cards[:3 * 42 - 1], None))
    play = [line for line in lines if line.startswith(("  Play:", "        "))]
    assert play[0].startswith("  Play: SA SK SQ SJ | ST S9 S8 S7 |") and len(play) == 3
    assert all(len(line) <= 79 and not line.endswith("|  ") for line in play)
    tricks = [t.split() for line in play for t in line.removeprefix("  Play:").split("|") if t.strip()]
    assert [len(t) for t in tricks] == [4] * 10 + [2]     # tricks are never split
    assert "  (the recorded play stops after 2 cards of trick 11: no final scores)" in lines
    whole = text_report(result([], cards[:3 * 8 - 1], None))    # two tricks, all four cards
    assert "  (the recorded play stops after trick 2: no final scores)" in whole


def test_each_trick_of_the_play_follows_the_seat_that_led_it(played):
    """The cards alone did not say who played them (read aloud, a trick was four cards):
    each trick now starts with its leader, as the review's cards give it."""
    record, result = played
    lines = text_report(result)
    play = lines[lines.index(next(line for line in lines if line.startswith("  Play:"))):][:2]
    assert play == ["  Play: E C4 C9 D2 C2 -> S | S D8 D3 H6 HK -> S | S H7 H2 H4 CT -> S |",
                    "        S H9 ST S9 SQ -> S | S S7 D7 S4 CJ -> S"]


def test_each_trick_of_the_play_ends_with_the_seat_that_took_it():
    """Who took a trick showed only as the next trick's leader: never for the last trick, and
    a reader had to look ahead to see who took the queen. Each whole trick now ends "-> SEAT":
    the highest card of the suit led, whoever led."""
    cards = [{"trick": n, "seat": seat, "card": "-", "cost": 0} for n, seat in ((1, "W"), (2, "N"))]
    lines = text_report(result(cards, "C2 CQ C9 SA HK H7 HA SQ C3", None))
    assert next(line for line in lines if line.startswith("  Play:")) == \
        "  Play: W C2 CQ C9 SA -> N | N HK H7 HA SQ -> S | C3"


def test_a_shot_moon_is_said_with_the_scores():
    lines = text_report(result([], "C2", {"N": 0, "E": 26, "S": 26, "W": 26}, moon=["N"]))
    assert lines[-1] == "  Scores: N 0, E 26, S 26, W 26; N shot the moon"
    lines = text_report(result([], "C2", {"N": 24, "E": 2, "S": 0, "W": 0}, foot=["N"]))
    assert lines[-1] == "  Scores: N 24, E 2, S 0, W 0; N shot the foot"
    assert text_report(result([], "C2", {"N": 9, "E": 9, "S": 8, "W": 0}))[-1] == \
        "  Scores: N 9, E 9, S 8, W 0"


def test_with_partnerships_the_scores_are_the_sides():
    """Each partner scores the side's total (SPEC §2): "Scores: N 3, E 0, S 3, W 0" read as 6
    for N/S."""
    scores = {"N": 3, "E": 0, "S": 3, "W": 0}
    for rules in ({"preset": "standard", "partnership": True}, "bridge"):
        lines = text_report({**result([], "C2", scores, moon=["E", "W"]), "rules": rules})
        assert lines[-1] == "  Scores: N/S 3, E/W 0; E/W shot the moon", rules
    assert text_report(result([], "C2", scores))[-1] == "  Scores: N 3, E 0, S 3, W 0"


def test_the_passing_says_who_gave_which_cards_to_whom():
    """"Passing left: N SJ DQ CJ; E S8 H6 D8" did not say whether N gave those cards or got
    them: each seat's now says whom it gave them to, by the direction of the pass."""
    cards = {"N": "SJ DQ CJ", "E": "S8 H6 D8", "S": "S4 D5 C5", "W": "SA HK CA"}
    for direction, to in (("left", "ESWN"), ("right", "WNES"), ("across", "SWNE")):
        lines = text_report({**result([], "C2", None), "pass": {"direction": direction, "cards": cards}})
        passing = " ".join(line.strip() for line in lines if "gave" in line)
        assert passing == f"Passing {direction}: " + "; ".join(
            f"{seat} gave {cards[seat]} to {receiver}" for seat, receiver in zip("NESW", to))
        assert all(len(line) <= 79 for line in lines)


def test_the_text_report_explains_its_terms_once_at_its_top():
    out = io.BytesIO()
    writer = TextWriter(out)
    for _ in range(2):
        writer.write(None, result([], "C2", None))  # type: ignore[arg-type]
    text = out.getvalue().decode()
    assert text.startswith("\n".join(TEXT_LEGEND)) and text.count(TEXT_LEGEND[0]) == 1


def test_the_legend_explains_every_term_of_the_report():
    """The seats' table has a "Moon possible" column, a costly card says "(S8 kept 0)" and the
    scores may say "shot the foot": the legend explained none of the three."""
    legend = " ".join(TEXT_LEGEND)
    for term in ("Guarantee:", "Moon possible: it can make sure of taking every point card",
                 "A card's cost:", "and that best guarantee", "Shot the foot: took every point card but"):
        assert term in legend, term


def test_the_text_report_fits_a_terminal_of_80_columns():
    """Lines of up to 100 columns (a long moon story of any length), which an 80-column
    terminal wrapped itself: a card's name split over two lines ("(H" / "Q kept 1)"), and the
    wrapped lines no longer under their first."""
    deal = "N:AKQ.AKQJT.AK.AKQ JT9.987.QJT9.JT9 8765.654.876.876 432.32.5432.5432"
    cards = " ".join(f"{s}{r}" for s in "SHDC" for r in "AKQJT98765432")
    twice = forceable({**LOST, "to": 10, "lost_with": {"trick": 11, "seat": "E", "card": "HQ"}},
                      {**HANDED, "lost_with": {"trick": 12, "seat": "E", "card": "D10"}})
    long = {**result([cost(c, 2, 10, "HQ", "HK") for c in ("H2", "H3", "H4", "H5", "H6")], cards,
                     {"N": 0, "E": 26, "S": 26, "W": 26}),
            "deal": deal, "rules": {"preset": "standard", "moon": "subtract", "first_lead": "free"}}
    long["review"]["moon"]["E"] = twice
    lines = [*TEXT_LEGEND, *text_report(long)]
    assert all(len(line) <= 79 for line in lines), [line for line in lines if len(line) > 79]
    assert lines[len(TEXT_LEGEND) + 1:][:2] == [
        f"  {deal}", '  rules: standard with moon="subtract", first_lead="free", N leads']
    moon = lines[lines.index(next(line for line in lines if line.startswith("  Moon:"))):-1]
    assert len(moon) == 2 and moon[1].startswith(" " * 8 + "H8 at trick 5 until E's D10")


def test_the_text_report_writes_its_own_words_in_ascii(played):
    """The report is written as UTF-8 bytes, past the ASCII fallback of analyze's report: the
    trick takers' "→" came out as "â†’" on a console in cp1252. Its own words are ASCII (text
    from the input is as it is)."""
    record, result = played
    assert all(line.isascii() for line in [*TEXT_LEGEND, *text_report(result)])


def test_the_legend_says_an_end_position_starts_at_trick_1():
    """Board 2 of data/sample.pbn, seven cards a hand, is played from trick 1: S must lead C3,
    the lowest club, and no points go on it (docs/hand-records.md), which the report, read
    alone, left to be taken for a mid-hand position."""
    legend = " ".join(line.strip() for line in TEXT_LEGEND)
    assert ("An end position (fewer than 13 cards a hand) is played as a whole hand: its first "
            "trick is trick 1") in legend


def test_the_passing_is_shown_when_the_record_gives_it():
    passing = {**result([], "C2", None), "pass": {"direction": "left", "cards": {"N": "S2 HQ DA"}}}
    assert "  Passing left: N gave S2 HQ DA to E" in text_report(passing)
    held = {**result([], "C2", None), "pass": {"direction": "hold", "cards": {}}}
    assert "  No passing (hold)" in text_report(held)
    # a [HeartsPass] without the [HeartsPassed] cards: the direction alone
    unsaid = {**result([], "C2", None), "pass": {"direction": "right", "cards": {}}}
    assert [line for line in text_report(unsaid) if "assing" in line] == ["  Passing right"]


# -- a record annotated by the solver: the csv and pbn columns against its review ------------
# E leads with 5 cards a hand and could force the moon, but gives it up with C4 (best: CJ or
# CT); E's later HK and SQ cost more, and S, handed the hearts, takes every point card.
PLAYED = ('[Deal "N:94.64..2 Q.K..JT4 7.97.8.9 T.2.732."]\n[HeartsLeader "E"]\n'
          '[HeartsRules "{\\"first_lead\\": \\"free\\"}"]\n[Play "E"]\n'
          "C4 C9 D2 C2\nHK D8 D3 H6\nCT H7 H2 H4\nSQ H9 ST S9\nCJ S7 D7 S4\n*\n")


@pytest.fixture(scope="module")
def played() -> tuple[Record, dict]:
    [record] = read_records(io.BytesIO(PLAYED.encode()))
    return record, annotate_record(record, AnnotateOptions(), Solver(table_mb=16))


def written(writer: type[Writer], record: Record, result: dict) -> str:
    out = io.BytesIO()
    w = writer(out)
    w.write(record, result)
    w.close()
    return out.getvalue().decode()


def csv_row_of(record: Record, result: dict) -> dict[str, str]:
    """The csv output's one row, by column."""
    [row] = csv.DictReader(io.StringIO(written(CsvWriter, record, result)))
    return row


def pbn_table(record: Record, result: dict, name: str, rows: int) -> list[str]:
    """The pbn output's table tag ``name`` and its first ``rows`` rows."""
    lines = written(PbnWriter, record, result).splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith(f"[{name} "))
    return lines[head:head + 1 + rows]


def moon_table(record: Record, result: dict) -> list[str]:
    """The pbn output's ``HeartsMoonTable`` tag and its four rows."""
    return pbn_table(record, result, "HeartsMoonTable", 4)


def test_the_csv_cost_of_a_seat_is_the_sum_of_its_cards_costs(played):
    """``<seat>_cost`` adds up the points each of the seat's cards cost it, not how many of
    its cards cost something (the two agree only while every cost is 0 or 1)."""
    record, result = played
    cards = result["review"]["cards"]
    costs = {seat: [c["cost"] for c in cards if c["seat"] == seat] for seat in "NESW"}
    assert any(sum(c) != sum(1 for x in c if x) for c in costs.values()), "no cost above 1 to tell"
    row = csv_row_of(record, result)
    assert {seat: int(row[f"{seat}_cost"]) for seat in "NESW"} == {s: sum(c) for s, c in costs.items()}


def test_the_pbn_moon_table_says_at_start_and_at_end_in_their_columns(played):
    """Each ``HeartsMoonTable`` row gives the seat's moon at the start of the play, then at its
    end: here E's is lost on the way and S's handed over, so the two columns differ."""
    record, result = played
    moon = result["review"]["moon"]
    assert {s for s, m in moon.items() if m["at_start"] and not m["at_end"]} == {"E"}
    assert {s for s, m in moon.items() if m["at_end"] and not m["at_start"]} == {"S"}
    table = moon_table(record, result)
    assert table[0] == '[HeartsMoonTable "Seat;AtStart;AtEnd;LastForceable\\2R;LostWith"]'
    rows = [line.split() for line in table[1:]]
    yes = {True: "Yes", False: "No"}
    assert [r[:3] for r in rows] == [[s, yes[m["at_start"]], yes[m["at_end"]]] for s, m in moon.items()]


def test_the_pbn_cost_table_gives_each_card_its_seven_columns(played):
    """A best card has no better cards to name: ``-`` keeps its row's columns."""
    record, result = played
    cards = result["review"]["cards"]
    rows = [line.split() for line in pbn_table(record, result, "HeartsPlayCostTable", len(cards))[1:]]
    assert [len(r) for r in rows] == [7] * len(cards)
    assert [r[6] for r in rows] == [",".join(c["best_cards"]) or "-" for c in cards]
    assert any(r[6] == "-" for r in rows) and any(r[6] != "-" for r in rows)


def test_a_lost_moon_is_given_as_trick_and_card_in_csv_and_pbn(played):
    """``<seat>_moon_lost`` and the moon table's LostWith say ``trick:card`` (``5:HQ``) for the
    card that lost the seat its moon, empty (``-`` in the table) for a seat that lost none."""
    record, result = played
    lost = {s: f"{m['lost_with']['trick']}:{m['lost_with']['card']}"
            for s, m in result["review"]["moon"].items() if m["lost_with"]}
    assert list(lost) == ["E"] and re.fullmatch(r"(1[0-3]|[1-9]):[SHDC][2-9TJQKA]", lost["E"])
    row = csv_row_of(record, result)
    assert {s: row[f"{s}_moon_lost"] for s in "NESW"} == {s: lost.get(s, "") for s in "NESW"}
    assert [line.split()[4] for line in moon_table(record, result)[1:]] == [lost.get(s, "-") for s in "NESW"]


def test_pbn_table_columns_grow_to_their_widest_value():
    """Under rules with values in thousands the guarantees overflowed their 3-wide column."""
    players = {"N": 1500, "E": -2400, "S": 7, "W": 26}
    lines = annotation_lines({"players": {s: {"guarantee": g, "moon_possible": False}
                                          for s, g in players.items()}})
    assert lines == ['[HeartsOptimumTable "Seat;Guarantee\\5R;MoonPossible"]',
                     "N  1500 No", "E -2400 No", "S     7 No", "W    26 No"]
    narrow = annotation_lines({"players": {s: {"guarantee": 7, "moon_possible": True} for s in "NESW"}})
    assert narrow[:2] == ['[HeartsOptimumTable "Seat;Guarantee\\3R;MoonPossible"]', "N   7 Yes"]


def test_the_pbn_tags_of_a_moon_only_run_leave_the_guarantees_out():
    """The ``moon`` command asks no guarantee: no optimum table of half its columns."""
    assert annotation_lines({"players": {s: {"moon_possible": s == "W"} for s in "NESW"}}) == []


def test_the_moon_line_says_who_shot_the_moon():
    shot = {**result([], "C2", {"N": 0, "E": 26, "S": 26, "W": 26}, moon=["N"]), "players": None}
    assert moon_line(shot).endswith("nobody could force one during the recorded play; N shot the moon")
    assert "shot the moon" not in moon_line({**shot, "review": {**shot["review"], "shot_the_moon": []}})


def test_the_moon_line_of_a_record_with_an_error_says_it_alone():
    """``hearts-dd moon`` on a record it could not read: one line, its place and the error."""
    [bad] = read_records(io.BytesIO(b'[Board "2"]\n[Deal "N:A... K... Q... XX..."]\n'))
    assert moon_line(annotate_record(bad, AnnotateOptions(), Solver(table_mb=1))) == \
        "Record 0 (line 1, board 2): error: line 2: [Deal] hand 'XX...': unknown rank 'X' in S"


def test_the_moon_line_names_partners_who_can_force_one_as_their_side():
    """"at the start: E W; E/W could force it ...": two seats at the start, one side after."""
    both = {"moon_possible": True}
    alone = {"moon_possible": False}
    partners = {**result([], "C2", None), "players": {"N": alone, "E": both, "S": alone, "W": both}}
    assert moon_line(partners).startswith("Record 0 (line 1): at the start: E/W; ")
    nobody = {**partners, "players": {s: alone for s in "NESW"}}
    assert moon_line(nobody).startswith("Record 0 (line 1): at the start: nobody; ")


def test_pbn_games_of_files_that_end_without_a_newline_stay_apart():
    """The game after such a file's last line starts two line ends on: one ends that line, a
    blank line ends its game."""
    files = [b'[Deal "N:A... .A.. ..A. ...A"]', b'[Deal "N:.A.. ..A. ...A A..."]']
    out = io.BytesIO()
    w = PbnWriter(out)
    for data in files:
        [record] = read_records(io.BytesIO(data))
        w.write(record, {})
    w.close()
    again = list(read_records(io.BytesIO(out.getvalue())))
    assert [(r.errors, r.deal) for r in again] == [([], r.deal) for data in files
                                                   for r in read_records(io.BytesIO(data))]


def test_annotations_follow_a_game_s_last_line_and_its_encoding():
    """Tags after a game that ends without a line end start a line of their own, and are
    written in the game's encoding (a Latin-1 file stays Latin-1)."""
    [record] = read_records(io.BytesIO('[Event "café"]\n[Deal "N:A... .A.. ..A. ...A"]'.encode("latin-1")))
    out = annotated_game(record, {"error": "a note on the café"})
    assert out == record.raw + '\n[HeartsError "a note on the café"]\n'.encode("latin-1")
    [again] = read_records(io.BytesIO(out))
    assert again.deal == record.deal and again.tags["HeartsError"] == "a note on the café"


@pytest.mark.parametrize("name, fmt", [("OUT.CSV", "csv"), ("a.Txt", "text"), ("x.json", "jsonl"),
                                       ("x.pbn", "pbn"), ("x.tsv", "jsonl"), (None, "jsonl")])
def test_an_output_s_format_follows_its_name_in_any_case(name, fmt):
    assert format_for(name) == fmt


def test_an_unknown_format_is_named():
    with pytest.raises(HeartsError, match="unknown format 'xml' .expected one of csv, jsonl, pbn, text"):
        make_writer("xml", io.BytesIO())


@given(st.binary(max_size=12), st.lists(st.integers(0, 12), max_size=8))
def test_spans_are_cut_out_as_one_by_one_from_the_end(raw, cuts):
    """``_without`` joins what is kept once; cutting the spans out one by one, from the last,
    took time quadratic in their number."""
    cuts = sorted(min(c, len(raw)) for c in cuts)
    spans = list(zip(cuts[::2], cuts[1::2]))
    plain = raw
    for start, end in sorted(spans, reverse=True):
        plain = plain[:start] + plain[end:]
    assert _without(raw, spans[::-1]) == plain


def test_many_annotation_tags_are_removed_in_time_linear_in_their_number():
    """A game of 100,000 annotation tag lines (1.8 MB) took 7 s to write back, and 230,000
    (4 MB) 30 s: each removal copied the rest of the game."""
    import time
    head = b'[Deal "N:A... .A.. ..A. ...A"]\n'
    [record] = read_records(io.BytesIO(head + b'[HeartsScore "1"]\n' * 100_000))
    started = time.process_time()  # (its own CPU time: not the machine's load)
    assert annotated_game(record, {}) == head
    assert time.process_time() - started < 5


def test_csv_text_that_a_spreadsheet_would_run_as_a_formula_is_escaped(played):
    """A ``[Board]`` or file name from the input such as ``=HYPERLINK(...)`` went into its cell
    as it was: opened in a spreadsheet, it ran. Numbers, even negative, and ``-`` (standard
    input) stay as they are."""
    record, result = played
    risky = {**result, "board": '=HYPERLINK("http://x","y")', "file": "@SUM(A1)"}
    row = csv_row_of(record, risky)
    assert row["board"] == "'" + risky["board"] and row["file"] == "'@SUM(A1)"
    tabbed = {**result, "board": "\t=1+2"}    # (a tab or CR first, which some spreadsheets skip)
    row = csv_row_of(record, tabbed)
    assert row["board"].startswith("'")
    plain = {**result, "board": "12", "file": "-", "players": {"N": {"guarantee": -3}}}
    row = csv_row_of(record, plain)
    assert (row["board"], row["file"], row["N_guarantee"]) == ("12", "-", "-3")


def test_the_csv_gives_each_seat_s_score_and_who_shot(played):
    record, result = played
    rv = result["review"]
    assert rv["scores"] is not None
    row = csv_row_of(record, result)
    assert {s: int(row[f"{s}_score"]) for s in "NESW"} == rv["scores"]
    assert (row["shot_the_moon"], row["shot_the_foot"]) == (" ".join(rv["shot_the_moon"]),
                                                            " ".join(rv["shot_the_foot"]))


def test_a_csv_rules_cell_holds_a_rule_object_as_json(played):
    record, result = played
    ruled = {**result, "rules": {"preset": "standard", "moon": "old"}}
    row = csv_row_of(record, ruled)
    assert json.loads(row["rules"]) == ruled["rules"]


ESC, BEL = chr(27), chr(7)
HOSTILE = f"1{ESC}]52;c;ZWNobyBwd25lZA=={BEL}{ESC}[2J{chr(0x9B)}2J{chr(0x202E)}evil{chr(13)}FORGED"


def test_text_from_the_input_reaches_the_text_report_and_moon_lines_escaped():
    """A [Board] of a stranger's file came through to the report as it was: on the terminal of
    whoever ran ``annotate --format text`` or ``moon``, an OSC 52 sequence set the clipboard,
    ``ESC [2J`` cleared the screen, a carriage return overwrote the line and U+202E reversed
    it. Control and bidi characters are escaped, ``\\x1b``, ``\\u202e`` (errors.printable)."""
    tag = HOSTILE.replace(chr(13), "")      # (a carriage return would end the tag's line)
    record = next(read_records(io.BytesIO(f'[Board "{tag}"]\n[Deal "N:.A97.Q4.5 A84..3.86 '
                                          f'.J.972.A4 9.854.J.K"]\n'.encode())))
    result = annotate_record(record, AnnotateOptions(), Solver(table_mb=1))
    assert result["board"] == tag                   # (the data keep it: json and csv escape)
    escaped = r"1\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J\x9b2J\u202eevilFORGED"
    assert text_report(result)[0] == f"Record 0 (line 1, board {escaped})"
    assert moon_line(result).startswith(f"Record 0 (line 1, board {escaped}): ")
    forged = {**result, "board": HOSTILE, "file": "a\nb.pbn"}
    for line in [*text_report(forged), moon_line(forged)]:
        assert not set(line) & {ESC, BEL, chr(0x9B), chr(0x202E), chr(13), chr(10)}, line
    out = io.BytesIO()
    TextWriter(out).write(record, forged)
    report = out.getvalue().decode()
    assert not set(report) & {ESC, BEL, chr(0x9B), chr(0x202E), chr(13)}
    assert "Record 0 (a\\x0ab.pbn line 1" in report


def test_the_machine_formats_write_no_control_or_bidi_character_to_a_terminal():
    """``annotate``'s default output, jsonl to the terminal, carried a [Board]'s U+009B (a
    terminal's CSI) and U+202E as they were (``json`` escapes the C0 controls only), and
    csv every control character: escaped now, jsonl as JSON escapes (the same value read back),
    csv cells as the text report's (errors.printable)."""
    import json
    tag = HOSTILE.replace(chr(13), "")
    record = next(read_records(io.BytesIO(f'[Board "{tag}"]\n[Deal "N:.A97.Q4.5 A84..3.86 '
                                          f'.J.972.A4 9.854.J.K"]\n'.encode())))
    result = annotate_record(record, AnnotateOptions(), Solver(table_mb=1))
    unsafe = {ESC, BEL, chr(0x9B), chr(0x202E), chr(13)}
    out = io.BytesIO()
    make_writer("jsonl", out).write(record, result)
    line = out.getvalue().decode()
    assert not set(line) & unsafe and json.loads(line)["board"] == tag
    assert "\\u009b2J\\u202eevil" in line
    out = io.BytesIO()
    writer = make_writer("csv", out)
    writer.write(record, result)
    writer.close()
    text = out.getvalue().decode()
    assert not set(text) & unsafe
    assert list(csv.DictReader(io.StringIO(text)))[0]["board"] == \
        r"1\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J\x9b2J\u202eevilFORGED"
