"""``hearts-dd annotate`` and ``hearts-dd moon``: hand-record files through the batch runner.

Both read PBN files (``-`` for standard input), run every record through ``solver.batch``
and end with a summary line on stderr; the exit status is 1 when any record had an error,
else 0. Bad options exit 2 with one line, Ctrl-C exits 130 and leaves no output file behind
(with ``annotate --resume``, a checkpoint that the same command goes on from: solver.checkpoint).
"""
from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
import time
from contextlib import closing, contextmanager, nullcontext, suppress
from typing import Any, BinaryIO, Callable, Iterator, Sequence, TypeVar

import click

from . import package_version
from .analysis import WORKER_TABLE_MB
from .batch import STOP_SIGNALS, AnnotateOptions, annotate_stream, default_jobs, signals_blocked
from .checkpoint import Checkpoint
from .cli_common import (RULES_TAKES, TABLE_MB, Command, ReaderGone, Seconds, closed_at_start,
                         complete_rules, count_ahead, counted, descriptor_named, echo, fail,
                         Tally, held_for_output, is_pipe, live_display, os_error_line,
                         output_whole, progress, rules_option, stdout_failed,
                         stopped_when_reader_gone, temporary_files)
from .errors import HeartsError, error_line, printable
from .pbn import Record, count_games, read_records
from .rules import STANDARD
from .writers import FORMATS, format_for, make_writer, moon_line

#: Worker processes at most, each with its own table (``--table-mb``, 64 MB by default).
MAX_JOBS = 256
#: Records a chunk at most: a worker holds its chunk's records and results in memory.
MAX_CHUNK = 100_000

INPUTS = click.argument("inputs", nargs=-1, required=True,
                        type=click.Path(exists=True, dir_okay=False, allow_dash=True))


def _records(paths: Sequence[str], unreadable: list[str], gameless: list[str]) -> Iterator[Record]:
    """The records of every input in turn, numbered across all of them, each with its file
    when there are several. An input that cannot be read is reported on stderr and added to
    ``unreadable``, one without a game (empty, or not PBN: the wrong file, most likely) to
    ``gameless``; the others are still read."""
    index = 0
    for path in paths:
        name = "standard input" if path == "-" else path
        first = index
        try:
            if closed_at_start(path):
                raise OSError(errno.EBADF, os.strerror(errno.EBADF))
            stream = sys.stdin.buffer if path == "-" else open(path, "rb")
            try:
                for record in read_records(stream, first_index=index):
                    index = record.index + 1
                    if len(paths) > 1:
                        record.source = _shown(path)
                    yield record
            finally:
                if stream is not sys.stdin.buffer:
                    stream.close()
        except OSError as e:
            echo(error_line(f"{name}: {e.strerror or e} (its records from there on are "
                            "missing)"), err=True)
            unreadable.append(path)
            continue
        if index == first:
            echo(error_line(f"{name}: no PBN game found (expected tag pairs such as "
                            '[Deal "N:..."])'), err=True)
            gameless.append(path)


def _shown(path: str) -> str:
    """A file name as the outputs give it: bytes that are not UTF-8 (which the system passes
    through as lone surrogates) as escapes, so that every writer can encode it and two such
    names stay apart; what ``printable`` escapes too, so that a newline in a name cannot break
    the one line ``moon`` writes for each record.

    >>> _shown(os.fsdecode(bytes([99, 97, 102, 0xE9]))) == "caf" + chr(92) + "xe9"   # caf, byte E9
    True
    >>> _shown("a" + chr(10) + "b") == "a" + chr(92) + "x0ab"
    True
    """
    name = os.fsencode(path).decode("utf-8", "backslashreplace")
    return printable(name)


@contextmanager
def _output(path: str | None) -> Iterator[BinaryIO]:
    """Standard output; a device or a pipe, written as it comes; or a temporary file that
    replaces the file ``path`` names (through a symbolic link) only once all went well, with
    that file's permissions, or those a new file gets."""
    if path in (None, "-"):
        yield sys.stdout.buffer
        sys.stdout.flush()
        return
    out, tmp, target = _opened(path)
    written = False
    try:
        yield out
        out.close()
        if tmp is not None:
            with signals_blocked(STOP_SIGNALS):     # (a stop from here on: ignored, OUT is whole)
                os.replace(tmp, target)
                output_whole()
        written = True
    except OSError as e:
        error = e
    finally:
        if not written:
            with suppress(OSError):
                out.close()
            if tmp is not None:
                with suppress(OSError):
                    os.unlink(tmp)
        if tmp is not None:
            temporary_files.discard(tmp)
    if not written:
        fail(f"cannot write {path}: {error.strerror or error}")


@contextmanager
def _resumable(path: str | None, run: dict[str, Any]) -> Iterator[Checkpoint]:
    """``--resume``'s output: a checkpoint beside the regular file ``path`` names (through a
    symbolic link), which becomes that file once all went well, with its permissions, or those
    a new file gets. A run that stops keeps it, and says so in one line."""
    if path in (None, "-") or descriptor_named(path) is not None:
        fail("--resume needs -o FILE: standard output cannot be resumed")
    if not path or path.endswith(os.sep):
        fail(f"cannot write {path!r}: not a file name")
    try:
        target = _not_through_planted(path)
        st = _found(path, target)
    except OSError as e:
        fail(f"cannot write {path}: {e.strerror or e}")
    if st is not None and not stat.S_ISREG(st.st_mode):
        fail(f"--resume needs -o FILE to be a regular file: {path} is a device or a pipe")
    mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask()
    try:
        checkpoint = Checkpoint(target, run, mode)
    except HeartsError as e:
        fail(str(e))
    finished = False
    try:
        yield checkpoint
        checkpoint.finish(output_whole)     # (a stop once OUT is whole: ignored)
        finished = True
    except OSError as e:
        error = e
    finally:
        if not finished:
            kept = checkpoint.keep()
            if kept:
                echo(kept, err=True)
    if not finished:
        fail(f"cannot write {path}: {error.strerror or error}")


def _run_identity(inputs: tuple[str, ...], fmt: str, options: AnnotateOptions) -> dict[str, Any]:
    """What a checkpoint must have been made with to be resumed: whatever changes the output."""
    run: dict[str, Any] = {
        "version": package_version(), "format": fmt, "review": options.review,
        "rules": (options.rules or STANDARD).to_json(), "time_limit": options.time_limit,
        "inputs": [p if p == "-" else os.path.realpath(p) for p in inputs]}
    if len(inputs) > 1:         # (each record then names its file as given)
        run["names"] = [_shown(p) for p in inputs]
    return run


def _opened(path: str) -> tuple[BinaryIO, str | None, str]:
    """``_output``'s stream for ``path``, the temporary file it writes (None when written
    directly) and the file that replaces."""
    if not path or path.endswith(os.sep):
        fail(f"cannot write {path!r}: not a file name")
    tmp = None
    try:
        inherited = descriptor_named(path)
        if inherited is not None:
            if closed_at_start(path):
                raise OSError(errno.EBADF, os.strerror(errno.EBADF))
            # this process's own output, as a shell redirected it: written where it stands
            # (reopened, a file would be truncated; replaced, a log appended to would be lost)
            return os.fdopen(os.dup(inherited), "wb"), None, path
        target = _not_through_planted(path)
        st = _found(path, target)
        if st is not None and not stat.S_ISREG(st.st_mode):
            # a device or pipe, opened by the name given (/dev/stdout's real path names none)
            return open(path, "wb"), None, path
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target),
                                   prefix=f".{os.path.basename(target)}.", suffix=".part")
        temporary_files.add(tmp)
        os.fchmod(fd, stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask())
        return os.fdopen(fd, "wb"), tmp, target
    except OSError as e:
        if tmp is not None:
            with suppress(OSError):
                os.unlink(tmp)
            temporary_files.discard(tmp)
        fail(f"cannot write {path}: {e.strerror}")


def _not_through_planted(path: str) -> str:
    """The name ``-o`` writes to: ``path`` resolved by ``_resolved``. Refused (one line) when it
    is reached through another user's link in a sticky folder."""
    target, planted = _resolved(path)
    if planted is not None:
        fail(f"cannot write {path}: {planted} in a directory anyone may write to (such as "
             "/tmp) was made by another user: not written through")
    return target


def _resolved(path: str) -> tuple[str, str | None]:
    """``path`` with its symbolic links followed as the kernel follows them (``link/..`` is
    the link's target's parent), and the first link on the way that the kernel's
    ``protected_symlinks`` would not follow (Linux, ``fs.protected_symlinks = 1``, most
    distributions' default): one in a sticky directory anyone may write to (/tmp), owned
    neither by this user nor by the directory's owner; or ``path`` itself a pipe there, so
    owned (``protected_fifos``: its owner reads the output, or the command waits for a reader
    forever). That one (as "symbolic link NAME" or "pipe NAME") or None.

    ``-o`` resolves the name itself (a new file renamed over the link's target), where the
    kernel's check does not apply: another user's link ``/tmp/out.jsonl -> ~/.bashrc`` had the
    output replace ``~/.bashrc``. The output is written to the name resolved here, by the same
    walk that checks it (the temporary file beside it and its rename over it, or --resume's
    files): ``os.path.realpath``, called after the check, resolved the name a second time, and
    followed a link planted in between (a name that did not exist yet, in /tmp) that the check
    had not seen. Past a name that cannot be looked at (nothing there yet, or not to be looked
    into) the rest is taken as written, as ``realpath`` takes it: the write says what is
    wrong. Too many links on the way (a loop) raise ELOOP, as the write would."""
    # (not abspath: "link/.." is the link's target's parent, as the kernel resolves it)
    todo = list(reversed(os.path.join(os.getcwd(), path).split(os.sep)[1:]))
    here, hops, looking = os.sep, 0, True
    while todo:
        name = todo.pop()
        if name in ("", "."):
            continue
        if name == "..":
            here = os.path.dirname(here)
            continue
        step = os.path.join(here, name)
        try:
            st = os.lstat(step) if looking else None
        except OSError:
            st = None
        if st is None:          # (nothing there, or not to be looked into: the write says so)
            here, looking = step, False
            continue
        folder = os.stat(here)
        foreign = bool(folder.st_mode & stat.S_ISVTX and folder.st_mode & stat.S_IWOTH
                       and st.st_uid not in (os.geteuid(), folder.st_uid))
        if not stat.S_ISLNK(st.st_mode):
            if foreign and not todo and stat.S_ISFIFO(st.st_mode):
                return step, f"pipe {step}"
            here = step
            continue
        if foreign:
            return step, f"symbolic link {step}"
        hops += 1
        if hops > 40:           # (a loop)
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path)
        to = os.readlink(step)
        if to.startswith(os.sep):
            here = os.sep
        todo += reversed(to.split(os.sep))
    return here, None


def _found(path: str, target: str) -> os.stat_result | None:
    """What the output replaces, or None for a new file: the file at ``target``, the name
    ``path`` resolved to when it was checked. A link there now was planted since (the check
    followed every link on the way): not followed, replaced by the output as a new file would
    be (in a sticky folder the rename over another user's link is refused). Where ``target``
    names nothing, ``path`` as the kernel finds it: /proc's links to pipes and terminals,
    which the check cannot follow (/dev/stdout's real path names none), name one still."""
    try:
        st = os.stat(target, follow_symlinks=False)
    except FileNotFoundError:
        try:
            return os.stat(path)
        except FileNotFoundError:
            return None
    return None if stat.S_ISLNK(st.st_mode) else st


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _run(paths: tuple[str, ...], options: AnnotateOptions, jobs: int | None, dask: str | None,
         chunk_size: int | None, write: Callable[[Record, dict[str, Any]], None],
         output: str | None = None,
         flush: Callable[[], None] | None = None, to: BinaryIO | None = None,
         checkpoint: Checkpoint | None = None,
         resumed: Callable[[Record, bytes], None] | None = None) -> int:
    """Annotate, hand each pair to ``write`` (to ``output``: a path, or None for standard
    output; ``to``, what it writes to, default standard output's), ``flush`` it (default:
    standard output's), print the summary; the exit status to use. The summary comes after
    the flush: an output that fails only then gets the error line alone. With a
    ``checkpoint``, the records it holds are counted off unsolved (``resumed`` tells the writer
    the last), count in the summary, and each record written is counted into it."""
    if dask is not None and not dask.strip():
        fail("--dask is empty: give a scheduler's address, or 'local'")
    if paths.count("-") > 1:
        fail(f"standard input ('-') is given {paths.count('-')} times: it can be read once")
    t0 = time.perf_counter()
    records = annotated = failed = 0
    unreadable: list[str] = []
    gameless: list[str] = []
    try:
        inputs = Tally(_records(paths, unreadable, gameless))
        out = sys.stdout.buffer if to is None else to
        on_terminal = _is_terminal(out)
        as_done = on_terminal or is_pipe(out)
        shown = live_display() and not on_terminal
        # (records to standard output: a reader gone stops the run at once)
        watched = stopped_when_reader_gone() if output in (None, "-") else nullcontext()
        with watched, progress(shown, lambda: count_ahead(paths, count_games), "record") as step:
            if checkpoint is not None:      # (its records counted off on the bar: minutes for millions)
                last, tail = checkpoint.begin(inputs, step)
                if last is not None and resumed is not None:
                    resumed(last, tail)
                records, annotated, failed = (checkpoint.done.records, checkpoint.done.annotated,
                                              checkpoint.done.errors)
                write = checkpoint.writing(write)
            stream = annotate_stream(inputs, options, jobs or default_jobs(), dask, chunk_size)
            with closing(stream):
                for record, result in stream:
                    with held_for_output():     # (written and counted: see ReaderGone below)
                        write(record, result)
                        records += 1
                        annotated += result["players"] is not None
                        failed += result["error"] is not None
                        if as_done:
                            # each record shown (no progress bar there), or handed to the
                            # program reading the pipe, as it is done: not 8 KB at a time,
                            # minutes of full deals, and a program that waits for a record's
                            # answer before it writes the next record never got it (moon's
                            # text lines are written so by click.echo)
                            out.flush()
                    step()
        (flush or sys.stdout.flush)()
    except ReaderGone:
        # the reader left once it had every record ('| head -n 200' of 200 records, a program
        # that reads them all and closes its end as the run ends its workers): the output is
        # whole, and the run ends as it would have (summary, status), not with 141 and no word
        # as for records lost; a record still in the buffer fails its write (EPIPE, 141)
        if not (inputs.ended and records == inputs.taken):
            raise
        try:
            (flush or sys.stdout.flush)()
        except OSError as e:
            stdout_failed(e)
    except HeartsError as e:
        fail(str(e))
    except OSError as e:   # inputs report their own: this is the output's
        if e.filename:
            fail(os_error_line(e))
        if output in (None, "-"):
            stdout_failed(e)
        fail(f"cannot write {output}: {e.strerror or e}")
    lost = f", {counted(len(unreadable), 'input')} not read to the end" if unreadable else ""
    lost += f", {counted(len(gameless), 'input')} without a game" if gameless else ""
    echo(f"hearts-dd: {counted(records, 'record')}, {annotated} annotated, {failed} with errors{lost}, "
         f"{time.perf_counter() - t0:.1f} s", err=True)
    return 1 if failed or unreadable or gameless else 0


def _is_terminal(stream: BinaryIO) -> bool:
    """Whether the records are written to a terminal (standard output, or ``-o`` naming one,
    such as /dev/tty), where a progress bar on stderr would be drawn in among them (each
    record written after the bar, on its line)."""
    try:
        return stream.isatty()
    except (OSError, ValueError):
        return False


F = TypeVar("F", bound=Callable[..., Any])

_common = [
    click.option("--rules", "rules_text", default=None, metavar="PRESET|JSON",
                 shell_complete=complete_rules,
                 help=f"Rules for records without a [HeartsRules] tag: {RULES_TAKES} "
                      "(default: standard)."),
    click.option("-j", "--jobs", type=click.IntRange(1, MAX_JOBS), default=None,
                 help="Worker processes (default: all cores)."),
    click.option("--dask", "dask", default=None, metavar="ADDRESS|local",
                 shell_complete=lambda ctx, param, incomplete: [w for w in ["local"]
                                                                if w.startswith(incomplete)],
                 help="Run on a Dask cluster (scheduler address, or 'local'); needs the dask extra."),
    click.option("--time-limit", type=Seconds(), default=0.0, show_default=True,
                 help="Seconds per record before it is given up with an error (0: none)."),
    click.option("--chunk-size", type=click.IntRange(1, MAX_CHUNK), default=None,
                 help="Records sent to a worker at a time (default: by the deals' size, full "
                      "deals one at a time, up to 8 small endgames)."),
    click.option("--table-mb", type=TABLE_MB, default=WORKER_TABLE_MB, show_default=True,
                 help="Transposition table of each worker."),
]


def _with_common(f: F) -> F:
    for option in reversed(_common):
        f = option(f)
    return f


@click.command(cls=Command,
               short_help="Annotate PBN hand records: guarantees, moon, play review.",
               help="""Annotate every record of PBN hand-record files (guarantees, moon, play review).

    INPUTS: one or more PBN files, '-' for standard input.

    Exit status 1 when a record had an error (its output says which; the others are
    annotated) or an input could not be read, 2 for bad options. Exit status 141, with no
    word, as soon as standard output's reader is gone (| head).
    """)
@INPUTS
@click.option("-o", "--output", default=None, type=click.Path(dir_okay=False),
              help="Output file (default: standard output); written whole or not at all.")
@click.option("--resume", is_flag=True,
              help="With -o FILE: a run that stops keeps its work in FILE.part and "
                   "FILE.checkpoint; the same command again goes on from there.")
@click.option("--format", "fmt", type=click.Choice(sorted(FORMATS)), default=None,
              help="jsonl (SPEC §6), csv, pbn (the input with annotation tags) or text; "
                   "default: by the output file's suffix (.csv, .pbn, .txt for text, .jsonl or "
                   ".json), else jsonl.")
@click.option("--review/--no-review", default=True, show_default=True,
              help="Review recorded plays: card costs, moon timeline, shot the foot.")
@_with_common
def annotate(inputs: tuple[str, ...], output: str | None, resume: bool, fmt: str | None,
             review: bool, rules_text: str | None, jobs: int | None, dask: str | None,
             time_limit: float, chunk_size: int | None, table_mb: int) -> None:
    options = AnnotateOptions(rules_option(rules_text), review, False, time_limit, table_mb)
    fmt = fmt or format_for(output)
    if resume:
        with _resumable(output, _run_identity(inputs, fmt, options)) as checkpoint:
            writer = make_writer(fmt, checkpoint.out)
            status = _run(inputs, options, jobs, dask, chunk_size, writer.write, output,
                          writer.close, checkpoint.out, checkpoint, writer.resume)
        sys.exit(status)
    with _output(output) as out:
        writer = make_writer(fmt, out)
        status = _run(inputs, options, jobs, dask, chunk_size, writer.write, output, writer.close,
                      out)
    sys.exit(status)


@click.command(cls=Command,
               short_help="Who could force a moon in each PBN record, and until when.",
               help="""Who could force a moon at the start of each record and, with a recorded play,
    until when.

    INPUTS: one or more PBN files, '-' for standard input.

    Exit status 1 when a record had an error (its line says which; the others are answered)
    or an input could not be read, 2 for bad options. Exit status 141, with no word, as soon
    as standard output's reader is gone (| head).
    """)
@INPUTS
@click.option("--json", "as_json", is_flag=True, help="One JSON object per record instead of text.")
@_with_common
def moon(inputs: tuple[str, ...], as_json: bool, rules_text: str | None, jobs: int | None,
         dask: str | None, time_limit: float, chunk_size: int | None, table_mb: int) -> None:
    options = AnnotateOptions(rules_option(rules_text), True, True, time_limit, table_mb)
    if as_json:
        writer = make_writer("jsonl", sys.stdout.buffer)
        sys.exit(_run(inputs, options, jobs, dask, chunk_size, writer.write, flush=writer.close))

    def show(record: Record, result: dict[str, Any]) -> None:
        echo(moon_line(result))

    sys.exit(_run(inputs, options, jobs, dask, chunk_size, show))
