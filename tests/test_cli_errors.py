"""Bad input through `hearts-dd analyze` (SPEC §4): exit status 2, one line on standard error
saying what is wrong and where, nothing on standard output. The listed cases run the installed
command; the property test below runs it in-process, for many examples."""
from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import IO, Iterator

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from solver.cli import cli
from solver.deal import Deal
from solver.position import Position
from solver.rules import Rules

from benchmarks.record_files import random_play
from forked import Forker
from signals import as_in_a_terminal, busy, exited_cpu, handling
from strategies import PROPERTY

COMMAND = Path(sys.executable).with_name("hearts-dd")
ROOT = Path(__file__).resolve().parent.parent
DEAL = "N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4"


def analyze(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(COMMAND), "analyze", *args, "--json"], capture_output=True, text=True,
                          timeout=120)


def forked_analyze(forker: Forker, *args: str) -> subprocess.CompletedProcess:
    """``analyze(*args)`` in a process forked from one that has loaded the command
    (tests/forked.py): the listed cases below, without an interpreter's start each."""
    return forker.run("analyze", *args, "--json")


def test_a_forked_case_is_the_command_run_anew(forker: Forker) -> None:
    """What the forked cases below show is what the installed command shows."""
    for args in (["--deal", DEAL, "--leader", "E"], ["--deal", DEAL, "--player", "X"],
                 ["--deal", DEAL, "--table-mb", "5000"]):
        forked, run = forked_analyze(forker, *args), analyze(*args)
        assert (forked.returncode, forked.stdout, forked.stderr) == (run.returncode, run.stdout, run.stderr)
    assert forked.returncode == 2 and forked.stderr.startswith("hearts-dd: error: ")


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
    pytest.param(["--deal", "N:A... K... Q... J...", "--leader", "N", "--play", "SA SK SQ SJ C2"],
                 ["C2", "after trick 1, the last", "no one can play C2", "the hand is already over"],
                 id="card after the end of the hand"),
    pytest.param(["--deal", DEAL, "--rules", '{"moons": "add"}'], ["moons", "unknown rule key"],
                 id="unknown rule key"),
    pytest.param(["--deal", DEAL, "--rules", '{"moon": "double"}'], ["moon", "double"], id="bad value"),
    pytest.param(["--deal", DEAL, "--rules", '{"trick_points": "one"}'], ["trick_points"],
                 id="bad integer"),
    pytest.param(["--deal", DEAL, "--rules", '{"values": {"XQ": 5}}'], ["values", "XQ"],
                 id="bad card in values"),
    pytest.param(["--deal", DEAL, "--rules", '{"moon": "add",'], ["not valid JSON"], id="bad JSON"),
    pytest.param(["--deal", DEAL, "--rules", "no-such-preset"], ["--rules: unknown preset 'no-such-preset'"],
                 id="unknown preset"),
    pytest.param(["--deal", DEAL, "--table-mb", "5000"], ["--table-mb", "1<=x<=4096"], id="table too large"),
    pytest.param(["--deal", DEAL, "--leader", "E"], ["N holds C2"], id="wrong leader"),
    pytest.param(["--deal", DEAL, "--player", "X"], ["--player", "'X' is not a seat (N, E, S or W)"],
                 id="unknown seat"),
    pytest.param(["--deal", DEAL, "--rules", '{"first_lead": "free"}'], ["give the leader (--leader SEAT)"],
                 id="free lead, no leader"),
    pytest.param(["--deal", DEAL, "--samples", "5", "--player", "N"], ["--samples", "no --player"],
                 id="samples for another seat"),
    pytest.param(["--deal", DEAL, "--seed", "5"], ["--seed and --known go with --samples"], id="seed alone"),
    pytest.param(["--deal", DEAL, "--samples", "2", "--known", "SA"], ["--known 'SA': expected SEAT:CARDS"],
                 id="known without a seat"),
    pytest.param(["--deal", DEAL, "--samples", "2", "--known", "X:SA"], ["--known 'X:SA'", "unknown seat"],
                 id="known for no seat"),
    pytest.param(["--deal", DEAL, "--samples", "2", "--known", "E:SK"],
                 ["error: analyze --samples: --known: card SK of E", "N's own hand"],
                 id="known card the mover holds"),
    pytest.param(["--deal", DEAL, "--samples", "0"], ["--samples", "1<=x<=10000"], id="no samples"),
    pytest.param(["--deal", DEAL, "--time-limit", "-1"], ["--time-limit", "-1.0 is not in the range x>=0"],
                 id="negative time limit"),
    pytest.param(["--deal", DEAL, "--samples", "2", "--seed", str(2 ** 63)], ["--seed", "0<=x<=9223372036854775807"],
                 id="seed past the API's"),
    pytest.param(["--deal", DEAL, "--play", " ".join(["C2 CA C5 C4"]) + " " + "XX", "--samples", "3"],
                 ["XX", "trick 2"], id="samples of a bad play"),
    pytest.param(["--deal", "N:A... K... Q... J...", "--rules", '{"first_lead": "free"}', "--leader", "N",
                  "--play", "SA SK SQ SJ", "--samples", "3"],
                 ["error: analyze --samples: the hand is over"], id="samples at the end"),  # not weigh_cards:
    pytest.param(["--hand", "S:KQ97.Q9.AK54.J75", "--play", "C2", "--samples", "2"],
                 ["error: analyze --samples: --leader: give the leader: the seat that led C2"],
                 id="hand without the first leader"),
    pytest.param(["--hand", "S:KQ97.Q9.AK54.J7", "--samples", "2"],
                 ["error: analyze --samples: --hand: expected the 13 cards S was dealt, got 12"],
                 id="hand short of a card"),
    pytest.param(["--hand", "KQ97.Q9.AK54.J75", "--samples", "2"], ["--hand 'KQ97.Q9.AK54.J75': expected SEAT:CARDS"],
                 id="hand without a seat"),
    pytest.param(["--hand", "S:KQ97.Q9.AK54.J75", "--samples", "2", "--leader", "W"],
                 ["error: analyze --samples: --hand: S is not to play (it is W's turn)"], id="hand not to play"),
    pytest.param(["--hand", "W:KQ97.Q9.AK54.J75", "--play", "C2 CJ", "--leader", "E", "--samples", "2"],
                 ["error: analyze --samples: --play: card 2 (trick 1): S played CJ, which is in W's hand"],
                 id="hand against the play"),
    pytest.param([], ["give --deal, --input with one position a line, or --hand with --samples"],
                 id="no position"),
    pytest.param([DEAL], [f"error: analyze: Got unexpected extra argument ({DEAL}) (a deal goes in --deal)"],
                 id="deal without --deal"),
    pytest.param(["--hand", "S:KQ97.Q9.AK54.J75", "--leader", "W"], ["--hand goes with --samples"],
                 id="hand without samples"),
    pytest.param(["--hand", "S:KQ97.Q9.AK54.J75", "--deal", DEAL, "--samples", "2"],
                 ["--deal, --input and --hand cannot be given together"], id="hand and deal"),
])
def test_bad_input_is_one_line_on_stderr_with_exit_2(forker: Forker, args: list[str], words: list[str]) -> None:
    result = forked_analyze(forker, *args)
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


def test_the_time_limit_covers_the_analysis_and_the_line_together(monkeypatch: pytest.MonkeyPatch) -> None:
    """The line was given the whole limit again after the analysis had used it."""
    from solver.analysis import Solver
    analyze_one, line_for, limits = Solver.analyze, Solver.line, []

    def slow(self: Solver, *args: object, **kwargs: object) -> object:
        time.sleep(0.6)
        return analyze_one(self, *args, **kwargs)

    def line(self: Solver, *args: object) -> object:
        limits.append(self.time_limit)
        return line_for(self, *args)

    monkeypatch.setattr(Solver, "analyze", slow)
    monkeypatch.setattr(Solver, "line", line)
    result = CliRunner().invoke(cli, ["analyze", "--deal", "N:.A..2 .2..3 .3..4 .4..5", "--line", "N",
                                      "--time-limit", "3", "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["line"]
    assert len(limits) == 1 and 0 < limits[0] <= 3 - 0.6


@pytest.mark.parametrize("args", [
    ["--deal", "N:" + "A" * 100_000],
    ["--deal", "N:A.2..2 K.3..3 Q.4..4 J.5..5", "--play", "C2 " + "x" * 100_000],
    ["--deal", "N:A.2..2 K.3..3 Q.4..4 J.5..5", "--rules", "q" * 100_000],
    ["--deal", "N:A.2..2 K.3..3 Q.4..4 J.5..5", "--leader", "q" * 100_000],
])
def test_an_error_echoes_no_more_than_a_few_hundred_characters_of_the_input(forker: Forker,
                                                                           args: list[str]) -> None:
    """The whole bad input came back in the error line (100 kB of it)."""
    result = forked_analyze(forker, *args)
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr) < 500 and "characters left out" in result.stderr


def test_out_of_memory_without_a_reason_does_not_blame_the_table() -> None:
    """Memory ran out with an empty reason (as it did holding /dev/zero's one line), and the
    message advised a smaller table alone."""
    script = "from solver import cli\ndef full(**kw): raise MemoryError()\ncli.cli.main = full\ncli.main()"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == ("hearts-dd: error: out of memory (a smaller --table-mb, or fewer "
                             "--threads or --jobs, may fit)\n")


def test_a_thread_that_cannot_start_names_the_limit_on_processes_too() -> None:
    """A thread fails to start as often under a limit on processes (``ulimit -u``, a
    container's), which counts threads, as out of memory; the message blamed memory alone."""
    script = ("from solver import cli\ndef full(**kw): raise RuntimeError(\"can't start new thread\")\n"
              "cli.cli.main = full\ncli.main()")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == ("hearts-dd: error: out of memory, or too many processes: cannot start a "
                             "thread (fewer --threads or --jobs, a smaller --table-mb, or a higher "
                             "ulimit -u may fit)\n")


@pytest.mark.parametrize("failure", [
    "MemoryError()",
    "ImportError('/usr/lib/python3.11/lib-dynload/_posixshmem.so: failed to map segment from "
    "shared object')",
])
def test_memory_too_low_to_load_the_command_is_one_line(failure: str) -> None:
    """Under ``ulimit -v`` of about 15-26 MB Python starts, but loading the CLI's modules ran
    out of memory: a traceback (MemoryError, or a shared library that could not be mapped)."""
    script = ("import sys\n"
              "class Full:\n"
              "    def find_spec(self, name, path=None, target=None):\n"
              f"        if name == 'solver.cli': raise {failure}\n"
              "sys.meta_path.insert(0, Full())\n"
              "from solver.launch import main\nmain()")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == ("hearts-dd: error: out of memory while loading: a limit on memory "
                             "(ulimit -v) too low to start\n")


def test_an_endless_line_is_read_in_bounded_memory() -> None:
    """annotate /dev/zero held its one line until memory ran out; now it reads on, as wc would,
    in little memory (stopped here after three seconds)."""
    import resource

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1_200_000_000, 1_200_000_000))

    with subprocess.Popen([str(COMMAND), "annotate", "/dev/zero", "-j", "1", "--table-mb", "16"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limited) as proc:
        try:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(3)
            assert proc.returncode is None, proc.stderr.read()     # (it ran out at about 1 s)
        finally:
            proc.kill()


def test_samples_none_analysed_in_time_is_exit_3() -> None:
    result = analyze("--deal", DEAL, "--samples", "4", "--time-limit", "0.01")
    assert result.returncode == 3 and result.stdout == ""
    assert result.stderr.strip() == "hearts-dd: error: no deal analysed within the time limit of 0.01 s"


def test_time_limit_says_what_the_analysis_had_proved() -> None:
    """N's guarantee (26) takes a tenth of a second, the others' many seconds: the message once
    named only the seat being searched when the time ran out."""
    result = analyze("--deal", Deal.random(1).pbn(), "--time-limit", "2")
    assert result.returncode == 3 and result.stdout == ""
    assert "the time limit of 2 s; proved so far: N 26 · E " in result.stderr


def test_a_line_cut_short_says_the_analysis_was_done() -> None:
    from solver.analysis import Solver
    from solver.cli import _StatusLine
    pos = Position.start(Deal.random(1), Rules())
    status = _StatusLine(Solver(table_mb=1), pos, None, shown=False)
    assert status.cut_short("alone", "head") == "alone"            # nothing proved
    for seat, value in zip("NESW", (26, 4, 22, 17)):
        status.watch(seat, value, value)
    status.after = "optimal line for W"
    assert status.cut_short("alone", "head") == (       # (N's C2 is forced: no cards to value)
        "head for the optimal line for W; the analysis was done: N 26 · E 4 · S 22 · W 17")


@pytest.mark.parametrize("threads, signum, status, message", [
    ("1", signal.SIGINT, 130, "interrupted"), ("2", signal.SIGINT, 130, "interrupted"),
    ("1", signal.SIGTERM, 143, "stopped by SIGTERM"), ("2", signal.SIGHUP, 129, "stopped by SIGHUP"),
])
def test_ctrl_c_stops_a_long_search_at_once_with_one_line(threads: str, signum: int, status: int,
                                                          message: str) -> None:
    """The search runs without the GIL, where Python never sees the signal: the engine must
    notice Ctrl-C itself (it used to run on to the end of the solve, here about half a minute),
    and so SIGTERM and SIGHUP."""
    hard = Deal.random(2).pbn()
    proc = subprocess.Popen([str(COMMAND), "analyze", "--deal", hard, "--threads", threads, "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=as_in_a_terminal)
    try:
        handling(proc.pid, signum)   # past start-up (its handler set)
        sent_at = busy(proc, 1.0)    # and a CPU second into the search
        proc.send_signal(signum)
        after = exited_cpu(proc, within=60) - sent_at   # (a wall bound only as a backstop)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert after < 3, f"{after:.2f} s of CPU after the signal"   # (the whole solve: 20-30 s)
    assert proc.returncode == status and out == ""
    assert err == f"hearts-dd: error: {message}\n"       # one line (click adds a blank one to ^C)


@pytest.fixture
def sigint_kept() -> Iterator[None]:
    """The test process's Ctrl-C handler put back (the entry point ignores a second Ctrl-C
    while it leaves)."""
    kept = signal.getsignal(signal.SIGINT)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, kept)


@pytest.mark.parametrize("raised", [KeyboardInterrupt(), RuntimeError("Error calling __set_name__")],
                         ids=["ctrl-c", "ctrl-c in a class being made"])
def test_ctrl_c_while_the_command_loads_is_one_line(raised: BaseException, sigint_kept: None,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Before the CLI has loaded (its handlers not yet set) Ctrl-C printed a traceback; and on
    Python 3.11 one that came as a dataclass was made is a RuntimeError caused by it."""
    from solver import launch
    if isinstance(raised, RuntimeError):
        raised.__cause__ = KeyboardInterrupt()

    def interrupted(name: str) -> None:
        if name != "main":          # (pytest's report of a failure looks for ``__file__``)
            raise AttributeError(name)
        raise raised

    loading = types.ModuleType("solver.cli")
    loading.__getattr__ = interrupted  # type: ignore[attr-defined]  # (PEP 562)
    monkeypatch.setitem(sys.modules, "solver.cli", loading)
    with pytest.raises(SystemExit) as done:
        launch.main()
    assert done.value.code == 130 and capsys.readouterr().err == "hearts-dd: error: interrupted\n"


def test_another_error_while_the_command_loads_is_not_taken_for_ctrl_c(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from solver import launch

    def broken(name: str) -> None:
        if name != "main":
            raise AttributeError(name)
        raise RuntimeError("a bug")

    loading = types.ModuleType("solver.cli")
    loading.__getattr__ = broken  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "solver.cli", loading)
    with pytest.raises(RuntimeError, match="a bug"):
        launch.main()


@pytest.mark.parametrize("when", ["setting the handlers", "after"])
def test_ctrl_c_as_the_command_sets_its_handlers_is_one_line(when: str) -> None:
    """The handlers were set, and the standard streams checked, before the ``try`` that
    reports a Ctrl-C: one then (a KeyboardInterrupt before the handler, ``Stopped`` after it)
    was a traceback. Here the Ctrl-C comes at those moments, on cue."""
    cue = ("cli.watch_signal = lambda signum: (_ for _ in ()).throw(KeyboardInterrupt())"
           if when == "setting the handlers" else
           "cli.standard_streams = lambda: os.kill(os.getpid(), signal.SIGINT)")
    script = f"import os, signal\nfrom solver import launch, cli\n{cue}\nlaunch.main()"
    result = subprocess.run([sys.executable, "-c", script, "analyze", "--deal", DEAL],
                            capture_output=True, text=True, timeout=60, preexec_fn=as_in_a_terminal)
    assert result.returncode == 130 and result.stdout == ""
    assert result.stderr == "hearts-dd: error: interrupted\n"


def test_ctrl_c_at_any_moment_of_start_up_is_one_line() -> None:
    """Ctrl-C sent at moments through the command's start-up, while Python loads the package
    (about a fifth of a second here): the entry point imported a few modules outside its guard,
    and the CLI set its handlers outside its own, and a Ctrl-C there was a traceback.

    What comes before the package's first line is Python's start-up, out of its reach: there
    Ctrl-C kills the process (before Python has its handler) or ends Python's start-up with
    Python's own message ("Fatal Python error: init_..."), as it would for any Python program;
    those are told apart here by no line of the package being in the traceback (a frame of
    its files: the folder's name alone is also in Python's own KeyError as it looks the
    folder up in its importer cache, struck there by a Ctrl-C before the package's first line)."""
    import solver
    package = f'File "{Path(solver.__file__).parent}{os.sep}'
    ours = done = 0
    # every 3 ms through Python's start-up, then further apart until the command is done (a
    # busy machine starts slowly)
    for delay_ms in (*range(0, 60, 3), 60, 80, 110, 150, 200, 300, 450, 700, 1000, 1500, 2500):
        for _ in range(2):
            proc = subprocess.Popen([str(COMMAND), "analyze", "--deal", "N:.A..2 .2..3 .3..4 .4..5",
                                     "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True, preexec_fn=as_in_a_terminal)
            time.sleep(delay_ms / 1000)
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=60)
            seen = (delay_ms, proc.returncode, out, err)
            assert package not in err, seen
            if proc.returncode == 130:          # (or just after the answer was written)
                ours += 1
                assert err == "hearts-dd: error: interrupted\n" and (not out or '"players"' in out), seen
            elif out:   # done (or a Ctrl-C Python's start-up let pass: "Exception ignored in" a
                        # callback of its imports)
                done += 1
                assert '"players"' in out and proc.returncode in (0, -signal.SIGINT), seen
            else:                               # (Python's start-up)
                assert proc.returncode in (-signal.SIGINT, 1), seen
        if done and delay_ms > 60:
            break
    assert ours, "no Ctrl-C came while the package loaded"


def test_no_command_shows_the_help() -> None:
    """(It came squeezed into one error line.)"""
    result = subprocess.run([str(COMMAND)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("Usage: hearts-dd") and "analyze" in result.stderr


def test_a_second_signal_while_stopping_is_ignored() -> None:
    """A terminal's Ctrl-C goes to the whole group and a wrapper may pass it on as well: the
    second signal, a moment after the first, broke into the unwinding (a traceback at exit)."""
    proc = subprocess.Popen([str(COMMAND), "analyze", "--deal", Deal.random(2).pbn(), "--threads", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=as_in_a_terminal)
    try:
        time.sleep(1.5)
        proc.send_signal(signal.SIGINT)
        time.sleep(0.002)
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and out == "" and err == "hearts-dd: error: interrupted\n"


def test_a_signal_long_after_the_first_ends_a_hanging_stop_at_once(
        monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """... and removes the output being written, which no unwinding will."""
    from solver import cli as command
    part = tmp_path / ".out.jsonl.x.part"
    part.write_text("half")
    monkeypatch.setattr(command, "_stopped_at", [])
    monkeypatch.setattr(command, "temporary_files", {str(part)})
    exits: list[int] = []

    def end(status: int) -> None:
        exits.append(status)
        raise SystemExit(status)          # (os._exit does not return)

    monkeypatch.setattr(command.os, "_exit", end)
    with pytest.raises(command.Stopped):
        command._stop(signal.SIGINT, None)
    command._stop(signal.SIGINT, None)                  # a moment later: the same stop
    assert exits == []
    command._stopped_at[0] -= command.REPEAT_GRACE      # later: the stop hangs
    with pytest.raises(SystemExit):
        command._stop(signal.SIGTERM, None)
    assert exits == [143] and not part.exists()
    assert capfd.readouterr().err == "hearts-dd: error: stopped at once (signalled again)\n"


#: A program that stops as the command does, whose stop comes while a finaliser runs (as a Dask
#: future's ``__del__`` did, when the garbage collector ran it between two lines of a run).
STOPPED_IN_A_FINALISER = """
import os, signal, time
from solver import cli
cli._install_handlers()


class Finalised:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):       # the handler runs here, inside the finaliser
            pass


try:
    Finalised()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        time.sleep(0.01)
    print("went on")
except cli.Stopped as e:
    print("stopped", e.signum)
"""


def test_a_stop_that_comes_inside_a_finaliser_still_stops_the_run() -> None:
    """Python drops an exception raised in a finaliser (printing "Exception ignored in" and a
    traceback): the stop was lost, and a Ctrl-C of ``annotate --dask`` let the run go on. It
    is signalled again once the finaliser is done, and stops the run as any other."""
    p = subprocess.run([sys.executable, "-c", STOPPED_IN_A_FINALISER], capture_output=True, text=True,
                       timeout=60, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                       preexec_fn=as_in_a_terminal)   # (a run in the background ignores Ctrl-C)
    assert (p.stdout, p.stderr) == (f"stopped {int(signal.SIGINT)}\n", "")


@pytest.mark.parametrize("closed, args, status, out, err", [
    # an answer to the output even where no message can go (as under some daemons)
    (2, ["--json"], 0, '"players"', ""),
    (1, ["--json"], 2, "", "hearts-dd: error: cannot write standard output: Bad file descriptor\n"),
    (1, [], 2, "", "hearts-dd: error: cannot write standard output: Bad file descriptor\n"),
])
def test_a_standard_stream_closed_at_start(closed: int, args: list[str], status: int, out: str,
                                           err: str) -> None:
    """Python gives a closed stream as None, on which the first use failed: a traceback, or
    (output closed) exit 0 with the answer lost."""
    result = subprocess.run([str(COMMAND), "analyze", "--deal", "N:.A..2 .2..3 .3..4 .4..5", *args],
                            capture_output=True, text=True, timeout=120,
                            preexec_fn=lambda: os.close(closed))
    assert result.returncode == status
    assert out in result.stdout and (out or result.stdout == "") and result.stderr == err


def test_an_input_closed_or_failing_is_named() -> None:
    for name, shown in (("-", "standard input"), ("/dev/stdin", "/dev/stdin")):
        # (by name, a closed input held on /dev/null read as nothing: 0 positions, exit 0)
        closed = subprocess.run([str(COMMAND), "analyze", "--input", name], capture_output=True,
                                text=True, timeout=120, preexec_fn=lambda: os.close(0))
        assert closed.returncode == 2 and closed.stdout == ""
        assert closed.stderr == f"hearts-dd: error: {shown}: Bad file descriptor\n"
    if Path("/proc/self/mem").exists():                 # a file whose reading fails
        failing = analyze("--input", "/proc/self/mem")
        assert failing.returncode == 2
        assert failing.stderr == "hearts-dd: error: /proc/self/mem: Input/output error\n"


def unwritable(output: str) -> tuple[IO[bytes], int, str]:
    """A standard output that cannot be written, and the exit status and standard error that
    follow: one line for a full disk; for a reader gone (``| head``), no word and the status of
    a command that SIGPIPE ends, as other Unix tools end."""
    if output == "full disk":
        return (open("/dev/full", "wb"), 2,
                "hearts-dd: error: cannot write standard output: No space left on device\n")
    read, write = os.pipe()
    os.close(read)
    return open(write, "wb"), 128 + signal.SIGPIPE, ""


@pytest.mark.parametrize("args, output", [
    (["--json"], "full disk"), ([], "full disk"), (["--line", "N"], "full disk"),
    (["--help"], "full disk"), (["--help"], "reader gone"),
    (["--json"], "reader gone"), ([], "reader gone"), (["--line", "N"], "reader gone")])
def test_an_answer_that_cannot_be_written_is_one_line(args: list[str], output: str) -> None:
    small = "N:.A..2 .2..3 .3..4 .4..5"
    stdout, status, err = unwritable(output)
    with stdout:
        result = subprocess.run([str(COMMAND), "analyze", "--deal", small, *args], stdout=stdout,
                                stderr=subprocess.PIPE, text=True, timeout=120)
    assert (result.returncode, result.stderr) == (status, err)


@pytest.mark.parametrize("output", ["full disk", "reader gone"])
@pytest.mark.parametrize("args", [
    ["rules"], ["rules", "--json"],
    ["analyze", "--deal", "N:.A..2 .2..3 .3..4 .4..5", "--samples", "2", "--seed", "1"],
    ["analyze", "--deal", "N:.A..2 .2..3 .3..4 .4..5", "--samples", "2", "--seed", "1", "--json"],
    ["analyze", "--input", "-"]], ids=["rules", "rules json", "samples", "samples json", "input"])
def test_other_answers_that_cannot_be_written_are_one_line(args: list[str], output: str) -> None:
    """Each command writes its answer in its own place (the rules, a weighing, --input's
    lines): each must end as analyze's answer does above."""
    stdout, status, err = unwritable(output)
    with stdout:
        result = subprocess.run([str(COMMAND), *args], stdout=stdout, stderr=subprocess.PIPE,
                                input='{"deal": "N:.A..2 .2..3 .3..4 .4..5"}\n', text=True, timeout=120)
    assert (result.returncode, result.stderr) == (status, err)


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["--version"], ["analyze", "--help"],
                                  ["annotate", "-h"], ["moon", "--help"], ["serve", "--help"]])
@pytest.mark.parametrize("output", ["full disk", "reader gone"])
def test_help_that_cannot_be_written_is_one_line_as_an_answer_is(args: list[str], output: str) -> None:
    """Help and the version, which click writes itself, fail as every command's output does
    (above), where click once ended a broken pipe with exit 1."""
    stdout, status, err = unwritable(output)
    with stdout:
        result = subprocess.run([str(COMMAND), *args], stdout=stdout, stderr=subprocess.PIPE,
                                text=True, timeout=120)
    assert (result.returncode, result.stderr) == (status, err)
    written = subprocess.run([str(COMMAND), *args], capture_output=True, text=True, timeout=120)
    assert written.returncode == 0 and written.stdout and written.stderr == ""


@pytest.mark.parametrize("encoding", ["cp1252", "latin-1", "ascii"])
def test_a_console_without_the_suit_symbols_gets_letters(encoding: str) -> None:
    """(click wrote UTF-8 to an ASCII stream, taking it for a misconfigured locale.)"""
    small = "N:9.2.K.A4 .A64.T.8 Q8..64.7 62.9.AJ."
    result = subprocess.run([str(COMMAND), "analyze", "--deal", small, "--line", "N"],
                            capture_output=True, timeout=120,
                            env={**os.environ, "PYTHONIOENCODING": encoding})
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode(encoding)
    assert "S 62" in out and "H A64" in out and "-> S, 14 points" in out
    assert "?" not in out and result.stderr == b""


@pytest.mark.parametrize("args, stream, written", [
    (["analyze", "--help"], "stdout", "(SPEC section 4)"),
    (["annotate", "-h"], "stdout", "jsonl (SPEC section 6)"),
    (["analyze", "--deal", DEAL, "--rules", '{"mo\u00f6n": "add"}'], "stderr",
     "hearts-dd: error: --rules: unknown rule key 'mo?n'"),
])
def test_an_ascii_console_gets_ascii_help_and_errors(args: list[str], stream: str, written: str) -> None:
    """click writes its help pages itself, and wrote them, and every message, in UTF-8 to a
    stream that says ASCII: now the help's symbols are spelt out, as the reports' are, and
    what an error quotes is ``?`` where ASCII has no letter for it."""
    result = subprocess.run([str(COMMAND), *args], capture_output=True, timeout=120,
                            env={**os.environ, "PYTHONIOENCODING": "ascii"})
    text = (result.stdout if stream == "stdout" else result.stderr).decode("ascii")
    assert written in text and result.returncode == (0 if stream == "stdout" else 2)


@pytest.mark.parametrize("command", [[], ["analyze"], ["annotate"], ["moon"], ["serve"]])
def test_help_pages_survive_python_dash_oo(command: list[str]) -> None:
    """``python -OO`` (``PYTHONOPTIMIZE=2``) strips docstrings, which were the commands' help:
    their pages lost what each does and its exit statuses, leaving the options alone."""
    def page(optimize: str) -> str:
        result = subprocess.run([sys.executable, "-m", "solver.cli", *command, "--help"],
                                capture_output=True, text=True, timeout=120,
                                env={**os.environ, "PYTHONOPTIMIZE": optimize,
                                     "PYTHONDONTWRITEBYTECODE": "1"})
        assert result.returncode == 0, result.stderr
        return result.stdout

    plain = page("")
    assert page("2") == plain
    assert {"analyze": "Exit status 2 for bad input", "annotate": "Exit status 1 when a record",
            "moon": "Exit status 1 when a record", "serve": "Serve the JSON API (docs at /docs)"}.get(
        "".join(command), "Exact double-dummy analysis of Hearts deals.") in " ".join(plain.split())


def test_a_table_beyond_the_memory_limit_is_one_line() -> None:
    import resource
    limit = 200 << 20        # room for Python, not for the table
    result = subprocess.run([str(COMMAND), "analyze", "--deal", "N:.A..2 .2..3 .3..4 .4..5",
                             "--table-mb", "256"], capture_output=True, text=True, timeout=120,
                            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == ("hearts-dd: error: out of memory: cannot allocate a transposition table "
                             "of 268435456 bytes (a smaller --table-mb may fit)\n")


EDIT_CHARS = "AKQJT98765432.: NESWnesw-CHDShdc10♠♥{}[],\"x"
EDITS = st.lists(st.tuples(st.sampled_from(["delete", "insert", "replace"]), st.integers(0, 10**6),
                           st.sampled_from(EDIT_CHARS)), min_size=1, max_size=3)
RULE_TEXTS = ["standard", "omnibus", "spot", "black-maria", '{"moon": "none"}',
              '{"hearts_break": "queen"}', '{"trick_points": 1, "partnership": true}']


def edit(text: str, edits: list[tuple[str, int, str]]) -> str:
    """``text`` with a few characters deleted, inserted or replaced."""
    chars = list(text)
    for op, at, char in edits:
        i = at % (len(chars) + 1)
        if op == "insert":
            chars.insert(i, char)
        elif chars:
            i = min(i, len(chars) - 1)
            if op == "delete":
                del chars[i]
            else:
                chars[i] = char
    return "".join(chars)


@given(seed=st.integers(0, 10**6), cards=st.integers(36, 51), rules=st.sampled_from(RULE_TEXTS),
       mangle=st.sampled_from(["deal", "play", "rules", "none"]), edits=EDITS)
@PROPERTY
def test_mangled_input_is_an_answer_or_one_line(seed, cards, rules, mangle, edits) -> None:
    """A valid position (a random deal, then random legal cards) with a few characters of one
    field changed: either a JSON answer or one line on stderr with exit 2, never a traceback.
    In-process, so many examples run quickly; late cards exercise the legality checks."""
    deal = Deal.random(seed)
    played = random_play(Position.start(deal, Rules.parse(rules)), random.Random(seed), cards)
    fields = {"deal": deal.pbn(), "play": " ".join(map(str, played)), "rules": rules}
    if mangle != "none":
        fields[mangle] = edit(fields[mangle], edits)
    args = ["analyze", "--json", "--threads", "1", "--table-mb", "8"]
    for name, value in fields.items():
        args += [f"--{name}", value]
    result = CliRunner().invoke(cli, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    if result.exit_code == 0:
        assert json.loads(result.stdout)["players"]
        assert result.stderr == ""
    else:
        assert result.exit_code == 2, result.stderr
        assert result.stdout == ""
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert result.stderr.startswith("hearts-dd: error:")
