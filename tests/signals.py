"""Children that the stop-signal tests start: with Ctrl-C and a hang-up left to the system, as
in a terminal, whatever the test runner inherited (``nohup``, or a background job of a
non-interactive shell, starts with them ignored, and the command rightly keeps them so); and
every child a test starts with pipes, ended and its pipes closed (``finished``). A stop is sent
once the command shows it is where the test means to stop it (``output_begun``, ``blocking``),
to an input that ends only when the test says (``Fed``): no fixed wait, which a loaded machine
outlasts or a fast one finishes within."""
from __future__ import annotations

import errno
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from types import TracebackType
from typing import AnyStr


def as_in_a_terminal() -> None:
    """For ``preexec_fn``: SIGINT and SIGHUP back to their defaults in the child."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


#: ``hearts-dd ARGS...`` run with a stop sent to itself once its output ``OUT`` is whole: at
#: the final rename (right after the ``os.replace`` that makes the file ``OUT``, in
#: ``MODULE``: solver.checkpoint for ``--resume``, solver.cli_records otherwise) or as the
#: command exits (at its ``sys.exit``, after that rename). Run as
#: ``python -c WHOLE_THEN_STOPPED SIGNUM rename|exit MODULE OUT ARGS...``.
WHOLE_THEN_STOPPED = r"""
import importlib, os, sys
signum, when, module, out = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
argv = ["hearts-dd", *sys.argv[5:]]
from solver.launch import main
renamed = []

class Os:
    def __getattr__(self, name):
        return getattr(os, name)

    @staticmethod
    def replace(src, dst, **kwargs):
        os.replace(src, dst, **kwargs)
        if dst == out:
            renamed.append(dst)
            if when == "rename":
                os.kill(os.getpid(), signum)

importlib.import_module(module).os = Os()
real_exit = sys.exit

def exit(code=None):
    if when == "exit" and renamed:
        os.kill(os.getpid(), signum)
    real_exit(code)

sys.exit = exit
sys.argv = argv
main()
"""


def handling(pid: int, signum: int, within: float = 60) -> None:
    """Returns once process ``pid`` has a handler of its own for ``signum`` (Linux's SigCgt,
    /proc/PID/status): a stop sent before it is set kills the command by the signal's default
    action, which a fixed wait "past start-up" does not rule out on a loaded machine (imports
    taking more than the wait's 1.5 s: killed by SIGTERM, no message). Elsewhere, that wait."""
    _wait_for_mask(pid, "SigCgt", signum, within, 1.5, f"no handler of signal {signum}")


def blocking(pid: int, signum: int, within: float = 120) -> None:
    """Returns once process ``pid``'s main thread holds ``signum`` blocked (Linux's SigBlk):
    solver.batch blocks Ctrl-C while a pool or a local Dask cluster starts, so that one sent
    meanwhile stops the run once they are up. Elsewhere, a second's wait."""
    _wait_for_mask(pid, "SigBlk", signum, within, 1, f"signal {signum} not blocked")


def _wait_for_mask(pid: int, field: str, signum: int, within: float, elsewhere: float,
                   failure: str) -> None:
    """Returns once ``signum`` is in the signal mask ``field`` of /proc/PID/status; without
    /proc, after ``elsewhere`` seconds."""
    status = Path(f"/proc/{pid}/status")
    if not Path("/proc/self/status").exists():
        time.sleep(elsewhere)
        return
    deadline = time.monotonic() + within
    while True:
        mask = next(line for line in status.read_text().splitlines() if line.startswith(field + ":"))
        if int(mask.split()[1], 16) >> (signum - 1) & 1:
            return
        assert time.monotonic() < deadline, f"{failure} within {within} s"
        time.sleep(0.005)


def output_begun(out: Path, proc: subprocess.Popen[bytes], within: float = 120) -> None:
    """Returns once the temporary file ``proc`` writes for ``out`` (``.OUT.*.part`` beside it)
    holds records, a buffer's worth: the run is under way, its handlers set, its workers (or
    its Dask cluster) up and searching."""
    deadline = time.monotonic() + within
    while True:
        for part in out.parent.glob(f".{out.name}.*.part"):
            with suppress(FileNotFoundError):
                if part.stat().st_size:
                    return
        assert proc.poll() is None, f"ended (status {proc.returncode}) before it wrote a record"
        assert time.monotonic() < deadline, f"no record written within {within} s"
        time.sleep(0.02)


class Fed:
    """A named pipe at ``path``, for a command to read as its input file, that a thread writes
    what the test ``send``s into, until the test ``end``s it: a run cannot end before the test
    is done with it, however fast it gets. (An iterable sent is written piece by piece, for as
    long as the reader reads: ``itertools.repeat`` for an input without end.) The thread ends
    with the block; a reader still open by then must be gone (``finished``) first."""

    def __init__(self, path: Path) -> None:
        os.mkfifo(path)
        self._path = path
        self._pieces: queue.Queue[bytes | Iterable[bytes] | None] = queue.Queue()
        self._over = threading.Event()
        self._thread = threading.Thread(target=self._write, name=f"feeding {path.name}", daemon=True)

    def __enter__(self) -> Fed:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, e: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._over.set()
        self._pieces.put(None)
        self._thread.join(timeout=30)

    def send(self, data: bytes | Iterable[bytes]) -> None:
        self._pieces.put(data)

    def end(self) -> None:
        """The input ends once what was sent is written: the reader sees its end."""
        self._pieces.put(None)

    def _write(self) -> None:
        fd = -1
        while fd < 0:       # (a FIFO's writer end opens, without blocking, once a reader has it)
            try:
                fd = os.open(self._path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as e:
                if e.errno != errno.ENXIO or self._over.wait(0.02):
                    return
        os.set_blocking(fd, True)
        try:
            while (piece := self._pieces.get()) is not None:
                for data in [piece] if isinstance(piece, bytes) else piece:
                    view = memoryview(data)
                    while view:
                        if self._over.is_set():
                            return
                        view = view[os.write(fd, view):]
        except BrokenPipeError:
            pass            # (the reader is gone)
        finally:
            os.close(fd)


def reader_left(proc: subprocess.Popen[bytes]) -> tuple[int, bytes]:
    """A child's status and standard error once we, the reader of its output, close our end
    (killed if it has not ended within 30 s)."""
    assert proc.stdout is not None and proc.stderr is not None
    with finished(proc):
        proc.stdout.close()
        status = proc.wait(timeout=30)
        return status, proc.stderr.read()


@contextmanager
def finished(proc: subprocess.Popen[AnyStr]) -> Iterator[subprocess.Popen[AnyStr]]:
    """``proc`` for the block; after it (passed or failed), the child killed if it is still
    running, waited for, and our ends of its pipes closed: a pipe left open is closed by the
    garbage collector, in whichever later test it runs, as a ResourceWarning."""
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:     # (input still buffered for a child that is gone)
                    pass


def _stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command's name (field 3, the state, first)."""
    return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()


def cpu_seconds(pid: int) -> float:
    """Process ``pid``'s CPU time so far, all its threads, user and system (/proc/PID/stat),
    a zombie's too: what it has done, however slowly a loaded machine let it run."""
    fields = _stat(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def busy(proc: subprocess.Popen[AnyStr] | int, seconds: float, within: float = 300) -> float:
    """Returns, with its CPU time, once ``proc`` (or the process of that id) has used
    ``seconds`` more CPU time than now: it has been at work that long, not merely waiting for a
    loaded machine's cores."""
    pid = proc if isinstance(proc, int) else proc.pid
    target = cpu_seconds(pid) + seconds
    deadline = time.monotonic() + within
    while (used := cpu_seconds(pid)) < target:
        ended = proc.poll() is not None if not isinstance(proc, int) else \
            _stat(pid)[0] in "ZX"
        assert not ended, f"process {pid} ended before {seconds} s of CPU"
        assert time.monotonic() < deadline, f"not {seconds} s of CPU within {within} s"
        time.sleep(0.02)
    return used


def children(pid: int) -> list[int]:
    """The ids of process ``pid``'s children (Linux's /proc/PID/task/*/children)."""
    return [int(child) for task in Path(f"/proc/{pid}/task").iterdir()
            for child in (task / "children").read_text().split()]


def family_cpu(pid: int) -> float:
    """CPU time used by process ``pid`` and its children, those it has reaped too (their times
    are added to its cutime and cstime then): the work of a service and its workers, whichever
    of them is gone. (Read again if a child was reaped meanwhile.)"""
    while True:
        before = children(pid)
        fields = _stat(pid)
        total = (int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])) \
            / os.sysconf("SC_CLK_TCK")
        try:
            total += sum(family_cpu(child) for child in before)
        except FileNotFoundError:
            continue
        if children(pid) == before:
            return total


def exited_cpu(proc: subprocess.Popen[AnyStr], within: float = 120) -> float:
    """The CPU time ``proc`` had used in all once it exited (read while it is a zombie, not yet
    reaped: ``waitid`` with WNOWAIT), for ``communicate`` or ``wait`` to reap it after."""
    deadline = time.monotonic() + within
    while os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
        assert time.monotonic() < deadline, f"still running after {within} s"
        time.sleep(0.02)
    return cpu_seconds(proc.pid)
