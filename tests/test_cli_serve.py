"""``hearts-dd serve``'s checks before gunicorn starts (solver/cli_serve.py), and the service's
behaviour as an operator meets it: signals, reloads, its log."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from api.testing import free_port
from solver.cli_serve import gunicorn_env_timeouts


def serve(*args: str, env: dict[str, str] | None = None, timeout: float = 20) -> subprocess.CompletedProcess[str]:
    """``hearts-dd serve`` with these arguments, stopped (SIGTERM) if it is still running after
    ``timeout`` seconds: a check that fails lets gunicorn start."""
    proc = subprocess.Popen([sys.executable, "-m", "solver.cli", "serve", "--port", str(free_port()), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.mark.parametrize("level", ["nope", "warn", ""])
def test_a_log_level_gunicorn_does_not_know_is_refused(monkeypatch, level: str) -> None:
    """gunicorn took ``--log-level nope`` and logged at "info", unsaid."""
    monkeypatch.setenv("GUNICORN_CMD_ARGS", f"--log-level '{level}'")
    with pytest.raises(ValueError, match=f"^--log-level {level}: expected one of critical, error, "
                                         "warning, info, debug$"):
        gunicorn_env_timeouts()


@pytest.mark.parametrize("level", ["debug", "WARNING"])
def test_the_log_levels_gunicorn_knows_are_taken(monkeypatch, level: str) -> None:
    monkeypatch.setenv("GUNICORN_CMD_ARGS", f"--log-level {level}")
    assert gunicorn_env_timeouts() == {}


def test_serve_refuses_a_bad_log_level_in_one_line() -> None:
    p = serve(env={"GUNICORN_CMD_ARGS": "--log-level nope"})
    assert p.returncode == 2 and p.stdout == "", p
    assert p.stderr == ("hearts-dd: error: serve: GUNICORN_CMD_ARGS: --log-level nope: expected one of "
                        "critical, error, warning, info, debug\n")
