"""Pseudo-terminals for the tests of what the commands show on a terminal (status lines,
progress bars): one of a given size, and everything shown on it until the command ends."""
from __future__ import annotations

import os
from typing import Callable


def open_terminal(columns: int = 100, rows: int = 24) -> tuple[int, int]:
    """A pseudo-terminal of this size: (the test's side, the command's side)."""
    import fcntl
    import pty
    import struct
    import termios
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    return leader, follower


def shown(leader: int, watch: Callable[[bytes], None] | None = None) -> bytes:
    """All the terminal shows until every process has closed the command's side (the test
    closes its own copy first), then the test's side closed; ``watch`` gets all shown so far
    as each piece arrives (to time it)."""
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:           # the terminal is closed once the child is gone
            break
        if not chunk:
            break
        seen += chunk
        if watch is not None:
            watch(seen)
    os.close(leader)
    return seen
