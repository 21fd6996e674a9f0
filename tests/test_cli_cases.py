"""The sample positions of shared/cases (copied to tests/data) through `hearts-dd analyze --json`."""
import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from forked import COMMAND, Forker

DATA = Path(__file__).parent / "data"
CASES = [json.loads(line) for f in sorted(DATA.glob("public_*.jsonl")) for line in f.read_text().splitlines()]


RUNS: list[Forker] = []


@pytest.fixture(autouse=True)
def _runs(forker: Forker) -> Iterator[None]:
    RUNS.append(forker)
    yield
    RUNS.pop()


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """The command with these arguments, a process of its own forked from one that has loaded
    it (tests/forked.py: without an interpreter's start each run)."""
    return RUNS[-1].run(*args)


def test_a_forked_run_is_the_command_run_anew() -> None:
    """What the runs here show is what the installed command shows."""
    for args in (["analyze", "--deal", CASES[0]["deal"], "--play", CASES[0].get("play", ""), "--player", "N"],
                 ["analyze", "--deal", "N:AK.. ... ... ...", "--json"], ["analyze", "--help"]):
        new = subprocess.run([str(COMMAND), *args], capture_output=True, text=True, timeout=120)
        forked = run_cli(*args)
        assert (forked.returncode, timeless(forked.stdout), forked.stderr) == \
            (new.returncode, timeless(new.stdout), new.stderr)


def timeless(text: str) -> str:
    """The report without its measurements (nodes, seconds), which differ from run to run."""
    return re.sub(r"\d[\d,.]*(?= (s|nodes)\b)", "#", text)


def analyze_args(case: dict) -> list[str]:
    """The SPEC §4 command line of a case."""
    cmd = ["analyze", "--deal", case["deal"], "--json"]
    if case.get("play"):
        cmd += ["--play", case["play"]]
    if case.get("rules"):
        cmd += ["--rules", json.dumps(case["rules"])]
    if case.get("leader"):
        cmd += ["--leader", case["leader"]]
    return cmd


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case_through_cli(case):
    p = run_cli(*analyze_args(case))
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)
    exp = case["expect"]
    assert got["to_move"] == exp["to_move"]
    for seat, e in exp["players"].items():
        assert {k: got["players"][seat][k] for k in e} == e, seat
    if "moves" in exp:
        assert {m["card"]: (m["guarantee"], m["moon_possible"]) for m in got["moves"]} == \
            {m["card"]: (m["guarantee"], m["moon_possible"]) for m in exp["moves"]}


@pytest.mark.parametrize("args, words", [
    (["--deal", "N:AK.. ... ... ..."], "hand"),
    (["--deal", "N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4",
      "--play", "C2 CA C5 C4 HK"], "trick 2"),
    (["--deal", "N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4",
      "--rules", '{"mooon": "add"}'], "mooon"),
    (["--deal", "N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.KT4"], "twice"),
    ([], "--deal"),
])
def test_bad_input_is_one_line_exit_2(args, words):
    p = run_cli("analyze", *args, "--json")
    assert p.returncode == 2
    assert p.stdout == ""
    assert len(p.stderr.strip().splitlines()) == 1
    assert words in p.stderr


@pytest.mark.parametrize("case", CASES[:6], ids=[c["id"] for c in CASES[:6]])
def test_one_thread_and_two_give_the_same_answers(case):
    answers = []
    for threads in ("1", "2"):
        p = run_cli(*analyze_args(case), "--line", "N", "--threads", threads)
        assert p.returncode == 0, p.stderr
        got = json.loads(p.stdout)
        answers.append({k: got[k] for k in ("to_move", "players", "moves", "line")})
    assert answers[0] == answers[1]


def test_one_player_text_report_says_whose_cards_are_left_out():
    deal = "N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4"
    play = "C2 CA C5 C4"  # E leads trick 2
    other = run_cli("analyze", "--deal", deal, "--play", play, "--player", "N")
    assert other.returncode == 0, other.stderr
    assert "E's cards not valued: asked for N only" in other.stdout and "cards for" not in other.stdout
    mover = run_cli("analyze", "--deal", deal, "--play", play, "--player", "E")
    assert mover.returncode == 0, mover.stderr
    assert "Legal cards for E" in mover.stdout and "not valued" not in mover.stdout


@pytest.mark.parametrize("case", CASES[:4], ids=[c["id"] for c in CASES[:4]])
def test_text_line_is_the_json_line_trick_by_trick(case):
    """The text report's line: one row a trick, the cards already on the table in brackets,
    then the line's cards in the order of ``--json``'s, and the trick's winner (who leads
    the next row)."""
    args = [a for a in analyze_args(case) if a != "--json"] + ["--line", "E"]
    text, js = run_cli(*args), run_cli(*args, "--json")
    assert text.returncode == 0 and js.returncode == 0, text.stderr + js.stderr
    expected = json.loads(js.stdout)["line"]["cards"]
    rows = text.stdout.split("Optimal line for E (guarantee ")[1].splitlines()[1:]
    assert rows.pop() == "(E plays for its lowest score; the other three play together against it)"
    assert rows.pop().startswith("(") and rows.pop().startswith("Final scores: ")
    assert all(row.startswith("Trick ") for row in rows)
    played, leaders, winners = [], [], []
    for row in rows:
        cards, _, won = row.partition("→ ")
        plays = cards.split()[2:]  # after "Trick n"
        seats = [w.strip("(") for w in plays[0::2]]
        leaders.append(seats[0])
        winners.append(won.split(",")[0])
        assert len(seats) == 4
        played += [f"{seat}:{card}" for seat, card in zip(seats, plays[1::2]) if ")" not in card]
    assert played == expected
    assert leaders[1:] == winners[:-1]


def test_seats_in_either_case_and_shown_in_capitals():
    deal = "N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4"
    p = run_cli("analyze", "--deal", deal, "--play", "C2 CA C5 C4", "--player", "e", "--json")
    assert p.returncode == 0, p.stderr
    assert list(json.loads(p.stdout)["players"]) == ["E"]
    assert "--player [N|E|S|W]" in run_cli("analyze", "--help").stdout


@pytest.mark.parametrize("command", ["analyze", "annotate", "moon"])
def test_rules_help_names_every_preset(command):
    """--help is where a user learns the tool: it said 'Preset name' (analyze's metavar TEXT,
    the others' PRESET|JSON) without naming one."""
    from solver.rules import PRESETS
    import re
    # (words as read, across the help's wrapping, which may break "rickety-kate" after its hyphen)
    text = re.sub(r"(?<=\w-) +", "", " ".join(run_cli(command, "--help").stdout.split()))
    assert "--rules PRESET|JSON" in text
    assert f"a preset ({', '.join(PRESETS)})" in text


def test_the_deal_example_in_the_help_is_a_deal():
    """Pasted from --help, the example was refused: 'N:AK.. ... ... ...' showed no deal."""
    import re

    from solver.deal import Deal
    text = " ".join(run_cli("analyze", "--help").stdout.split())
    example = re.search(r'--deal PBN .*?e\.g\. "([^"]*)"', text)
    assert example, text
    assert Deal.parse(example.group(1)).pbn() == example.group(1)


@pytest.mark.parametrize("command", ["annotate", "moon"])
def test_the_record_commands_help_gives_their_exit_status(command):
    """analyze's help gave its exit statuses (1 for --input, 3 for --time-limit); the record
    commands', whose 1 means a record had an error, gave none."""
    text = " ".join(run_cli(command, "--help").stdout.split())
    assert "Exit status 1 when a record had an error" in text and "2 for bad options" in text


def test_analyze_help_gives_its_exit_statuses_in_one_place():
    """Its 1 and 3 were in two options' help, and bad input's 2 (SPEC §4) nowhere."""
    text = " ".join(run_cli("analyze", "--help").stdout.split())
    assert ("Exit status 2 for bad input (one line on stderr says what is wrong, and where), 3 "
            "when --time-limit ran out, 1 when a line of --input had an error.") in text


def test_the_command_list_gives_whole_summaries():
    """At 80 columns the commands' summaries were cut mid-sentence ('and the value...'), which
    a screen reader reads out as 'dot dot dot'."""
    text = run_cli("--help").stdout
    commands = text.partition("Commands:")[2].splitlines()
    assert len([line for line in commands if line.strip()]) == 5
    assert not any(line.rstrip().endswith("...") for line in commands), text


def test_annotate_help_names_the_suffixes_that_choose_a_format():
    """'from the output file's name' left a user to guess that out.txt is the text report (and
    out.text jsonl)."""
    from solver.writers import format_for
    text = " ".join(run_cli("annotate", "--help").stdout.split())
    for suffix, fmt in [(".csv", "csv"), (".pbn", "pbn"), (".txt", "text"), (".jsonl", "jsonl"),
                        (".json", "jsonl")]:
        assert suffix in text and format_for("out" + suffix) == fmt


@pytest.mark.parametrize("command", ["annotate", "moon"])
def test_the_record_commands_help_says_what_inputs_are(command):
    """The usage line's INPUTS... was all the help said of them: not that '-' reads standard
    input."""
    text = " ".join(run_cli(command, "--help").stdout.split())
    assert "INPUTS: one or more PBN files, '-' for standard input." in text


def test_analyze_help_says_how_to_do_without_the_status_line():
    """A screen reader reads out each refresh of the status line: the help said neither that
    there is one nor that TERM=dumb leaves it out."""
    text = " ".join(run_cli("analyze", "--help").stdout.split())
    assert ("On a terminal, unless TERM=dumb, a solve of over half a second keeps a line on stderr "
            "up to date with what it has proved so far") in text


@pytest.mark.parametrize("case", CASES[:2], ids=[c["id"] for c in CASES[:2]])
def test_a_line_under_a_time_limit_in_time_is_the_line_without_one(case):
    """--time-limit with --line is one budget for both: the line gets what the analysis left
    (``before_line``), and a line found within it is the line found without a limit."""
    args = analyze_args(case) + ["--line", "E"]
    free, limited = run_cli(*args), run_cli(*args, "--time-limit", "600")
    assert limited.returncode == 0 and limited.stderr == "", limited.stderr
    drop = ("nodes", "seconds")
    assert {k: v for k, v in json.loads(limited.stdout).items() if k not in drop} == \
        {k: v for k, v in json.loads(free.stdout).items() if k not in drop}
    assert json.loads(limited.stdout)["line"]["cards"]
