"""JSON Lines of positions (solver/position_lines.py) and ``hearts-dd analyze --input``."""
from __future__ import annotations

import io
import json
import os
import random
import re
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from endgames import random_endgame
from signals import as_in_a_terminal, finished, reader_left
from solver.analysis import Solver
from solver.bounded_lines import MAX_LINE
from solver.cards import Seat
from solver.deal import Deal
from solver.errors import HeartsError
from solver.position import Position
from solver.position_lines import LineInput, answer_lines, read_position_lines
from solver.rules import Rules
from strategies import PROPERTY, rule_specs
from terminal import open_terminal, shown

ROOT = Path(__file__).resolve().parent.parent
CASES = [json.loads(text) for f in sorted((ROOT / "tests" / "data").glob("public_*.jsonl"))
         for text in f.read_text().splitlines()]
SMALL = {"deal": "N:A..2. K..3. Q..4. .J.5.", "leader": "N", "rules": {"first_lead": "free"}}


def _driven(*args: str, stderr: int = subprocess.PIPE) -> subprocess.Popen[bytes]:
    """``hearts-dd analyze ARGS`` as a program drives it: its input, output (and standard
    error) pipes of ours, unbuffered, one thread and a small table."""
    return subprocess.Popen([sys.executable, "-m", "solver.cli", "analyze", *args, "--threads", "1",
                             "--table-mb", "16"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=stderr, env={**os.environ, "PYTHONPATH": str(ROOT)}, bufsize=0)


def _asked(proc: subprocess.Popen[bytes], question: dict) -> dict:
    """``question`` written as a line, and the answer read (within 30 s)."""
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write((json.dumps(question) + "\n").encode())
    assert select.select([proc.stdout], [], [], 30)[0], "no answer within 30 s"
    return json.loads(proc.stdout.readline())


FULL = "N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4"
ANSWER_KEYS = ("to_move", "trick", "players", "moves")


def run(*args: str, stdin: str | bytes = "") -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "solver.cli", *args], capture_output=True,
                       input=stdin.encode() if isinstance(stdin, str) else stdin, timeout=300,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    return subprocess.CompletedProcess(p.args, p.returncode, p.stdout.decode(), p.stderr.decode())


def endgame_lines(count: int, seed: str) -> list[dict]:
    """Lines of random endgames under several rule sets, a third of them for one seat."""
    rng = random.Random(seed)
    specs = [{}, {"preset": "omnibus"}, {"partnership": True}, {"preset": "spot", "moon": "none"}]
    out: list[dict] = []
    while len(out) < count:
        s = random_endgame(specs[len(out) % 4], rng, rng.randint(9, 24))
        if s is None:
            continue
        fields = {"deal": s.deal.pbn(), "play": s.play_text, "rules": s.rules.to_dict(), "id": len(out)}
        if s.leader is not None:
            fields["leader"] = str(s.leader)
        if len(out) % 3 == 0:
            fields["player"] = "NESW"[rng.randrange(4)]
        out.append(fields)
    return out


def expected(fields: dict) -> dict:
    """What ``hearts-dd analyze`` answers for the line's fields, one position at a time."""
    pos = Position.from_play(Deal.parse(fields["deal"]), Rules.parse(fields.get("rules")),
                             fields.get("play", ""), fields.get("leader"))
    seats = [Seat.parse(fields["player"])] if fields.get("player") else None
    return answer_part(Solver(table_mb=16).analyze(pos, seats).to_json())


def answer_part(out: dict) -> dict:
    return {key: out[key] for key in ANSWER_KEYS}


@pytest.mark.usefixtures("parallel_at_any_size")
@pytest.mark.parametrize("threads, chunk", [(1, 64), (2, 5), (2, 1)])
def test_answers_are_each_position_analysed_alone_in_input_order(threads: int, chunk: int) -> None:
    lines = endgame_lines(24, "lines")
    got = list(answer_lines(Solver(table_mb=16, threads=threads),
                            read_position_lines(json.dumps(f) for f in lines), chunk))
    assert [out["index"] for out in got] == list(range(len(lines)))
    assert [out["id"] for out in got] == [f["id"] for f in lines]
    assert all(out["error"] is None for out in got)
    assert [answer_part(out) for out in got] == [expected(f) for f in lines]


def test_a_line_not_utf8_is_its_own_error_and_an_id_comes_back_as_sent(tmp_path: Path) -> None:
    """Read with replacement characters, an id of a byte FF came back as U+FFFD, no error."""
    line = '{"deal": "N:A..2. K..3. Q..4. .J.5.", "leader": "N", "id": "%s"}\n'
    path = tmp_path / "in.jsonl"
    path.write_bytes((line % "X").encode().replace(b"X", b"\xff") + (line % "é").encode())
    p = run("analyze", "--input", str(path), "--rules", '{"first_lead": "free"}', "--threads", "1")
    first, second = map(json.loads, p.stdout.splitlines())
    assert p.returncode == 1
    assert first == {"index": 0, "error": "line 1: not UTF-8 text (byte 61)"}
    assert second["id"] == "é" and second["error"] is None


@pytest.mark.parametrize("data, lines", [(b"\xef", ["\udcef"]), (b"\xef\xbb", ["\udcef\udcbb"]),
                                         (b"\xef\xbb\xbf{}", ["{}"]), (b"\xef\xbb\xbf", []),
                                         (b"\xef\xbb\xbf\xef\n", ["\udcef\n"])])
def test_an_input_of_the_start_of_a_bom_alone_is_read_not_lost(data: bytes, lines: list[str]) -> None:
    """An input of 1 or 2 bytes that begin a UTF-8 BOM (0xEF) read as no line at all (the
    "utf-8-sig" decoder held them to see if a BOM followed, and lost them at the end): not
    even its line's error, 'not UTF-8 text'."""
    assert list(LineInput(io.BytesIO(data))) == lines
    [item] = read_position_lines(LineInput(io.BytesIO(b"\xef")))
    assert item.error == "line 1: not UTF-8 text (byte 1)"


@pytest.mark.parametrize("blank", ["\x1d", "\u00a0", " \u3000 "])
def test_a_line_of_unicode_spaces_is_counted_as_it_is_read(blank: str) -> None:
    """Read as blank (``str.strip``) and skipped, but counted as a position by the progress
    bar's total (``bytes.strip`` keeps them): it is a line that is not JSON, counted."""
    data = f'{json.dumps(SMALL)}\n{blank}\n\x0b \n{json.dumps(SMALL)}\n'.encode()
    items = list(read_position_lines(LineInput(io.BytesIO(data))))
    assert [(i.index, i.error and i.error.split(":")[:2]) for i in items] == [
        (0, None), (1, ["line 2", " not JSON"]), (2, None)]
    assert LineInput.count(io.BytesIO(data)) == len(items)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32"])
def test_an_input_of_windows_unicode_text_is_read(tmp_path: Path, encoding: str) -> None:
    """UTF-16, as PowerShell's '>' writes it (the PBN reader reads it): read as UTF-8 each line
    was 'not UTF-8 text', and the zero byte after each newline one more line, 'not JSON'."""
    lines = [json.dumps({**SMALL, "id": "é"}), json.dumps({**SMALL, "play": "D2"})]
    path = tmp_path / "in.jsonl"
    path.write_bytes("\r\n".join(lines + [""]).encode(encoding))
    for p in (run("analyze", "--input", str(path), "--threads", "1"),
              run("analyze", "--input", "-", "--threads", "1", stdin=path.read_bytes())):
        answers = [json.loads(line) for line in p.stdout.splitlines()]
        assert p.returncode == 0, p.stdout
        assert [(a["index"], a.get("id"), a["error"]) for a in answers] == [(0, "é", None), (1, None, None)]


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le"])
def test_a_wide_line_that_is_not_its_encoding_is_its_own_error(encoding: str) -> None:
    """As a line that is not UTF-8: an id with a lone surrogate in UTF-16 came back with U+FFFD
    in its place, not as it was sent."""
    lines = [json.dumps({**SMALL, "id": 1}), json.dumps({**SMALL, "id": "ab\ud800c"}, ensure_ascii=False),
             json.dumps({**SMALL, "id": 3})]
    data = "\ufeff".encode(encoding) + "\n".join(lines).encode(encoding, "surrogatepass")
    items = list(read_position_lines(LineInput(io.BytesIO(data))))
    assert [(i.index, i.id, i.error) for i in items] == [
        (0, 1, None), (1, None, f"line 2: not UTF-16 or UTF-32 text (column {lines[1].index('ab') + 3})"),
        (2, 3, None)]


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_the_progress_bar_counts_the_positions_of_a_wide_input(tmp_path: Path, encoding: str) -> None:
    """Its total counted the lines of the bytes: in UTF-16, each 0x0A and the zero byte after
    it one more line, so the bar of two positions stopped at 2/4."""
    pytest.importorskip("pty")
    lines = [json.dumps(SMALL), json.dumps({**SMALL, "play": "D2"})]
    path = tmp_path / "in.jsonl"
    path.write_bytes("\r\n".join(lines + ["", ""]).encode(encoding))
    leader, follower = open_terminal()
    with open(tmp_path / "out.jsonl", "wb") as out:
        child = subprocess.Popen([sys.executable, "-m", "solver.cli", "analyze", "--input", str(path),
                                  "--threads", "1", "--table-mb", "16"], stdout=out, stderr=follower,
                                 env={**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm"})
    os.close(follower)
    seen = shown(leader)
    assert child.wait(timeout=60) == 0, seen
    assert b"/2 [" in seen and b"/4 [" not in seen, seen


@pytest.mark.parametrize("text, words", [
    ("not json", "line 2: not JSON"),
    ("[1, 2]", "line 2: expected a JSON object, got array"),
    ("[" * 100_000, "line 2: not JSON: nested too deeply"),
    ('{"deal": "abc",\n', "line 2: not JSON: Expecting property name enclosed in double quotes "
                          "at column 16"),                      # where the line ends, not 2:1
    ('{"rules": {"trick_points": 1' + "0" * 5000 + '}}', "line 2: not JSON: a number has too many digits"),
    ('{"deal": "x", "id": NaN}', "line 2: not JSON: NaN is not a JSON number"),   # no answer could hold it
    ('{"deal": "x", "id": 1e999}', "line 2: not JSON: number 1e999 is too large"),
    ('{"deal": "abc', "line 2: not JSON: Unterminated string starting at column 10"),
    (json.dumps(SMALL) + "\r" + json.dumps(SMALL), "line 2: not JSON: Extra data at column 87 (its lines "
                                                  "end in CR alone? JSON Lines ends each line with LF)"),
    (json.dumps({**SMALL, "rules": "[" * 20_000}), "line 2: rules are not valid JSON: nested too deeply"),
    (json.dumps({**SMALL, "ply": "D2"}), "line 2: unknown field 'ply'"),
    (json.dumps({"play": "D2"}), "line 2: no deal"),
    (json.dumps({**SMALL, "play": ["D2"]}), "line 2: play must be a string, got array"),
    (json.dumps({**SMALL, "deal": "N:A..2. K..3. Q..4. .J.2."}), "line 2: "),
    (json.dumps({**SMALL, "rules": {"mooon": "add"}}), "line 2: unknown rule key 'mooon'"),
    (json.dumps({**SMALL, "play": "D3"}), "line 2: trick 1: N cannot play D3: it is E's card"),
    (json.dumps({**SMALL, "leader": "X"}), "line 2: leader: unknown seat 'X'"),
    (json.dumps({**SMALL, "leader": None}), 'line 2: the rules have a free first lead: give the '
                                            'leader ("leader" in the line)'),
    (json.dumps({**SMALL, "player": "north"}), "line 2: player: unknown seat 'north'"),
])
def test_a_bad_line_is_its_own_answer_and_the_others_go_on(text: str, words: str) -> None:
    lines = [json.dumps({**SMALL, "id": "first"}), text, "", json.dumps({**SMALL, "play": "D2"})]
    got = list(answer_lines(Solver(table_mb=16), read_position_lines(lines)))
    assert [out["index"] for out in got] == [0, 1, 2]
    assert got[0]["error"] is None and got[0]["id"] == "first" and got[0]["to_move"] == "N"
    assert got[1]["error"].startswith(words) and "\n" not in got[1]["error"]
    assert set(got[1]) <= {"index", "id", "error"}
    assert got[2]["error"] is None and got[2]["to_move"] == "E"


def test_a_line_past_the_limit_is_an_error_and_not_held():
    """A file with no line ends (a binary file by mistake, /dev/zero) was read as one line,
    held whole until memory ran out."""
    text = "\n".join([json.dumps(SMALL), "[" * (MAX_LINE + 5), json.dumps({**SMALL, "play": "D2"})])
    got = list(answer_lines(Solver(table_mb=16), read_position_lines(io.StringIO(text))))
    assert [out["index"] for out in got] == [0, 1, 2]
    assert got[1] == {"index": 1, "error": f"line 2: longer than {MAX_LINE:,} characters: not read "
                                           f"(not a file of positions?)"}
    assert got[0]["to_move"] == "N" and got[2]["to_move"] == "E"


def test_analyze_input_of_a_long_line_answers_the_others(tmp_path):
    path = tmp_path / "positions.jsonl"
    path.write_bytes(b"\xff" * (MAX_LINE + 1) + b"\r\n" + json.dumps(SMALL).encode() + b"\n")
    p = run("analyze", "--input", str(path))
    answers = [json.loads(line) for line in p.stdout.splitlines()]
    assert p.returncode == 1 and [a["index"] for a in answers] == [0, 1]
    assert answers[0]["error"].startswith("line 1: longer than") and answers[1]["error"] is None


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                 max_size=3), max_leaves=6)
GOOD = st.fixed_dictionaries(
    {"deal": st.just(SMALL["deal"]), "leader": st.sampled_from(list("NESW"))},
    optional={"play": st.sampled_from(["", "D2", "D2 D3", "D2 D3 D4 D5 HJ", "SA SK"]),
              "rules": st.sampled_from(["standard", {"preset": "spot"}, {"first_lead": "C2"}]) | rule_specs(),
              "player": st.sampled_from(list("NESW")), "id": JSON})


def _spoil(line: dict, field: str | None, junk: object) -> dict:
    return line if field is None else {**line, field: junk}


# a good line, or one with a field (or an unknown one) replaced by any JSON value or text
LINES = st.builds(_spoil, GOOD, st.sampled_from([None, None, "deal", "play", "rules", "leader", "player",
                                                 "extra"]), JSON | st.text(max_size=30))


@PROPERTY
@given(st.lists(LINES, max_size=4), st.lists(st.text(max_size=40), max_size=2))
def test_any_line_is_a_position_or_a_one_line_error_naming_it(objects: list[dict], texts: list[str]) -> None:
    lines = [json.dumps(o) for o in objects] + texts
    items = list(read_position_lines(lines, Rules.parse({"first_lead": "free"})))
    for item in items:
        assert (item.position is None) == (item.error is not None)
        if item.error is not None:
            assert item.error.startswith(f"{item.where}: ") and "\n" not in item.error
    answers = list(answer_lines(Solver(table_mb=1), items, chunk=3))
    assert [a["index"] for a in answers] == [item.index for item in items]
    for item, answer in zip(items, answers):
        assert answer["error"] == item.error
        assert ("players" in answer) == (item.error is None)


def test_many_rule_sets_keep_the_default_for_lines_without_rules() -> None:
    """The rule sets read are kept (at most a few hundred): clearing them must keep the
    ``--rules`` default, or later lines without rules would fall back to standard."""
    lines = [json.dumps({**SMALL, "rules": {"first_lead": "free", "trick_points": k}}) for k in range(300)]
    lines.append(json.dumps({"deal": SMALL["deal"], "leader": "N"}))
    default = Rules.parse({"first_lead": "free", "moon": "none"})
    items = list(read_position_lines(lines, default))
    assert [item.position.rules.trick_points for item in items[:300]] == list(range(300))
    assert items[-1].position.rules == default


@pytest.mark.parametrize("ident", [None, 0, "", [1, {"a": None}]])
def test_any_id_given_is_handed_back_even_null(ident: object) -> None:
    """SPEC: the id is handed back whenever the line has one; a line without one gets none."""
    got = list(answer_lines(Solver(table_mb=16), read_position_lines(
        [json.dumps({**SMALL, "id": ident}), json.dumps(SMALL)])))
    assert got[0]["id"] == ident and "id" in got[0] and "id" not in got[1]


def test_a_huge_bad_line_gets_a_short_error() -> None:
    """Its error echoed the whole line (a 200 MB deal: a 200 MB answer line)."""
    item, = read_position_lines([json.dumps({"deal": "N:" + "A" * 1_000_000})])
    assert item.error is not None and len(item.error) < 500 and item.error.startswith("line 1: ")


@pytest.mark.parametrize("given, words", [
    ('{"deal": "N:A..2. K..3. Q..4. .J.5."}', "expected lines of text, got str (a file: open(name)"),
    (b'{"deal": 1}', "expected lines of text, got bytes"),
    (io.BytesIO(b'{"deal": 1}' + bytes([10])), "expected lines of text, got a line of bytes (open the file in text mode"),
    ([{"deal": 1}], "expected lines of text, got a line of dict"),
])
def test_lines_of_anything_but_text_are_one_clear_error(given: object, words: str) -> None:
    """A library caller's whole text in one string would read as one line a character."""
    with pytest.raises(HeartsError, match="^" + re.escape(words)):
        list(read_position_lines(given))  # type: ignore[arg-type]


#: A line without rules or player, and one with its own.
DEFAULTED = [{"deal": FULL, "play": "C2 CA C5 C4 D4 D2 DK D7 S5 SK"},
             {"deal": FULL, "play": "C2 CA C5 C4 D4 D2 DK D7 S5 SK", "rules": "standard", "player": "W"}]


def test_defaults_apply_to_lines_without_rules_or_player() -> None:
    omnibus = Rules.parse("omnibus")
    lines = [json.dumps(line) for line in DEFAULTED]
    first, second = answer_lines(Solver(table_mb=32), read_position_lines(lines, omnibus, Seat.E))
    assert first["rules"]["preset"] == "omnibus" and list(first["players"]) == ["E"]
    assert [m["card"] for m in first["moves"]] == ["SA"]
    assert second["rules"]["preset"] == "standard" and list(second["players"]) == ["W"]
    assert second["moves"] == []


def test_the_command_s_rules_and_player_are_the_defaults_of_its_lines() -> None:
    """``analyze --input --rules --player``: as the library's defaults, for the lines that give
    neither."""
    p = run("analyze", "--input", "-", "--rules", "omnibus", "--player", "e",
            stdin="".join(json.dumps(line) + "\n" for line in DEFAULTED))
    assert p.returncode == 0, p.stderr
    first, second = map(json.loads, p.stdout.splitlines())
    assert first["rules"]["preset"] == "omnibus" and list(first["players"]) == ["E"]
    assert second["rules"]["preset"] == "standard" and list(second["players"]) == ["W"]


@pytest.mark.parametrize("threads", [1, 2])
def test_with_a_time_limit_a_position_out_of_time_is_one_lines_error(threads: int) -> None:
    """The limit holds for each position: those after one that ran out still get their own."""
    lines = [json.dumps({"deal": FULL}), json.dumps(SMALL), json.dumps({"deal": FULL}),
             json.dumps({**SMALL, "play": "D2"})]
    solver = Solver(table_mb=16, time_limit=0.05, threads=threads)
    got = list(answer_lines(solver, read_position_lines(lines)))
    assert got[1]["error"] is None and got[3]["error"] is None
    assert got[0]["error"] == "line 1: no answer within the time limit of 0.05 s"
    assert got[2]["error"] == "line 3: no answer within the time limit of 0.05 s"


def test_the_sample_cases_in_one_process() -> None:
    """tests/data's cases (shared/cases) through one ``analyze --input`` run."""
    lines = [{key: case[key] for key in ("id", "deal", "play", "rules", "leader") if key in case}
             for case in CASES]
    p = run("analyze", "--input", "-", stdin="\n".join(map(json.dumps, lines)) + "\n")
    assert p.returncode == 0, p.stderr
    answers = [json.loads(text) for text in p.stdout.splitlines()]
    assert [a["id"] for a in answers] == [case["id"] for case in CASES]
    for case, got in zip(CASES, answers):
        exp = case["expect"]
        assert got["error"] is None and got["to_move"] == exp["to_move"], case["id"]
        for seat, e in exp["players"].items():
            assert {k: got["players"][seat][k] for k in e} == e, (case["id"], seat)
        if "moves" in exp:
            assert {m["card"]: (m["guarantee"], m["moon_possible"]) for m in got["moves"]} == \
                {m["card"]: (m["guarantee"], m["moon_possible"]) for m in exp["moves"]}, case["id"]
    assert p.stderr.startswith(f"hearts-dd: {len(CASES)} positions, {len(CASES)} answered, 0 with errors")


def test_a_bad_line_makes_exit_1_with_every_answer_written(tmp_path: Path) -> None:
    path = tmp_path / "positions.jsonl"  # as an editor on Windows may save it: a BOM, CR LF
    # ... and a lone CR inside a line, which is JSON whitespace, not a line end
    third = json.dumps({**SMALL, "play": "D2"}).replace(", ", ",\r", 1)
    path.write_bytes(("\ufeff" + "\r\n".join([json.dumps(SMALL), "{", third]) + "\r\n").encode())
    p = run("analyze", "--input", str(path), "--threads", "1")
    assert p.returncode == 1
    answers = [json.loads(text) for text in p.stdout.splitlines()]
    assert [a["error"] is None for a in answers] == [True, False, True]
    assert answers[2]["index"] == 2 and answers[2]["to_move"] == "E"
    assert p.stderr.strip().splitlines() == [p.stderr.strip()]
    assert p.stderr.startswith("hearts-dd: 3 positions, 2 answered, 1 with errors")


@pytest.mark.parametrize("args, words", [
    (["--input", "-", "--deal", FULL], "--deal, --input and --hand cannot be given together"),
    (["--input", "-", "--play", "C2"], "--play, --leader, --line and --samples go with --deal"),
    (["--input", "-", "--samples", "3"], "--play, --leader, --line and --samples go with --deal"),
    (["--input", "-", "--leader", "N"], "--play, --leader, --line and --samples go with --deal"),
    (["--input", "-", "--line", "E"], "--play, --leader, --line and --samples go with --deal"),
    (["--input", "/no/such/file.jsonl"], "/no/such/file.jsonl"),
    (["--input", "-", "--rules", "nonsense"], "nonsense"),
    (["--input", "-", "--time-limit", "nan"], "'nan' is not a number of seconds"),
    (["--input", "-", "--time-limit", "abc"], "'abc' is not a number of seconds"),
])
def test_a_bad_invocation_is_one_line_exit_2(args: list[str], words: str) -> None:
    p = run("analyze", *args, stdin=json.dumps(SMALL) + "\n")
    assert p.returncode == 2 and p.stdout == ""
    assert len(p.stderr.strip().splitlines()) == 1 and words in p.stderr


def test_a_program_gets_each_answer_before_it_writes_the_next_question() -> None:
    """Through a pipe, a chunk does not wait for lines not yet written."""
    proc = subprocess.Popen([sys.executable, "-m", "solver.cli", "analyze", "--input", "-",
                             "--table-mb", "16"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdin is not None and proc.stdout is not None
    with finished(proc):
        for k, play in enumerate(["", "D2", "D2 D3"]):
            proc.stdin.write(json.dumps({**SMALL, "play": play, "id": k}) + "\n")
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], 30)
            assert ready, f"no answer to question {k} within 30 s"
            answer = json.loads(proc.stdout.readline())
            assert answer["id"] == k and answer["error"] is None
            assert answer["to_move"] == "NES"[k]
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0


@pytest.mark.parametrize("threads", [1, 2])
def test_a_reader_that_stops_early_stops_the_search_at_once(threads: int) -> None:
    """(A failed write, say.) The search of the position under way is cancelled, not run to
    its end (minutes, here), and another thread's call on the same solver is left alone."""
    solver = Solver(table_mb=16, threads=threads)
    lines = [json.dumps(SMALL), json.dumps({"deal": Deal.random(2).pbn()})]
    answers = answer_lines(solver, read_position_lines(lines))
    assert next(answers)["error"] is None
    time.sleep(0.5)                                  # into the hard position's search
    start = time.monotonic()
    answers.close()
    assert time.monotonic() - start < 10
    small = Position.from_play(Deal.parse(SMALL["deal"]), Rules.parse(SMALL["rules"]), "", "N")
    assert solver.analyze(small).players                # the solver is free, and not cancelled


@pytest.mark.parametrize("threads", ["1", "2"])
def test_each_answer_goes_out_as_found_and_ctrl_c_keeps_them(tmp_path: Path, threads: str) -> None:
    """Answers went out a chunk of positions at a time: a chunk of full deals kept the progress
    bar and a reading program waiting for minutes, and a Ctrl-C lost the chunk's finished ones.
    Each line now goes out as soon as it and those before it are answered (a Ctrl-C loses only
    the answers after the first position still searched)."""
    path = tmp_path / "positions.jsonl"
    hard = {"deal": Deal.random(2).pbn(), "id": "hard"}     # minutes on one thread
    path.write_text("\n".join(json.dumps(o) for o in [SMALL, {"deal": "x"}, {**SMALL, "play": "D2"},
                                                      hard, SMALL]) + "\n")
    proc = subprocess.Popen([sys.executable, "-m", "solver.cli", "analyze", "--input", str(path),
                             "--threads", threads], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            preexec_fn=as_in_a_terminal)
    assert proc.stdout is not None
    give_up = threading.Timer(60, proc.kill)
    give_up.start()
    try:
        early = [proc.stdout.readline() for _ in range(3)]
        give_up.cancel()
        assert all(early), "an answered line did not come out while the hard position was searched"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        give_up.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and err == "hearts-dd: error: interrupted\n" and out == ""
    answers = [json.loads(text) for text in early]
    assert [a["index"] for a in answers] == [0, 1, 2]
    assert [a["error"] is None for a in answers] == [True, False, True]
    assert answers[2]["to_move"] == "E"


@pytest.mark.parametrize("args", [["--input", "-"], ["--deal", Deal.random(2).pbn(), "--json"],
                                  ["--deal", Deal.random(2).pbn(), "--samples", "20", "--json"]])
def test_a_reader_gone_stops_the_search_at_once(args: list[str]) -> None:
    """A program driving the command that dies or closes its end (``| head -1`` too): the
    search of a full deal went on for minutes, for nobody, until its answer failed to be
    written. The command now sees the pipe's reader gone and ends at once, as a broken
    pipe ends it (141, no word)."""
    proc = _driven(*args)
    assert proc.stdin is not None
    if args[0] == "--input":
        assert _asked(proc, {**SMALL, "id": 0})["id"] == 0
        proc.stdin.write((json.dumps({"deal": Deal.random(2).pbn(), "id": 1}) + "\n").encode())
    time.sleep(1)                                      # into the hard position's search
    assert reader_left(proc) == (141, b"")


def test_a_reader_gone_while_the_command_waits_for_a_line_ends_it() -> None:
    """``tail -f positions.jsonl | hearts-dd analyze --input - | head -1``: once ``head`` had
    its answer, the command waited for the next line, which might never come, and the
    pipeline with it. Its reader gone, it ends at once, waiting or not."""
    proc = _driven("--input", "-")
    assert _asked(proc, {**SMALL, "id": 0})["id"] == 0        # (the input kept open)
    assert reader_left(proc) == (141, b"")


def test_a_sigurg_from_elsewhere_is_not_taken_for_a_reader_gone() -> None:
    """The watch of standard output's reader stops the command with SIGURG, whose default is
    to be ignored: one sent by anything else must not end the command as if its reader left."""
    proc = _driven("--input", "-")
    assert proc.stdin is not None
    with finished(proc):
        for k in range(2):
            assert _asked(proc, {**SMALL, "id": k})["id"] == k
            proc.send_signal(signal.SIGURG)
            time.sleep(0.5)
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
    # nor does it stop a search (which then said its time limit had run out)
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "solver.cli", "analyze", "--deal", Deal.random(2).pbn(),
                             "--json", "--threads", "1", "--table-mb", "16", "--time-limit", "4"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    time.sleep(2)
    proc.send_signal(signal.SIGURG)
    proc.communicate(timeout=60)
    assert proc.returncode == 3 and time.monotonic() - started > 4


def test_a_driver_done_asking_that_closes_both_ends_gets_the_status() -> None:
    """A program asks its questions, reads every answer, then closes its ends, input and
    output, and waits for the command's status: it got 141 and no summary (5 runs of 5), as
    if answers were lost, and no 1 for the line with an error. The input ended with every
    question answered: the summary and the status stand."""
    for _ in range(3):
        proc = _driven("--input", "-")
        assert proc.stdin is not None
        for k, line in enumerate([{**SMALL, "id": 0}, {"deal": "nonsense", "id": 1}, {**SMALL, "id": 2}]):
            assert _asked(proc, line)["id"] == k
        proc.stdin.close()
        status, err = reader_left(proc)
        assert status == 1 and "3 positions, 2 answered, 1 with errors" in err.decode()


_IN_PROCESS = """
import os, signal, sys
from click.testing import CliRunner
from solver.cli import cli
r, w = os.pipe()
os.dup2(w, 1); os.close(w); os.close(r)     # the caller's descriptor 1: a pipe, its reader gone
signal.signal(signal.SIGPIPE, signal.SIG_IGN)
try:
    result = CliRunner().invoke(cli, ["analyze", "--deal", sys.argv[1], "--json", "--threads", "1",
                                      "--table-mb", "16", "--time-limit", "1"])
    print(result.exit_code, "time limit" in result.output, file=sys.stderr)
except BaseException as e:
    print("escaped", type(e).__name__, file=sys.stderr)
"""


def test_a_caller_s_descriptor_1_is_not_the_command_s_output() -> None:
    """Run in a caller's process with its output captured (click's ``CliRunner``), the command
    writes to no descriptor: the caller's descriptor 1, a pipe whose reader left (a service's
    log), raised ``ReaderGone`` out of ``invoke`` at once (a ``BaseException``, which it does
    not catch), and the search was never made. Only the command's own output is watched."""
    proc = subprocess.run([sys.executable, "-c", _IN_PROCESS, FULL], capture_output=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    # (the search of a full deal under its 1 s limit: exit 3, which it says in the capture)
    assert proc.stderr.decode().strip() == "3 True"


def test_lines_written_at_once_to_a_pipe_are_solved_together() -> None:
    """A bot writes a turn's sampled deals at once and waits for their answers: the lines the
    command had read ahead were unseen by its check for more input, so each line was solved
    alone, one thread idle, instead of the whole turn in one call over every thread."""
    probe = ("import sys, solver.analysis as a\n"
             "calls = a.Solver.analyses\n"
             "def logged(self, questions, *args, **kw):\n"
             "    questions = list(questions)\n"
             "    sys.stderr.write(f'batch {len(questions)}\\n')\n"
             "    return calls(self, questions, *args, **kw)\n"
             "a.Solver.analyses = logged\n"
             "from solver.cli import main\n"
             "sys.argv[0] = 'hearts-dd'\n"
             "main()\n")
    lines = [json.dumps({**SMALL, "play": play, "id": k}) for k, play in enumerate(["", "D2", "D2 D3"])]
    proc = subprocess.Popen([sys.executable, "-c", probe, "analyze", "--input", "-", "--threads", "2",
                             "--table-mb", "16", "--rules", '{"first_lead": "free"}'],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, bufsize=0)  # (select sees all)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    with finished(proc):
        try:
            proc.stdin.write("".join(line + "\n" for line in lines).encode())   # one write, kept open
            answers = []
            for _ in lines:
                assert select.select([proc.stdout], [], [], 60)[0], "no answer within 60 s"
                answers.append(json.loads(proc.stdout.readline()))
        finally:
            proc.stdin.close()
            proc.wait(60)
        said = proc.stderr.read().decode()
    assert [a["id"] for a in answers] == [0, 1, 2] and all(a["error"] is None for a in answers)
    batches = [line for line in said.splitlines() if line.startswith("batch")]
    assert batches == ["batch 3"]


def test_a_blank_line_after_a_question_does_not_hold_its_answer() -> None:
    """Lines read ahead count as ready, but a blank one is no question: read as one, it made the
    answer before it wait for the next question."""
    proc = subprocess.Popen([sys.executable, "-m", "solver.cli", "analyze", "--input", "-", "--threads", "1",
                             "--table-mb", "16", "--rules", '{"first_lead": "free"}'],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, bufsize=0)
    assert proc.stdin is not None and proc.stdout is not None
    with finished(proc):
        try:
            proc.stdin.write((json.dumps({**SMALL, "id": 0}) + "\n \r\n\n").encode())  # kept open
            assert select.select([proc.stdout], [], [], 30)[0], "no answer until the next question"
            assert json.loads(proc.stdout.readline())["id"] == 0
        finally:
            proc.stdin.close()
            proc.wait(60)


def test_a_first_line_shorter_than_4_bytes_is_answered_at_once() -> None:
    """The first 4 bytes tell UTF-8 from UTF-16 and UTF-32: a first line of 3 ('{}' and its
    newline) on an open pipe waited for a byte more before it was read, and answered."""
    proc = _driven("--input", "-", stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    with finished(proc):
        try:
            proc.stdin.write(b"{}\n")       # (kept open)
            assert select.select([proc.stdout], [], [], 30)[0], "no answer until more input came"
            assert json.loads(proc.stdout.readline()) == {"index": 0, "error": "line 1: no deal"}
        finally:
            proc.stdin.close()
            proc.wait(60)
