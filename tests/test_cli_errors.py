"""Bad input through the installed `hearts-dd analyze` command (SPEC §4): exit status 2, one
line on standard error saying what is wrong and where, nothing on standard output."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

COMMAND = Path(sys.executable).with_name("hearts-dd")
DEAL = "N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4"


def analyze(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(COMMAND), "analyze", *args, "--json"], capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("args, words", [
    pytest.param(["--deal", "N:KQT2.8653.A7 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4"],
                 ["N's hand", "4 suits"], id="malformed deal"),
    pytest.param(["--deal", "N:KQT2.8653.A7.K32 A.KJT.9654.AQ876"], ["4 hands"], id="too few hands"),
    pytest.param(["--deal", DEAL.replace("KT8.T4", "KT8.K4")], ["CK", "twice"], id="duplicate card"),
    pytest.param(["--deal", DEAL.replace("KT8.T4", "KT8.4")], ["W=12"], id="missing card"),
    pytest.param(["--deal", DEAL, "--play", "C2 CA C5 C4 HK"], ["HK", "trick 2", "E"],
                 id="heart led before hearts break"),
    pytest.param(["--deal", DEAL, "--play", "C2 D4"], ["D4", "trick 1", "must follow"],
                 id="revoke"),
    pytest.param(["--deal", DEAL, "--play", "C2 CA C5 C4 S1"], ["S1", "trick 2"], id="unreadable card"),
    pytest.param(["--deal", DEAL, "--rules", '{"moons": "add"}'], ["moons", "unknown rule key"],
                 id="unknown rule key"),
    pytest.param(["--deal", DEAL, "--rules", '{"moon": "double"}'], ["moon", "double"], id="bad value"),
    pytest.param(["--deal", DEAL, "--rules", '{"trick_points": "one"}'], ["trick_points"],
                 id="bad integer"),
    pytest.param(["--deal", DEAL, "--rules", '{"values": {"XQ": 5}}'], ["values", "XQ"],
                 id="bad card in values"),
    pytest.param(["--deal", DEAL, "--rules", '{"moon": "add",'], ["not valid JSON"], id="bad JSON"),
    pytest.param(["--deal", DEAL, "--rules", "no-such-preset"], ["no-such-preset"], id="unknown preset"),
    pytest.param(["--deal", DEAL, "--leader", "E"], ["N holds C2"], id="wrong leader"),
    pytest.param(["--deal", DEAL, "--rules", '{"first_lead": "free"}'], ["leader"], id="free lead, no leader"),
])
def test_bad_input_is_one_line_on_stderr_with_exit_2(args: list[str], words: list[str]) -> None:
    result = analyze(*args)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0]


def test_time_limit_is_exit_3_with_one_line() -> None:
    result = analyze("--deal", DEAL, "--time-limit", "0.01")
    assert result.returncode == 3
    assert result.stdout == "" and len(result.stderr.strip().splitlines()) == 1
    assert "time limit" in result.stderr
