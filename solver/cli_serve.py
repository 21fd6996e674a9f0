"""``hearts-dd serve``: the HTTP API (``api/``) under gunicorn, never Flask's development server."""
from __future__ import annotations

import os
import sys
from importlib.util import find_spec
from pathlib import Path

import click


def gunicorn_config() -> Path:
    """The gunicorn settings file that ships with the ``api`` package."""
    spec = find_spec("api")
    assert spec is not None and spec.origin is not None, "the api package is part of hearts-dd"
    return Path(spec.origin).with_name("gunicorn.conf.py")


def gunicorn_argv(host: str, port: int, workers: int | None) -> list[str]:
    """The command line that runs the API: the repo's config file, then these overrides."""
    bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    argv = [sys.executable, "-m", "gunicorn", "--config", str(gunicorn_config()), "--bind", bind]
    if workers is not None:
        argv += ["--workers", str(workers)]
    return argv


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True,
              help="TCP port to listen on.")
@click.option("--workers", type=click.IntRange(1, 256), default=None,
              help="Worker processes (default: one per core).")
def serve(host: str, port: int, workers: int | None) -> None:
    """Serve the JSON API (docs at /docs) with gunicorn and api/gunicorn.conf.py.

    Budgets and limits come from HEARTS_DD_* environment variables (see api/config.py).
    """
    if find_spec("gunicorn") is None:
        from .cli import fail
        fail("serve: gunicorn is not installed (pip install gunicorn)")
    argv = gunicorn_argv(host, port, workers)
    os.execv(argv[0], argv)  # gunicorn takes over this process, and its signals
