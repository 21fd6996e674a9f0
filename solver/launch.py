"""The ``hearts-dd`` command's entry point, apart from the CLI so that a Ctrl-C while the
CLI's modules load (about a fifth of a second) ends in one line, as one during a solve does,
rather than in a traceback."""
from __future__ import annotations

import sys

from .errors import error_line


def main() -> None:
    try:
        from .cli import main as cli_main
    except KeyboardInterrupt:
        sys.stderr.write(error_line("interrupted") + "\n")
        sys.exit(130)
    cli_main()
