"""``hearts-dd annotate`` and ``hearts-dd moon`` as a user runs them (solver/cli_records.py)."""
from __future__ import annotations

import csv
import io
import itertools
import json
import os
import re
import signal
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Iterator

import pytest

from benchmarks.record_files import endgame_file
from signals import (WHOLE_THEN_STOPPED, Fed, as_in_a_terminal, blocking, finished, output_begun,
                     reader_left)
from solver import cli_common
from solver.batch import STOP_SIGNALS
from solver.bounded_lines import MAX_LINE
from solver.pbn import ANNOTATION_TAGS, read_records
from terminal import open_terminal, shown

ROOT = Path(__file__).resolve().parent.parent
PBN = Path(__file__).parent / "data" / "pbn"
SAMPLE = ROOT / "data" / "sample.pbn"
SUMMARY = re.compile(r"^hearts-dd: (\d+) records?, (\d+) annotated, (\d+) with errors, [\d.]+ s$")


def run(*args: str, cwd: Path | None = None, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver.cli", *args], capture_output=True, cwd=cwd,
                          input=stdin, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})


def summary(p: subprocess.CompletedProcess) -> tuple[int, int, int]:
    lines = p.stderr.decode().strip().splitlines()
    assert len(lines) == 1, lines                       # no progress bar when stderr is no terminal
    m = SUMMARY.match(lines[0])
    assert m, lines[0]
    return tuple(int(x) for x in m.groups())            # type: ignore[return-value]


def test_sample_file_annotates_cleanly_as_jsonl():
    p = run("annotate", str(SAMPLE), "-j", "1")
    assert p.returncode == 0
    results = [json.loads(line) for line in p.stdout.decode().splitlines()]
    assert summary(p) == (len(results), len(results), 0)
    for i, r in enumerate(results):
        assert list(r)[:4] == ["index", "deal", "players", "error"] and r["index"] == i
        assert set(r["players"]) == {"N", "E", "S", "W"}
        assert r["review"]["complete"]


def test_no_review_leaves_out_the_review_alone():
    """``--no-review``: each record as a reviewed run gives it, its play too, but with a null
    ``review``."""
    reviewed = [json.loads(line) for line in run("annotate", str(SAMPLE), "-j", "1").stdout.splitlines()]
    p = run("annotate", str(SAMPLE), "-j", "1", "--no-review")
    assert p.returncode == 0 and summary(p) == (len(reviewed), len(reviewed), 0)
    plain = [json.loads(line) for line in p.stdout.splitlines()]
    assert all(r["review"] is not None and r["play"] for r in reviewed)
    assert plain == [{**r, "review": None} for r in reviewed]


def test_a_thousand_records_give_identical_output_with_1_and_2_jobs_and_local_dask(tmp_path):
    pytest.importorskip("dask.distributed")
    source = tmp_path / "thousand.pbn"
    source.write_bytes(endgame_file(1000, seed=11, hand_size=3, play_cards=12))   # end positions:
    outputs = []                                                                  # ms each
    for args in (["-j", "1"], ["-j", "2"], ["-j", "2", "--dask", "local", "--chunk-size", "32"]):
        out = tmp_path / f"out{len(outputs)}.jsonl"
        with _port_taken(8787):     # a Dask dashboard elsewhere: no warning about its port
            p = run("annotate", str(source), "-o", str(out), *args)
        assert p.returncode == 0 and summary(p) == (1000, 1000, 0)
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]
    results = [json.loads(line) for line in outputs[0].splitlines()]
    assert [r["index"] for r in results] == list(range(1000))
    assert all(r["review"]["complete"] for r in results)


@contextmanager
def _port_taken(port: int) -> Iterator[None]:
    """``port`` in use while the block runs (by us, or by whoever already holds it)."""
    with socket.socket() as s:
        with suppress(OSError):
            s.bind(("", port))
            s.listen()
        yield


def test_record_errors_make_exit_status_1_and_are_one_line_each(tmp_path):
    out = tmp_path / "out.jsonl"
    p = run("annotate", str(PBN / "errors_10.pbn"), "-o", str(out), "--time-limit", "0.05", "-j", "2")
    assert p.returncode == 1 and p.stdout == b""
    results = [json.loads(line) for line in out.read_text().splitlines()]
    records, _, errors = summary(p)
    assert records == len(results) == 75 and errors == sum(r["error"] is not None for r in results)
    assert [r["index"] for r in results] == list(range(75))
    assert all("\n" not in (r["error"] or "") for r in results)


@pytest.mark.parametrize("name", sorted(p.name for p in PBN.glob("*.pbn")))
def test_every_conformance_file_goes_through_without_a_crash(name, tmp_path):
    p = run("annotate", str(PBN / name), "--time-limit", "0.05", "-j", "1", "--format", "csv")
    assert p.returncode in (0, 1), p.stderr
    records, _, _ = summary(p)
    rows = list(csv.DictReader(io.StringIO(p.stdout.decode())))
    assert len(rows) == records == len(list(read_records(io.BytesIO((PBN / name).read_bytes()))))


def test_several_inputs_and_standard_input_are_numbered_in_turn():
    p = run("annotate", str(SAMPLE), "-", "-j", "1", stdin=SAMPLE.read_bytes())
    results = [json.loads(line) for line in p.stdout.decode().splitlines()]
    assert [r["index"] for r in results] == list(range(10))
    assert results[0]["players"] == results[5]["players"]
    assert [r["file"] for r in results] == [str(SAMPLE)] * 5 + ["-"] * 5      # which file each is from
    text = run("annotate", str(SAMPLE), "-", "-j", "1", "--format", "text", stdin=SAMPLE.read_bytes())
    assert "\nRecord 5 (- line 1, board 1)\n" in text.stdout.decode()
    assert "file" not in json.loads(run("annotate", str(SAMPLE), "-j", "1").stdout.splitlines()[0])


def test_pbn_output_keeps_the_input_and_reannotating_changes_nothing(tmp_path):
    source = tmp_path / "in.pbn"
    # (and a game that leaves a { comment open, at the end of the file: tags written after it
    # would be comment text, so it gets none)
    source.write_bytes((PBN / "correct_10.pbn").read_bytes() + b"\n" +
                       endgame_file(5, seed=1, hand_size=4, play_cards=16) +
                       b'\n[Deal "N:A.2..3 K.3..4 Q.4..5 J.5..2"]\n{ left open\n')
    once, twice = tmp_path / "once.pbn", tmp_path / "twice.pbn"
    run("annotate", str(source), "-o", str(once), "--time-limit", "0.2", "-j", "1")
    run("annotate", str(once), "-o", str(twice), "--time-limit", "0.2", "-j", "1")
    assert once.read_bytes() == twice.read_bytes()
    # take hearts-dd's lines out again: the input comes back byte for byte
    ours = re.compile(rb"^\[(%s) " % b"|".join(t.encode() for t in ANNOTATION_TAGS))
    kept, skipping = [], False
    for line in once.read_bytes().splitlines(keepends=True):
        if ours.match(line):
            skipping = True
        elif skipping and (line.startswith(b"[") or not line.strip()):
            skipping = False
        if not skipping:
            kept.append(line)
    assert b"".join(kept) == source.read_bytes()
    annotated = list(read_records(io.BytesIO(once.read_bytes())))
    assert all(r.errors == [] for r in annotated[:-1] if "Deal" in r.tags and r.deal is not None)
    assert "HeartsOptimumTable" in annotated[-2].tags and "HeartsMoonTable" in annotated[-2].tags
    assert once.read_bytes().endswith(b"{ left open\n")


def test_crlf_input_gets_crlf_annotations(tmp_path):
    source = tmp_path / "in.pbn"
    source.write_bytes(endgame_file(2, seed=4, hand_size=3, play_cards=12).replace(b"\n", b"\r\n"))
    p = run("annotate", str(source), "--format", "pbn", "-j", "1")
    assert b"\n" not in p.stdout.replace(b"\r\n", b"")


def test_a_classic_mac_file_reads_and_is_annotated_with_its_own_line_ends(tmp_path):
    """Lone CR line ends: the file was one line, read as no game (0 records, exit 0)."""
    mac = tmp_path / "mac.pbn"
    mac.write_bytes(SAMPLE.read_bytes().replace(b"\n", b"\r"))
    p, plain = (run("annotate", str(path), "--format", "pbn", "-j", "1") for path in (mac, SAMPLE))
    assert p.returncode == 0 and b"\n" not in p.stdout
    assert p.stdout.replace(b"\r", b"\n") == plain.stdout


def test_a_line_past_the_limit_is_one_records_error_and_the_others_are_annotated(tmp_path):
    """A line with no end in sight (a binary file by mistake) was held whole in memory."""
    source = tmp_path / "in.pbn"
    game = endgame_file(1, seed=4, hand_size=3, play_cards=12)
    source.write_bytes(game + b"\n" + b"\x00" * (MAX_LINE + 1) + b"\n\n" + game)
    out = tmp_path / "out.jsonl"
    p = run("annotate", str(source), "-o", str(out), "-j", "1")
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert p.returncode == 1 and summary(p) == (3, 2, 1)
    assert [r["error"] is None for r in results] == [True, False, True]
    assert results[1]["error"].startswith(f"line 10: longer than {MAX_LINE:,} bytes: cut there (not a PBN file?); ")


def test_csv_and_text_formats_follow_the_output_name(tmp_path):
    out = tmp_path / "sample.csv"
    assert run("annotate", str(SAMPLE), "-o", str(out), "-j", "1").returncode == 0
    with out.open(newline="") as csv_file:
        rows = list(csv.DictReader(csv_file))
    assert len(rows) == 5 and rows[0]["N_moon_possible"] == "True" and rows[1]["shot_the_foot"] == "S"
    assert [r["shot_the_moon"] for r in rows] == ["N", "", "", "E", "N"]
    text = tmp_path / "sample.txt"
    run("annotate", str(SAMPLE), "-o", str(text), "-j", "1")
    assert "W could force it from S's D3 at trick 3 until W's H3 at trick 4" in text.read_text()


def test_moon_command():
    p = run("moon", str(SAMPLE), "-j", "1")
    assert p.returncode == 0
    lines = p.stdout.decode().splitlines()
    assert lines[0] == ("Record 0 (line 1, board 1): at the start: N; "
                        "N could force it from the start to the end; N shot the moon")
    assert re.match(r"Record 3 \(line \d+, board 4\): at the start: E; E could force it from the "
                    r"start until E's C4 at trick 1, then from N's S4 at trick 2 to the end; "
                    r"E shot the moon$", lines[3])
    as_json = run("moon", str(SAMPLE), "-j", "1", "--json")
    first = json.loads(as_json.stdout.decode().splitlines()[0])
    assert first["players"]["N"] == {"moon_possible": True} and first["review"]["cards"] == []


@pytest.mark.parametrize("args, words", [
    (["annotate", "missing.pbn"], "does not exist"),
    (["moon", "N:A...2 K...3 J...4 T...5"], "File 'N:A...2 K...3 J...4 T...5' does not exist. (moon reads PBN "
                                           "files; for one deal: hearts-dd analyze --deal DEAL)"),
    (["annotate", "w:AK.Q.J.T"], "does not exist. (annotate reads PBN files; for one deal"),
    (["annotate", "data/sample.pbn", "--rules", "nonsense"], "--rules: unknown preset 'nonsense'"),
    (["annotate", "data/sample.pbn", "--format", "xml"], "'xml' is not one of"),
    (["annotate", "data/sample.pbn", "--jobs", "0"], "--jobs"),
    (["annotate", "data/sample.pbn", "--jobs", "257"], "--jobs"),                # a pool that size
    (["annotate", "data/sample.pbn", "--chunk-size", str(2**63)], "--chunk-size"),  # islice's limit
    (["moon"], "INPUTS"),
    (["moon", "-", "data/sample.pbn", "-"], "standard input ('-') is given 2 times: it can be read once"),
    (["annotate", "data/sample.pbn", "--dask", " "], "--dask is empty: give a scheduler's address, or 'local'"),
    (["annotate", "data/sample.pbn", "-o", "", "--resume"], "cannot write '': not a file name"),
])
def test_bad_usage_is_one_line_and_exit_2(args, words):
    p = run(*args, cwd=ROOT)
    assert p.returncode == 2 and p.stdout == b""
    err = p.stderr.decode().strip()
    assert len(err.splitlines()) == 1 and words in err, err


def test_an_unwritable_output_leaves_nothing_behind(tmp_path):
    p = run("annotate", str(SAMPLE), "-o", str(tmp_path / "no" / "such" / "dir.jsonl"))
    assert p.returncode == 2 and len(p.stderr.decode().strip().splitlines()) == 1


@pytest.mark.parametrize("resume", [[], ["--resume"]])
def test_an_output_named_through_a_link_and_dotdot_is_where_the_kernel_puts_it(tmp_path, resume):
    """``link/..`` is the link's target's parent, as the kernel resolves it (and a shell's
    ``> link/../out``), not the link's own folder, as ``os.path.abspath`` would have it."""
    (tmp_path / "work").mkdir()
    (tmp_path / "far" / "deep").mkdir(parents=True)
    (tmp_path / "work" / "link").symlink_to("../far/deep")
    p = run("annotate", str(SAMPLE), "-o", "link/../out.jsonl", *resume, cwd=tmp_path / "work")
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "far" / "out.jsonl").read_bytes() == run("annotate", str(SAMPLE)).stdout
    assert sorted(x.name for x in (tmp_path / "work").iterdir()) == ["link"]


@pytest.mark.parametrize("resume", [[], ["--resume"]])
def test_an_output_through_a_loop_of_links_is_one_line(tmp_path, resume):
    """-o's links are followed by hand (cli_records._resolved): a loop must end in the
    kernel's words, not in a search without end or a traceback."""
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    p = run("annotate", str(SAMPLE), "-o", str(loop), *resume)
    assert p.returncode == 2 and p.stdout == b""
    assert p.stderr.decode() == f"hearts-dd: error: cannot write {loop}: Too many levels of symbolic links\n"
    assert [x.name for x in tmp_path.iterdir()] == ["loop"]


@pytest.mark.parametrize("signum, jobs, group, status, message", [
    (signal.SIGINT, "2", True, 130, "interrupted"),            # a terminal's Ctrl-C
    (signal.SIGTERM, "1", False, 143, "stopped by SIGTERM"),    # kill
    (signal.SIGTERM, "2", True, 143, "stopped by SIGTERM"),     # a job scheduler's stop
    (signal.SIGHUP, "2", True, 129, "stopped by SIGHUP"),       # the terminal closed
    (signal.SIGINT, "dask", True, 130, "interrupted"),         # Dask's workers printed tracebacks
    (signal.SIGINT, "dask-start", True, 130, "interrupted"),   # while the cluster starts: was lost
])
def test_a_stop_signal_leaves_no_output_file(tmp_path, signum, jobs, group, status, message):
    if jobs.startswith("dask"):
        pytest.importorskip("dask.distributed")
    source = tmp_path / "slow.pbn"
    out = tmp_path / "out.pbn"
    where = ["-j", "2", "--dask", "local"] if jobs.startswith("dask") else ["-j", jobs]
    # records without end, through a named pipe: the signal finds the run going however fast
    # the solver gets (2000 records, 15 s of work, once ended before it on a fast machine), and
    # a run that does not stop never ends
    with Fed(source) as feed:
        feed.send(itertools.repeat(endgame_file(200, seed=5, hand_size=8, play_cards=32)))
        child = subprocess.Popen([sys.executable, "-m", "solver.cli", "annotate", str(source), "-o",
                                  str(out), *where], cwd=ROOT, stderr=subprocess.PIPE,
                                 start_new_session=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                                 preexec_fn=as_in_a_terminal)
        with finished(child):
            if jobs == "dask-start":
                blocking(child.pid, signal.SIGINT)  # inside the cluster's start, which holds Ctrl-C
            else:
                output_begun(out, child)            # searching (past the Dask cluster's start)
            assert child.poll() is None, "finished before it could be stopped"
            start = time.monotonic()
            if group:
                os.killpg(child.pid, signum)
            else:
                os.kill(child.pid, signum)
            _, err = child.communicate(timeout=180)
    # a search in progress stops at once; a Dask cluster takes its seconds to close (5-6.5 s
    # seen on a busy machine while it started): bounds a loaded machine keeps to, far below
    # a run that goes on
    assert time.monotonic() - start < (60 if jobs.startswith("dask") else 30)
    assert child.returncode == status
    assert err.decode() == f"hearts-dd: error: {message}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["slow.pbn"]


def test_the_soft_limit_on_cpu_time_stops_the_run_as_sigterm_does(tmp_path):
    """SIGXCPU (``ulimit -St``, a batch system's CPU limit) ended the command by its default
    action: no message, and the temporary output file left beside the output."""
    import resource
    source = tmp_path / "slow.pbn"
    source.write_bytes(endgame_file(2000, seed=5, hand_size=8, play_cards=32))
    p = subprocess.run([sys.executable, "-m", "solver.cli", "annotate", str(source), "-o",
                        str(tmp_path / "out.jsonl"), "-j", "1"], capture_output=True, timeout=120,
                       cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                       preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CPU, (2, 60)))
    assert (p.returncode, p.stderr.decode()) == (128 + signal.SIGXCPU, "hearts-dd: error: stopped by SIGXCPU\n")
    assert sorted(f.name for f in tmp_path.iterdir()) == ["slow.pbn"]


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="finds processes in /proc")
def test_workers_end_when_the_run_is_killed_outright(tmp_path):
    """SIGKILL (or the OOM killer) gives the run no chance to stop its workers, and the fork
    server lives as long as they do: a worker searched on for minutes for nobody."""
    source = tmp_path / "slow.pbn"
    source.write_bytes(endgame_file(2000, seed=5, hand_size=8, play_cards=32))
    mark = f"HEARTS_DD_TEST_RUN={os.getpid()}-{time.monotonic_ns()}".encode()

    def marked() -> list[int]:
        found = []
        for proc in Path("/proc").iterdir():
            with suppress(OSError):
                if proc.name.isdigit() and mark in (proc / "environ").read_bytes().split(b"\0"):
                    found.append(int(proc.name))
        return found

    name, value = mark.decode().split("=")
    # The pool's fork server keeps its socket in a pymp-* folder of TMPDIR, which only the run
    # removes as it ends: killed outright, it left one in /tmp every time. A folder of the
    # test's own, short (a socket's path holds at most 107 bytes: tmp_path is too long).
    tmp = tempfile.mkdtemp(prefix="hearts-dd-test-")
    child = subprocess.Popen([sys.executable, "-m", "solver.cli", "annotate", str(source), "-o",
                              str(tmp_path / "out.jsonl"), "-j", "2"], cwd=ROOT,
                             stderr=subprocess.DEVNULL,
                             env={**os.environ, "PYTHONPATH": str(ROOT), name: value, "TMPDIR": tmp})
    try:
        # the run, the resource tracker, the fork server and its two workers: all up (3 s was
        # waited, and a loaded machine had started four of the five by then)
        deadline = time.monotonic() + 60
        while len(marked()) < 5 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert child.poll() is None, "finished before it could be killed"
        assert len(marked()) >= 5
        child.kill()
        child.wait()
        deadline = time.monotonic() + 15
        while marked() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not marked()
    finally:
        child.kill()
        child.wait()
        for pid in marked():
            with suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)


def test_a_hang_up_under_nohup_does_not_stop_the_run(tmp_path):
    """The hang-up comes once records are written (the run's handlers set, its workers
    searching), and the input, a named pipe, ends only after it: the run cannot have ended
    before it, nor be still starting up."""
    source = tmp_path / "work.pbn"
    out = tmp_path / "out.jsonl"
    games = endgame_file(900, seed=5, hand_size=7, play_cards=28)

    def like_nohup() -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    with Fed(source) as feed:
        feed.send(games[:len(games) // 2])
        child = subprocess.Popen([sys.executable, "-m", "solver.cli", "annotate", str(source), "-o",
                                  str(out), "-j", "2"], cwd=ROOT, stderr=subprocess.PIPE,
                                 start_new_session=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                                 preexec_fn=like_nohup)
        with finished(child):
            output_begun(out, child)
            assert child.poll() is None, "finished before the hang-up"
            os.killpg(child.pid, signal.SIGHUP)
            feed.send(games[len(games) // 2:])
            feed.end()
            _, err = child.communicate(timeout=300)
    assert child.returncode == 0, err
    assert len(out.read_text().splitlines()) == 900


def _annotate_to(tmp_path: Path, out: Path, *more: str, preexec=None) -> subprocess.CompletedProcess:
    small = tmp_path / "small.pbn"
    small.write_bytes(endgame_file(40, seed=8, hand_size=2, play_cards=4))
    return subprocess.run([sys.executable, "-m", "solver.cli", "annotate", str(small), "-j", "1",
                           "-o", str(out), *more], capture_output=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, preexec_fn=preexec)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("when", ["rename", "exit"])
def test_a_stop_once_the_output_is_renamed_into_place_is_ignored(tmp_path, when, signum):
    """A stop that landed once the temporary file had replaced OUT ended the command in
    "interrupted" (exit 130, 143 for SIGTERM) though OUT was whole. From the rename on, a stop
    is ignored: the run ends as it would have, here with exit 1 for its record with an error.
    The stop is sent by the command to itself right after the rename, or at its exit after it
    (tests/signals.py)."""
    source = tmp_path / "in.pbn"
    games = endgame_file(10, seed=2, hand_size=2).decode().split("\n\n")
    games[1] = re.sub(r'\[Deal "[^"]*"\]', '[Deal "N:AKQ. - - -"]', games[1])
    source.write_text("\n\n".join(games))
    out = tmp_path / "out.jsonl"
    p = subprocess.run([sys.executable, "-c", WHOLE_THEN_STOPPED, str(int(signum)), when,
                        "solver.cli_records", str(out.resolve()), "annotate", str(source), "-o",
                        str(out), "-j", "1"],
                       capture_output=True, timeout=300, cwd=ROOT, preexec_fn=as_in_a_terminal,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 1, p.stderr
    assert summary(p) == (10, 9, 1)         # (the one line: no "interrupted")
    assert out.read_bytes() == run("annotate", str(source), "-j", "1").stdout
    assert sorted(q.name for q in tmp_path.iterdir()) == ["in.pbn", "out.jsonl"]


def test_a_whole_output_ignores_the_command_s_own_stops_and_keeps_others_handlers(monkeypatch):
    """A program or test that runs the command in its own process keeps its handlers."""
    def own(signum, frame):
        pass

    def theirs(signum, frame):
        pass

    before = {s: signal.getsignal(s) for s in STOP_SIGNALS}
    monkeypatch.setattr(cli_common, "stop_handlers", {own})
    try:
        signal.signal(signal.SIGINT, own)
        signal.signal(signal.SIGTERM, theirs)
        cli_common.output_whole()
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) is theirs
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


def test_output_through_a_link_replaces_the_file_it_names_with_its_permissions(tmp_path):
    real = tmp_path / "real.jsonl"
    real.write_text("old\n")
    real.chmod(0o640)
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    assert _annotate_to(tmp_path, link).returncode == 0
    assert link.is_symlink() and len(real.read_text().splitlines()) == 40
    assert real.stat().st_mode & 0o777 == 0o640
    new = tmp_path / "new.jsonl"
    assert _annotate_to(tmp_path, new, preexec=lambda: os.umask(0o022)).returncode == 0
    assert new.stat().st_mode & 0o777 == 0o644                 # as any new file, not 0600


def test_output_to_a_device_or_a_pipe_writes_to_it(tmp_path):
    import threading
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    assert _annotate_to(tmp_path, fifo).returncode == 0
    reader.join(timeout=60)
    assert len(got[0].splitlines()) == 40 and fifo.is_fifo()
    full = _annotate_to(tmp_path, Path("/dev/full"))
    assert full.returncode == 2
    assert full.stderr.decode().strip() == "hearts-dd: error: cannot write /dev/full: No space left on device"


def test_output_to_dev_stdout_as_a_pipe_and_names_that_are_no_file(tmp_path):
    small = tmp_path / "small.pbn"
    small.write_bytes(endgame_file(40, seed=8, hand_size=2, play_cards=4))
    p = run("annotate", str(small), "-j", "1", "-o", "/dev/stdout")   # (its real path names no file)
    assert p.returncode == 0 and len(p.stdout.splitlines()) == 40
    for name in ("", "x.jsonl/"):
        p = run("annotate", str(small), "-j", "1", "-o", name, cwd=tmp_path)
        assert p.returncode == 2
        assert p.stderr.decode() == f"hearts-dd: error: cannot write {name!r}: not a file name\n"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["small.pbn"]
    # the stream it names closed at start: refused, not written to /dev/null
    p = subprocess.run([sys.executable, "-m", "solver.cli", "annotate", str(small), "-j", "1", "-o",
                        "/dev/stdout"], capture_output=False, stderr=subprocess.PIPE, timeout=120,
                       cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                       preexec_fn=lambda: os.close(1))
    assert p.returncode == 2
    assert p.stderr.decode() == "hearts-dd: error: cannot write /dev/stdout: Bad file descriptor\n"


def test_messages_that_cannot_be_written_lose_no_output(tmp_path):
    """Standard error full or closed: the summary line is lost, the annotations are not (the
    output file was deleted, its error blamed on it)."""
    out = tmp_path / "out.jsonl"
    with open("/dev/full", "wb") as full:
        p = subprocess.run([sys.executable, "-m", "solver.cli", "annotate", str(SAMPLE), "-j", "1",
                            "-o", str(out)], stderr=full, timeout=120, cwd=ROOT,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 0 and len(out.read_text().splitlines()) == 5
    out.unlink()
    p = subprocess.run([sys.executable, "-m", "solver.cli", "annotate", str(SAMPLE), "-j", "1", "-o",
                        str(out)], timeout=120, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                       preexec_fn=lambda: os.close(2))
    assert p.returncode == 0 and len(out.read_text().splitlines()) == 5


def test_a_file_name_that_is_not_utf8_is_written_with_escapes(tmp_path):
    """Each record names its file when there are several: a name the system passes through as
    lone surrogates stopped every writer (a traceback, and every annotation lost)."""
    odd = Path(os.fsdecode(bytes(tmp_path) + b"/caf\xe9.pbn"))
    odd.write_bytes(SAMPLE.read_bytes())
    for fmt in ("jsonl", "csv", "text"):
        p = run("annotate", str(odd), str(SAMPLE), "-j", "1", "--format", fmt)
        assert p.returncode == 0, p.stderr
        assert "caf\\xe9.pbn" in p.stdout.decode().replace("\\\\", "\\")  # (JSON doubles \\)


def test_a_file_name_with_a_newline_keeps_moon_to_one_line_a_record(tmp_path):
    """``moon`` writes one line a record, naming its file when there are several: a newline in
    the name split each of that file's lines in two."""
    odd = tmp_path / "two\nlines.pbn"
    odd.write_bytes(SAMPLE.read_bytes())
    p = run("moon", str(odd), str(SAMPLE), "-j", "1")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.decode().splitlines()
    assert len(lines) == 10 and all(line.startswith("Record ") for line in lines)
    assert "two\\x0alines.pbn line 1, board 1" in lines[0]


def test_an_output_that_fails_only_when_closed_gets_the_error_line_alone(tmp_path):
    """One small record fits in the buffer: the device refuses it when it is flushed, after
    the run, where the summary line used to come first."""
    one = tmp_path / "one.pbn"
    one.write_text('[Deal "N:.A..2 .2..3 .3..4 .4..5"]\n')
    for command in (["annotate", str(one), "-o", "/dev/full"], ["moon", str(one), "--json"],
                    ["annotate", str(one)]):
        with open("/dev/full", "wb") as full:
            p = subprocess.run([sys.executable, "-m", "solver.cli", *command], stdout=full,
                               stderr=subprocess.PIPE, timeout=120, cwd=ROOT,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
        name = "/dev/full" if "-o" in command else "standard output"
        assert p.returncode == 2
        assert p.stderr.decode() == f"hearts-dd: error: cannot write {name}: No space left on device\n"


def test_a_csv_header_to_a_closed_pipe_ends_as_a_unix_tool_ends():
    """(click ended it with exit 1.) A reader gone (``| head``) is no error to report: no word,
    and the status of a command that SIGPIPE ends."""
    read, write = os.pipe()
    os.close(read)
    with open(write, "wb") as closed:
        p = subprocess.run([sys.executable, "-m", "solver.cli", "annotate", str(SAMPLE), "--format",
                            "csv"], stdout=closed, stderr=subprocess.PIPE, timeout=120, cwd=ROOT,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert (p.returncode, p.stderr) == (128 + signal.SIGPIPE, b"")


def test_a_table_beyond_the_memory_limit_fails_each_record_not_the_run(tmp_path):
    import resource
    one = tmp_path / "one.pbn"
    one.write_text('[Deal "N:.A..2 .2..3 .3..4 .4..5"]\n\n[Deal "N:.2..A .3..2 .4..3 .5..4"]\n')
    limit = 1 << 30
    p = subprocess.run([sys.executable, "-m", "solver.cli", "annotate", str(one), "-j", "1",
                        "--table-mb", "1024"], capture_output=True, timeout=120, cwd=ROOT,
                       env={**os.environ, "PYTHONPATH": str(ROOT)},
                       preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
    assert p.returncode == 1 and summary(p) == (2, 0, 2)
    for r in map(json.loads, p.stdout.decode().splitlines()):
        assert r["players"] is None and r["error"] == (
            "line %d: not annotated: out of memory (cannot allocate a transposition table of "
            "1073741824 bytes)" % r["line"])


def test_workers_beyond_the_limit_on_open_files_are_one_line(tmp_path):
    """Under a low ``ulimit -n`` a worker's start failed half-way: the fork server and the
    workers started printed tracebacks, and the run said it could not write its output."""
    import resource
    source = tmp_path / "work.pbn"
    source.write_bytes(endgame_file(200, seed=5, hand_size=5, play_cards=8))
    out = tmp_path / "out.jsonl"
    p = subprocess.run([sys.executable, "-m", "solver.cli", "annotate", str(source), "-o", str(out),
                        "-j", "16", "--table-mb", "1"], capture_output=True, timeout=120, cwd=ROOT,
                       env={**os.environ, "PYTHONPATH": str(ROOT)},
                       preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (32, 32)))
    err = p.stderr.decode()
    assert p.returncode == 2 and len(err.splitlines()) == 1, err
    assert err.startswith("hearts-dd: error: 16 worker processes need about ") and err.endswith(
        "open files, and this process may open 32 (ulimit -n): fewer --jobs may fit\n"), err
    assert sorted(f.name for f in tmp_path.iterdir()) == ["work.pbn"]
    p = subprocess.run([sys.executable, "-m", "solver.cli", "annotate", str(source), "-o", str(out),
                        "-j", "2", "--table-mb", "1"], capture_output=True, timeout=120, cwd=ROOT,
                       env={**os.environ, "PYTHONPATH": str(ROOT)},
                       preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (32, 32)))
    assert p.returncode == 0 and summary(p) == (200, 200, 0), p.stderr.decode()


def test_a_failed_write_is_one_line_and_leaves_nothing_behind(tmp_path):
    import resource

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)     # writes past the limit fail (EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))

    p = _annotate_to(tmp_path, tmp_path / "out.jsonl", preexec=small_files)
    assert p.returncode == 2
    assert p.stderr.decode().strip() == f"hearts-dd: error: cannot write {tmp_path / 'out.jsonl'}: File too large"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["small.pbn"]


@pytest.mark.parametrize("inputs", [[str(SAMPLE), "/proc/self/mem"], ["/proc/self/mem", str(SAMPLE)]])
def test_an_unreadable_input_is_reported_and_the_others_are_annotated(inputs):
    """Those after it too."""
    if not Path("/proc/self/mem").exists():
        pytest.skip("needs /proc/self/mem, a file that fails to read")
    p = run("annotate", *inputs, "-j", "1")
    assert p.returncode == 1
    assert len(p.stdout.decode().splitlines()) == 5                       # the sample's records
    first, last = p.stderr.decode().strip().splitlines()
    assert first.startswith("hearts-dd: error: /proc/self/mem: ") and "missing" in first
    assert "1 input not read to the end" in last


@pytest.mark.parametrize("name, shown", [("-", "standard input"), ("/dev/stdin", "/dev/stdin")])
def test_a_standard_input_closed_at_start_is_an_input_not_read(name, shown):
    """A closed descriptor 0 is not read as an empty input (which a file opened in its place
    would be): the input is named as not read, as one whose reading fails."""
    p = subprocess.run([sys.executable, "-m", "solver.cli", "annotate", str(SAMPLE), name, "-j", "1"],
                       capture_output=True, timeout=300, preexec_fn=lambda: os.close(0),
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 1 and len(p.stdout.decode().splitlines()) == 5
    first, last = p.stderr.decode().strip().splitlines()
    assert first == f"hearts-dd: error: {shown}: Bad file descriptor (its records from there on are missing)"
    assert "1 input not read to the end" in last


@pytest.mark.parametrize("text", [b"", b"% a comment only\n", b'{"deal": "N:..."}\n'])
def test_an_input_without_a_game_is_reported_and_the_others_are_annotated(tmp_path, text):
    """The wrong file (or an empty one) said "0 records" and exit 0, where POST /annotate
    answers such a body with a problem."""
    wrong = tmp_path / "wrong.pbn"
    wrong.write_bytes(text)
    alone = run("annotate", str(wrong), "-j", "1")
    assert alone.returncode == 1 and alone.stdout == b""
    assert alone.stderr.decode().splitlines()[0] == (
        f'hearts-dd: error: {wrong}: no PBN game found (expected tag pairs such as [Deal "N:..."])')
    p = run("moon", str(wrong), str(SAMPLE), "-j", "1", stdin=b"")
    assert p.returncode == 1 and len(p.stdout.decode().splitlines()) == 5   # the sample's records
    assert ", 1 input without a game, " in p.stderr.decode().splitlines()[-1]


def test_the_progress_bar_does_not_read_a_pipe_before_the_run(tmp_path):
    import threading

    from solver.cli_common import count_ahead
    from solver.pbn import count_games
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(SAMPLE.read_bytes()))
    writer.start()
    assert count_ahead([str(SAMPLE), str(fifo)], count_games) is None
    assert fifo.read_bytes() == SAMPLE.read_bytes()          # still all there for the run
    writer.join(timeout=10)
    assert count_ahead([str(SAMPLE)], count_games) == 5
    assert count_ahead([str(SAMPLE), str(SAMPLE)], count_games) == 10
    assert count_ahead([3], count_games) is None              # (a file descriptor's stream)


def test_pbn_output_of_several_files_keeps_their_games_apart(tmp_path):
    one = tmp_path / "one.pbn"
    one.write_bytes(endgame_file(3, seed=9, hand_size=2, play_cards=4).rstrip(b"\n"))   # no newline
    p = run("annotate", str(one), str(one), "--format", "pbn", "-j", "1")
    assert p.returncode == 0
    records = list(read_records(io.BytesIO(p.stdout)))
    assert len(records) == 6 and all(r.errors == [] for r in records)


def test_pbn_output_of_several_files_reads_again_as_they_did_apart(tmp_path):
    """Joined, one file's "##" rules and boards carried into the next file's games: the
    output's figures for them were not those it gave when read again. Now a ``% PBN`` line
    opens each file that lacks one, and annotating the output gives it back unchanged."""
    spot = tmp_path / "spot.pbn"
    spot.write_bytes(b'[Event "Monday"]\n[HeartsRules "##spot"]\n[Board "1"]\n'
                     b'[Deal "N:AKJ86.7..K .Q82.AJ9.2 92.T64.Q3. T.A.T8.653"]\n')
    plain = tmp_path / "plain.pbn"
    plain.write_bytes(b'[Event "Tuesday"]\n[Board "1"]\n'
                      b'[Deal "N:AKT76.K.2. Q42.2.74.6 .4.AK83.Q3 .A763.T9.T"]\n\n'
                      b'[Board "1"]\n[Deal "N:AKJ86.7..K - - -"]\n')   # not Monday's board 1
    joined = tmp_path / "joined.pbn"
    apart = run("annotate", str(spot), str(plain), "--format", "jsonl", "-j", "1")
    assert run("annotate", str(spot), str(plain), "-o", str(joined), "-j", "1").returncode == 1
    again = run("annotate", str(joined), "--format", "jsonl", "-j", "1")
    def figures(out: bytes) -> list:        # (each error's line is the joined file's)
        return [(r["players"], r["rules"], re.sub(r"line \d+: ", "", r["error"] or ""))
                for r in map(json.loads, out.splitlines())]

    assert figures(again.stdout) == figures(apart.stdout)
    assert [r[2] for r in figures(apart.stdout)] == [
        "", "", "the [Deal] gives only the hands of N (all four are needed; board 1 read before "
                "has other hands there)"]
    assert b"\n% PBN 2.1\n[Event \"Tuesday\"]" in joined.read_bytes()
    twice = tmp_path / "twice.pbn"
    run("annotate", str(joined), "-o", str(twice), "-j", "1")
    assert twice.read_bytes() == joined.read_bytes()


@pytest.mark.parametrize("second", ["the same file again", "a file with a byte-order mark"])
def test_pbn_output_of_several_files_marks_each_file_however_it_starts(tmp_path, second):
    """The same file twice had one name and no mark between its copies; a file with a BOM got
    the mark before its BOM, which then stood in the middle of the output."""
    first = tmp_path / "first.pbn"
    first.write_bytes(b'[Board "1"]\n[Deal "N:A... .A.. ..A. ...A"]\n\n'
                      b'[HeartsRules "##omnibus"]\n[Board "2"]\n[Deal "N:K... .K.. ..K. ...K"]\n')
    other = first
    if second != "the same file again":
        other = tmp_path / "bom.pbn"
        other.write_bytes(b"\xef\xbb\xbf" + first.read_bytes())
    joined = tmp_path / "joined.pbn"
    apart = run("annotate", str(first), str(other), "--format", "jsonl", "-j", "1")
    run("annotate", str(first), str(other), "-o", str(joined), "-j", "1")
    again = run("annotate", str(joined), "--format", "jsonl", "-j", "1")
    keys = ("rules", "players", "error")
    assert ([[json.loads(r)[k] for k in keys] for r in again.stdout.splitlines()]
            == [[json.loads(r)[k] for k in keys] for r in apart.stdout.splitlines()])
    assert [json.loads(r)["rules"] for r in apart.stdout.splitlines()] == [
        "standard", "omnibus", "standard", "omnibus"]


def on_a_terminal(args: list[str], stdout: bool) -> bytes:
    """What ``hearts-dd ARGS`` shows on a 100-column terminal that is its stderr (and its
    stdout too with ``stdout``; ``TTY`` in ARGS names it), once it has ended with status 0."""
    pytest.importorskip("pty")
    master, slave = open_terminal()
    args = [os.ttyname(slave) if arg == "TTY" else arg for arg in args]   # (-o the terminal)
    child = subprocess.Popen([sys.executable, "-m", "solver.cli", *args], cwd=ROOT,
                             stdout=slave if stdout else None, stderr=slave,
                             env={**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm"})
    os.close(slave)
    seen = shown(master)
    assert child.wait(timeout=60) == 0
    return seen


def test_a_progress_bar_on_a_terminal_only(tmp_path):
    source = tmp_path / "in.pbn"
    source.write_bytes(endgame_file(300, seed=6, hand_size=4, play_cards=16))
    seen = on_a_terminal(["annotate", str(source), "-j", "1", "-o", str(tmp_path / "out.jsonl")],
                         stdout=False)
    assert b"/300 [" in seen and b"record/s" in seen                # the bar, with its total
    assert SUMMARY.match(seen.split(b"\r")[-2].decode().strip())     # cleared before the summary


@pytest.mark.parametrize("args", [["moon"], ["annotate", "--format", "text"],
                                  ["annotate", "-o", "/dev/stdout"], ["annotate", "-o", "TTY"]])
def test_no_progress_bar_among_records_written_to_the_terminal(tmp_path, args):
    """With the records on the same terminal as stderr, each was written after the bar, on its
    line ('  0%|   | 0/300 [00:00<?, ?record/s]Record 0 ...'); the bar is for output to a file."""
    source = tmp_path / "in.pbn"
    source.write_bytes(endgame_file(300, seed=6, hand_size=4, play_cards=16))
    seen = on_a_terminal([args[0], str(source), "-j", "1", *args[1:]], stdout=True)
    assert b"Record 299 " in seen or b'"index": 299' in seen
    assert b"record/s" not in seen and b"\r\x1b" not in seen and b"\r " not in seen


@pytest.mark.parametrize("output", [None, "/dev/stdout"])
def test_records_to_the_terminal_are_shown_as_they_are_done(tmp_path, output):
    """With no progress bar among them, a record written to the terminal is the progress: it
    was held in standard output's buffer, 8 KB at a time (a dozen full deals, minutes)."""
    pytest.importorskip("pty")
    from solver.deal import Deal
    source = tmp_path / "in.pbn"
    source.write_bytes(b'[Board "1"]\n[Deal "N:A..2. K..3. Q..4. .J.5."]\n[HeartsLeader "N"]\n'
                       b'[HeartsRules "{\\"first_lead\\": \\"free\\"}"]\n\n'
                       b'[Board "2"]\n[Deal "' + Deal.random(2).pbn().encode() + b'"]\n')
    master, slave = open_terminal()
    output = ["-o", output] if output else []
    child = subprocess.Popen([sys.executable, "-m", "solver.cli", "annotate", str(source), "-j", "1",
                              "--chunk-size", "1", "--format", "text", "--time-limit", "2", *output],
                             cwd=ROOT, stdout=slave, stderr=subprocess.DEVNULL,
                             env={**{k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"},
                                  "PYTHONPATH": str(ROOT)})     # (as a user's Python buffers)
    os.close(slave)
    arrived: list[float] = []       # when record 0 was first shown

    def watch(so_far: bytes) -> None:
        if not arrived and b"Record 0" in so_far:
            arrived.append(time.monotonic())

    seen = shown(master, watch)
    assert child.wait(timeout=60) == 1        # (board 2 out of time)
    assert arrived and b"Record 1" in seen
    assert time.monotonic() - arrived[0] > 1, "record 0 came only with the end of the run"


@pytest.mark.parametrize("command, first, channel", [
    (["annotate", "--format", "jsonl"], b'{"index": 0,', "pipe"),
    (["annotate", "--format", "csv"], b"\n0,", "pipe"), (["annotate", "--format", "text"], b"Record 0 ", "pipe"),
    (["moon", "--json"], b'{"index": 0,', "pipe"), (["annotate", "--format", "jsonl"], b'{"index": 0,', "socket")])
def test_records_to_a_pipe_go_out_as_they_are_done(command, first, channel):
    """A program that reads the records through a pipe (a bot writing its games to standard
    input, ``| jq``) got nothing until 8 KB were buffered or the run ended: a record at the
    head of an input held open never came out. The same through a socket (a service that
    starts the command with its connection as standard output)."""
    import select
    ours, theirs = socket.socketpair() if channel == "socket" else (None, None)
    proc = subprocess.Popen([sys.executable, "-m", "solver.cli", *command, "-", "-j", "1",
                             "--chunk-size", "1"], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE if theirs is None else theirs,
                            stderr=subprocess.DEVNULL, bufsize=0,
                            env={**{k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"},
                                 "PYTHONPATH": str(ROOT)})     # (as a user's Python buffers)
    if theirs is not None:
        theirs.close()
    reader = proc.stdout if ours is None else ours
    assert proc.stdin is not None and reader is not None
    seen = b""
    with finished(proc):
        try:
            proc.stdin.write(endgame_file(4, seed=3, hand_size=3) + b"\n")     # (kept open)
            deadline = time.monotonic() + 30
            while first not in seen and select.select([reader], [], [], max(0, deadline - time.monotonic()))[0]:
                seen += os.read(reader.fileno(), 1 << 16)
        finally:
            proc.stdin.close()
            proc.wait(timeout=60)
            if ours is not None:
                ours.close()
    assert first in seen, f"no record came out while the input was open (to a {channel})"


@pytest.mark.parametrize("jobs", ["2"])
def test_a_reader_that_had_every_record_leaves_the_status_as_it_was(tmp_path, jobs):
    """``annotate -j 2 games.pbn | head -n 40`` of 40 records (or a program that reads them all
    and closes its end): the reader left with every record, as the run ended its workers, and
    the run exited 141 with no summary (8 runs of 8; 0 and the summary before the watch of the
    reader came), as if records were lost. (With -j 1 the last record can go out before the
    input's end is seen: 141 then, in about 1 run of 30.)"""
    source = tmp_path / "in.pbn"
    source.write_bytes(endgame_file(40, hand_size=3))
    for _ in range(3):
        proc = subprocess.Popen([sys.executable, "-m", "solver.cli", "annotate", "-j", jobs, str(source)],
                                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert proc.stdout is not None
        assert len([proc.stdout.readline() for _ in range(40)][-1]) > 1  # every record
        status, err = reader_left(proc)
        assert (status, err.startswith(b"hearts-dd: 40 records, 40 annotated, 0 with errors")) == (0, True)


@pytest.mark.parametrize("command", [["annotate", "-j", "1"], ["annotate", "-j", "2"],
                                     ["annotate", "-j", "1", "--format", "text"]])
def test_a_reader_gone_stops_the_run_at_once(tmp_path, command):
    """``annotate games.pbn | head -1``: the run went on until the next record was done and
    its write failed, minutes of a full deal's search (in a worker, or in the command itself
    with one job). It now ends once the pipe's reader is gone, as a broken pipe ends it."""
    from solver.deal import Deal
    source = tmp_path / "in.pbn"
    source.write_bytes(b'[Board "1"]\n[Deal "N:A..2. K..3. Q..4. .J.5."]\n[HeartsLeader "N"]\n'
                       b'[HeartsRules "{\\"first_lead\\": \\"free\\"}"]\n\n'
                       b'[Board "2"]\n[Deal "' + Deal.random(2).pbn().encode() + b'"]\n')  # (minutes)
    proc = subprocess.Popen([sys.executable, "-m", "solver.cli", *command, str(source),
                             "--chunk-size", "1", "--table-mb", "16"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout is not None
    try:
        assert any(b"0" in line for line in iter(proc.stdout.readline, b""))  # record 0
        time.sleep(1)                                                    # into record 1's search
    finally:
        ended = reader_left(proc)
    assert ended == (141, b"")


def test_a_file_name_in_an_error_line_cannot_write_to_the_terminal(tmp_path):
    """A file's name came into its error line as it was: a name holding escape sequences (a
    stranger's archive unpacked) set the terminal's title or cleared it. Escaped now, as every
    error line is (errors.printable)."""
    name = tmp_path / "e\x1b]0;TITLE\x07\x1b[2J\u202e.pbn"
    name.write_bytes(b"")
    p = run("annotate", str(name), "-j", "1")
    first = p.stderr.decode().splitlines()[0]
    assert first == (f"hearts-dd: error: {tmp_path}/e\\x1b]0;TITLE\\x07\\x1b[2J\\u202e.pbn: no PBN "
                     'game found (expected tag pairs such as [Deal "N:..."])')
    assert b"\x1b" not in p.stderr and b"\x07" not in p.stderr


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="makes files of another user (root only)")
def test_output_is_not_written_through_another_users_link_or_pipe_in_a_shared_directory(tmp_path):
    """``-o /tmp/out.jsonl`` where another user had put a link ``/tmp/out.jsonl -> ~/.bashrc``
    replaced ``~/.bashrc`` with the output: ``-o`` resolves the link itself, where the kernel's
    ``protected_symlinks`` does not apply (a shell's ``>`` is refused there). Likewise a link
    to a directory on the way, and another user's pipe (whose owner would read the output).
    The user's own link is still followed."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    nobody = 65534
    planted = shared / "out.jsonl"
    planted.symlink_to(victim)
    os.chown(planted, nobody, nobody, follow_symlinks=False)
    folder = shared / "folder"
    folder.symlink_to(tmp_path)
    os.chown(folder, nobody, nobody, follow_symlinks=False)
    pipe = shared / "pipe.jsonl"
    os.mkfifo(pipe)
    os.chown(pipe, nobody, nobody)
    for (out, named), resume in itertools.product(
            ((planted, f"symbolic link {planted}"),
             (f"{folder}/x/../victim.txt", f"symbolic link {folder}"), (pipe, f"pipe {pipe}")),
            ([], ["--resume"])):        # (--resume's checkpoint would sit beside the victim)
        p = run("annotate", str(SAMPLE), "-j", "1", "--no-review", "-o", str(out), *resume)
        assert p.returncode == 2 and p.stderr.decode() == (
            f"hearts-dd: error: cannot write {out}: {named} in a directory anyone may write to "
            "(such as /tmp) was made by another user: not written through\n")
        assert victim.read_text() == "precious\n"
    assert sorted(q.name for q in shared.iterdir()) == ["folder", "out.jsonl", "pipe.jsonl"]
    assert sorted(q.name for q in tmp_path.iterdir()) == ["shared", "victim.txt"]
    own = shared / "own.jsonl"
    own.symlink_to(victim)
    p = run("annotate", str(SAMPLE), "-j", "1", "--no-review", "-o", str(own))
    assert p.returncode == 0 and own.is_symlink() and victim.read_text().startswith('{"index": 0')
    # and, as the kernel follows it, a link of the shared directory's own owner
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    theirs.chmod(0o1777)
    os.chown(theirs, nobody, nobody)
    target = tmp_path / "target.jsonl"
    (theirs / "out.jsonl").symlink_to(target)
    os.chown(theirs / "out.jsonl", nobody, nobody, follow_symlinks=False)
    p = run("annotate", str(SAMPLE), "-j", "1", "--no-review", "-o", str(theirs / "out.jsonl"))
    assert p.returncode == 0 and target.read_text().startswith('{"index": 0')


#: ``hearts-dd ARGS...`` with a symbolic link ``OUT -> VICTIM`` planted right after the check
#: of the output's name (``_not_through_planted``), as another user racing it in /tmp would:
#: ``python -c PLANTED_AFTER_THE_CHECK OUT VICTIM ARGS...``.
PLANTED_AFTER_THE_CHECK = r"""
import os, sys
from solver import cli_records
from solver.launch import main
out, victim = sys.argv[1], sys.argv[2]
sys.argv = ["hearts-dd", *sys.argv[3:]]
check = cli_records._not_through_planted


def checked_then_planted(path):
    found = check(path)
    if path == out:
        os.symlink(victim, out)
    return found


cli_records._not_through_planted = checked_then_planted
main()
"""


@pytest.mark.parametrize("resume", [[], ["--resume"]], ids=["temporary file", "resume"])
def test_a_link_planted_between_the_check_and_the_write_is_not_written_through(tmp_path, resume):
    """The check walked the name's links, and the write then resolved it again
    (``os.path.realpath``): a link planted in between, at a name that did not exist yet (another
    user's ``/tmp/out.jsonl -> ~/.bashrc``, made as the run starts), was followed, never checked,
    and the output replaced its target. The output now goes to the name the check resolved: the
    link there is replaced (in a sticky /tmp, another user's link is not, and the write fails),
    its target untouched."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    out = tmp_path / "out.jsonl"
    p = subprocess.run([sys.executable, "-c", PLANTED_AFTER_THE_CHECK, str(out), str(victim),
                        "annotate", str(SAMPLE), "-j", "1", "--no-review", "-o", str(out), *resume],
                       capture_output=True, timeout=300, cwd=ROOT,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 0 and summary(p) == (5, 5, 0), p.stderr
    assert victim.read_text() == "precious\n"
    assert not out.is_symlink()
    assert out.read_bytes() == run("annotate", str(SAMPLE), "-j", "1", "--no-review").stdout
    assert sorted(q.name for q in tmp_path.iterdir()) == ["out.jsonl", "victim.txt"]


def test_the_name_written_to_is_the_one_realpath_gives_when_nothing_changes(tmp_path, monkeypatch):
    """The check's walk resolves the output's name as ``os.path.realpath`` did: links absolute
    and relative, ``link/..``, dangling links, names not there yet (the rest as written), a
    file in the middle; a loop is ELOOP, as the write said ("Too many levels of symbolic links")."""
    from solver.cli_records import _resolved
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "c").mkdir()
    (tmp_path / "a" / "b" / "f").touch()
    for link, to in (("lb", "a/b"), ("a/lc", "../c"), ("abs", str(tmp_path / "a")),
                     ("dangling", "missing"), ("lf", "a/b/f"), ("up", "lb/../.."),
                     ("loop1", "loop2"), ("loop2", "loop1")):
        (tmp_path / link).symlink_to(to)
    for name in ("out", "lb/out", "lb/../x", "a/lc/out", "abs/b/f", "dangling", "dangling/x",
                 "missing/../x", "missing/x/../../y", "lf", "up", "up/a", "./a/./b//f",
                 f"{tmp_path}/lb/..", "a/b/f/x", "lb/", ".."):
        assert _resolved(name) == (os.path.realpath(name), None), name
    for name in ("loop1", "lb/../../loop1/x"):
        with pytest.raises(OSError) as raised:
            _resolved(name)
        assert raised.value.strerror == "Too many levels of symbolic links"


@pytest.mark.parametrize("workers", [["-j", "2"], ["-j", "2", "--dask", "local"]],
                         ids=["pool", "dask"])
def test_worker_processes_import_nothing_from_the_working_directory(tmp_path, workers):
    """The pool's fork server and resource tracker (a local Dask cluster's processes) run
    ``python -c``, which puts the working directory first on the import path: ``hearts-dd
    annotate`` (several jobs by default) run in a directory holding a stranger's
    ``multiprocessing.py`` ran that file. Run as the installed script runs (its own directory
    on the path, not the working one)."""
    script = Path(sys.executable).with_name("hearts-dd")
    if not script.exists():
        pytest.skip("no hearts-dd script beside this interpreter")
    if "--dask" in workers:
        pytest.importorskip("dask.distributed")
    marker = tmp_path / "ran"
    (tmp_path / "multiprocessing.py").write_text(f"open({str(marker)!r}, 'a').write('ran')\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSAFEPATH"}
    p = subprocess.run([str(script), "annotate", str(SAMPLE), *workers, "--no-review"],
                       capture_output=True, cwd=tmp_path, timeout=300, env=env)
    assert not marker.exists()
    assert p.returncode == 0 and summary(p) == (5, 5, 0), p.stderr
