"""`hearts-dd analyze` on a terminal: a status line on stderr with what a long solve has proved
so far, cleared before the answer or the error; nothing for quick answers or off a terminal."""
from __future__ import annotations

import json
import os
import random
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from solver.deal import Deal
from solver.position import Position
from solver.rules import Rules

pty = pytest.importorskip("pty", reason="needs pseudo-terminals")
fcntl = pytest.importorskip("fcntl", reason="needs pseudo-terminals")
termios = pytest.importorskip("termios", reason="needs pseudo-terminals")

COMMAND = Path(sys.executable).with_name("hearts-dd")
CLEAR = "\r\x1b[K"
#: A deal whose first bound is proved within a few hundredths of a second of the processor's
#: time (N ≥ 0, one or two threads), and whose analysis takes far longer than its limit here
#: (not done after 20 s on either). Seed 2's first bound took 0.3-0.5 s, which a loaded machine
#: (a run of the suite beside others) did not give the command in its 1.5-2 s: nothing proved.
QUICK_BOUND = Deal.random(4).pbn()


def on_a_terminal(*args: str, columns: int = 0, **env: str) -> tuple[int, str, str]:
    """Run ``hearts-dd analyze`` with stderr on a pseudo-terminal (of ``columns``, or of an
    unknown width; ``env``: variables set, such as its TERM, else xterm: a dumb one, as the
    environment may have, shows no status line): (status, stdout, stderr)."""
    leader, follower = pty.openpty()
    if columns:
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    try:
        proc = subprocess.Popen([str(COMMAND), "analyze", *args], stdout=subprocess.PIPE,
                                stderr=follower,
                                env={**os.environ, "TERM": "xterm", **env})
    finally:
        os.close(follower)
    err = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closes with the process's end
            break
        if not chunk:
            break
        err += chunk
    os.close(leader)
    out, _ = proc.communicate(timeout=60)       # (its pipe read, and closed)
    return proc.returncode, out.decode(), err.decode().replace("\r\n", "\n")


def test_a_long_solve_shows_what_it_has_proved_and_clears_it() -> None:
    status, out, err = on_a_terminal("--deal", QUICK_BOUND, "--time-limit", "2", "--json",
                                     columns=200)
    assert status == 3 and out == ""
    shown, _, message = err.rpartition(CLEAR)
    assert message.startswith("hearts-dd: error: no answer within the time limit")
    lines = [line.removesuffix("\x1b[K") for line in shown.split("\r") if line]
    assert len(lines) >= 3, err  # from half a second in, four times a second
    for line in lines:
        parts = line.split(" · ")
        assert [p.split()[0] for p in parts[:4]] == ["N", "E", "S", "W"], line
        assert parts[-1].endswith(" s")
    # the seats' bounds appear as the passes prove them (this deal's first, in milliseconds)
    assert any("≥" in line or "≤" in line for line in lines), err


def test_the_status_line_fits_the_terminal() -> None:
    """A longer line would wrap, and each refresh would then leave a line behind."""
    status, _, err = on_a_terminal("--deal", Deal.random(2).pbn(), "--time-limit", "1.5",
                                   columns=24)
    shown = err.rpartition(CLEAR)[0]
    lines = [line.removesuffix("\x1b[K") for line in shown.split("\r") if line]
    assert status == 3 and lines
    assert all(len(line) <= 23 for line in lines) and lines[-1].startswith("N ")


def test_the_status_line_fits_the_terminal_as_an_ascii_console_writes_it() -> None:
    """Cut to the width before "…" became "..." and "≥" ">=": longer than the line, wrapped."""
    status, _, err = on_a_terminal("--deal", Deal.random(2).pbn(), "--time-limit", "1.5",
                                   columns=24, PYTHONIOENCODING="ascii")
    shown = err.rpartition(CLEAR)[0]
    lines = [line.removesuffix("\x1b[K") for line in shown.split("\r") if line]
    assert status == 3 and lines and all(line.isascii() for line in lines)
    assert all(len(line) <= 23 for line in lines), lines


def test_a_dumb_terminal_gets_no_status_line() -> None:
    """TERM=dumb (an editor's shell, as a screen reader's is): a line rewritten four times a
    second is read out each time, or left as a new line each time; only the outcome is shown."""
    status, out, err = on_a_terminal("--deal", QUICK_BOUND, "--time-limit", "1.5",
                                     columns=80, TERM="dumb")
    assert status == 3 and out == ""
    assert "\r" not in err and "\x1b" not in err
    assert err.startswith("hearts-dd: error: no answer within the time limit of 1.5 s; proved")


def test_a_quick_answer_shows_nothing() -> None:
    deal = Deal.random(2)
    end = Position.start(deal, Rules.parse("standard")).random_play(random.Random(2), 36)
    deal, play = deal.pbn(), " ".join(map(str, end.played))
    status, out, err = on_a_terminal("--deal", deal, "--play", play, "--json", "--table-mb", "16")
    piped = subprocess.run([str(COMMAND), "analyze", "--deal", deal, "--play", play, "--json"],
                           capture_output=True, text=True, timeout=60)
    assert status == 0 and err == ""
    timing = ("seconds", "nodes")
    assert ({k: v for k, v in json.loads(out).items() if k not in timing}
            == {k: v for k, v in json.loads(piped.stdout).items() if k not in timing})
