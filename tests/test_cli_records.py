"""``hearts-dd annotate`` and ``hearts-dd moon`` as a user runs them (solver/cli_records.py)."""
from __future__ import annotations

import csv
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from record_files import endgame_file
from solver.pbn import ANNOTATION_TAGS, read_records

ROOT = Path(__file__).resolve().parent.parent
PBN = Path(__file__).parent / "data" / "pbn"
SAMPLE = ROOT / "data" / "sample.pbn"
SUMMARY = re.compile(r"^hearts-dd: (\d+) records, (\d+) annotated, (\d+) with errors, [\d.]+ s$")


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


def test_a_thousand_records_give_identical_output_with_1_and_2_jobs_and_local_dask(tmp_path):
    pytest.importorskip("dask.distributed")
    source = tmp_path / "thousand.pbn"
    source.write_bytes(endgame_file(1000, seed=11, hand_size=3, play_cards=12))   # end positions:
    outputs = []                                                                  # ms each
    for args in (["-j", "1"], ["-j", "2"], ["-j", "2", "--dask", "local", "--chunk-size", "32"]):
        out = tmp_path / f"out{len(outputs)}.jsonl"
        p = run("annotate", str(source), "-o", str(out), *args)
        assert p.returncode == 0 and summary(p) == (1000, 1000, 0)
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]
    results = [json.loads(line) for line in outputs[0].splitlines()]
    assert [r["index"] for r in results] == list(range(1000))
    assert all(r["review"]["complete"] for r in results)


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


def test_pbn_output_keeps_the_input_and_reannotating_changes_nothing(tmp_path):
    source = tmp_path / "in.pbn"
    source.write_bytes((PBN / "correct_10.pbn").read_bytes() + b"\n" +
                       endgame_file(5, seed=1, hand_size=4, play_cards=16))
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
    assert all(r.errors == [] for r in annotated if "Deal" in r.tags and r.deal is not None)
    assert "HeartsOptimumTable" in annotated[-1].tags and "HeartsMoonTable" in annotated[-1].tags


def test_crlf_input_gets_crlf_annotations(tmp_path):
    source = tmp_path / "in.pbn"
    source.write_bytes(endgame_file(2, seed=4, hand_size=3, play_cards=12).replace(b"\n", b"\r\n"))
    p = run("annotate", str(source), "--format", "pbn", "-j", "1")
    assert b"\n" not in p.stdout.replace(b"\r\n", b"")


def test_csv_and_text_formats_follow_the_output_name(tmp_path):
    out = tmp_path / "sample.csv"
    assert run("annotate", str(SAMPLE), "-o", str(out), "-j", "1").returncode == 0
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 5 and rows[0]["N_moon_possible"] == "True" and rows[1]["shot_the_foot"] == "S"
    text = tmp_path / "sample.txt"
    run("annotate", str(SAMPLE), "-o", str(text), "-j", "1")
    assert "W could force it from trick 3 (handed over by S's D3) until W's H3 at trick 4" in text.read_text()


def test_moon_command():
    p = run("moon", str(SAMPLE), "-j", "1")
    assert p.returncode == 0
    lines = p.stdout.decode().splitlines()
    assert lines[0] == ("Record 0 (line 1, board 1): at the start: N; "
                        "N could force it from the start to the end")
    assert re.match(r"Record 3 \(line \d+, board 4\): at the start: E; E could force it from the "
                    r"start until E's C4 at trick 1, then from trick 2 \(handed over by N's S4\) to the end$",
                    lines[3])
    as_json = run("moon", str(SAMPLE), "-j", "1", "--json")
    first = json.loads(as_json.stdout.decode().splitlines()[0])
    assert first["players"]["N"] == {"moon_possible": True} and first["review"]["cards"] == []


@pytest.mark.parametrize("args, words", [
    (["annotate", "missing.pbn"], "does not exist"),
    (["annotate", "data/sample.pbn", "--rules", "nonsense"], "--rules: unknown preset 'nonsense'"),
    (["annotate", "data/sample.pbn", "--format", "xml"], "'xml' is not one of"),
    (["annotate", "data/sample.pbn", "--jobs", "0"], "--jobs"),
    (["moon"], "INPUTS"),
])
def test_bad_usage_is_one_line_and_exit_2(args, words):
    p = run(*args, cwd=ROOT)
    assert p.returncode == 2 and p.stdout == b""
    err = p.stderr.decode().strip()
    assert len(err.splitlines()) == 1 and words in err, err


def test_an_unwritable_output_leaves_nothing_behind(tmp_path):
    p = run("annotate", str(SAMPLE), "-o", str(tmp_path / "no" / "such" / "dir.jsonl"))
    assert p.returncode == 2 and len(p.stderr.decode().strip().splitlines()) == 1


def test_ctrl_c_leaves_no_output_file(tmp_path):
    source = tmp_path / "slow.pbn"
    # about 15 s of work for two processes (400 records took 3 s and sometimes ended before the
    # interrupt): the interrupt must find it running however fast the solver gets
    source.write_bytes(endgame_file(2000, seed=5, hand_size=8, play_cards=32))
    out = tmp_path / "out.pbn"
    child = subprocess.Popen([sys.executable, "-m", "solver.cli", "annotate", str(source), "-o", str(out),
                              "-j", "2"], cwd=ROOT, stderr=subprocess.PIPE, start_new_session=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)},
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(3)
    assert child.poll() is None, "finished before it could be interrupted"
    os.killpg(child.pid, signal.SIGINT)                  # what a terminal's Ctrl-C does
    _, err = child.communicate(timeout=30)
    assert child.returncode == 130
    assert err.decode().strip() == "hearts-dd: error: interrupted"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["slow.pbn"]


def test_a_progress_bar_on_a_terminal_only(tmp_path):
    pty = pytest.importorskip("pty")
    import fcntl
    import struct
    import termios
    source = tmp_path / "in.pbn"
    source.write_bytes(endgame_file(300, seed=6, hand_size=4, play_cards=16))
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    child = subprocess.Popen([sys.executable, "-m", "solver.cli", "annotate", str(source), "-j", "1",
                              "-o", str(tmp_path / "out.jsonl")], cwd=ROOT, stderr=slave,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:           # the terminal is closed once the child is gone
            break
        if not chunk:
            break
        seen += chunk
    assert child.wait(timeout=60) == 0
    os.close(master)
    assert b"/300 [" in seen and b"record/s" in seen                # the bar, with its total
    assert SUMMARY.match(seen.split(b"\r")[-2].decode().strip())     # cleared before the summary
