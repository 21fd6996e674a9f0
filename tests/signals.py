"""Children that the stop-signal tests start: with Ctrl-C and a hang-up left to the system, as
in a terminal, whatever the test runner inherited (``nohup``, or a background job of a
non-interactive shell, starts with them ignored, and the command rightly keeps them so)."""
from __future__ import annotations

import signal


def as_in_a_terminal() -> None:
    """For ``preexec_fn``: SIGINT and SIGHUP back to their defaults in the child."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
