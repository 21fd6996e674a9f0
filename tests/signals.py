"""Children that the stop-signal tests start: with Ctrl-C and a hang-up left to the system, as
in a terminal, whatever the test runner inherited (``nohup``, or a background job of a
non-interactive shell, starts with them ignored, and the command rightly keeps them so)."""
from __future__ import annotations

import signal
import subprocess


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


def reader_left(proc: subprocess.Popen[bytes]) -> tuple[int, bytes]:
    """A child's status and standard error once we, the reader of its output, close our end
    (killed if it has not ended within 30 s)."""
    assert proc.stdout is not None and proc.stderr is not None
    try:
        proc.stdout.close()
        status = proc.wait(timeout=30)
        return status, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdin is not None:
            proc.stdin.close()
