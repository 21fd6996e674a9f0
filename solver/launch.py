"""The ``hearts-dd`` command's entry point, apart from the CLI so that a Ctrl-C while the
CLI's modules load (about a fifth of a second) ends in one line and exit 130, as one during a
solve does, rather than in a traceback.

Nothing is imported here but ``sys``, which the interpreter has loaded already: a module this
one loaded at its top (``errors``, with ``json`` and ``typing``: some 5–10 ms) ran outside the
guard, and a Ctrl-C then still gave a traceback. What comes before this module runs is
Python's own start-up (``site``), out of any program's reach."""
import sys


def main() -> None:
    try:
        from .cli import main as cli_main
        cli_main()      # (it catches Ctrl-C itself from its first line: this is for the call)
    except (KeyboardInterrupt, RuntimeError) as e:
        if not _interrupted(e):
            raise
        _leave_interrupted()
    except (MemoryError, ImportError) as e:
        # (a memory limit, ulimit -v, that leaves Python room to start but not to load the
        # CLI's modules: a traceback, MemoryError or a shared library's "failed to map segment")
        if isinstance(e, ImportError) and "failed to map segment" not in str(e):
            raise
        sys.stderr.write("hearts-dd: error: out of memory while loading: a limit on memory "
                         "(ulimit -v) too low to start\n")
        sys.exit(2)


def _interrupted(e: BaseException | None) -> bool:
    """Whether ``e`` is a Ctrl-C, or an error a Ctrl-C caused: Python 3.11 wraps an exception
    raised while a class is made (a dataclass field's ``__set_name__``) in a RuntimeError."""
    while e is not None:
        if isinstance(e, KeyboardInterrupt):
            return True
        e = e.__cause__
    return False


def _leave_interrupted() -> None:
    """One line and exit 130, a second Ctrl-C (a terminal's to the whole group, and a wrapper
    passing it on) ignored meanwhile: loading the message's format could be broken into."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from .errors import error_line
    sys.stderr.write(error_line("interrupted") + "\n")
    sys.exit(130)
