"""What the commands share: leaving with one line, option types, progress, and output
errors. The commands' modules (``cli``, ``cli_records``, ``cli_serve``) import it; it imports
none of them."""
from __future__ import annotations

import codecs
import io
import math
import os
import select
import stat
import sys
from contextlib import contextmanager, suppress
from typing import IO, Any, Callable, Iterator, NoReturn

import click

from .errors import HeartsError, error_line
from .rules import Rules


def fail(message: str, code: int = 2) -> NoReturn:
    """Leave with one line on stderr, nothing on stdout."""
    click.echo(error_line(message), err=True)
    sys.exit(code)


#: The reports' symbols, spelt in ASCII for a console whose encoding lacks them.
_ASCII = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "→": "->", "≥": ">=", "≤": "<=", "…": "...",
          "·": "|", "–": "-", "§": "section "}


def _ascii_fallback(e: UnicodeError) -> tuple[str, int]:
    """A codec error handler: the reports' symbols in ASCII, anything else ``?``."""
    if not isinstance(e, UnicodeEncodeError):
        raise e
    return "".join(_ASCII.get(ch, "?") for ch in e.object[e.start:e.end]), e.end


codecs.register_error("hearts-dd-ascii", _ascii_fallback)


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


def rules_option(text: str | None) -> Rules | None:
    """The rules ``--rules`` gives (None without it), or exit with what is wrong with them."""
    try:
        return Rules.parse(text) if text is not None else None
    except HeartsError as e:
        fail(f"--rules: {e}")


#: ``--table-mb``'s range, the same for every command (the API's, too: api/config.py).
TABLE_MB = click.IntRange(1, 4096)


def counted(n: int, noun: str) -> str:
    """``n`` and the noun, plural unless one: the summary lines' counts.

    >>> counted(1, "record"), counted(0, "record")
    ('1 record', '0 records')
    """
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def countable(path: str) -> bool:
    """Whether ``path`` is a regular file, which a progress bar may read ahead to count (a
    pipe, standard input included, can be read only once)."""
    try:
        return path not in ("-", "<stdin>") and stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False        # reading it for real reports the error


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
    """Standard output cannot be written (a full disk, a reader gone): one line, exit 2. What
    is still buffered goes to /dev/null, or Python's flush at exit would fail again."""
    with suppress(OSError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    fail(f"cannot write standard output: {e.strerror or e}")


def os_error_line(e: OSError) -> str:
    """An input or output error as one line: the file, then what went wrong."""
    return f"{e.filename or ''}: {e.strerror or e}".lstrip(": ")


def more_now(stream: IO[str]) -> Callable[[], bool] | None:
    """For ``answer_lines``: whether more of ``stream`` can be read without waiting (None when
    the stream has no file descriptor to ask, as in tests). Lines the stream has buffered
    already are not seen: a chunk then ends early, which costs only some parallelism."""
    try:
        fd = stream.fileno()
    except (OSError, AttributeError, ValueError):
        return None
    return lambda: bool(select.select([fd], [], [], 0)[0])
