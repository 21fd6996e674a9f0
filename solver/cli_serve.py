"""``hearts-dd serve``: the HTTP API (``api/``) under gunicorn, never Flask's development server."""
from __future__ import annotations

import argparse
import os
import runpy
import shlex
import socket
import sys
import tempfile
import textwrap
from importlib.util import find_spec
from pathlib import Path
from typing import NoReturn

import click

from .cli_common import Command, fail


def gunicorn_config() -> Path:
    """The gunicorn settings file that ships with the ``api`` package."""
    spec = find_spec("api")
    assert spec is not None and spec.origin is not None, "the api package is part of hearts-dd"
    return Path(spec.origin).with_name("gunicorn.conf.py")


def gunicorn_argv(host: str, port: int, workers: int | None) -> list[str]:
    """The command line that runs the API: the repo's config file, then these overrides.
    ``-P``: ``python -m`` put the working directory first on the import path, where a
    ``gunicorn.py`` (or ``selectors.py``, any module gunicorn imports as it starts) of whoever
    could write there ran in place of gunicorn's, as the user who started the service
    (api/gunicorn.conf.py puts the directory back, after the installed modules)."""
    bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    argv = [sys.executable, "-P", "-m", "gunicorn", "--config", str(gunicorn_config()), "--bind", bind]
    if workers is not None:
        argv += ["--workers", str(workers)]
    return argv


def settings_help() -> str:
    """The service's settings, each with its default, and gunicorn's timeouts, for ``--help``:
    the page said only "see api/config.py", a file a user of the installed command never sees."""
    from api.config import ENV_PREFIX, SETTINGS
    conf = runpy.run_path(str(gunicorn_config()))
    rows = ["Settings, from the environment (and their defaults):"]
    for name, s in SETTINGS.items():
        default = s.kind(s.default)
        rows.append(f"  {ENV_PREFIX}_{name}={default:g}" if s.kind is float else
                    f"  {ENV_PREFIX}_{name}={default}")
        rows += textwrap.wrap(s.what, 72, initial_indent=" " * 6, subsequent_indent=" " * 6)
    rows += ["", f"gunicorn's own options via GUNICORN_CMD_ARGS; its worker timeout is "
                 f"{conf['timeout']} s here,", f"its graceful timeout {conf['graceful_timeout']} s, "
                 f"and every budget must stay {conf['BUDGET_MARGIN']} s below both."]
    return "\n".join(["\b", *rows])


class _ServeCommand(Command):
    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.epilog = settings_help()       # (only for --help: the API's settings are not
        super().format_epilog(ctx, formatter)   # imported for every command)


@click.command(cls=_ServeCommand,
               short_help="Serve the JSON API with gunicorn (docs at /docs).",
               help="Serve the JSON API (docs at /docs) with gunicorn and api/gunicorn.conf.py.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True,
              help="TCP port to listen on.")
@click.option("--workers", type=click.IntRange(1, 256), default=None,
              help="Worker processes (default: one per core this process may use).")
def serve(host: str, port: int, workers: int | None) -> None:
    if find_spec("gunicorn") is None:
        fail("serve: gunicorn is not installed (pip install gunicorn)")
    if host.startswith("[") and host.endswith("]"):     # an IPv6 address as gunicorn writes it
        host = host[1:-1]
    problem = settings_problem() or listen_problem(host, port)
    if problem:
        fail(f"serve: {problem}")
    argv = gunicorn_argv(host, port, workers)
    os.execv(argv[0], argv)  # gunicorn takes over this process, and its signals


def settings_problem() -> str | None:
    """What is wrong with the ``HEARTS_DD_*`` settings, which each worker would otherwise
    report with a traceback or a page of log while gunicorn gives up. The budgets are checked
    against the timeouts gunicorn will use: api/gunicorn.conf.py's, or ``GUNICORN_CMD_ARGS``'s
    (the workers check them again, for gunicorn started some other way)."""
    from api import create_app
    from api.config import budget_problem
    try:
        app = create_app()
    except ValueError as e:
        return f"{e} (from the HEARTS_DD_* environment)"
    conf = runpy.run_path(str(gunicorn_config()))
    timeouts = {"timeout": conf["timeout"], "graceful_timeout": conf["graceful_timeout"]}
    try:
        args = gunicorn_env_args()
    except ValueError as e:
        return f"GUNICORN_CMD_ARGS: {e}"
    timeouts.update(_timeouts(args))
    # (a --worker-tmp-dir given is checked with the other files: gunicorn_env_args)
    if getattr(args, "worker_tmp_dir", None) is None and (problem := temporary_problem()):
        return problem
    return budget_problem(app.config, timeouts["timeout"], timeouts["graceful_timeout"],
                          conf["BUDGET_MARGIN"])


def temporary_problem() -> str | None:
    """Why gunicorn could not make its workers' heartbeat files, when no ``--worker-tmp-dir``
    is given: no temporary directory is writable (a read-only container's /tmp, /var/tmp and
    working directory). gunicorn logged a page of traceback from its main loop as it forked
    the first worker, and stopped with exit status 255."""
    try:
        tempfile.gettempdir()
    except OSError:
        return ("no writable temporary directory for the workers' heartbeat files (TMPDIR, /tmp, "
                "/var/tmp, the working directory): set TMPDIR, or GUNICORN_CMD_ARGS="
                "'--worker-tmp-dir /dev/shm'")
    return None


def _timeouts(args: argparse.Namespace) -> dict[str, int]:
    return {name: getattr(args, name) for name in ("timeout", "graceful_timeout")
            if getattr(args, name, None) is not None}


def gunicorn_env_args() -> argparse.Namespace:
    """The settings ``GUNICORN_CMD_ARGS`` gives, read with gunicorn's own parser, as gunicorn
    reads them over the config file; ValueError for arguments gunicorn would refuse (it would
    print its whole usage, or a blank line and the error), for no workers (which gunicorn
    takes, and then answers nobody), for a log level gunicorn does not know (which it takes
    as "info"), for a log, pid or log config file it could not write or read (a certificate or
    key file, or a worker temporary directory, gave a traceback), and for threads
    (which the service's worker, not gunicorn's sync one by name, would not run)."""
    from gunicorn.config import Config
    from gunicorn.glogging import Logger

    def refuse(message: str) -> NoReturn:
        raise ValueError(message)

    config = Config()
    parser = config.parser()
    parser.error = refuse
    argv = shlex.split(os.environ.get("GUNICORN_CMD_ARGS", ""))
    args: argparse.Namespace = parser.parse_args(argv)     # (gunicorn ships no types)
    for name, value in vars(args).items():
        if value is not None and name in config.settings:
            try:
                config.set(name, value)         # gunicorn's own checks of each value
            except Exception as e:    # (ValueError, TypeError, gunicorn's ConfigError)
                raise ValueError(f"--{name.replace('_', '-')} {value}: {e}") from None
    for name, kind in (("accesslog", "write"), ("errorlog", "write"), ("pidfile", "write"),
                       ("logconfig", "read"), ("certfile", "read"), ("keyfile", "read"),
                       ("worker_tmp_dir", "folder")):
        path = getattr(args, name, None)
        if path and path != "-" and (problem := path_problem(path, kind)):
            # (named as given, where it is whole: --log-file is --error-logfile's other name)
            names = config.settings[name].cli
            given = [a.partition("=")[0] for a in argv if a.partition("=")[0] in names]
            option = given[-1] if given else next(o for o in names if o.startswith("--"))
            raise ValueError(f"{option} {path}: {problem}")
    level = getattr(args, "loglevel", None)
    if level is not None and level.lower() not in Logger.LOG_LEVELS:
        # (gunicorn logs at "info" for a level it does not know, unsaid)
        raise ValueError(f"--log-level {level}: expected one of {', '.join(Logger.LOG_LEVELS)}")
    if getattr(args, "workers", None) == 0:
        raise ValueError("--workers 0: no worker would answer")
    if getattr(args, "bind", None):                 # (serve's own --bind would win, unsaid)
        raise ValueError("--bind: give serve's --host and --port instead")
    threads = getattr(args, "threads", None)
    if threads is not None and threads > 1 and getattr(args, "worker_class", None) is None:
        # (gunicorn runs threads only for its own sync worker's name: here it ignored them)
        raise ValueError(f"--threads {threads}: each worker serves one request at a time "
                         "(give serve --workers instead)")
    if getattr(args, "worker_class", None) is not None:
        try:
            config.worker_class                 # (imported as gunicorn will: a page if not found)
        except Exception:
            raise ValueError(f"--worker-class {args.worker_class}: no such worker class") from None
    return args


def path_problem(path: str, kind: str) -> str | None:
    """Why the file ``path`` could not be read or written (``kind``; "folder": a directory to
    create files in), as gunicorn will: it said
    so in two lines with a blank one first and exit status 1, or, for a pid file, only after it
    had started. Asked without creating anything."""
    target = Path(path)
    if kind == "folder":        # (gunicorn raised in its main loop, a page of traceback)
        if not target.is_dir():
            return "no such directory"
        return None if os.access(target, os.W_OK | os.X_OK) else f"cannot create a file in {target}"
    if kind == "read":
        return None if target.is_file() and os.access(target, os.R_OK) else "no such readable file"
    if target.is_dir():
        return "is a directory"
    if target.exists():
        return None if os.access(target, os.W_OK) else "not writable"
    folder = target.parent
    if not folder.is_dir():
        return f"no directory {folder}"
    return None if os.access(folder, os.W_OK | os.X_OK) else f"cannot create a file in {folder}"


def listen_problem(host: str, port: int) -> str | None:
    """Why gunicorn could not listen on ``host:port`` (it would retry for seconds and log a
    page): asked by binding once here, before it starts."""
    if not host.strip():
        return "--host is empty (0.0.0.0 listens on every interface)"
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (OSError, UnicodeError) as e:
        return f"cannot resolve --host {host!r}: {getattr(e, 'strerror', None) or e}"
    try:
        with socket.socket(family, kind, proto) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as gunicorn binds
            s.bind(address)
    except OSError as e:
        return f"cannot listen on {host}:{port}: {e.strerror or e}"
    return None
