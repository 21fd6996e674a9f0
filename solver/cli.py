"""The ``hearts-dd`` command: thin over the library. Bad input exits 2 with one line on stderr."""
from __future__ import annotations

import errno
import json
import os
import re
import signal
import sys
import threading
import time
from contextlib import contextmanager, suppress
from typing import IO, Any, Callable, Iterator

import click
from click.shell_completion import CompletionItem

from .analysis import (DEFAULT_TABLE_MB, Budget, SearchAborted, Solver, analyze_with_line,
                       watch_signal)
from .batch import STOP_SIGNALS, default_jobs
from .cards import Seat
from .cli_common import (RULES_TAKES, TABLE_MB, Command, ReaderGone, Seconds, Tally, as_written,
                         closed_at_start, complete_rules, count_ahead, counted, echo, fail,
                         held_for_output, live_display, os_error_line, plain_where_needed,
                         progress, rules_option, standard_streams, stdout_failed, stop_handlers,
                         stopped_when_reader_gone, temporary_files)
from .cli_records import annotate, moon
from .cli_serve import serve
from .deal import Deal
from .errors import HeartsError, LeaderNeeded, SampleError, error_line
from .position import Position
from .position_lines import LineInput, answer_lines, read_position_lines
from .report import render, render_catalogue, render_line, render_weighing, status_line
from .results import out_of_time
from .rules import Rules, catalogue
from .sampling import SEED_LIMIT, Weighing, fresh_seed, weigh_cards, weigh_view

# (ParamType is generic in newer click, not in 8.2, which is supported: no type arguments)
class _Seat(click.ParamType):  # type: ignore[type-arg]
    """A seat, in either case, shown as the SPEC writes seats (click's case-insensitive Choice
    shows and names them in lower case)."""

    name = "seat"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "[N|E|S|W]"

    def shell_complete(self, ctx: click.Context, param: click.Parameter,
                       incomplete: str) -> list[CompletionItem]:
        return [CompletionItem(str(seat)) for seat in Seat if str(seat).startswith(incomplete.upper())]

    def convert(self, value: object, param: click.Parameter | None,
                ctx: click.Context | None) -> str:
        try:
            return str(Seat.parse(str(value)))
        except HeartsError:
            self.fail(f"{value!r} is not a seat (N, E, S or W)", param, ctx)


SEAT = _Seat()
# analyze on a terminal: a status line from this many seconds into a solve, then refreshed
STATUS_AFTER = 0.5
STATUS_EVERY = 0.25


class _Commands(Command, click.Group):
    """The command group. click ends a broken pipe while it writes (the help, ``--version``) itself,
    with exit 1; here one ends as a command ends when its output cannot be written
    (``stdout_failed``). Its help and its commands' are written as ``Command``'s."""

    command_class = Command

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        with _pipe_errors():        # (the group's options: its help, --version)
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: click.Context) -> Any:
        with _pipe_errors():        # (a command's options, its help among them, and the command)
            return super().invoke(ctx)


@contextmanager
def _pipe_errors() -> Iterator[None]:
    """A broken pipe, out of click's reach (which would end it with exit 1)."""
    try:
        yield
    except BrokenPipeError as e:
        if e.filename:
            fail(os_error_line(e))
        stdout_failed(e)


# (each command's help is given, not its docstring, which python -OO strips: the help pages
# were then no more than their options)
@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]},
             help="Exact double-dummy analysis of Hearts deals.")
@click.version_option(package_name="hearts-dd")
def cli() -> None:
    pass


@cli.command(
    short_help="Every seat's guarantee and moon, and every legal card's value.",
    help="""Guarantee and moon feasibility for every seat, and the value of every legal card.

    On a terminal, unless TERM=dumb, a solve of over half a second keeps a line on stderr up to
    date with what it has proved so far (--samples, and --input answering to a file: a progress
    bar).

    Exit status 2 for bad input (one line on stderr says what is wrong, and where), 3 when
    --time-limit ran out, 1 when a line of --input had an error. Exit status 141, with no
    word, as soon as standard output's reader is gone (| head), in a search or not.
    """)
@click.option("--deal", "deal_text", default=None, metavar="PBN",
              help='PBN deal: the first hand\'s seat, then the four hands clockwise, each '
                   'spades.hearts.diamonds.clubs, e.g. "N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 '
                   '9743.74.QJ32.J95 J865.AQ92.KT8.T4".')
@click.option("--hand", "hand", default=None, metavar="SEAT:CARDS",
              help='Instead of --deal, with --samples: the 13 cards one seat was dealt, e.g. '
                   '"S:KQ97.Q9.AK54.J75" (those played too), for a player that sees only its own '
                   'cards and the play; that seat must be the one to play.')
@click.option("--play", "play", default="", help='Cards played so far, e.g. "C2 CA C5 C4".')
@click.option("--rules", "rules_text", default=None, metavar="PRESET|JSON",
              shell_complete=complete_rules,
              help=f"Rules: {RULES_TAKES} (default: standard; with --input: for lines without "
                   "rules).")
@click.option("--leader", type=SEAT, default=None,
              help="Leader of trick 1 (with a free first lead, or a deal without clubs).")
@click.option("--player", type=SEAT, default=None,
              help="Only this seat's guarantee and moon flag, and its cards' values when it (or "
                   "its partner) is to move (with --input: for lines without a player).")
@click.option("--line", "line_for", type=SEAT, default=None, help="Also print an optimal line for this seat.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout (SPEC §4).")
@click.option("--input", "input_file", type=click.File("rb"),
              default=None,
              help="Instead of --deal: analyze every position of a JSON Lines file ('-': standard "
                   "input), one object a line with deal, play, rules, leader, player and an id to "
                   "hand back; one JSON answer a line on stdout, in input order (exit 1 when a "
                   "line had an error).")
@click.option("--table-mb", type=TABLE_MB, default=DEFAULT_TABLE_MB, show_default=True,
              help="Transposition table size cap.")
@click.option("--time-limit", type=Seconds(), default=0.0,
              help="Seconds before giving up, with exit status 3 and what was proved (0: none; "
                   "with --line: for the analysis and the line together; with --input: for each "
                   "position, whose line then has the error; with --samples: "
                   "for them all, leaving out the deals not analysed in time).")
@click.option("--threads", type=click.IntRange(1, 64), default=None,
              help="Threads sharing one table: seats and cards solved in parallel, one question "
                   "searched by two, far enough from the end to pay; more threads than cores "
                   "share the cores, each slower [default: all cores].")
@click.option("--samples", type=click.IntRange(1, 10_000), default=None,
              help="Instead: weigh the cards of the player to move over this many deals it "
                   "cannot tell from this one (its hand and the play kept, the unseen cards "
                   "dealt at random as the play allows): each card's mean guarantee, and in how "
                   "many deals it was best. With --time-limit, the deals not analysed in time "
                   "are left out.")
@click.option("--seed", type=click.IntRange(0, SEED_LIMIT - 1), default=None,  # (as the API's)
              help="With --samples: the same deals each time (without it, a seed is drawn "
                   "and given with the answer, to repeat the run).")
@click.option("--known", "known", multiple=True, metavar="SEAT:CARDS",
              help='With --samples: cards the player to move knows another seat holds (those it '
                   'passed, say), e.g. --known "E:SQ H2 H3"; may be given for several seats.')
def analyze(deal_text: str | None, play: str, rules_text: str | None, leader: str | None,
            player: str | None, line_for: str | None, as_json: bool, table_mb: int,
            time_limit: float, threads: int | None, input_file: IO[bytes] | None,
            samples: int | None, seed: int | None, known: tuple[str, ...],
            hand: str | None) -> None:
    if sum(given is not None for given in (deal_text, input_file, hand)) > 1:
        fail("analyze: --deal, --input and --hand cannot be given together (one position, a file "
             "of them, or a seat's own cards)")
    if deal_text is None and input_file is None and hand is None:
        fail("analyze: give --deal, --input with one position a line, or --hand with --samples")
    if hand is not None and samples is None:
        fail("analyze: --hand goes with --samples: the other hands are drawn at random")
    if input_file is not None and (play or leader or line_for or samples):
        fail("analyze: --play, --leader, --line and --samples go with --deal (with --input, play "
             "and leader are fields of each line)")
    if samples is not None and (player or line_for):
        fail("analyze: --samples weighs the cards of the player to move: no --player or --line")
    if (seed is not None or known) and samples is None:
        fail("analyze: --seed and --known go with --samples")
    rules = rules_option(rules_text) or Rules()
    if samples is not None and seed is None:
        # a seed of its own, said with the answer, so that the run can be repeated
        seed = fresh_seed()
    if hand is not None:
        _weigh_view(Solver(table_mb=table_mb, time_limit=time_limit,
                           threads=threads or default_jobs()),
                    hand, play, rules, leader, samples, seed,  # type: ignore[arg-type]
                    _known_cards(known), as_json)
        return
    try:
        if input_file is None:
            pos = Position.from_play(Deal.parse(deal_text), rules, play, leader)  # type: ignore[arg-type]
    except LeaderNeeded as e:
        fail(f"{e} (--leader SEAT)")
    except HeartsError as e:
        fail(str(e))
    solver = Solver(table_mb=table_mb, time_limit=time_limit,
                    threads=threads or default_jobs())
    if input_file is not None:
        name = getattr(input_file, "name", "-")
        if isinstance(name, str) and closed_at_start(name):
            fail(f"{name}: {os.strerror(errno.EBADF)}")
        sys.exit(_analyze_lines(solver, LineInput(input_file), rules,
                                Seat.parse(player) if player else None))
    if samples is not None:
        _weigh(solver, pos, samples, seed, _known_cards(known), as_json)
        return
    seats = [Seat.parse(player)] if player else None
    target = Seat.parse(line_for) if line_for else None
    status = _StatusLine(solver, pos, seats, shown=live_display())
    budget = Budget(solver, time_limit)     # one limit for the command: the line has what is left

    def before_line() -> None:
        status.after = f"optimal line for {target}"
        budget.limited()

    try:
        with status, stopped_when_reader_gone():
            answer = analyze_with_line(budget.limited(), pos, seats, target, watch=status.watch,
                                       before_line=before_line)
    except SearchAborted as e:
        fail(status.cut_short(out_of_time(time_limit, e), out_of_time(time_limit)), code=3)
    try:
        if as_json:
            echo(json.dumps(answer.to_json()))
            return
        echo(render(answer.analysis))
        if answer.target is not None and answer.line is not None:
            echo("\n" + render_line(pos, answer.target, answer.line))
    except OSError as e:
        stdout_failed(e)


def _known_cards(given: tuple[str, ...]) -> dict[Seat | str, str]:
    """``--known SEAT:CARDS`` options, by seat (a seat given twice: both sets of cards, joined
    once: added one by one, each copied those before, in time quadratic in their number)."""
    out: dict[Seat | str, list[str]] = {}
    for text in given:
        seat, cards = _seat_cards("--known", text, "E:SQ H2 H3")
        out.setdefault(seat, []).append(cards)
    return {seat: "".join(f" {cards}" for cards in sets) for seat, sets in out.items()}


def _seat_cards(option: str, text: str, example: str) -> tuple[Seat, str]:
    """An option's ``SEAT:CARDS``: the seat, and the cards as given."""
    name, colon, cards = text.partition(":")
    if not colon:
        fail(f"{option} {text!r}: expected SEAT:CARDS, e.g. \"{example}\"")
    try:
        return Seat.parse(name), cards
    except HeartsError as e:
        fail(f"{option} {text!r}: {e}")


def _weigh(solver: Solver, pos: Position, count: int, seed: int | None,
           known: dict[Seat | str, str], as_json: bool) -> None:
    """``analyze --samples``: the mover's cards over deals it cannot tell apart."""
    if pos.to_move is None:     # (the library's words would name weigh_cards)
        fail("analyze --samples: the hand is over: no card to weigh")
    _weighed(solver, lambda step: weigh_cards(solver, pos, count, seed, known, done=step),
             count, seed, as_json, from_view=False)


def _weigh_view(solver: Solver, hand: str, play: str, rules: Rules, leader: str | None,
                count: int, seed: int | None, known: dict[Seat | str, str],
                as_json: bool) -> None:
    """``analyze --hand --samples``: the cards of the seat to play over deals drawn from its
    own cards and the play alone."""
    seat, cards = _seat_cards("--hand", hand, "S:KQ97.Q9.AK54.J75")
    _weighed(solver, lambda step: weigh_view(solver, seat, cards, play, count, rules, leader,
                                             seed, known, done=step),
             count, seed, as_json, from_view=True)


# the library's arguments, as the command line names them
_OPTIONS = {"known": "--known", "hand": "--hand", "seat": "--hand", "play": "--play",
            "leader": "--leader", "rules": "--rules"}


def _weighed(solver: Solver, weigh: Callable[[Callable[[], None]], Weighing], count: int,
             seed: int | None, as_json: bool, from_view: bool) -> None:
    """``weigh(step)``'s weighing, ``step()`` a deal's step of the progress bar, reported."""
    try:
        with progress(live_display(), lambda: count, "deal") as step, stopped_when_reader_gone():
            weighing = weigh(step)
    except SampleError as e:       # named in the library's terms: "samples: known E: ..."
        option = _OPTIONS.get(e.field or "")
        fail(f"analyze --samples: {option}: {e.detail}" if option else
             f"analyze --samples: {str(e).partition(': ')[2]}")
    except HeartsError as e:
        fail(str(e))
    first = weighing.first_deal
    if first is None or not weighing.answered:      # (no deal drawn: none answered)
        fail(f"no deal analysed within the time limit of {solver.time_limit:g} s", code=3)
    try:
        echo(json.dumps(_with_seed(weighing.to_json(), seed)) if as_json
             else render_weighing(first, weighing, seed, from_view))
    except OSError as e:
        stdout_failed(e)


def _with_seed(answer: dict[str, Any], seed: int | None) -> dict[str, Any]:
    """A weighing's JSON with the seed of its deals after ``samples``: given again with
    ``--seed``, it repeats the run."""
    out: dict[str, Any] = {}
    for key, value in answer.items():
        out[key] = value
        if key == "samples":
            out["seed"] = seed
    return out


class _StatusLine:
    """What an analysis has proved so far (report.status_line), for the message of one cut
    short and, if ``shown``, on a line of stderr kept up to date from STATUS_AFTER seconds into
    it until it ends (however it ends): ``watch`` is ``Solver.analyze``'s, and ``after`` names
    a later step (the optimal line)."""

    def __init__(self, solver: Solver, pos: Position, seats: list[Seat] | None,
                 shown: bool = True) -> None:
        self.names, cards = solver.questions(pos, seats)
        self.cards = len(cards)
        self.bounds: dict[str, tuple[int | None, int | None]] = {}
        self.after = ""
        self.shown = False
        self._on_terminal = shown
        self._done = threading.Event()
        self._start = time.monotonic()
        self._ticker = threading.Thread(target=self._tick, name="hearts-dd status", daemon=True)

    def watch(self, question: str, low: int | None, high: int | None) -> None:
        self.bounds[question] = (low, high)

    def cut_short(self, alone: str, head: str) -> str:
        """The message of an analysis the time limit cut short: ``alone`` (what the search cut
        short had proved) when nothing else was, else ``head`` and every bound proved."""
        if not any(low is not None or high is not None for low, high in self.bounds.values()):
            return alone
        proved = status_line(self.bounds, self.names, self.cards, None)
        if self.after:
            return f"{head} for the {self.after}; the analysis was done: {proved}"
        return f"{head}; proved so far: {proved}"

    def _tick(self) -> None:
        try:
            width = os.get_terminal_size(sys.stderr.fileno()).columns - 1
        except (OSError, ValueError):
            width = 0
        width = width if width > 0 else 79  # (a terminal of unknown size says 0)
        while not self._done.wait(STATUS_EVERY if self.shown else STATUS_AFTER):
            text = status_line(self.bounds, self.names, self.cards, time.monotonic() - self._start)
            if self.after:
                text = f"{self.after} · {text}"
            # (cut as written: an ASCII console's "...", ">=" are longer than "…", "≥")
            sys.stderr.write("\r" + _to_end_of_line(as_written(text, sys.stderr)[:width]))
            sys.stderr.flush()
            self.shown = True

    def __enter__(self) -> _StatusLine:
        if self._on_terminal:
            self._ticker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        if self._on_terminal:
            self._ticker.join()
        if self.shown:
            sys.stderr.write("\r" + _to_end_of_line(""))
            sys.stderr.flush()


def _to_end_of_line(text: str) -> str:
    """``text`` over what the line held, erased to its end (a dumb terminal, which knows no
    such escape, gets no status line: ``live_display``)."""
    return text + "\x1b[K"


def _analyze_lines(solver: Solver, input_file: LineInput, rules: Rules, player: Seat | None) -> int:
    """``analyze --input``: one answer a line on stdout, as each chunk is solved, and a summary
    on stderr (as ``annotate``); the exit status."""
    t0 = time.perf_counter()
    lines = failed = 0
    solver.prepare(rules)  # many solves to come: map the table at once, not page by page
    asked = Tally(read_position_lines(input_file, rules, player))
    shown = live_display() and not sys.stdout.isatty()  # answers to a file: show progress
    answers = answer_lines(solver, asked, more_now=input_file.more_now)
    try:
        with stopped_when_reader_gone(), \
                progress(shown, lambda: count_ahead([input_file.name], LineInput.count),
                         "position") as step:
            for out in answers:
                try:
                    with held_for_output():     # (written and counted: see ReaderGone below)
                        sys.stdout.write(json.dumps(out) + "\n")
                        lines += 1
                        failed += out["error"] is not None
                        sys.stdout.flush()
                except OSError as e:
                    stdout_failed(e)
                step()
    except ReaderGone:
        # a program done asking closes its ends, input and output, once it has read every
        # answer: that is the end of its questions (the summary, exit 0 or 1), not a reader
        # gone with answers unread (exit 141, no word)
        answers.close()
        if lines < asked.taken or not input_file.ended_within(0.2):
            raise
        try:
            sys.stdout.flush()  # (an answer not yet written out: EPIPE, exit 141)
        except OSError as e:
            stdout_failed(e)
    except OSError as e:    # reading the input (writing the answers is caught above)
        name = getattr(input_file, "name", "-")
        where = "standard input" if name in ("-", "<stdin>") or not isinstance(name, str) else name
        fail(f"{where}: {e.strerror or e}")
    echo(f"hearts-dd: {counted(lines, 'position')}, {lines - failed} answered, {failed} with errors, "
         f"{time.perf_counter() - t0:.1f} s", err=True)
    return 1 if failed else 0


@cli.command("rules", help="The rule presets and keys: what --rules takes (SPEC §2).")
@click.option("--json", "as_json", is_flag=True,
              help="One JSON object on stdout, as the API's GET /api/v1/rules answers.")
def rules_command(as_json: bool) -> None:
    try:
        echo(json.dumps(catalogue()) if as_json else render_catalogue(catalogue()))
    except OSError as e:
        stdout_failed(e)


cli.add_command(serve)
cli.add_command(annotate)
cli.add_command(moon)


class Stopped(BaseException):
    """Ctrl-C, SIGTERM, SIGHUP or SIGXCPU: unwound so that no half-written output is left. (Not a
    KeyboardInterrupt: click would print a blank line for that first.)"""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


#: (SIGXCPU's default action ended the command at once, leaving annotate's temporary output file)
_STOPPING = STOP_SIGNALS
#: Seconds after a stop signal in which another is taken for the same stop.
REPEAT_GRACE = 2.0
_stopped_at: list[float] = []


def _stop(signum: int, frame: object) -> None:
    # A second signal right after the first, as a terminal's Ctrl-C to the whole group and a
    # wrapper passing it on send, would break into the unwinding the first began (a traceback
    # at exit): ignored. One later means the stop itself hangs (a worker that will not end):
    # the command ends at once.
    if _stopped_at:
        if time.monotonic() - _stopped_at[0] < REPEAT_GRACE:
            return
        _stop_at_once(signum, "signalled again")
    _stopped_at.append(time.monotonic())
    raise Stopped(signum)


def _stop_at_once(signum: int, why: str) -> None:
    """End the command now, without unwinding: the output being written removed, one line."""
    for part in list(temporary_files):         # (no unwinding will remove them)
        with suppress(OSError):
            os.unlink(part)
    with suppress(OSError):
        os.write(2, (error_line(f"stopped at once ({why})") + "\n").encode())
    os._exit(128 + signum)


stop_handlers.add(_stop)       # (ignored once annotate's output is whole: cli_common.output_whole)

#: Seconds before a stop dropped by a finaliser is signalled again (``_stop_dropped``).
REDELIVER_AFTER = 0.01


def _stop_dropped(unraisable: sys.UnraisableHookArgs) -> None:
    """``sys.unraisablehook``: a stop that the handler raised inside a finaliser (a Dask
    future's ``__del__``, run by the garbage collector between two lines of the run) is
    dropped by Python, which printed "Exception ignored in" and a traceback, and the run went on
    as if never stopped. It is signalled again a moment later, once the finaliser has returned,
    and no longer counts as a first signal to repeat."""
    if not isinstance(unraisable.exc_value, Stopped):
        sys.__unraisablehook__(unraisable)
        return
    signum = unraisable.exc_value.signum
    _stopped_at.clear()
    try:
        # (from a thread: a signal raised here would be handled inside this hook, and dropped)
        threading.Timer(REDELIVER_AFTER, os.kill, (os.getpid(), signum)).start()
    except RuntimeError:        # (no thread to be had: no unwinding either)
        _stop_at_once(signum, "no thread to unwind with")


def _no_thread(e: BaseException | None) -> bool:
    """Whether ``e`` is a thread that could not start (threading's words for ENOMEM, EAGAIN)."""
    return isinstance(e, RuntimeError) and "can't start new thread" in str(e)


def _thread_failed(args: threading.ExceptHookArgs) -> None:
    """A thread that could not start one of its own (out of memory) is reported by the code
    that waits on it, in one line: no traceback for it."""
    if not _no_thread(args.exc_value):
        threading.__excepthook__(args)


#: A hand of a PBN deal, its seat first ("N:AK.Q.J.T" or "n:..."), in a usage error's message.
_DEAL_LIKE = re.compile(r"(?<![\w.])[NESWnesw]:[^\s.]*\.[^\s.]*\.[^\s.]*\.")


def _usage_hint(command: str, message: str) -> str:
    """Where a deal given as an argument belongs, when a usage error is about one: a first
    ``hearts-dd analyze "N:..."`` or ``hearts-dd moon "N:..."`` said only "unexpected extra
    argument" or "file does not exist"."""
    if not _DEAL_LIKE.search(message):
        return ""
    if command == "analyze":
        return " (a deal goes in --deal)"
    if command in ("moon", "annotate"):
        return f" ({command} reads PBN files; for one deal: hearts-dd analyze --deal DEAL)"
    return ""


def _install_handlers() -> None:
    """The command's handlers: of the stop signals (each unless it was ignored when the command
    started), of a thread's exception, and of one dropped in a finaliser."""
    for signum, unset in zip(_STOPPING, (signal.default_int_handler, signal.SIG_DFL, signal.SIG_DFL,
                                         signal.SIG_DFL)):
        if signal.getsignal(signum) is unset:
            signal.signal(signum, _stop)
            watch_signal(signum)
    threading.excepthook = _thread_failed
    sys.unraisablehook = _stop_dropped


def main() -> None:
    """Entry point: click's own usage errors are also reduced to one line, exit 2; Ctrl-C,
    SIGTERM and SIGHUP stop a search at once and exit 128 + the signal's number (unless they
    were ignored when the command started, as under ``nohup``). Everything is under the ``try``:
    a Ctrl-C before the handlers are set (a KeyboardInterrupt) or after (``Stopped``) is one line
    however early it comes."""
    try:
        _install_handlers()
        standard_streams()
        plain_where_needed()
        cli.main(standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as e:
        # no command: the help, as click shows it (a usage error's exit status)
        echo(e.ctx.get_help(), err=True)
        sys.exit(2)
    except click.UsageError as e:
        command = e.ctx.command_path.removeprefix("hearts-dd").strip() if e.ctx else ""
        message = e.format_message().replace("\n", " ")
        hint = _usage_hint(e.ctx.command.name or "", message) if e.ctx else ""
        fail((f"{command}: " if command else "") + message + hint)
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)
    except click.Abort:
        fail("interrupted", code=130)
    except KeyboardInterrupt:
        fail("interrupted", code=130)
    except MemoryError as e:
        if str(e):  # the table, which is allocated whole, says so
            fail(f"out of memory: {e} (a smaller --table-mb may fit)")
        fail("out of memory (a smaller --table-mb, or fewer --threads or --jobs, may fit)")
    except RuntimeError as e:
        if not _no_thread(e):
            raise
        # (no memory for its stack, or the limit on processes, which counts threads)
        fail("out of memory, or too many processes: cannot start a thread (fewer --threads or "
             "--jobs, a smaller --table-mb, or a higher ulimit -u may fit)")
    except OSError as e:   # one no command caught: writing its help or usage
        if e.filename:
            fail(os_error_line(e))
        stdout_failed(e)
    except ReaderGone:
        stdout_failed(BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE)))
    except Stopped as e:
        # a repeat from here on is ignored: at exit Python puts the default handlers back, and
        # one arriving then killed the command by the signal rather than exit 128 + signum
        for signum in _STOPPING:
            if signal.getsignal(signum) is _stop:
                signal.signal(signum, signal.SIG_IGN)
        fail("interrupted" if e.signum == signal.SIGINT else f"stopped by {signal.Signals(e.signum).name}",
             code=128 + e.signum)


if __name__ == "__main__":
    main()
