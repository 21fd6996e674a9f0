"""The command run as a new process would run it, for tests of many short runs, without the
interpreter's start and the imports (a third of a second) every time.

One process loads the command's modules; each run is a process forked from it, in which the
command's entry point (``solver.launch.main``, what the installed script calls) runs with the
run's arguments, standard input on /dev/null and its output to files. Its exit status is the
one ``sys.exit`` gives, or 1 and the traceback, as for a new process.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

COMMAND = Path(sys.executable).with_name("hearts-dd")

FORKER = r"""
import json, os, sys, traceback
import solver.cli
from solver.launch import main
for line in sys.stdin:
    argv, out, err = json.loads(line)
    pid = os.fork()
    if pid == 0:
        for fd, name, flags in ((0, os.devnull, os.O_RDONLY), (1, out, os.O_WRONLY | os.O_TRUNC),
                                (2, err, os.O_WRONLY | os.O_TRUNC)):
            os.dup2(os.open(name, flags), fd)
        sys.argv = argv
        try:
            main()
            code = 0
        except SystemExit as e:
            if e.code is None or isinstance(e.code, int):
                code = e.code or 0
            else:
                print(e.code, file=sys.stderr)
                code = 1
        except BaseException:
            traceback.print_exc()
            code = 1
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
"""


class Forker:
    """The process the runs are forked from; ``run`` as ``subprocess.run(capture_output=True,
    text=True)`` of the installed command with these arguments."""

    def __init__(self, folder: Path) -> None:
        self.out, self.err = folder / "stdout", folder / "stderr"
        self.out.touch()
        self.err.touch()
        self.proc = subprocess.Popen([sys.executable, "-c", FORKER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        argv = [str(COMMAND), *args]
        self.proc.stdin.write(json.dumps([argv, str(self.out), str(self.err)]) + "\n")
        self.proc.stdin.flush()
        status = int(self.proc.stdout.readline())
        return subprocess.CompletedProcess(argv, status, self.out.read_text(), self.err.read_text())

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.proc.wait(30)
        self.proc.stdout.close()    # (else the collector closes it, in whichever test runs then)
