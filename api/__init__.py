"""The hearts-dd JSON API (SPEC §5): ``create_app`` (``api.app``) builds the Flask app gunicorn
serves.

Importing the package imports no more: gunicorn's arbiter imports ``api.worker`` (its worker
and logger classes), and whatever it imports it keeps, so a reload (SIGHUP) forked workers
that served the app's old code. The app is imported in each worker, as ``create_app`` is asked
for (PEP 562).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import create_app
    from .config import API_PREFIX


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from .app import create_app
        return create_app
    if name == "API_PREFIX":
        from .config import API_PREFIX
        return API_PREFIX
    raise AttributeError(f"module 'api' has no attribute {name!r}")


__all__ = ["create_app", "API_PREFIX"]
