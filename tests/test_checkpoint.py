"""``hearts-dd annotate -o OUT --resume`` (solver/checkpoint.py) as a user runs it: a run that
stops keeps its records in OUT.part and OUT.checkpoint, and the same command again ends with
the file an uninterrupted run writes, byte for byte."""
from __future__ import annotations

import fcntl
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from benchmarks.record_files import endgame_file
from signals import WHOLE_THEN_STOPPED, as_in_a_terminal
from solver import checkpoint as checkpoint_module
from solver.checkpoint import Checkpoint
from solver.pbn import Record, count_games, read_records

ROOT = Path(__file__).resolve().parent.parent
SUMMARY = re.compile(r"^hearts-dd: (\d+) records?, (\d+) annotated, (\d+) with errors, [\d.]+ s$")
KEPT = re.compile(r"^hearts-dd: (\d+) records? kept in (.+\.part) \(and (.+\.checkpoint)\): run the "
                  r"same command again to go on from there$")
STOPPED = {signal.SIGINT: "interrupted", signal.SIGTERM: "stopped by SIGTERM",
           signal.SIGHUP: "stopped by SIGHUP", signal.SIGXCPU: "stopped by SIGXCPU"}
SUFFIX = {"jsonl": "jsonl", "csv": "csv", "pbn": "pbn", "text": "txt"}
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


#: ``hearts-dd ARGS...`` run with its worker pool lost twice (python -c LOST_TWICE FIRST SECOND
#: ARGS...): the workers killed once the chunk whose first record is FIRST has been sent, and
#: again once the one of SECOND has (each time as soon as the chunk is in the pool, and the pool
#: seen broken before the run goes on); after the second loss the system starts no more
#: processes, as under a limit on them (ulimit -u) or with no memory left.
LOST_TWICE = r"""
import errno, sys, time
from solver import batch
from solver.launch import main
first, second = int(sys.argv[1]), int(sys.argv[2])
sys.argv = ["hearts-dd", *sys.argv[3:]]
lost = []
submit, Pool = batch._Processes._submit, batch.ProcessPoolExecutor


def lose(pool):
    for process in list(pool._processes.values()):
        process.kill()
    deadline = time.monotonic() + 60
    while not pool._broken:
        assert time.monotonic() < deadline, "the pool was not seen lost"
        time.sleep(0.01)


def _submit(self, records, options):
    future, pool = submit(self, records, options)
    if records[0].index in (first, second) and records[0].index not in lost:
        lost.append(records[0].index)
        lose(pool)
    return future, pool


def refused(*args, **kwargs):
    if len(lost) == 2:
        raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")
    return Pool(*args, **kwargs)


batch._Processes._submit = _submit
batch.ProcessPoolExecutor = refused
main()
"""


#: ``hearts-dd annotate ARGS...`` held once its checkpoint counts HOLD records (python -c HELD
#: HOLD ARGS...): the run saves its checkpoint there and waits until a signal stops it, so that
#: a test interrupts it at a known record. (A signal the worker pool's thread takes reaches the
#: main thread between its sleeps.)
HELD = r"""
import sys, time
from solver.checkpoint import Checkpoint
from solver.cli import main
hold = int(sys.argv[1])
sys.argv = ["hearts-dd", "annotate", *sys.argv[2:]]
writing = Checkpoint.writing


def held(self, write):
    counted_write = writing(self, write)

    def held_write(record, result):
        counted_write(record, result)
        if self.done.records == hold:
            self.save()
            while True:
                time.sleep(0.05)
    return held_write


Checkpoint.writing = held
main()
"""


def command(*args: str, hold: int | None = None) -> list[str]:
    if hold is not None:
        return [sys.executable, "-c", HELD, str(hold), *args]
    return [sys.executable, "-m", "solver.cli", "annotate", *args]


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(command(*args), capture_output=True, timeout=300, cwd=ROOT, env=ENV,
                          input=stdin)


def summary(p: subprocess.CompletedProcess) -> tuple[int, int, int]:
    lines = p.stderr.decode().strip().splitlines()
    assert len(lines) == 1, lines
    m = SUMMARY.match(lines[0])
    assert m, lines[0]
    return tuple(int(x) for x in m.groups())    # type: ignore[return-value]


def sidecar(out: Path) -> dict | None:
    try:
        return json.loads(Path(f"{out}.checkpoint").read_text())
    except (OSError, ValueError):   # (not there yet)
        return None


def stopped_at(args: list[str], out: Path, hold: int | None, signum: int = signal.SIGTERM,
               until: int = 1, stdin: Path | None = None) -> tuple[int, list[str]]:
    """The command, stopped by ``signum`` once its checkpoint holds ``hold`` records (where
    the run waits: HELD), or, without ``hold``, ``until`` records or more (saved as the run
    goes). Its exit status and stderr's lines. Its checkpoint is never read half written: the
    sidecar is replaced whole."""
    with open(stdin or os.devnull, "rb") as given:
        child = subprocess.Popen(command(*args, hold=hold), cwd=ROOT, env=ENV,
                                 stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, stdin=given,
                                 start_new_session=True, preexec_fn=as_in_a_terminal)
    deadline = time.monotonic() + 120
    while (state := sidecar(out)) is None or state["records"] < (until if hold is None else hold):
        assert child.poll() is None, child.stderr.read().decode()     # type: ignore[union-attr]
        assert time.monotonic() < deadline, "no checkpoint"
        time.sleep(0.02)
    os.kill(child.pid, signum)
    _, err = child.communicate(timeout=60)
    return child.returncode, err.decode().splitlines()


def files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def inputs(tmp_path: Path) -> list[str]:
    """Two inputs of small endgames (milliseconds each): the second neither starts with a
    ``% PBN`` line nor follows a blank line, so the pbn writer must know, when it goes on at
    the first record of b.pbn, what it wrote last."""
    a, b = tmp_path / "a.pbn", tmp_path / "b.pbn"
    a.write_bytes(endgame_file(12, seed=3, hand_size=3, play_cards=8))
    b.write_bytes(endgame_file(15, seed=4, hand_size=3, play_cards=6))
    return [str(a), str(b)]


@pytest.mark.parametrize("fmt, jobs, signum", [
    ("jsonl", "1", signal.SIGTERM), ("jsonl", "2", signal.SIGINT),
    ("csv", "1", signal.SIGHUP), ("csv", "2", signal.SIGTERM),
    ("pbn", "1", signal.SIGXCPU), ("pbn", "2", signal.SIGHUP),
    ("text", "1", signal.SIGINT), ("text", "2", signal.SIGXCPU),
])
def test_a_stopped_run_resumed_writes_the_uninterrupted_runs_file(tmp_path, inputs, fmt, jobs, signum):
    whole = tmp_path / f"whole.{SUFFIX[fmt]}"
    p = run(*inputs, "-o", str(whole), "-j", jobs)
    assert p.returncode == 0 and summary(p) == (27, 27, 0)
    out = tmp_path / f"out.{SUFFIX[fmt]}"
    args = [*inputs, "-o", str(out), "-j", jobs, "--resume"]
    for k in (5, 12, 20):       # (12: the last of a.pbn) stopped three times, on from each
        status, err = stopped_at(args, out, hold=k, signum=signum)
        assert status == 128 + signum
        assert len(err) == 2 and err[1] == f"hearts-dd: error: {STOPPED[signum]}", err
        kept = KEPT.match(err[0])
        assert kept and int(kept[1]) == k and kept[2] == f"{out}.part", err
        assert files(tmp_path) == sorted(["a.pbn", "b.pbn", whole.name, f"{out.name}.part",
                                          f"{out.name}.checkpoint"])
        # the checkpoint claims no record that is not written, whole, as the run writes it
        state = sidecar(out)
        assert state and state["records"] == k and state["errors"] == 0
        part = Path(f"{out}.part").read_bytes()
        assert len(part) >= state["bytes"] and whole.read_bytes().startswith(part[:state["bytes"]])
        if fmt == "jsonl":
            assert part[:state["bytes"]].count(b"\n") == k
    p = run(*args)
    assert p.returncode == 0, p.stderr
    assert summary(p) == (27, 27, 0)    # the records written before count in the summary
    assert out.read_bytes() == whole.read_bytes()
    assert files(tmp_path) == sorted(["a.pbn", "b.pbn", whole.name, out.name])


def test_a_run_with_resume_that_is_not_stopped_writes_the_same_file(tmp_path, inputs):
    p, q = (run(*inputs, "-o", str(tmp_path / name), "-j", "1", *more)
            for name, more in (("plain.csv", []), ("resumed.csv", ["--resume"])))
    assert p.returncode == q.returncode == 0 and summary(q) == (27, 27, 0)
    assert (tmp_path / "plain.csv").read_bytes() == (tmp_path / "resumed.csv").read_bytes()
    assert files(tmp_path) == ["a.pbn", "b.pbn", "plain.csv", "resumed.csv"]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("when", ["rename", "exit"])
def test_a_stop_once_the_output_is_whole_is_ignored(tmp_path, inputs, when, signum):
    """A stop that landed after the final rename (OUT.part made OUT, the sidecar removed, the
    run complete) ended the command in "interrupted" (exit 130, 143 for SIGTERM) though OUT was
    whole: a script would run it again for nothing, or a user throw the file away. From the
    rename on, a stop is ignored: the run ends as it would have. The stop is sent by the command
    to itself right after the rename, or at its exit after it (tests/signals.py)."""
    whole, out = tmp_path / "whole.jsonl", tmp_path / "out.jsonl"
    assert run(*inputs, "-o", str(whole), "-j", "1").returncode == 0
    p = subprocess.run([sys.executable, "-c", WHOLE_THEN_STOPPED, str(int(signum)), when,
                        "solver.checkpoint", str(out.resolve()), "annotate", *inputs,
                        "-o", str(out), "-j", "1", "--resume"],
                       capture_output=True, timeout=300, cwd=ROOT, env=ENV,
                       preexec_fn=as_in_a_terminal)
    assert p.returncode == 0, p.stderr
    assert summary(p) == (27, 27, 0)        # (the one line: no "interrupted", no "kept")
    assert out.read_bytes() == whole.read_bytes()
    assert files(tmp_path) == ["a.pbn", "b.pbn", "out.jsonl", "whole.jsonl"]


def test_local_dask_resumes_as_processes_do(tmp_path, inputs):
    pytest.importorskip("dask.distributed")
    whole, out = tmp_path / "whole.jsonl", tmp_path / "out.jsonl"
    assert run(*inputs, "-o", str(whole), "-j", "1").returncode == 0
    args = [*inputs, "-o", str(out), "-j", "2", "--dask", "local", "--chunk-size", "3", "--resume"]
    assert stopped_at(args, out, hold=10)[0] == 143
    p = run(*args)
    assert p.returncode == 0 and summary(p) == (27, 27, 0)
    assert out.read_bytes() == whole.read_bytes()


def test_a_run_killed_outright_resumes_from_its_last_checkpoint(tmp_path):
    """SIGKILL (the OOM killer, a reboot) gives the run no last word: what counts is the
    checkpoint it saved as it went (once a second), and what it wrote after that, up to a
    record half written, is cut off."""
    source = tmp_path / "slow.pbn"
    source.write_bytes(endgame_file(300, seed=5, hand_size=8, play_cards=32))  # seconds of work
    whole, out = tmp_path / "whole.jsonl", tmp_path / "out.jsonl"
    assert run(str(source), "-o", str(whole), "-j", "1").returncode == 0
    args = [str(source), "-o", str(out), "-j", "1", "--resume"]
    assert stopped_at(args, out, hold=None, signum=signal.SIGKILL) == (-signal.SIGKILL, [])
    state = sidecar(out)
    assert state and 0 < state["records"] < 300
    # writes after the last checkpoint, the last cut short: more than the rest of the output,
    # which would not cover them
    with open(f"{out}.part", "ab") as part:
        part.write(b'{"index": 999, "deal": "N:' * 200_000)
    assert os.path.getsize(f"{out}.part") > state["bytes"]
    p = run(*args)
    assert p.returncode == 0 and summary(p) == (300, 300, 0)
    assert out.read_bytes() == whole.read_bytes()
    assert files(tmp_path) == ["out.jsonl", "slow.pbn", "whole.jsonl"]


def test_a_failed_write_keeps_the_checkpoint_and_the_same_command_goes_on(tmp_path, inputs):
    """A full disk (here: a limit on file size) ends the run in one line, exit 2, as without
    --resume, and keeps what the checkpoint holds."""
    import resource
    whole, out = tmp_path / "whole.jsonl", tmp_path / "out.jsonl"
    assert run(*inputs, "-o", str(whole), "-j", "1").returncode == 0
    args = [*inputs, "-o", str(out), "-j", "1", "--resume"]
    assert stopped_at(args, out, hold=5)[0] == 143
    limit = sidecar(out)["bytes"] + 3000    # type: ignore[index]
    assert limit < len(whole.read_bytes())

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)     # writes past the limit fail (EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    p = subprocess.run(command(*args), capture_output=True, timeout=300, cwd=ROOT, env=ENV,
                       preexec_fn=small_files)
    err = p.stderr.decode().splitlines()
    assert p.returncode == 2 and len(err) == 2, err
    assert err[0] == f"hearts-dd: error: cannot write {out}: File too large"
    kept = KEPT.match(err[1])
    assert kept and int(kept[1]) >= 5 and int(kept[1]) == sidecar(out)["records"], err   # type: ignore[index]
    p = run(*args)
    assert p.returncode == 0 and summary(p) == (27, 27, 0)
    assert out.read_bytes() == whole.read_bytes()


def test_a_pool_lost_twice_that_ends_the_run_keeps_the_checkpoint_and_the_same_command_goes_on(
        tmp_path, inputs):
    """The worker pool lost (its workers killed: the OOM killer), and the fresh one lost in turn
    while the first's chunks were being sent again; after that the system starts no process.
    The run ends as a failed write does: the error in one line, then what is kept, exit 2, and
    no record written as "not annotated" (so that the same command finishes the uninterrupted
    run's file). The second loss came out of the wait that sent a chunk of the first pool again
    as a traceback (BrokenProcessPool), after the kept line, exit 1."""
    whole, out = tmp_path / "whole.jsonl", tmp_path / "out.jsonl"
    assert run(*inputs, "-o", str(whole), "-j", "1").returncode == 0
    args = [*inputs, "-o", str(out), "-j", "2", "--chunk-size", "1", "--resume"]
    # (a chunk a record: the pool's window of 8 is full by record 10, and chunks of the first pool
    # are still to be waited for when the second loss comes, at record 11)
    p = subprocess.run([sys.executable, "-c", LOST_TWICE, "10", "11", "annotate", *args],
                       capture_output=True, timeout=300, cwd=ROOT, env=ENV)
    err = p.stderr.decode().splitlines()
    assert p.returncode == 2 and len(err) == 2, err
    assert err[0] == ("hearts-dd: error: cannot start worker processes: Resource temporarily "
                      "unavailable (fewer --jobs may fit, or a higher limit on processes, ulimit -u)")
    kept = KEPT.match(err[1])
    assert kept and kept[2] == f"{out}.part", err
    state = sidecar(out)
    assert state and 0 < int(kept[1]) == state["records"] < 27 and state["errors"] == 0
    assert files(tmp_path) == sorted(["a.pbn", "b.pbn", whole.name, f"{out.name}.part",
                                      f"{out.name}.checkpoint"])
    p = run(*args)
    assert p.returncode == 0 and summary(p) == (27, 27, 0)
    assert out.read_bytes() == whole.read_bytes()
    assert files(tmp_path) == sorted(["a.pbn", "b.pbn", whole.name, out.name])


def test_records_with_errors_before_the_stop_make_the_resumed_run_exit_1(tmp_path):
    source = tmp_path / "bad.pbn"
    games = endgame_file(10, seed=2, hand_size=2).decode().split("\n\n")
    games[1] = re.sub(r'\[Deal "[^"]*"\]', '[Deal "N:AKQ. - - -"]', games[1])
    source.write_text("\n\n".join(games))
    whole, out = tmp_path / "whole.jsonl", tmp_path / "out.jsonl"
    p = run(str(source), "-o", str(whole), "-j", "1")
    assert p.returncode == 1 and summary(p)[2] == 1
    args = [str(source), "-o", str(out), "-j", "1", "--resume"]
    assert stopped_at(args, out, hold=4)[0] == 143
    assert sidecar(out)["errors"] == 1     # type: ignore[index]
    q = run(*args)
    assert q.returncode == 1 and summary(q) == summary(p) == (10, 9, 1)
    assert out.read_bytes() == whole.read_bytes()


def _checkpointed(tmp_path: Path, inputs: list[str], *more: str) -> tuple[Path, dict[str, bytes]]:
    """A run of ``inputs`` to out.jsonl stopped at 5 records, and its checkpoint's files."""
    out = tmp_path / "out.jsonl"
    assert stopped_at([*inputs, "-o", str(out), "-j", "1", "--resume", *more], out, hold=5)[0] == 143
    return out, _snapshot(out)


def _snapshot(out: Path) -> dict[str, bytes]:
    return {name: Path(f"{out}{name}").read_bytes() + str(os.stat(f"{out}{name}").st_mtime_ns).encode()
            for name in (".part", ".checkpoint")}


def _refused(p: subprocess.CompletedProcess, out: Path, kept: dict[str, bytes], *words: str) -> None:
    """Exit 2, one line naming the difference, and the checkpoint as it was."""
    err = p.stderr.decode().splitlines()
    assert p.returncode == 2 and len(err) == 1, err
    assert err[0].startswith(f"hearts-dd: error: {out}.checkpoint: ")
    for word in words:
        assert word in err[0], err
    assert _snapshot(out) == kept and not out.exists()


def test_a_checkpoint_of_other_inputs_is_refused_and_left_as_it_is(tmp_path, inputs):
    out, kept = _checkpointed(tmp_path, inputs)
    a = Path(inputs[0])
    a.write_bytes(a.read_bytes().replace(b'[Board "2"]', b'[Board "II"]'))   # same size
    _refused(run(*inputs, "-o", str(out), "--resume"), out, kept, "first 5 records", "input changed")
    _refused(run(inputs[0], "-o", str(out), "--resume"), out, kept, "made by another run (inputs ",
             "b.pbn, not ")


def test_inputs_that_end_before_the_records_it_holds_are_refused_saying_so(tmp_path, inputs):
    out, kept = _checkpointed(tmp_path, inputs)
    for path in inputs:             # (the same files, cut to their first games)
        games = Path(path).read_bytes().split(b"\n\n")
        Path(path).write_bytes(b"\n\n".join(games[:2]) + b"\n\n")
    held = sum(count_games(Path(path).read_bytes().splitlines(True)) for path in inputs)
    assert 0 < held < 5
    _refused(run(*inputs, "-o", str(out), "--resume"), out, kept,
             f"the inputs hold {held} records, fewer than the 5 it holds")


def test_a_data_file_left_without_its_checkpoint_is_written_over_from_the_start(tmp_path, inputs):
    """(its checkpoint removed by hand, say): none of it is kept, past the new output's end
    either."""
    out = tmp_path / "out.jsonl"
    Path(f"{out}.part").write_bytes(b"stale\n" * 100_000)
    p = run(*inputs, "-o", str(out), "--resume")
    assert p.returncode == 0 and out.read_bytes() == run(*inputs).stdout


def test_a_resumable_run_s_output_has_the_permissions_of_the_file_it_replaces(tmp_path, inputs):
    out = tmp_path / "out.jsonl"
    out.write_text("old\n")
    out.chmod(0o640)
    assert run(*inputs, "-o", str(out), "--resume").returncode == 0
    assert out.stat().st_mode & 0o777 == 0o640 and len(out.read_bytes().splitlines()) == 27


def test_an_input_touched_or_copied_since_is_resumed_by_its_content(tmp_path, inputs):
    """The check is by content: a time stamp that changed (a copy, a touch) is no reason to
    throw hours of work away."""
    out, _ = _checkpointed(tmp_path, inputs)
    os.utime(inputs[0], (1, 1))
    p = run(*inputs, "-o", str(out), "--resume")
    assert p.returncode == 0 and summary(p) == (27, 27, 0)
    assert out.read_bytes() == run(*inputs).stdout


def test_standard_input_is_resumed_by_its_content(tmp_path, inputs):
    """Standard input has no size or time stamp to check: its content is checked."""
    a = Path(inputs[0])
    out = tmp_path / "out.pbn"
    assert stopped_at(["-", "-o", str(out), "-j", "1", "--resume"], out, hold=5, stdin=a)[0] == 143
    kept = _snapshot(out)
    other = Path(inputs[1]).read_bytes()
    _refused(run("-", "-o", str(out), "--resume", stdin=other), out, kept, "first 5 records")
    p = run("-", "-o", str(out), "--resume", stdin=a.read_bytes())
    assert p.returncode == 0 and summary(p) == (12, 12, 0)
    assert out.read_bytes() == run("-", "--format", "pbn", stdin=a.read_bytes()).stdout


def test_a_checkpoint_of_other_options_is_refused_and_left_as_it_is(tmp_path, inputs):
    out, kept = _checkpointed(tmp_path, inputs)
    for more, words in ((["--format", "csv"], ["--format jsonl, not csv"]),
                        (["--rules", "omnibus"], ["--rules standard, not omnibus"]),
                        (["--no-review"], ["--review/--no-review on, not off"]),
                        (["--time-limit", "5"], ["--time-limit 0.0, not 5.0"])):
        _refused(run(*inputs, "-o", str(out), "--resume", *more), out, kept, *words)
    # the same files by other names, which each record of several inputs gives
    (tmp_path / "link").symlink_to(tmp_path)
    renamed = [str(tmp_path / "link" / Path(p).name) for p in inputs]
    _refused(run(*renamed, "-o", str(out), "--resume"), out, kept, "link/b.pbn): give the same inputs")
    state = json.loads(kept[".checkpoint"][:kept[".checkpoint"].rindex(b"}") + 1])
    state["run"]["version"] = "0.0.1"
    Path(f"{out}.checkpoint").write_text(json.dumps(state))
    kept = _snapshot(out)
    _refused(run(*inputs, "-o", str(out), "--resume"), out, kept, "hearts-dd version 0.0.1, not")


@pytest.mark.parametrize("content, why", [
    (b"", "Expecting value"), (b"{not json", "Expecting property name"),
    # (no words of Python's: they were "('records')" and "('list' object has no attribute 'get')")
    (b'{"hearts-dd checkpoint": 2}', "a field is missing or bad"),
    (b"[1, 2]", "not a hearts-dd checkpoint of this version"),
    (b'{"hearts-dd checkpoint": 3}', "not a hearts-dd checkpoint of this version"),   # a later one's
    (b'{"hearts-dd checkpoint": 1}', "not a hearts-dd checkpoint of this version"),   # without the data's hash
    (b'{"hearts-dd checkpoint": 2, "records": -1, "annotated": 0, "errors": 0, "bytes": 0, '
     b'"input_sha256": "", "output_sha256": "", "run": {}}', "a field is missing or bad"),
    (b'{"hearts-dd checkpoint": 2, "records": 0, "annotated": 0, "errors": 0, "bytes": -1, '
     b'"input_sha256": "", "output_sha256": "", "run": {}}', "a field is missing or bad"),
    (b'{"hearts-dd checkpoint": 2, "records": 1, "annotated": 2, "errors": 0, "bytes": 0, '
     b'"input_sha256": "", "output_sha256": "", "run": {}}', "a field is missing or bad"),   # its summary said 2
    (b'{"hearts-dd checkpoint": 2, "records": true, "annotated": 0, "errors": 0, "bytes": 0, '
     b'"input_sha256": "", "output_sha256": "", "run": {}}', "a field is missing or bad"),
    (b'{"hearts-dd checkpoint": 2, "records": 0, "annotated": 0, "errors": 0, "bytes": 0, '
     b'"input_sha256": "", "run": {}}', "a field is missing or bad"),     # (no data's hash)
    (b'{"hearts-dd checkpoint": 2, "records": 0, "annotated": 0, "errors": 0, "bytes": 0, '
     b'"input_sha256": 0, "output_sha256": "", "run": {}}', "a field is missing or bad"),
    (b'{"hearts-dd checkpoint": 2, "records": 0, "annotated": 0, "errors": 0, "bytes": 0, '
     b'"input_sha256": "", "output_sha256": "", "run": []}', "a field is missing or bad"),
    (b"[" * 100_000, "nested too deeply")])     # (was a traceback)
def test_an_unreadable_checkpoint_is_one_line_and_left_as_it_is(tmp_path, inputs, content, why):
    out, _ = _checkpointed(tmp_path, inputs)
    Path(f"{out}.checkpoint").write_bytes(content)
    _refused(run(*inputs, "-o", str(out), "--resume"), out, _snapshot(out),
             f"not a readable checkpoint ({why}", "to start over")


def test_a_checkpoint_that_is_a_link_is_not_followed(tmp_path, inputs):
    """A link where the checkpoint goes (planted, or made by hand) is neither read through nor
    replaced: one line, and the link and what it names are left as they were."""
    out, target = tmp_path / "out.jsonl", tmp_path / "elsewhere"
    target.write_text("not yours\n")
    Path(f"{out}.checkpoint").symlink_to(target)
    p = run(*inputs, "-o", str(out), "--resume")
    err = p.stderr.decode().splitlines()
    assert p.returncode == 2 and err == [
        f"hearts-dd: error: {out}.checkpoint: cannot read it: Too many levels of symbolic links"]
    assert os.readlink(f"{out}.checkpoint") == str(target) and target.read_text() == "not yours\n"
    assert not out.exists() and not Path(f"{out}.part").exists()


def test_a_second_run_on_the_same_output_is_refused_while_the_first_writes(tmp_path, inputs):
    """Two runs resuming one checkpoint at once would write over each other's records: the
    second is refused in one line, and the first's files are left as they were."""
    out, kept = _checkpointed(tmp_path, inputs)
    with open(f"{out}.part", "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)        # (as the first run holds it)
        p = run(*inputs, "-o", str(out), "--resume")
    _refused(p, out, kept, f"{out}.part is being written by another run")
    q = run(*inputs, "-o", str(out), "--resume")     # (and once it is done, resumed as ever)
    assert q.returncode == 0 and summary(q) == (27, 27, 0)


def test_a_checkpoint_whose_data_is_gone_or_short_is_refused(tmp_path, inputs):
    out, _ = _checkpointed(tmp_path, inputs)
    part = Path(f"{out}.part")
    part.write_bytes(part.read_bytes()[:100])
    _refused(run(*inputs, "-o", str(out), "--resume"), out, _snapshot(out), "holds 100 bytes")
    part.unlink()
    p = run(*inputs, "-o", str(out), "--resume")
    assert p.returncode == 2 and "out.jsonl.part, the output it describes, is missing" in p.stderr.decode()


def test_a_checkpoint_whose_data_is_another_users_is_refused(tmp_path, inputs):
    """An OUT.part of another user's (a shared folder, a link's target made so): resumed, the
    run would write into their file."""
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")
    out, _ = _checkpointed(tmp_path, inputs)
    os.chown(f"{out}.part", 4321, -1)
    _refused(run(*inputs, "-o", str(out), "--resume"), out, _snapshot(out),
             f"{out}.part is not a regular file of yours")


def test_a_run_stopped_before_its_first_record_leaves_nothing_behind(tmp_path):
    """Nothing done, nothing to resume: no OUT.part, no checkpoint and no word of records kept
    (standard input held open, no record yet)."""
    out = tmp_path / "out.jsonl"
    child = subprocess.Popen(command("-", "-o", str(out), "--resume"), cwd=ROOT, env=ENV,
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             start_new_session=True, preexec_fn=as_in_a_terminal)
    deadline = time.monotonic() + 60
    while not Path(f"{out}.part").exists():
        assert child.poll() is None and time.monotonic() < deadline, child.stderr.read()  # type: ignore[union-attr]
        time.sleep(0.02)
    os.kill(child.pid, signal.SIGTERM)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 143 and b"kept in" not in err, err
    assert files(tmp_path) == []


def test_a_checkpoint_whose_data_or_byte_count_was_edited_is_refused(tmp_path, inputs):
    """The data's complete part is hashed: a run went on from an edited OUT.part, or from a
    sidecar whose byte count was lowered by hand, with the next record after half of one."""
    out, _ = _checkpointed(tmp_path, inputs)
    part, kept = Path(f"{out}.part"), Path(f"{out}.checkpoint").read_bytes()
    data = part.read_bytes()
    part.write_bytes(data.replace(b'"index": 0', b'"index": 9', 1))
    _refused(run(*inputs, "-o", str(out), "--resume"), out, _snapshot(out),
             f"out.jsonl.part's first {sidecar(out)['bytes']} bytes are not those it describes")
    part.write_bytes(data)
    state = json.loads(kept)
    state["bytes"] = data.index(b"\n") + 20
    Path(f"{out}.checkpoint").write_text(json.dumps(state))
    _refused(run(*inputs, "-o", str(out), "--resume"), out, _snapshot(out),
             f"first {state['bytes']} bytes are not those it describes", "remove both")
    Path(f"{out}.checkpoint").write_bytes(kept)
    p = run(*inputs, "-o", str(out), "--resume")
    assert p.returncode == 0 and summary(p) == (27, 27, 0)
    assert [json.loads(line)["index"] for line in out.read_bytes().splitlines()] == list(range(27))


@pytest.mark.parametrize("output", [None, "-", "/dev/stdout", "/dev/null", "fifo"])
def test_resume_without_a_regular_output_file_is_one_line_and_exit_2(tmp_path, inputs, output):
    args = [*inputs, "--resume"]
    if output == "fifo":
        os.mkfifo(tmp_path / "fifo")
        output = str(tmp_path / "fifo")
    if output is not None:
        args += ["-o", output]
    p = run(*args)
    err = p.stderr.decode().splitlines()
    assert p.returncode == 2 and len(err) == 1 and p.stdout == b"", err
    assert "--resume needs -o FILE" in err[0]


def _written(tmp_path: Path, count: int, written: int | None = None) -> tuple[str, Checkpoint, list[Record]]:
    """A checkpointed run to out.jsonl of ``count`` small endgames, the first ``written`` of
    them (all, by default) written ("x" a line): its target, checkpoint and records."""
    records = list(read_records(io.BytesIO(endgame_file(count, seed=1, hand_size=1))))
    target = str(tmp_path / "out.jsonl")
    cp = Checkpoint(target, {"format": "jsonl"}, 0o644)
    cp.begin(iter(records))

    def line(record: Record, result: dict[str, Any]) -> None:
        cp.out.write(b"x\n")

    write = cp.writing(line)
    for record in records[:written]:
        write(record, {"players": {}, "error": None})
    return target, cp, records


def test_a_checkpoint_its_thread_could_not_save_fails_the_next_record(tmp_path):
    """(a full disk, say): the run stops with the error, not going on with no checkpoint."""
    target, cp, records = _written(tmp_path, 3, 1)
    cp.failed = OSError(28, "No space left on device")
    write = cp.writing(lambda record, result: cp.out.write(b"x\n"))
    with pytest.raises(OSError, match="No space left on device"):
        write(records[1], {"players": {}, "error": None})
    assert cp.done.records == 1 and cp.done.bytes == 2
    cp.keep()


def test_a_stopped_run_says_how_many_records_it_keeps(tmp_path):
    target, cp, _ = _written(tmp_path, 3, 1)
    assert cp.keep() == (f"hearts-dd: 1 record kept in {target}.part (and out.jsonl.checkpoint): run "
                         "the same command again to go on from there")


def test_checkpoints_are_saved_once_a_second_not_once_a_record(tmp_path, monkeypatch):
    """A million small endgames must not wait on the disk for each: 3000 records written at
    once make a checkpoint at the start and few after, and it holds them all."""
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(checkpoint_module.os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    target, cp, _ = _written(tmp_path, 3000)
    time.sleep(checkpoint_module.INTERVAL * 1.5)
    # (each checkpoint syncs the data, the sidecar and their folder: 3 at the start, 3 after)
    assert len(synced) <= 9
    state = sidecar(Path(target))
    assert state and (state["records"], state["bytes"]) == (3000, 6000)
    cp.finish()
    assert files(tmp_path) == ["out.jsonl"]


def test_the_records_counted_off_move_the_progress_bar(tmp_path):
    """Counting off the records done (read and hashed, not solved) takes minutes for millions:
    the bar showed nothing meanwhile. ``begin`` now counts each (``annotate`` steps its bar)."""
    target, cp, records = _written(tmp_path, 40, 25)
    assert cp.keep()
    again = Checkpoint(target, {"format": "jsonl"}, 0o644)
    counted: list[int] = []
    last, _ = again.begin(iter(records), lambda: counted.append(1))
    assert len(counted) == 25 and last is records[24]
    again.finish()


def test_a_stop_as_the_output_is_renamed_keeps_nothing_to_resume(tmp_path):
    """A program of its own that lets a stop through ``finish`` (the command ignores one from
    the rename on): OUT is whole, so ``keep`` removes the checkpoint and says nothing is kept."""
    target, cp, _ = _written(tmp_path, 5)

    def stopped() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        cp.finish(stopped)
    assert cp.keep() is None
    assert files(tmp_path) == ["out.jsonl"] and Path(target).read_bytes() == b"x\n" * 5


def test_resume_to_a_folder_that_does_not_exist_is_one_line_and_leaves_nothing(tmp_path, inputs):
    p = run(*inputs, "-o", str(tmp_path / "no" / "out.jsonl"), "--resume")
    err = p.stderr.decode().splitlines()
    assert p.returncode == 2 and len(err) == 1 and "cannot write" in err[0], err
    assert files(tmp_path) == ["a.pbn", "b.pbn"]


def test_the_checkpoint_of_a_run_of_many_input_files_is_read_whole(tmp_path):
    """``annotate games/*.pbn`` over 20,000 files names each twice in the sidecar (its real path
    and the name given): over a megabyte, which was read cut short and refused as "not a
    readable checkpoint", so that such a run could never be resumed."""
    run = {"format": "jsonl", "inputs": [f"/data/hearts/archive/2024/board-{n:06}.pbn" for n in range(20_000)],
           "names": [f"board-{n:06}.pbn" for n in range(20_000)]}
    target = str(tmp_path / "out.jsonl")
    cp = Checkpoint(target, run, 0o644)
    cp.begin(iter([]))
    assert os.path.getsize(f"{target}.checkpoint") > 1 << 20
    cp._stop_saving()
    cp.out.close()
    again = Checkpoint(target, run, 0o644)      # (refused: CheckpointError)
    assert again.held is not None and again.held["run"] == run
    again.out.close()


def test_a_resumed_run_that_cannot_save_its_first_checkpoint_says_what_is_kept(tmp_path, inputs):
    """A full disk (here: a limit on file size smaller than the sidecar) when the resumed run
    saves its first checkpoint: the checkpoint on disk is the one it found, and the line said
    "0 records kept" of it, as if the hours it holds were lost."""
    import resource
    whole, out = tmp_path / "whole.jsonl", tmp_path / "out.jsonl"
    assert run(*inputs, "-o", str(whole), "-j", "1").returncode == 0
    args = [*inputs, "-o", str(out), "-j", "1", "--resume"]
    assert stopped_at(args, out, hold=5)[0] == 143
    kept = _snapshot(out)

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)     # writes past the limit fail (EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))

    p = subprocess.run(command(*args), capture_output=True, timeout=300, cwd=ROOT, env=ENV,
                       preexec_fn=small_files)
    err = p.stderr.decode().splitlines()
    assert p.returncode == 2 and len(err) == 2, err
    assert "File too large" in err[0]
    said = KEPT.match(err[1])
    assert said and int(said[1]) == 5, err
    assert {k: v for k, v in _snapshot(out).items() if k == ".checkpoint"} == \
        {".checkpoint": kept[".checkpoint"]}
    p = run(*args)
    assert p.returncode == 0 and summary(p) == (27, 27, 0)
    assert out.read_bytes() == whole.read_bytes()
