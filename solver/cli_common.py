"""What the commands share: leaving with one line, option types, progress, and output
errors. The commands' modules (``cli``, ``cli_records``, ``cli_serve``) import it; it imports
none of them."""
from __future__ import annotations

import codecs
import errno
import io
import math
import os
import re
import select
import signal
import stat
import sys
import threading
from contextlib import AbstractContextManager, contextmanager, suppress
from typing import IO, Any, BinaryIO, Callable, Generic, Iterable, Iterator, NoReturn, TypeVar

import click

from .analysis import MAX_TABLE_MB, watch_signal
from .batch import STOP_SIGNALS, signals_blocked
from .errors import HeartsError, error_line
from .rules import PRESETS, Rules


def fail(message: str, code: int = 2) -> NoReturn:
    """Leave with one line on stderr, nothing on stdout."""
    echo(error_line(message), err=True)
    sys.exit(code)


def echo(message: str, err: bool = False) -> None:
    """``click.echo`` to standard output (or error) as it is. By default click writes UTF-8 to a
    stream that says it is ASCII (``PYTHONIOENCODING=ascii``), taking it for a misconfigured
    locale: the reports' suit symbols then came out as UTF-8 where letters were asked for."""
    click.echo(message, file=sys.stderr if err else sys.stdout)


def as_written(text: str, stream: IO[str]) -> str:
    """``text`` as ``stream``'s encoding can have it: the reports' symbols in ASCII where it
    lacks them, as ``plain_where_needed`` has the standard streams write them.

    >>> as_written("SPEC §4 · ♠", io.TextIOWrapper(io.BytesIO(), encoding="ascii"))
    'SPEC section 4 | S'
    >>> as_written("SPEC §4", io.TextIOWrapper(io.BytesIO(), encoding="utf-8"))
    'SPEC §4'
    """
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        return text.encode(encoding, "hearts-dd-ascii").decode(encoding, "replace")
    except LookupError:                                 # (an encoding Python does not know)
        return text


class Command(click.Command):
    """A command whose help is written as standard output's encoding allows: click writes a help
    page itself, in UTF-8 to a stream that says ASCII (see ``echo``)."""

    def get_help(self, ctx: click.Context) -> str:
        return as_written(super().get_help(ctx), sys.stdout)


#: The reports' symbols, spelt in ASCII for a console whose encoding lacks them.
_ASCII = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "→": "->", "≥": ">=", "≤": "<=", "…": "...",
          "·": "|", "–": "-", "§": "section "}


def _ascii_fallback(e: UnicodeError) -> tuple[str, int]:
    """A codec error handler: the reports' symbols in ASCII, anything else ``?``."""
    if not isinstance(e, UnicodeEncodeError):
        raise e
    return "".join(_ASCII.get(ch, "?") for ch in e.object[e.start:e.end]), e.end


codecs.register_error("hearts-dd-ascii", _ascii_fallback)


class _Closed(io.RawIOBase):
    """A standard stream that was closed when the command started (``2>&-``): Python gives
    None for it, on which the first use fails with a traceback. Reading or writing this one
    fails as a closed descriptor does, which the commands report in one line."""

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    def write(self, data: Any) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))


class _Messages(io.RawIOBase):
    """Standard error, written as far as it can be: a message that cannot be (a full disk, a
    reader gone) is dropped rather than failing the command, whose answers matter more."""

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        try:
            return os.write(2, data)
        except OSError:
            return len(data)

    def fileno(self) -> int:
        return 2

    def isatty(self) -> bool:
        return os.isatty(2)


_HELD: set[int] = set()     # standard descriptors closed at start, held on /dev/null


def standard_streams() -> None:
    """Standard streams as the commands need them. One closed at start (``2>&-``), which
    Python gives as None: its descriptor is held on /dev/null (else the next file opened, an
    output say, would get it, and what is written there or by a worker would go into that
    file); input and output then fail when used (one line, exit 2). Standard error never fails
    a command (``_Messages``)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            held = os.open(os.devnull, os.O_RDWR)   # (the lowest free descriptor: this one)
            os.set_inheritable(held, True)          # (for the programs this one starts too)
            _HELD.add(fd)
    if sys.stdin is None or 0 in _HELD:
        sys.stdin = io.TextIOWrapper(io.BufferedReader(_Closed()), encoding="utf-8")
    if sys.stdout is None or 1 in _HELD:
        # (written through: nothing is left buffered to fail again at exit)
        sys.stdout = io.TextIOWrapper(_Closed(), encoding="utf-8", write_through=True)
    old = sys.stderr
    if old is None or old is sys.__stderr__:      # (not a caller's capture)
        sys.stderr = io.TextIOWrapper(io.BufferedWriter(_Messages()), line_buffering=True,
                                      encoding=getattr(old, "encoding", None) or "utf-8",
                                      errors=getattr(old, "errors", None) or "backslashreplace")


def descriptor_named(path: str) -> int | None:
    """The descriptor ``path`` names when it is one of this process's own (/dev/stdin,
    /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N), else None.

    >>> [descriptor_named(p) for p in ("/dev/stdout", "/dev/fd/3", "/proc/self/fd/4", "out.jsonl")]
    [1, 3, 4, None]
    """
    named = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}.get(path)
    if named is not None:
        return named
    m = re.fullmatch(r"/(?:dev/fd|proc/self/fd)/(\d+)", path)
    return int(m.group(1)) if m else None


def closed_at_start(path: str) -> bool:
    """Whether ``path`` names a standard stream that was closed when the command started (its
    descriptor only held on /dev/null): reading or writing it would silently read nothing or
    lose everything."""
    fd = descriptor_named(path)
    return fd is not None and fd in _HELD


#: Temporary output files being written (``annotate -o``), removed by a stop that cannot
#: unwind (a second signal while the first hangs).
temporary_files: set[str] = set()
#: The command's own handlers of the stop signals (``solver.cli`` adds its one).
stop_handlers: set[Callable[[int, Any], None]] = set()


def output_whole() -> None:
    """The output is whole and in place (renamed over the file ``-o`` names): a stop from
    here on is ignored, and the run ends as it would have, with its summary and exit status.
    It ended with "interrupted" and 128 + the signal's number, which says of a complete file
    that the run was cut short (a script would run it again, or throw the file away). Called
    with the stop signals blocked around the rename, so that one that came meanwhile is
    dropped too; only the command's own handler is replaced (a program or test that runs the
    command in its own process keeps its handlers), and only in the main thread, where
    handlers are set."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in STOP_SIGNALS:
        if signal.getsignal(signum) in stop_handlers:
            signal.signal(signum, signal.SIG_IGN)


def plain_where_needed() -> None:
    """Standard output and error write what their encoding cannot (a cp1252 or ASCII console:
    the diagram's suit symbols, a line's arrows) as ASCII, instead of failing mid-report."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="hearts-dd-ascii")


class Seconds(click.FloatRange):
    """Seconds, 0 or more: a float range that also refuses ``nan`` (which compares false with
    every bound, so a range lets it through, and as a time limit it would mean none)."""

    def __init__(self) -> None:
        super().__init__(0)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            number = float(value)
        except (TypeError, ValueError):     # (click would say "not a valid float range")
            number = math.nan
        if math.isnan(number):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        return super().convert(value, param, ctx)


def complete_rules(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """``--rules``' shell completion: the presets (a JSON object is the user's to type)."""
    return [name for name in PRESETS if name.startswith(incomplete.lower())]


#: What ``--rules`` takes, as every command's help says it: the presets by name, which the
#: help is where a user looks for them.
RULES_TAKES = (f"a preset ({', '.join(PRESETS)}) or a JSON object of SPEC §2's rule keys, "
               "which hearts-dd rules lists")


def rules_option(text: str | None) -> Rules | None:
    """The rules ``--rules`` gives (None without it), or exit with what is wrong with them."""
    try:
        return Rules.parse(text) if text is not None else None
    except HeartsError as e:
        fail(f"--rules: {e}")


#: ``--table-mb``'s range, the same for every command (and the API's).
TABLE_MB = click.IntRange(1, MAX_TABLE_MB)


def counted(n: int, noun: str) -> str:
    """``n`` and the noun, plural unless one: the summary lines' counts.

    >>> counted(1, "record"), counted(0, "record")
    ('1 record', '0 records')
    """
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def count_ahead(paths: Iterable[object], count: Callable[[BinaryIO], int]) -> int | None:
    """Items to expect, for a progress bar: ``count`` of each input summed, or None unless
    every input is a named ``countable`` file."""
    total = 0
    for path in paths:
        if not isinstance(path, str) or not countable(path):
            return None
        try:
            with open(path, "rb") as f:
                total += count(f)
        except OSError:
            return None
    return total


def countable(path: str) -> bool:
    """Whether ``path`` is a regular file, which a progress bar may read ahead to count (a
    pipe, standard input included, can be read only once)."""
    try:
        return path not in ("-", "<stdin>") and stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False        # reading it for real reports the error


def live_display() -> bool:
    """Whether standard error may show a line that rewrites itself (a solve's status line, a
    progress bar): on a terminal, unless a dumb one (``TERM=dumb``: an editor's shell, a screen
    reader's), where each rewrite is read out or left as a new line."""
    return sys.stderr.isatty() and os.environ.get("TERM") != "dumb"


@contextmanager
def progress(show: bool, total: Callable[[], int | None],
             unit: str) -> Iterator[Callable[[], None]]:
    """A function to call as each item is done: a progress bar on stderr when ``show`` (of
    ``total()`` items, counted only then), closed however the run ends; else nothing."""
    if not show:
        yield lambda: None
        return
    from tqdm import tqdm
    bar = tqdm(total=total(), unit=unit, file=sys.stderr, leave=False)
    try:
        yield bar.update
    finally:
        bar.close()


def stdout_failed(e: OSError) -> NoReturn:
    """Standard output cannot be written: one line, exit 2 (a full disk); or, its reader gone
    (``| head``, ``less`` left early), no word and the status of a command a broken pipe's
    signal ends (``PIPE_STATUS``), as other Unix tools end. What is still buffered goes to
    /dev/null, or Python's flush at exit would fail again."""
    with suppress(OSError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    if e.errno == errno.EPIPE:
        sys.exit(PIPE_STATUS)
    fail(f"cannot write standard output: {e.strerror or e}")


#: The exit status when standard output's reader is gone: a shell's for a command SIGPIPE ends.
PIPE_STATUS = 128 + signal.SIGPIPE


def is_pipe(out: int | IO[Any]) -> bool:
    """Whether ``out`` (a descriptor or a stream) is a pipe or a socket: another program reads
    it, which may act on each record as it comes, or go."""
    try:
        kind = os.fstat(out if isinstance(out, int) else out.fileno()).st_mode
    except (AttributeError, OSError, ValueError):  # (no descriptor: io.UnsupportedOperation)
        return False
    return stat.S_ISFIFO(kind) or stat.S_ISSOCK(kind)


def _output_watched() -> bool:
    """Whether standard output is descriptor 1 and a pipe or a socket, whose reader can go. In
    a caller's process whose output is captured (``sys.stdout`` a buffer: click's
    ``CliRunner``), descriptor 1 is the caller's, not the command's: its reader gone (a
    service's log pipe closed) raised ``ReaderGone`` out of ``CliRunner.invoke`` at once, a
    ``BaseException`` that it does not catch, though the command's output went on to be
    captured."""
    try:
        if sys.stdout.fileno() != 1:
            return False
    except (AttributeError, OSError, ValueError):
        return False
    return 1 not in _HELD and is_pipe(1)


@contextmanager
def _reader_watched(stop: Callable[[], None]) -> Iterator[None]:
    """While the block runs, standard output (a pipe or a socket: ``_output_watched``) is
    watched, and ``stop()`` called once its reader is gone (``| head`` had its lines, the
    program driving the command died or closed its end)."""
    wake, woken = os.pipe()

    def run() -> None:
        poll = select.poll()
        poll.register(1, 0)     # (POLLERR for a pipe without its reader, POLLHUP for a
        poll.register(wake, select.POLLIN)      # socket closed: reported whatever is asked)
        while True:
            events = dict(poll.poll())
            if wake in events:
                return
            if events.get(1):
                stop()
                return

    thread = threading.Thread(target=run, name="hearts-dd reader watch", daemon=True)
    thread.start()
    try:
        yield
    finally:
        os.close(woken)
        thread.join()
        os.close(wake)


class ReaderGone(BaseException):
    """Standard output's reader went while a command ran: unwound as a stop signal is (a
    search stopped, ``annotate``'s workers ended), and the command ends as a broken pipe ends
    it (``PIPE_STATUS``, no word)."""


#: The signal ``stopped_when_reader_gone`` sends the main thread: one nothing else sends a
#: command (its default is to be ignored), whose handler raises ``ReaderGone``.
READER_GONE_SIGNAL = signal.SIGURG


@contextmanager
def stopped_when_reader_gone() -> Iterator[None]:
    """While the block runs, ``ReaderGone`` is raised in the main thread as soon as standard
    output's reader is gone (``reader_gone``), wherever it is: in a search (which stops, as
    for Ctrl-C), waiting on ``annotate``'s workers or for a line of input. A command only
    learnt of it when its next answer failed to be written: minutes of a full deal's search
    for nobody (``| head -1`` hung that long), or never, waiting for input that did not
    come (``tail -f positions.jsonl | hearts-dd analyze --input - | head -1``). A terminal or
    a file has no reader to lose, and is not watched; nor is descriptor 1 when it is not where
    the command writes (a caller's capture: ``_output_watched``)."""
    main = threading.main_thread()
    if threading.current_thread() is not main or not _output_watched():
        yield       # (a caller's own SIGURG handler left as it is too)
        return

    seen: list[bool] = []

    def stop() -> None:
        seen.append(True)
        # (a search in this process stops at once too, as for Ctrl-C; watched only now, so
        # that a SIGURG from elsewhere stops none)
        watch_signal(READER_GONE_SIGNAL)
        signal.pthread_kill(main.ident, READER_GONE_SIGNAL)  # type: ignore[arg-type]

    def gone(signum: int, frame: object) -> None:
        if seen:        # (not a SIGURG from elsewhere, which is ignored as by default)
            raise ReaderGone()

    before = signal.signal(READER_GONE_SIGNAL, gone)
    try:
        with _reader_watched(stop):
            yield
    finally:
        signal.signal(READER_GONE_SIGNAL, before)


def held_for_output() -> AbstractContextManager[None]:
    """``ReaderGone`` held back while the block runs (a record or an answer written, and
    counted), and raised as it ends: its signal blocked meanwhile. A reader gone once it had
    the last of the output is told from one gone with output lost by that count: raised
    between a write and its count, the exception left a record written out but not counted
    (141 for a whole output)."""
    return signals_blocked((READER_GONE_SIGNAL,))


T = TypeVar("T")


class Tally(Generic[T]):
    """An iterator's items, counted as they are taken (``taken``), and whether it ran out
    (``ended``): a reader gone once it had every answer to every item is no output lost."""

    def __init__(self, items: Iterable[T]) -> None:
        self._items = iter(items)
        self.taken = 0
        self.ended = False

    def __iter__(self) -> "Tally[T]":
        return self

    def __next__(self) -> T:
        try:
            item = next(self._items)
        except StopIteration:
            self.ended = True
            raise
        self.taken += 1
        return item


def os_error_line(e: OSError) -> str:
    """An input or output error as one line: the file, then what went wrong.

    >>> os_error_line(FileNotFoundError(2, "No such file or directory", "games.pbn"))
    'games.pbn: No such file or directory'
    >>> os_error_line(OSError(28, "No space left on device"))
    'No space left on device'
    """
    return f"{e.filename or ''}: {e.strerror or e}".lstrip(": ")
